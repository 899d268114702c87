#!/usr/bin/env bash
# bench/scale.sh BUILD SRCDIR [CASES] — the largest runs of issue 29's list:
#  (e) ring all-reduce of 1M floats on a crossbar (25 Gbps, 5 us), sampled
#      (model.sample=65536), one iteration, at N = E_N (default 16384):
#      CPU seconds, wall seconds, peak memory, and the messages each timing
#      path timed;
#  (f) N = F_N (default 1024) workers on a two-level fat-tree of 32 leaves
#      (32 hosts each, 4 uplinks of 10 Gbps per leaf: oversubscribed 8:1),
#      sampled, one iteration: the ring all-reduce (neighbours mostly on one
#      leaf: few flows share a link) and a parameter server with 4 servers
#      and top-k 1% (every worker sends to the servers at once: contention),
#      with the share of messages the analytical path timed.
# CASES picks some of e f (default: both).  A benchmark, not a test.
# BENCH_KEEP=DIR keeps the runs.  Extra ccsim options from CCSIM_OPTS.
set -u
BUILD=$(readlink -f "$1")
SRC=$(readlink -f "$2")
shift 2
CASES=${*:-${CASES:-e f}} # the arguments, else $CASES (e.g. CASES=e), else both
CCSIM=$BUILD/src/ccsim
E_N=${E_N:-16384}
F_N=${F_N:-1024}
OPTS=${CCSIM_OPTS:-}
. "$(dirname "$0")/lib.sh" # T, measure
paths() { # dir -> "analytical/total messages (share)"
  python3 "$SRC/tests/timing_compare.py" --paths "$1" 2>/dev/null |
    awk '{ t = $3 + $4; printf "%d / %d (%.1f%%)\n", $3, t, 100 * $3 / (t > 1 ? t : 1) }' | grep . || echo -
}
sim_of() { sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$1/summary.json" 2>/dev/null; }
printf '| case | run | CPU s | wall s | peak MB | simulated s | messages timed analytically |\n|---|---|---|---|---|---|---|\n'
row() { set -- "$1" "$2" $3 "$4" "$5"; printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }
RING="$SRC/tests/validation/ring_crossbar.json"
for c in $CASES; do
  case $c in
  e)
    # shellcheck disable=SC2086
    r=$(measure e "$CCSIM" run "$RING" --quiet --out "$T/e" --set workers="$E_N" \
      --set 'model={"elements":1048576}' --set model.sample=65536 --set iterations=1 $OPTS)
    row e "ring, N=$E_N, sampled, 1 it" "$r" "$(sim_of "$T/e")" "$(paths "$T/e")"
    ;;
  f)
    FT='platform={"generate": "fat-tree", "down": [32, 32], "up": [1, 4], "parallel": [1, 1], "bandwidth": "10Gbps", "latency": "2us"}'
    # shellcheck disable=SC2086
    r=$(measure fring "$CCSIM" run "$RING" --quiet --out "$T/fring" --set workers="$F_N" --set "$FT" \
      --set 'model={"elements":1048576}' --set model.sample=65536 --set iterations=1 $OPTS)
    row f "ring, N=$F_N, fat-tree 8:1" "$r" "$(sim_of "$T/fring")" "$(paths "$T/fring")"
    # shellcheck disable=SC2086
    r=$(measure fps "$CCSIM" run "$RING" --quiet --out "$T/fps" --set workers="$F_N" --set "$FT" \
      --set 'model={"elements":1048576}' --set model.sample=65536 --set iterations=1 \
      --set 'collective={"name": "ps", "servers": 4}' --set 'compressor={"name": "topk", "ratio": 0.01}' $OPTS)
    row f "ps 4 servers + top-k 1%, N=$F_N, fat-tree 8:1" "$r" "$(sim_of "$T/fps")" "$(paths "$T/fps")"
    ;;
  *) echo "bench/scale.sh: unknown case $c (e, f)" >&2; exit 2 ;;
  esac
done
