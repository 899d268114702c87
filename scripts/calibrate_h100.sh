#!/usr/bin/env bash
# scripts/calibrate_h100.sh STEP [RUN] — measure an H100 for ccsim, merge the
# runs into devices/h100-measured.json, hold it against runs it was not made
# from, and compare the roofline with it (docs/devices.md).  Steps:
#
#   models R       on the GPU: every model profile x fp32, tf32, bf16 at batches
#                  16, 32, 64 (GPT-2 small: 4, 8), one process per batch
#                  -> devices/parts/models-bB-rR.json        (~2 minutes)
#   compressors R  on the GPU: every compressor over 2^10..2^25, DDP buckets,
#                  launch, and the held-out sizes 48000, 700000, 5e6, 25.6e6
#                  -> devices/parts/compressors-rR.json, elements-rR.json (~20 s)
#   merge          anywhere: model runs $MODEL_RUNS (default 1 2 3) and
#                  compressor runs $COMP_RUNS (default 1 2 3 4) -> the device file
#   heldout        anywhere: every other run, per-tensor ready times removed,
#                  -> devices/h100-heldout/ ; then `check`
#   check          ccsim with the device file against devices/h100-heldout/
#                  -> devices/h100-heldout.md
#   compare        roofline h100 against the device file, per model and
#                  precision and per compressor operation at 64K and 25.6M
#                  elements -> devices/h100-comparison.md
#
# Independent runs are separate processes: a GPU's figures move from one
# process to the next more than within one (docs/devices.md).  Run `models` 4
# times and `compressors` 5 times, then merge, heldout, compare.
# Environment: PY (default python3, needs torch with CUDA and torchvision for
# the GPU steps), CCSIM (default build/src/ccsim).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}
HOSTPY=${HOSTPY:-/usr/bin/python3}
CCSIM=${CCSIM:-build/src/ccsim}
MODELS=resnet50,vgg16,bert-base,lstm,resnet101,resnet50-cifar,lstm-wt2
need_gpu() {
  "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" ||
    { echo "calibrate_h100.sh: $PY sees no CUDA GPU" >&2; exit 1; }
  "$PY" -c "import torch; n = torch.cuda.get_device_name(); print(n); assert 'H100' in n, 'not an H100: ' + n"
}
run_no() { [[ "${1:-}" =~ ^[1-9][0-9]*$ ]] || { echo "calibrate_h100.sh: $2 needs a run number" >&2; exit 2; }; }
M="scripts/measure_device.py --name h100-measured --roofline h100"
case "${1:-}" in
  models)
    run_no "${2:-}" models; need_gpu; mkdir -p devices/parts
    for b in 16 32 64; do
      "$PY" $M --compressors= --warmup 5 --models $MODELS --batch $b --out devices/parts/models-b$b-r$2.json
    done
    for b in 4 8; do
      "$PY" $M --compressors= --warmup 5 --models gpt2-small --batch $b --out devices/parts/models-gpt2-b$b-r$2.json
    done
    ;;
  compressors)
    run_no "${2:-}" compressors; need_gpu; mkdir -p devices/parts
    "$PY" $M --models= --sizes 10:25 --out devices/parts/compressors-r$2.json
    "$PY" $M --models= --elements 48000,700000,5000000,25600000 --out devices/parts/elements-r$2.json
    ;;
  merge)
    models=() comps=()
    for r in ${MODEL_RUNS:-1 2 3}; do models+=(devices/parts/models-*-r$r.json); done
    for r in ${COMP_RUNS:-1 2 3 4}; do comps+=(devices/parts/compressors-r$r.json); done
    "$HOSTPY" scripts/merge_device.py --name h100-measured \
      --summary "NVIDIA H100 (PyTorch): every model profile in fp32, tf32 and bf16 at batches 16, 32, 64 (GPT-2 small 4, 8), ${#models[@]} runs; every compressor over 2^10..2^25, ${#comps[@]} runs; medians" \
      --compressors "${comps[@]}" --out devices/h100-measured.json "${models[@]}"
    ;;
  heldout)
    mkdir -p devices/h100-heldout
    "$HOSTPY" - "${MODEL_RUNS:-1 2 3}" "${COMP_RUNS:-1 2 3 4}" <<'PY'
import glob, json, os, re, sys
merged_m, merged_c = sys.argv[1].split(), sys.argv[2].split()
for p in sorted(glob.glob("devices/parts/*.json")):
    r = re.search(r"-r(\d+)\.json$", p).group(1)
    if (p.startswith("devices/parts/models-") and r in merged_m) or (
            p.startswith("devices/parts/compressors-") and r in merged_c):
        continue
    d = json.load(open(p))
    for precs in d.get("models", {}).values():
        for e in precs.values():
            e.pop("tensors", None)
    d["provenance"].setdefault("notes", []).append("held out: not merged into devices/h100-measured.json")
    with open(os.path.join("devices/h100-heldout", os.path.basename(p)), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
PY
    ;;
  check)
    "$HOSTPY" scripts/check_device.py --ccsim "$CCSIM" --measured devices/h100-measured.json \
      --sizes 65536,1048576,4194304,5000000,25600000,33554432 --out devices/h100-heldout.md devices/h100-heldout/*.json
    ;;
  compare)
    "$HOSTPY" scripts/compare_device.py --ccsim "$CCSIM" --measured devices/h100-measured.json \
      --sizes 65536,25600000 --out devices/h100-comparison.md
    ;;
  *)
    sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
