#!/usr/bin/env bash
# tests/report.sh CCSIM SRCDIR — `ccsim report` in a real browser.
#
# Runs a small trained run (with its timeline) and a 3 x 2 sweep over
# platform.bandwidth (1Gbps, 100Gbps, 10Gbps: in that order, so that sorting
# labels as text would put 100Gbps first) and method, writes both reports,
# and opens each in headless chromium:
#   - the page loads with no error: every image decodes, the page's own
#     Content-Security-Policy blocks nothing (nothing external is asked for),
#     the browser logs no console message;
#   - the DOM chromium built has the sections and the plots, each with the
#     data it draws, and that data is checked against summary.json,
#     iterations.csv, hops.csv, timeline.csv and sweep.csv
#     (tests/report_check.py);
#   - a screenshot of each page is a real picture.
# Bad input: a directory that is neither a run nor a sweep, a baseline the
# sweep lacks: exit 2 and one line.
# Skipped (exit 77, saying why) only when chromium is not installed or cannot
# start in this sandbox.
set -u
CCSIM=$1
SRC=$2
PY="$SRC/analysis/py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PY" -c "import matplotlib" 2>/dev/null || { echo "report: no Python with matplotlib: skipped"; exit 77; }
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
  echo "report: chromium is not installed (scripts/install-deps.sh installs Debian's chromium): skipped"
  exit 77
fi
browse() { # browse LOG ARGS... — headless chromium, its log in LOG
  local log=$1
  shift
  HOME="$T/home" timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$T/profile" --enable-logging=stderr --v=0 --virtual-time-budget=10000 "$@" 2>"$log"
}
mkdir -p "$T/home"
echo '<!DOCTYPE html><p id="alive">alive</p>' >"$T/alive.html"
if ! browse "$T/alive.log" --dump-dom "file://$T/alive.html" >"$T/alive.dom" || ! grep -q 'id="alive"' "$T/alive.dom"; then
  echo "report: chromium cannot start in this sandbox: skipped; its last words:"
  tail -3 "$T/alive.log"
  exit 77
fi
fail() { echo "report: $*"; exit 1; }

# --- a trained run with its timeline, and a sweep
cat >"$T/run.json" <<JSON
{"name": "report-run", "seed": 2, "workers": 4, "iterations": 12, "gradients": {"source": "train"},
 "train": {"data": "$SRC/workloads/data/digits.csv.gz", "model": {"kind": "mlp", "hidden": [16]},
           "optimizer": {"lr": 0.1, "momentum": 0.9}, "eval_every": 2},
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "5us"},
 "device": {"name": "v100", "efficiency": 0.5},
 "compressor": "fp16", "collective": "allreduce/ring", "output": {"timeline": true}}
JSON
"$CCSIM" run "$T/run.json" --out "$T/run" --quiet >/dev/null || fail "the run failed"
cat >"$T/base.json" <<'JSON'
{"workers": 4, "iterations": 2, "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "5us"},
 "model": {"layers": [{"name": "a", "params": 20000, "fwd_flops": 2e8}, {"name": "b", "params": 60000, "fwd_flops": 4e8}],
           "batch": 4},
 "device": {"name": "v100", "efficiency": 0.5}, "schedule": {"kind": "layerwise"},
 "compressor": "none", "collective": "allreduce/ring"}
JSON
cat >"$T/sweep.json" <<'JSON'
{"name": "report-sweep", "base": "base.json", "axes": [
  {"path": "platform.bandwidth", "values": ["1Gbps", "100Gbps", "10Gbps"]},
  {"name": "method", "values": [{"label": "none", "set": {"compressor": "none"}},
                               {"label": "fp16", "set": {"compressor": "fp16"}}]}]}
JSON
"$CCSIM" sweep "$T/sweep.json" --out "$T/sweep" --quiet --jobs 2 || fail "the sweep failed"

# --- bad input: one line, exit 2
mkdir "$T/empty"
"$CCSIM" report "$T/empty" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "neither a run" "$T/err" ||
  fail "a directory that is neither a run nor a sweep: exit $rc, $(cat "$T/err")"
"$CCSIM" report "$T/sweep" --baseline method=zip --out "$T/x.html" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'has no label "zip"' "$T/err" && [ ! -e "$T/x.html" ] ||
  fail "a baseline the sweep lacks: exit $rc, $(cat "$T/err")"
# a directory as the page: exit 2, one line
mkdir "$T/adir.html"
"$CCSIM" report "$T/run" --out "$T/adir.html" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "adir.html: is a directory" "$T/err" ||
  fail "--out a directory: exit $rc, $(cat "$T/err")"
# a damaged result file is named, with what it lacks
cp -r "$T/run" "$T/damaged"
printf 'iteration,x\n0,1\n' >"$T/damaged/iterations.csv"
"$CCSIM" report "$T/damaged" --out "$T/damaged.html" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "damaged/iterations.csv: lacks the column time_s (not a ccsim result file" "$T/err" &&
  [ ! -e "$T/damaged.html" ] || fail "a damaged iterations.csv: exit $rc, $(cat "$T/err")"
"$CCSIM" report "$T/run" --baseline none 2>"$T/err"
[ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] || fail "--baseline on a run: $(cat "$T/err")"

# --- the reports
"$CCSIM" report "$T/run" 2>/dev/null || fail "ccsim report RUN failed"
[ -s "$T/run/report.html" ] || fail "no report.html beside the run"
"$CCSIM" report "$T/sweep" --baseline method=none --out "$T/sweep.html" 2>/dev/null || fail "ccsim report SWEEP failed"

# --- in the browser: a copy of each page with a probe that records errors,
# blocked loads and images that do not decode (the page itself has no script)
for pair in "run:$T/run/report.html" "sweep:$T/sweep.html"; do
  name=${pair%%:*} page=${pair#*:}
  "$PY" "$SRC/tests/report_check.py" probe "$page" "$T/$name.probe.html" || fail "$name: no probe"
  browse "$T/$name.log" --dump-dom "file://$T/$name.probe.html" >"$T/$name.dom" || fail "$name: chromium failed"
  if grep -a "CONSOLE" "$T/$name.log"; then fail "$name: the browser logged a console message"; fi
  browse "$T/$name.shot.log" --hide-scrollbars --window-size=1100,2400 --screenshot="$T/$name.png" \
    "file://$page" >/dev/null || fail "$name: no screenshot"
done
"$PY" "$SRC/tests/report_check.py" run "$T/run" "$T/run/report.html" "$T/run.dom" "$T/run.png" || exit 1
"$PY" "$SRC/tests/report_check.py" sweep "$T/sweep" "$T/sweep.html" "$T/sweep.dom" "$T/sweep.png" || exit 1
# the checker itself: the run's page is no sweep's
"$PY" "$SRC/tests/report_check.py" sweep "$T/sweep" "$T/run/report.html" "$T/run.dom" "$T/run.png" >/dev/null 2>&1 &&
  fail "the checker passed a run's page as the sweep's"
if [ -n "${REPORT_SHOTS:-}" ]; then cp "$T"/*.png "$REPORT_SHOTS"/; fi
echo "report: both pages load in chromium with their plots, and the plots draw what the files hold"
