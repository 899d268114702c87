#!/usr/bin/env python3
"""workloads/papers/marsit/analyze.py OUT — the tables, claims and figures
of the Marsit study from OUT/wW/seedS/METHOD (run.sh).

Per worker count: each method's last-50 test accuracy (analysis/
plot_convergence.py) and its paired difference to fp32-ring with the same
seed (95% t-interval over the seeds; a claim only where it excludes zero);
Marsit (ring) minus the naive sign ring, paired the same way; simulated time
per iteration; simulated time to two targets: "same accuracy" = the fp32
runs' mean final accuracy minus one point, and "common" = the highest
hundredth every run of the worker count reaches; the time saved against
fp32 on the same topology (fp32-ring for the ring methods, fp32-torus for
marsit-torus) = 1 - mean time of the method / mean time of that fp32 over
the seeds where both reach the target. Writes OUT/table.md, OUT/claims.json and
OUT/curves-W.png."""
import glob
import json
import math
import os
import sys

SRC = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(SRC, "analysis"))
from plot_convergence import Run, paired_ci, verdict  # noqa: E402

METHODS = ["fp32-ring", "fp32-torus", "marsit-ring", "marsit-torus", "sign-ring"]
# the baseline each method's time is compared with: fp32 on the same topology
BASE = {"fp32-ring": "fp32-ring", "fp32-torus": "fp32-torus", "marsit-ring": "fp32-ring",
        "marsit-torus": "fp32-torus", "sign-ring": "fp32-ring"}


def no_nan(x):
    """x with every NaN float replaced by None (JSON has no NaN)."""
    if isinstance(x, dict):
        return {k: no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [no_nan(v) for v in x]
    return None if isinstance(x, float) and math.isnan(x) else x


def load(wdir):
    """{method: {seed: Run}} of one worker count."""
    runs = {m: {} for m in METHODS}
    for sd in sorted(x for x in glob.glob(os.path.join(wdir, "seed*")) if os.path.isdir(x)):
        seed = int(os.path.basename(sd)[4:])
        for m in METHODS:
            d = os.path.join(sd, m)
            if os.path.exists(os.path.join(d, "summary.json")):
                runs[m][seed] = Run(d)
    return runs


def saved(runs, m, target, base):
    """(fraction of base's time saved, seeds where both reached, method's
    reached count, mean ms of method, mean ms of base) at target."""
    both = []
    hit = 0
    for seed, r in runs[m].items():
        a = r.reached(target)
        b = runs[base][seed].reached(target) if seed in runs[base] else None
        hit += a is not None
        if a and b:
            both.append((a[1], b[1]))
    if not both:
        return math.nan, 0, hit, math.nan, math.nan
    tm = sum(x for x, _ in both) / len(both)
    tf = sum(y for _, y in both) / len(both)
    return 1 - tm / tf, len(both), hit, 1e3 * tm, 1e3 * tf


def analyse(wdir):
    runs = load(wdir)
    if not runs["fp32-ring"]:
        sys.exit(f"{wdir}: no fp32-ring runs")
    fp = runs["fp32-ring"]
    same = sum(r.summary["final_accuracy"] for r in fp.values()) / len(fp) - 0.01
    allr = [r for m in METHODS for r in runs[m].values()]
    common = math.floor(100 * min(max(r.acc) for r in allr)) / 100
    res = {"targets": {"same": same, "common": common}, "methods": {}}
    for m in METHODS:
        rs = runs[m]
        if not rs:
            continue
        diffs = [r.tail_accuracy() - fp[s].tail_accuracy() for s, r in rs.items() if s in fp]
        mean, lo, hi = paired_ci(diffs)
        e = {"seeds": sorted(rs), "tail_accuracy": sum(r.tail_accuracy() for r in rs.values()) / len(rs),
             "final_accuracy": sum(r.summary["final_accuracy"] for r in rs.values()) / len(rs),
             "ms_per_iteration": 1e3 * sum(r.sim_time / r.summary["iterations"] for r in rs.values()) / len(rs),
             "diff": mean, "lo": lo, "hi": hi, "verdict": verdict(lo, hi)}
        for tname, t in (("same", same), ("common", common)):
            f, n, hit, tm, tf = saved(runs, m, t, BASE[m])
            e[f"saved_{tname}"] = f
            e[f"pairs_{tname}"] = n
            e[f"reached_{tname}"] = hit
            e[f"ms_to_{tname}"] = tm
            e[f"fp32_ms_to_{tname}"] = tf
        res["methods"][m] = e
    ms, sg = runs["marsit-ring"], runs["sign-ring"]
    d = [ms[s].tail_accuracy() - sg[s].tail_accuracy() for s in ms if s in sg]
    mean, lo, hi = paired_ci(d)
    res["marsit_minus_sign_ring"] = {"diff": mean, "lo": lo, "hi": hi, "verdict": verdict(lo, hi)}
    any_run = next(iter(fp.values()))
    res["iterations"] = any_run.summary["iterations"]
    return runs, res


def pct(x):
    return "-" if math.isnan(x) else f"{100 * x:+.1f}%"


def table(w, res):
    t = res["targets"]
    n = len(res["methods"]["fp32-ring"]["seeds"])
    lines = [f"### {w} workers ({res['iterations']} iterations, {n} seeds)", "",
             "| method | last-50 accuracy, mean | paired difference to fp32, points, 95% CI | claim | "
             "simulated ms per iteration | time saved vs fp32 on the same topology at the same accuracy "
             f"({t['same']:.4f}; seeds reached) | time saved vs fp32 on the same topology at {t['common']:.2f} "
             "(seeds reached) |",
             "|---|---|---|---|---|---|---|"]
    for m, e in res["methods"].items():
        ci = "-" if m == "fp32-ring" else f"{100 * e['diff']:+.2f} [{100 * e['lo']:+.2f}, {100 * e['hi']:+.2f}]"
        shown = f"{m} (reconstructed compensation)" if m.startswith("marsit") else m
        lines.append(f"| {shown} | {e['tail_accuracy']:.4f} | {ci} | {'-' if m == 'fp32-ring' else e['verdict']} | "
                     f"{e['ms_per_iteration']:.3f} | {pct(e['saved_same'])} ({e['reached_same']}/{len(e['seeds'])}) | "
                     f"{pct(e['saved_common'])} ({e['reached_common']}/{len(e['seeds'])}) |")
    x = res["marsit_minus_sign_ring"]
    lines += ["", f"Marsit (reconstructed compensation, ring) minus the naive sign ring, paired by seed: {100 * x['diff']:+.2f} points "
              f"[{100 * x['lo']:+.2f}, {100 * x['hi']:+.2f}] ({x['verdict']})."]
    lines.append("")
    return "\n".join(lines)


def curves(out, w, runs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for m in METHODS:
        rs = list(runs[m].values())
        if not rs:
            continue
        k = min(len(r.acc) for r in rs)
        acc = [sum(r.acc[i] for r in rs) / len(rs) for i in range(k)]
        lab = f"{m} (reconstructed compensation)" if m.startswith("marsit") else m
        a1.plot(rs[0].it[:k], acc, label=lab)
        a2.plot([1e3 * sum(r.time[i] for r in rs) / len(rs) for i in range(k)], acc, label=lab)
    for ax, x in ((a1, "iteration"), (a2, "simulated time (ms)")):
        ax.set_xlabel(x)
        ax.set_ylabel(f"test accuracy, mean over {len(runs['fp32-ring'])} seeds")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(f"Fashion-MNIST LeNet-5, {w} workers, cloud network 10 Gbps")
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"curves-{w}.png"), dpi=120)


def main():
    out = sys.argv[1]
    claims = {}
    text = []
    for wdir in sorted(glob.glob(os.path.join(out, "w*")), key=lambda p: int(os.path.basename(p)[1:])):
        if not os.path.isdir(wdir):
            continue
        w = int(os.path.basename(wdir)[1:])
        runs, res = analyse(wdir)
        claims[str(w)] = res
        text.append(table(w, res))
        curves(out, w, runs)
    if not claims:
        sys.exit(f"{out}: no wW result directories")
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(text))
    with open(os.path.join(out, "claims.json"), "w") as f:
        json.dump(no_nan(claims), f, indent=1, sort_keys=True)
        f.write("\n")
    print("\n".join(text))


if __name__ == "__main__":
    main()
