#!/usr/bin/env python3
"""Convergence of trained ccsim runs (gradients.source "train").

Reads each result directory's summary.json and iterations.csv (the columns
test_accuracy, test_loss and time_s; simulated time is the running sum of
time_s, so an iteration's point sits at the simulated time it ended).

  plot_convergence.py curves DIR... -o curves.png
      test accuracy against iteration (left) and against simulated time
      (right), one line per run
  plot_convergence.py tta --speed LABEL DIR... [--speed LABEL DIR...]...
                      [--target ACC] -o tta.png
      simulated time to reach the target test accuracy, per method, one bar
      group per network speed (the same workloads run with, e.g.,
      --set platform.bandwidth=1Gbps and =100Gbps); a method that never
      reaches it is marked "not reached"
  plot_convergence.py table [--target ACC] DIR...
      a Markdown table, one row per method (runs of one method, e.g. seeds,
      side by side): final accuracy, mean accuracy over the last 50
      evaluations, that mean minus the uncompressed run's with the same
      seed, workers and platform (a paired difference: the seeds' spread
      cancels), iterations and simulated time to the target, total
      simulated time

  plot_convergence.py matrix [--json CLAIMS.json] DIR...
      the study's summary: one Markdown table per sharding (iid, noniid),
      a row per method, a column per worker count, each cell the paired
      difference to uncompressed (last-50 accuracy, points) with its 95%
      t-interval over the seeds and the claim it supports; then Marsit
      minus the naive sign ring, paired the same way. --json writes every
      cell (mean, lo, hi, n, claim) for tests

The target defaults to the final accuracy of the uncompressed run among the
directories (compressor "none") minus one point (0.01); without one, to the
runs' train.target_accuracy.  Run through analysis/py (needs matplotlib).
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ccsim  # noqa: E402


class Run:
    def __init__(self, d):
        self.dir = d
        run = ccsim.load_run(d)
        self.summary = run.summary
        if "final_accuracy" not in self.summary:
            sys.exit(f"{d}: not a training run (gradients.source \"train\"): no final_accuracy")
        name = self.summary.get("name", os.path.basename(os.path.normpath(d)))
        self.label = name[5:] if name.startswith("conv-") else name
        it = run.iterations
        ev = it[it["test_accuracy"].notna()]
        self.it = (ev["iteration"] + 1).to_list()  # updates applied
        self.time = ev["end_s"].to_list()
        self.acc = ev["test_accuracy"].to_list()
        self.sim_time = float(it["time_s"].sum())

    def tail_accuracy(self, k=50):
        """Mean test accuracy over the evaluations of the last k iterations
        (every evaluation there, whatever train.eval_every): one final
        accuracy moves by a whole test sample, this moves less."""
        if not self.it:
            return math.nan
        last = self.it[-1]
        tail = [a for i, a in zip(self.it, self.acc) if i > last - k]
        return sum(tail) / len(tail)

    def reached(self, target):
        """(iterations, simulated seconds) when test accuracy first >= target, or None."""
        for i, a in enumerate(self.acc):
            if a >= target:
                return self.it[i], self.time[i]
        return None


def default_target(runs):
    none = [r.summary["final_accuracy"] for r in runs if r.summary.get("compressor") == "none"]
    if none:
        return sum(none) / len(none) - 0.01
    return runs[0].summary.get("target_accuracy", 0.95)


def load(dirs):
    if not dirs:
        sys.exit("no result directories given")
    return [Run(d) for d in dirs]


def curves(args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = load(args.dirs)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for r in runs:
        a1.plot(r.it, r.acc, label=ccsim.shown(r.label), lw=1.2)
        a2.plot([t * 1e3 for t in r.time], r.acc, label=ccsim.shown(r.label), lw=1.2)
    for ax, x in ((a1, "iteration"), (a2, "simulated time (ms)")):
        ax.set_xlabel(x)
        ax.set_ylabel("test accuracy")
        ax.grid(alpha=0.3)
        ax.set_ylim(max(0.0, min(min(r.acc) for r in runs) - 0.02), 1.0)
    a2.set_xscale("log")
    a1.legend(fontsize=8, loc="lower right")
    s = runs[0].summary
    fig.suptitle(f"{s['workers']} workers: test accuracy of the model trained with each aggregate")
    fig.tight_layout()
    fig.savefig(args.o or os.path.join(first_dir(args), f"convergence_{args.cmd}.png"), dpi=120)


def tta(args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    groups = [(g[0], load(g[1:])) for g in args.speed]
    allruns = [r for _, rs in groups for r in rs]
    target = args.target if args.target is not None else default_target(allruns)
    methods = []
    for _, rs in groups:
        for r in rs:
            if r.label not in methods:
                methods.append(r.label)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(methods) + 1.5), 4.5))
    width = 0.8 / len(groups)
    x = np.arange(len(methods))
    top = 0.0
    for k, (speed, rs) in enumerate(groups):
        by = {r.label: r for r in rs}
        vals = []
        for m in methods:
            hit = by[m].reached(target) if m in by else None
            vals.append(hit[1] * 1e3 if hit else math.nan)
        top = max([top] + [v for v in vals if not math.isnan(v)])
        bars = ax.bar(x + (k - (len(groups) - 1) / 2) * width, [0 if math.isnan(v) else v for v in vals],
                      width, label=speed)
        for b, v in zip(bars, vals):
            if math.isnan(v):
                ax.text(b.get_x() + b.get_width() / 2, 0, "not\nreached", ha="center", va="bottom",
                        fontsize=7, rotation=90)
    ax.set_xticks(x)
    ax.set_xticklabels(methods, rotation=20)
    ax.set_ylabel(f"simulated time to test accuracy {target:.4f} (ms)")
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.legend(title="link bandwidth")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.o or os.path.join(first_dir(args), f"convergence_{args.cmd}.png"), dpi=120)


def first_dir(args):
    """Where a figure goes without -o: beside the first run given."""
    return args.dirs[0] if args.cmd == "curves" else args.speed[0][1]


def setting(s):
    """The tuned knobs of a run, from its resolved experiment."""
    x = s.get("experiment", {})
    o = x.get("train", {}).get("optimizer", {})
    out = f"lr {o.get('lr', '?'):g}, momentum {o.get('momentum', 0):g}"
    mem = x.get("compressor", {}).get("memory") if isinstance(x.get("compressor"), dict) else None
    if isinstance(mem, dict) and "eta" in mem:
        out += f", eta {mem['eta']:g}"
    if isinstance(mem, dict) and "beta" in mem:
        out += f", beta {mem['beta']:g}"
    return out


def pairing(r):
    """What a run is paired on with its uncompressed twin: the seed, the
    workers and the platform."""
    x = r.summary.get("experiment", {})
    return (x.get("seed"), r.summary.get("workers"), json.dumps(x.get("platform"), sort_keys=True))


# t_{0.975, df}: the two-sided 95% quantile of Student's t (standard tables);
# a df between the listed ones takes the next smaller listed df, which is
# conservative (a wider interval).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000,
        120: 1.980}


def t975(df):
    return T975[max(k for k in T975 if k <= df)]


def paired_ci(diffs):
    """Mean of paired differences and its 95% t-interval over the pairs:
    mean +- t_{0.975, n-1} s / sqrt(n), s the sample standard deviation.
    (mean, lo, hi); lo and hi are nan with fewer than 2 pairs."""
    n = len(diffs)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.nan, math.nan
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def verdict(lo, hi):
    """The claim an interval supports: above or below zero, or none."""
    if math.isnan(lo):
        return "-"
    return "better" if lo > 0 else "worse" if hi < 0 else "n.s."


def table(args):
    """One row per method; runs of the same method (e.g. seeds) are listed in
    order, their final accuracies summarised as mean (min-max)."""
    runs = load(args.dirs)
    target = args.target if args.target is not None else default_target(runs)
    groups = {}
    for r in runs:
        groups.setdefault(r.label, []).append(r)
    n = max(len(g) for g in groups.values())
    print(f"target test accuracy: {target:.4f}; {n} run(s) per method, listed in the order given\n")
    print("| method | compressor + memory | collective | setting | compression ratio | "
          "final accuracy, mean (min-max) | last-50 accuracy, mean | last-50 minus uncompressed, "
          "same seed, mean (min-max), points | paired difference, 95% CI (t over seeds), points | "
          "claim | iterations to target | simulated ms to target | simulated ms, all iterations |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, g in groups.items():
        s = g[0].summary
        accs = [r.summary["final_accuracy"] for r in g]
        acc = f"{sum(accs) / len(accs):.4f}" + (f" ({min(accs):.4f}-{max(accs):.4f})" if len(g) > 1 else "")
        tail = sum(r.tail_accuracy() for r in g) / len(g)
        gaps = contrast(g, [r for r in runs if r.summary.get("compressor") == "none"])
        gap = (f"{sum(gaps) / len(gaps):+.2f}" + (f" ({min(gaps):+.2f} to {max(gaps):+.2f})"
                                                   if len(gaps) > 1 else "")) if gaps else "-"
        mean, lo, hi = paired_ci(gaps)
        ci = f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}]" if not math.isnan(lo) else "-"
        claim = verdict(lo, hi) if s["compressor"] != "none" else "-"
        hits = [r.reached(target) for r in g]
        its = " / ".join(str(h[0]) if h else "never" for h in hits)
        ms = " / ".join(f"{h[1] * 1e3:.2f}" if h else "-" for h in hits)
        total = " / ".join(f"{r.sim_time * 1e3:.1f}" for r in g)
        # null when nothing was sent (summary.json's "undefined" says why)
        ratio = "n/a" if s.get("compression_ratio") is None else f"{s['compression_ratio']:.1f}"
        print(f"| {ccsim.shown(label)} | {s['compressor']} + {s.get('memory', 'none')} | {s['collective']} | "
              f"{setting(s)} | {ratio} | {acc} | {tail:.4f} | {gap} | {ci} | {claim} | {its} | {ms} | "
              f"{total} |")


def shards(r):
    return r.summary.get("experiment", {}).get("train", {}).get("shards", "iid")


def contrast(a, b):
    """Paired differences a - b (last-50 accuracy, points) over the pairs
    (seed, workers, platform) both lists hold, in a's order; table() and
    matrix() both pair through it (b: the uncompressed runs, or another
    method's)."""
    bb = {pairing(r): r for r in b}
    return [100 * (r.tail_accuracy() - bb[pairing(r)].tail_accuracy()) for r in a if pairing(r) in bb]


def matrix(args):
    """Runs grouped by sharding, workers and method; each cell a paired
    interval against uncompressed over the seeds."""
    runs = load(args.dirs)
    cells = {}
    for r in runs:
        cells.setdefault(shards(r), {}).setdefault(r.label, {}).setdefault(r.summary["workers"], []).append(r)
    out = {}
    for sh in sorted(cells):
        methods = cells[sh]
        none = [lab for lab, by in methods.items() if next(iter(by.values()))[0].summary["compressor"] == "none"]
        if len(none) != 1:
            sys.exit(f"matrix: {sh}: expected one uncompressed method, found {none or 'none'}")
        ws = sorted({w for by in methods.values() for w in by})
        print(f"\n**{sh}** — last-50 test accuracy minus uncompressed (same seed, workers, platform), "
              "points: mean [95% t-interval over the seeds]; claim where the interval excludes zero\n")
        print("| method | " + " | ".join(f"{w} workers" for w in ws) + " |")
        print("|---|" + "---|" * len(ws))
        base = methods[none[0]]
        acc = " | ".join(f"{sum(r.tail_accuracy() for r in base[w]) / len(base[w]):.4f} (n={len(base[w])})"
                         if w in base else "-" for w in ws)
        print(f"| {none[0]} (last-50 accuracy) | {acc} |")
        out[sh] = {}
        pairs = [(lab, by, base) for lab, by in methods.items() if lab != none[0]]
        lab_m = next((lab for lab in methods if lab.endswith("marsit")), None)
        lab_s = next((lab for lab in methods if lab.endswith("sign-ring")), None)
        if lab_m and lab_s:
            pairs.append((f"{lab_m} minus {lab_s}", methods[lab_m], methods[lab_s]))
        for lab, by, ref in pairs:
            row = []
            out[sh][lab] = {}
            for w in ws:
                d = contrast(by.get(w, []), ref.get(w, []))
                mean, lo, hi = paired_ci(d)
                if not d:
                    row.append("-")
                    continue
                v = verdict(lo, hi)
                out[sh][lab][str(w)] = {"mean": mean, "lo": None if math.isnan(lo) else lo,
                                        "hi": None if math.isnan(hi) else hi, "n": len(d), "claim": v}
                row.append(f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}] {v}" if not math.isnan(lo) else f"{mean:+.2f}")
            print(f"| {ccsim.shown(lab)} | " + " | ".join(row) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True, allow_nan=False)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("curves")
    c.add_argument("dirs", nargs="+")
    c.add_argument("-o", help="the image (default: beside the first run, convergence_curves.png)")
    t = sub.add_parser("tta")
    t.add_argument("--speed", nargs="+", action="append", required=True, metavar="LABEL DIR",
                   help="a network speed's label, then its result directories")
    t.add_argument("--target", type=float)
    t.add_argument("-o", help="the image (default: beside the first run, convergence_tta.png)")
    b = sub.add_parser("table")
    b.add_argument("dirs", nargs="+")
    b.add_argument("--target", type=float)
    x = sub.add_parser("matrix")
    x.add_argument("dirs", nargs="+")
    x.add_argument("--json", help="write every cell to this file")
    args = p.parse_args()
    if args.cmd == "tta" and any(len(g) < 2 for g in args.speed):
        p.error("--speed LABEL DIR...: a label and at least one directory")
    {"curves": curves, "tta": tta, "table": table, "matrix": matrix}[args.cmd](args)


if __name__ == "__main__":
    ccsim.run_main(main, "plot_convergence.py")
