#!/usr/bin/env bash
# bench/warmth.sh BUILD SRCDIR [ROUNDS] — what the machine's memory does to
# issue 29's (a) (a 1024-worker ring, sampled, one iteration): ROUNDS
# (default 5) rounds of the same run in three states, in this order:
#   idle   after IDLE seconds (default 6) with nothing running;
#   warm   at once after another run of the same experiment;
#   bare   at once after bench/s4u_ring, the bare S4U ring (a) compares with.
# A VM whose host takes back the memory its guest frees (free page
# reporting starts 2 s after a free) makes a run that follows a pause, or a
# long other program, fault its heap in from the host again.  Prints each
# state's median wall s, user s, system s and minor page faults; every run's
# result files must equal the first's.
set -eu
BUILD=$(readlink -f "$1")
SRC=$(readlink -f "$2")
ROUNDS=${3:-5}
IDLE=${IDLE:-6}
CCSIM=$BUILD/src/ccsim
RING=$BUILD/tests/s4u_ring
. "$(dirname "$0")/lib.sh" # T, median
EXP=$SRC/tests/validation/ring_crossbar.json
SG="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thresh:warning"
one() { # state: one measured run, its times appended to $T/all
  /usr/bin/time -f "%e %U %S %R" -o "$T/t" "$CCSIM" run "$EXP" --quiet --force --out "$T/o" --set workers=1024 \
    --set 'model={"elements":1048576}' --set model.sample=65536 --set iterations=1 >/dev/null
  echo "$1 $(cat "$T/t")" >>"$T/all"
  if [ -f "$T/ref.csv" ]; then
    cmp -s "$T/ref.csv" "$T/o/iterations.csv" || { echo "$1: the result files differ" >&2; exit 1; }
  else
    cp "$T/o/iterations.csv" "$T/ref.csv"
  fi
}
one first # the platform file for the bare ring, and the reference results
for _ in $(seq 1 "$ROUNDS"); do
  sleep "$IDLE"
  one idle
  one warm
  # shellcheck disable=SC2086
  "$RING" "$T/o/platform.xml" 1024 1048576 1 $SG >/dev/null 2>&1
  one bare
done
for s in idle warm bare; do
  printf '%s: median wall %s s, user %s s, system %s s, page faults %s (%s runs)\n' "$s" \
    "$(awk -v s=$s '$1 == s { print $2 }' "$T/all" | median %.2f)" \
    "$(awk -v s=$s '$1 == s { print $3 }' "$T/all" | median %.2f)" \
    "$(awk -v s=$s '$1 == s { print $4 }' "$T/all" | median %.2f)" \
    "$(awk -v s=$s '$1 == s { print $5 }' "$T/all" | median %.0f)" "$ROUNDS"
done
