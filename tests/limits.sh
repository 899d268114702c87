#!/usr/bin/env bash
# tests/limits.sh CCSIM SRCDIR — resource limits and signals (docs/testing.md):
# every case ends by an exit (no signal, no hang: each is bounded by
# timeout) with the status and the one stderr line the contract names, and
# leaves no temporary and no summary.json of a run that did not finish.
#   ulimit -v     list, validate and run finish (OpenBLAS starts no threads),
#                 or fail with exit 1 and a message at lower limits;
#   OpenBLAS      loaded by a run that trains and by nothing else; under
#                 lower limits a training run finishes or fails, never hangs
#                 (OpenBLAS's own retry of its buffer's map);
#   ulimit -f     a result file over the limit: exit 1, "File too large";
#   ulimit -n     too few descriptors: exit 1 naming open files, not exit 2;
#   /dev/full     stdout that cannot be written: exit 1, "standard output";
#   signals       SIGINT, SIGTERM, SIGHUP at several moments of a run: exit
#                 130, 143, 129 and "ccsim: interrupted by SIGxxx".
set -u
CCSIM=$(realpath "$1")
SRC=$(realpath "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }
EXP="$SRC/tests/golden/small.json"

# started DIR: wait (up to 10 s) for a run's marker in DIR: its handlers are
# in place by then
started() { for _ in $(seq 1 200); do [ -e "$1/.ccsim-experiment" ] && return; sleep 0.05; done; }

# clean DIR: no temporary left; no summary.json unless $2 is "finished"
clean() {
  if compgen -G "$1/.tmp-*" >/dev/null; then bad "$3: a temporary left in $1: $(ls -A "$1")"; return; fi
  if [ "$2" != finished ] && [ -e "$1/summary.json" ]; then bad "$3: summary.json left by a run that failed"; return; fi
  ok
}
# expect NAME RC WANT: the last command's status was RC and stderr (err)
# is one line containing WANT
expect() {
  local name=$1 want_rc=$2 want=$3 rc=$4 lines
  lines=$(wc -l <err)
  if [ "$rc" -eq "$want_rc" ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" err; then ok; else
    bad "$name: exit $rc (wanted $want_rc), $lines stderr lines, wanted \"$want\" in: $(head -c 600 err)"
  fi
}

# 1. ulimit -v 150000 (146 MiB): no hang; the small run fits
for cmd in "list compressors" "list platforms" "validate $EXP" "run $EXP --out v150 --quiet"; do
  (ulimit -v 150000; exec timeout -k 2 60 "$CCSIM" $cmd) >out 2>err
  rc=$?
  [ $rc -eq 0 ] && ok || bad "ulimit -v 150000: ccsim $cmd: exit $rc: $(head -c 300 err)"
done
[ -s v150/summary.json ] && ok || bad "ulimit -v 150000: no summary.json"
# lower limits: an exit with a message (127 is the dynamic loader's own
# refusal to map the libraries, before ccsim runs)
for v in 120000 100000 90000 80000; do
  (ulimit -v $v; exec timeout -k 2 60 "$CCSIM" run "$EXP" --out "v$v" --quiet) >out 2>err
  rc=$?
  case $rc in
  0) [ -s "v$v/summary.json" ] && ok || bad "ulimit -v $v: exit 0 without summary.json" ;;
  1) [ "$(wc -l <err)" -eq 1 ] && grep -q '^ccsim: ' err && ok || bad "ulimit -v $v: exit 1 but: $(head -c 300 err)" ;;
  127) grep -q 'error while loading shared libraries' err && ok || bad "ulimit -v $v: exit 127: $(head -c 300 err)" ;;
  *) bad "ulimit -v $v: exit $rc: $(head -c 300 err)" ;;
  esac
  clean "v$v" "$([ $rc -eq 0 ] && echo finished)" "ulimit -v $v"
done

# 1b. OpenBLAS is loaded by a run that trains, and only by it (the dynamic
# loader's own log); the training run finishes under ulimit -v too.  A
# build with -Dblas=gsl (CCSIM_TEST_BLAS=libgslcblas.so.0, from meson) loads
# no OpenBLAS at all: GSL's CBLAS is in every process already (SimGrid's
# libraries load it), so only its training run finishing is asked.
TRAIN="$SRC/workloads/convergence/marsit.json"
BLAS=${CCSIM_TEST_BLAS:-libopenblas.so.0}
LD_DEBUG=files timeout -k 2 60 "$CCSIM" run "$EXP" --out noblas --quiet >out 2>err
grep -q 'libopenblas' err && bad "a run that does not train loaded OpenBLAS: $(grep -m1 libopenblas err)" || ok
LD_DEBUG=files timeout -k 2 120 "$CCSIM" run "$TRAIN" --out blas --quiet --set iterations=2 >out 2>err
rc=$?
if [ "$BLAS" = libopenblas.so.0 ]; then
  if [ $rc -eq 0 ] && grep -q 'calling init: .*libopenblas' err; then ok; else
    bad "a training run: exit $rc, OpenBLAS initialised: $(grep -c 'calling init: .*libopenblas' err)"; fi
else
  if [ $rc -eq 0 ] && ! grep -q 'libopenblas' err; then ok; else
    bad "a training run on $BLAS: exit $rc, OpenBLAS loaded: $(grep -c 'libopenblas' err) lines"; fi
fi
(ulimit -v 400000; exec timeout -k 2 120 "$CCSIM" run "$TRAIN" --out blasv --quiet --set iterations=2) >out 2>err
rc=$?
[ $rc -eq 0 ] && [ -s blasv/summary.json ] && ok || bad "ulimit -v 400000, a training run: exit $rc: $(head -c 300 err)"
# lower limits leave no room for OpenBLAS's work buffers (128 MiB a thread
# that multiplies), whose map OpenBLAS before 0.3.30 retried forever: a
# training run hung here until ccsim kept that room (train/blas.c).  Now
# it finishes or ends with exit 1 and one line (OpenBLAS's room, or the
# actors' stacks at the lowest), on one thread and on two
if [ "$BLAS" = libopenblas.so.0 ]; then
  for v in 350000 300000 250000 200000; do
    for th in 1 2; do
      # MALLOC_PERTURB_: fresh heap memory filled with 0xfe bytes, so that
      # a gradient the failed run never computed is not zero by chance (CI
      # saw a -Inf there once; with this every run did, before the fix)
      (ulimit -v $v; MALLOC_PERTURB_=1 exec timeout -k 2 60 "$CCSIM" run "$TRAIN" --out "blasv$v-$th" --quiet --set iterations=2 --threads $th) >out 2>err
      rc=$?
      case $rc in
      0) [ -s "blasv$v-$th/summary.json" ] && ok || bad "ulimit -v $v, training, $th threads: exit 0 without summary.json" ;;
      # the cause (OpenBLAS's room, or memory for the actors' stacks), with
      # the iteration: not a gradient the failed run went on with
      1) [ "$(wc -l <err)" -eq 1 ] && grep -Eq "^ccsim: .*iteration [0-9]+.*(OpenBLAS|memory)" err && ok ||
        bad "ulimit -v $v, training, $th threads: exit 1 but not one line naming the iteration and the cause: $(head -c 300 err)" ;;
      *) bad "ulimit -v $v, training, $th threads: exit $rc (a hang ends in 124): $(head -c 300 err)" ;;
      esac
      clean "blasv$v-$th" "$([ $rc -eq 0 ] && echo finished)" "ulimit -v $v, training"
    done
  done
  # a failed run stops at the iteration that failed: with its progress on,
  # no iteration is done after it (once it ran on to the last on zeros)
  (ulimit -v 200000; exec timeout -k 2 60 "$CCSIM" run "$TRAIN" --out blasstop --set iterations=40 --threads 1) >out 2>err
  rc=$?
  case $rc in
  0) ok ;; # room enough here: nothing to stop
  1) n=$(sed -n 's/^ccsim: .*iteration \([0-9]*\).*\(OpenBLAS\|memory\).*/\1/p' err | tail -n 1)
    [ -n "$n" ] && [ "$(grep -c '^ccsim: iteration [0-9]*/40 done' err)" -eq "$n" ] && ok ||
      bad "ulimit -v 200000, 40 iterations: failed at iteration ${n:-?} but $(grep -c 'done at' err) done: $(tail -c 300 err)" ;;
  *) bad "ulimit -v 200000, 40 iterations: exit $rc: $(head -c 300 err)" ;;
  esac
  clean blasstop "$([ $rc -eq 0 ] && echo finished)" "ulimit -v 200000, 40 iterations"
fi

# 2. ulimit -f 10 (10 KiB): hops.csv of 60 iterations is larger
(ulimit -f 10; exec timeout -k 2 60 "$CCSIM" run "$EXP" --out f10 --quiet --set iterations=60) >out 2>err
expect "ulimit -f 10" 1 "File too large" $?
clean f10 no "ulimit -f 10"
# a limit met by the timing executor's trace (a memfd counts too)
(ulimit -f 1; exec timeout -k 2 60 "$CCSIM" run "$EXP" --out f1 --quiet) >out 2>err
expect "ulimit -f 1" 1 "File too large" $?
clean f1 no "ulimit -f 1"

# 3. ulimit -n: too few descriptors is this process's problem, not the input's
for n in 5 6 7; do
  (ulimit -n $n; exec timeout -k 2 60 "$CCSIM" run "$EXP" --out "n$n" --quiet) >out 2>err
  expect "ulimit -n $n" 1 "Too many open files" $?
  clean "n$n" no "ulimit -n $n"
done

# a sweep with too few descriptors to list its directory: exit 1, and the
# line says what it could not do (not "cannot read")
printf '{"base": "%s", "axes": [{"path": "workers", "values": [2, 4]}]}\n' "$EXP" >nsweep.json
(ulimit -n 4; exec timeout -k 2 60 "$CCSIM" sweep nsweep.json --out sn4) >out 2>err
expect "ulimit -n 4 (sweep)" 1 "sn4: cannot list the output directory (for stale temporary files): Too many open files" $?

# 4. stdout on /dev/full: the summary cannot be printed, which is an error
timeout -k 2 60 "$CCSIM" run "$EXP" --out full --quiet >/dev/full 2>err
expect "stdout on /dev/full (run)" 1 "standard output: cannot write: No space left on device" $?
timeout -k 2 60 "$CCSIM" list compressors >/dev/full 2>err
expect "stdout on /dev/full (list)" 1 "standard output: cannot write" $?
timeout -k 2 60 "$CCSIM" --version >/dev/full 2>err
expect "stdout on /dev/full (--version)" 1 "standard output: cannot write" $?

# stdout a pipe nobody reads any more (the reader gone before ccsim writes):
# exit 1 with the message, not death by SIGPIPE (141)
( sleep 0.5; exec timeout -k 2 60 "$CCSIM" list compressors 2>err ) | true
expect "stdout a closed pipe (list)" 1 "standard output: cannot write: Broken pipe" "${PIPESTATUS[0]}"
( sleep 0.5; exec timeout -k 2 60 "$CCSIM" run "$EXP" --out pipe --quiet 2>err ) | true
expect "stdout a closed pipe (run)" 1 "standard output: cannot write: Broken pipe" "${PIPESTATUS[0]}"

# 5. signals at several moments of a run that cannot finish before them (counted from
# its marker in the output directory): 130, 143, 129,
# one line, a clean directory (no temporary, no summary.json).  A background
# job of a script ignores SIGINT; env gives ccsim the default dispositions
# (a signal ignored when ccsim starts stays ignored, as under nohup).
long=(run "$EXP" --quiet --set iterations=1000000 --set model.elements=20000 --no-memo)
for sig in INT TERM HUP; do
  for delay in 0.3 0.8 1.5; do
    d="sig-$sig-$delay"
    timeout -k 2 120 env --default-signal=INT,TERM,HUP "$CCSIM" "${long[@]}" --out "$d" >out 2>err &
    pid=$!
    # the moments count from the run's marker (its handlers are in place by
    # then), not from the fork: a slow start under load is not a signal
    # before main
    started "$d"
    sleep "$delay"
    kill -s "$sig" "$(pgrep -P $pid)" 2>/dev/null # ccsim, the child of timeout
    wait $pid
    rc=$?
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
    if [ $rc -eq 0 ]; then
      bad "SIG$sig after ${delay}s: the run finished first; make it longer"
      continue
    fi
    expect "SIG$sig after ${delay}s" $want "ccsim: interrupted by SIG$sig" $rc
    clean "$d" no "SIG$sig after ${delay}s"
  done
done

# 5b. the threads a run starts (its data executor's lanes) block SIGINT, SIGTERM and
# SIGHUP, so that the handler interrupts only the main thread, the one that
# opens and commits the result files (src/threadstart.h): bits 1, 2 and 15 of
# each other thread's SigBlk; then the line, as above
d="sig-threads"
timeout -k 2 120 env --default-signal=INT,TERM,HUP "$CCSIM" "${long[@]}" --threads 3 --out "$d" >out 2>err &
pid=$!
# its lanes start once its platform is loaded (seconds under a sanitizer or
# a loaded machine): wait for them, up to 20 s
c=""
for _ in $(seq 1 400); do
  [ -z "$c" ] && c=$(pgrep -P $pid)
  [ -n "$c" ] && [ "$(find /proc/"$c"/task -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" -ge 3 ] && break
  sleep 0.05
done
others=0
for t in /proc/"$c"/task/*; do
  [ "${t##*/}" = "$c" ] && continue
  blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$t/status" 2>/dev/null)
  [ -z "$blk" ] && continue # ended meanwhile
  others=$((others + 1))
  [ $((0x$blk & 0x4003)) -eq $((0x4003)) ] && ok || bad "thread ${t##*/} of a run does not block SIGINT/TERM/HUP: SigBlk $blk"
done
[ "$others" -ge 2 ] && ok || bad "a run on 3 threads showed $others threads besides its main one"
kill -s TERM "$c" 2>/dev/null
wait $pid
expect "SIGTERM, 3 threads" 143 "ccsim: interrupted by SIGTERM" $?
clean "$d" no "SIGTERM, 3 threads"

# 6. a sweep stopped by SIGINT, SIGTERM or SIGHUP stops its points, writes
# sweep.csv, exits 1 with "stopped by SIGxxx; run the sweep again to
# resume", leaves no temporary in any point, and the next sweep finishes
printf '{"base": "%s", "name": "sig", "set": {"iterations": 1000000, "model.elements": 20000},
  "axes": [{"path": "seed", "values": [1, 2]}]}\n' "$EXP" >sigsweep.json
for sig in INT TERM HUP; do
  d="sweep-$sig"
  timeout -k 2 120 env --default-signal=INT,TERM,HUP "$CCSIM" sweep sigsweep.json --out "$d" --quiet >out 2>err &
  pid=$!
  started "$d/seed=1"
  kill -s "$sig" "$(pgrep -P $pid)" 2>/dev/null
  wait $pid
  rc=$?
  expect "sweep, SIG$sig" 1 "$d: stopped by SIG$sig; run the sweep again to resume" $rc
  [ -s "$d/sweep.csv" ] && ok || bad "sweep, SIG$sig: no sweep.csv"
  clean "$d/seed=1" no "sweep, SIG$sig"
done
echo "limits: $pass passed, $fail failed"
[ $fail -eq 0 ]
