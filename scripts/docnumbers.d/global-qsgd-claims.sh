# numbers: full
# workloads/papers/global-qsgd/README.md "Claims": the whole study (run.sh)
# under comm.model "ideal" and again under "nccl" (SETS="comm.model=nccl"),
# each claim of the paper beside ccsim's number under both, whether the
# conclusion moved under nccl, and the error claims (compare.py).  About 2 x 5
# CPU minutes.  The sweeps go to results/papers/global-qsgd/full and
# full-nccl (GQSGD_OUT overrides results/papers/global-qsgd) and resume.
set -eu
R=${GQSGD_OUT:-$SRC/results/papers/global-qsgd}
CCSIM=$CCSIM OUT=$R/full bash "$SRC/workloads/papers/global-qsgd/run.sh" >"$WORK/ideal.log" 2>&1 ||
  { tail -20 "$WORK/ideal.log" >&2; exit 1; }
CCSIM=$CCSIM OUT=$R/full-nccl SETS="comm.model=nccl" bash "$SRC/workloads/papers/global-qsgd/run.sh" >"$WORK/nccl.log" 2>&1 ||
  { tail -20 "$WORK/nccl.log" >&2; exit 1; }
/usr/bin/python3 "$SRC/workloads/papers/global-qsgd/compare.py" "$R/full" "$R/full-nccl"
