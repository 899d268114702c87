#!/usr/bin/env bash
# tests/run_lock.sh CCSIM SRCDIR — one writer per output directory
# (src/outputs/lock.h): runs raced into one --out either finish with a
# consistent directory or are refused with exit 2 naming the holder's pid;
# --force never passes a live holder; a run and a sweep never take each
# other's directories.
set -u
CCSIM=$(realpath "$1")
T=$(mktemp -d)
STARTED=""
trap 'for p in $STARTED; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }
py=/usr/bin/python3

printf '%s\n' '{"name": "a", "workers": 4, "model": {"elements": 20000}, "iterations": 20}' >a.json
printf '%s\n' '{"name": "b", "workers": 6, "model": {"elements": 30000}, "iterations": 13}' >b.json

# consistent DIR: every file is of one experiment (the one summary.json
# names): the marker, the iteration rows, the platform's host range
consistent() {
  $py - "$1" <<'PY'
import json, re, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
m = json.load(open(d + "/.ccsim-experiment"))
want = {"a": (4, 20), "b": (6, 13)}[s["name"]]
rows = sum(1 for _ in open(d + "/iterations.csv")) - 1
hosts = re.search(r'radical="0-(\d+)"', open(d + "/platform.xml").read())
ok = (m["name"] == s["name"] and m["experiment_hash"] == s["experiment_hash"] and
      rows == want[1] and s["workers"] == want[0] and hosts and int(hosts.group(1)) + 1 == want[0])
sys.exit(0 if ok else 1)
PY
}

# outcome NAME RC ERRFILE OTHERPID: exit 0, or exit 2 with one line naming the other's pid
outcome() {
  local name=$1 rc=$2 errf=$3 other=$4
  if [ "$rc" -eq 0 ]; then return 0; fi
  if [ "$rc" -eq 2 ] && [ "$(wc -l <"$errf")" -eq 1 ] &&
    grep -qE "is writing into this directory \(pid $other holds .*\.ccsim\.lock\)" "$errf"; then
    return 0
  fi
  bad "$name: exit $rc: $(cat "$errf")"
  return 1
}

# 1. two runs of the same experiment, and of two experiments (--force), raced
for kind in same other; do
  refused=0
  for k in $(seq 1 20); do
    d=$kind$k
    second=a.json
    [ $kind = other ] && second=b.json
    "$CCSIM" run a.json --out $d --quiet --force >/dev/null 2>e1 &
    p1=$!
    "$CCSIM" run $second --out $d --quiet --force >/dev/null 2>e2 &
    p2=$!
    wait $p1
    r1=$?
    wait $p2
    r2=$?
    outcome "$d first" $r1 e1 $p2 && outcome "$d second" $r2 e2 $p1 && ok
    [ $r1 -eq 2 ] || [ $r2 -eq 2 ] && refused=$((refused + 1))
    [ $r1 -eq 0 ] || [ $r2 -eq 0 ] || bad "$d: neither run finished"
    consistent $d && ok || bad "$d: the directory mixes two experiments: $(ls -A $d)"
  done
  echo "$kind experiment: $refused of 20 trials refused one run (exit 2, naming the holder)"
done

# 2. a live holder: --force does not pass it, --skip-finished neither
printf '%s\n' '{"name": "slow", "workers": 16, "model": {"elements": 16}, "iterations": 100000}' >slow.json
"$CCSIM" run slow.json --out held --quiet --no-memo >/dev/null 2>/dev/null &
holder=$!
STARTED="$STARTED $holder"
for _ in $(seq 1 200); do grep -q " run" held/.ccsim.lock 2>/dev/null && break; sleep 0.05; done
for flags in "" "--force" "--skip-finished"; do
  "$CCSIM" run a.json --out held --quiet $flags >/dev/null 2>err
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
    grep -qF "held: another run is writing into this directory (pid $holder holds held/.ccsim.lock)" err && ok ||
    bad "live holder, run $flags: exit $rc: $(cat err)"
done
printf '%s\n' '{"name": "sw", "base": "a.json", "axes": [{"path": "workers", "values": [2, 3]}]}' >sw.json
"$CCSIM" sweep sw.json --out held --quiet >/dev/null 2>err
rc=$?
[ $rc -eq 2 ] && grep -qF "held: a run is writing into this directory (pid $holder" err && ok ||
  bad "live holder, sweep: exit $rc: $(cat err)"
[ ! -e held/sweep.csv ] && [ ! -e held/summary.json ] && ok || bad "live holder: another wrote into held"
kill $holder
wait $holder 2>/dev/null

# 3. a sweep into a run's directory, a run into a sweep's: refused both ways
"$CCSIM" run a.json --out r --quiet >/dev/null || bad "run r failed"
"$CCSIM" sweep sw.json --out r --quiet >/dev/null 2>err
rc=$?
[ $rc -eq 2 ] && grep -qF "r: holds the results of a run (summary.json): give the sweep its own output directory" err &&
  [ ! -e r/sweep.csv ] && ok || bad "sweep into a run's directory: exit $rc: $(cat err)"
"$CCSIM" run a.json --out r --quiet --skip-finished >out 2>err && grep -q "already holds" out && ok ||
  bad "the run is refused in its own directory after a refused sweep: $(cat err)"
"$CCSIM" sweep sw.json --out s --quiet >/dev/null || bad "sweep s failed"
for flags in "" "--force"; do
  "$CCSIM" run a.json --out s --quiet $flags >/dev/null 2>err
  rc=$?
  [ $rc -eq 2 ] && grep -qF "s: holds a sweep (sweep.csv): give each run its own output directory" err && ok ||
    bad "run $flags into a sweep's directory: exit $rc: $(cat err)"
done
"$CCSIM" sweep sw.json --out s 2>err >/dev/null && grep -q "2 reused" err && ok || bad "the sweep's resume: $(cat err)"

echo "run-lock: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
