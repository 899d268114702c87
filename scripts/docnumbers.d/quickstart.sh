# numbers: quick
# The quickstart's summary (README "Quickstart") and its hop error at the
# first and last hop of iteration 0: `ccsim run workloads/quickstart.json`.
# The host line (time and memory of this machine) is left out: it is not a
# result of the build.
set -eu
"$CCSIM" run "$SRC/workloads/quickstart.json" --out "$WORK/quickstart" >"$WORK/out" 2>/dev/null
echo '```'
grep -v '^  host ' "$WORK/out" | sed "s|$WORK/quickstart|results/quickstart|"
echo '```'
echo
awk -F, 'NR > 1 && $1 == 0 { if (!first) first = $4; last = $4; hops = $2 }
  END { printf "In `hops.csv`, fp16'"'"'s cascading error grows from %.2g after one hop to %.2g after %d hops\n", first, last, hops
        print "(iteration 0): every hop re-rounds the partial sum to binary16." }' "$WORK/quickstart/hops.csv"
