#!/usr/bin/env bash
# tests/all_compressors.sh CCSIM SRCDIR — every registered compressor, end to
# end through the ring all-reduce on a small experiment: summable ones run
# and report a finite error and the bytes they produced; the others are
# refused by `validate` (exit 2) with a message naming the alternatives.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
while read -r name kind _; do
  if [ "$kind" = summable ]; then
    if "$CCSIM" run "$SRC/tests/golden/small.json" --quiet --out "$T/$name" --set compressor="$name" \
         --set workers=5 --set 'model={"elements": 1001}' >"$T/log" 2>&1 &&
       grep -q '"agg_cosine": [-0-9]' "$T/$name/summary.json" &&
       ! grep -qiE 'nan|inf' "$T/$name/iterations.csv"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAIL $name: did not run cleanly"; cat "$T/log"
    fi
  else
    "$CCSIM" validate "$SRC/tests/golden/small.json" --set compressor="$name" >/dev/null 2>"$T/err"
    if [ $? -eq 2 ] && grep -q "not summable; use a summable compressor" "$T/err"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAIL $name: non-summable compressor not refused clearly"; cat "$T/err"
    fi
  fi
done < <("$CCSIM" list compressors)
echo "all_compressors: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -ge 2 ]
