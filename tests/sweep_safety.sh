#!/usr/bin/env bash
# tests/sweep_safety.sh CCSIM SRCDIR — sweeps and runs survive being killed
# (docs/outputs-and-sweeps.md): SIGKILL at seeded random moments of a run and
# of a sweep, then a resume, gives byte-identical results to an uninterrupted
# run (host-time fields aside); a second sweep into a locked directory is
# refused naming the holder; a changed base experiment is rerun on resume; a
# failed point is marked with its reason; children die with their parent.
set -u
CCSIM=$(realpath "$1")
T=$(mktemp -d)
cleanup() {
  # only the processes this script started, by pid
  for p in $STARTED; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$T"
}
STARTED=""
trap cleanup EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }
RANDOM=12 # seeded: the same kill moments every time

# children of pid (direct)
children() { ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' '; }
# every ccsim process whose command line names directory $1
alive_in() { pgrep -f -- "--out $T/$1" 2>/dev/null; }

cat >base.json <<'EOF'
{"name": "kr", "seed": 3, "workers": 4, "iterations": 30,
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "5us"},
 "model": {"elements": 120000}, "compressor": "none", "collective": "allreduce/ring"}
EOF
cat >sweep.json <<'EOF'
{"name": "kr", "base": "base.json",
 "axes": [{"path": "workers", "values": [2, 4, 6]},
          {"name": "method", "values": [
             {"label": "fp16", "set": {"compressor": "fp16"}},
             {"label": "ring/recompress", "set": {"compressor": "fp16", "collective": "allreduce/ring-recompress"}}]}]}
EOF

# strip host-time fields: summary.json's, and sweep.csv's last column
norm() {
  local d=$1
  find "$d" -type f ! -name '.ccsim.lock' | sort | while read -r f; do
    echo "== ${f#"$d"}"
    case "$f" in
      *summary.json) grep -v -E '"(host_time_s|peak_rss_mb)"' "$f" ;;
      *sweep.csv) sed 's/,[^,]*$//' "$f" ;;
      *) cat "$f" ;;
    esac
  done
}

# 1. the uninterrupted reference
"$CCSIM" sweep sweep.json --out "$T/ref" --jobs 2 --quiet || bad "reference sweep failed"
[ "$(find ref -name summary.json | wc -l)" -eq 6 ] && ok || bad "reference: not 6 points"
# '/' in a label is encoded, never a subdirectory
[ -d "ref/workers=2,method=ring-recompress" ] && ok || bad "label with / not made one component: $(ls ref)"
norm ref >ref.norm

# 2. SIGKILL the sweep at random moments, resume, compare
for k in 1 2 3 4; do
  d=k$k
  delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.2 + (r % 1500) / 1000 }')
  "$CCSIM" sweep sweep.json --out "$T/$d" --jobs 2 --quiet 2>/dev/null &
  pid=$!
  STARTED="$STARTED $pid"
  sleep "$delay"
  kids=$(children $pid)
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  # its children die with it (PR_SET_PDEATHSIG)
  for _ in $(seq 1 50); do [ -z "$(alive_in $d)" ] && break; sleep 0.1; done
  [ -z "$(alive_in $d)" ] && ok || bad "$d: children of a SIGKILLed sweep still run: $(alive_in $d)"
  "$CCSIM" sweep sweep.json --out "$T/$d" --jobs 2 2>"$d.resume" >/dev/null || bad "$d: resume failed: $(cat $d.resume)"
  grep -qE "6 points: [0-9]+ reused, 0 rerun as changed, [0-9]+ new" "$d.resume" && ok || bad "$d: resume counts: $(head -1 $d.resume)"
  norm "$d" | diff -q - ref.norm >/dev/null && ok || { bad "$d (killed after ${delay}s, children $kids): results differ from the uninterrupted sweep"; norm "$d" | diff - ref.norm | head -5 >&2; }
done

# 3. SIGKILL a run at random moments, run again: identical to an uninterrupted run
"$CCSIM" run base.json --out "$T/run-ref" --quiet >/dev/null || bad "reference run failed"
for k in 1 2 3; do
  delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.05 + (r % 600) / 1000 }')
  "$CCSIM" run base.json --out "$T/run$k" --quiet >/dev/null 2>&1 &
  pid=$!
  STARTED="$STARTED $pid"
  sleep "$delay"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  "$CCSIM" run base.json --out "$T/run$k" --quiet >/dev/null || bad "run$k: rerun after SIGKILL at ${delay}s failed"
  diff <(norm "run$k") <(norm run-ref) >/dev/null && ok || bad "run$k: differs from the uninterrupted run"
done

# 4. a second sweep into a locked directory is refused, naming the holder
# (slow.json's points take seconds each, so that every signal below meets a
# run still going: with 400 iterations a point took 0.34 s and the SIGKILL
# of section 6, 0.3 s after its child started, could come after its results)
sed 's/"iterations": 30/"iterations": 4000/' base.json >slow.json
sed 's/base.json/slow.json/' sweep.json >slow-sweep.json
"$CCSIM" sweep slow-sweep.json --out "$T/locked" --quiet 2>/dev/null &
holder=$!
STARTED="$STARTED $holder"
for _ in $(seq 1 100); do [ -s locked/.ccsim.lock ] && break; sleep 0.05; done
"$CCSIM" sweep slow-sweep.json --out "$T/locked" --quiet >out 2>err
rc=$?
{ [ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -qF "another sweep is writing into this directory (pid $holder holds" err; } && ok ||
  bad "second sweep: exit $rc: $(cat err)"
# SIGTERM: the sweep stops its children, writes sweep.csv and says so
kill -TERM $holder
wait $holder
rc=$?
[ $rc -eq 1 ] && ok || bad "SIGTERMed sweep exit $rc"
for _ in $(seq 1 50); do [ -z "$(alive_in locked)" ] && break; sleep 0.1; done
[ -z "$(alive_in locked)" ] && ok || bad "children of a SIGTERMed sweep still run"
grep -q ',pending,"not run yet"' locked/sweep.csv && ok || bad "SIGTERMed sweep: no pending points in sweep.csv"
# the lock died with its holder
"$CCSIM" sweep sweep.json --out "$T/locked2" --quiet 2>err && ok || bad "a fresh sweep failed: $(cat err)"

# 5. a changed base experiment: every point is rerun, and says so
cp -r ref changed
sed 's/"iterations": 30/"iterations": 31/' base.json >base2.json
sed 's/base.json/base2.json/' sweep.json >sweep2.json
"$CCSIM" sweep sweep2.json --out "$T/changed" 2>changed.err >/dev/null || bad "changed sweep failed: $(cat changed.err)"
grep -q "6 points: 0 reused, 6 rerun as changed, 0 new" changed.err && ok || bad "changed: $(head -1 changed.err)"
[ "$(tail -n +2 "changed/workers=2,method=fp16/iterations.csv" | wc -l)" -eq 31 ] && ok || bad "changed: old results kept"
"$CCSIM" sweep sweep2.json --out "$T/changed" 2>changed2.err >/dev/null
grep -q "6 points: 6 reused, 0 rerun as changed, 0 new" changed2.err && ok || bad "unchanged: $(head -1 changed2.err)"

# 6. a failed point is marked failed with its reason; the others are done
cat >fsweep.json <<'EOF'
{"name": "f", "base": "base.json", "set": {"iterations": 2, "compressor": "fp16"},
 "axes": [{"path": "gradients.scale", "values": [1, 1e30]}]}
EOF
"$CCSIM" sweep fsweep.json --out "$T/failed" --quiet 2>ferr >/dev/null
rc=$?
[ $rc -eq 1 ] && ok || bad "a sweep with a failed point exits $rc"
grep -q '^"gradients.scale=1",1,done,' failed/sweep.csv && ok || bad "the good point is not done: $(cat failed/sweep.csv)"
grep -qE '^"gradients.scale=1e\+?30",[^,]*,failed,"e?.*iteration 0, worker [0-9]+: the payload decoded at hop 1 holds' failed/sweep.csv && ok ||
  bad "the failed point has no reason: $(cat failed/sweep.csv)"
# a child killed by a signal is reported with the signal
"$CCSIM" sweep slow-sweep.json --out "$T/sig" --quiet 2>sig.err >/dev/null &
p=$!
STARTED="$STARTED $p"
for _ in $(seq 1 100); do [ -n "$(children $p)" ] && break; sleep 0.05; done
sleep 0.3
for c in $(children $p); do kill -KILL "$c"; done
kill -TERM $p 2>/dev/null
wait $p
grep -q "killed by signal 9 (SIGKILL)" sig/sweep.csv && ok || bad "a child killed by SIGKILL: $(cat sig/sweep.csv sig.err)"

# 7. labels that would collide or leave the directory
cat >coll.json <<'EOF'
{"name": "c", "base": "base.json", "axes": [{"path": "seed", "values": [1, 2]},
 {"name": "m", "values": [{"label": "a/b", "set": {"iterations": 1}}, {"label": "a-b", "set": {"iterations": 2}}]}]}
EOF
"$CCSIM" sweep coll.json --out "$T/coll" >out 2>err
rc=$?
{ [ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -qE "would share the directory|axes\[1\]\.values\[1\]: its label \"a-b\" is values\[0\]'s too" err; } && ok || bad "colliding labels: exit $rc: $(cat err)"
[ ! -e coll ] && ok || bad "a refused sweep made its directory"
cat >esc.json <<'EOF'
{"name": "e", "base": "base.json", "set": {"iterations": 1}, "axes": [{"name": "../../up", "values": [{"label": "/abs", "set": {"seed": 1}}]}]}
EOF
"$CCSIM" sweep esc.json --out "$T/esc/in" --quiet 2>err >/dev/null || bad "escaping names: $(cat err)"
[ "$(find "$T/esc" -name summary.json | wc -l)" -eq 1 ] && [ -z "$(find "$T" -maxdepth 1 -name 'up*')" ] &&
  [ -n "$(find "$T/esc/in" -mindepth 2 -name summary.json)" ] && ok || bad "escaping names left the directory: $(find "$T/esc")"

# 8. points that each fit but not --jobs of them at once: refused before
# anything runs, naming the --jobs that fits (sized from this machine's
# MemAvailable: each point about 0.6 of it at ~80 estimated bytes an element:
# 4 workers, a ring, fp32)
avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
el=$(awk -v a="$avail" 'BEGIN { printf "%d", a * 0.6 / 80 }')
printf '{"name": "m", "base": "base.json", "set": {"iterations": 1},\n "axes": [{"path": "seed", "values": [1, 2]}, {"path": "model.elements", "values": [%s]}]}\n' "$el" >mem.json
"$CCSIM" sweep mem.json --out "$T/mem" --jobs 2 >out 2>err
rc=$?
{ [ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- '--jobs 2: the 2 largest points need about .*use --jobs 1$' err; } &&
  ok || bad "--jobs over memory: exit $rc: $(cat err)"
[ -z "$(find "$T/mem" -name summary.json 2>/dev/null)" ] && ok || bad "a point ran"
"$CCSIM" sweep mem.json --out "$T/mem" --jobs 1 --dry-run >out 2>err && ok || bad "--jobs 1 refused: $(cat err)"

echo "sweep safety: $pass passed, $fail failed"
[ $fail -eq 0 ]
