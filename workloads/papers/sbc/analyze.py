#!/usr/bin/env python3
"""workloads/papers/sbc/analyze.py OUT — the tables, claims and figures of
the SBC study from the result directories run.sh wrote under OUT.

Traffic: a run of traffic.json has two workers that each upload their
payload once per sending iteration, so bytes_on_wire / 2 / iterations is
one worker's upstream per iteration (averaged over the m iterations of a
delay period); the fp32 reference is traffic-fp32.json's run on the same
profile. Accuracy: analysis/plot_convergence.py's last-50 accuracy and its
paired 95% t-interval against the uncompressed run of the same seed.
Writes OUT/traffic.csv, OUT/traffic.md, OUT/accuracy.md, OUT/claims.json,
OUT/traffic.png and OUT/accuracy.png."""
import glob
import json
import math
import os
import re
import sys

SRC = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(SRC, "analysis"))
import ccsim  # noqa: E402
from plot_convergence import Run, paired_ci, verdict  # noqa: E402

# The paper's headline (abstract of arXiv 1805.08768): ResNet-50 on ImageNet.
PAPER_BASELINE_X = 3531
PAPER_MINUS1_X = 37208
PAPER_FP32_TB = 125.0
PAPER_SBC_GB = 3.35


def upstream_per_iteration(d):
    """One worker's upstream bytes per iteration of a traffic run (2 workers,
    all-gather: each worker's payload crosses one link once)."""
    s = ccsim.load_run(d).summary
    if s["workers"] != 2 or s["collective"] != "allgather/ring":
        sys.exit(f"{d}: expected a 2-worker allgather/ring traffic run")
    return s["bytes_on_wire"] / 2 / s["iterations"], s


def traffic(out):
    rows = []
    fp32 = {}
    for d in sorted(x for x in glob.glob(os.path.join(out, "traffic", "*-fp32")) if os.path.isdir(x)):
        b, s = upstream_per_iteration(d)
        fp32[os.path.basename(d)[:-5]] = (b, s["elements"])
    for d in sorted(x for x in glob.glob(os.path.join(out, "traffic", "*-p*-m*")) if os.path.isdir(x)):
        m = re.match(r"(.+)-p([0-9.]+)-m([0-9]+)$", os.path.basename(d))
        model, p, delay = m.group(1), float(m.group(2)), int(m.group(3))
        b, s = upstream_per_iteration(d)
        if model not in fp32:
            sys.exit(f"{d}: no fp32 reference run {model}-fp32")
        f, elements = fp32[model]
        if b <= 0:
            sys.exit(f"{d}: no bytes on the wire")
        rows.append({"model": model, "elements": elements, "p": p, "m": delay,
                     "sbc_bytes_per_iter": b, "fp32_bytes_per_iter": f, "x": f / b,
                     "bits_per_position": 8 * b * delay / max(1.0, p * elements)})
    rows.sort(key=lambda r: (r["model"], -r["p"], r["m"]))
    return rows


def fmt_x(x):
    return f"x{x:,.0f}"


def write_traffic(out, rows):
    with open(os.path.join(out, "traffic.csv"), "w") as f:
        f.write("model,elements,p,m,sbc_bytes_per_iteration,fp32_bytes_per_iteration,ratio\n")
        for r in rows:
            f.write(f"{r['model']},{r['elements']},{r['p']},{r['m']},{r['sbc_bytes_per_iter']:.3f},"
                    f"{r['fp32_bytes_per_iter']:.0f},{r['x']:.1f}\n")
    r50 = [r for r in rows if r["model"] == "resnet50"]
    iters = None
    lines = ["| profile | p | m | SBC upstream per worker per iteration (bytes) | fp32 (bytes) | less upstream | "
             "ResNet-50: total over the paper's implied iterations |", "|---|---|---|---|---|---|---|"]
    if r50:
        # 125 TB of fp32 upstream per client = that many iterations of ResNet-50
        iters = PAPER_FP32_TB * 1e12 / r50[0]["fp32_bytes_per_iter"]
    for r in rows:
        tot = f"{r['sbc_bytes_per_iter'] * iters / 1e9:.2f} GB" if r["model"] == "resnet50" else "-"
        lines.append(f"| {r['model']} | {r['p'] * 100:g}% | {r['m']} | {r['sbc_bytes_per_iter']:,.1f} | "
                     f"{r['fp32_bytes_per_iter']:,.0f} | {fmt_x(r['x'])} | {tot} |")
    text = "\n".join(lines) + "\n"
    if iters:
        text += (f"\nThe paper's 125 TB of fp32 upstream is {iters:,.0f} iterations of ResNet-50's "
                 f"{r50[0]['fp32_bytes_per_iter']:,.0f} bytes; paper: x{PAPER_BASELINE_X:,} at baseline "
                 f"accuracy (125 TB / {PAPER_BASELINE_X:,} = {PAPER_FP32_TB * 1e3 / PAPER_BASELINE_X:.1f} GB), "
                 f"x{PAPER_MINUS1_X:,} at -1% ({PAPER_SBC_GB} GB).\n")
    with open(os.path.join(out, "traffic.md"), "w") as f:
        f.write(text)
    return iters


def accuracy(out):
    seeds = sorted(glob.glob(os.path.join(out, "train", "seed*")))
    methods = sorted({os.path.basename(d) for s in seeds for d in glob.glob(os.path.join(s, "*"))
                      if os.path.isdir(d)})
    runs = {m: [Run(os.path.join(s, m)) for s in seeds if os.path.exists(os.path.join(s, m, "summary.json"))]
            for m in methods}
    if "none" not in runs or not runs["none"]:
        sys.exit(f"{out}/train: no uncompressed runs")
    base = {r.summary["experiment"]["seed"]: r for r in runs["none"]}
    res = {}
    for m, rs in runs.items():
        diffs = [r.tail_accuracy() - base[r.summary["experiment"]["seed"]].tail_accuracy() for r in rs]
        mean, lo, hi = paired_ci(diffs)
        e = rs[0].summary["experiment"]
        res[m] = {"runs": len(rs), "tail_accuracy": sum(r.tail_accuracy() for r in rs) / len(rs),
                  "final_accuracy": sum(r.summary["final_accuracy"] for r in rs) / len(rs),
                  "bytes_per_run": sum(r.summary["bytes_on_wire"] for r in rs) / len(rs),
                  "diff": mean, "lo": lo, "hi": hi, "verdict": verdict(lo, hi),
                  "iterations": e["iterations"], "workers": e["workers"],
                  "seeds": [r.summary["experiment"]["seed"] for r in rs]}
    return runs, res


def write_accuracy(out, res):
    lines = ["| method | runs (seeds) | last-50 test accuracy, mean | final accuracy, mean | bytes on the wire per run | "
             "less traffic than fp32 | paired difference to uncompressed, points, 95% CI | claim |",
             "|---|---|---|---|---|---|---|---|"]
    fb = res["none"]["bytes_per_run"]
    for m in sorted(res, key=lambda k: (k != "none", k)):
        r = res[m]
        ci = "-" if m == "none" else f"{100 * r['diff']:+.2f} [{100 * r['lo']:+.2f}, {100 * r['hi']:+.2f}]"
        lines.append(f"| {m} | {r['runs']} ({' '.join(map(str, r['seeds']))}) | {r['tail_accuracy']:.4f} | "
                     f"{r['final_accuracy']:.4f} | {r['bytes_per_run']:,.0f} | {fmt_x(fb / r['bytes_per_run'])} | "
                     f"{ci} | {'-' if m == 'none' else r['verdict']} |")
    r = res["none"]
    text = "\n".join(lines) + (f"\n\n{r['workers']} workers, {r['iterations']} iterations; bytes on the wire "
                               "of the 8-worker ring all-reduce (fp32) and ring all-gather (SBC).\n")
    with open(os.path.join(out, "accuracy.md"), "w") as f:
        f.write(text)


def figures(out, rows, runs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if rows:
        fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(rows) + 2), 4.5))
        labels = [f"{r['model']}\np {r['p'] * 100:g}%\nm {r['m']}" for r in rows]
        ax.bar(range(len(rows)), [r["x"] for r in rows], color="tab:blue")
        ax.set_yscale("log")
        ax.axhline(PAPER_BASELINE_X, color="tab:green", ls="--", label=f"paper x{PAPER_BASELINE_X:,} (baseline acc.)")
        ax.axhline(PAPER_MINUS1_X, color="tab:red", ls="--", label=f"paper x{PAPER_MINUS1_X:,} (-1%)")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("fp32 upstream / SBC upstream (ccsim wire bytes)")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "traffic.png"), dpi=120)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for m, rs in sorted(runs.items()):
        if not rs:
            continue
        n = min(len(r.acc) for r in rs)
        ax.plot(rs[0].it[:n], [sum(r.acc[i] for r in rs) / len(rs) for i in range(n)], label=f"{m} ({len(rs)} seeds)")
    ax.set_xlabel("iteration")
    ax.set_ylabel("test accuracy, mean over seeds")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "accuracy.png"), dpi=120)


def no_nan(x):
    """x with every NaN float replaced by None (JSON has no NaN)."""
    if isinstance(x, dict):
        return {k: no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [no_nan(v) for v in x]
    return None if isinstance(x, float) and math.isnan(x) else x


def main():
    out = sys.argv[1]
    rows = traffic(out)
    iters = write_traffic(out, rows)
    runs, res = accuracy(out)
    write_accuracy(out, res)
    figures(out, rows, runs)
    by = {f"{r['model']}-p{r['p']:g}-m{r['m']}": r for r in rows}
    claims = {"traffic": by, "resnet50_implied_iterations": iters, "accuracy": res,
              "paper": {"baseline_x": PAPER_BASELINE_X, "minus1_x": PAPER_MINUS1_X}}
    with open(os.path.join(out, "claims.json"), "w") as f:
        json.dump(no_nan(claims), f, indent=1, sort_keys=True)
        f.write("\n")
    print(open(os.path.join(out, "traffic.md")).read())
    print(open(os.path.join(out, "accuracy.md")).read())


if __name__ == "__main__":
    main()
