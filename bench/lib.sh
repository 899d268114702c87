# bench/lib.sh — what the benchmark scripts share, sourced after they set
# their own variables: the scratch directory T (BENCH_KEEP=DIR keeps every
# run's log, time and results in DIR instead of a temporary removed at exit)
# and measure NAME COMMAND..., which runs COMMAND with its output in
# $T/NAME.log and prints "cpu_s wall_s peak_MB" (user + system CPU seconds
# of the command and the children it waited for, wall seconds, peak
# resident MB of the largest process), or "- - -" and the log's tail on
# stderr when it fails (BENCH_TIME names GNU time where it is not
# /usr/bin/time: a packed one, bench/pack.sh); and median [FORMAT], the
# median of the numbers on stdin.
if [ -n "${BENCH_KEEP:-}" ]; then
  T=$(readlink -f "$BENCH_KEEP") && mkdir -p "$T" || exit 1
else
  T=$(mktemp -d)
  trap 'rm -rf "$T"' EXIT
fi
measure() {
  local p=$T/$1; shift
  "${BENCH_TIME:-/usr/bin/time}" -f "%U %S %e %M" -o "$p.time" "$@" >"$p.log" 2>&1 || { echo "failed: $*" >&2; tail -3 "$p.log" >&2; echo "- - -"; return 1; }
  awk '{ printf "%.2f %.2f %.0f", $1 + $2, $3, $4 / 1024 }' "$p.time"
}

# median [FORMAT]: the median of the numbers on stdin (one or several a
# line, blanks skipped), printed with FORMAT (default %.3f); nothing when
# there is none.
median() {
  tr ' ' '\n' | grep . | sort -g |
    awk -v f="${1:-%.3f}" '{ v[NR] = $1 } END { if (NR) printf f, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
