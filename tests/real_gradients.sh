#!/usr/bin/env bash
# tests/real_gradients.sh CCSIM SRCDIR — workloads/cascade/real_gradients.sh
# --quick (4 workers x 2 iterations) on the small traces shipped in
# tests/data/traces and the synthetic sources, into a temporary directory:
#  - every cell of its table is written (9 compressors x 4 sources, finite);
#  - Global-QSGD 8-bit's aggregate error on the real gradients is more than
#    3x its error on synthetic normals (measured: 0.236 ResNet / 0.234 LSTM
#    against 0.0375, 6.3x and 6.2x): a global max over heavy-tailed
#    gradients leaves most coordinates a few levels;
#  - top-k 1% over the all-gather loses less on real gradients than on
#    normals (measured 0.697 and 0.650 against 0.936; asserted below 0.9x):
#    their energy sits in fewer coordinates;
#  - fp16 is the same on every source (within 1.5x; measured 0.98-1.10x).
# The results are deterministic (seed 1), so the margins only guard a
# change of a compressor; the bounds are those the table's ratios state.
# Then the shipped traces are recorded again with the commands
# analysis/TRACES.md gives: every file is the same byte for byte (a
# recording is deterministic under its seed, and the shipped ones are what
# the script makes).
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
REAL_GRADIENTS_OUT="$T/rg" bash "$SRC/workloads/cascade/real_gradients.sh" --quick "$CCSIM" >"$T/log" 2>&1 ||
  { echo "FAIL: real_gradients.sh --quick"; cat "$T/log"; exit 1; }
[ -s "$T/rg/table.md" ] || { echo "FAIL: no table"; exit 1; }
python3 - "$T/rg" <<'PY'
import json, math, os, sys
runs = sys.argv[1]
def err(label, source):
    d = json.load(open(os.path.join(runs, label, source, "summary.json")))
    return d["agg_rel_error"]
fail = 0
def check(cond, msg):
    global fail
    print(("ok: " if cond else "FAIL: ") + msg)
    fail |= not cond
labels = ["fp16", "global-qsgd-8", "qsgd-127", "topk-1%-allgather", "topk-1%-recompress",
          "sign-ring", "marsit", "ef-signsgd", "s2-sketch-5%"]
sources = ["normal", "sparse", "resnet-fmnist", "lstm-kjv"]
n = sum(1 for l in labels for s in sources if math.isfinite(err(l, s)))
check(n == 36, f"{n} of 36 cells finite")
table = open(os.path.join(runs, "table.md")).read()
check(table.count("\n| ") == 2 * (2 + 9), "the table: header, rule and 9 rows in each of its two parts")
for real in ("resnet-fmnist", "lstm-kjv"):
    g = err("global-qsgd-8", real) / err("global-qsgd-8", "normal")
    check(g > 3, f"global-qsgd 8-bit {real} / normal = {g:.2f}x (> 3x)")
    t = err("topk-1%-allgather", real) / err("topk-1%-allgather", "normal")
    check(t < 0.9, f"topk 1% allgather {real} / normal = {t:.2f}x (< 0.9x)")
    f = err("fp16", real) / err("fp16", "normal")
    check(1 / 1.5 < f < 1.5, f"fp16 {real} / normal = {f:.2f}x (within 1.5x)")
sys.exit(1 if fail else 0)
PY
[ $? -eq 0 ] || exit 1
REC="$SRC/analysis/record_trace.py"
/usr/bin/python3 "$REC" --model resnet-fmnist --width 8 --workers 4 --iterations 2 --warmup 20 --lr 0.1 \
  --seed 1 --out "$T/resnet-fmnist-4x2" >"$T/rec.log" 2>&1 || { echo "FAIL: recording resnet-fmnist"; cat "$T/rec.log"; exit 1; }
/usr/bin/python3 "$REC" --model lstm-kjv --vocab 200 --embed 16 --hidden 32 --workers 4 --iterations 2 \
  --warmup 20 --lr 1.0 --seed 1 --out "$T/lstm-kjv-4x2" >"$T/rec.log" 2>&1 || { echo "FAIL: recording lstm-kjv"; cat "$T/rec.log"; exit 1; }
for t in resnet-fmnist-4x2 lstm-kjv-4x2; do
  n=0
  for f in index.json w0/it0.npy w0/it1.npy w1/it0.npy w1/it1.npy w2/it0.npy w2/it1.npy w3/it0.npy w3/it1.npy; do
    cmp -s "$T/$t/$f" "$SRC/tests/data/traces/$t/$f" || { echo "FAIL: $t/$f differs from the shipped trace"; exit 1; }
    n=$((n + 1))
  done
  echo "ok: $t recorded again: $n files identical to the shipped ones"
done
