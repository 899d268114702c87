# numbers: quick
# workloads/papers/sbc/README.md "Wall time under both communication models":
# SBC states its savings in bytes, not time; what one upload of ResNet-50
# (traffic.json: 2 workers, per-tensor compression over 161 tensors, 10 Gbps
# crossbar, 5 us) costs in simulated time under comm.model "ideal" and
# "nccl", SBC at p = 1% and 0.1% (m = 1: one upload) against fp32
# (traffic-fp32.json, coordinate-sampled: an fp32 payload's time does not
# depend on the data, docs/engine.md). The bytes are the same under both.
set -eu
P="$SRC/workloads/papers/sbc"
run() { "$CCSIM" run --quiet "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }; }
for model in ideal nccl; do
  run "$P/traffic-fp32.json" --set model.sample=65536 --set comm.model=$model --out "$WORK/$model-fp32"
  for p in 0.01 0.001; do
    run "$P/traffic.json" --set compressor.ratio=$p --set comm.model=$model --out "$WORK/$model-p$p"
  done
done
/usr/bin/python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
s = lambda k: json.load(open(os.path.join(work, k, "summary.json")))
print("| one upload of ResNet-50 (2 workers, 10 Gbps) | the paper | bytes per worker (both models) | "
      "fp32 / SBC bytes | ccsim ideal: ms (fp32 / SBC time) | ccsim nccl: ms (fp32 / SBC time) |")
print("|---|---|---|---|---|---|")
f = {k: s(f"{k}-fp32") for k in ("ideal", "nccl")}
print(f"| fp32 | - | {f['ideal']['bytes_on_wire'] / 2:,.0f} | - | {1e3 * f['ideal']['iteration_time_s']:.2f} | "
      f"{1e3 * f['nccl']['iteration_time_s']:.2f} |")
for p, paper in (("0.01", "bytes only: x3,531 with its delay"), ("0.001", "bytes only: x37,208 with its delay")):
    r = {k: s(f"{k}-p{p}") for k in ("ideal", "nccl")}
    if r["ideal"]["bytes_on_wire"] != r["nccl"]["bytes_on_wire"]:
        sys.exit("sbc-models: the bytes differ between the comm models")
    xb = f["ideal"]["bytes_on_wire"] / r["ideal"]["bytes_on_wire"]
    cells = [f"{1e3 * r[k]['iteration_time_s']:.3f} (x{f[k]['iteration_time_s'] / r[k]['iteration_time_s']:,.1f})"
             for k in ("ideal", "nccl")]
    print(f"| SBC p = {float(p) * 100:g}%, m = 1 | {paper} | {r['ideal']['bytes_on_wire'] / 2:,.0f} | x{xb:,.0f} | "
          + " | ".join(cells) + " |")
r = s("nccl-p0.001")
calls = r["comm"]["protocol_calls"]
print()
print(f"Under nccl the SBC upload is {sum(calls.values())} calls (one per tensor; protocols: "
      + ", ".join(f"{k} {v}" for k, v in calls.items() if v) + ").")
PY
