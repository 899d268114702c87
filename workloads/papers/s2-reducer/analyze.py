"""S2 Reducer study: the runs of run.sh -> results.csv, claims.csv, table.md and figures.

usage: /usr/bin/python3 analyze.py OUT

Iteration time of a method = the dense rest's iteration (compute of the whole model,
its fp32 ring overlapped with backward) + the embedding's compress + all-reduce time.
They add because the embedding is lstm-wt2's first layer: its gradient is the last one
backward produces, so its all-reduce starts after the rest has been handed to the
network and cannot hide behind compute (the dense rest's own exposed communication is
reported beside it).
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "analysis"))
import ccsim  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METHODS = ["dense-ring", "s2-reducer", "sparcml", "omnireduce", "topk-allgather", "agsparse", "parallax-ps"]
BASELINES = ["sparcml", "omnireduce", "topk-allgather", "agsparse", "parallax-ps"]


def main(out):
    dense = ccsim.load_run(os.path.join(out, "dense-rest")).summary
    rows = []
    for m in METHODS:
        emb = ccsim.load_run(os.path.join(out, "embedding-" + m))
        txt = ccsim.load_run(os.path.join(out, "text-" + m))
        es, ts = emb.summary, txt.summary
        its = es["iterations"]
        acc = txt.iterations.dropna(subset=["test_accuracy"])
        rows.append({
            "method": m,
            "compressor": es["compressor"],
            "collective": es["collective"],
            "embedding_bytes_per_iteration": es["bytes_on_wire"] / its,
            "embedding_time_s": es["iteration_time_s"],
            "embedding_compress_s": es["time_breakdown_s"]["compress"] / its,
            "embedding_agg_rel_error": es["agg_rel_error"],
            "dense_rest_iteration_s": dense["iteration_time_s"],
            "dense_rest_exposed_communicate_s": dense["time_breakdown_s"]["exposed_communicate"] / dense["iterations"],
            "iteration_s": dense["iteration_time_s"] + es["iteration_time_s"],
            "text_final_accuracy": ts["final_accuracy"],
            "text_final_loss": ts["final_loss"],
            "text_bytes_per_iteration": ts["bytes_on_wire"] / ts["iterations"],
            "_curve": (acc["iteration"].tolist(), acc["test_accuracy"].tolist()),
        })
    by = {r["method"]: r for r in rows}
    cols = [k for k in rows[0] if not k.startswith("_")]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)

    s2 = by["s2-reducer"]
    best_bytes = min(BASELINES, key=lambda m: by[m]["embedding_bytes_per_iteration"])
    best_time = min(BASELINES, key=lambda m: by[m]["iteration_s"])
    claims = [
        ("sparse_bytes_reduction_vs_dense_ring",
         1 - s2["embedding_bytes_per_iteration"] / by["dense-ring"]["embedding_bytes_per_iteration"]),
        ("sparse_bytes_reduction_vs_best_baseline",
         1 - s2["embedding_bytes_per_iteration"] / by[best_bytes]["embedding_bytes_per_iteration"]),
        ("best_baseline_by_bytes", best_bytes),
        ("speedup_vs_dense_ring", by["dense-ring"]["iteration_s"] / s2["iteration_s"]),
        ("speedup_vs_best_baseline", by[best_time]["iteration_s"] / s2["iteration_s"]),
        ("best_baseline_by_time", best_time),
        ("sparse_speedup_vs_best_baseline",
         min(by[m]["embedding_time_s"] for m in BASELINES) / s2["embedding_time_s"]),
        ("text_accuracy_s2_minus_dense", s2["text_final_accuracy"] - by["dense-ring"]["text_final_accuracy"]),
        ("text_accuracy_sparcml_minus_dense",
         by["sparcml"]["text_final_accuracy"] - by["dense-ring"]["text_final_accuracy"]),
        ("text_accuracy_omnireduce_minus_dense",
         by["omnireduce"]["text_final_accuracy"] - by["dense-ring"]["text_final_accuracy"]),
        ("embedding_agg_rel_error_s2", s2["embedding_agg_rel_error"]),
    ]
    for m in METHODS:
        claims.append(("embedding_bytes_" + m, by[m]["embedding_bytes_per_iteration"]))
        claims.append(("iteration_s_" + m, by[m]["iteration_s"]))
    with open(os.path.join(out, "claims.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["claim", "value"])
        for k, v in claims:
            w.writerow([k, v])

    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("| method | embedding MB/iteration (all workers) | embedding all-reduce s | "
                "iteration s (dense rest + embedding) | embedding rel. error | text accuracy |\n")
        f.write("|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['method']} | {r['embedding_bytes_per_iteration'] / 1e6:.1f} | "
                    f"{r['embedding_time_s']:.3f} | {r['iteration_s']:.3f} | "
                    f"{r['embedding_agg_rel_error']:.3g} | {r['text_final_accuracy']:.3f} |\n")
        f.write("\n")
        for k, v in claims[:11]:
            f.write(f"- {k}: {v if isinstance(v, str) else f'{v:.4g}'}\n")

    sensitivity(out, by)

    fig, ax = plt.subplots(1, 3, figsize=(17, 4.6))
    names = [r["method"] for r in rows]
    ax[0].bar(names, [r["embedding_bytes_per_iteration"] / 1e6 for r in rows], color="tab:blue")
    ax[0].set_ylabel("MB on the wire per iteration (all 8 workers)")
    ax[0].set_title("embedding gradient (28869 x 650, row-sparse)")
    ax[1].bar(names, [r["dense_rest_iteration_s"] for r in rows], label="dense rest (compute + fp32 ring)",
              color="tab:gray")
    ax[1].bar(names, [r["embedding_time_s"] for r in rows], bottom=[r["dense_rest_iteration_s"] for r in rows],
              label="embedding (compress + all-reduce)", color="tab:orange")
    ax[1].set_ylabel("simulated seconds per iteration")
    ax[1].set_title("lstm-wt2, 2 x 4 H100, 1 Gbps between nodes")
    ax[1].legend(fontsize=8)
    for r in rows:
        x, y = r["_curve"]
        ax[2].plot(x, y, marker="o", label=r["method"])
    ax[2].set_xlabel("iteration")
    ax[2].set_ylabel("test accuracy")
    ax[2].set_title("live next-token task (row-sparse embedding)")
    ax[2].legend(fontsize=8)
    for a in ax[:2]:
        a.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "s2-reducer.png"), dpi=110)
    print(open(os.path.join(out, "table.md")).read())


def sensitivity(out, by):
    """The full study's extra runs (absent in QUICK mode): sensitivity.csv."""
    rows = []
    for tok in (140, 700, 2240):
        for m in METHODS[1:5]:
            d = os.path.join(out, f"tokens{tok}-{m}") if tok != 700 else os.path.join(out, "embedding-" + m)
            if not os.path.isdir(d):
                continue
            s = ccsim.load_run(d).summary
            rows.append({"tokens_per_worker": tok, "method": m, "ratio": 0.05 if m == "s2-reducer" else "",
                         "bytes_per_iteration": s["bytes_on_wire"] / s["iterations"],
                         "time_s": s["iteration_time_s"], "agg_rel_error": s["agg_rel_error"]})
    for ratio in ("0.01", "0.2", "0.5"):
        d = os.path.join(out, f"ratio{ratio}-s2-reducer")
        if not os.path.isdir(d):
            continue
        s = ccsim.load_run(d).summary
        rows.append({"tokens_per_worker": 700, "method": "s2-reducer", "ratio": ratio,
                     "bytes_per_iteration": s["bytes_on_wire"] / s["iterations"],
                     "time_s": s["iteration_time_s"], "agg_rel_error": s["agg_rel_error"]})
    if len(rows) <= 4:
        return
    with open(os.path.join(out, "sensitivity.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
        print(f"sensitivity.csv: {len(rows)} rows")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: analyze.py OUT")
    main(sys.argv[1])
