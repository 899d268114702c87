#!/usr/bin/env bash
# tests/all_compressors.sh CCSIM SRCDIR — every registered compressor, end to
# end on small experiments through every collective that can take it:
# summable ones through the combining all-reduces (ring, tree, rhd, torus2d,
# hierarchical) and the ones that take anything; the others through
# ring-recompress, the all-gathers and the parameter server, and refused by
# `validate` (exit 2, a message naming the alternatives) on allreduce/ring.
# Each run must finish with finite errors, a positive byte count and, for
# the lossless ones, an exact aggregate.  PowerSGD at full rank (64 >= the
# 64 x 64 matrix's rank) must be exact through its two all-reduce rounds.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ANY="allreduce/ring-recompress allgather/ring allgather/rd ps"
SUMMABLE="allreduce/ring allreduce/tree allreduce/rhd allreduce/torus2d allreduce/hierarchical"

small() { # summary.json bound: agg_rel_error below bound
  local v
  v=$(grep -o '"agg_rel_error": [-0-9.eE+]*' "$1" | cut -d' ' -f2)
  [ -n "$v" ] && awk -v v="$v" -v b="$2" 'BEGIN { exit !(v < b) }'
}

run() { # name collective [extra --set...]
  local name=$1 coll=$2; shift 2
  local out="$T/${name}-${coll//\//-}${TAG:-}"
  if "$CCSIM" run "$SRC/tests/golden/small.json" --quiet --out "$out" --set compressor="$name" \
       --set workers=8 --set 'model={"elements": 1001}' --set "collective=\"$coll\"" "$@" >"$T/log" 2>&1 &&
     grep -q "\"agg_cosine\": ${COSINE:-[-0-9]}" "$out/summary.json" &&
     ! grep -qiE 'nan|inf' "$out/iterations.csv" "$out/hops.csv" &&
     awk -F, 'NR > 1 && $7 <= 0 { bad = 1 } END { exit bad }' "$out/iterations.csv"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL $name over $coll: did not run cleanly"; cat "$T/log"
  fi
}

while read -r name kind _; do
  if [ "$kind" = summable ]; then
    for c in $SUMMABLE $ANY; do
      if [ "$c" = allreduce/hierarchical ]; then run "$name" "$c" --set collective.node_size=4
      else run "$name" "$c"; fi
    done
  else
    for c in $ANY; do run "$name" "$c"; done
    if [ "$name" = powersgd ]; then
      run "$name" allreduce/ring
      run "$name" allreduce/rhd --set compressor.rank=64 --set 'model={"elements": 4096}'
      if small "$T/powersgd-allreduce-rhd/summary.json" 1e-5; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1)); echo "FAIL powersgd at full rank is not exact:"; grep agg_rel "$T/powersgd-allreduce-rhd/summary.json"
      fi
      continue
    fi
    "$CCSIM" validate "$SRC/tests/golden/small.json" --set compressor="$name" >/dev/null 2>"$T/err"
    if [ $? -eq 2 ] && grep -q "not summable; use a summable compressor" "$T/err" &&
       grep -q "allreduce/ring-recompress" "$T/err"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAIL $name: non-summable compressor not refused clearly"; cat "$T/err"
    fi
  fi
done < <("$CCSIM" list compressors)
# lossless through every collective: the exact mean
for c in $SUMMABLE $ANY; do
  f="$T/none-${c//\//-}/summary.json"
  if small "$f" 1e-6; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL none over $c is not exact:"; grep agg_rel "$f"; fi
done
# more workers than elements: chunks that are empty beside one that is the
# whole tensor (s2-sketch's whole payload once waited for ever for units
# that chunk never marked, and aborted), at 3 workers x 1 element through
# every collective each compressor takes; and at 5 x 3 (empty chunks beside
# short ones) through the combining all-reduces for the summable compressors
while read -r name kind _; do
  colls=$ANY
  [ "$kind" = summable ] && colls="$SUMMABLE $ANY"
  for c in $colls; do
    [ "$c" = allgather/rd ] && continue # power-of-two workers only
    sizes=("3 1")
    [ "$kind" = summable ] && [[ " $SUMMABLE " == *" $c "* ]] && sizes+=("5 3")
    for ne in "${sizes[@]}"; do
      set -- $ne
      ns=()
      [ "$c" = allreduce/hierarchical ] && ns=(--set collective.node_size="$1") # one node of all
      [ "$c" = allreduce/torus2d ] && ns=(--set collective.rows=1)               # 3 and 5 are prime
      # a sparsifier may send nothing of one element: no cosine then (a reason)
      COSINE='[-0-9"]' TAG=-n$1e$2 run "$name" "$c" --set workers="$1" --set "model={\"elements\": $2}" "${ns[@]}"
    done
  done
done < <("$CCSIM" list compressors)
echo "all_compressors: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -ge 100 ]
