#!/usr/bin/env bash
# workloads/convergence/fmnist/protocol.sh CCSIM OUT — the fair protocol of
# the Fashion-MNIST LeNet-5 study (README.md beside this directory, "The fair
# protocol"). Every method is tuned on the tuning seeds only, then reported on
# held-out seeds that tuning never saw:
#
#   tuning    per method and error-feedback placement, a grid of the
#             effective step eff = lr / (1 - momentum) (factor-2 steps) x
#             momentum (ladder 0, 0.5, 0.9, 0.95, 0.98; the optimizer's, or
#             the DGC memory's for the "dgc" placement); score = the mean
#             test accuracy of the evaluations in the last epoch, averaged
#             over the tuning seeds (a run that fails, e.g. diverges, scores
#             0). Until the best point's neighbours (eff / 2, eff x 2, the
#             next momentum down and up) have all been run, they are added
#             and run: the best ends inside its grid (momentum 0 and the
#             ladder's top are the domain's edges), or the tuning stops after
#             MAX_ROUNDS extensions and says so (tune/M/P/rounds.txt).
#   held-out  the best placement's best point on every held-out seed, the
#             whole test set evaluated every HELD_EVAL iterations.
#   speed     the same setting for SPEED_ITERS iterations at each link speed:
#             the simulated iteration time (training does not depend on it).
#
# Writes only compact raw results under OUT (tar-able, a few hundred KB):
#   meta.txt                          the protocol's parameters and provenance
#   tune/M/P/e{eff}-m{m}/seed{S}.csv  one row per evaluation (protocol-lib.sh
#                                     run_one says which columns)
#   tune/M/P/points.txt, rounds.txt   the grid as it grew, the scores, the choice
#   tune/M/best.txt                   the placement and point reported
#   heldout/M/seed{S}.csv, speed/M/{bw}.csv
#   a run whose training diverged leaves seed{S}.failed (ccsim's line) instead
# A run's full output is written under OUT/.scratch and deleted once its
# evaluations are extracted (KEEP_RUNS=1 keeps it). A finished run is never
# rerun: kill the study and start it again to resume.
#
# Environment: FMNIST the dataset directory (train.data; default
# /usr/share/datasets/fashion-mnist), JOBS runs at once (default nproc; each
# run is one thread), METHODS (default all seven), QUICK=1 a tiny version
# (a 1,024-image subset made under OUT, a few iterations, two held-out seeds:
# seconds), ANALYSE=1 runs analyse.py on OUT at the end (needs python3 with
# numpy), CCSIM_COMMIT the commit meta.txt names when the copy is not a git
# checkout. Exit 0 when every stage finished (diverged runs are results, not
# failures), 1 when a run failed in another way, 2 on bad usage.
set -u
if [ $# -ne 2 ]; then
  echo "usage: [FMNIST=DIR] [JOBS=N] [QUICK=1] [ANALYSE=1] $0 CCSIM OUT" >&2
  exit 2
fi
[ -x "$1" ] || { echo "$0: $1: not an executable ccsim" >&2; exit 2; }
CCSIM=$(realpath "$1")
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
FMNIST=${FMNIST:-/usr/share/datasets/fashion-mnist}
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
  [ -r "$FMNIST/$f" ] || { echo "$0: FMNIST=$FMNIST: no $f (expected the idx files of Fashion-MNIST)" >&2; exit 2; }
done
FMNIST=$(cd "$FMNIST" && pwd)
JOBS=${JOBS:-$(nproc)}
QUICK=${QUICK:-0}
METHODS=${METHODS:-"none ef-signsgd sbc topk marsit global-qsgd sign-ring"}
# the study ran on OpenBLAS's Haswell kernels (docs/training.md, Determinism)
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=Haswell
fi

# 16 workers x batch 32 = 512 images per iteration; 60,000 / 512 = 117.2
# iterations per epoch; 4 epochs = 469 iterations. EPOCHS, TUNE_SEEDS,
# HELD_SEEDS, MOMENTA0, MAX_ROUNDS, GRID=mid (each method's middle first
# step only) and EFF0 (the first steps of every method) in the environment
# make a reduced study; meta.txt records them.
TRAIN_SAMPLES=0 TRAIN_N=60000
EPOCHS=${EPOCHS:-4}
TUNE_SEEDS=${TUNE_SEEDS:-"1 2"} HELD_SEEDS=${HELD_SEEDS:-"11 12 13 14 15"}
TUNE_TEST=2000 TUNE_EVAL=30 HELD_TEST=10000 HELD_EVAL=20
MOMENTA0=${MOMENTA0:-"0 0.5 0.9"} LADDER="0 0.5 0.9 0.95 0.98" MAX_ROUNDS=${MAX_ROUNDS:-4}
GRID=${GRID:-full}
SPEEDS="1Gbps 10Gbps 100Gbps" SPEED_ITERS=20
if [ "$QUICK" = 1 ]; then
  TRAIN_SAMPLES=1024 TRAIN_N=1024 EPOCHS=2
  TUNE_SEEDS="1" HELD_SEEDS="11 12" TUNE_TEST=128 TUNE_EVAL=1 HELD_TEST=256 HELD_EVAL=1
  MOMENTA0="0" MAX_ROUNDS=1 GRID=mid SPEED_ITERS=1
  METHODS=${QUICK_METHODS:-"none topk"}
  # a 1,024-image training set and a 256-image test set in the idx format,
  # cut from the real files, so that each run loads in milliseconds
  Q=$OUT/quick-data
  mkdir -p "$Q"
  cut_idx() { # SRC DST COUNT ITEM-BYTES HEADER-BYTES MAGIC DIMS (printf escapes)
    { printf "$6"; printf "\\x00\\x00\\x$(printf %02x $(($3 >> 8)))\\x$(printf %02x $(($3 & 255)))"; printf "$7"
      gzip -dc "$1" | tail -c +$(($5 + 1)) | head -c $(($3 * $4)); } | gzip -1 >"$2"
  }
  [ -s "$Q/train-images-idx3-ubyte.gz" ] || {
    cut_idx "$FMNIST/train-images-idx3-ubyte.gz" "$Q/train-images-idx3-ubyte.gz" 1024 784 16 '\x00\x00\x08\x03' '\x00\x00\x00\x1c\x00\x00\x00\x1c'
    cut_idx "$FMNIST/train-labels-idx1-ubyte.gz" "$Q/train-labels-idx1-ubyte.gz" 1024 1 8 '\x00\x00\x08\x01' ''
    cut_idx "$FMNIST/t10k-images-idx3-ubyte.gz" "$Q/t10k-images-idx3-ubyte.gz" 256 784 16 '\x00\x00\x08\x03' '\x00\x00\x00\x1c\x00\x00\x00\x1c'
    cut_idx "$FMNIST/t10k-labels-idx1-ubyte.gz" "$Q/t10k-labels-idx1-ubyte.gz" 256 1 8 '\x00\x00\x08\x01' ''
  }
  FMNIST=$Q
fi
EPOCH_ITERS=$((TRAIN_N / 512))
ITERS=$(((EPOCHS * TRAIN_N + 511) / 512))

. "$HERE/protocol-lib.sh"

{
  echo "protocol=fmnist-fair"
  echo "quick=$QUICK"
  echo "ccsim=$("$CCSIM" --version 2>/dev/null | head -1)"
  echo "commit=${CCSIM_COMMIT:-$(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "host=$(uname -n) $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
  echo "openblas_coretype=${OPENBLAS_CORETYPE:-}"
  echo "jobs=$JOBS"
  echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "methods=$METHODS"
  echo "workers=16"
  echo "batch=32"
  echo "train_samples=$TRAIN_SAMPLES"
  echo "epoch_iters=$EPOCH_ITERS"
  echo "epochs=$EPOCHS"
  echo "iterations=$ITERS"
  echo "tune_seeds=$TUNE_SEEDS"
  echo "heldout_seeds=$HELD_SEEDS"
  echo "tune_test_samples=$TUNE_TEST"
  echo "tune_eval_every=$TUNE_EVAL"
  echo "heldout_test_samples=$HELD_TEST"
  echo "heldout_eval_every=$HELD_EVAL"
  echo "momenta0=$MOMENTA0"
  echo "grid=$GRID"
  echo "eff0=${EFF0:-}"
  echo "ladder=$LADDER"
  echo "max_rounds=$MAX_ROUNDS"
  echo "speeds=$SPEEDS"
  echo "speed_iters=$SPEED_ITERS"
} >"$OUT/meta.txt"

# the job server: JOBS one-byte tokens in a FIFO held open on fd 3; every
# ccsim run takes one for its duration (protocol-lib.sh `run_one`)
FIFO=$OUT/.jobs.fifo
rm -f "$FIFO"
mkfifo "$FIFO"
exec 3<>"$FIFO"
rm -f "$FIFO"
for _ in $(seq "$JOBS"); do printf x >&3; done

mkdir -p "$OUT/log"
pids=() names=()
for m in $METHODS; do
  method_pipeline "$m" >"$OUT/log/$m.log" 2>&1 &
  pids+=($!)
  names+=("$m")
done
bad=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { bad=1; echo "$0: method ${names[$i]} failed:" >&2; tail -5 "$OUT/log/${names[$i]}.log" >&2; }
done
exec 3>&-
rmdir "$OUT/.scratch" 2>/dev/null
echo "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/meta.txt"
echo "status=$([ $bad = 0 ] && echo complete || echo failed)" >>"$OUT/meta.txt"
[ $bad = 0 ] || exit 1
if [ "${ANALYSE:-0}" = 1 ]; then
  /usr/bin/python3 "$HERE/analyse.py" "$OUT" >"$OUT/report.md" || exit 1
  echo "$OUT/report.md"
fi
