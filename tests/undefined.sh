#!/usr/bin/env bash
# tests/undefined.sh CCSIM SRCDIR — a figure that does not exist is shown as
# absent, never as a number (docs/outputs.md, "Figures that do not exist"):
# null in summary.json with the reason under "undefined", an empty CSV cell,
# "n/a" on stdout.  Two cases: a threshold no gradient crosses (nothing
# sent: no compression ratio; a zero aggregate: no cosine) and gradients
# that underflow in fp16 (a zero aggregate of a nonzero mean).
. "$(dirname "$0")/lib.sh" "$@"
py=/usr/bin/python3
# check DIR PYTHON-EXPRESSION over s (summary.json) and rows (iterations.csv as dicts)
check() {
  $py - "$@" <<'PY'
import csv, json, sys
d, expr = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/summary.json"))
rows = list(csv.DictReader(open(d + "/iterations.csv")))
sys.exit(0 if eval(expr) else 1)
PY
}

# 1. a threshold no gradient crosses
printf '%s\n' '{"name": "thr", "workers": 3, "iterations": 3, "model": {"elements": 1000}, "compressor": {"name": "threshold", "tau": 1e30}, "collective": "allgather/ring"}' >thr.json
"$CCSIM" run thr.json --out thr --quiet >out 2>err || bad "threshold: exit $?: $(cat err)"
check thr 's["bytes_on_wire"] == 0 and s["compression_ratio"] is None and s["undefined"]["compression_ratio"] == "nothing was sent: 0 bytes on the wire"' &&
  ok || bad "threshold: compression_ratio $(grep -A3 '"undefined"' thr/summary.json)"
check thr 's["agg_cosine"] is None and s["undefined"]["agg_cosine"].startswith("iteration 0: the aggregate is a zero vector") and s["undefined"]["agg_cosine"].endswith("(undefined in 3 of 3 iterations)")' &&
  ok || bad "threshold: agg_cosine"
# the relative error exists (the aggregate misses all of the mean): 1
check thr 's["agg_rel_error"] == 1.0 and "agg_rel_error" not in s["undefined"]' && ok || bad "threshold: agg_rel_error"
check thr 'all(r["compression_ratio"] == "" and r["agg_cosine"] == "" and r["agg_rel_error"] == "1" for r in rows)' &&
  ok || bad "threshold: iterations.csv: $(sed -n 2p thr/iterations.csv)"
grep -q "compression ratio n/a (nothing was sent)" out && grep -q "cosine n/a (a zero vector)" out && ok ||
  bad "threshold: stdout: $(grep -E 'ratio|cosine' out)"
# sweep.csv: empty cells too
printf '%s\n' '{"name": "thr", "base": "thr.json", "axes": [{"path": "workers", "values": [2, 3]}]}' >sw.json
"$CCSIM" sweep sw.json --out sw --quiet 2>err || bad "threshold sweep: $(cat err)"
$py -c '
import csv, sys
r = list(csv.DictReader(open("sw/sweep.csv")))
sys.exit(0 if len(r) == 2 and all(x["compression_ratio"] == "" and x["agg_cosine"] == "" and x["agg_rel_error"] == "1" for x in r) else 1)' &&
  ok || bad "threshold: sweep.csv: $(cat sw/sweep.csv)"

# 2. gradients that underflow in fp16 (1e-30 is below its smallest subnormal)
printf '%s\n' '{"name": "uf", "workers": 2, "iterations": 2, "model": {"elements": 1000}, "gradients": {"scale": 1e-30}, "compressor": "fp16"}' >uf.json
"$CCSIM" run uf.json --out uf --quiet >out 2>err || bad "underflow: exit $?: $(cat err)"
check uf 's["agg_cosine"] is None and "underflowed" in s["undefined"]["agg_cosine"] and s["compression_ratio"] == 2.0 and s["agg_rel_error"] == 1.0' &&
  ok || bad "underflow: $(grep -E 'agg_|ratio' uf/summary.json | tr '\n' ' ')"
check uf 'all(r["agg_cosine"] == "" for r in rows)' && ok || bad "underflow: iterations.csv"
# a defined run has no "undefined" member
printf '%s\n' '{"name": "fine", "workers": 2, "iterations": 2, "model": {"elements": 1000}, "compressor": "fp16"}' >fine.json
"$CCSIM" run fine.json --out fine --quiet >/dev/null 2>&1
check fine '"undefined" not in s and s["agg_cosine"] > 0.99' && ok || bad "a defined run: $(grep undefined fine/summary.json)"

# never a NaN or an infinity in any result file
found=$(grep -rliE '(^|[,:[ ])[-+]?(nan|inf|infinity)([],} ]|$)' thr uf sw fine)
[ -z "$found" ] && ok || bad "NaN or Inf in $found"

finish undefined
