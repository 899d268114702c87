#!/usr/bin/env bash
# tests/schema.sh CCSIM SRCDIR — the JSON Schemas of experiments and sweeps
# (schema/, installed as share/ccsim/schema/):
#   - are the ones scripts/gen_schema.py writes from this ccsim's registries;
#   - are valid draft 2020-12 schemas;
#   - accept every experiment and sweep under workloads/ and tests/ that ccsim
#     accepts (`ccsim validate`, `ccsim sweep --dry-run`);
#   - refuse a few that ccsim refuses (an unknown key, an unknown compressor,
#     0 workers, a bad unit, a sweep without axes, a labelled value without a label).
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
PY=/usr/bin/python3
$PY -c 'import jsonschema' 2>/dev/null || { echo "schema: python3-jsonschema missing (scripts/install-deps.sh); skipped"; exit 77; }
CHECK="$SRC/tests/schema_check.py"
E=$SRC/schema/experiment.schema.json S=$SRC/schema/sweep.schema.json

$PY "$SRC/scripts/gen_schema.py" "$CCSIM" "$T/gen" || bad "gen_schema.py failed"
for f in experiment sweep; do
  cmp -s "$T/gen/$f.schema.json" "$SRC/schema/$f.schema.json" && ok ||
    bad "schema/$f.schema.json is stale: run scripts/gen_schema.py build/src/ccsim schema"
done

# every experiment and sweep ccsim accepts validates (one validator run per schema)
exps=() sweeps=()
while IFS= read -r -d '' f; do
  if grep -q '"axes"' "$f"; then
    "$CCSIM" sweep "$f" --dry-run --out "$T/sw" >/dev/null 2>&1 && sweeps+=("$f")
  else
    "$CCSIM" validate "$f" >/dev/null 2>&1 && exps+=("$f")
  fi
done < <(find "$SRC/workloads" "$SRC/tests" -name '*.json' -print0 | sort -z)
nexp=${#exps[@]} nsweep=${#sweeps[@]}
$PY "$CHECK" "$E" "${exps[@]}" >"$T/out" && ok || bad "ccsim accepts experiments the schema does not: $(grep invalid "$T/out")"
$PY "$CHECK" "$S" "${sweeps[@]}" >"$T/out" && ok || bad "ccsim accepts sweeps the schema does not: $(grep invalid "$T/out")"
# (counted at the time of writing: 45 experiments, 17 sweeps)
[ $nexp -ge 30 ] && [ $nsweep -ge 8 ] && ok || bad "only $nexp experiments and $nsweep sweeps accepted by ccsim were checked"

# some that ccsim refuses, the schema refuses too
Q=$SRC/workloads/quickstart.json
refuse() { # NAME SCHEMA JSON [ccsim args...]: both refuse
  local name=$1 schema=$2 json=$3
  shift 3
  printf '%s\n' "$json" >"$T/$name.json"
  "$CCSIM" "$@" "$T/$name.json" >/dev/null 2>&1; local rc=$?
  [ $rc -eq 2 ] && ok || bad "$name: ccsim exit $rc, expected 2"
  $PY "$CHECK" "$schema" "$T/$name.json" >"$T/out"; rc=$?
  [ $rc -eq 1 ] && grep -q 'invalid' "$T/out" && ok || bad "$name: the schema accepts what ccsim refuses: $(cat "$T/out")"
}
refuse unknown-key "$E" '{"wrokers": 4}' validate
refuse unknown-compressor "$E" '{"workers": 4, "compressor": "topkk"}' validate
refuse zero-workers "$E" '{"workers": 0}' validate
refuse bad-unit "$E" '{"workers": 4, "platform": {"bandwidth": "25Gbq"}}' validate
refuse generator "$E" '{"workers": 4, "platform": {"generate": "fattree"}}' validate
refuse memory "$E" '{"workers": 4, "compressor": {"name": "topk", "memory": "residul"}}' validate
refuse no-axes "$S" "{\"base\": \"$Q\", \"axes\": []}" sweep --dry-run --out "$T/x"
refuse no-label "$S" "{\"base\": \"$Q\", \"axes\": [{\"name\": \"m\", \"values\": [{\"set\": {\"workers\": 4}}]}]}" sweep --dry-run --out "$T/x"
refuse sweep-key "$S" "{\"base\": \"$Q\", \"axis\": []}" sweep --dry-run --out "$T/x"
echo "schema: $pass passed, $fail failed ($nexp experiments, $nsweep sweeps)"
[ $fail -eq 0 ]
