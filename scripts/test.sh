#!/usr/bin/env bash
# scripts/test.sh [BUILDDIR] [meson options...] — install, build, run every
# test suite (unit, integration, validation), and end with "N passed, N failed".
# Sanitizers: scripts/test.sh build-asan -Dsanitize=true
set -u
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1
B=${1:-build}
shift || true
bash scripts/build.sh "$B" "$@" || { echo "0 passed, 1 failed"; exit 1; }
meson test -C "$B" --print-errorlogs --num-processes 2 >"$B/test-output.txt" 2>&1
rc=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$B/test-output.txt"
[ $rc -ne 0 ] && sed -n '/^=* *[0-9]*\/[0-9]* .*FAIL/,$p' "$B/test-output.txt" | head -100
# meson's own summary is "Ok: N", "Fail: N", ...: turn it into one line.
count() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" "$B/test-output.txt" | tail -1; }
ok=$(count Ok); xf=$(count "Expected Fail"); fl=$(count Fail); up=$(count "Unexpected Pass")
to=$(count Timeout); sk=$(count Skipped)
passed=$(( ${ok:-0} + ${xf:-0} ))
failed=$(( ${fl:-0} + ${up:-0} + ${to:-0} ))
[ $rc -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "${passed} passed, ${failed} failed, ${sk:-0} skipped"
[ $failed -eq 0 ]
