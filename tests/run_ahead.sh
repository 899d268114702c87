#!/usr/bin/env bash
# tests/run_ahead.sh CCSIM SRCDIR — running the data of later iterations
# while SimGrid replays an earlier one (the default) gives what settling
# every iteration in turn gives (CCSIM_RUN_AHEAD=0): every result file byte
# for byte (summary.json aside from its host-time fields), and the same
# error when an iteration after a replayed one fails.  The cases: iterations
# that wait for the replay in flight (the memo's case), every iteration
# replayed (--no-memo), traces that change from one iteration to the next
# (threshold sparsification), a timeline, and MergeComp's search (which
# settles each iteration before planning the next).
. "$(dirname "$0")/lib.sh" "$@"
check() { same_env "$1" CCSIM_RUN_AHEAD=0 "${@:2}"; } # name experiment [args...]
G="$SRC/tests/golden/small.json"
W=(--set workers=16 --set 'model={"elements": 16384}' --set iterations=6)
check memo "$G" "${W[@]}" --set device=v100 --set output.timeline=true
check nomemo "$G" "${W[@]}" --no-memo --threads 2
check threshold "$G" "${W[@]}" --set 'compressor={"name": "threshold", "tau": 0.05}' --set collective=allgather/ring
check resnet "$SRC/workloads/walltime/resnet50.json" --set workers=8 --set model.sample=65536 --set iterations=5 \
  --set 'compressor={"name": "marsit", "memory": "marsit"}' --set output.timeline=true
check mergecomp "$SRC/workloads/walltime/resnet50.json" --set workers=4 --set model.sample=16384 --set iterations=8 \
  --set 'schedule={"kind": "mergecomp", "groups": 2}'
# the memo's count is what settling in turn gives: one replay, the rest hits
s=$(sed -n 's/.*"simulated_iterations": \([0-9]*\).*/\1/p' "$T/memo-1/summary.json")
h=$(sed -n 's/.*"memo_hits": \([0-9]*\).*/\1/p' "$T/memo-1/summary.json")
[ "$s" = 1 ] && [ "$h" = 5 ] && ok || bad "memo: simulated $s, hits $h (expected 1 and 5)"

# a failure at iteration 2 while iteration 0's replay may still run: the
# same message, exit 1, either way (a recorded trace whose worker 2 holds
# 3e38 at iteration 2, finite, which fp16 makes infinite on the way)
"$CCSIM" run "$G" --quiet --out "$T/rec" --set workers=4 --set iterations=4 --record-trace "$T/tr" >/dev/null 2>&1 ||
  bad "recording a trace failed"
f="$T/tr/w2/it2.npy"
printf '\xe6\xb1\x61\x7f' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc status=none
cat >"$T/t.json" <<J
{"workers": 4, "iterations": 4, "model": {"elements": 1001}, "compressor": "fp16",
 "gradients": {"source": "trace", "trace": "$T/tr"}}
J
for ahead in 0 1; do
  CCSIM_RUN_AHEAD=$ahead "$CCSIM" run "$T/t.json" --quiet --out "$T/nan-$ahead" >/dev/null 2>"$T/raw-$ahead"
  rc=$?
  # ccsim's own lines (a sanitizer build adds notices of its own)
  { grep '^ccsim: ' "$T/raw-$ahead"; echo "exit $rc"; } >"$T/err-$ahead"
done
if cmp -s "$T/err-0" "$T/err-1" && grep -q "^exit 1$" "$T/err-1" && grep -q "iteration 2, worker [0-9]*: " "$T/err-1"; then
  ok
else
  bad "a NaN at iteration 2: in turn: $(cat "$T/err-0"); ahead: $(cat "$T/err-1")"
fi
# only 0 and 1
out=$(CCSIM_RUN_AHEAD=yes "$CCSIM" validate "$G" 2>&1); rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -q 'CCSIM_RUN_AHEAD is "yes"' && ok || bad "CCSIM_RUN_AHEAD=yes: exit $rc: $out"
finish run_ahead
