#!/usr/bin/env bash
# scripts/fault_inject.sh CCSIM FAULTLIB SRCDIR [--target T,T,...|all] [--sample N]
#                         [--io-sample N] [--ks K,K,...] [--io-only|--alloc-only] [--jobs N]
#
# Fault injection, SQLite-style (docs/testing.md).  For each target
# (scripts/fault_targets.sh; default run, `all`: run,threads,sweep,point):
#   run      tests/golden/small.json, one iteration, one thread;
#   threads  the same, two iterations on two threads: faults only on the
#            data executor's second lane (a thread of its own);
#   sweep    a sweep of three seeds of it: faults in the sweep process;
#   point    the same sweep: faults in its second point's `ccsim run`;
# the target runs once under the fault library FAULTLIB (tests/fault) to
# count its allocations (A) and its write/fsync/rename calls (I) in the
# process (and thread) the target names; then once for every K in 1..A
# with the K-th allocation failing, and once for every K in 1..I and every
# errno of EIO, ENOSPC, EFBIG with the K-th I/O call failing.  --sample N
# tries N values of K spread evenly over each range instead (--io-sample N:
# another N for the I/O calls); --ks tries those K.  --jobs N: N runs at a
# time.  Every run must keep the contract:
#   - it ends by exit, not by a signal, within 30 s (a sweep: 60 s);
#   - exit 0: its result files are those of the run without a fault (host
#     time and memory aside); exit 1: a run, one line on stderr, "ccsim: ...",
#     naming iteration and worker for a lane's fault; a sweep, only ccsim's
#     lines, the failed point named with its reason; exit 2 (bad input) is a
#     breach: the input is good;
#   - no summary.json unless it exited 0 (or exit 1 for stdout alone failing
#     after the results were written whole), no temporary (.tmp-*) left; in a
#     sweep every point with a summary.json is whole and sweep.csv is whole;
#   - a sweep resumed without a fault completes, with the results of the
#     sweep without a fault;
#   - in a sanitizer build (LSAN), no leak and no memory error.
# Prints one line per breach and the counts; exits 1 on any breach.
set -u
CCSIM=$(realpath "$1") FAULTLIB=$(realpath "$2") SRC=$(realpath "$3")
shift 3
SAMPLE=0 IOSAMPLE="" KS="" WHICH=both TARGETS=run JOBS=1
while [ $# -gt 0 ]; do
  case $1 in
  --target) TARGETS=$2; shift 2 ;;
  --sample) SAMPLE=$2; shift 2 ;;
  --io-sample) IOSAMPLE=$2; shift 2 ;;
  --ks) KS=$2; shift 2 ;;
  --io-only) WHICH=io; shift ;;
  --alloc-only) WHICH=alloc; shift ;;
  --jobs) JOBS=$2; shift 2 ;;
  *) echo "fault_inject.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$TARGETS" = all ] && TARGETS=run,threads,sweep,point
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1 # ccsim would execute itself again to set it (src/cli/process.c)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:allocator_may_return_null=1:detect_leaks=1:exitcode=99"
export LSAN_OPTIONS="${LSAN_OPTIONS:-}:exitcode=98"
# the fault library first: under ASan its malloc wraps ASan's
PRE="$FAULTLIB${LD_PRELOAD:+:$LD_PRELOAD}"
# shellcheck source=scripts/fault_targets.sh
. "$SRC/scripts/fault_targets.sh"
sweep_file

# the values of K to try in 1..$1, $2 of them spread evenly (0: all)
ks() {
  local n=$1 m=$2
  if [ -n "$KS" ]; then tr ',' '\n' <<<"$KS"; return; fi
  if [ "$m" -eq 1 ] && [ "$n" -gt 1 ]; then
    echo $(((n + 1) / 2))
  elif [ "$m" -gt 1 ] && [ "$m" -lt "$n" ]; then
    for i in $(seq 0 $((m - 1))); do echo $((1 + i * (n - 1) / (m - 1))); done | uniq
  else
    seq 1 "$n"
  fi
}

# target $1 run with the variables $3... in work directory $2: its exit status
run_target() {
  local tg=$1 W=$2 envs="${1}_env[@]" limit=30 CMD
  shift 2
  [ "$tg" = sweep ] || [ "$tg" = point ] && limit=60
  "${tg}_argv" "$W/d"
  (cd "$T/sw" && exec timeout -k 5 $limit env "${!envs}" "$@" LD_PRELOAD="$PRE" CCSIM_FAULT_REPORT="$W/rep" \
    "${CMD[@]}") >"$W/out" 2>"$W/err"
}

# one run of target $1 with fault $2 (a CCSIM_FAULT_ variable), in work
# directory $3; writes "RC WHY|STDERR" into $3/result
try() {
  local tg=$1 fault=$2 W=$3 rc why=""
  rm -rf "$W" && mkdir -p "$W"
  run_target "$tg" "$W" "$fault" 2>/dev/null
  rc=$?
  asan_notes "$W/err" >"$W/err.kept"
  mv "$W/err.kept" "$W/err"
  if [ -d "$W/d" ] && [ -n "$(find "$W/d" -name '.tmp-*' -print -quit)" ]; then
    why="a temporary left in the output directory"
  else
    why=$("${tg}_check" "$rc" "$W/d")
  fi
  printf '%s %s|%s\n' "$rc" "$why" "$(head -c 300 "$W/err" | tr '\n' '|')" >"$W/result"
}

total_runs=0 total_breaches=0
for tg in ${TARGETS//,/ }; do
  if ! declare -F "${tg}_argv" >/dev/null; then echo "fault_inject.sh: no target $tg" >&2; exit 2; fi
  # the reference run, counting (the sweep's reference is the sweep's, also for point)
  ref=$tg
  [ "$tg" = point ] && ref=sweep
  mkdir -p "$T/count-$tg"
  if ! run_target "$tg" "$T/count-$tg"; then
    echo "fault_inject: $tg: the run without a fault failed:"; cat "$T/count-$tg/err"; exit 1
  fi
  if [ ! -d "$T/ref-$ref" ]; then
    mv "$T/count-$tg/d" "$T/ref-$ref"
    mv "$T/count-$tg/out" "$T/ref-$ref.out"
  fi
  read -r _ NALLOC _ NIO _ _ <"$T/count-$tg/rep"
  echo "fault_inject: $tg: the faulted process makes $NALLOC allocations and $NIO write/fsync/rename calls"
  faults=()
  if [ $WHICH != io ]; then
    for k in $(ks "$NALLOC" "$SAMPLE"); do faults+=("CCSIM_FAULT_ALLOC=$k"); done
  fi
  na=${#faults[@]}
  if [ $WHICH != alloc ] && [ "$NIO" -gt 0 ]; then
    for e in EIO ENOSPC EFBIG; do
      for k in $(ks "$NIO" "${IOSAMPLE:-$SAMPLE}"); do faults+=("CCSIM_FAULT_IO=$k:$e"); done
    done
  fi
  i=0
  for f in "${faults[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    try "$tg" "$f" "$T/w/$tg-$i" &
    i=$((i + 1))
  done
  wait
  declare -A outcome=()
  breaches=0
  for j in $(seq 0 $((i - 1))); do
    W="$T/w/$tg-$j"
    IFS=' ' read -r rc rest <"$W/result"
    outcome[$rc]=$((${outcome[$rc]:-0} + 1))
    why=${rest%%|*}
    if [ -n "$why" ]; then
      breaches=$((breaches + 1))
      echo "BREACH $tg ${faults[$j]#CCSIM_FAULT_}: $why: ${rest#*|}"
    fi
    rm -rf "$W"
  done
  printf 'fault_inject: %s: %d runs (%d allocation failures of %d sites, %d I/O failures of %d calls x EIO, ENOSPC, EFBIG); outcomes:' \
    "$tg" "$i" "$na" "$NALLOC" "$((i - na))" "$NIO"
  for rc in "${!outcome[@]}"; do printf ' exit %s: %d,' "$rc" "${outcome[$rc]}"; done
  echo " breaches: $breaches"
  total_runs=$((total_runs + i)) total_breaches=$((total_breaches + breaches))
  unset outcome
done
echo "fault_inject: $total_runs runs, breaches: $total_breaches"
[ $total_breaches -eq 0 ]
