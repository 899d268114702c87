# numbers: full
# docs/walltime.md "The same studies on a measured H100": scaling,
# when compression pays and MergeComp on the v100 / h100 rooflines and the
# measured H100 (device h100-measured):
# `ccsim sweep workloads/walltime/{scaling,pays,mergecomp}-devices.json`
# (52 points, 64 workers for the first two: about a CPU minute, hence full).
set -eu
for s in scaling pays mergecomp; do
  "$CCSIM" sweep "$SRC/workloads/walltime/$s-devices.json" --out "$WORK/$s" --jobs 2 --quiet >/dev/null 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; exit 1; }
done
/usr/bin/python3 - "$WORK" <<'PY'
import csv, json, os, sys
W = sys.argv[1]
def rows(s):
    r = list(csv.DictReader(open(os.path.join(W, s, "sweep.csv"))))
    bad = [x["point"] for x in r if x["status"] != "done"]
    if bad:
        sys.exit(f"walltime-devices: {s}: not done: {bad}")
    return r
S = {(r["device"], int(r["workers"]), r["platform.bandwidth"]): r for r in rows("scaling")}
comp = {d: float(S[(d, 8, "10Gbps")]["compute_s"]) for d in ("v100", "h100", "h100-measured")}
print(f"The `h100` roofline charges ResNet-50 {1e3 * comp['h100']:.1f} ms of compute at batch 64; the measured H100 "
      f"took {1e3 * comp['h100-measured']:.1f} ms. Scaling efficiency (compute / iteration):")
print()
print("| device | compute | 8 @ 10 Gbps | 8 @ 100 Gbps | 64 @ 10 Gbps | 64 @ 100 Gbps |")
print("|---|---|---|---|---|---|")
eff = lambda r: 100 * float(r["compute_s"]) / float(r["iteration_time_s"])  # noqa: E731
for d, label in (("v100", "`v100` roofline"), ("h100", "`h100` roofline"), ("h100-measured", "`h100-measured`")):
    cells = [f"{float(S[(d, n, b)]['iteration_time_s']):.4f} s, {eff(S[(d, n, b)]):.1f}%"
             for n in (8, 64) for b in ("10Gbps", "100Gbps")]
    print(f"| {label} | {1e3 * comp[d]:.1f} ms | " + " | ".join(cells) + " |")
P = {(r["device"], r["platform.bandwidth"], r["method"]): float(r["iteration_time_s"]) for r in rows("pays")}
print()
print("When compression pays, 64 H100s (iteration time; speed-up over uncompressed):")
print()
print("| method | 10 Gbps roofline | 10 Gbps measured | 100 Gbps roofline | 100 Gbps measured |")
print("|---|---|---|---|---|")
names = [("none", "none (ring)"), ("fp16", "fp16 (ring)"), ("marsit", "Marsit (reconstructed compensation, ring)"),
         ("topk-allgather", "top-k 1% (ring all-gather)")]
for k, label in names:
    cells = []
    for b in ("10Gbps", "100Gbps"):
        for d in ("h100", "h100-measured"):
            t = P[(d, b, k)]
            if k == "none":
                cells.append(f"{t:.4f} s")
            else:
                sp = P[(d, b, "none")] / t
                cells.append(f"{t:.4f} s, " + (f"**{sp:.2f}×**" if sp < 1 else f"{sp:.2f}×"))
    print(f"| {label} | " + " | ".join(cells) + " |")
M = {}
for r in rows("mergecomp"):
    s = json.load(open(os.path.join(W, "mergecomp", r["point"], "summary.json")))
    t = s["schedule"]["best_time_s"] if r["schedule.kind"] == "mergecomp" else float(r["iteration_time_s"])
    M[(r["compressor"], r["device"], r["schedule.kind"])] = (t, float(r["compress_s"]))
print()
print("MergeComp, 16 H100s at 10 Gbps, ring all-gather (MergeComp: the best iteration its search measured):")
print()
print("| compressor | device | layer-wise | single | DDP buckets | MergeComp | MergeComp over layer-wise | single over layer-wise |")
print("|---|---|---|---|---|---|---|---|")
gain, gain1 = {}, {}
for c, label in (("topk", "top-k 1% + residual"), ("ef-signsgd", "EF-signSGD")):
    for d, dl in (("h100", "`h100` roofline"), ("h100-measured", "`h100-measured`")):
        t = {k: M[(c, d, k)][0] for k in ("layerwise", "single", "buckets", "mergecomp")}
        gain[(c, d)] = t["layerwise"] / t["mergecomp"]
        gain1[(c, d)] = t["layerwise"] / t["single"]
        print(f"| {label} | {dl} | " + " | ".join(f"{t[k]:.4f} s" for k in ("layerwise", "single", "buckets", "mergecomp"))
              + f" | {gain[(c, d)]:.2f}× | {t['layerwise'] / t['single']:.2f}× |")
eff8 = {d: eff(S[(d, 8, "10Gbps")]) for d in ("h100", "h100-measured")}
m100 = {k: P[("h100-measured", "100Gbps", "none")] / P[("h100-measured", "100Gbps", k)] for k, _ in names[1:]}
short = {"fp16": "fp16", "marsit": "Marsit", "topk-allgather": "top-k over all-gather"}
pays = [short[k] for k, v in m100.items() if v > 1.005]
mars = {d: P[(d, "10Gbps", "none")] / P[(d, "10Gbps", "marsit")] for d in ("h100", "h100-measured")}
rng = lambda d: f"{min(gain[(c, d)] for c in ('topk', 'ef-signsgd')):.1f}–{max(gain[(c, d)] for c in ('topk', 'ef-signsgd')):.1f}×"  # noqa: E731
rng1 = lambda d: f"{min(gain1[(c, d)] for c in ('topk', 'ef-signsgd')):.1f}–{max(gain1[(c, d)] for c in ('topk', 'ef-signsgd')):.1f}×"  # noqa: E731
print()
print(f"What changed, and why: (1) compute is {comp['h100-measured'] / comp['h100']:.1f}× the roofline's, so communication "
      f"hides behind a longer backward and scaling looks better on the real device ({eff8['h100-measured']:.1f}% instead of "
      f"{eff8['h100']:.1f}% on 8 GPUs at 10 Gbps); (2) a compression call costs what PyTorch pays per call, not a fused "
      "kernel at full bandwidth, and Marsit's ring pays one combine per hop: on the measured H100 at 100 Gbps "
      + ("no compressor pays (" if not pays else f"only {', '.join(pays)} pays (")
      + ", ".join(f"{short[k]} " + f"{100 * (v - 1):+.0f}%".replace("-", "−") for k, v in m100.items())
      + f"), and at 10 Gbps Marsit's gain falls from {mars['h100']:.1f}× to {mars['h100-measured']:.1f}×; (3) layer-wise "
      f"compression pays 161 calls of that per-call cost ({1e3 * M[('topk', 'h100-measured', 'layerwise')][1]:.0f} ms of "
      f"top-k per iteration), so MergeComp's gain over it grows from {rng('h100')} to {rng('h100-measured')} (one buffer alone: "
      f"{rng1('h100')} to {rng1('h100-measured')}): the per-call cost, not the network, is what MergeComp's 3.83× rests on.")
PY
