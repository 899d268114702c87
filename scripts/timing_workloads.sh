#!/usr/bin/env bash
# scripts/timing_workloads.sh CCSIM [SRCDIR] — every experiment under
# workloads/ (not sweeps, not model profiles, not collective programs), two
# iterations (`--set iterations=2`), timed with --timing auto and with
# --timing simgrid, compared as tests/timing_paths.sh compares
# (tests/timing_compare.py).  Prints a Markdown table: the experiment, the
# comparison, the path auto took, and why the analytical path gave up where
# it did (CCSIM_TIMING_DEBUG).  Exit 1 if any pair disagrees or fails.
# docs/engine.md, "The analytical path", quotes its result.
set -u
CCSIM=$(realpath "$1")
SRC=$(cd "${2:-$(dirname "$0")/..}" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0
printf '| experiment | auto vs simgrid | analytical iterations (messages) | SimGrid iterations (messages) | why SimGrid |\n|---|---|---|---|---|\n'
while IFS= read -r f; do
  # experiments only: a sweep has axes, a profile or program is not an experiment
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "workers" in d and "axes" not in d else 1)' "$f" 2>/dev/null || continue
  rel=${f#"$SRC/"}
  ok=1
  for m in auto simgrid; do
    CCSIM_TIMING_DEBUG=1 "$CCSIM" run "$f" --quiet --out "$T/$m" --force --timing $m --set iterations=2 >/dev/null 2>"$T/err-$m" ||
      { ok=0; printf '| %s | %s run failed: %s | | | |\n' "$rel" "$m" "$(grep -v 'analytical timing' "$T/err-$m" | head -1)"; }
  done
  if [ $ok = 0 ]; then bad=1; continue; fi
  how=$(python3 "$SRC/tests/timing_compare.py" "$T/auto" "$T/simgrid") || bad=1
  read -r fa sa fm sm <<<"$(python3 "$SRC/tests/timing_compare.py" --paths "$T/auto")"
  why=$(sed -n 's/^ccsim: analytical timing gave up at [^:]*: //p' "$T/err-auto" | sort -u | paste -sd ';' -)
  [ "$sa" != 0 ] && [ -z "$why" ] && why="not covered: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print((d.get("comm") or {}).get("model", "the setup"))' "$f")"
  printf '| %s | %s | %s (%s) | %s (%s) | %s |\n' "$rel" "$(tr '\n' ' ' <<<"$how" | sed 's/ *$//')" "$fa" "$fm" "$sa" "$sm" "$why"
done < <(find "$SRC/workloads" -name '*.json' -not -path '*/collectives/*' -not -path '*/models/*' | sort)
exit $bad
