#!/usr/bin/env bash
# tests/sbc_delay.sh CCSIM SRCDIR — SBC's communication delay in training
# (src/train/trainer.h): the digits workload workloads/convergence/sbc.json, 40
# iterations, 16 workers.
#   - delay 1 given explicitly is the run without a delay, byte for byte
#     (the same code path: nothing of the delay machinery runs at m = 1);
#   - with delay 4 only iterations 3, 7, 11, ... put bytes on the wire, and
#     the total drops by 4 (to within the spread of the Golomb-coded
#     positions' sizes: measured 3.996; asserted 3.8 to 4.2);
#   - delay 4 without the residual memory is refused (exit 2).
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W="$SRC/workloads/convergence/sbc.json"
run() { # name sets...
  local n=$1
  shift
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  "$CCSIM" run "$W" --out "$T/$n" --quiet --set iterations=40 "${sets[@]}" >/dev/null 2>"$T/$n.err" ||
    { echo "run $n failed:"; cat "$T/$n.err"; exit 1; }
}
run plain
run m1 compressor.delay=1
run m4 compressor.delay=4
bad=0
strip() { grep -v -E '"(host_time_s|peak_rss_mb|dir|experiment_hash)"' "$1"; }
for f in iterations.csv hops.csv; do
  cmp -s "$T/plain/$f" "$T/m1/$f" || { echo "FAIL: delay 1 changes $f"; bad=1; }
done
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $1, $c }' "$1"; }
# bytes on the wire per iteration: zero off the sending iterations
off=$(col "$T/m4/iterations.csv" bytes_on_wire | awk '$1 % 4 != 3 && $2 != 0' | wc -l)
on=$(col "$T/m4/iterations.csv" bytes_on_wire | awk '$1 % 4 == 3 && $2 > 0' | wc -l)
[ "$off" -eq 0 ] && [ "$on" -eq 10 ] || { echo "FAIL: delay 4: $off delayed iterations sent bytes, $on of 10 sending iterations did"; bad=1; }
b1=$(col "$T/plain/iterations.csv" bytes_on_wire | awk '{ s += $2 } END { print s }')
b4=$(col "$T/m4/iterations.csv" bytes_on_wire | awk '{ s += $2 } END { print s }')
echo "bytes on the wire over 40 iterations: delay 1 $b1, delay 4 $b4"
awk -v a="$b1" -v b="$b4" 'BEGIN { r = a / b; printf "ratio %.4f\n", r; exit !(r >= 3.8 && r <= 4.2) }' ||
  { echo "FAIL: delay 4 does not divide the bytes by 4"; bad=1; }
"$CCSIM" run "$W" --out "$T/nomem" --quiet --set iterations=8 --set compressor.delay=4 \
  --set compressor.memory=none >/dev/null 2>"$T/nomem.err"
rc=$?
{ [ "$rc" -eq 2 ] && grep -q 'compressor.delay: 4 needs compressor.memory "residual"' "$T/nomem.err"; } ||
  { echo "FAIL: delay without residual memory: exit $rc: $(cat "$T/nomem.err")"; bad=1; }
exit "$bad"
