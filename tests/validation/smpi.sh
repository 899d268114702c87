#!/usr/bin/env bash
# tests/validation/smpi.sh CCSIM SRCDIR [N...] — ccsim's uncompressed ring
# all-reduce against SimGrid SMPI's own MPI_Allreduce (ring algorithm "lr") on
# the same platform XML and network model, with 1M floats: the simulated
# times must agree within 1%.  The MPI program is built here with smpicc.
# The platform is the one ccsim generates and writes beside its results, so
# both simulators read the same file; pass PLATFORM=path.xml to use another.
set -u
CCSIM=$1
SRC=$2
shift 2
NS=${*:-16 64}
COUNT=1048576
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v smpicc >/dev/null && command -v smpirun >/dev/null || { echo "smpicc/smpirun not found"; exit 77; }
smpicc -O2 -o "$T/allreduce" "$SRC/tests/validation/mpi_allreduce.c" 2>"$T/cc.log" || { cat "$T/cc.log"; exit 1; }
fail=0
printf '| N | ccsim (s) | SMPI lr (s) | deviation |\n|---|---|---|---|\n'
for N in $NS; do
  out="$T/ccsim-$N"
  if [ -n "${PLATFORM:-}" ]; then
    plat=$(readlink -f "$PLATFORM")
    "$CCSIM" run "$SRC/tests/validation/ring_crossbar.json" --quiet --out "$out" --set workers=$N \
      --set "model={\"elements\": $COUNT}" --set "platform={\"file\": \"$plat\"}" >/dev/null || { echo "ccsim failed"; exit 1; }
  else
    "$CCSIM" run "$SRC/tests/validation/ring_crossbar.json" --quiet --out "$out" --set workers=$N \
      --set "model={\"elements\": $COUNT}" >/dev/null || { echo "ccsim failed"; exit 1; }
    plat="$out/platform.xml"
  fi
  ours=$(sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$out/summary.json")
  # the same hosts, in the same order as ccsim's workers (natural order of names)
  "$CCSIM" hosts "$plat" | head -n "$N" >"$T/hosts"
  theirs=$(smpirun -np "$N" -platform "$plat" -hostfile "$T/hosts" \
    --cfg=smpi/allreduce:lr --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
    --cfg=smpi/simulate-computation:no --log=root.thresh:error \
    "$T/allreduce" $COUNT 2>"$T/smpi.log" | sed -n 's/^smpi_allreduce_s //p')
  if [ -z "$theirs" ]; then echo "SMPI run failed:"; tail -5 "$T/smpi.log"; exit 1; fi
  dev=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%+.4f", 100 * (a / b - 1) }')
  printf '| %d | %.9g | %.9g | %s%% |\n' "$N" "$ours" "$theirs" "$dev"
  awk -v d="$dev" 'BEGIN { exit !(d < 1 && d > -1) }' || { echo "FAIL: N=$N deviates $dev%"; fail=1; }
done
exit $fail
