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
# bad input to the scripts: exit 2 and one line naming what is wrong, never
# a traceback (a directory that is no run; a run without a timeline)
mkdir "$T/empty"
bad2() { # NAME WANT COMMAND...
  local name=$1 want=$2
  shift 2
  "$@" >/dev/null 2>"$T/err"
  local rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err" ||
    { echo "$name: exit $rc, wanted \"$want\" in: $(cat "$T/err")"; exit 1; }
}
bad2 hops-not-a-run "plot_hops.py: $T/empty/summary.json: missing (not a ccsim result directory" \
  "$SRC/analysis/py" "$SRC/analysis/plot_hops.py" "$T/empty" -o "$T/x.png"
bad2 timeline-not-recorded "plot_timeline.py: $T/run/timeline.csv: missing; run with --set output.timeline=true" \
  "$SRC/analysis/py" "$SRC/analysis/plot_timeline.py" "$T/run" -o "$T/x.png"
bad2 sweep-not-a-sweep "plot_sweep.py: $T/empty/sweep.csv: missing (not a ccsim sweep directory)" \
  "$SRC/analysis/py" "$SRC/analysis/plot_sweep.py" --x workers --y iteration_time_s "$T/empty" --out "$T/x.png"
echo "analysis: bad input to the scripts is one line, exit 2"
