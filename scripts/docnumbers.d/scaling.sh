# numbers: quick
# README "Scaling, uncompressed": ResNet-50 on V100s (roofline), DDP buckets,
# ring all-reduce on a crossbar: `ccsim sweep workloads/walltime/scaling.json`.
# Scaling efficiency = one GPU's compute time per iteration / iteration time.
set -eu
"$CCSIM" sweep "$SRC/workloads/walltime/scaling.json" --out "$WORK/s" --jobs 2 --quiet >/dev/null 2>&1
/usr/bin/python3 - "$WORK/s/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {(int(r["workers"]), r["platform.bandwidth"]): r for r in rows}
comp = float(rows[0]["compute_s"])
print(f"One GPU's compute time per iteration: {comp:.4f} s.")
print()
bws = ["10Gbps", "25Gbps", "100Gbps"]
print("| V100s | 10 Gbps | 25 Gbps | 100 Gbps |")
print("|---|---|---|---|")
for n in (8, 16, 64):
    cells = []
    for b in bws:
        it = float(t[(n, b)]["iteration_time_s"])
        cells.append(f"{it:.4f} s, {100 * float(t[(n, b)]['compute_s']) / it:.1f}%")
    print(f"| {n} | " + " | ".join(cells) + " |")
PY
