#!/usr/bin/env bash
# tests/golden.sh CCSIM SRCDIR — determinism and golden files.
#  1. the same experiment and seed, run twice, give byte-identical result
#     files (summary.json aside from its host-time fields);
#  2. they equal the checked-in golden files in tests/golden/small/.
# Regenerate after an intended change with:  tests/golden.sh CCSIM SRCDIR --update
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
G="$SRC/tests/golden/small"
strip() { grep -v -E '"(host_time_s|peak_rss_mb)"' "$1"; }
for k in 1 2; do
  "$CCSIM" run "$SRC/tests/golden/small.json" --out "$T/run$k" --quiet >/dev/null || { echo "run $k failed"; exit 1; }
  strip "$T/run$k/summary.json" | sed -e 's|"dir": ".*"|"dir": "-"|' -e 's|"path": ".*"|"path": "-"|' >"$T/run$k/summary.stripped"
done
if [ "${3:-}" = "--update" ]; then
  mkdir -p "$G"
  cp "$T/run1/iterations.csv" "$T/run1/hops.csv" "$T/run1/summary.stripped" "$G/"
  echo "golden files updated in $G"
  exit 0
fi
fail=0
for f in iterations.csv hops.csv summary.stripped platform.xml; do
  cmp -s "$T/run1/$f" "$T/run2/$f" || { echo "FAIL: $f differs between two identical runs"; fail=1; }
done
for f in iterations.csv hops.csv summary.stripped; do
  diff -u "$G/$f" "$T/run1/$f" || { echo "FAIL: $f differs from the golden file"; fail=1; }
done
# a different seed must change the data (the test can fail)
"$CCSIM" run "$SRC/tests/golden/small.json" --out "$T/seed" --set seed=4 --quiet >/dev/null
cmp -s "$T/run1/hops.csv" "$T/seed/hops.csv" && { echo "FAIL: seed does not change hops.csv"; fail=1; }
[ $fail -eq 0 ] && echo "golden: identical across runs and equal to $G"
exit $fail
