# numbers: full
# docs/testing.md "The test suites": scripts/crosscheck.sh's four modes,
# longer than the suite runs them (each case twice for timing and profile;
# about four minutes on two cores), as a table of the last lines.
set -eu
printf '| mode, seed, cases | checked | refused | failed |\n|---|---|---|---|\n'
for m in "timing 11 200" "profile 5 120" "memory 21 80" "crash 9 300"; do
  set -- $m
  last=$(bash "$SRC/scripts/crosscheck.sh" "$CCSIM" "$@" | tail -n 1)
  read -r c _ r _ f _ <<<"$last"
  printf '| `%s %s %s` | %s | %s | %s |\n' "$1" "$2" "$3" "$c" "$r" "$f"
done
