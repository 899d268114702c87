#!/usr/bin/env bash
# tests/fidelity.sh CCSIM SRCDIR — ccsim against published collective
# measurements nobody here made (tests/validation/fidelity/cases.json:
# nccl-tests rows and NCCL issue statements, Horovod scaling figures; sources
# and quoted rows in the file, method and table in docs/fidelity.md).  Every
# case runs once with comm.model "ideal" (reported, not checked) and once with
# comm.model "nccl", except the two 512-GPU training cases (--quick: minutes
# each; docs/fidelity.md's run has them); the test fails when a nccl case
# leaves its band
# (bandwidth-bound 15%, latency-bound 30%, multi-NIC 20%, training 15%), when
# the geometric mean of |error| over the held-out half exceeds 10%, or when a
# run fails (a ccsim without the comm section refuses comm.model=nccl, and
# the test says so).
set -u
CCSIM=$1
SRC=$2
CASES=$SRC/tests/validation/fidelity/cases.json
n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$CASES") || exit 1
[ "$n" -ge 20 ] || { echo "FAIL: only $n cases in $CASES"; exit 1; }
/usr/bin/python3 "$SRC/scripts/fidelity.py" --ccsim "$CCSIM" --cases "$CASES" --models ideal,nccl --jobs 2 --quick --check
