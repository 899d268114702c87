#!/usr/bin/env bash
# scripts/fault_inject.sh CCSIM FAULTLIB SRCDIR [--sample N] [--io-sample N] [--ks K,K,...]
#                         [--io-only|--alloc-only]
#
# Fault injection, SQLite-style (docs/testing.md): a small experiment
# (tests/golden/small.json, one iteration, one thread) is run once under the
# fault library FAULTLIB (tests/fault) to count its allocations (A) and its
# write/fsync/rename calls (I); then once for every K in 1..A with the K-th
# allocation failing, and once for every K in 1..I and every errno of EIO,
# ENOSPC, EFBIG with the K-th I/O call failing.  --sample N tries N values
# of K spread evenly over each range instead (--io-sample N: another N for
# the I/O calls; the CI test, tests/fault_inject.sh).  Every run must
# keep the contract:
#   - it ends by exit, not by a signal, within 30 s;
#   - exit 0: its result files are those of the run without a fault (host
#     time and memory aside); exit 1: one line on stderr, "ccsim: ...";
#     exit 2 (bad input) is a breach: the input is good;
#   - no summary.json unless it exited 0 (or exit 1 for stdout alone failing
#     after the results were written whole), no temporary (.tmp-*) left;
#   - in a sanitizer build (LSAN), no leak and no memory error.
# Prints one line per breach and the counts; exits 1 on any breach.
set -u
CCSIM=$1 FAULTLIB=$2 SRC=$3
shift 3
SAMPLE=0 IOSAMPLE="" KS="" WHICH=both
while [ $# -gt 0 ]; do
  case $1 in
  --sample) SAMPLE=$2; shift 2 ;;
  --io-sample) IOSAMPLE=$2; shift 2 ;;
  --ks) KS=$2; shift 2 ;;
  --io-only) WHICH=io; shift ;;
  --alloc-only) WHICH=alloc; shift ;;
  *) echo "fault_inject.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
EXP="$SRC/tests/golden/small.json"
ARGS=(--quiet --threads 1 --set iterations=1)
export OPENBLAS_NUM_THREADS=1 # ccsim would execute itself again to set it (src/cli/process.c)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:allocator_may_return_null=1:detect_leaks=1:exitcode=99"
export LSAN_OPTIONS="${LSAN_OPTIONS:-}:exitcode=98"
# the fault library first: under ASan its malloc wraps ASan's
PRE="$FAULTLIB${LD_PRELOAD:+:$LD_PRELOAD}"

strip() { grep -v -E '"(host_time_s|peak_rss_mb|dir)"|timing_cpu_s' "$1" 2>/dev/null; }

# the reference run, counting
LD_PRELOAD=$PRE CCSIM_FAULT_REPORT="$T/count" "$CCSIM" run "$EXP" --out "$T/ref" "${ARGS[@]}" >"$T/ref.out" 2>"$T/ref.err" ||
  { echo "fault_inject: the run without a fault failed:"; cat "$T/ref.err"; exit 1; }
read -r _ NALLOC _ NIO _ _ <"$T/count"
echo "fault_inject: the run makes $NALLOC allocations and $NIO write/fsync/rename calls"

breaches=0 tried=0
declare -A outcome
# one run with fault $1 (the env assignment) named $2; checks the contract
try() {
  local env=$1 name=$2 d="$T/run" rc
  rm -rf "$d" "$T/rep"
  rc=$( (timeout -k 5 30 env "$env" LD_PRELOAD="$PRE" CCSIM_FAULT_REPORT="$T/rep" "$CCSIM" run "$EXP" --out "$d" \
    "${ARGS[@]}" >"$T/out" 2>"$T/err"; echo $?) 2>/dev/null)
  tried=$((tried + 1))
  # AddressSanitizer's own notes on the coroutines' stack switches
  grep -v -E '^==[0-9]+==WARNING: ASan|^False positive error reports may follow|^For details see https://github.com/google/sanitizers/issues/189' \
    "$T/err" >"$T/err.kept"
  mv "$T/err.kept" "$T/err"
  local why=""
  case $rc in
  0)
    for f in iterations.csv hops.csv platform.xml; do
      cmp -s "$T/ref/$f" "$d/$f" || why="exit 0 but $f differs from the run without a fault"
    done
    [ -n "$why" ] || diff -q <(strip "$T/ref/summary.json") <(strip "$d/summary.json") >/dev/null ||
      why="exit 0 but summary.json differs from the run without a fault"
    diff -q <(grep -v -E '^  (host|results) ' "$T/ref.out") <(grep -v -E '^  (host|results) ' "$T/out") >/dev/null ||
      why="${why:-exit 0 but stdout differs}" ;;
  1)
    [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -E '^ccsim( [a-z]+)?: ' "$T/err" || why="exit 1 without one 'ccsim:' line on stderr"
    # only stdout failing after the results were written leaves them, whole
    if [ -e "$d/summary.json" ]; then
      if grep -q '^ccsim: standard output: ' "$T/err"; then
        diff -q <(strip "$T/ref/summary.json") <(strip "$d/summary.json") >/dev/null ||
          why="stdout failed and summary.json differs from the run without a fault"
      else
        why="exit 1 but summary.json left"
      fi
    fi ;;
  2) why="exit 2 (bad input) for a good input" ;;
  98 | 99) why="sanitizer report (exit $rc)" ;;
  124 | 137) why="hang (killed by timeout)" ;;
  *) why="exit $rc (signal $((rc - 128)))" ;;
  esac
  if [ -d "$d" ] && ls -A "$d" | grep -q '^\.tmp-'; then why="${why:+$why; }a temporary left in the output directory"; fi
  outcome[$rc]=$((${outcome[$rc]:-0} + 1))
  if [ -n "$why" ]; then
    breaches=$((breaches + 1))
    echo "BREACH $name: $why: $(head -c 300 "$T/err" | tr '\n' '|')"
  fi
}

# the values of K to try in 1..$1, $2 of them spread evenly (0: all)
ks() {
  local n=$1 m=$2
  if [ -n "$KS" ]; then tr ',' '\n' <<<"$KS"; return; fi
  if [ "$m" -gt 1 ] && [ "$m" -lt "$n" ]; then
    for i in $(seq 0 $((m - 1))); do echo $((1 + i * (n - 1) / (m - 1))); done | uniq
  else
    seq 1 "$n"
  fi
}

if [ $WHICH != io ]; then
  for k in $(ks "$NALLOC" "$SAMPLE"); do try "CCSIM_FAULT_ALLOC=$k" "alloc $k"; done
  na=$tried
  echo "fault_inject: allocation failures: $na of $NALLOC sites tried"
fi
if [ $WHICH != alloc ]; then
  t0=$tried
  for e in EIO ENOSPC EFBIG; do
    for k in $(ks "$NIO" "${IOSAMPLE:-$SAMPLE}"); do try "CCSIM_FAULT_IO=$k:$e" "io $k:$e"; done
  done
  echo "fault_inject: I/O failures: $((tried - t0)) runs ($NIO calls x EIO, ENOSPC, EFBIG$([ "$SAMPLE" -gt 0 ] && echo ", sampled"))"
fi
printf 'fault_inject: %d runs; outcomes:' "$tried"
for rc in "${!outcome[@]}"; do printf ' exit %s: %d,' "$rc" "${outcome[$rc]}"; done
echo " breaches: $breaches"
[ $breaches -eq 0 ]
