#!/usr/bin/env bash
# tests/analysis_convergence.sh CCSIM SRCDIR — analysis/plot_convergence.py
# turns real training runs (4 workers, 20 iterations, uncompressed and
# Marsit, each at 1 Gbps and 100 Gbps) into the two PNGs and the table
# (skipped, exit 77, without matplotlib).
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$SRC/analysis/py" -c "import matplotlib" 2>/dev/null || { echo "no matplotlib: skipped"; exit 77; }
cat >"$T/none.json" <<JSON
{"name": "conv-none", "seed": 2, "workers": 4, "iterations": 20, "gradients": {"source": "train"},
 "train": {"data": "$SRC/workloads/data/digits.csv.gz", "model": {"kind": "mlp", "hidden": [16]},
           "optimizer": {"lr": 0.1, "momentum": 0.9}, "eval_every": 2},
 "compressor": "none", "collective": "allreduce/ring"}
JSON
sed -e 's/conv-none/conv-marsit/' -e 's/"compressor": "none"/"compressor": {"name": "marsit", "memory": {"name": "marsit", "eta": 100}}/' \
    -e 's/"lr": 0.1, "momentum": 0.9/"lr": 0.003, "momentum": 0/' "$T/none.json" >"$T/marsit.json"
for m in none marsit; do
  for bw in 1Gbps 100Gbps; do
    "$CCSIM" run "$T/$m.json" --out "$T/$bw/$m" --set platform.bandwidth=$bw --quiet >/dev/null || { echo "run $m $bw failed"; exit 1; }
  done
done
P="$SRC/analysis/py $SRC/analysis/plot_convergence.py"
$P curves "$T/1Gbps/none" "$T/1Gbps/marsit" -o "$T/curves.png" || exit 1
$P tta --speed 1Gbps "$T/1Gbps/none" "$T/1Gbps/marsit" --speed 100Gbps "$T/100Gbps/none" "$T/100Gbps/marsit" \
  --target 0.5 -o "$T/tta.png" || exit 1
$P table "$T/1Gbps/none" "$T/1Gbps/marsit" >"$T/table.md" || exit 1
for png in curves tta; do
  head -c 8 "$T/$png.png" | od -An -c | grep -q "P   N   G" || { echo "$png: not a PNG"; exit 1; }
  [ "$(stat -c %s "$T/$png.png")" -gt 10000 ] || { echo "$png: PNG too small"; exit 1; }
done
grep -q '^| none | none + none | allreduce/ring | lr 0.1, momentum 0.9 | 1.0 | ' "$T/table.md" && grep -q '^| marsit (reconstructed compensation) | marsit + marsit | allreduce/ring | lr 0.003, momentum 0, eta 100, beta 0.5 |' "$T/table.md" ||
  { echo "table rows missing:"; cat "$T/table.md"; exit 1; }
# the paired column: none against itself is +0.00; marsit's is its last-50
# mean minus none's (the column before it), in points
"$SRC/analysis/py" - "$T/table.md" <<'PY' || { cat "$T/table.md"; exit 1; }
import sys
rows = {l.split("|")[1].strip().split(" (")[0]: [c.strip() for c in l.split("|")[1:-1]]
        for l in open(sys.argv[1]) if l.startswith("| none ") or l.startswith("| marsit ")}
assert rows["none"][7] == "+0.00", rows["none"]
want = (float(rows["marsit"][6]) - float(rows["none"][6])) * 100
assert abs(float(rows["marsit"][7]) - want) < 0.011, (rows["marsit"], want)
PY
echo "analysis: plot_convergence.py wrote curves.png, tta.png and the table"
