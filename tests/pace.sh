#!/usr/bin/env bash
# tests/pace.sh CCSIM SRCDIR — the lanes' deal following their pace
# (src/sim/exec.c, pace; its arithmetic and an uneven deal's lanes are
# test_pace's) changes which lane runs a worker, never a result:
#  - every result file byte for byte (summary.json aside from its host
#    fields) with CCSIM_PACE=0 and without, at 2 threads, on runs whose
#    iterations are long enough (over 20 ms) to be paced: Marsit with its
#    memory over buckets, a sampled ring, and a parameter server;
#  - and the same as at 1 thread;
#  - CCSIM_PACE other than 0 or 1 is refused: exit 2, one line.
. "$(dirname "$0")/lib.sh" "$@"
RING=$SRC/tests/validation/ring_crossbar.json
MARSIT=(--set workers=256 --set iterations=6 --set model.sample=65536
  --set 'compressor={"name": "marsit", "memory": "marsit"}')
same_env marsit CCSIM_PACE=0 "$SRC/workloads/walltime/resnet50.json" "${MARSIT[@]}" --threads 2
"$CCSIM" run "$SRC/workloads/walltime/resnet50.json" --quiet --out "$T/marsit-t1" "${MARSIT[@]}" --threads 1 \
  >/dev/null 2>"$T/err" || bad "marsit at 1 thread: $(cat "$T/err")"
same marsit-1-thread "$T/marsit-1" "$T/marsit-t1"
same_env ring CCSIM_PACE=0 "$RING" --set workers=512 --set 'model={"elements":1048576}' \
  --set model.sample=65536 --set iterations=4 --threads 2
same_env ps CCSIM_PACE=0 "$RING" --set workers=64 --set 'model={"elements":262144}' --set iterations=4 \
  --set 'collective={"name": "ps", "servers": 2}' --set 'compressor={"name": "topk", "ratio": 0.01}' --threads 2

# a value neither 0 nor 1: refused before anything runs
CCSIM_PACE=yes "$CCSIM" run "$RING" --quiet --out "$T/refused" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'CCSIM_PACE is "yes", expected "0" or "1"' "$T/err" &&
  [ ! -e "$T/refused" ]; then ok; else bad "CCSIM_PACE=yes: exit $rc, stderr: $(cat "$T/err")"; fi
finish pace
