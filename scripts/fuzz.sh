#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [HARNESS...] — build the libFuzzer harnesses of
# tests/fuzz with clang into build-fuzz/ (ASan + UBSan) and run each for
# SECONDS (default 60) on its seed corpus, one at a time.  A crash, leak,
# hang or sanitizer report fails, and its input is kept in
# build-fuzz/fuzz-artifacts/<harness>/.  docs/fuzzing.md: running for hours.
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-60}
shift || true
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true -Dfuzz_seconds="$SECS" >/dev/null
else
  meson configure build-fuzz -Dfuzz_seconds="$SECS" >/dev/null
fi
# only the harnesses (and libccsim): some unit tests need gcc (_Float16)
ninja -C build-fuzz tests/fuzz/fuzz_experiment tests/fuzz/fuzz_sweep tests/fuzz/fuzz_trace \
  tests/fuzz/fuzz_units tests/fuzz/fuzz_platform tests/fuzz/fuzz_slurm tests/fuzz/fuzz_program >/dev/null
if [ $# -eq 0 ]; then
  meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs
else
  for h in "$@"; do meson test -C build-fuzz --no-rebuild "fuzz-$h" --print-errorlogs; done
fi
