#!/bin/bash
# S2 Reducer (arXiv 2110.02140) against the sparse baselines its paper compares with,
# on 2 nodes x 4 GPUs with 1 Gbps between nodes: bytes on the wire and time of the
# embedding's (sparse) all-reduce, the iteration time with the dense rest of lstm-wt2,
# and accuracy on a live-trained task with a row-sparse gradient.  Draws the figures and
# writes results.csv, claims.csv and table.md under OUT.
#
# usage: [QUICK=1] [CCSIM=path/to/ccsim] [OUT=dir] [JOBS=2] bash workloads/papers/s2-reducer/run.sh
#   QUICK=1  1 iteration of the embedding and the dense part, 60 training iterations
#            (a few minutes on 2 cores); the full study runs 3 and 1000.
#   SETS="PATH=VALUE ..."  --set overrides for every run, for held-out variations, e.g.
#            SETS="platform.bandwidth=10Gbps" or SETS="workers=16 platform.nodes=4"
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CCSIM=${CCSIM:-}
if [ -z "$CCSIM" ]; then
  if [ -x "$ROOT/build/src/ccsim" ]; then CCSIM="$ROOT/build/src/ccsim"; else CCSIM=$(command -v ccsim); fi
fi
OUT=${OUT:-results/papers/s2-reducer}
QUICK=${QUICK:-0}
JOBS=${JOBS:-2}
EXTRA=()
for kv in ${SETS:-}; do EXTRA+=(--set "$kv"); done
PY=/usr/bin/python3
if [ "$QUICK" = 1 ]; then EMB_IT=1; TEXT_IT=60; else EMB_IT=3; TEXT_IT=1000; fi
mkdir -p "$OUT"

# the methods (label | compressor | collective), shared with scripts/docnumbers.d/s2-reducer-*.sh
. "$HERE/methods.sh"

# one ccsim run, quiet, unless OUT already holds the finished results of exactly that
# experiment (--skip-finished compares the experiment hash; a changed workload or ccsim
# version is rerun, --force replacing the old result), so a study can be resumed; a
# failure prints the run's own message and leaves OUT/failed, which stops the study
run() {
  local out=$1; shift
  if ! "$CCSIM" run --quiet --skip-finished --force "$@" ${EXTRA[@]+"${EXTRA[@]}"} --out "$out" >"$out.log" 2>&1; then
    cat "$out.log" >&2
    echo "run.sh: ccsim run $* failed" >&2
    echo "$out" >>"$OUT/failed"
    return 1
  fi
}

rm -f "$OUT/failed"
wait_slot() {
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
}

# the text task's cols is its embedding width (64), not lstm-wt2's 650
text_comp() { echo "${1//\"cols\": 650/\"cols\": 64}"; }

echo "s2-reducer: embedding ($EMB_IT iterations), dense rest, text task ($TEXT_IT iterations) -> $OUT"
for m in "${METHODS[@]}"; do
  IFS='|' read -r label comp coll <<<"$m"
  wait_slot
  run "$OUT/embedding-$label" "$HERE/embedding.json" --set iterations=$EMB_IT \
    --set "compressor=$comp" --set "collective=$coll" &
  wait_slot
  run "$OUT/text-$label" "$HERE/text.json" --set iterations=$TEXT_IT \
    --set "compressor=$(text_comp "$comp")" --set "collective=$coll" &
done
wait_slot
run "$OUT/dense-rest" "$HERE/dense-rest.json" --set iterations=$EMB_IT &

# the full study only: the embedding's sparsity (tokens per worker: batch 4 and 64 of 35
# tokens) against S2 Reducer's fixed sketch, and the sketch's size against its error
if [ "$QUICK" != 1 ]; then
  for tok in 140 2240; do
    for m in "${METHODS[@]:1:4}"; do
      IFS='|' read -r label comp coll <<<"$m"
      wait_slot
      run "$OUT/tokens$tok-$label" "$HERE/embedding.json" --set iterations=1 --set gradients.tokens=$tok \
        --set "compressor=$comp" --set "collective=$coll" &
        done
  done
  for ratio in 0.01 0.2 0.5; do
    wait_slot
    run "$OUT/ratio$ratio-s2-reducer" "$HERE/embedding.json" --set iterations=1 \
      --set "compressor={\"name\": \"s2-sketch\", \"cols\": 650, \"ratio\": $ratio}" &
    done
fi
# every background run; a pid list would race with wait_slot's `jobs`, which reaps them
wait
[ ! -s "$OUT/failed" ] || { echo "run.sh: $(wc -l <"$OUT/failed") run(s) failed" >&2; exit 1; }

"$PY" "$HERE/analyze.py" "$OUT"
