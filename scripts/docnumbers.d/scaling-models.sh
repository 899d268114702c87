# numbers: quick
# docs/comm-model.md "The wall-time studies under both models": uncompressed
# ResNet-50 scaling on V100s (roofline), DDP buckets, ring, under comm.model
# "ideal" (workloads/walltime/scaling.json) and "nccl" (scaling-nccl.json).
# Scaling efficiency = one GPU's compute time per iteration / iteration time.
set -eu
"$CCSIM" sweep "$SRC/workloads/walltime/scaling.json" --out "$WORK/ideal" --jobs 2 --quiet >/dev/null 2>&1
"$CCSIM" sweep "$SRC/workloads/walltime/scaling-nccl.json" --out "$WORK/nccl" --jobs 2 --quiet >/dev/null 2>&1
/usr/bin/python3 - "$WORK/ideal/sweep.csv" "$WORK/nccl/sweep.csv" <<'PY'
import csv, sys
def read(p):
    return {(int(r["workers"]), r["platform.bandwidth"]): r for r in csv.DictReader(open(p))}
I, N = read(sys.argv[1]), read(sys.argv[2])
bws = [("10Gbps", "10 Gbps"), ("25Gbps", "25 Gbps"), ("100Gbps", "100 Gbps")]
print("Scaling efficiency, ideal → nccl:")
print()
print("| V100s | " + " | ".join(b for _, b in bws) + " |")
print("|---|" + "---|" * len(bws))
def eff(r):
    return 100 * float(r["compute_s"]) / float(r["iteration_time_s"])
for n in (8, 16, 64):
    print(f"| {n} | " + " | ".join(f"{eff(I[(n, b)]):.1f}% → {eff(N[(n, b)]):.1f}%" for b, _ in bws) + " |")
PY
