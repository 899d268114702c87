#!/usr/bin/env bash
# tests/registry.sh CCSIM SRCDIR — every collective, tested from the registry:
# each one `ccsim list collectives` prints and each shipped program in
# workloads/collectives gets, with no list to edit when one is added:
#  1. its alpha-beta formula on a crossbar (tests/validation/test_formula.c's,
#     N = 8, 4 MB, fp32, CM02, within 2%) where one is known for its name
#     (a program: its C twin's, by the program's name); "no formula" else;
#  2. byte-identical result files with --threads 1 and 2, and with the memo
#     on and off (summary.json but for its host and memo fields);
#  3. every compressor of `ccsim list compressors` (for a collective that
#     needs a summable one: those marked summable, and the multi-phase
#     PowerSGD): a run that succeeds, or a refusal on input (exit 2, one
#     line naming the experiment file), never a crash or a runtime error.
# Tiny runs: 1003 elements, 2 iterations, 4 workers (node_size 2).
set -u
CCSIM=$1
SRC=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
cat >"$T/base.json" <<'J'
{"name": "registry", "seed": 5, "workers": 4, "iterations": 2,
 "platform": {"generate": "crossbar", "bandwidth": "25Gbps", "latency": "5us"},
 "model": {"elements": 1003},
 "gradients": {"source": "synthetic", "distribution": "normal", "scale": 0.01},
 "compressor": "none"}
J
cat >"$T/formula.json" <<'J'
{"name": "registry-formula", "seed": 1, "workers": 8, "iterations": 1,
 "platform": {"generate": "crossbar", "bandwidth": "25Gbps", "latency": "5us", "network_model": "CM02"},
 "model": {"size": "4MB"}, "compressor": "none"}
J
strip() { grep -v -E '"(host_time_s|peak_rss_mb|simulated_iterations|memo_hits|analytical_iterations|analytical_messages|simgrid_iterations|simgrid_messages)"' "$1"; }
same_dirs() { # what dir1 dir2
  for f in "$2"/*; do
    b=$(basename "$f")
    if [ "$b" = summary.json ]; then
      cmp -s <(strip "$f") <(strip "$3/$b") || { echo "FAIL $1: summary.json differs"; fail=1; }
    else
      cmp -s "$f" "$3/$b" || { echo "FAIL $1: $b differs"; fail=1; }
    fi
  done
}
# name|collective JSON|needs summable|formula name
entries=()
while read -r name need rest; do
  [ -n "$name" ] || continue
  s=0; [ "$need" = needs ] && s=1
  if echo "$rest" | grep -q 'node_size='; then cj="{\"name\": \"$name\", \"node_size\": 2}"; else cj="\"$name\""; fi
  entries+=("$name|$cj|$s|$name")
done < <("$CCSIM" list collectives)
for f in "$SRC"/workloads/collectives/*.json; do
  pname=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$f")
  extra=""; grep -q '"node_size"' "$f" && extra=', "node_size": 2'
  s=1; grep -q '"requires": "any"' "$f" && s=0
  entries+=("program:$pname|{\"program\": \"$f\"$extra}|$s|allreduce/${pname//_/-}")
done
[ ${#entries[@]} -ge 17 ] || { echo "FAIL: only ${#entries[@]} collectives listed"; fail=1; }
comps=$("$CCSIM" list compressors | awk '{print $1 "|" $2}')
for e in "${entries[@]}"; do
  IFS='|' read -r name cj summ fname <<<"$e"
  # 1. formula
  hs=""; echo "$cj" | grep -q node_size && hs=4
  [ -n "$hs" ] && cjf=$(echo "$cj" | sed 's/"node_size": 2/"node_size": 4/') || cjf=$cj
  if "$CCSIM" run "$T/formula.json" -q --force -o "$T/f" --set "collective=$cjf" >/dev/null 2>"$T/err"; then
    r=$(python3 - "$T/f/summary.json" "$fname" <<'PY'
import json, math, sys
t = json.load(open(sys.argv[1]))["sim_time_s"]
c, N, S, a, B = sys.argv[2], 8, 4e6, 10e-6, 25e9 / 8
l2 = lambda n: math.ceil(math.log2(n))
P = 1 << int(math.log2(N))
f = {"allreduce/ring": 2 * (N - 1) * (a + S / (N * B)),
     "allreduce/ring-recompress": 2 * (N - 1) * (a + S / (N * B)),
     "allreduce/tree": 2 * l2(N) * (a + S / B),
     "allreduce/rhd": 2 * l2(P) * a + 2 * (P - 1) / P * S / B + (2 * (a + S / B) if N != P else 0),
     "allreduce/torus2d": 2 * (4 - 1) * (a + S / (4 * B)) + 2 * (2 - 1) * (a + S / (N * B)),
     "allreduce/hierarchical": 2 * l2(4) * (a + S / B) + 2 * (2 - 1) * (a + S / (2 * B)),
     "allgather/ring": (N - 1) * (a + S / B),
     "allgather/rd": l2(N) * a + (N - 1) * S / B,
     "ps": 2 * (a + (N - 1) * S / (N * B))}.get(c)
if f is None: print("none")
else: print("ok" if abs(t / f - 1) < 0.02 else "bad %g vs formula %g" % (t, f))
PY
)
    case $r in
      ok) echo "$name: formula ok" ;;
      none) echo "$name: no formula known" ;;
      *) echo "FAIL $name: $r"; fail=1 ;;
    esac
  else echo "FAIL $name: the formula run failed: $(cat "$T/err")"; fail=1; fi
  # 2. threads and memo
  c0=fp16; [ "$summ" = 1 ] || c0=topk
  run() { "$CCSIM" run "$T/base.json" -q --force -o "$T/$1" --set "collective=$cj" --set compressor=$c0 "${@:2}" >/dev/null 2>"$T/err" || { echo "FAIL $name: run $1 failed: $(cat "$T/err")"; fail=1; }; }
  rm -rf "$T"/t1 "$T"/t2 "$T"/nm
  run t1 --threads 1; run t2 --threads 2; run nm --threads 2 --no-memo
  same_dirs "$name --threads 1 vs 2" "$T/t1" "$T/t2"
  same_dirs "$name memo vs --no-memo" "$T/t2" "$T/nm"
  # 3. compressors
  ok=0 refused=0
  for c in $comps; do
    cname=${c%%|*} cs=${c##*|}
    [ "$summ" = 1 ] && [ "$cs" != summable ] && [ "$cname" != powersgd ] && continue
    "$CCSIM" run "$T/base.json" -q --force -o "$T/c" --set "collective=$cj" --set compressor="$cname" --set iterations=1 >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc = 0 ]; then ok=$((ok + 1))
    elif [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "base.json" "$T/err"; then refused=$((refused + 1))
    else echo "FAIL $name with $cname: exit $rc: $(head -3 "$T/err")"; fail=1; fi
  done
  echo "$name: threads and memo identical; $ok compressors run, $refused refused on input"
done
[ $fail = 0 ] && echo "registry: all passed"
exit $fail
