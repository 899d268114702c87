#!/usr/bin/env bash
# bench/hugepages.sh BUILD SRCDIR [PAIRS] — the heap on huge pages
# (src/heap.h) against 4 KiB pages: PAIRS (default 8) runs of issue 29's (a)
# (a 1024-worker ring, sampled, one iteration) with CCSIM_HUGEPAGES=0 and
# =1 alternated, back to back, so that each pair sees the machine in the
# same phase; prints each setting's median wall s, CPU s (user + system)
# and minor page faults, and the median of the pairs' wall ratios.
# ITER=K runs K iterations instead; WORKERS=N another size;
# EXP=experiment.json with ARGS="--set ..." another experiment.
set -eu
BUILD=$(readlink -f "$1")
SRC=$(readlink -f "$2")
PAIRS=${3:-8}
CCSIM=$BUILD/src/ccsim
. "$(dirname "$0")/lib.sh" # T, median
EXP=${EXP:-$SRC/tests/validation/ring_crossbar.json}
# ARGS is split at spaces; its quotes are the JSON's own, none inside a word
# shellcheck disable=SC2089,SC2090
if [ -z "${ARGS:-}" ]; then
  ARGS="--set workers=${WORKERS:-1024} --set model={\"elements\":1048576} --set model.sample=65536 --set iterations=${ITER:-1}"
fi
for i in $(seq 1 "$PAIRS"); do
  for h in 0 1; do
    # shellcheck disable=SC2086,SC2090
    CCSIM_HUGEPAGES=$h /usr/bin/time -f "%e %U %S %R" -o "$T/t" "$CCSIM" run "$EXP" --quiet --force --out "$T/o$h" $ARGS >/dev/null
    echo "$h $(cat "$T/t")" >>"$T/all"
  done
  cmp -s "$T/o0/iterations.csv" "$T/o1/iterations.csv" && cmp -s "$T/o0/hops.csv" "$T/o1/hops.csv" ||
    { echo "pair $i: the result files differ" >&2; exit 1; }
done
for h in 0 1; do
  w=$(awk -v h=$h '$1 == h { print $2 }' "$T/all" | median)
  c=$(awk -v h=$h '$1 == h { print $3 + $4 }' "$T/all" | median)
  f=$(awk -v h=$h '$1 == h { print $5 }' "$T/all" | median)
  echo "CCSIM_HUGEPAGES=$h: median wall $w s, CPU $c s, page faults $f ($PAIRS runs)"
done
r=$(awk '$1 == 0 { w0[++a] = $2 } $1 == 1 { w1[++b] = $2 } END { for (i = 1; i <= a; i++) print w1[i] / w0[i] }' "$T/all" | median)
echo "median of the pairs' wall ratios (huge / 4 KiB): $r; result files identical in every pair"
