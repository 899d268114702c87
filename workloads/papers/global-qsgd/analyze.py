#!/usr/bin/python3
"""The Global-QSGD study's numbers and figures, from the sweeps run.sh ran.

usage: /usr/bin/python3 analyze.py OUT

Reads OUT/{time,exp-time,scale,error,train} (ccsim sweep directories) and
writes OUT/table-time.csv (every wall-time point with its speedups),
OUT/claims.json (the numbers README.md's table quotes and
tests/papers_global_qsgd.sh checks), OUT/claims.md (the same as a table) and
the figures OUT/speedup.png, OUT/scale.png, OUT/error.png.
A sweep with a point that did not finish is an error: no number is made
from a partial grid.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "analysis"))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ccsim  # noqa: E402

PAPER_SPEEDUP = 3.51  # "up to 3.51x" (EuroMLSys 2025 version) or "3.51%" (arXiv abstract)


def load(out, name):
    """Every point of a sweep as one flat row; refuses a sweep with a failed point."""
    s = ccsim.load_sweep(os.path.join(out, name))
    bad = s.points[s.points["status"] != "done"]
    if len(bad):
        raise SystemExit(f"{out}/{name}: {len(bad)} point(s) not done, e.g. {bad.iloc[0]['point']}: "
                         f"{bad.iloc[0].get('reason', '')}")
    return s.summaries()


def speedups(t):
    """Per (model, device, network): baseline QSGD's iteration time over Global-QSGD's."""
    rows, claims = [], {}
    keys = [k for k in ("model", "device", "network") if k in t.columns]
    for key, g in t.groupby(keys):
        it = dict(zip(g["method"], g["iteration_time_s"]))
        q, f = it["qsgd-allgather"], it["fp32-ring"]
        best = min(it["gqsgd-ring"], it["gqsgd-tree"])
        name = "/".join(str(k) for k in key)
        claims[name] = {
            "qsgd_s": q, "fp32_s": f, "gqsgd_ring_s": it["gqsgd-ring"], "gqsgd_tree_s": it["gqsgd-tree"],
            "over_qsgd_ring": q / it["gqsgd-ring"], "over_qsgd_tree": q / it["gqsgd-tree"],
            "over_qsgd_best": q / best, "over_fp32_best": f / best, "qsgd_over_fp32": f / q,
            "exposed_s": dict(zip(g["method"], g["time_breakdown_s.exposed_communicate"])),
            "compute_s": float(g["time_breakdown_s.compute"].iloc[0]),
        }
        for _, r in g.iterrows():
            rows.append({**{k: r[k] for k in keys}, "method": r["method"],
                         "iteration_time_s": r["iteration_time_s"],
                         "speedup_over_qsgd": q / r["iteration_time_s"],
                         "speedup_over_fp32": f / r["iteration_time_s"],
                         "bytes_on_wire": r["bytes_on_wire"], "agg_rel_error": r["agg_rel_error"],
                         "compress_s": r["time_breakdown_s.compress"],
                         "exposed_communicate_s": r["time_breakdown_s.exposed_communicate"],
                         "compression_timing": r.get("time_model.compression", "roofline")})
    return rows, claims


def main():
    out = sys.argv[1]
    claims = {"paper_speedup": PAPER_SPEEDUP}

    t = load(out, "time")
    rows, claims["time"] = speedups(t)
    import pandas as pd
    pd.DataFrame(rows).to_csv(os.path.join(out, "table-time.csv"), index=False)
    best = max(claims["time"].items(), key=lambda kv: kv[1]["over_qsgd_best"])
    claims["max_over_qsgd"] = {"value": best[1]["over_qsgd_best"], "where": best[0]}
    bq = t[t["method"] == "qsgd-allgather"]["bytes_on_wire"].mean()
    bg = t[t["method"] == "gqsgd-ring"]["bytes_on_wire"].mean()
    claims["bytes_qsgd_over_gqsgd_ring"] = bq / bg
    claims["time_workers"] = int(t["workers"].iloc[0])

    e = load(out, "exp-time")
    claims["exp_time"] = {}
    for key, g in e.groupby(["model", "network"]):
        it = dict(zip(g["method"], g["iteration_time_s"]))
        claims["exp_time"]["/".join(key)] = {
            "standard_ring_s": it["gqsgd-ring"], "exp_ring_s": it["gqsgd-exp-ring"],
            "exp_tree_s": it["gqsgd-exp-tree"], "exp_over_standard": it["gqsgd-exp-ring"] / it["gqsgd-ring"]}

    s = load(out, "scale")
    claims["scale"] = {}
    for model, g in s.groupby("model"):
        ws = sorted(g["workers"].unique())
        it = {(r["workers"], r["method"]): r["iteration_time_s"] for _, r in g.iterrows()}
        ex = {(r["workers"], r["method"]): r["time_breakdown_s.exposed_communicate"] for _, r in g.iterrows()}
        er = {(r["workers"], r["method"]): r["agg_rel_error"] for _, r in g.iterrows()}
        sp = [it[(w, "qsgd-allgather")] / it[(w, "gqsgd-ring")] for w in ws]
        claims["scale"][model] = {"workers": [int(w) for w in ws], "over_qsgd": sp,
                                  "over_fp32": [it[(w, "fp32-ring")] / it[(w, "gqsgd-ring")] for w in ws],
                                  "exposed_s": {m: [ex[(w, m)] for w in ws] for m in ("fp32-ring", "qsgd-allgather",
                                                                                      "gqsgd-ring")},
                                  "error": {m: [er[(w, m)] for w in ws] for m in sorted({k[1] for k in er})},
                                  "first_workers_at_paper": next((int(w) for w, x in zip(ws, sp)
                                                                  if x >= PAPER_SPEEDUP), None)}

    r = load(out, "error")
    claims["error"] = {}
    for key, g in r.groupby(["gradients", "compressor.bits", "collective"]):
        k = f"{key[0]}/{int(key[1])}bit/{key[2]}"
        claims["error"][k] = {row["dithering"]: {"agg_rel_error": row["agg_rel_error"],
                                                 "cascade_rel_error": row["agg_cascade_rel_error"],
                                                 "bytes_on_wire": int(row["bytes_on_wire"])}
                              for _, row in g.iterrows()}

    claims["error_bits"] = sorted(int(b) for b in r["compressor.bits"].unique())

    tr = load(out, "train")
    claims["train_bits"] = sorted(int(b) for b in tr["compressor.bits"].unique())
    claims["train"] = {}
    for bits, g in tr.groupby("compressor.bits"):
        claims["train"][f"{int(bits)}bit"] = {
            row["dithering"]: {"agg_rel_error": row["agg_rel_error"],
                               "cascade_rel_error": row["agg_cascade_rel_error"],
                               "final_accuracy": row["final_accuracy"]} for _, row in g.iterrows()}

    with open(os.path.join(out, "claims.json"), "w") as f:
        json.dump(claims, f, indent=1, sort_keys=True)
    write_md(out, claims)
    figures(out, t, s, r)
    print(f"{out}/claims.json, claims.md, table-time.csv, speedup.png, scale.png, error.png")


def write_md(out, c):
    """claims.json as tables a README can quote."""
    L = ["| model / device / network | QSGD all-gather (s) | fp32 ring (s) | G-QSGD ring (s) | G-QSGD tree (s) "
         "| best G-QSGD over QSGD | best G-QSGD over fp32 |", "|---|---|---|---|---|---|---|"]
    for k, v in c["time"].items():
        L.append(f"| {k} | {v['qsgd_s']:.4f} | {v['fp32_s']:.4f} | {v['gqsgd_ring_s']:.4f} | "
                 f"{v['gqsgd_tree_s']:.4f} | {v['over_qsgd_best']:.2f}x | {v['over_fp32_best']:.2f}x |")
    L += ["", "| model (cloud, h100-measured) | workers | G-QSGD ring over QSGD | over fp32 |", "|---|---|---|---|"]
    for m, v in c["scale"].items():
        for w, a, b in zip(v["workers"], v["over_qsgd"], v["over_fp32"]):
            L.append(f"| {m} | {w} | {a:.2f}x | {b:.2f}x |")
    L += ["", "| gradients / bits / collective | standard agg err | exponential agg err | standard cascade "
          "| exponential cascade |", "|---|---|---|---|---|"]
    for k, v in c["error"].items():
        L.append(f"| {k} | {v['standard']['agg_rel_error']:.4f} | {v['exponential']['agg_rel_error']:.4f} | "
                 f"{v['standard']['cascade_rel_error']:.2e} | {v['exponential']['cascade_rel_error']:.4f} |")
    L += ["", "| LeNet-5 / Fashion-MNIST, bits | standard agg err | exponential agg err | standard acc "
          "| exponential acc |", "|---|---|---|---|---|"]
    for k, v in c["train"].items():
        L.append(f"| {k} | {v['standard']['agg_rel_error']:.4f} | {v['exponential']['agg_rel_error']:.4f} | "
                 f"{v['standard']['final_accuracy']:.3f} | {v['exponential']['final_accuracy']:.3f} |")
    with open(os.path.join(out, "claims.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def figures(out, t, s, r):
    # speedup of the best Global-QSGD over QSGD and over fp32, per network
    groups = sorted({(m, d) for m, d in zip(t["model"], t["device"])})
    nets = ["nvlink", "pcie", "cloud"]
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    w = 0.8 / len(groups)
    for i, (m, d) in enumerate(groups):
        sub = t[(t["model"] == m) & (t["device"] == d)]
        for j, (col, base) in enumerate([("over_qsgd", "qsgd-allgather"), ("over_fp32", "fp32-ring")]):
            ys = []
            for n in nets:
                it = sub[sub["network"] == n].set_index("method")["iteration_time_s"]
                ys.append(it[base] / min(it["gqsgd-ring"], it["gqsgd-tree"]))
            ax[j].bar([k + i * w for k in range(len(nets))], ys, w, label=f"{m}, {d}")
    for j, title in enumerate(["Global-QSGD over QSGD (all-gather)", "Global-QSGD over fp32 ring"]):
        ax[j].axhline(1.0, color="k", lw=0.8)
        ax[j].set_xticks([k + 0.4 - w / 2 for k in range(len(nets))], nets)
        ax[j].set_ylabel("iteration-time speedup")
        ax[j].set_title(title + ", 4 GPUs")
    ax[0].axhline(PAPER_SPEEDUP, color="r", ls="--", lw=0.8, label="paper: up to 3.51x")
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5.5, 4))
    for m, g in s.groupby("model"):
        ws = sorted(g["workers"].unique())
        it = {(x["workers"], x["method"]): x["iteration_time_s"] for _, x in g.iterrows()}
        ax.plot(ws, [it[(w_, "qsgd-allgather")] / it[(w_, "gqsgd-ring")] for w_ in ws], "o-", label=m)
    ax.axhline(PAPER_SPEEDUP, color="r", ls="--", lw=0.8, label="paper: up to 3.51x")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("workers (10 Gbps cloud network, h100-measured)")
    ax.set_ylabel("Global-QSGD ring over QSGD all-gather")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scale.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for j, grad in enumerate(["normal", "laplace"]):
        g = r[r["gradients"] == grad]
        for (dith, coll), h in g.groupby(["dithering", "collective"]):
            h = h.sort_values("compressor.bits")
            if dith == "standard" and coll != "allreduce/ring":
                continue  # integers add exactly: the tree's errors are the ring's
            label = "standard (ring and tree alike)" if dith == "standard" else f"{dith}, {coll}"
            ax[j].plot(h["compressor.bits"], h["agg_rel_error"], "o-", label=label)
            if dith == "exponential":
                ax[j].plot(h["compressor.bits"], h["agg_cascade_rel_error"], "x:",
                           label=f"{dith}, {coll}: cascade part")
        ax[j].set_yscale("log")
        ax[j].set_xlabel("bits per element")
        ax[j].set_ylabel("relative L2 error of the aggregate")
        ax[j].set_title(f"4 workers, {grad} gradients")
        ax[j].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "error.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
