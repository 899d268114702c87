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
count() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" "$2" | tail -1; }
passed=0 failed=0 sk=0
tally() { # tally OUTPUT-FILE MESON-RC
  local ok xf fl up to s f
  ok=$(count Ok "$1"); xf=$(count "Expected Fail" "$1"); fl=$(count Fail "$1")
  up=$(count "Unexpected Pass" "$1"); to=$(count Timeout "$1"); s=$(count Skipped "$1")
  f=$(( ${fl:-0} + ${up:-0} + ${to:-0} ))
  [ "$2" -ne 0 ] && [ $f -eq 0 ] && f=1
  passed=$(( passed + ${ok:-0} + ${xf:-0} )); failed=$(( failed + f )); sk=$(( sk + ${s:-0} ))
}
tally "$B/test-output.txt" $rc
# gcc -fanalyzer over src/ and compressors/ in its own build (build-analyzer/):
# every warning justified in scripts/analyzer.supp, or one failure
# (docs/testing.md); about 5 CPU-minutes
bash scripts/analyze.sh . gcc-analyzer build-analyzer >"$B/analyzer-output.txt" 2>&1
arc=$?
if [ $arc -eq 0 ]; then passed=$((passed + 1)); echo "analyzer: $(tail -1 "$B/analyzer-output.txt")"
else failed=$((failed + 1)); echo "analyzer: FAIL"; tail -40 "$B/analyzer-output.txt"; fi
# fuzz: each libFuzzer harness for 30 s, its own suite in its own clang
# build (build-fuzz/); a crash fails and keeps its input (tests/fuzz/run.sh);
# hours of it: docs/fuzzing.md
bash scripts/fuzz.sh "${FUZZ_SECONDS:-30}" >"$B/fuzz-output.txt" 2>&1
frc=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$B/fuzz-output.txt"
[ $frc -ne 0 ] && tail -40 "$B/fuzz-output.txt"
tally "$B/fuzz-output.txt" $frc
# end fuzz
echo "${passed} passed, ${failed} failed, ${sk} skipped"
[ $failed -eq 0 ]
