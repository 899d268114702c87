# numbers: full
# workloads/convergence/README.md "Fashion-MNIST: the fair protocol": the
# tuning, held-out, time-to-accuracy and old-vs-new tables
# (workloads/convergence/fmnist/analyse.py). With FMNIST_FAIR_RAW=DIR they
# are made from the raw results of a protocol.sh run made elsewhere (DIR its
# OUT; the tables name that run's commit, host and dates); otherwise the
# study runs here (protocol.sh, JOBS = the cores: about 125 CPU-minutes).
set -eu
if [ -n "${FMNIST_FAIR_RAW:-}" ]; then
  R=$FMNIST_FAIR_RAW
else
  R=$WORK/fair
  bash "$SRC/workloads/convergence/fmnist/protocol.sh" "$CCSIM" "$R" >/dev/null
fi
/usr/bin/python3 "$SRC/workloads/convergence/fmnist/analyse.py" "$R"
