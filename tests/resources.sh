#!/usr/bin/env bash
# tests/resources.sh CCSIM SRCDIR — validate prints the memory estimate; a
# run that would not fit (--max-memory, or more workers than SimGrid has
# memory maps for) is refused with exit 2 before anything is simulated.
. "$(dirname "$0")/lib.sh" "$@"
expect2() {
  local name=$1 want=$2
  shift 2
  "$@" >out 2>err
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -qF -- "$want" err; then ok; else bad "$name: exit $rc: $(cat err)"; fi
}
printf '{"workers": 8, "model": {"elements": 1000000}, "iterations": 1}\n' >e.json
# on one CPU (the data executor then has one lane, and the estimate no
# term for the lanes' free lists, which would make these figures the
# machine's)
cpu0=$(taskset -pc $$ | sed 's/.*: //' | cut -d, -f1 | cut -d- -f1)
one_cpu() { taskset -c "$cpu0" "$@"; }
"$CCSIM" validate e.json >out 2>err && grep -qE 'needs about [0-9.]+ MiB of memory' out && ok || bad "validate: $(cat out err)"
# the estimate grows with the tensor and the workers
m1=$(one_cpu "$CCSIM" validate e.json | sed 's/.*needs about \([0-9.]*\) MiB.*/\1/')
m2=$(one_cpu "$CCSIM" validate e.json --set model.elements=2000000 | sed 's/.*needs about \([0-9.]*\) MiB.*/\1/')
awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(b > 1.8 * a - 40) }' && ok || bad "estimate does not grow with elements: $m1 -> $m2"
expect2 max-memory-validate 'e.json: workers: the run needs about' "$CCSIM" validate e.json --max-memory 10MiB
expect2 max-memory-run 'more than --max-memory, 10 MiB' "$CCSIM" run e.json --max-memory 10MiB --out o --quiet
[ ! -e o ] && ok || bad "a refused run wrote its directory"
expect2 max-memory-unit '--max-memory' "$CCSIM" run e.json --max-memory lots --out o --quiet
# the machine's available memory is the default limit: a 4 TB tensor on 64 workers does not fit
expect2 memavailable 'more than the memory available (MemAvailable)' "$CCSIM" validate e.json --set model.elements=1000000000000 --set workers=64 --set collective=allgather/ring
# --record-trace records whole gradients (model.elements, not the sample),
# one worker's at a time: the run's estimate counts one (38.1 MiB here), so
# a sampled run that fits without it may not with it, and the estimate is
# at least the measured peak with it and without it (estimates read from
# refusals at 1 B; peaks from summary.json).  The peaks' difference is not
# compared with the estimates': it moves by +-2 MiB from run to run (36.1
# to 40.1 MiB measured), with whatever else is resident at each peak.
printf '{"workers": 2, "model": {"elements": 10000000, "sample": 1024}, "iterations": 1}\n' >r.json
expect2 record-trace-refused "r.json: model.elements: the run needs about" \
  "$CCSIM" run r.json --max-memory 60MiB --record-trace rt0 --out r0 --quiet
"$CCSIM" run r.json --max-memory 60MiB --out r1 --quiet >/dev/null 2>err && ok || bad "r.json without --record-trace: $(cat err)"
est_of() { # run options... -> the estimate in MiB
  "$CCSIM" run r.json --max-memory 1B --quiet "$@" 2>&1 | sed -n 's/.*needs about \([0-9.]*\) \([KMG]iB\).*/\1 \2/p' |
    awk '{ printf "%.2f", $1 * ($2 == "GiB" ? 1024 : $2 == "KiB" ? 1 / 1024 : 1) }'
}
peak_of() { sed -n 's/.*"peak_rss_mb": \([0-9.]*\).*/\1/p' "$1/summary.json" 2>/dev/null; }
e0=$(est_of --out x0) e1=$(est_of --out x1 --record-trace rtx)
"$CCSIM" run r.json --record-trace rt3 --out r3 --quiet >/dev/null 2>err || bad "r.json --record-trace: $(cat err)"
p0=$(peak_of r1) p1=$(peak_of r3)
# (under AddressSanitizer the peaks hold its shadow memory too, which no
# estimate of ccsim's own data counts: the estimates alone are checked)
asan=0
ldd "$CCSIM" 2>/dev/null | grep -q libasan && asan=1
awk -v e0="${e0:-0}" -v e1="${e1:-0}" -v p0="${p0:-1e9}" -v p1="${p1:-1e9}" -v asan=$asan 'BEGIN { exit !(e1 - e0 > 38 && (asan || (e0 >= p0 && e1 >= p1))) }' && ok ||
  bad "--record-trace: the estimate goes $e0 -> $e1 MiB with it, the measured peak $p0 -> $p1 MiB"
# memory maps (vm.max_map_count; CCSIM_MAX_MAP_COUNT stands for it): a
# process holds its actors' stacks, 2 a worker, each 2 maps with a guard
# page, and a map for each actor whose trace passes 64 KiB (at most the
# trace's bytes / 64 KiB, at most one a worker), and 4096 to spare.  8 workers, a ring of 64
# elements: the trace is 2 x 8 x 7 messages x 16 B + 8 x 4 KiB (34,560 B: no map),
# so guard pages fit while 4096 + 32 <= maps, and the run fits (stacks
# counted a map each without guard pages) while 4096 + 16 <= maps.
printf '{"workers": 8, "model": {"elements": 64}, "iterations": 1}\n' >m.json
guard_note='actor stacks without guard pages'
CCSIM_MAX_MAP_COUNT=4128 "$CCSIM" validate m.json >out 2>err && ! grep -q "$guard_note" out && ok ||
  bad "4128 maps: guard pages expected: $(cat out err)"
CCSIM_MAX_MAP_COUNT=4127 "$CCSIM" validate m.json >out 2>err && grep -q "$guard_note" out && ok ||
  bad "4127 maps: no guard pages expected: $(cat out err)"
CCSIM_MAX_MAP_COUNT=4112 "$CCSIM" run m.json --out m4112 --quiet >/dev/null 2>err && ok ||
  bad "4112 maps: the run without guard pages failed: $(cat err)"
# and it gives the results it gives with them
"$CCSIM" run m.json --out mdef --quiet >/dev/null 2>&1 && cmp -s mdef/iterations.csv m4112/iterations.csv &&
  cmp -s mdef/hops.csv m4112/hops.csv && ok || bad "results differ without guard pages"
expect2 map-count-edge "m.json: workers: 8 workers need 16 actors and 4112 memory maps (their stacks, even without guard pages, and their traces), but vm.max_map_count is 4111 here: fewer workers, or sysctl -w vm.max_map_count=4112" \
  env CCSIM_MAX_MAP_COUNT=4111 "$CCSIM" validate m.json
# traces count: 128 workers on the ring exchange 2 x 128 x 127 messages,
# 520,192 B of trace + 512 KiB: 15 maps; guard pages need 4096 + 4 x 128 + 15
printf '{"workers": 128, "model": {"elements": 1024}, "iterations": 1}\n' >t128.json
CCSIM_MAX_MAP_COUNT=4623 "$CCSIM" validate t128.json >out 2>err && ! grep -q "$guard_note" out && ok ||
  bad "128 workers, 4623 maps: guard pages expected: $(cat out err)"
CCSIM_MAX_MAP_COUNT=4622 "$CCSIM" validate t128.json >out 2>err && grep -q "$guard_note" out && ok ||
  bad "128 workers, 4622 maps: no guard pages expected: $(cat out err)"
# the machine's own limit: a count past it is refused with the value to raise it to
maps=$(cat /proc/sys/vm/max_map_count)
w=$(( maps / 2 + 100 ))
expect2 map-count "$w workers need $((2 * w)) actors and" "$CCSIM" validate e.json --set workers=$w --set platform.hosts=$w --set model.elements=64
# the terms of the estimate, exactly (src/sim/resources.c, docs/platform-checks.md),
# at 10 workers and 10^6 elements, printed to 3 digits, on one CPU (taskset:
# each further lane of the data executor adds a tensor of payloads, so the
# figure depends on the CPUs): workers' state 4 B an element and worker (the
# gradient scratch), 8 with error feedback (+ the memory); payloads in flight
# as the collective's descriptor holds them (4n elements on the ring
# all-reduce, N n on a gathering collective), each 12 B (the payload's 4 and
# the exact float64 shadow) or 20 B where the cascade is measured (a lossy
# compressor: the ideal shadow too), and with error feedback the lane's one
# compensated input in flight (4 B an element); 2 actor stacks of 36
# KiB a worker; the trace once (one iteration): 16 B a message (the
# descriptor's count: 2N(N - 1) for the ring all-reduce, N(N - 1) for the
# all-gather) and 4 KiB a worker
printf '{"workers": 10, "model": {"elements": 1000000}, "iterations": 1}\n' >t.json
# the message lists every term, largest first: the four checked here are
# picked out by name and put in this order
terms() {
  local m t out=""
  m=$(one_cpu "$CCSIM" validate t.json --max-memory 1B "$@" 2>&1)
  for t in "workers' state" "payloads in flight" "actor stacks" "trace"; do
    out+="${out:+, }$t $(sed -n "s/.*[(,] *$t \([0-9.]* [KMGT]*i*B\).*/\1/p" <<<"$m")"
  done
  echo "$out"
}
want="workers' state 38.1 MiB, payloads in flight 45.8 MiB, actor stacks 720 KiB, trace 42.8 KiB"
[[ "$(terms)" == "$want" ]] && ok || bad "ring estimate: $(terms), expected $want"
want="workers' state 38.1 MiB, payloads in flight 114 MiB, actor stacks 720 KiB, trace 41.4 KiB"
[[ "$(terms --set collective=allgather/ring)" == "$want" ]] && ok ||
  bad "all-gather estimate: $(terms --set collective=allgather/ring), expected $want"
want="workers' state 76.3 MiB, payloads in flight 80.1 MiB, actor stacks 720 KiB, trace 42.8 KiB"
[[ "$(terms --set 'compressor={"name": "fp16", "memory": "residual"}')" == "$want" ]] && ok ||
  bad "error-feedback estimate: $(terms --set 'compressor={"name": "fp16", "memory": "residual"}'), expected $want"
# the largest term leads, and where it is the iterations' records the JSON
# path is iterations
expect2 max-memory-largest-first "e.json: iterations: the run needs about 4.03 TiB (iterations' records 4.03 TiB, payloads" \
  one_cpu "$CCSIM" validate e.json --set iterations=1073741824 --set workers=4 --set platform.hosts=4
# with two lanes, a term for the blocks their free lists keep: 32 MiB a
# lane (src/lanepool.h) where the run makes more than that, as this one does
if [ "$(nproc)" -ge 2 ]; then
  cpus2=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
  expect2 lane-lists "lanes' free lists 64 MiB" taskset -c "$cpus2" "$CCSIM" validate e.json --max-memory 1B
  expect2 lane-lists-one "lanes' free lists 0 B" one_cpu "$CCSIM" validate e.json --max-memory 1B
fi
# a run that fits still runs
"$CCSIM" run e.json --max-memory 4GiB --out fits --quiet >/dev/null 2>err && ok || bad "a run that fits: $(cat err)"
finish resources
