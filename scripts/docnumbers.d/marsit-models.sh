# numbers: quick
# workloads/papers/marsit/README.md "Where an iteration's time goes": the
# simulated time per iteration of each method of the Marsit study (8
# workers, the cloud network: 2 racks, 10 Gbps, 25 us per link, 2:1
# uplinks; LeNet-5, V100 roofline) under comm.model "ideal" (the study),
# "ideal" with 0 us links (the two ring methods), and "nccl". 2 iterations each (an iteration's
# time is the same at every iteration: fixed-size payloads, fixed compute).
set -eu
P="$SRC/workloads/papers/marsit"
run() { "$CCSIM" run --quiet "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }; }
for m in fp32-ring fp32-torus marsit-ring marsit-torus sign-ring; do
  run "$P/$m.json" --set iterations=2 --set train.eval_every=2 --out "$WORK/ideal-$m"
  case $m in fp32-ring | marsit-ring)
    run "$P/$m.json" --set iterations=2 --set train.eval_every=2 --set platform.latency=0us --out "$WORK/zero-$m" ;;
  esac
  run "$P/$m.json" --set iterations=2 --set train.eval_every=2 --set comm.model=nccl --out "$WORK/nccl-$m"
done
/usr/bin/python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
M = ["fp32-ring", "fp32-torus", "marsit-ring", "marsit-torus", "sign-ring"]
BASE = {"marsit-ring": "fp32-ring", "marsit-torus": "fp32-torus", "sign-ring": "fp32-ring"}
label = lambda m: f"{m} (reconstructed compensation)" if m.startswith("marsit") else m
def s(k, m):
    return json.load(open(os.path.join(work, f"{k}-{m}", "summary.json")))
ms = {k: {m: 1e3 * s(k, m)["iteration_time_s"] for m in M if os.path.isdir(os.path.join(work, f"{k}-{m}"))}
      for k in ("ideal", "zero", "nccl")}
comp = {m: 1e3 * s("ideal", m)["time_breakdown_s"]["compute"] / s("ideal", m)["iterations"] for m in M}
proto = {m: s("nccl", m)["comm"]["protocol_calls"] for m in M}
print("Simulated ms per iteration, 8 workers (in brackets: saved against fp32 on the same topology):")
print()
print("| method | ideal, 25 µs per link (the study) | ideal, 0 µs links | nccl | compute (V100 roofline) | nccl protocol |")
print("|---|---|---|---|---|---|")
for m in M:
    cells = []
    for k in ("ideal", "zero", "nccl"):
        if m not in ms[k]:
            cells.append("-")
            continue
        c = f"{ms[k][m]:.3f}"
        if m in BASE:
            c += f" ({100 * (1 - ms[k][m] / ms[k][BASE[m]]):+.1f}%)"
        cells.append(c)
    p = ", ".join(f"{k} {v}" for k, v in proto[m].items() if v)
    print(f"| {label(m)} | " + " | ".join(cells) + f" | {comp[m]:.3f} | {p} |")
PY
