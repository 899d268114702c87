# numbers: full
# workloads/papers/s2-reducer/README.md "Wall time under both communication
# models": the time claims of S2 Reducer (its 1.8x speed-up over the state of
# the art) under comm.model "ideal" and "nccl". Each method's embedding
# (embedding.json, 3 iterations as in run.sh: compress + all-reduce of the row-sparse
# gradient) and the dense rest (dense-rest.json, 3 iterations) under each
# model; a method's iteration is their sum (analyze.py says why). About 40
# CPU seconds, most of it the 8 workers' 18.8M-element embeddings.
set -eu
P="$SRC/workloads/papers/s2-reducer"
. "$P/methods.sh"
run() { "$CCSIM" run --quiet "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }; }
for model in ideal nccl; do
  run "$P/dense-rest.json" --set iterations=3 --set comm.model=$model --out "$WORK/$model-dense"
  for m in "${METHODS[@]}"; do
    IFS='|' read -r label comp coll <<<"$m"
    run "$P/embedding.json" --set iterations=3 --set "compressor=$comp" --set "collective=$coll" \
      --set comm.model=$model --out "$WORK/$model-$label"
  done
done
/usr/bin/python3 - "$WORK" "${METHODS[@]}" <<'PY'
import json, os, sys
work, methods = sys.argv[1], [m.split("|")[0] for m in sys.argv[2:]]
BASE = [m for m in methods if m not in ("dense-ring", "s2-reducer")]
NAME = {"dense-ring": "dense fp32 ring", "s2-reducer": "S2 Reducer", "sparcml": "SparCML-style",
        "omnireduce": "OmniReduce-style", "topk-allgather": "top-k 1% all-gather",
        "agsparse": "AGsparse-like all-gather", "parallax-ps": "Parallax-like sparse PS"}
def s(model, m):
    return json.load(open(os.path.join(work, f"{model}-{m}", "summary.json")))
T = {}
for model in ("ideal", "nccl"):
    dense = s(model, "dense")["iteration_time_s"]
    emb = {m: s(model, m)["iteration_time_s"] for m in methods}
    T[model] = {"dense": dense, "emb": emb, "it": {m: dense + emb[m] for m in methods}}
print("Per method: the embedding's compress + all-reduce and the iteration (dense rest + embedding), "
      "ideal → nccl, 8 workers on 2 nodes × 4, 1 Gbps between nodes:")
print()
print("| method | embedding s | iteration s |")
print("|---|---|---|")
for m in methods:
    print(f"| {NAME[m]} | {T['ideal']['emb'][m]:.4f} → {T['nccl']['emb'][m]:.4f} | "
          f"{T['ideal']['it'][m]:.3f} → {T['nccl']['it'][m]:.3f} |")
print(f"| (the dense rest alone) | - | {T['ideal']['dense']:.3f} → {T['nccl']['dense']:.3f} |")
print()
def claims(model):
    t = T[model]
    bt = min(BASE, key=lambda m: t["it"][m])
    be = min(BASE, key=lambda m: t["emb"][m])
    return {"vs_best": (t["it"][bt] / t["it"]["s2-reducer"], bt),
            "vs_dense": (t["it"]["dense-ring"] / t["it"]["s2-reducer"], None),
            "emb_vs_best": (t["emb"][be] / t["emb"]["s2-reducer"], be)}
C = {model: claims(model) for model in ("ideal", "nccl")}
def cell(v):
    x, m = v
    return f"{x:.2f}×" + (f" (over {NAME[m]})" if m else "")
print("| claim | the paper | ccsim ideal | ccsim nccl |")
print("|---|---|---|---|")
print(f"| faster training than the state of the art: iteration, S2 Reducer over the fastest baseline | 1.8× | "
      f"{cell(C['ideal']['vs_best'])} | {cell(C['nccl']['vs_best'])} |")
print(f"| the same, the embedding's all-reduce alone | - | {cell(C['ideal']['emb_vs_best'])} | "
      f"{cell(C['nccl']['emb_vs_best'])} |")
print(f"| iteration, S2 Reducer over the dense fp32 ring | - | {cell(C['ideal']['vs_dense'])} | "
      f"{cell(C['nccl']['vs_dense'])} |")
print()
moved = []
for k, what in (("vs_best", "the speed-up over the fastest baseline"), ("emb_vs_best", "the embedding's speed-up"),
                ("vs_dense", "the speed-up over the dense ring")):
    (xi, mi), (xn, mn) = C["ideal"][k], C["nccl"][k]
    if (xi > 1.005) != (xn > 1.005) or mi != mn or abs(xn / xi - 1) > 0.05:
        moved.append(f"{what} ({xi:.2f}× → {xn:.2f}×" + (f", fastest baseline {NAME[mi]} → {NAME[mn]}" if mi != mn else "") + ")")
print("Moved by more than 5%, changed sign or changed baseline under nccl: " + ("; ".join(moved) if moved else "none") + ".")
PY
