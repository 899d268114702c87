# tests/expect.sh — sourced by the bad-input tests (bad_input.sh,
# friction.sh): with T a scratch directory and the counters pass and fail,
#   expect NAME EXPECTED-SUBSTRING COMMAND...
# runs COMMAND and counts a pass when it exits 2 with one line on stderr
# holding the substring; otherwise a failure, with that stderr shown.
expect() {
  local name=$1 want=$2
  shift 2
  "$@" >"$T/out" 2>"$T/err"
  local rc=$? lines
  lines=$(wc -l <"$T/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$T/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, $lines stderr lines, wanted \"$want\" in:" >&2
    sed 's/^/    /' "$T/err" >&2
  fi
}
