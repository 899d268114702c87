#!/usr/bin/env bash
# tests/convergence_trace.sh CCSIM TEST_CONVERGENCE SRCDIR — the gradients a
# training run computed, recorded with --record-trace and replayed with
# gradients.source "trace", give the same aggregates bit for bit.
#  1. train (digits, MLP 64-16-10, 4 workers, 6 iterations, compressor none,
#     allreduce/ring) recording trace T1;
#  2. replay T1 (same workers, collective, compressor) recording T2: every
#     gradient file of T2 equals T1's byte for byte (the replay fed exactly
#     what training computed) and index.json differs only in "source";
#  3. the runs' iterations.csv (times, bytes, aggregate errors: the
#     training columns aside) and hops.csv are the same;
#  4. for k = 1..6 the aggregate of iteration k-1, written by runs of k
#     iterations (a run's first k iterations do not depend on how many
#     follow), is the same in both runs bit for bit; consecutive aggregates
#     differ, so the comparison can fail.
# Step 4 is what makes the round trip exact: the trained run's aggregate
# drives its next parameters, so if training fed the collective anything
# but the recorded gradients, the aggregates would differ.
set -u
CCSIM=$1
TC=$2
SRC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
cat >"$T/train.json" <<JSON
{"name": "rt-train", "seed": 5, "workers": 4, "iterations": 6,
 "gradients": {"source": "train"},
 "train": {"data": "$SRC/workloads/data/digits.csv.gz", "model": {"kind": "mlp", "hidden": [16]},
           "batch": 16, "optimizer": {"lr": 0.1, "momentum": 0.9}},
 "compressor": "none", "collective": "allreduce/ring"}
JSON
cat >"$T/replay.json" <<JSON
{"name": "rt-replay", "seed": 5, "workers": 4, "iterations": 6,
 "gradients": {"source": "trace", "trace": "t1"},
 "compressor": "none", "collective": "allreduce/ring"}
JSON
"$CCSIM" run "$T/train.json" --out "$T/r1" --record-trace "$T/t1" --quiet >/dev/null || { echo "FAIL: training run"; exit 1; }
"$CCSIM" run "$T/replay.json" --out "$T/r2" --record-trace "$T/t2" --quiet >/dev/null || { echo "FAIL: replay run"; exit 1; }

files=0
for f in "$T"/t1/w*/it*.npy; do
  rel=${f#"$T/t1/"}
  cmp -s "$f" "$T/t2/$rel" || { echo "FAIL: $rel differs between the trace and its replay"; fail=1; }
  files=$((files + 1))
done
[ "$files" -eq 24 ] || { echo "FAIL: $files gradient files, expected 4 workers x 6 iterations"; fail=1; }
diff <(grep -v '"source"' "$T/t1/index.json") <(grep -v '"source"' "$T/t2/index.json") >/dev/null ||
  { echo "FAIL: index.json differs beyond its source"; fail=1; }
grep -q '"name": "fc1.weight"' "$T/t1/index.json" && grep -q '"elements": 1210' "$T/t1/index.json" ||
  { echo "FAIL: the trace's layers are not the model's"; fail=1; }
cmp -s <(cut -d, -f1-10 "$T/r1/iterations.csv") <(cut -d, -f1-10 "$T/r2/iterations.csv") ||
  { echo "FAIL: iterations.csv differs (beyond the training columns)"; fail=1; }
cmp -s "$T/r1/hops.csv" "$T/r2/hops.csv" || { echo "FAIL: hops.csv differs"; fail=1; }

for k in 1 2 3 4 5 6; do
  "$TC" aggregate "$T/train.json" "$T/a$k.f32" "iterations=$k" 2>/dev/null || { echo "FAIL: training run of $k iterations"; fail=1; }
  "$TC" aggregate "$T/replay.json" "$T/b$k.f32" "iterations=$k" 2>/dev/null || { echo "FAIL: replay of $k iterations"; fail=1; }
  cmp -s "$T/a$k.f32" "$T/b$k.f32" || { echo "FAIL: the aggregate of iteration $((k - 1)) differs"; fail=1; }
  [ "$(stat -c %s "$T/a$k.f32")" -eq 4840 ] || { echo "FAIL: aggregate $k is not 1210 floats"; fail=1; }
  if [ "$k" -gt 1 ] && cmp -s "$T/a$k.f32" "$T/a$((k - 1)).f32"; then
    echo "FAIL: aggregates $((k - 2)) and $((k - 1)) are identical"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "convergence_trace: 24 gradient files and 6 aggregates identical after the round trip"
exit $fail
