# tests/lib.sh — the preamble the shell tests share, sourced first:
#   . "$(dirname "$0")/lib.sh" "$@"     (arguments: CCSIM [SRCDIR] ...)
# gives CCSIM and SRC as absolute paths (SRC empty without a second
# argument), a scratch directory T removed at exit and made the working
# directory, the counters pass and fail with ok and bad (bad prints its
# message with FAIL on stderr), and finish NAME, the last line of a test:
# "NAME: P passed, F failed", exit status 0 only without a failure; and
# same NAME DIR_A DIR_B for two runs' result directories, same_env for two
# runs of one experiment with and without a variable of the environment.
set -u
CCSIM=$(realpath "$1")
SRC=
[ $# -ge 2 ] && SRC=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }
finish() {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

# same NAME DIR_A DIR_B: two runs' result directories hold the same files,
# at least three, byte for byte (summary.json aside from its host fields,
# host_time_s and peak_rss_mb): ok, else bad naming each file that differs.
strip_host() { grep -v -E '"(host_time_s|peak_rss_mb)"' "$1"; }
same() {
  local f bn n=0
  for f in "$2"/*; do
    bn=$(basename "$f")
    if [ "$bn" = summary.json ]; then
      cmp -s <(strip_host "$f") <(strip_host "$3/$bn") || { bad "$1: summary.json differs"; continue; }
    else
      cmp -s "$f" "$3/$bn" || { bad "$1: $bn differs"; continue; }
    fi
    n=$((n + 1))
  done
  if [ "$n" -ge 3 ] && [ "$(ls "$2" | wc -l)" = "$(ls "$3" | wc -l)" ]; then ok; else bad "$1: $n files compared"; fi
  echo "$1: $n files identical"
}

# same_env NAME VAR=VALUE EXPERIMENT [ARGS...]: `ccsim run` of EXPERIMENT
# with VAR=VALUE in its environment and without, into $T/NAME-0 and
# $T/NAME-1, and same on the two (bad naming the run that failed).
same_env() {
  local name=$1 set=$2 exp=$3
  shift 3
  env "$set" "$CCSIM" run "$exp" --quiet --out "$T/$name-0" "$@" >/dev/null 2>"$T/err" ||
    { bad "$name: $set: $(cat "$T/err")"; return; }
  "$CCSIM" run "$exp" --quiet --out "$T/$name-1" "$@" >/dev/null 2>"$T/err" ||
    { bad "$name: without ${set%%=*}: $(cat "$T/err")"; return; }
  same "$name" "$T/$name-0" "$T/$name-1"
}
