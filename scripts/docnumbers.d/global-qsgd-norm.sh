# numbers: full
# workloads/papers/global-qsgd/README.md "The QSGD baseline's norm": QSGD
# with norm l2 (the QSGD paper's) against norm max (the reference code's
# qsgd_hook: each worker's local max |x|), 127 levels, all-gather, beside fp32
# and Global-QSGD 8-bit (ring), on LeNet-5 / Fashion-MNIST trained live, 4
# workers, 60 iterations, seeds 1-5:
# `ccsim sweep workloads/papers/global-qsgd/sweep-qsgd-norm.json` (20 runs,
# about 30 CPU seconds).  The aggregation error is the mean over the 60
# iterations of iterations.csv's agg_rel_error; the interval of a difference is
# paired by seed (mean +- t(0.975, n-1) sd / sqrt(n)).
set -eu
"$CCSIM" sweep "$SRC/workloads/papers/global-qsgd/sweep-qsgd-norm.json" --out "$WORK/n" --jobs 2 --quiet >/dev/null 2>"$WORK/err" ||
  { cat "$WORK/err" >&2; exit 1; }
/usr/bin/python3 - "$WORK/n" <<'PY'
import csv, json, math, os, statistics, sys
W = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(W, "sweep.csv"))))
bad = [r["point"] for r in rows if r["status"] != "done"]
if bad:
    sys.exit(f"global-qsgd-norm: points not done: {bad}")
acc, err = {}, {}
for r in rows:
    m, s = r["method"], int(r["seed"])
    acc.setdefault(m, {})[s] = json.load(open(os.path.join(W, r["point"], "summary.json")))["final_accuracy"]
    with open(os.path.join(W, r["point"], "iterations.csv")) as f:
        e = [float(x["agg_rel_error"]) for x in csv.DictReader(f)]
    err.setdefault(m, {})[s] = statistics.mean(e)
seeds = sorted(acc["fp32-ring"])
T975 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}
def ci(d):
    m = statistics.mean(d)
    h = T975[len(d)] * statistics.stdev(d) / math.sqrt(len(d))
    return f"{m:+.3f} [{m - h:+.3f}, {m + h:+.3f}]".replace("-", "−")
names = [("fp32-ring", "fp32, ring all-reduce"), ("qsgd-l2-allgather", "QSGD, norm `l2`, all-gather"),
         ("qsgd-max-allgather", "QSGD, norm `max` (the reference hook), all-gather"),
         ("gqsgd-ring", "Global-QSGD 8-bit, ring all-reduce")]
print(f"LeNet-5 on Fashion-MNIST, 4 workers, 60 iterations, seeds {seeds[0]}–{seeds[-1]} "
      f"(mean; the interval is the 95% paired interval over seeds):")
print()
print("| method | aggregation error (relative ℓ2, mean over iterations) | test accuracy | accuracy − fp32 |")
print("|---|---|---|---|")
for k, label in names:
    e = statistics.mean(err[k][s] for s in seeds)
    a = statistics.mean(acc[k][s] for s in seeds)
    d = "—" if k == "fp32-ring" else ci([acc[k][s] - acc["fp32-ring"][s] for s in seeds])
    print(f"| {label} | {e:.3f} | {a:.3f} | {d} |")
print()
dm = [acc["qsgd-max-allgather"][s] - acc["qsgd-l2-allgather"][s] for s in seeds]
ratio = statistics.mean(err["qsgd-l2-allgather"][s] for s in seeds) / statistics.mean(err["qsgd-max-allgather"][s] for s in seeds)
dg = [acc["gqsgd-ring"][s] - acc["qsgd-max-allgather"][s] for s in seeds]
def sig(d):
    m, h = statistics.mean(d), T975[len(d)] * statistics.stdev(d) / math.sqrt(len(d))
    return "an interval that excludes 0" if abs(m) > h else "an interval that includes 0: no difference shown"
print(f"`max` over `l2`: {ratio:.1f}× less aggregation error, accuracy {ci(dm)} ({sig(dm)}); "
      f"Global-QSGD against QSGD `max`: accuracy {ci(dg)} ({sig(dg)}).")
PY
