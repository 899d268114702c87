# numbers: full
# workloads/papers/mergecomp/README.md "Results": the whole study (run.sh:
# 2 models x 2 platforms x 2 devices x 9 compressors x 4 schedules, plus the
# baselines) under comm.model "ideal" and again under "nccl"
# (SETS="comm.model=nccl"), each claim of the paper beside ccsim's number
# under both models, and whether the conclusion moved under nccl.
# Long: about 2 x 15 CPU minutes.  The sweeps go to results/papers/mergecomp/
# full and full-nccl (MERGECOMP_OUT overrides results/papers/mergecomp) and
# resume: a point already run with the same experiment is reused.
set -eu
R=${MERGECOMP_OUT:-$SRC/results/papers/mergecomp}
CCSIM=$CCSIM OUT=$R/full bash "$SRC/workloads/papers/mergecomp/run.sh" >"$WORK/ideal.log" 2>&1 ||
  { tail -20 "$WORK/ideal.log" >&2; exit 1; }
CCSIM=$CCSIM OUT=$R/full-nccl SETS="comm.model=nccl" bash "$SRC/workloads/papers/mergecomp/run.sh" >"$WORK/nccl.log" 2>&1 ||
  { tail -20 "$WORK/nccl.log" >&2; exit 1; }
/usr/bin/python3 "$SRC/workloads/papers/mergecomp/claims.py" "$R/full/analysis/table.csv" "$R/full-nccl/analysis/table.csv"
