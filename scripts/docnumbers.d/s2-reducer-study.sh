# numbers: full
# workloads/papers/s2-reducer/README.md "Results" and "The claims": the whole
# study (bash workloads/papers/s2-reducer/run.sh: 3 iterations of each
# method's embedding, the dense rest, 1000 iterations of the KJV next-word
# task per method, the sparsity and sketch-size sensitivity runs; seed 1),
# its results table, the claims' numbers and the sensitivity tables. About
# 3 CPU minutes.
set -eu
CCSIM="$CCSIM" OUT="$WORK/out" JOBS=2 bash "$SRC/workloads/papers/s2-reducer/run.sh" >"$WORK/log" 2>&1 ||
  { tail -20 "$WORK/log" >&2; exit 1; }
/usr/bin/python3 - "$WORK/out" <<'PY'
import csv, os, sys
out = sys.argv[1]
R = {r["method"]: r for r in csv.DictReader(open(os.path.join(out, "results.csv")))}
C = {r["claim"]: r["value"] for r in csv.DictReader(open(os.path.join(out, "claims.csv")))}
S = list(csv.DictReader(open(os.path.join(out, "sensitivity.csv"))))
NAME = {"dense-ring": "dense fp32 ring", "s2-reducer": "**S2 Reducer**", "sparcml": "SparCML-style",
        "omnireduce": "OmniReduce-style", "topk-allgather": "top-k 1% all-gather",
        "agsparse": "AGsparse-like all-gather", "parallax-ps": "Parallax-like sparse PS"}
plain = lambda m: NAME[m].strip("*")
f = lambda m, k: float(R[m][k])
mb = lambda m: f(m, "embedding_bytes_per_iteration") / 1e6
print("| method | embedding MB / iteration (all workers) | embedding compress + all-reduce s | iteration s | "
      "embedding aggregate rel. error | text accuracy (1000 it.) | text test loss |")
print("|---|---|---|---|---|---|---|")
for m in R:
    print(f"| {NAME[m]} | {mb(m):.1f} | {f(m, 'embedding_time_s'):.3f} | {f(m, 'iteration_s'):.3f} | "
          f"{f(m, 'embedding_agg_rel_error'):.3g} | {f(m, 'text_final_accuracy'):.4f} | {f(m, 'text_final_loss'):.3f} |")
d = R["dense-ring"]
print()
print(f"The dense rest's iteration is {f('dense-ring', 'dense_rest_iteration_s'):.3f} s, of which "
      f"{f('dense-ring', 'dense_rest_exposed_communicate_s'):.3f} s is exposed communication. "
      "The text task's majority class (<unk>) is 10.90% of its test split.")
print()
s2 = "s2-reducer"
BASE = ["sparcml", "omnireduce", "topk-allgather", "agsparse", "parallax-ps"]
bb, bt = C["best_baseline_by_bytes"], C["best_baseline_by_time"]
red = lambda m: 1 - mb(s2) / mb(m)
sp = lambda m: f(m, "iteration_s") / f(s2, "iteration_s")
esp = lambda m: f(m, "embedding_time_s") / f(s2, "embedding_time_s")
print("| claim | the paper (source) | ccsim |")
print("|---|---|---|")
print(f"| less sparse communication | −81% sparse communication overhead (abstract, arXiv 2110.02140) | "
      f"{-100 * float(C['sparse_bytes_reduction_vs_dense_ring']):.1f}% of the dense ring's embedding bytes; "
      f"{-100 * red(bb):.1f}% against the best sparse baseline by bytes ({plain(bb)}, {mb(bb):.1f} MB); "
      + ", ".join(f"{-100 * red(m):+.0f}% against {plain(m)}" for m in BASE if m != bb) + " |")
print(f"| faster training | 1.8× over the state of the art (abstract) | {sp('dense-ring'):.2f}× over the dense fp32 ring; "
      f"{sp(bt):.2f}× over the fastest baseline ({plain(bt)}); "
      + ", ".join(f"{sp(m):.2f}× {plain(m)}" for m in BASE if m != bt)
      + f". On the embedding's all-reduce alone: {min(esp(m) for m in BASE):.1f}× to {max(esp(m) for m in BASE):.1f}× |")
acc = lambda m: f(m, "text_final_accuracy")
print(f"| same accuracy | converges to the same accuracy (abstract) | KJV next-word task, 1000 iterations, seed 1: "
      f"S2 Reducer {acc(s2):.4f}, dense ring {acc('dense-ring'):.4f} ({100 * (acc(s2) - acc('dense-ring')):+.2f} points), "
      + ", ".join(f"{plain(m)} {acc(m):.4f}" for m in BASE)
      + f" (one seed; majority class 0.1090). Embedding aggregate relative error of the sketch: "
      f"{float(C['embedding_agg_rel_error_s2']):.2f} |")
print()
print("Sensitivity (one iteration of the embedding, 8 workers, 1 Gbps; the 700-token row is the study's "
      "3-iteration mean): MB on the wire per iteration and seconds")
print()
tok = {}
for r in S:
    if r["method"] != "s2-reducer" or r["ratio"] in ("0.05", ""):
        tok.setdefault(int(r["tokens_per_worker"]), {})[r["method"]] = r
ms = ["s2-reducer", "sparcml", "omnireduce", "topk-allgather"]
print("| tokens per worker (batch × 35) | " + " | ".join(plain(m) + (" (ratio 0.05)" if m == s2 else "") for m in ms) + " |")
print("|---|" + "---|" * len(ms))
for t in sorted(tok):
    cells = []
    best = min(ms, key=lambda m: float(tok[t][m]["bytes_per_iteration"]))
    for m in ms:
        c = f"{float(tok[t][m]['bytes_per_iteration']) / 1e6:.1f} MB"
        cells.append((f"**{c}**" if m == best else c) + f", {float(tok[t][m]['time_s']):.3f} s")
    print(f"| {t} | " + " | ".join(cells) + " |")
print()
rat = sorted(((float(r["ratio"]), r) for r in S if r["method"] == "s2-reducer" and r["ratio"] and
              int(r["tokens_per_worker"]) == 700), key=lambda x: x[0])
print("The sketch's size against its error (700 tokens per worker, one sketch per tensor): " + "; ".join(
    f"ratio {x:g} — {float(r['bytes_per_iteration']) / 1e6:.1f} MB, relative error {float(r['agg_rel_error']):.2f}"
    for x, r in rat) + ".")
PY
