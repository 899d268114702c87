#!/usr/bin/env bash
# tests/measure_device_script.sh CCSIM SRCDIR — scripts/measure_device.py runs
# on the CPU (--quick: the lstm at batch 2 in fp32, fp16 and topk at 2^10 and
# 2^11), writes a device file ccsim loads, and a run on it takes its compute
# from the measured table: compute = forward_s + backward_s of the file at the
# same batch.  Skips (exit 77) when Debian's Python has no torch.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
if ! "$PY" -c "import torch" 2>/dev/null; then
  echo "SKIP: $PY has no torch (apt-get install python3-torch; scripts/install-deps.sh does)"
  exit 77
fi
fail=0
no() { echo "FAIL: $*"; fail=1; }
"$PY" "$SRC/scripts/measure_device.py" --cpu --quick --threads 1 --models lstm --batch 2 --precisions fp32,tf32 \
  --compressors fp16,topk --sizes 10,11 --name quick-cpu --out "$T/quick-cpu.json" > "$T/log" 2>&1 ||
  { echo "FAIL: measure_device.py: $(cat "$T/log")"; exit 1; }
"$PY" - "$T/quick-cpu.json" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ok = True
def check(c, what):
    global ok
    if not c:
        print("FAIL: " + what)
        ok = False
check(d["format"] == "ccsim-device-1" and d["name"] == "quick-cpu" and d["roofline"] == "cpu", "header")
p = d["provenance"]
check(p["cuda"] is None and p["torch"] and p["date"] and "measure_device.py" in p["command"], "provenance %s" % p)
check(any("TF32" in n for n in p["notes"]) and list(d["models"]["lstm"]) == ["fp32"], "tf32 skipped on the CPU, said")
m = d["models"]["lstm"]["fp32"]
check(m["batch"] == 2 and m["forward_s"] > 0 and m["backward_s"] > 0, "model figures")
check(len(m["tensors"]) == 11 and all(0 <= t["ready_s"] <= m["backward_s"] for t in m["tensors"]), "ready times")
for c in ("fp16", "topk"):
    k = d["compressors"][c]
    check(k["sizes"] == [1024, 2048], c + " sizes")
    check(all(len(k[op][t]) == 2 and min(k[op][t]) > 0 for op in ("encode", "decode")
              for t in ("isolated_s", "back_to_back_s")), c + " figures")
check("combine" in d["compressors"]["fp16"] and "combine" not in d["compressors"]["topk"], "combine where summable")
check(d["compressors"]["topk"]["params"] == {"ratio": 0.01}, "topk params")
sys.exit(0 if ok else 1)
EOF
cat > "$T/e.json" <<EOF
{"name": "e", "seed": 1, "workers": 2, "iterations": 1,
 "platform": {"generate": "crossbar", "bandwidth": "25Gbps", "latency": "5us"},
 "model": {"profile": "lstm", "batch": 2, "sample": 10000},
 "gradients": {"source": "synthetic"}, "compressor": "fp16", "collective": "allreduce/ring",
 "device": "$T/quick-cpu.json", "output": {"dir": "$T/out"}}
EOF
"$CCSIM" run -q "$T/e.json" > "$T/log" 2>&1 || no "ccsim on the measured file: $(cat "$T/log")"
python3 - "$T/quick-cpu.json" "$T/out/summary.json" <<'EOF' || fail=1
import json, sys
d, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m = d["models"]["lstm"]["fp32"]
want = m["forward_s"] + m["backward_s"]
got = s["time_breakdown_s"]["compute"]
tm = s["time_model"]
if abs(got - want) > 1e-9 * want or tm["compute"] != "measured" or tm["compression"] != "measured":
    print("FAIL: compute %r, want forward + backward %r; time_model %r" % (got, want, tm))
    sys.exit(1)
EOF
[ $fail = 0 ] && echo "measure_device.py: the CPU file loads and times the run"
exit $fail
