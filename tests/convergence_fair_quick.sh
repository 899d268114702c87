#!/usr/bin/env bash
# tests/convergence_fair_quick.sh CCSIM SRCDIR — the Fashion-MNIST fair
# protocol end to end in its QUICK mode (workloads/convergence/fmnist/
# protocol.sh: a 1,024-image subset, 4 iterations, uncompressed and top-k
# with both error-feedback placements; about 10 CPU seconds), run from a copy
# of the study's directory outside the source tree, then analyse.py. Checks:
# every stage's raw results and every table; the grid extension (top-k's
# first point has only the middle step, so its best is on the edge and its
# neighbours are added); a diverged run is a result scoring 0; a rerun runs
# nothing (resume); analyse.py refuses
# raw results whose tuning no longer gives protocol.sh's choice; a bad
# FMNIST directory is exit 2 with one line; the t quantile. Skipped (77)
# without the dataset or numpy.
set -u
CCSIM=$(realpath "$1")
SRC=$2
D=/usr/share/datasets/fashion-mnist
[ -r "$D/train-images-idx3-ubyte.gz" ] || { echo "no $D: skipped"; exit 77; }
/usr/bin/python3 -c "import numpy" 2>/dev/null || { echo "no numpy: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cp -r "$SRC/workloads/convergence/fmnist" "$T/study"
# counts the ccsim runs
printf '#!/bin/sh\n[ "$1" != run ] || echo run >>"%s/count"\nexec "%s" "$@"\n' "$T" "$CCSIM" >"$T/ccsim"
chmod +x "$T/ccsim"
: >"$T/count"
QUICK=1 JOBS=2 ANALYSE=1 FMNIST=$D bash "$T/study/protocol.sh" "$T/ccsim" "$T/out" >"$T/log" 2>&1 ||
  { cat "$T/log"; fail "the quick protocol failed"; }
n1=$(wc -l <"$T/count")
R=$T/out/report.md
grep -q '^status=complete$' "$T/out/meta.txt" || fail "meta.txt: not complete"
for s in 11 12; do
  for m in none topk; do [ -s "$T/out/heldout/$m/seed$s.csv" ] || fail "no held-out $m seed $s"; done
done
for bw in 1Gbps 10Gbps 100Gbps; do [ -s "$T/out/speed/topk/$bw.csv" ] || fail "no speed run $bw"; done
# uncompressed, top-k's two placements: 3 x 4 tuning points, 2 x 2 held-out, 2 x 3 speeds
[ "$n1" = 22 ] || fail "expected 22 runs, counted $n1"
for p in residual dgc; do
  grep -q 'extending with' "$T/out/tune/topk/$p/rounds.txt" || fail "topk $p: no grid extension"
  [ "$(wc -l <"$T/out/tune/topk/$p/points.txt")" = 4 ] || fail "topk $p: expected 4 grid points"
done
grep -q '^| uncompressed | \*\*as defined\*\* | 4 (0) | 0.25, 0.5, 1 | 0, 0.5 |' "$R" || { cat "$R"; fail "tuning table"; }
grep -q '^| top-k 1% | .*lr .*, momentum .* | 0\.[0-9]* (0\.[0-9]*–0\.[0-9]*)[^|]* | [-+][0-9.]* \[[-+][0-9.]*, [-+][0-9.]*\] ' "$R" ||
  { cat "$R"; fail "held-out table: no gap with an interval"; }
grep -q '^| top-k 1% | [0-9.]* | [0-9.]* | [0-9.]* | ' "$R" || { cat "$R"; fail "time-to-accuracy table"; }
grep -q '^| top-k 1% | -5.45 \[-8.09, -2.81\] worse | ' "$R" || { cat "$R"; fail "old-vs-new table"; }
[ "$(du -sk "$T/out" | cut -f1)" -lt 2048 ] || fail "raw results over 2 MiB"
# a rerun runs nothing
QUICK=1 JOBS=2 FMNIST=$D bash "$T/study/protocol.sh" "$T/ccsim" "$T/out" >"$T/log2" 2>&1 || { cat "$T/log2"; fail "rerun"; }
[ "$(wc -l <"$T/count")" = "$n1" ] || fail "the rerun ran $(($(wc -l <"$T/count") - n1)) runs again"
# raw results that no longer give protocol.sh's choice are refused
p=$(awk '{ print $1 }' "$T/out/tune/topk/best.txt")
read -r _ e m _ < <(tail -1 "$T/out/tune/topk/$p/rounds.txt")
other=$(awk -v b="$e $m" '$1 " " $2 != b { print "e" $1 "-m" $2; exit }' "$T/out/tune/topk/$p/points.txt")
f=$T/out/tune/topk/$p/$other/seed1.csv
[ -s "$f" ] || fail "no $f"
awk -F, 'BEGIN { OFS = "," } NR > 1 { $5 = 0.99 } 1' "$f" >"$f.x" && mv "$f.x" "$f"
/usr/bin/python3 "$T/study/analyse.py" "$T/out" >/dev/null 2>"$T/err" && fail "analyse.py took a tampered grid"
grep -q 'chose' "$T/err" || { cat "$T/err"; fail "analyse.py: wrong message"; }
# a diverging grid point: a stand-in for ccsim fails every run at lr 300
# as ccsim does when training diverges; the point leaves that line in a
# .failed file, scores 0, and the study still completes
printf '#!/bin/sh\nfor a; do [ "$a" != train.optimizer.lr=300 ] || { echo "ccsim: none.json: training diverged: worker 3'"'"'s loss at iteration 2 is not finite (stand-in)" >&2; exit 1; }; done\nexec "%s" "$@"\n' "$CCSIM" >"$T/ccsim-div"
chmod +x "$T/ccsim-div"
QUICK=1 QUICK_METHODS=none EFF0=300 JOBS=2 FMNIST=$D bash "$T/study/protocol.sh" "$T/ccsim-div" "$T/div" >"$T/log3" 2>&1 ||
  { cat "$T/log3"; fail "the study with a diverging point failed"; }
grep -q 'training diverged' "$T/div/tune/none/default/e300-m0/seed1.failed" || fail "no divergence recorded"
grep -q '^round 0: eff 300 momentum 0 score 0.000000 failed 1$' "$T/div/tune/none/default/rounds.txt" ||
  { cat "$T/div/tune/none/default/rounds.txt"; fail "a diverged point does not score 0"; }
grep -q '^status=complete$' "$T/div/meta.txt" || fail "the study with a diverging point is not complete"
# a bad dataset directory
FMNIST=$T/nothing bash "$T/study/protocol.sh" "$T/ccsim" "$T/bad" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] || fail "FMNIST=nothing: exit $rc, expected 2"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "FMNIST=$T/nothing: no train-images-idx3-ubyte.gz" "$T/err" || { cat "$T/err"; fail "FMNIST message"; }
/usr/bin/python3 -c "
import sys; sys.path.insert(0, '$T/study')
from analyse import t_quantile
assert abs(t_quantile(0.975, 4) - 2.776445) < 1e-5 and abs(t_quantile(0.975, 1) - 12.706205) < 1e-4
" || fail "t quantile"
echo "fair protocol quick: $n1 runs, report $(wc -l <"$R") lines"
