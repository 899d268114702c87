# tests/lib.sh — the preamble the shell tests share, sourced first:
#   . "$(dirname "$0")/lib.sh" "$@"     (arguments: CCSIM [SRCDIR] ...)
# gives CCSIM and SRC as absolute paths (SRC empty without a second
# argument), a scratch directory T removed at exit and made the working
# directory, the counters pass and fail with ok and bad (bad prints its
# message with FAIL on stderr), and finish NAME, the last line of a test:
# "NAME: P passed, F failed", exit status 0 only without a failure.
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
