# workloads/convergence/common.sh — sourced by tune.sh and run_all.sh.
# one DIR WORKLOAD SETS...: run WORKLOAD.json of this directory into DIR
# with --set SETS, unless DIR already holds the finished results of exactly
# that experiment (ccsim run --skip-finished compares the experiment hash in
# DIR/summary.json). So a study can be killed and resumed, and a changed
# workload or ccsim version is rerun (--force replaces the old result),
# never taken from it. stderr goes to DIR.err; a failure prints its first
# lines and returns 1.  Needs CCSIM and HERE exported.
one() {
  local d=$1 w=$2
  shift 2
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  mkdir -p "$(dirname "$d")"
  "$CCSIM" run "$HERE/$w.json" --out "$d" --quiet --skip-finished --force "${sets[@]}" >/dev/null 2>"$d.err" ||
    { echo "run $d failed: $(head -c 300 "$d.err")" >&2; return 1; }
}
export -f one
