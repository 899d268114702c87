# numbers: quick
# docs/comm-model.md "The wall-time studies under both models": MergeComp
# against layer-wise, single-buffer and DDP-bucket compression, ResNet-50 on
# 16 V100s (roofline) at 10 Gbps, ring all-gather, under comm.model "ideal"
# (workloads/walltime/mergecomp.json) and "nccl" (mergecomp-nccl.json).
# MergeComp's figure is the best iteration its search measured
# (summary.json schedule.best_time_s); the others' are iteration_time_s.
set -eu
"$CCSIM" sweep "$SRC/workloads/walltime/mergecomp.json" --out "$WORK/ideal" --jobs 2 --quiet >/dev/null 2>&1
"$CCSIM" sweep "$SRC/workloads/walltime/mergecomp-nccl.json" --out "$WORK/nccl" --jobs 2 --quiet >/dev/null 2>&1
/usr/bin/python3 - "$WORK/ideal" "$WORK/nccl" <<'PY'
import json, os, sys
def t(root, comp, kind):
    s = json.load(open(os.path.join(root, f"compressor={comp},schedule.kind={kind}", "summary.json")))
    return s["schedule"]["best_time_s"] if kind == "mergecomp" else s["iteration_time_s"]
kinds = ["layerwise", "single", "buckets", "mergecomp"]
print("Iteration time, ideal → nccl; the last column is MergeComp's speed-up over layer-wise compression:")
print()
print("| compressor | layer-wise | single | DDP buckets | MergeComp | MergeComp over layer-wise |")
print("|---|---|---|---|---|---|")
for comp, label in (("topk", "top-k 1% + residual"), ("ef-signsgd", "EF-signSGD")):
    I = {k: t(sys.argv[1], comp, k) for k in kinds}
    N = {k: t(sys.argv[2], comp, k) for k in kinds}
    cells = [f"{I[k]:.4f} → {N[k]:.4f} s" for k in kinds]
    cells.append(f"{I['layerwise'] / I['mergecomp']:.2f}× → {N['layerwise'] / N['mergecomp']:.2f}×")
    print(f"| {label} | " + " | ".join(cells) + " |")
PY
