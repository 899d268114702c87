#!/usr/bin/env bash
# tests/resolved.sh CCSIM SRCDIR — the experiment stored in summary.json is
# what ran: --cfg settings the experiment holds appear in it; integers are
# written as integers (however the input wrote them); `ccsim list` shows
# parameters in the form the input takes (true/false, integers).
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
PY=/usr/bin/python3

"$CCSIM" run "$SRC/tests/golden/small.json" --out "$T/a" --quiet --cfg=network/model:LV08 \
  --cfg network/crosstraffic:1 --set 'model={"elements": 1001, "batch": 16.0}' >/dev/null 2>"$T/err" ||
  bad "run with --cfg: $(cat "$T/err")"
$PY - "$T/a/summary.json" <<'PY' && ok || bad "summary.json does not say what ran"
import json, sys
s = json.load(open(sys.argv[1]))
x = s["experiment"]
assert s["network_model"] == "LV08", s["network_model"]
assert x["platform"]["network_model"] == "LV08", x["platform"]
assert x["platform"]["crosstraffic"] is True, x["platform"]
assert type(x["model"]["batch"]) is int and x["model"]["batch"] == 16, x["model"]
assert type(s["bytes_on_wire"]) is int, s["bytes_on_wire"]
assert type(s["workers"]) is int and type(s["iterations"]) is int
PY
# the default network model, and a different simulated time with LV08
"$CCSIM" run "$SRC/tests/golden/small.json" --out "$T/b" --quiet >/dev/null 2>&1 || bad "plain run"
$PY - "$T/a/summary.json" "$T/b/summary.json" <<'PY' && ok || bad "LV08 did not change the simulated time"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert b["experiment"]["platform"]["network_model"] == "CM02"
assert a["sim_time_s"] != b["sim_time_s"]
PY
# a --cfg value the experiment refuses is bad input naming the field
"$CCSIM" validate "$SRC/tests/golden/small.json" --cfg network/model:XY >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'platform.network_model' "$T/err" && ok || bad "bad --cfg model: $(cat "$T/err")"

# list: parameters as the input writes them
"$CCSIM" list compressors >"$T/c" || bad "list compressors"
grep -qE '^randomk .* ratio=0.01 scaled=false ' "$T/c" && ok || bad "randomk's scaled is not false: $(grep ^randomk "$T/c")"
grep -qE '^qsgd .* levels=127 ' "$T/c" && ok || bad "qsgd levels: $(grep ^qsgd "$T/c")"
grep -qE '^powersgd .* rank=1 cols=0 error_feedback=1 warm_start=true' "$T/c" && ok || bad "powersgd: $(grep ^powersgd "$T/c")"
grep -qE '^global-qsgd .* bits=8 dithering="standard" ' "$T/c" && ok || bad "global-qsgd: $(grep ^global-qsgd "$T/c")"
grep -qE '=[0-9]+\.0( |$)' "$T/c" && bad "a parameter written as N.0" || ok
"$CCSIM" list memories >"$T/m" || bad "list memories"
grep -qE '^marsit .*eta=1 gamma=1 beta=0.5' "$T/m" && ok || bad "marsit memory parameters: $(grep ^marsit "$T/m")"
"$CCSIM" list collectives >"$T/l" || bad "list collectives"
grep -qE '^ps .*servers=0 downlink=false' "$T/l" && ok || bad "ps parameters: $(grep ^ps "$T/l")"
# every parameter `list` shows is accepted back by an experiment, as shown
while read -r name _ params; do
  [ "$name" = none ] && continue
  set -- $params
  obj="\"name\": \"$name\""
  for kv in "$@"; do
    case $kv in *=*) obj="$obj, \"${kv%%=*}\": ${kv#*=}";; *) break;; esac
  done
  "$CCSIM" validate "$SRC/tests/golden/small.json" --set "compressor={$obj}" \
    --set collective=allgather/ring >/dev/null 2>"$T/err" && ok || bad "$name {$obj}: $(cat "$T/err")"
done <"$T/c"
# every generator's line of `list platforms` gives its fields with defaults,
# and the line fed back as the platform validates (the example's host count
# as workers; "(workers)" and "(optional...)" fields left out)
"$CCSIM" list platforms >"$T/p" || bad "list platforms"
for gen in crossbar fat-tree torus dragonfly cloud multigpu pcie-server; do
  line=$(grep -A1 "^$gen " "$T/p" | sed -n 2p)
  case $line in *"defaults unavailable"*|"") bad "$gen: no defaults: $line"; continue;; esac
  obj="\"generate\": \"$gen\""
  for kv in $(echo "$line" | sed 's/ (required, e.g.)//g; s/ (optional, no default)//g'); do
    case $kv in *=\(workers\)|*=*\(*) ;; *=*) obj="$obj, \"${kv%%=*}\": ${kv#*=}";; esac
  done
  "$CCSIM" validate "$SRC/tests/golden/small.json" --set "platform={$obj}" --set workers=2 \
    >/dev/null 2>"$T/err" && ok || bad "$gen {$obj}: $(cat "$T/err")"
done
grep -qE '^ +down=\[8,8\] \(required, e.g.\) up=\[1,8\]' "$T/p" && ok || bad "fat-tree defaults: $(grep -A1 ^fat-tree "$T/p")"
echo "resolved: $pass passed, $fail failed"
[ $fail -eq 0 ]
