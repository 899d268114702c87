#!/usr/bin/env bash
# scripts/fuzz_seeds.sh CORPORA [HARNESS...] — keep what a fuzzing campaign
# found in the repository: libFuzzer's -merge=1 adds to
# tests/fuzz/seeds/<harness>/ the fewest inputs of CORPORA/<harness>/ that
# reach coverage the seeds do not (named by their SHA-1, as libFuzzer
# writes them).  The seeds already there are kept (the named ones are
# regression inputs of docs/fuzzing.md's findings); CORPORA is only read.
# Builds the harnesses in build-fuzz/ as scripts/fuzz.sh does (FUZZ_BUILD:
# another build directory with them, build-cov/ say; FUZZ_SEEDS: another
# seeds directory, to try it).  Prints the seeds per harness before and
# after; commit tests/fuzz/seeds/ afterwards.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/fuzz_seeds.sh CORPORA [HARNESS...]" >&2; exit 2; }
CORPORA=$1
shift
HARNESSES=${*:-experiment sweep trace units platform slurm program}
B=${FUZZ_BUILD:-build-fuzz}
if [ ! -f "$B/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$B" -Dfuzz=true >/dev/null
fi
# shellcheck disable=SC2046
LLVM_PROFILE_FILE=/dev/null ninja -C "$B" $(for h in $HARNESSES; do echo "tests/fuzz/fuzz_$h"; done) >/dev/null
A=$B/fuzz-artifacts/merge
mkdir -p "$A"
for h in $HARNESSES; do
  S=${FUZZ_SEEDS:-tests/fuzz/seeds}/$h
  [ -d "$CORPORA/$h" ] || { echo "fuzz_seeds.sh: no corpus $CORPORA/$h" >&2; exit 2; }
  mkdir -p "$S"
  before=$(find "$S" -maxdepth 1 -type f | wc -l)
  LLVM_PROFILE_FILE=/dev/null "$B/tests/fuzz/fuzz_$h" -merge=1 "$S" "$CORPORA/$h" -timeout=60 -rss_limit_mb=4096 \
    -max_len=1048576 -artifact_prefix="$A/" >"$A/$h.log" 2>&1 ||
    { echo "fuzz_seeds.sh: the merge of $h failed ($A/$h.log)" >&2; exit 1; }
  after=$(find "$S" -maxdepth 1 -type f | wc -l)
  echo "fuzz_seeds: $h: $before seeds, $after after merging $(find "$CORPORA/$h" -maxdepth 1 -type f | wc -l) inputs ($(du -sh "$S" | cut -f1))"
done
