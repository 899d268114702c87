#!/usr/bin/env bash
# tests/friction.sh CCSIM SRCDIR — a new user's typos: "did you mean" on an
# unknown key, name, option or command; long options by their exact name
# only; a sweep's misspelt axis blamed on the sweep file.  Each is exit 2
# and one line on stderr.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
Q=$SRC/workloads/quickstart.json

. "$SRC/tests/expect.sh" # expect NAME EXPECTED-SUBSTRING COMMAND...
# no suggestion when nothing is close
expect_no_hint() {
  local name=$1
  shift
  "$@" >/dev/null 2>"$T/err"
  if [ $? -eq 2 ] && ! grep -q 'did you mean' "$T/err"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $name: $(cat "$T/err")" >&2; fi
}

# keys and names in an experiment
expect key 'platfrom: unknown key "platfrom" (did you mean "platform"? known here: name,' \
  "$CCSIM" validate "$Q" --set platfrom.bandwidth=1
expect platform-key 'platform.bandwith: unknown key "bandwith" (did you mean "bandwidth"? known here:' \
  "$CCSIM" validate "$Q" --set platform.bandwith=1
expect compressor 'compressor.name: unknown compressor "topkk" (did you mean "topk"? known: none,' \
  "$CCSIM" validate "$Q" --set compressor=topkk
expect compressor-case 'unknown compressor "FP16" (did you mean "fp16"?' "$CCSIM" validate "$Q" --set compressor=FP16
expect memory 'unknown memory "residul" (did you mean "residual"?' "$CCSIM" validate "$Q" --set compressor.memory=residul
expect collective 'collective.name: unknown collective "allreduce/rign" (did you mean "allreduce/ring"? known:' \
  "$CCSIM" validate "$Q" --set collective=allreduce/rign
expect collective-leaf 'unknown collective "tre" (did you mean "allreduce/tree"?' "$CCSIM" validate "$Q" --set collective=tre
expect generator 'platform.generate: unknown value "fattree" (did you mean "fat-tree"? known: crossbar,' \
  "$CCSIM" validate "$Q" --set platform.generate=fattree
expect source 'gradients.source: unknown value "synthtic" (did you mean "synthetic"?' \
  "$CCSIM" validate "$Q" --set gradients.source=synthtic
expect device 'device: unknown device "a10" (did you mean "a100"? built in:' "$CCSIM" validate "$Q" --set device=a10
expect model 'unknown model profile "resnet5":' "$CCSIM" validate "$Q" --set 'model={"profile": "resnet5"}'
expect model-hint '(did you mean "resnet50"? known in' "$CCSIM" validate "$Q" --set 'model={"profile": "resnet5"}'
expect_no_hint far-key "$CCSIM" validate "$Q" --set zzzzzz=1
expect_no_hint far-compressor "$CCSIM" validate "$Q" --set compressor=zip

# options: the exact long name only, in every subcommand
expect prefix-run 'ccsim run: unknown option --thread (did you mean --threads?)' "$CCSIM" run "$Q" --thread 2 --out "$T/o"
expect prefix-eq 'ccsim run: unknown option --thread (did you mean --threads?)' "$CCSIM" run --thread=2 "$Q" --out "$T/o"
[ ! -e "$T/o" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL a refused option ran" >&2; }
for c in $("$CCSIM" --commands); do
  # the first long option of each command, less its last letter
  o=$("$CCSIM" "$c" --help | sed -n 's/^ *\(-., \)\?--\([a-z][a-z-]*\).*/\2/p' | grep -vx help | awk 'length > 3' | head -1)
  [ -n "$o" ] || o=help
  expect "prefix-$c" "ccsim $c: unknown option --${o%?} (did you mean --$o?)" "$CCSIM" "$c" "--${o%?}"
done
expect command 'ccsim: unknown command "vaildate" (did you mean "validate"?)' "$CCSIM" vaildate "$Q"
expect list 'unknown list "compresors" (did you mean "compressors"?' "$CCSIM" list compresors

# SimGrid's configuration errors, in ccsim's words, naming the option
expect cfg-key 'ccsim validate: --cfg network/modle:LV08: SimGrid has no configuration option "network/modle" (did you mean "network/model"?)' \
  "$CCSIM" validate "$Q" --cfg network/modle:LV08
expect cfg-far 'ccsim run: --cfg foo:1: SimGrid has no configuration option "foo"' "$CCSIM" run "$Q" --cfg foo:1 --out "$T/o"
expect cfg-value 'ccsim validate: --cfg maxmin/precision:abc: SimGrid refuses the value "abc" of maxmin/precision: invalid double' \
  "$CCSIM" validate "$Q" --cfg maxmin/precision:abc
expect cfg-colon 'ccsim validate: --cfg maxmin/precision: expected KEY:VALUE' "$CCSIM" validate "$Q" --cfg maxmin/precision
"$CCSIM" validate "$Q" --cfg maxmin/precision:1e-6 >/dev/null 2>"$T/err" && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL a good --cfg refused: $(cat "$T/err")" >&2; }
if grep -q 'out_of_range\|Uncaught' "$T/err"; then fail=$((fail + 1)); echo "FAIL SimGrid's own text" >&2; fi

# a shipped platform by its name; a misspelt one names the closest
"$CCSIM" validate "$Q" --set platform=dgx1-4x8 --set workers=8 >"$T/out" 2>"$T/err" &&
  grep -q '8 workers on 32 hosts' "$T/out" && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL platform by name: $(cat "$T/out" "$T/err")" >&2; }
expect platform-name 'platform.file: "dgx1-4x9" is neither a file next to the experiment' \
  "$CCSIM" validate "$Q" --set platform=dgx1-4x9
expect platform-hint '(did you mean "dgx1-4x8"? shipped: cloud-4racks,' "$CCSIM" validate "$Q" --set platform=dgx1-4x9

# a sweep's axis path and values are the sweep file's
cat >"$T/sweep.json" <<JSON
{"name": "t", "base": "$Q",
 "axes": [{"path": "platfrom.bandwidth", "values": ["10Gbps", "25Gbps"]}], "output": {"dir": "$T/out"}}
JSON
expect sweep-path 'sweep.json: axes[0].path: point platfrom.bandwidth=10Gbps: platfrom: unknown key "platfrom" (did you mean "platform"?' \
  "$CCSIM" sweep "$T/sweep.json" --dry-run
cat >"$T/sweep2.json" <<JSON
{"name": "t", "base": "$Q", "set": {"iterations": 2},
 "axes": [{"path": "platform.bandwidth", "values": ["10Gbps", "25Gbq"]},
          {"name": "m", "values": [{"label": "a", "set": {"compressor": {"name": "topkk"}}}]}],
 "output": {"dir": "$T/out"}}
JSON
expect sweep-labelled 'sweep2.json: axes[1].values[0].set.compressor: point platform.bandwidth=10Gbps,m=a: compressor.name: unknown compressor "topkk"' \
  "$CCSIM" sweep "$T/sweep2.json" --dry-run
sed -i 's/topkk/fp16/' "$T/sweep2.json"
expect sweep-value 'sweep2.json: axes[0].values[1]: point platform.bandwidth=25Gbq,m=a: platform.bandwidth: expected a bandwidth' \
  "$CCSIM" sweep "$T/sweep2.json" --dry-run
sed -i 's/25Gbq/25Gbps/; s/"iterations": 2/"iterations": 0/' "$T/sweep2.json"
expect sweep-set 'sweep2.json: set.iterations: point platform.bandwidth=10Gbps,m=a: iterations: expected an integer' \
  "$CCSIM" sweep "$T/sweep2.json" --dry-run
# a mistake of the base experiment itself stays the base file's
sed 's/"workers": 16/"wrokers": 16/' "$Q" >"$T/base.json"
sed -i "s#\"iterations\": 0#\"iterations\": 2#; s#$Q#$T/base.json#" "$T/sweep2.json"
expect sweep-base "base.json: wrokers: unknown key \"wrokers\" (did you mean \"workers\"?" "$CCSIM" sweep "$T/sweep2.json" --dry-run

echo "friction: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
