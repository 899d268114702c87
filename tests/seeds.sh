#!/usr/bin/env bash
# tests/seeds.sh CCSIM SRCDIR — a stochastic compressor draws its own random
# numbers on every worker and in every iteration (the keys derive from the
# seed, the iteration and the rank: compressors/ccomp/rng.h).
#  - 16 workers holding the same gradient (gradients.correlation 1) quantize
#    it with QSGD independently: the mean of 16 independent zero-mean errors
#    has 1/sqrt(16) of one worker's RMS error (0.25; here within 20%); had
#    the workers the same draws, the errors would not average out (1).
#  - two iterations replaying the same gradient (a trace whose iteration 1
#    is a copy of iteration 0) are rounded differently: their aggregate
#    errors differ.
. "$(dirname "$0")/lib.sh" "$@"
err_of() { sed -n 's/.*"agg_rel_error": \([0-9.e+-]*\).*/\1/p' "$1/summary.json"; }
cat >e.json <<'EOF'
{"seed": 4, "workers": 16, "iterations": 2, "model": {"elements": 20000},
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "2us"},
 "gradients": {"correlation": 1},
 "compressor": {"name": "qsgd", "levels": 1}, "collective": "allgather/ring"}
EOF
"$CCSIM" run e.json --quiet --out one --set workers=1 >/dev/null 2>err || bad "1 worker: $(cat err)"
"$CCSIM" run e.json --quiet --out many >/dev/null 2>err || bad "16 workers: $(cat err)"
e1=$(err_of one) e16=$(err_of many)
awk -v a="$e1" -v b="$e16" 'BEGIN { r = b / a; exit !(r > 0.2 && r < 0.3) }' ||
  bad "16 workers' mean error $e16 against one worker's $e1: not about 1/4 (the workers' draws are not independent)"
printf '{"name": "rec", "workers": 4, "iterations": 2, "model": {"elements": 5000}}\n' >rec.json
"$CCSIM" run rec.json --out rec --quiet --record-trace tr >/dev/null 2>err || bad "record: $(cat err)"
for w in tr/w*; do cp "$w/it0.npy" "$w/it1.npy"; done
printf '{"name": "rep", "workers": 4, "iterations": 2, "gradients": {"source": "trace", "trace": "tr"},
 "compressor": {"name": "qsgd", "levels": 1}, "collective": "allgather/ring"}\n' >rep.json
"$CCSIM" run rep.json --out rep --quiet >/dev/null 2>err || bad "replay: $(cat err)"
errs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["agg_rel_error"] }' rep/iterations.csv)
[ "$(sort -u <<<"$errs" | wc -l)" = 2 ] ||
  bad "the same gradient in iterations 0 and 1 was rounded the same way (errors: $(echo $errs))"
echo "seeds: 16 workers' error $e16 = $(awk -v a="$e1" -v b="$e16" 'BEGIN { printf "%.3f", b / a }') x one worker's; iterations' errors $(echo $errs)"
[ $fail -eq 0 ]
