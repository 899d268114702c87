# numbers: quick
# docs/comm-model.md "The wall-time studies under both models": ResNet-50 on
# 64 V100s (roofline), DDP buckets, over 1, 10 and 100 Gbps, each method's
# iteration time under comm.model "ideal" (workloads/walltime/pays.json) and
# "nccl" (pays-nccl.json, the same sweep with comm.model nccl), and the
# speed-up over uncompressed under each.
set -eu
"$CCSIM" sweep "$SRC/workloads/walltime/pays.json" --out "$WORK/ideal" --jobs 2 --quiet >/dev/null 2>&1
"$CCSIM" sweep "$SRC/workloads/walltime/pays-nccl.json" --out "$WORK/nccl" --jobs 2 --quiet >/dev/null 2>&1
/usr/bin/python3 - "$WORK/ideal/sweep.csv" "$WORK/nccl/sweep.csv" <<'PY'
import csv, sys
def read(p):
    return {(r["method"], r["platform.bandwidth"]): float(r["iteration_time_s"]) for r in csv.DictReader(open(p))}
I, N = read(sys.argv[1]), read(sys.argv[2])
names = [("none", "none (ring)"), ("fp16", "fp16 (ring)"), ("marsit", "Marsit (reconstructed compensation, ring)"),
         ("topk-allgather", "top-k 1% (ring all-gather)")]
bws = [("1Gbps", "1 Gbps"), ("10Gbps", "10 Gbps"), ("100Gbps", "100 Gbps")]
print("Iteration time, ideal → nccl (speed-up over uncompressed under the same model):")
print()
print("| method | " + " | ".join(b for _, b in bws) + " |")
print("|---|" + "---|" * len(bws))
for key, label in names:
    cells = []
    for b, _ in bws:
        si, sn = I[("none", b)] / I[(key, b)], N[("none", b)] / N[(key, b)]
        cells.append(f"{I[(key, b)]:.4f} → {N[(key, b)]:.4f} s ({si:.2f}× → {sn:.2f}×)")
    print(f"| {label} | " + " | ".join(cells) + " |")
print()
moved = []
for key, label in names[1:]:
    for b, bl in bws:
        si, sn = I[("none", b)] / I[(key, b)], N[("none", b)] / N[(key, b)]
        if (si > 1.005) != (sn > 1.005):
            moved.append(f"{label} at {bl} ({si:.2f}× → {sn:.2f}×)")
print("Conclusions that change sign (pays ↔ does not pay, 0.5% margin): " + ("; ".join(moved) if moved else "none") + ".")
PY
