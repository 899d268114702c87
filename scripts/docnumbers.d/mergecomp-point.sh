# numbers: quick
# workloads/papers/mergecomp/README.md "One point": ResNet-50/CIFAR-10 on 8
# GPUs over PCIe (base.json: pcie-server, top-k 1% + residual over the ring
# all-gather), on the v100 roofline and the measured H100, under comm.model
# "ideal" and "nccl": layer-wise, one buffer (y = 1) and MergeComp, the steady
# iteration time (median of the last 4 iterations, as analyze.py takes it;
# MergeComp runs 40 iterations so its search ends first, the fixed schedules 6),
# and MergeComp's speed-up over layer-wise split into "one call instead of 161"
# (layer-wise / one buffer) and what the partition adds (one buffer / MergeComp).
set -eu
B="$SRC/workloads/papers/mergecomp/base.json"
for dev in v100 h100-measured; do
  for model in ideal nccl; do
    for k in layerwise single mergecomp; do
      it=6
      [ $k = mergecomp ] && it=40
      "$CCSIM" run "$B" --quiet --out "$WORK/$dev-$model-$k" --set device=$dev --set comm.model=$model \
        --set "schedule={\"kind\": \"$k\"}" --set iterations=$it >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    done
  done
done
/usr/bin/python3 - "$WORK" <<'PY'
import csv, json, os, statistics, sys
W = sys.argv[1]
def steady(d, col="time_s"):
    with open(os.path.join(W, d, "iterations.csv")) as f:
        t = [float(r[col]) for r in csv.DictReader(f)]
    return statistics.median(t[-4:])
print("| device | comm.model | layer-wise (161 calls) | one buffer (y = 1) | MergeComp | its partition (probes) "
      "| MergeComp over layer-wise | = one call instead of 161 | × the partition |")
print("|---|---|---|---|---|---|---|---|---|")
for dev, label in (("v100", "`v100` roofline"), ("h100-measured", "`h100-measured`")):
    for model in ("ideal", "nccl"):
        t = {k: steady(f"{dev}-{model}-{k}") for k in ("layerwise", "single", "mergecomp")}
        s = json.load(open(os.path.join(W, f"{dev}-{model}-mergecomp", "summary.json")))["schedule"]
        if not s["search_finished"]:
            sys.exit(f"mergecomp-point: {dev} {model}: the search did not finish in 40 iterations")
        part = " + ".join(str(b["layers"]) for b in s["buckets"])
        print(f"| {label} | {model} | {1e3 * t['layerwise']:.2f} ms | {1e3 * t['single']:.2f} ms | "
              f"{1e3 * t['mergecomp']:.2f} ms | {part} ({s['probes']}) | "
              f"**{t['layerwise'] / t['mergecomp']:.2f}×** | {t['layerwise'] / t['single']:.2f}× | "
              f"{t['single'] / t['mergecomp']:.3f}× |")
print()
moves = []
for dev in ("v100", "h100-measured"):
    sp = {m: steady(f"{dev}-{m}-layerwise") / steady(f"{dev}-{m}-mergecomp") for m in ("ideal", "nccl")}
    ex = {(m, k): 1e3 * steady(f"{dev}-{m}-{k}", "exposed_communicate_s")
          for m in ("ideal", "nccl") for k in ("layerwise", "single")}
    pct = f"{100 * (sp['nccl'] / sp['ideal'] - 1):+.1f}%".replace("-", "−")
    moves.append(f"on `{dev}` the speed-up moves by {pct} "
                 f"(exposed communication, ideal → nccl: layer-wise {ex[('ideal', 'layerwise')]:.2f} → "
                 f"{ex[('nccl', 'layerwise')]:.2f} ms, one buffer {ex[('ideal', 'single')]:.2f} → "
                 f"{ex[('nccl', 'single')]:.2f} ms)")
print("Under nccl " + "; ".join(moves) + ".")
PY
