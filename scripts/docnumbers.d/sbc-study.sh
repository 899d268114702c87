# numbers: full
# workloads/papers/sbc/README.md "Results" and "The claims": the whole study
# (bash workloads/papers/sbc/run.sh: upstream traffic of resnet50 at m = 1,
# 10, 100, lstm at m = 1, 10 and vgg16 at m = 1, both p; LeNet-5 /
# Fashion-MNIST, per-layer SBC at p = 1% and 0.1%, m = 10, seeds 4-6, 200
# iterations), its traffic and accuracy tables and the claims' numbers.
# About 10 CPU minutes (the ResNet-50 m = 100 runs are most of it).
set -eu
P="$SRC/workloads/papers/sbc"
JOBS=2 bash "$P/run.sh" "$CCSIM" "$WORK/out" >"$WORK/log" 2>&1 || { tail -20 "$WORK/log" >&2; exit 1; }
/usr/bin/python3 - "$WORK/out" "$SRC/analysis" <<'PY'
import json, math, os, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from plot_convergence import Run, paired_ci, verdict  # noqa: E402
C = json.load(open(os.path.join(out, "claims.json")))
T, A = C["traffic"], C["accuracy"]
print("#### (a) Upstream traffic (`traffic.md`)")
print()
print(open(os.path.join(out, "traffic.md")).read().rstrip())
print()
r = T["resnet50-p0.001-m1"]
b = r["sbc_bytes_per_iter"]
# expected from the Golomb table (11.50 bits per position) over ResNet-50's 161
# tensors' ceil(p n) = 25,670 positions, plus a 4-byte mean per tensor: 37,545
print(f"Measured: ResNet-50 at p = 0.1%, m = 1 uploads {b:,.0f} bytes ({r['bits_per_position']:.2f} bits per kept "
      f"coordinate of p·n), against the 37,545 expected below ({100 * (b / 37545 - 1):+.2f}%). The delay divides "
      f"the upstream by m: x{T['resnet50-p0.01-m1']['x']:,.0f} → x{T['resnet50-p0.01-m10']['x']:,.0f} → "
      f"x{T['resnet50-p0.01-m100']['x']:,.0f} at p = 1% (ratios {T['resnet50-p0.01-m10']['x'] / T['resnet50-p0.01-m1']['x']:.3f} "
      f"and {T['resnet50-p0.01-m100']['x'] / T['resnet50-p0.01-m1']['x']:.1f}).")
print()
print("#### (b) Accuracy on LeNet-5 / Fashion-MNIST, per-layer SBC (`accuracy.md`)")
print()
print(open(os.path.join(out, "accuracy.md")).read().rstrip())
print()
# the same runs at iteration 100 (their first 100 iterations: the trajectory does not
# depend on the run's length), paired the same way
seeds = sorted(A["none"]["seeds"])
def tail_at(d, k=100):
    run = Run(d)
    pts = [(i, a) for i, a in zip(run.it, run.acc) if i <= k]
    tail = [a for i, a in pts if i > pts[-1][0] - 50]
    return sum(tail) / len(tail)
half = []
for m in sorted(x for x in A if x != "none"):
    d = [tail_at(os.path.join(out, "train", f"seed{s}", m)) - tail_at(os.path.join(out, "train", f"seed{s}", "none"))
         for s in seeds]
    mean, lo, hi = paired_ci(d)
    half.append(f"{m} {100 * mean:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]")
print("The same runs at iteration 100 (last-50 accuracy over iterations 51-100, paired the same way): "
      + "; ".join(half) + ".")
print()
ci = lambda m: f"{100 * A[m]['diff']:+.2f} [{100 * A[m]['lo']:+.2f}, {100 * A[m]['hi']:+.2f}] points ({A[m]['verdict']})"
x = lambda k: f"x{T[k]['x']:,.0f}"
gb = lambda k: f"{T[k]['sbc_bytes_per_iter'] * C['resnet50_implied_iterations'] / 1e9:.2f} GB"
a1, a01 = "sbc-p0.01-m10", "sbc-p0.001-m10"
print("| claim | paper's number (source) | ccsim's number |")
print("|---|---|---|")
print(f"| less upstream at baseline accuracy, ResNet-50 / ImageNet | x3,531 (abstract, arXiv 1805.08768): 125 TB -> 35.4 GB | "
      f"traffic: {x('resnet50-p0.01-m10')} at p = 1%, m = 10 ({gb('resnet50-p0.01-m10')} over the paper's "
      f"{C['resnet50_implied_iterations'] / 1e6:.2f} M implied iterations); {x('resnet50-p0.001-m1')} at p = 0.1%, m = 1. "
      f"Accuracy: SBC at p = 1%, m = 10 on LeNet-5 minus the baseline: {ci(a1)} |")
print(f"| less upstream at -1% accuracy, ResNet-50 / ImageNet | x37,208 (abstract): 125 TB -> 3.35 GB per client | "
      f"traffic: {x('resnet50-p0.01-m100')} at p = 1%, m = 100 ({gb('resnet50-p0.01-m100')}); {x('resnet50-p0.001-m10')} "
      f"at p = 0.1%, m = 10 ({gb('resnet50-p0.001-m10')}). Accuracy at p = 0.1%, m = 10 on LeNet-5: {ci(a01)} |")
print(f"| more than four orders of magnitude on CNNs and RNNs | \"more than four orders of magnitude\" (abstract), ResNet-50, VGG, LSTM | "
      f"{x('resnet50-p0.001-m10')} (ResNet-50) and {x('lstm-p0.001-m10')} (PTB LSTM) at p = 0.1%, m = 10; "
      f"{x('resnet50-p0.001-m100')} at p = 0.1%, m = 100 (ResNet-50); VGG-16 {x('vgg16-p0.001-m1')} at m = 1 |")
print(f"| the delay multiplies the saving by m | communication delay trades against sparsity (abstract) | "
      f"x{T['resnet50-p0.01-m10']['x'] / T['resnet50-p0.01-m1']['x']:.3f} at m = 10 and "
      f"x{T['resnet50-p0.01-m100']['x'] / T['resnet50-p0.01-m1']['x']:.1f} at m = 100 (p = 1%) |")
print(f"| accuracy trade-off between gradient and temporal sparsity | \"without significantly harming the convergence "
      f"speed in terms of forward-backward passes\" (abstract) | LeNet-5, {A['none']['iterations']} iterations, per-layer "
      f"SBC: 1% / m 10 {ci(a1)}, 0.1% / m 10 {ci(a01)} (paired 95% intervals, table (b)) |")
PY
