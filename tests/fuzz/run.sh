#!/usr/bin/env bash
# tests/fuzz/run.sh HARNESS SEEDS SECONDS — run one libFuzzer harness for
# SECONDS on a copy of the seed corpus SEEDS (one job, one worker).  Exit 0
# when it ran clean; otherwise non-zero, and the input that crashed, leaked
# or hung is kept under build-fuzz/fuzz-artifacts/ (its path is printed).
set -u
H=$1
SEEDS=$2
SECS=${3:-60}
name=$(basename "$H")
ART="$(pwd)/fuzz-artifacts/$name"
mkdir -p "$ART"
C=$(mktemp -d)
trap 'rm -rf "$C"' EXIT
cp -r "$SEEDS"/. "$C"/
# -rss_limit_mb: a loader that allocates gigabytes on a small input is a
# finding too; -timeout: one input taking 10 s is a hang.
"$H" "$C" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$ART/" -print_final_stats=1 2>"$ART/log.txt"
rc=$?
grep -E "^#[0-9]+ *DONE|stat::number_of_executed_units|cov:" "$ART/log.txt" | tail -2
if [ $rc -ne 0 ]; then
  grep -E "ERROR|SUMMARY|Test unit written" "$ART/log.txt" | head -5
  echo "fuzz $name: FAILED (log: $ART/log.txt)"
fi
exit $rc
