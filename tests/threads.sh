#!/usr/bin/env bash
# tests/threads.sh CCSIM SRCDIR — the data executor's thread count changes
# nothing but the host time: every result file of a run with --threads 4 is
# byte-identical to the same run with --threads 1 (summary.json aside from
# its host-time fields), with the memo and without it.  Workers run on
# min(threads, workers) lanes (docs/engine.md), so every case has 4 workers
# or more: a ring with fp16, a parameter server with top-k
# both ways, the recompressing ring with QSGD and a residual memory, Marsit
# with its memory and a timeline, threshold on the ring all-gather,
# Global-QSGD's ring with bucketed maxima (two kinds of messages between the
# same ranks),
# PowerSGD's rounds over recursive halving-doubling, live training (an MLP
# on the digits, private outputs), a sampled ResNet-50 profile, and the
# torus, tree, hierarchical, recursive-doubling, SparCML and OmniReduce
# collectives.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
strip() { grep -v -E '"(host_time_s|peak_rss_mb)"' "$1"; }
same() { # name dirA dirB what
  local name=$1 a=$2 b=$3 what=$4 f bn n=0
  for f in "$a"/*; do
    bn=$(basename "$f")
    [ -e "$b/$bn" ] || { echo "FAIL $name: $bn missing $what"; fail=1; continue; }
    if [ "$bn" = summary.json ]; then
      cmp -s <(strip "$f") <(strip "$b/$bn") || { echo "FAIL $name: summary.json differs $what"; diff <(strip "$f") <(strip "$b/$bn") | head -6; fail=1; }
    else
      cmp -s "$f" "$b/$bn" || { echo "FAIL $name: $bn differs $what"; fail=1; }
    fi
    n=$((n + 1))
  done
  [ "$(ls "$a" | wc -l)" = "$(ls "$b" | wc -l)" ] || { echo "FAIL $name: other files $what"; fail=1; }
  echo "$name: $n files identical $what"
}
run() { # out experiment [args...]
  local out=$1 exp=$2
  shift 2
  "$CCSIM" run "$exp" --quiet --out "$out" "$@" >/dev/null 2>"$T/err" || { echo "FAIL: ccsim run $exp $* failed"; cat "$T/err"; fail=1; return 1; }
}
check() { # name experiment [--set ...]; NOMEMO=1 also compares --no-memo runs
  local name=$1 exp=$2
  shift 2
  run "$T/$name-1" "$exp" --threads 1 "$@" || return
  run "$T/$name-4" "$exp" --threads 4 "$@" || return
  same "$name" "$T/$name-1" "$T/$name-4" "with 1 and 4 threads"
  if [ "${NOMEMO:-0}" = 1 ]; then
    run "$T/$name-1n" "$exp" --threads 1 --no-memo "$@" || return
    run "$T/$name-4n" "$exp" --threads 4 --no-memo "$@" || return
    same "$name" "$T/$name-1n" "$T/$name-4n" "with 1 and 4 threads, --no-memo"
  fi
}
G="$SRC/tests/golden/small.json"
BIG=(--set workers=4 --set 'model={"elements": 65536}')
NOMEMO=1 check ring "$G" "${BIG[@]}" --set iterations=3
check ps "$G" "${BIG[@]}" --set 'compressor={"name": "topk", "ratio": 0.1}' \
  --set 'collective={"name": "ps", "downlink": true}'
NOMEMO=1 check recompress "$G" "${BIG[@]}" --set 'compressor={"name": "qsgd", "levels": 16, "memory": "residual"}' \
  --set collective=allreduce/ring-recompress
check marsit "$G" "${BIG[@]}" --set 'compressor={"name": "marsit", "memory": "marsit"}' \
  --set device=v100 --set output.timeline=true
check threshold "$G" "${BIG[@]}" --set 'compressor={"name": "threshold", "tau": 0.05}' --set collective=allgather/ring
check powersgd "$G" --set workers=4 --set 'model={"elements": 262144}' --set 'compressor={"name": "powersgd", "rank": 2}' \
  --set collective=allreduce/rhd
NOMEMO=1 check train "$SRC/workloads/convergence/marsit.json" --set workers=4 --set iterations=12 \
  --set 'train.model.hidden=[512]'
check sampled "$SRC/workloads/walltime/resnet50.json" --set workers=8 --set model.sample=262144 --set iterations=3 \
  --set 'compressor={"name": "marsit", "memory": "marsit"}' --set collective=allreduce/ring
# messages of two kinds between the same ranks: Global-QSGD's ring sends
# each bucket's global maximum (a float) before its bundles, so behind a
# bucket's bundles the next bucket's maxima wait in the same inbox; what a
# received bundle's prefetch hint looks at must be a bundle (a hint that
# took every waiting message for one crashed here at 64 workers)
check mixed "$SRC/workloads/papers/global-qsgd/base.json" --set workers=64 --set iterations=1 \
  --set 'compressor={"name": "global-qsgd", "bits": 8}'
# the other collectives: random-k through the summable ones, top-k through
# the sparse ones
for c in allreduce/torus2d allreduce/tree '{"name": "allreduce/hierarchical", "node_size": 2}' allgather/rd; do
  name=${c#*/}
  check "${name%%\"*}" "$G" "${BIG[@]}" --set "collective=$c" --set 'compressor={"name": "randomk", "ratio": 0.1}'
done
for c in allreduce/sparcml allreduce/omnireduce; do
  check "${c#*/}" "$G" "${BIG[@]}" --set "collective=$c" --set 'compressor={"name": "topk", "ratio": 0.1}'
done
# more threads than copies of the exact sums (8): lanes share a copy under
# its lock; 24 workers on 12 threads against 1
run "$T/many-1" "$G" --set workers=24 --set 'model={"elements": 65536}' --set iterations=3 \
  --set 'compressor={"name": "marsit", "memory": "marsit"}' --threads 1 &&
  run "$T/many-12" "$G" --set workers=24 --set 'model={"elements": 65536}' --set iterations=3 \
    --set 'compressor={"name": "marsit", "memory": "marsit"}' --threads 12 &&
  same many "$T/many-1" "$T/many-12" "with 1 and 12 threads"
# a thread count the option refuses: exit 2 and one line
out=$("$CCSIM" run "$G" --quiet --out "$T/bad" --threads 0 2>&1); rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s' "$out" | grep -q -- "--threads" ||
  { echo "FAIL --threads 0: exit $rc, $out"; fail=1; }
[ $fail = 0 ] && echo "threads: every result file identical with 1 and 4 threads"
exit $fail
