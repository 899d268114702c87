# numbers: full
# workloads/papers/s2-reducer/README.md "Held-out variations": the study's
# bounded mode (QUICK=1 run.sh: 1 iteration of the embedding and the dense
# rest, 60 iterations of the text task) as shipped and with two overrides
# (SETS), S2 Reducer against the best baseline of each. About 2 CPU minutes.
set -eu
i=0
for sets in "" "platform.bandwidth=10Gbps" "workers=16 platform.nodes=4"; do
  i=$((i + 1))
  SETS="$sets" QUICK=1 JOBS=2 CCSIM="$CCSIM" OUT="$WORK/v$i" bash "$SRC/workloads/papers/s2-reducer/run.sh" \
    >"$WORK/log$i" 2>&1 || { tail -20 "$WORK/log$i" >&2; exit 1; }
  echo "${sets:-}" >"$WORK/v$i/sets"
done
/usr/bin/python3 - "$WORK" <<'PY'
import csv, os, sys
work = sys.argv[1]
NAME = {"sparcml": "SparCML-style", "omnireduce": "OmniReduce-style", "topk-allgather": "top-k all-gather",
        "agsparse": "AGsparse-like", "parallax-ps": "Parallax-like"}
print("| variation | S2 Reducer | best baseline by bytes | best baseline by time | S2 vs dense ring | "
      "text accuracy S2 − dense (60 it.) |")
print("|---|---|---|---|---|---|")
for i in (1, 2, 3):
    d = os.path.join(work, f"v{i}")
    sets = open(os.path.join(d, "sets")).read().strip()
    R = {r["method"]: r for r in csv.DictReader(open(os.path.join(d, "results.csv")))}
    C = {r["claim"]: r["value"] for r in csv.DictReader(open(os.path.join(d, "claims.csv")))}
    f = lambda m, k: float(R[m][k])
    mb = lambda m: f(m, "embedding_bytes_per_iteration") / 1e6
    bb, bt = C["best_baseline_by_bytes"], C["best_baseline_by_time"]
    s2 = "s2-reducer"
    label = "as shipped (8 workers, 1 Gbps)" if not sets else " ".join(f"`{x}`" for x in sets.split())
    print(f"| {label} | {mb(s2):.1f} MB, {f(s2, 'iteration_s'):.3f} s | {NAME[bb]} {mb(bb):.1f} MB "
          f"({100 * (mb(s2) / mb(bb) - 1):+.0f}%) | {NAME[bt]} {f(bt, 'iteration_s'):.3f} s "
          f"({f(bt, 'iteration_s') / f(s2, 'iteration_s'):.2f}×) | "
          f"{100 * (mb(s2) / mb('dense-ring') - 1):+.0f}%, {f('dense-ring', 'iteration_s') / f(s2, 'iteration_s'):.3f}× | "
          f"{float(C['text_accuracy_s2_minus_dense']):+.4f} |")
PY
