# numbers: quick
# README "Against the formula": the uncompressed ring all-reduce against
# 2(N-1)(alpha + S/(N B)) on a generated crossbar (tests/validation/test_formula.c,
# which asserts the bound; this block prints its table).
set -eu
B=${BUILD:-$(dirname "$(dirname "$CCSIM")")}
"$B/tests/test_formula" "$CCSIM" "$SRC/tests/validation/ring_crossbar.json" allreduce/ring 2>/dev/null |
  sed -n '/^| N /,/^[^|]/p' | grep '^|'
