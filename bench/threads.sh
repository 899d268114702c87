#!/usr/bin/env bash
# bench/threads.sh BUILD SRCDIR [THREADS...] — what the data executor's
# threads buy, in one sitting: the same full-data runs with --threads 1 and
# each of THREADS (default 2), alternated ROUNDS times (default 2), each
# measured in host CPU seconds (user + sys, children included) and wall
# seconds.  The speedup is wall(1 thread) / wall(N threads); CPU / wall
# says how many cores a run kept busy.  A benchmark, not a test: on a shared
# machine (other jobs on the cores) wall seconds say more about the load
# than about ccsim, so say what else ran.  The result files of every run
# are compared with the 1-thread run's (they must be identical).
# Cases (full data plane, one simulated iteration each after the first,
# the memo on):
#   recompress  allreduce/ring-recompress, QSGD 16 levels + residual memory,
#               8 workers, 4M elements, 3 iterations (decode, add, encode at
#               every hop: the heaviest data plane per byte sent)
#   ring        allreduce/ring, Marsit + its memory, 8 workers, 8M elements,
#               3 iterations (gradient synthesis and 1-bit combines)
# CASES (environment) picks some (default: both).
set -u
BUILD=$(readlink -f "$1")
SRC=$(readlink -f "$2")
shift 2
THREADS=${*:-2}
ROUNDS=${ROUNDS:-2}
CASES=${CASES:-recompress ring}
CCSIM=$BUILD/src/ccsim
G=$SRC/tests/golden/small.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
args_of() {
  case $1 in
    recompress) echo "--set workers=8 --set model.elements=4000000 --set iterations=3 --set collective=allreduce/ring-recompress" \
      '--set compressor={"name":"qsgd","levels":16,"memory":"residual"}' ;;
    ring) echo "--set workers=8 --set model.elements=8000000 --set iterations=3 --set collective=allreduce/ring" \
      '--set compressor={"name":"marsit","memory":"marsit"}' ;;
  esac
}
strip() { grep -v -E '"(host_time_s|peak_rss_mb)"' "$1"; }
one() { # case threads round -> "cpu wall"
  local out=$T/$1-$2-$3
  TIMEFORMAT='%U %S %R'
  # shellcheck disable=SC2046
  { time "$CCSIM" run "$G" --quiet --out "$out" --threads "$2" $(args_of "$1") >/dev/null 2>"$out.err"; } 2>"$out.time" ||
    { echo "failed: $1 --threads $2" >&2; cat "$out.err" >&2; exit 1; }
  for f in "$out"/*; do
    local b ref=$T/$1-1-1/$(basename "$f")
    b=$(basename "$f")
    if [ "$b" = summary.json ]; then cmp -s <(strip "$f") <(strip "$ref")
    else cmp -s "$f" "$ref"; fi || { echo "DIFFERENT: $1 --threads $2: $b" >&2; exit 1; }
  done
  awk '{ printf "%.2f %.2f", $1 + $2, $3 }' "$out.time"
}
echo "host: $(nproc) cores online, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
printf '| case | threads | round | CPU s | wall s | CPU / wall | wall(1) / wall(N) |\n|---|---|---|---|---|---|---|\n'
for c in $CASES; do
  for r in $(seq 1 "$ROUNDS"); do
    read -r c1 w1 <<<"$(one "$c" 1 "$r")"
    printf '| %s | 1 | %d | %s | %s | %s | 1 |\n' "$c" "$r" "$c1" "$w1" "$(awk -v a="$c1" -v b="$w1" 'BEGIN { printf "%.2f", a / b }')"
    for n in $THREADS; do
      read -r cn wn <<<"$(one "$c" "$n" "$r")"
      printf '| %s | %d | %d | %s | %s | %s | %s |\n' "$c" "$n" "$r" "$cn" "$wn" \
        "$(awk -v a="$cn" -v b="$wn" 'BEGIN { printf "%.2f", a / b }')" "$(awk -v a="$w1" -v b="$wn" 'BEGIN { printf "%.2f", a / b }')"
    done
  done
done
echo "host: load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs; every result file identical to the 1-thread run's"
