#!/usr/bin/env bash
# scripts/calibrate_h100.sh STEP — measure an H100 for ccsim and compare the
# roofline with it.  Steps (each fits in 10 minutes on an H100; run them in
# order, the first two on the GPU machine, the rest anywhere ccsim builds):
#
#   models       every model profile x fp32, tf32, bf16 at the default batches
#                -> devices/h100-models.part.json
#   compressors  every compressor over 2^10..2^25, DDP buckets, launch
#                -> devices/h100-compressors.part.json
#   merge        the two parts -> devices/h100-measured.json (both commands
#                kept in provenance.command), parts removed
#   compare      roofline h100 vs h100-measured through ccsim, per model and
#                precision and per compressor operation at 64K and 25.6M
#                elements -> devices/h100-comparison.md
#
# Then commit devices/h100-measured.json and the tables (docs/devices.md).
# Environment: PY (default /usr/bin/python3, needs torch with CUDA and
# torchvision), CCSIM (default build/src/ccsim, for compare).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-/usr/bin/python3}
CCSIM=${CCSIM:-build/src/ccsim}
need_gpu() {
  "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" ||
    { echo "calibrate_h100.sh: $PY sees no CUDA GPU" >&2; exit 1; }
  "$PY" -c "import torch; n = torch.cuda.get_device_name(); print(n); assert 'H100' in n, 'not an H100: ' + n"
}
case "${1:-}" in
  models)
    need_gpu
    "$PY" scripts/measure_device.py --name h100-measured --roofline h100 --compressors '' \
      --summary "NVIDIA H100: every model profile in fp32, tf32 and bf16; every compressor over 2^10..2^25" \
      --out devices/h100-models.part.json
    ;;
  compressors)
    need_gpu
    "$PY" scripts/measure_device.py --name h100-measured --roofline h100 --models '' --sizes 10:25 \
      --out devices/h100-compressors.part.json
    ;;
  merge)
    "$PY" - devices/h100-models.part.json devices/h100-compressors.part.json devices/h100-measured.json <<'EOF'
import json, os, sys
m, c = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("torch", "cuda", "device", "driver"):
    if m["provenance"].get(k) != c["provenance"].get(k):
        sys.exit("the parts were measured differently: provenance.%s %r vs %r" % (k, m["provenance"].get(k), c["provenance"].get(k)))
doc = dict(m)
doc["compressors"], doc["ddp_buckets"] = c["compressors"], c["ddp_buckets"]
doc["provenance"] = dict(m["provenance"])
doc["provenance"]["command"] = m["provenance"]["command"] + " ; " + c["provenance"]["command"]
doc["provenance"]["date"] = m["provenance"]["date"] + " ; " + c["provenance"]["date"]
doc["provenance"]["notes"] = m["provenance"]["notes"] + c["provenance"]["notes"] + [
    "merged by scripts/calibrate_h100.sh merge: models from the first command, compressors, "
    "DDP buckets from the second, launch from the first"]
with open(sys.argv[3], "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
for p in sys.argv[1:3]:
    os.remove(p)
EOF
    echo "wrote devices/h100-measured.json"
    ;;
  compare)
    "$PY" scripts/compare_device.py --ccsim "$CCSIM" --measured devices/h100-measured.json \
      --sizes 65536,25600000 --out devices/h100-comparison.md
    ;;
  *)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
