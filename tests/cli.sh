#!/usr/bin/env bash
# tests/cli.sh CCSIM MANPAGE — every subcommand answers --help with its usage,
# options and an example; an unknown option exits 2 with one line naming the
# subcommand and the option; `ccsim --help` lists every subcommand; the
# generated manual page has every subcommand, renders without warnings and
# is what `ccsim --man` prints.
set -u
CCSIM=$1
MAN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

cmds=$("$CCSIM" --commands) || bad "ccsim --commands failed"
for want in run validate sweep list bench hosts report; do
  grep -qx "$want" <<<"$cmds" && ok || bad "ccsim --commands lacks $want"
done
"$CCSIM" --help >"$T/top" 2>&1 && ok || bad "ccsim --help exits $?"
"$CCSIM" >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "ccsim without a command does not exit 2"
"$CCSIM" frobnicate >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'unknown command "frobnicate"' "$T/err" && ok || bad "unknown command: exit $rc"
"$CCSIM" --version | grep -qE '^ccsim [0-9]+\.[0-9]+' && ok || bad "ccsim --version"

for c in $cmds; do
  grep -qE "^  $c +[a-z]" "$T/top" && ok || bad "ccsim --help does not list $c"
  "$CCSIM" "$c" --help >"$T/h" 2>"$T/e"; rc=$?
  [ $rc -eq 0 ] && [ ! -s "$T/e" ] && ok || bad "ccsim $c --help: exit $rc, stderr $(head -1 "$T/e")"
  head -1 "$T/h" | grep -q "^usage: ccsim $c" && ok || bad "ccsim $c --help: no usage line"
  grep -q '^options:$' "$T/h" && grep -qE '^  -h, --help ' "$T/h" && ok || bad "ccsim $c --help: no options"
  # the example is a command line of this very subcommand
  grep -A1 '^example:$' "$T/h" | tail -1 | grep -q "^  ccsim $c" && ok || bad "ccsim $c --help: no example of ccsim $c"
  # every option the help names is accepted: followed by a value (taken as its
  # argument or as a file) and an unknown sentinel, the error names the sentinel
  for o in $(sed -n 's/^ *\(-., \)\?\(--[a-z][a-z-]*\).*/\2/p' "$T/h" | sort -u | grep -vx -- --help); do
    "$CCSIM" "$c" "$o" 1 --zz-sentinel >/dev/null 2>"$T/e" </dev/null
    grep -q "^ccsim $c: unknown option --zz-sentinel " "$T/e" && ok ||
      bad "ccsim $c $o: help lists it but: $(cat "$T/e")"
  done
  for o in --no-such-option -Z; do
    "$CCSIM" "$c" $o >"$T/o" 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^ccsim $c: unknown option $o " "$T/e" && ok ||
      bad "ccsim $c $o: exit $rc, stderr: $(cat "$T/e")"
  done
  # "help CMD" is the same text as "CMD --help"
  "$CCSIM" help "$c" | cmp -s - "$T/h" && ok || bad "ccsim help $c differs from ccsim $c --help"
  grep -q "^\.SS \"ccsim $c\"" "$MAN" && ok || bad "manual page has no section for $c"
done
# an option that needs an argument, given none
"$CCSIM" run --out >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] && grep -q "^ccsim run: option --out needs DIR" "$T/e" && ok || bad "run --out: exit $rc $(cat "$T/e")"
"$CCSIM" sweep --jobs 0 x.json >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] && grep -q "^ccsim sweep: --jobs: expected an integer" "$T/e" && ok || bad "sweep --jobs 0: exit $rc $(cat "$T/e")"
"$CCSIM" run >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] && grep -q "^ccsim run: missing EXPERIMENT.json" "$T/e" && ok || bad "run without a file: exit $rc"

"$CCSIM" --man | cmp -s - "$MAN" && ok || bad "ccsim --man differs from the built manual page"
if command -v groff >/dev/null; then
  w=$(groff -man -Tutf8 -ww -z "$MAN" 2>&1)
  [ -z "$w" ] && ok || bad "groff warns on the manual page: $w"
  groff -man -Tutf8 "$MAN" 2>/dev/null | grep -q "ccsim run workloads/quickstart.json" && ok ||
    bad "rendered manual page lacks the run example"
fi
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
