# workloads/convergence/common.sh — sourced by tune.sh and run_all.sh.
# one DIR WORKLOAD SETS...: run WORKLOAD.json of this directory into DIR
# with --set SETS, unless DIR already holds a summary.json (so a study can
# be resumed); stderr goes to DIR.err, and a failure prints its first lines
# and returns 1.  Needs CCSIM and HERE exported.
one() {
  local d=$1 w=$2
  shift 2
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  [ -f "$d/summary.json" ] && return 0
  mkdir -p "$(dirname "$d")"
  "$CCSIM" run "$HERE/$w.json" --out "$d" --quiet "${sets[@]}" >/dev/null 2>"$d.err" ||
    { echo "run $d failed: $(head -c 300 "$d.err")" >&2; return 1; }
}
export -f one
