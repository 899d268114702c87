#!/usr/bin/env bash
# tests/corpus_text.sh CCSIM SRCDIR — the real-corpus next-word task learns:
# workloads/convergence/text/none.json (King James Bible, vocabulary 1000 +
# <unk>, 8 workers x batch 32, uncompressed) cut to 300 iterations reaches a
# test accuracy of at least 0.155, four points above the test split's
# majority-class rate 0.1090 (<unk>; tests/test_corpus.c measures it), and
# the same run twice writes the same iterations.csv; bad corpus inputs are
# refused with exit 2 and the JSON path.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
refuse() { # name expected-message train-section
  printf '{"workers": 2, "iterations": 1, "gradients": {"source": "train"}, "train": %s}' "$3" >"$T/$1.json"
  out=$("$CCSIM" validate "$T/$1.json" 2>&1); rc=$?
  [ $rc -eq 2 ] && [[ "$out" == *"$2"* ]] || { echo "FAIL: $1: exit $rc, '$out' (expected '$2')"; exit 1; }
}
refuse missing 'train.data: cannot read "/nonexistent/kjv.txt"' '{"dataset": "corpus-text", "data": "/nonexistent/kjv.txt"}'
refuse other 'train.corpus: only for dataset "corpus-text"' '{"dataset": "digits", "corpus": {"vocab": 10}}'
refuse vocab 'train.corpus.vocab: expected an integer in [1, 65536], got 100000' '{"dataset": "corpus-text", "corpus": {"vocab": 100000}}'
refuse context 'train.corpus.context: expected an integer in [1, 8], got 9' '{"dataset": "corpus-text", "corpus": {"context": 9}}'
python3 - "$SRC/workloads/convergence/text/none.json" "$T/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["iterations"] = 300
d["train"]["eval_every"] = 300
d.pop("output", None)
json.dump(d, open(sys.argv[2], "w"))
PY
for r in a b; do
  "$CCSIM" run "$T/run.json" --out "$T/$r" --quiet >/dev/null || { echo "FAIL: run $r"; exit 1; }
done
cmp -s "$T/a/iterations.csv" "$T/b/iterations.csv" || { echo "FAIL: two runs differ"; exit 1; }
acc=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['final_accuracy'])" "$T/a/summary.json") ||
  { echo "FAIL: no test accuracy in summary.json"; exit 1; }
echo "test accuracy after 300 iterations: $acc (majority-class rate 0.1090)"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.155 else 1)" "$acc" ||
  { echo "FAIL: accuracy $acc below 0.155"; exit 1; }
echo "corpus_text: ok"
