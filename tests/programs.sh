#!/usr/bin/env bash
# tests/programs.sh CCSIM SRCDIR — collectives as programs (docs/programs.md):
#  1. each shipped program in workloads/collectives equals its built-in C
#     twin, byte for byte, in iterations.csv, hops.csv, timeline.csv and
#     platform.xml, and in
#     summary.json but for the host fields, the experiment's hash, the
#     program file among the inputs and the
#     collective's name (the only things that name the collective), for
#     several N (non-powers of two where the twin takes them) and
#     compressors: none, fp16, a summable quantizer under a global max
#     (global-qsgd), Marsit's random combine, and a whole-payload sketch;
#     ring_recompress.json (decode, add, re-encode) with any compressor,
#     error feedback included;
#     an MSCCL-IR ring all-reduce imported by scripts/msccl_import.py equals
#     allreduce/ring, and the importer refuses what it cannot follow;
#  2. a shipped program is found by name;
#  3. broken programs exit 2 with one line naming the program file, the
#     step's JSON path and what is wrong: a deadlock, a send never
#     received, a chunk never delivered, a sum that misses a rank, a recv
#     whose chunks differ from the send's, a bad expression, an unknown key,
#     a loop's variable set in its body.
set -u
CCSIM=$1
SRC=$(cd "$2" && pwd)
P=$SRC/workloads/collectives
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
cat >"$T/base.json" <<'J'
{"name": "programs", "seed": 3, "workers": 4, "iterations": 2,
 "platform": {"generate": "crossbar", "bandwidth": "25Gbps", "latency": "5us"},
 "model": {"elements": 1003},
 "gradients": {"source": "synthetic", "distribution": "normal", "scale": 0.01},
 "compressor": "fp16", "output": {"timeline": true}}
J
# summary.json without the fields that differ by design: every pair that
# same() ran is compared at the end by one Python (starting one per summary
# was most of this test's time)
mkdir -p "$T/sums"
: >"$T/sums/list"
check_summaries() {
  python3 - "$T/sums/list" <<'PY'
import difflib, json, sys
def strip(path):
    s = json.load(open(path))
    for k in ("host_time_s", "peak_rss_mb", "experiment_hash", "collective"):
        s.pop(k, None)
    s.get("experiment", {}).pop("collective", None)
    # a program run has one input more: the program file (provenance)
    s["inputs"] = [i for i in s.get("inputs", []) if i.get("role") != "collective program"]
    return json.dumps(s, indent=1).split("\n")
bad = 0
for line in open(sys.argv[1]):
    c, p, what = line.rstrip("\n").split("\t")
    a, b = strip(c), strip(p)
    if a != b:
        print(f"FAIL {what}: summary.json differs")
        print("\n".join(list(difflib.unified_diff(a, b, lineterm="", n=0))[2:8]))
        bad = 1
sys.exit(bad)
PY
}
same() { # builtin-collective program-collective N compressor [--set ...]
  local b=$1 p=$2 N=$3 c=$4 d="$T/run"
  shift 4
  rm -rf "$d"
  "$CCSIM" run "$T/base.json" -q -o "$d/c" --set workers="$N" --set compressor="$c" --set "collective=$b" "$@" >/dev/null 2>"$T/err" ||
    { echo "FAIL $b N=$N $c: the built-in failed: $(cat "$T/err")"; fail=1; return; }
  "$CCSIM" run "$T/base.json" -q -o "$d/p" --set workers="$N" --set compressor="$c" --set "collective=$p" "$@" >/dev/null 2>"$T/err" ||
    { echo "FAIL $p N=$N $c: the program failed: $(cat "$T/err")"; fail=1; return; }
  for f in "$d"/c/*; do # iterations.csv, hops.csv, timeline.csv, platform.xml
    f=$(basename "$f")
    [ "$f" = summary.json ] && continue
    cmp -s "$d/c/$f" "$d/p/$f" || { echo "FAIL $p N=$N $c: $f differs from $b"; diff "$d/c/$f" "$d/p/$f" | head -4; fail=1; }
  done
  local k
  k=$(wc -l <"$T/sums/list")
  cp "$d/c/summary.json" "$T/sums/$k.c.json"
  cp "$d/p/summary.json" "$T/sums/$k.p.json"
  printf '%s\t%s\t%s\n' "$T/sums/$k.c.json" "$T/sums/$k.p.json" "$p N=$N $c (against $b)" >>"$T/sums/list"
  grep -q '"collective": "program:' "$d/p/summary.json" || { echo "FAIL $p: summary.json does not name the program"; fail=1; }
}
n=0
for c in ${COMPS:-none fp16 global-qsgd marsit s2-sketch}; do
  for N in 1 3 5 8; do
    same allreduce/ring "{\"program\": \"$P/ring.json\"}" $N $c
    same allreduce/tree "{\"program\": \"$P/tree.json\"}" $N $c
    same allreduce/rhd "{\"program\": \"$P/rhd.json\"}" $N $c
    n=$((n + 3))
  done
  for a in "4 0" "6 0" "6 3" "12 0" "5 1"; do
    set -- $a
    same "{\"name\": \"allreduce/torus2d\", \"rows\": $2}" "{\"program\": \"$P/torus2d.json\", \"rows\": $2}" $1 $c
    n=$((n + 1))
  done
  for a in "6 2" "8 4" "12 3" "5 1"; do
    set -- $a
    same "{\"name\": \"allreduce/hierarchical\", \"node_size\": $2}" "{\"program\": \"$P/hierarchical.json\", \"node_size\": $2}" $1 $c
    n=$((n + 1))
  done
done
# decode, add, re-encode at every hop: any compressor (with error feedback too)
for c in ${COMPS:-fp16 topk global-qsgd sign-ring terngrad}; do
  for N in 1 3 5; do
    same allreduce/ring-recompress "{\"program\": \"$P/ring_recompress.json\"}" $N $c
    n=$((n + 1))
  done
done
same allreduce/ring-recompress "{\"program\": \"$P/ring_recompress.json\"}" 4 topk --set compressor.memory=residual
same allreduce/ring "{\"program\": \"$P/ring.json\"}" 4 randomk --set compressor.memory=residual
n=$((n + 2))
echo "compared $n program runs with their C twins"

# an MSCCL-IR ring all-reduce (tests/data), imported: equal to allreduce/ring
if python3 "$SRC/scripts/msccl_import.py" "$SRC/tests/data/msccl_ring_allreduce5.xml" >"$T/msccl.json" 2>"$T/err"; then
  for c in fp16 marsit; do same allreduce/ring "{\"program\": \"$T/msccl.json\"}" 5 $c; done
  "$CCSIM" run "$T/base.json" -q -o "$T/m4" --set workers=4 --set "collective={\"program\": \"$T/msccl.json\"}" >/dev/null 2>"$T/err"
  [ $? = 2 ] && grep -q "for 5 GPUs" "$T/err" || { echo "FAIL: the imported program runs for 4 workers: $(cat "$T/err")"; fail=1; }
else
  echo "FAIL: msccl_import.py: $(cat "$T/err")"; fail=1
fi
# summary.json of every pair above
check_summaries || fail=1
sed 's/dstbuf="o" dstoff="3"/dstbuf="s" dstoff="3"/' "$SRC/tests/data/msccl_ring_allreduce5.xml" >"$T/scratch.xml"
python3 "$SRC/scripts/msccl_import.py" "$T/scratch.xml" >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "scratch buffers are not imported" "$T/err" || { echo "FAIL: msccl_import.py takes a scratch buffer: $(cat "$T/err")"; fail=1; }
python3 "$SRC/scripts/msccl_import.py" "$T/no-such.xml" >/dev/null 2>"$T/err"
[ $? = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "no-such.xml: No such file or directory" "$T/err" ||
  { echo "FAIL: msccl_import.py on a missing file: $(cat "$T/err")"; fail=1; }

# 2. by name
"$CCSIM" run "$T/base.json" -q -o "$T/byname" --set 'collective={"program": "ring"}' >/dev/null 2>"$T/err" ||
  { echo "FAIL: a shipped program by name: $(cat "$T/err")"; fail=1; }

# 3. validation
bad() { # name expected-path expected-text program-steps [top-level extra]
  local name=$1 path=$2 text=$3 steps=$4
  printf '{"name": "%s", "chunks": "N", "hops": "N - 1", "dense_bytes": "8 * n", "program": %s}\n' "$name" "$steps" >"$T/$name.json"
  "$CCSIM" run "$T/base.json" -q -o "$T/bad" --set "collective={\"program\": \"$T/$name.json\"}" >"$T/out" 2>"$T/err"
  local rc=$?
  [ $rc = 2 ] || { echo "FAIL $name: exit $rc, expected 2"; cat "$T/err"; fail=1; return; }
  [ "$(wc -l <"$T/err")" = 1 ] || { echo "FAIL $name: not one line"; cat "$T/err"; fail=1; }
  grep -qF "$T/$name.json: $path" "$T/err" || { echo "FAIL $name: does not name the file and $path"; cat "$T/err"; fail=1; }
  grep -qF "$text" "$T/err" || { echo "FAIL $name: does not say \"$text\""; cat "$T/err"; fail=1; }
}
RING_RS='{"encode": "r"}, {"for": "s", "from": 0, "to": "N - 1", "do": [
  {"send": "(r - s) % N", "to": "(r + 1) % N"}, {"recv": "(r - s - 1) % N", "from": "(r - 1) % N"},
  {"encode": "(r - s - 1) % N"}, {"reduce": "(r - s - 1) % N", "order": "received+held", "hop": "s + 1"},
  {"wait": "sends"}]}'
AG='{"for": "s", "from": 0, "to": "N - 1", "do": [
  {"send": "(r + 1 - s) % N", "to": "(r + 1) % N", "keep": true}, {"recv": "(r - s) % N", "from": "(r - 1) % N"},
  {"store": "(r - s) % N"}, {"deliver": "(r - s) % N"}, {"wait": "sends"}]}'
bad deadlock 'program[0].do[0]' 'deadlock' '[{"for": "s", "from": 0, "to": 1, "do": [{"recv": 0, "from": "(r + 1) % N"}]}]'
bad unmatched 'program[1]' 'never receives' '[{"encode": "r"}, {"send": "r", "to": "(r + 1) % N"}]'
bad coverage 'program' 'never delivers chunk' "[$RING_RS, {\"deliver\": \"(r + 1) % N\", \"final\": true}]"
bad missesrank 'program[2]' 'misses rank' "[${RING_RS/\"to\": \"N - 1\"/\"to\": \"N - 2\"}, {\"deliver\": \"(r + 2) % N\", \"final\": true}]"
bad wrongchunk 'program[0].do[2]' 'carries chunks' '[{"for": "s", "from": 0, "to": 1, "do": [{"encode": "r"}, {"send": "r", "to": "(r + 1) % N"}, {"recv": "r", "from": "(r - 1) % N"}]}]'
bad twice 'program[1].do[2]' 'count a rank twice' '[{"encode": 0}, {"for": "s", "from": 0, "to": 2, "do": [{"send": 0, "to": "(r + 1) % N", "keep": true}, {"recv": 0, "from": "(r - 1) % N"}, {"reduce": 0, "hop": 1}, {"wait": "sends"}]}]'
bad neverwaited 'program[1]' 'a send never waited for' '[{"encode": "r"}, {"send": "r", "to": "(r + 1) % N"}, {"recv": "(r - 1) % N", "from": "(r - 1) % N"}, {"store": "(r - 1) % N"}]'
bad syntax 'program[0].encode' 'column' '[{"encode": "(r + 1 % N"}]'
bad unknownkey 'program[0]' 'unknown key "too"' '[{"send": 0, "too": 1}]'
bad chunkrange 'program[0]: rank 3' 'expected an integer in [0, 3]' '[{"encode": "r + 1"}]'
# a loop's variable is its counter: a let or a for of its name in its body is
# refused (a let that reset it kept a fuzzed program's loop from ever ending)
bad letloopvar 'program[0].do[0].let.s' '"s" is the variable of the loop at program[0]' '[{"for": "s", "from": 0, "to": 2, "do": [{"let": {"s": "(r - s) % N"}}]}]'
# and a walk ends: a loop of more than 2^24 turns, or more than 2^28 steps
# (turns of empty loops included) on a rank, is refused with a message
bad longloop 'program[0]' 'the loop would run 1099511627776 times (at most 2^24)' '[{"for": "s", "from": 0, "to": 1099511627776, "do": []}]'
bad manysteps 'program[0].do[0]' 'more than 2^28 steps on this rank' '[{"for": "s", "from": 0, "to": 16000000, "do": [{"for": "t", "from": 0, "to": 16000000, "do": []}]}]'
bad forloopvar 'program[0].do[0].do[0].for' '"s" is the variable of the loop at program[0]' '[{"for": "s", "from": 0, "to": 2, "do": [{"for": "t", "from": 0, "to": 1, "do": [{"for": "s", "from": 0, "to": 1, "do": []}]}]}]'
# reduce steps need a summable compressor: a program that takes any may not have them
printf '{"name": "anyreduce", "requires": "any", "chunks": 1, "hops": 1, "dense_bytes": 0, "program": [{"if": 0, "then": [{"reduce": 0, "hop": 1}]}]}\n' >"$T/anyreduce.json"
"$CCSIM" run "$T/base.json" -q -o "$T/bad" --set "collective={\"program\": \"$T/anyreduce.json\"}" >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -qF "anyreduce.json: program[0].then[0]: a reduce step" "$T/err" || { echo "FAIL anyreduce: $(cat "$T/err")"; fail=1; }
# the ring's own steps pass: the checks above fail for the reason named
printf '{"name": "ok", "chunks": "N", "hops": "N - 1", "dense_bytes": "8 * n", "program": [%s, {"deliver": "(r + 1) %% N", "final": true}, %s]}\n' "$RING_RS" "$AG" >"$T/ok.json"
"$CCSIM" run "$T/base.json" -q -o "$T/ok" --set "collective={\"program\": \"$T/ok.json\"}" >/dev/null 2>"$T/err" ||
  { echo "FAIL: the ring written in the test does not run: $(cat "$T/err")"; fail=1; }
[ $fail = 0 ] && echo "programs: all passed"
exit $fail
