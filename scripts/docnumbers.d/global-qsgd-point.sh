# numbers: quick
# workloads/papers/global-qsgd/README.md "The headline at 4 GPUs": ResNet-101,
# batch 64, 4 workers (base.json), on the a100 roofline and the measured H100,
# over NVLink, PCIe and the 10 Gbps cloud network (sweep-time.json's networks),
# fp32 ring, QSGD all-gather and Global-QSGD 8-bit ring and tree, under
# comm.model "ideal" and "nccl": Global-QSGD's (the better of ring and tree)
# speed-up over QSGD and over fp32.  The whole study is global-qsgd-claims.
set -eu
/usr/bin/python3 - "$SRC/workloads/papers/global-qsgd" "$WORK" <<'PY'
import json, os, sys
here, work = sys.argv[1:]
s = json.load(open(os.path.join(here, "sweep-time.json")))
s["base"] = os.path.join(here, s["base"])
for ax in s["axes"]:
    if ax.get("name") == "model":
        ax["values"] = [v for v in ax["values"] if v["label"] == "resnet101"]
s["axes"].append({"path": "comm.model", "values": ["ideal", "nccl"]})
json.dump(s, open(os.path.join(work, "sweep.json"), "w"))
PY
"$CCSIM" sweep "$WORK/sweep.json" --out "$WORK/t" --jobs 2 --quiet >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
/usr/bin/python3 - "$WORK/t/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r["point"] for r in rows if r["status"] != "done"]
if bad:
    sys.exit(f"global-qsgd-point: not done: {bad}")
t = {(r["device"], r["network"], r["comm.model"], r["method"]): float(r["iteration_time_s"]) for r in rows}
print("| device | network | Global-QSGD over QSGD, ideal | nccl | Global-QSGD over fp32, ideal | nccl |")
print("|---|---|---|---|---|---|")
for dev in ("a100", "h100-measured"):
    for net in ("nvlink", "pcie", "cloud"):
        cells = []
        for base in ("qsgd-allgather", "fp32-ring"):
            for m in ("ideal", "nccl"):
                g = min(t[(dev, net, m, "gqsgd-ring")], t[(dev, net, m, "gqsgd-tree")])
                cells.append(f"{t[(dev, net, m, base)] / g:.3f}×")
        print(f"| `{dev}` | {net} | " + " | ".join(cells) + " |")
PY
