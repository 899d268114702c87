# numbers: quick
# README "When compression pays": ResNet-50 on 64 V100s (roofline), DDP
# buckets, iteration time per method and link rate:
# `ccsim sweep workloads/walltime/pays.json`.
set -eu
"$CCSIM" sweep "$SRC/workloads/walltime/pays.json" --out "$WORK/pays" --jobs 2 --quiet >/dev/null 2>&1
/usr/bin/python3 - "$WORK/pays/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {(r["method"], r["platform.bandwidth"]): float(r["iteration_time_s"]) for r in rows}
x = {(r["method"], r["platform.bandwidth"]): r for r in rows}
names = [("none", "none (ring)"), ("fp16", "fp16 (ring)"), ("marsit", "Marsit (reconstructed compensation, ring)"),
         ("topk-allgather", "top-k 1% (ring all-gather)")]
bws = ["1Gbps", "10Gbps", "100Gbps"]
print("| | 1 Gbps | 10 Gbps | 100 Gbps |")
print("|---|---|---|---|")
for key, label in names:
    print(f"| {label} | " + " | ".join(f"{t[(key, b)]:.4f} s" for b in bws) + " |")
n100 = x[("none", "100Gbps")]
exp = float(n100["exposed_communicate_s"]) * 1e3
it = float(n100["iteration_time_s"]) * 1e3
best100 = min(t[(k, "100Gbps")] for k, _ in names)
print()
print(f"At 100 Gbps at most {100 * (1 - best100 / t[('none', '100Gbps')]):.1f}% of the uncompressed iteration is "
      f"saved by any method (its exposed communication is {exp:.1f} ms of {it:.0f} ms), and top-k over an "
      f"all-gather {'breaks even' if abs(t[('topk-allgather', '100Gbps')] / t[('none', '100Gbps')] - 1) < 0.01 else 'does not pay'}.")
print(f"At 10 Gbps Marsit saves {100 * (1 - t[('marsit', '10Gbps')] / t[('none', '10Gbps')]):.0f}%; at 1 Gbps the "
      f"uncompressed run is {t[('none', '1Gbps')] / t[('marsit', '1Gbps')]:.1f}× slower than Marsit, while top-k over an "
      f"all-gather, whose bytes grow with N, stays at {t[('none', '1Gbps')] / t[('topk-allgather', '1Gbps')]:.2f}× over uncompressed.")
PY
