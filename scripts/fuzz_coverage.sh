#!/usr/bin/env bash
# scripts/fuzz_coverage.sh [CORPORA] [HARNESS...] — how much of what each
# libFuzzer harness targets its corpus reaches: line and function coverage
# (clang source-based coverage) of the harness's own source files.
#
# Builds the harnesses of tests/fuzz into build-cov/ as scripts/fuzz.sh does
# (clang, -Dfuzz=true: ASan, UBSan, libFuzzer) with -fprofile-instr-generate
# -fcoverage-mapping added, runs each once over CORPORA/<harness>/ (default
# tests/fuzz/seeds; libFuzzer's -runs=0 executes every input of the corpus
# and nothing else; the corpus is only read), merges the profiles with
# llvm-profdata and prints a Markdown table from llvm-cov: per harness, its
# inputs, its files, lines and functions covered.  Needs clang and llvm
# (scripts/install-deps.sh).  docs/fuzzing.md.
set -eu
cd "$(dirname "$0")/.."
CORPORA=${1:-tests/fuzz/seeds}
shift || true
ALL="experiment sweep trace units platform slurm program"
HARNESSES=${*:-$ALL}
B=build-cov

# the files each harness targets (its loader, not what the loader calls)
targets() {
  case $1 in
  experiment) ls src/config/*.c ;;
  sweep) echo src/sweep/sweep.c src/sweep/sweep_load.c src/sweep/sweep_plan.c ;;
  trace) echo src/data/trace.c ;;
  units) echo src/units.c ;;
  platform) echo src/platforms/check.c ;;
  slurm) echo src/sweep/sweep_slurm.c ;;
  program) echo src/collectives/program.c src/collectives/program_load.c src/collectives/program_check.c \
    src/collectives/program_expr.c ;;
  *) echo "fuzz_coverage.sh: no harness $1 (harnesses: $ALL)" >&2; exit 2 ;;
  esac
}

for t in clang llvm-profdata llvm-cov; do
  command -v $t >/dev/null || { echo "fuzz_coverage.sh: $t not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done
if [ ! -f $B/build.ninja ]; then
  cov=(-fprofile-instr-generate -fcoverage-mapping)
  CC=clang CXX=clang++ meson setup $B -Dfuzz=true -Dc_args="${cov[*]}" -Dcpp_args="${cov[*]}" \
    -Dc_link_args=-fprofile-instr-generate -Dcpp_link_args=-fprofile-instr-generate >/dev/null
fi
# a tool the build runs is instrumented too: its profile goes aside
LLVM_PROFILE_FILE="$(pwd)/$B/build-%p.profraw"
export LLVM_PROFILE_FILE
# shellcheck disable=SC2046
ninja -C $B $(for h in $HARNESSES; do echo "tests/fuzz/fuzz_$h"; done) >/dev/null

echo "| harness | inputs | files | lines | functions |"
echo "|---|---:|---|---:|---:|"
rc=0
for h in $HARNESSES; do
  files=$(targets "$h")
  if [ ! -d "$CORPORA/$h" ]; then
    echo "fuzz_coverage.sh: no corpus $CORPORA/$h" >&2
    rc=1
    continue
  fi
  W=$B/cov/$h
  rm -rf "$W" && mkdir -p "$W/new"
  n=$(find "$CORPORA/$h" -maxdepth 1 -type f | wc -l)
  # $W/new first: anything libFuzzer would add goes there, never into the corpus
  if ! LLVM_PROFILE_FILE="$(pwd)/$W/%p.profraw" "$B/tests/fuzz/fuzz_$h" "$W/new" "$CORPORA/$h" -runs=0 \
    -timeout=60 -rss_limit_mb=4096 -max_len=1048576 >"$W/log.txt" 2>&1; then
    echo "fuzz_coverage.sh: fuzz_$h failed over $CORPORA/$h (log: $W/log.txt)" >&2
    rc=1
  fi
  llvm-profdata merge -sparse "$W"/*.profraw -o "$W/merged.profdata"
  llvm-cov report "$B/tests/fuzz/fuzz_$h" -instr-profile="$W/merged.profdata" >"$W/all.txt"
  # the harness's files' rows (name, regions, missed, cover, functions, missed,
  # executed, lines, missed, cover, ...) and their sums
  read -r lines_pct lines_hit lines_all fn_pct fn_hit fn_all < <(awk -v files="$files" '
    BEGIN { n = split(files, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
    { name = $1; sub(/^(\.\.\/)+/, "", name); if (!("src/" name in want) && !(name in want)) next
      print > "/dev/stderr"; fa += $5; fm += $6; la += $8; lm += $9 }
    END { printf "%.1f %d %d %.1f %d %d\n", la ? 100 * (la - lm) / la : 0, la - lm, la, fa ? 100 * (fa - fm) / fa : 0, fa - fm, fa }
  ' "$W/all.txt" 2>"$W/report.txt")
  echo "| fuzz_$h | $n | $(echo $files | sed 's/src\///g; s/ /, /g') | $lines_pct% ($lines_hit/$lines_all) | $fn_pct% ($fn_hit/$fn_all) |"
done
echo
echo "per file: $B/cov/<harness>/report.txt; uncovered lines: llvm-cov show $B/tests/fuzz/fuzz_<harness> -instr-profile=$B/cov/<harness>/merged.profdata FILE"
exit $rc
