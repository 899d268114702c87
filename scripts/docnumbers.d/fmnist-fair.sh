# numbers: full
# workloads/convergence/README.md "Fashion-MNIST: the fair protocol": the
# tuning, held-out, time-to-accuracy and old-vs-new tables
# (workloads/convergence/fmnist/analyse.py). With FMNIST_FAIR_RAW=DIR they
# are made from the raw results of a protocol.sh run made elsewhere (DIR its
# OUT, or a .tgz of it; the tables name that run's commit, host and dates);
# FMNIST_FAIR_RAW=shipped takes the raw results shipped beside the study
# (workloads/convergence/fmnist/fair-raw.tgz); otherwise the study runs here
# (protocol.sh, JOBS = the cores: about 100 CPU-minutes).
set -eu
if [ "${FMNIST_FAIR_RAW:-}" = shipped ]; then
  FMNIST_FAIR_RAW=$SRC/workloads/convergence/fmnist/fair-raw.tgz
fi
if [ -n "${FMNIST_FAIR_RAW:-}" ] && [ "${FMNIST_FAIR_RAW%.tgz}" != "$FMNIST_FAIR_RAW" ]; then
  mkdir -p "$WORK/raw"
  tar -C "$WORK/raw" -xzf "$FMNIST_FAIR_RAW"
  R=$(find "$WORK/raw" -mindepth 2 -maxdepth 2 -name meta.txt -printf '%h\n' | head -1)
elif [ -n "${FMNIST_FAIR_RAW:-}" ]; then
  R=$FMNIST_FAIR_RAW
else
  R=$WORK/fair
  bash "$SRC/workloads/convergence/fmnist/protocol.sh" "$CCSIM" "$R" >/dev/null
fi
/usr/bin/python3 "$SRC/workloads/convergence/fmnist/analyse.py" "$R"
