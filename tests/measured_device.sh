#!/usr/bin/env bash
# tests/measured_device.sh CCSIM SRCDIR — a run on a measured device follows
# its tables, by hand.  The device is tests/data/devices/tiny-lstm.json
# (round figures, roofline h100): lstm fp32 measured at batch 10, forward
# 0.4 s, backward 1.0 s; fp16 encode / combine / decode measured at 2^10,
# 2^20 and 2^25 elements.
#
#  1. compute: lstm at batch 20, one iteration: (0.4 + 1.0) x 20 / 10 = 2.8 s;
#     per layer (timeline.csv, layerwise, one worker, compressor none: no
#     device work besides backward): the gradient-ready deltas x 2.
#  2. compression, 2 workers, ring, fp16: per bucket of n elements, encode(n)
#     + one combine of n/2 (the reduce-scatter's only hop) + decode(n), each
#     interpolated in log n between the measured sizes (computed here in awk,
#     independently of the C code); the same with compression_timing
#     back_to_back.
#  3. the sampling bug: under model.sample the device is charged for the full
#     tensor: a sampled run's compression time equals the full run's (the
#     measured device and the h100 roofline), up to the rounding of sampled
#     chunks to whole elements (within relative 1e-5 here: one bucket).
#  4. what the tables do not cover goes to the roofline, and summary.json's
#     time_model says so; bad device files and names exit 2 with one line
#     naming the file and the JSON path; `ccsim list devices` lists the
#     measured ones.
set -u
CCSIM=$1
SRC=$2
DEV=$SRC/tests/data/devices/tiny-lstm.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

# summary.json field (a python expression on d) of run directory $1
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1]+'/summary.json')); print(repr($2))" "$1"; }
# |a - b| <= tol x |b|
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m) }'; }

experiment() { # name schedule extra-json
  cat > "$T/$1.json" <<EOF
{"name": "$1", "seed": 3, "workers": 2, "iterations": 1,
 "platform": {"generate": "crossbar", "bandwidth": "25Gbps", "latency": "5us"},
 "model": {"profile": "lstm", "batch": 20 ${4:-}},
 "gradients": {"source": "synthetic", "distribution": "normal", "scale": 0.01},
 "compressor": "fp16", "collective": "allreduce/ring",
 "device": $3, "schedule": {"kind": "$2"},
 "output": {"dir": "$T/out-$1", "timeline": true}}
EOF
}

# fp16's table: t(op, timing, n), in log n between 2^10, 2^20, 2^25
TABLE='function t(op, b2b, n,   s, v, i, f) {
  split("1024 1048576 33554432", s, " ")
  if (op == "enc") split(b2b ? "2e-6 1e-4 3e-3" : "1e-5 2e-4 4e-3", v, " ")
  if (op == "dec") split(b2b ? "3e-6 1.5e-4 3.5e-3" : "2e-5 3e-4 5e-3", v, " ")
  if (op == "comb") split(b2b ? "4e-6 2e-4 4e-3" : "3e-5 4e-4 6e-3", v, " ")
  if (n <= s[1]) return v[1]
  if (n >= s[3]) return v[3] * n / s[3]
  i = n <= s[2] ? 1 : 2
  f = (log(n) - log(s[i])) / (log(s[i + 1]) - log(s[i]))
  return v[i] + f * (v[i + 1] - v[i])
}'
LAYERS="6500000 1690000 1690000 2600 2600 1690000 1690000 2600 2600 6500000 10000"
want_compress() { # schedule b2b
  awk -v kind="$1" -v b2b="$2" -v layers="$LAYERS" "$TABLE"'
  function bucket(n) { return t("enc", b2b, n) + t("comb", b2b, n / 2) + t("dec", b2b, n) }
  BEGIN {
    L = split(layers, p, " "); total = 0; sum = 0
    for (i = 1; i <= L; i++) { total += p[i]; sum += bucket(p[i]) }
    printf "%.17g\n", kind == "single" ? bucket(total) : sum
  }'
}

# 1 and 2: compute and compression by hand
for kind in single layerwise; do
  experiment "$kind" "$kind" "\"$DEV\""
  if ! "$CCSIM" run -q "$T/$kind.json" > "$T/log" 2>&1; then no "$kind: run failed: $(cat "$T/log")"; continue; fi
  out=$T/out-$kind
  c=$(field "$out" "d['time_breakdown_s']['compute']")
  close "$c" 2.8 1e-12 || no "$kind: compute $c, want (0.4 + 1.0) x 2 = 2.8"
  z=$(field "$out" "d['time_breakdown_s']['compress']")
  w=$(want_compress "$kind" 0)
  close "$z" "$w" 1e-9 || no "$kind: compress $z, want $w (encode + combine of n/2 + decode per bucket)"
  tm=$(field "$out" "(d['device'], d['time_model']['compute'], d['time_model']['compression'], d['time_model']['compute_scale'], 'note' in d['time_model'])")
  [ "$tm" = "('tiny-lstm', 'measured', 'measured', 2.0, False)" ] || no "$kind: time_model says $tm"
done
# layerwise, alone on the device: each backward row of the timeline (bucket k
# = layer k in backward order) lasts its gradient-ready delta x 2; zero deltas
# write no row
experiment alone layerwise "\"$DEV\""
"$CCSIM" run -q "$T/alone.json" --set workers=1 --set compressor=none > "$T/log" 2>&1 || no "alone: run failed: $(cat "$T/log")"
rows=$(awk -F, '$1 == 0 && $3 == "backward" { printf "%d:%.9f ", $4, $6 - $5 }' "$T/out-alone/timeline.csv")
[ "$rows" = "0:0.240000000 2:0.360000000 4:0.400000000 6:0.200000000 8:0.240000000 10:0.560000000 " ] ||
  no "layerwise backward rows: $rows"

# back to back: sampled (one bucket: the sampling fix makes it the full cost)
experiment b2b single "{\"name\": \"$DEV\", \"compression_timing\": \"back_to_back\"}" ', "sample": 200000'
"$CCSIM" run -q "$T/b2b.json" > "$T/log" 2>&1 || no "b2b: run failed: $(cat "$T/log")"
z=$(field "$T/out-b2b" "d['time_breakdown_s']['compress']")
w=$(want_compress single 1)
close "$z" "$w" 1e-5 || no "back_to_back: compress $z, want $w"

# 3: sampled = full, on the measured device and on the h100 roofline
experiment sampled single "\"$DEV\"" ', "sample": 200000'
"$CCSIM" run -q "$T/sampled.json" > "$T/log" 2>&1 || no "sampled: run failed: $(cat "$T/log")"
for k in compress communicate; do
  a=$(field "$T/out-sampled" "d['time_breakdown_s']['$k']")
  b=$(field "$T/out-single" "d['time_breakdown_s']['$k']")
  close "$a" "$b" 1e-5 || no "measured device, sampled: $k $a, full $b"
done
experiment roof-full single '"h100"'
experiment roof-sampled single '"h100"' ', "sample": 100000'
for r in roof-full roof-sampled; do
  "$CCSIM" run -q "$T/$r.json" > "$T/log" 2>&1 || no "$r: run failed: $(cat "$T/log")"
done
a=$(field "$T/out-roof-sampled" "d['time_breakdown_s']['compress']")
b=$(field "$T/out-roof-full" "d['time_breakdown_s']['compress']")
close "$a" "$b" 1e-5 || no "h100, sampled: compress $a, full $b"
[ "$(field "$T/out-roof-full" "d['time_model'] if 'time_model' in d else None")" = "None" ] ||
  no "a built-in device writes no time_model"

# 4: what the tables do not cover
experiment bf16 single "{\"name\": \"$DEV\", \"precision\": \"bf16\"}" ', "sample": 100000'
"$CCSIM" run -q "$T/bf16.json" --set compressor='{"name": "topk", "ratio": 0.05}' --set collective=allgather/ring \
  > "$T/log" 2>&1 ||
  no "bf16: run failed: $(cat "$T/log")"
tm=$(field "$T/out-bf16" "(d['time_model']['compute'], d['time_model']['compression'], d['time_model']['note'])")
case "$tm" in
  "('roofline', 'roofline', 'roofline h100 for compute: lstm at bf16 not measured; compression: topk measured with ratio = 0.01, the experiment has 0.05')") ;;
  *) no "bf16 + topk 0.05: time_model says $tm" ;;
esac

# bad files and names: exit 2, one line naming the file and the JSON path
sed 's/"backward_s": 1.0/"backward_s": "slow"/' "$DEV" > "$T/bad.json"
experiment badfile single "\"$T/bad.json\""
"$CCSIM" run -q "$T/badfile.json" > "$T/log" 2>&1
rc=$?
[ $rc = 2 ] || no "bad device file: exit $rc, want 2"
[ "$(wc -l < "$T/log")" = 1 ] && grep -q "$T/badfile.json: device: $T/bad.json: models.lstm.fp32.backward_s: expected a number > 0" "$T/log" ||
  no "bad device file: $(cat "$T/log")"
experiment badname single '"h200-measured"'
CCSIM_DEVICES=$SRC/tests/data/devices "$CCSIM" run -q "$T/badname.json" > "$T/log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'device: unknown device "h200-measured".*measured: tiny-lstm' "$T/log" ||
  no "unknown device: exit $rc: $(cat "$T/log")"
experiment badprec single '{"name": "h100", "precision": "bf16"}'
"$CCSIM" run -q "$T/badprec.json" > "$T/log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'device.precision: only a measured device' "$T/log" || no "precision on a roofline: exit $rc: $(cat "$T/log")"

CCSIM_DEVICES=$SRC/tests/data/devices "$CCSIM" list devices > "$T/list" 2>&1 || no "list devices failed"
grep -q '^tiny-lstm .*measured, roofline h100' "$T/list" && grep -q 'models: lstm/fp32 (batch 10)' "$T/list" &&
  grep -q 'compressors: fp16 topk (1024 to 3.35544e+07 elements)' "$T/list" || no "list devices: $(cat "$T/list")"
[ $fail = 0 ] && echo "measured device: compute, compression and sampling follow the tables"
exit $fail
