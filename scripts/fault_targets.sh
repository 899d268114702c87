# shellcheck shell=bash disable=SC2034 # the driver reads T_env and CMD by name
# scripts/fault_targets.sh — sourced by scripts/fault_inject.sh: what each
# target runs under a fault and how its outcome is checked.  A target T has
#   T_argv DIR         sets CMD to the command, its output directory DIR
#                      (under a fault or not: the environment says; it runs
#                      in $T/sw, beside the sweep file);
#   T_env              the fault library's variables that choose the process
#                      and thread that count (CCSIM_FAULT_MATCH, _THREAD);
#   T_check RC DIR     why the outcome breaks the contract ("" if it keeps
#                      it), given exit status RC; stderr is in $W/err, stdout
#                      in $W/out, the run without a fault in $T/ref-T.
# Targets: run (a small run on one thread), threads (the same on two
# threads, faults in the data executor's second lane only), sweep (a
# three-point sweep, faults in the sweep process), point (the same sweep,
# faults in its second point's `ccsim run`).

EXP="$SRC/tests/golden/small.json"
RUN_ARGS=(--quiet --threads 1 --set iterations=1)
THREAD_ARGS=(--quiet --threads 2 --set iterations=2)
SWEEP_ARGS=(--quiet --threads 1)

# the sweep: three seeds of the small run, one iteration each
sweep_file() {
  mkdir -p "$T/sw"
  cp "$EXP" "$T/sw/base.json"
  cat >"$T/sw/sweep.json" <<'EOF'
{"name": "fault", "base": "base.json", "set": {"iterations": 1},
 "axes": [{"path": "seed", "values": [1, 2, 3]}]}
EOF
}

# summary.json without what differs from run to run (host time, memory, paths)
strip() { grep -v -E '"(host_time_s|peak_rss_mb|dir)"|timing_cpu_s' "$1" 2>/dev/null; }
# sweep.csv without its last column (host time)
strip_csv() { sed 's/,[^,]*$//' "$1" 2>/dev/null; }
# AddressSanitizer's own notes on the coroutines' stack switches
asan_notes() {
  grep -v -E '^==[0-9]+==WARNING: ASan|^False positive error reports may follow|^For details see https://github.com/google/sanitizers/issues/189' "$1"
}

# why run directory $1 differs from reference run directory $2 ("" if it does not)
same_run() {
  local f
  for f in iterations.csv hops.csv platform.xml; do
    cmp -s "$2/$f" "$1/$f" || { echo "$f differs from the run without a fault"; return; }
  done
  diff -q <(strip "$2/summary.json") <(strip "$1/summary.json") >/dev/null ||
    echo "summary.json differs from the run without a fault"
}

# why a run that exited $1 into $2 breaks the contract; $3: a pattern its
# one line must match when it exited 1
check_one_run() {
  local rc=$1 d=$2 pat=$3 ref=$4 why=""
  case $rc in
  0)
    why=$(same_run "$d" "$ref")
    [ -z "$why" ] || why="exit 0 but $why"
    diff -q <(grep -v -E '^  (host|results) ' "$ref.out") <(grep -v -E '^  (host|results) ' "$W/out") >/dev/null ||
      why="${why:-exit 0 but stdout differs}" ;;
  1)
    [ "$(wc -l <"$W/err")" -eq 1 ] && grep -q -E "$pat" "$W/err" || why="exit 1 without one line matching '$pat' on stderr"
    # only stdout failing after the results were written leaves them, whole
    if [ -e "$d/summary.json" ]; then
      if grep -q '^ccsim: standard output: ' "$W/err"; then
        [ -z "$(same_run "$d" "$ref")" ] || why="stdout failed and the results differ from the run without a fault"
      else
        why="exit 1 but summary.json left"
      fi
    fi ;;
  *) why=$(exit_why "$rc") ;;
  esac
  echo "$why"
}

# the contract's word on an exit status other than 0 and 1
exit_why() {
  case $1 in
  2) echo "exit 2 (bad input) for a good input" ;;
  98 | 99) echo "sanitizer report (exit $1)" ;;
  124 | 137) echo "hang (killed by timeout)" ;;
  *) echo "exit $1 (signal $(($1 - 128)))" ;;
  esac
}

run_env=()
run_argv() { CMD=("$CCSIM" run "$EXP" --out "$1" "${RUN_ARGS[@]}"); }
run_check() { check_one_run "$1" "$2" '^ccsim( [a-z]+)?: ' "$T/ref-run"; }

threads_env=(CCSIM_FAULT_THREAD=other)
threads_argv() { CMD=("$CCSIM" run "$EXP" --out "$1" "${THREAD_ARGS[@]}"); }
# a lane fails an actor: the iteration and the worker are named
threads_check() { check_one_run "$1" "$2" '^ccsim: .*iteration [0-9]+[:,] worker [0-9]+: ' "$T/ref-threads"; }

sweep_env=()
sweep_argv() { CMD=("$CCSIM" sweep sweep.json --out "$1" "${SWEEP_ARGS[@]}"); }
point_env=(CCSIM_FAULT_MATCH=/seed=2)
point_argv() { sweep_argv "$@"; }

# why sweep directory $1 breaks the contract: a point with a summary.json
# (finished) must be the reference's point, sweep.csv whole, its "done"
# points finished
sweep_state() {
  local d=$1 ref=$T/ref-sweep p why
  for p in seed=1 seed=2 seed=3; do
    if [ -e "$d/$p/summary.json" ]; then
      why=$(same_run "$d/$p" "$ref/$p")
      [ -z "$why" ] || { echo "point $p marked finished but $why"; return; }
    fi
  done
  if [ -e "$d/sweep.csv" ]; then
    [ "$(wc -l <"$d/sweep.csv")" -eq 4 ] || { echo "sweep.csv not whole"; return; }
    for p in $(grep -o -E '^"seed=[0-9]",[0-9]+,done' "$d/sweep.csv" | cut -d'"' -f2); do
      [ -e "$d/$p/summary.json" ] || { echo "sweep.csv says $p done without its summary.json"; return; }
    done
  fi
}

# why a sweep that exited $1 into $2 breaks the contract, its resume included;
# $3: the point whose failure must be named when the fault was in its run
check_sweep() {
  local rc=$1 d=$2 point=$3 ref=$T/ref-sweep why="" p
  case $rc in
  0)
    for p in seed=1 seed=2 seed=3; do
      why=$(same_run "$d/$p" "$ref/$p")
      [ -z "$why" ] || { why="exit 0 but point $p: $why"; break; }
    done
    [ -n "$why" ] || diff -q <(strip_csv "$ref/sweep.csv") <(strip_csv "$d/sweep.csv") >/dev/null ||
      why="exit 0 but sweep.csv differs" ;;
  1)
    # every line ccsim's; a failed point named, with a reason
    if [ ! -s "$W/err" ] || grep -q -v -E '^ccsim( sweep)?: ' "$W/err"; then
      why="exit 1 without 'ccsim' lines alone on stderr"
    elif grep -q 'exit status without a message' "$W/err"; then
      why="a point failed without a message"
    elif [ -n "$point" ] && ! grep -q -E "^ccsim sweep: \[[0-9]+/3\] $point FAILED: ." "$W/err"; then
      why="the failed point $point not named"
    fi ;;
  *) why=$(exit_why "$rc") ;;
  esac
  [ -n "$why" ] || why=$(sweep_state "$d")
  [ -n "$why" ] && { echo "$why"; return; }
  # the resume, without a fault, completes the sweep as if nothing happened
  (cd "$T/sw" && timeout -k 5 60 "$CCSIM" sweep sweep.json --out "$d" "${SWEEP_ARGS[@]}") >"$W/resume.out" 2>"$W/resume.err"
  rc=$?
  [ $rc -eq 0 ] || { echo "the resume exited $rc: $(head -c 200 "$W/resume.err" | tr '\n' '|')"; return; }
  for p in seed=1 seed=2 seed=3; do
    why=$(same_run "$d/$p" "$ref/$p")
    [ -z "$why" ] || { echo "after the resume, point $p: $why"; return; }
  done
  diff -q <(strip_csv "$ref/sweep.csv") <(strip_csv "$d/sweep.csv") >/dev/null || echo "after the resume, sweep.csv differs"
}
sweep_check() { check_sweep "$1" "$2" ""; }
point_check() { check_sweep "$1" "$2" "seed=2"; }
