#!/usr/bin/env bash
# tests/outputs.sh CCSIM SRCDIR — outputs cannot be redirected, truncated or
# mixed (docs/outputs-and-sweeps.md): planted symlinks, names with "../",
# hostile --out lengths, an input inside the output directory, another
# experiment's results, --force, and a killed run that must not look finished.
set -u
CCSIM=$(realpath "$1")
T=$(mktemp -d)
trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

# expect2 NAME WANT COMMAND...: exit 2 and one stderr line containing WANT
expect2() {
  local name=$1 want=$2
  shift 2
  "$@" >out 2>err
  local rc=$? lines
  lines=$(wc -l <err)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" err; then ok; else
    bad "$name: exit $rc, $lines lines, wanted \"$want\" in: $(cat err)"
  fi
}

printf '%s\n' '{"name": "small", "workers": 3, "model": {"elements": 96}, "iterations": 2}' >exp.json

# 1. a symlink planted at every name a careless writer would use: nothing
#    outside the directory is touched, every result is a regular file.
mkdir -p planted
for n in summary.json iterations.csv hops.csv platform.xml; do
  for t in "$n.tmp" ".$n.tmp" "$n~" ".tmp-0000000000000000"; do ln -sf "$T/victim-$t" "planted/$t"; done
done
# a link at a result name is somebody else's: refused, never followed
ln -s "$T/victim-summary" planted/summary.json
expect2 planted-result 'planted: holds the results of another experiment' "$CCSIM" run exp.json --out planted --quiet
rm planted/summary.json
"$CCSIM" run exp.json --out planted --quiet >/dev/null 2>err || bad "planted: run failed: $(cat err)"
if ls "$T"/victim-* >/dev/null 2>&1; then bad "planted: a write followed a symlink"; else ok; fi
for n in summary.json iterations.csv hops.csv platform.xml .ccsim-experiment; do
  [ -f "planted/$n" ] && [ ! -L "planted/$n" ] && ok || bad "planted: $n is not a regular file"
done
# no temporary is left behind
if ls planted/.tmp-* 2>/dev/null | grep -v 0000000000000000 | grep -q .; then bad "temporaries left"; else ok; fi

# 2. names that would leave the output directory are encoded
"$CCSIM" run exp.json --set 'name=../../escape' --quiet >/dev/null 2>err || bad "dotdot name: $(cat err)"
[ -e "$T/escape" ] || [ -e "$T/../escape" ] && bad "a ../ name left results/" || ok
[ -f "results/%2E.%2F..%2Fescape/summary.json" ] && ok || bad "dotdot name: not in results/%2E.%2F..%2Fescape: $(ls results)"
"$CCSIM" run exp.json --set 'name=/abs' --quiet >/dev/null 2>err || bad "absolute name: $(cat err)"
[ -f "results/%2Fabs/summary.json" ] && ok || bad "absolute name not encoded: $(ls results)"

# 3. hostile --out lengths: checked, never truncated
long=$T/$(printf 'd%.0s' $(seq 1 250))
for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do long=$long/$(printf 'e%.0s' $(seq 1 240)); done
expect2 long-out "longer than the system's limit" "$CCSIM" run exp.json --out "$long" --quiet
comp=$T/$(printf 'x%.0s' $(seq 1 300))
"$CCSIM" run exp.json --out "$comp" --quiet >/dev/null 2>err
rc=$?
{ [ $rc -ne 0 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "File name too long" err; } && ok ||
  bad "a 300-byte component: exit $rc: $(cat err)"

# 4. an input is never overwritten
mkdir -p inside && cp exp.json inside/summary.json
expect2 input-overwrite "would overwrite the input" "$CCSIM" run inside/summary.json --out inside --quiet
cmp -s exp.json inside/summary.json && ok || bad "the input was changed"

# 5. another experiment's results: refused, --force replaces them (no mix)
"$CCSIM" run exp.json --out mine --quiet >/dev/null || bad "first run failed"
"$CCSIM" run exp.json --out mine --quiet >/dev/null || bad "the same experiment again was refused"
expect2 other-experiment 'mine: holds the results of another experiment ("small"' \
  "$CCSIM" run exp.json --out mine --set iterations=3 --quiet
"$CCSIM" run exp.json --out mine --set iterations=3 --force --quiet >/dev/null || bad "--force failed"
[ "$(tail -n +2 mine/iterations.csv | wc -l)" -eq 3 ] && ok || bad "--force left a mix"
mkdir -p foreign && echo 'iteration' >foreign/iterations.csv
expect2 foreign-results 'foreign: holds the results of another experiment' "$CCSIM" run exp.json --out foreign --quiet

# 5b. --skip-finished: the same experiment's finished results are left as
#     they are (not a byte rewritten); another experiment is claimed as
#     without it (refused, or replaced with --force); a killed run is rerun
"$CCSIM" run exp.json --out skip --quiet >/dev/null || bad "skip: first run failed"
touch -d '2001-01-01' skip/summary.json skip/iterations.csv
out=$("$CCSIM" run exp.json --out skip --quiet --skip-finished) || bad "skip: exit $?"
{ echo "$out" | grep -q "already holds the finished results of this experiment; not rerun" &&
  [ "$(stat -c %Y skip/summary.json)" = "$(stat -c %Y skip/iterations.csv)" ] &&
  [ "$(date -r skip/summary.json +%Y)" = 2001 ]; } && ok || bad "skip: the finished run was redone: $out"
expect2 skip-other 'skip: holds the results of another experiment ("small"' \
  "$CCSIM" run exp.json --out skip --set iterations=3 --quiet --skip-finished
"$CCSIM" run exp.json --out skip --set iterations=3 --quiet --skip-finished --force >/dev/null &&
  [ "$(tail -n +2 skip/iterations.csv | wc -l)" -eq 3 ] && [ "$(date -r skip/summary.json +%Y)" != 2001 ] &&
  ok || bad "skip: a changed experiment was not rerun"
rm skip/summary.json # as a killed run leaves it
"$CCSIM" run exp.json --out skip --set iterations=3 --quiet --skip-finished >/dev/null &&
  [ -f skip/summary.json ] && ok || bad "skip: a partial directory was not rerun"
expect2 skip-trace '--skip-finished and --record-trace' \
  "$CCSIM" run exp.json --out skip --quiet --skip-finished --record-trace tr

# 6. a killed run never leaves a directory that looks finished: the run is
#    stopped right after it claimed the directory (SIGSTOP, then SIGKILL)
"$CCSIM" run exp.json --out killed --quiet >/dev/null
printf '%s\n' '{"name": "slow", "workers": 8, "model": {"elements": 400000}, "iterations": 400}' >slow.json
"$CCSIM" run slow.json --out killed --force --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q slow killed/.ccsim-experiment 2>/dev/null && break; sleep 0.05; done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ ! -e killed/summary.json ] && ok || bad "a killed run left summary.json"
expect2 killed-other 'killed: holds an unfinished run of another experiment ("slow"' "$CCSIM" run exp.json --out killed --quiet

echo "outputs: $pass passed, $fail failed"
[ $fail -eq 0 ]
