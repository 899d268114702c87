#!/usr/bin/env bash
# tests/analysis.sh CCSIM SRCDIR — the plotting script turns a real run's
# hops.csv into a PNG (skipped, exit 77, without matplotlib).
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$SRC/analysis/py" -c "import matplotlib" 2>/dev/null || { echo "no matplotlib: skipped"; exit 77; }
"$CCSIM" run "$SRC/tests/golden/small.json" --out "$T/run" --quiet >/dev/null || exit 1
"$SRC/analysis/py" "$SRC/analysis/plot_hops.py" "$T/run" -o "$T/hops.png" || exit 1
head -c 8 "$T/hops.png" | od -An -c | grep -q "P   N   G" || { echo "not a PNG"; exit 1; }
[ "$(stat -c %s "$T/hops.png")" -gt 10000 ] || { echo "PNG too small"; exit 1; }
echo "analysis: plot_hops.py wrote a PNG"
# the timeline of one iteration, from a run that records it
"$CCSIM" run "$SRC/tests/data/two_layers.json" --out "$T/tl" --quiet >/dev/null || exit 1
"$SRC/analysis/py" "$SRC/analysis/plot_timeline.py" "$T/tl" -o "$T/tl.png" || exit 1
head -c 8 "$T/tl.png" | od -An -c | grep -q "P   N   G" || { echo "timeline: not a PNG"; exit 1; }
echo "analysis: plot_timeline.py wrote a PNG"
