"""workloads/papers/mergecomp/analyze.py COMPRESSED BASELINES OUT — MergeComp's
speedups and scaling factors from the two sweeps of run.sh.

Reads the sweep of compressed runs (axes model, platform, device, compressor,
schedule) and the baselines (axes model, device, setup: fp32-pcie, fp32-nvlink,
one-gpu), and writes into OUT:
  table.csv     one row per model, platform, device, compressor: the steady
                iteration time of each schedule with its compression and
                exposed communication seconds, MergeComp's partition and
                probes, its speedup over layer-wise / single / buckets split
                into "one call instead of L" (layer-wise over single) and what
                the partition adds (single over MergeComp), and the scaling
                factor of each schedule and of uncompressed FP32;
  numbers.json  the headline figures (what tests/papers_mergecomp.sh checks);
  speedup.png, scaling.png.
The steady iteration time is the median of the last 4 iterations: MergeComp's
search runs first, on probe iterations, and must have finished (else this
script stops with an error naming the point).  The scaling factor is the
throughput of 8 GPUs over 8 x that of one GPU alone: T(one GPU) / T(8 GPUs)
for the same batch per GPU."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "analysis"))
import ccsim  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STEADY = 4


def steady(run, where, column="time_s"):
    """The median of column over the last STEADY iterations of run."""
    it = run.iterations
    if len(it) < STEADY + 1:
        sys.exit(f"analyze.py: {where}: {len(it)} iterations, need more than {STEADY}")
    return float(it[column].tail(STEADY).median())


def main(compressed, baselines, out):
    os.makedirs(out, exist_ok=True)
    sw, bl = ccsim.load_sweep(compressed), ccsim.load_sweep(baselines)
    for s in (sw, bl):
        bad = s.points[s.points["status"] != "done"]
        if len(bad):
            sys.exit(f"analyze.py: {s.path}: {len(bad)} points not done, e.g. {bad.iloc[0]['point']}")
    base = {}
    for _, p in bl.points.iterrows():
        r = bl.run(p)
        base[(p["model"], p["device"], p["setup"])] = steady(r, p["point"])
        base[(p["model"], p["device"], p["setup"], "exposed")] = steady(r, p["point"], "exposed_communicate_s")
    times, parts, mc = {}, {}, {}
    for _, p in sw.points.iterrows():
        r = sw.run(p)
        key = (p["model"], p["platform"], p["device"], p["compressor"])
        times.setdefault(key, {})[p["schedule"]] = steady(r, p["point"])
        parts.setdefault(key, {})[p["schedule"]] = (steady(r, p["point"], "compress_s"),
                                                    steady(r, p["point"], "exposed_communicate_s"))
        if p["schedule"] == "mergecomp":
            s = r.summary["schedule"]
            if not s.get("search_finished"):
                sys.exit(f"analyze.py: {p['point']}: MergeComp's search did not finish in "
                         f"{len(r.iterations)} iterations (raise iterations)")
            mc[key] = (s["probes"], [b["layers"] for b in s["buckets"]], s.get("exhaustive"))
    rows = []
    for key in sorted(times):
        model, plat, dev, comp = key
        t = times[key]
        one = base[(model, dev, "one-gpu")]
        row = {"model": model, "platform": plat, "device": dev, "compressor": comp}
        for k, v in t.items():
            row[f"t_{k}_s"] = v
            row[f"scaling_{k}"] = one / v
            row[f"compress_{k}_s"], row[f"exposed_comm_{k}_s"] = parts[key][k]
        if "mergecomp" in t:
            row["probes"], layers, row["search_exhaustive"] = mc[key]
            row["groups"] = len(layers)
            row["groups_layers"] = "+".join(str(x) for x in layers)
            for k in ("layerwise", "single", "buckets"):
                if k in t:
                    row[f"speedup_vs_{k}"] = t[k] / t["mergecomp"]
            if "layerwise" in t and "single" in t:
                # speedup_vs_layerwise = one_call_gain x partition_gain
                row["one_call_gain"] = t["layerwise"] / t["single"]
                row["partition_gain"] = t["single"] / t["mergecomp"]
        row["t_one_gpu_s"] = one
        row["t_fp32_s"] = base[(model, dev, f"fp32-{plat}")]
        row["scaling_fp32"] = one / row["t_fp32_s"]
        row["exposed_comm_fp32_s"] = base[(model, dev, f"fp32-{plat}", "exposed")]
        rows.append(row)
    import pandas as pd

    df = pd.DataFrame(rows)
    df.to_csv(os.path.join(out, "table.csv"), index=False, float_format="%.6g")
    best = df.loc[df["speedup_vs_layerwise"].idxmax()]
    bests = df.loc[df["scaling_mergecomp"].idxmax()]
    numbers = {
        "max_speedup_vs_layerwise": float(best["speedup_vs_layerwise"]),
        "max_speedup_at": {k: best[k] for k in ("model", "platform", "device", "compressor")},
        "min_speedup_vs_layerwise": float(df["speedup_vs_layerwise"].min()),
        "max_scaling_mergecomp": float(bests["scaling_mergecomp"]),
        "max_scaling_at": {k: bests[k] for k in ("model", "platform", "device", "compressor")},
        "max_scaling_fp32": float(df["scaling_fp32"].max()),
        "one_call_gain_range": [float(df["one_call_gain"].min()), float(df["one_call_gain"].max())]
        if "one_call_gain" in df else None,
        "partition_gain_range": [float(df["partition_gain"].min()), float(df["partition_gain"].max())]
        if "partition_gain" in df else None,
        "rows": df.to_dict(orient="records"),
    }
    with open(os.path.join(out, "numbers.json"), "w") as f:
        json.dump(numbers, f, indent=1, default=float)
    draw(df, out)
    print(f"speedup of MergeComp over layer-wise: max {numbers['max_speedup_vs_layerwise']:.2f}x "
          f"({', '.join(str(v) for v in numbers['max_speedup_at'].values())}), "
          f"min {numbers['min_speedup_vs_layerwise']:.2f}x; scaling factor max "
          f"{100 * numbers['max_scaling_mergecomp']:.1f}% (fp32 {100 * numbers['max_scaling_fp32']:.1f}%)")
    if numbers["one_call_gain_range"]:
        a, b = numbers["one_call_gain_range"]
        c, d = numbers["partition_gain_range"]
        print(f"of which one call instead of L (layer-wise / single): {a:.2f}-{b:.2f}x; "
              f"the partition (single / MergeComp): {c:.3f}-{d:.3f}x")


def draw(df, out):
    """speedup.png: MergeComp over layer-wise per compressor, one panel per
    model and device, a bar per platform; scaling.png: the scaling factor of
    each schedule, per compressor, with FP32's as a line."""
    panels = sorted({(m, d) for m, d in zip(df["model"], df["device"])})
    comps = sorted(df["compressor"].unique())
    plats = sorted(df["platform"].unique())
    for name, draw_panel in (("speedup", _speedup), ("scaling", _scaling)):
        fig, axs = plt.subplots(len(panels), 1, figsize=(9, 3 * len(panels)), squeeze=False)
        for ax, (m, d) in zip(axs[:, 0], panels):
            draw_panel(ax, df[(df["model"] == m) & (df["device"] == d)], comps, plats)
            ax.set_title(f"{m}, 8 x {d}, batch 64", fontsize=9)
        handles, labels = axs[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7)
        fig.tight_layout(rect=(0, 0.03 + 0.012 * len(labels) / 4, 1, 1))
        fig.savefig(os.path.join(out, f"{name}.png"), dpi=110)
        plt.close(fig)


def _speedup(ax, d, comps, plats):
    w = 0.8 / len(plats)
    for i, p in enumerate(plats):
        s = d[d["platform"] == p].set_index("compressor").reindex(comps)
        ax.bar([c + i * w for c in range(len(comps))], s["speedup_vs_layerwise"], w, label=p)
    ax.axhline(1, color="k", lw=0.5)
    ax.set_xticks([c + w * (len(plats) - 1) / 2 for c in range(len(comps))])
    ax.set_xticklabels(comps, fontsize=8)
    ax.set_ylabel("MergeComp / layer-wise\nspeedup", fontsize=8)


def _scaling(ax, d, comps, plats):
    kinds = [k for k in ("layerwise", "single", "buckets", "mergecomp") if f"scaling_{k}" in d]
    w = 0.8 / (len(kinds) * len(plats))
    j = 0
    for p, color in zip(plats, ("k", "gray", "c", "m")):
        s = d[d["platform"] == p].set_index("compressor").reindex(comps)
        for k in kinds:
            ax.bar([c + j * w for c in range(len(comps))], 100 * s[f"scaling_{k}"], w, label=f"{p} {k}")
            j += 1
        ax.axhline(100 * s["scaling_fp32"].iloc[0], ls="--", lw=0.8, color=color, label=f"{p} fp32 (no compression)")
    ax.set_xticks([c + w * (j - 1) / 2 for c in range(len(comps))])
    ax.set_xticklabels(comps, fontsize=8)
    ax.set_ylabel("scaling factor %", fontsize=8)
    ax.set_ylim(0, 105)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: analyze.py COMPRESSED-SWEEP-DIR BASELINES-SWEEP-DIR OUT")
    main(*sys.argv[1:])
