#!/usr/bin/env bash
# tests/numbers.sh CCSIM SRCDIR — numbers that go bad stop the run with exit 1
# and one line naming the iteration, the worker and the tensor or hop; no
# summary.json is left that could be read as a result.
set -u
CCSIM=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
# Under -Dsanitize=true: a stopped run kills its SimGrid actors, whose
# contexts LeakSanitizer's tracer cannot scan (it crashes), and ASan warns
# once about the stack switch of the unwinding; leaks are not checked here
# and ASan's own "==PID==" notice lines are left out of the count.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
sanitizer_notes='^(==[0-9]+==WARNING: ASan (is ignoring|doesn.t fully support makecontext)|False positive error reports may follow|For details see https://github.com/google/sanitizers/issues/189)'
pass=0
fail=0
# expect1 NAME WANT COMMAND...
expect1() {
  local name=$1 want=$2
  shift 2
  "$@" --out "$T/$name" --quiet >out 2>err.raw
  local rc=$? lines
  grep -vE "$sanitizer_notes" err.raw >err
  lines=$(wc -l <err)
  if [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -qE -- "$want" err && [ ! -e "$T/$name/summary.json" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, $lines lines, summary $(ls "$T/$name" 2>&1 | tr '\n' ' '), wanted /$want/ in: $(head -c 600 err)" >&2
  fi
}
printf '{"name": "n", "workers": 8, "model": {"elements": 20000}, "iterations": 3}\n' >e.json
# fp16 sums overflow to Inf at the first hop that adds two large values
for c in allreduce/ring allreduce/tree allreduce/rhd allreduce/torus2d; do
  expect1 "fp16-${c#*/}" '^ccsim: e.json: iteration 0, worker [0-9]+: the payload decoded at hop [0-9]+ holds [+-]Inf at element [0-9]+$' \
    "$CCSIM" run e.json --set compressor=fp16 --set gradients.scale=1e4 --set collective=$c
done
# fp16 of values beyond its range: the worker's own payload is already Inf
expect1 fp16-encode 'iteration 0, worker [0-9]+: the payload decoded at hop 1 holds (NaN|[+-]Inf)' \
  "$CCSIM" run e.json --set compressor=fp16 --set gradients.scale=1e30
# PowerSGD's rounds at 1e30: the shared aggregate becomes NaN
expect1 powersgd 'iteration [0-9]+, all workers \(one shared aggregate\): the aggregate holds NaN at element' \
  "$CCSIM" run e.json --set compressor=powersgd --set gradients.scale=1e30 --set collective=allgather/ring
# a memory carries the overflow into the compensated gradient on private outputs
# the same inputs that stay in range are fine, and give a summary
"$CCSIM" run e.json --set compressor=fp16 --set gradients.scale=1 --out ok --quiet >/dev/null 2>err && [ -f ok/summary.json ] &&
  pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL in-range fp16: $(cat err)" >&2; }
# allgather and ps decode to fp32 before summing: 1e4 (|x| < 65504) does not overflow there
"$CCSIM" run e.json --set compressor=fp16 --set gradients.scale=1e4 --set collective=allgather/ring --out ag --quiet >/dev/null 2>err &&
  pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL fp16 allgather at 4e4: $(cat err)" >&2; }
# deterministic: the same line twice
"$CCSIM" run e.json --set compressor=fp16 --set gradients.scale=1e4 --out d1 --quiet 2>d1.err
"$CCSIM" run e.json --set compressor=fp16 --set gradients.scale=1e4 --out d2 --quiet 2>d2.err
cmp -s <(grep -vE "$sanitizer_notes" d1.err) <(grep -vE "$sanitizer_notes" d2.err) && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL the failure is not deterministic" >&2; }
echo "numbers: $pass passed, $fail failed"
[ $fail -eq 0 ]
