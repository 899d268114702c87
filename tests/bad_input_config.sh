#!/usr/bin/env bash
# tests/bad_input_config.sh CCSIM SRCDIR — the input layer's classes of bad
# input (src/config/input.h): each gets exit 2 and one line naming the file
# and, for a value, its JSON path.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# expect NAME EXPECTED-SUBSTRING COMMAND...
expect() {
  local name=$1 want=$2
  shift 2
  timeout 20 "$@" >"$T/out" 2>"$T/err" </dev/null
  local rc=$? lines
  lines=$(wc -l <"$T/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$T/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, $lines stderr lines, wanted \"$want\" in:" >&2
    sed 's/^/    /' "$T/err" >&2
  fi
}
exp() { printf '%s\n' "$2" >"$T/$1.json"; }
ok='"model": {"elements": 64}'

# numbers: a real too large for an integer field is named as written
exp hugeint '{"workers": 1e300, '"$ok"'}'
expect huge-real-int 'hugeint.json: workers: expected an integer in [1, 1048576], got 1e+300' "$CCSIM" validate "$T/hugeint.json"
exp hugeel '{"workers": 2, "model": {"elements": 9.3e18}}'
expect huge-real-elements 'hugeel.json: model.elements: expected an integer in [1, ' "$CCSIM" validate "$T/hugeel.json"
exp bigint '{"workers": 2, "iterations": 99999999999999999999, '"$ok"'}'
expect integer-overflow 'bigint.json:1:' "$CCSIM" validate "$T/bigint.json"
exp fracint '{"workers": 2.5, '"$ok"'}'
expect fractional-int 'fracint.json: workers: expected an integer >= 1, got 2.5' "$CCSIM" validate "$T/fracint.json"
exp negseed '{"workers": 2, "seed": -1, '"$ok"'}'
expect negative-seed 'negseed.json: seed: expected an integer in [0, ' "$CCSIM" validate "$T/negseed.json"
exp hugedim '{"workers": 2, "platform": {"generate": "torus", "dims": [4, 1e30]}, '"$ok"'}'
expect huge-array-element 'hugedim.json: platform.dims[1]: expected an integer <= 1048576, got 1e+30' "$CCSIM" validate "$T/hugedim.json"
exp realint '{"workers": 2.0, "iterations": 3.0, '"$ok"'}'
if "$CCSIM" validate "$T/realint.json" >/dev/null 2>&1; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL integral reals refused" >&2; fi

# syntax: truncated and malformed files give line and column
exp trunc $'{"workers": 2,\n "model": {"elements": 6'
expect truncated 'trunc.json:3:0: malformed JSON' "$CCSIM" validate "$T/trunc.json"
printf '{"workers": 2, "model": {"elements": 64}}\000' >"$T/nul.json"
expect nul-byte 'nul.json:1:' "$CCSIM" validate "$T/nul.json"

# duplicate keys: in the file, nested, inside a --set value
exp dup2 '{"workers": 2, "model": {"elements": 64, "elements": 65}}'
expect duplicate-nested 'dup2.json:1:' "$CCSIM" validate "$T/dup2.json"
exp good '{"workers": 2, '"$ok"'}'
expect duplicate-in-set 'good.json: --set model={"elements": 1, "elements": 2}: the value is not valid JSON: duplicate object key' "$CCSIM" validate "$T/good.json" --set 'model={"elements": 1, "elements": 2}'
expect set-empty-part 'good.json: --set platform..bandwidth=1Gbps: PATH has an empty part' "$CCSIM" validate "$T/good.json" --set 'platform..bandwidth=1Gbps'

# files that are not regular files: refused, never read or waited on
mkfifo "$T/fifo.json"
expect fifo-experiment 'fifo.json: is a FIFO; expected the experiment file' "$CCSIM" validate "$T/fifo.json"
expect dir-experiment "$T: is a directory; expected the experiment file" "$CCSIM" validate "$T"
expect dev-experiment '/dev/zero: is a character device; expected the experiment file' "$CCSIM" validate /dev/zero
exp prof '{"workers": 2, "model": {"profile": "/dev/zero"}}'
expect dev-profile 'prof.json: model.profile: /dev/zero: is a character device; expected the model profile' "$CCSIM" validate "$T/prof.json"
mkdir "$T/trdir" "$T/trdir/index.json"
exp trd '{"workers": 2, "gradients": {"source": "trace", "trace": "trdir"}}'
expect dir-trace-index 'trd.json: gradients.trace: ' "$CCSIM" validate "$T/trd.json"
grep -qF "index.json: is a directory" "$T/err" || { fail=$((fail + 1)); echo "FAIL dir-trace-index: message" >&2; }
exp trf '{"workers": 2, "gradients": {"source": "trace", "trace": "good.json"}}'
expect file-as-trace 'trf.json: gradients.trace: ' "$CCSIM" validate "$T/trf.json"
# too big: a file over the cap is refused before it is read
truncate -s 17M "$T/big.json"
expect oversized 'big.json: 17825792 bytes; the experiment file may be at most 16777216 bytes' "$CCSIM" validate "$T/big.json"

# profiles: duplicate keys and huge counts
cat >"$T/dupprof.json" <<'P'
{"name": "n", "source": "s", "input": "i", "total_params": 6, "total_fwd_flops": 12,
 "total_bwd_flops": 24, "layers": [{"name": "w", "params": 6, "params": 7, "fwd_flops": 12, "bwd_flops": 24}]}
P
exp usedup '{"workers": 2, "model": {"profile": "dupprof.json"}}'
expect duplicate-profile 'usedup.json: model.profile: ' "$CCSIM" validate "$T/usedup.json"
grep -qF "dupprof.json:2:" "$T/err" || { fail=$((fail + 1)); echo "FAIL duplicate-profile: no line" >&2; }

# sweeps: duplicate keys, an empty axis, too many points (crashed before)
printf '{"name": "s", "base": "good.json", "base": "good.json", "axes": [{"path": "workers", "values": [2]}]}\n' >"$T/sdup.json"
expect sweep-duplicate 'sdup.json:1:' "$CCSIM" sweep "$T/sdup.json" --out "$T/so" --dry-run
printf '{"name": "s", "base": "good.json", "axes": [{"path": "workers", "values": []}]}\n' >"$T/sempty.json"
expect sweep-empty-axis 'sempty.json: axes[0]: "values" must be a non-empty array' "$CCSIM" sweep "$T/sempty.json" --out "$T/so" --dry-run
/usr/bin/python3 -c 'import json; print(json.dumps({"name": "s", "base": "good.json", "axes": [{"path": "seed", "values": list(range(400))}] * 3}))' >"$T/sbig.json"
expect sweep-too-many "sbig.json: axes: 64000000 points (the axes' lengths multiplied), more than the 100000 a sweep may have" "$CCSIM" sweep "$T/sbig.json" --out "$T/so" --dry-run
# an empty name, as a sweep's is (the default is the file's name)
printf '{"name": "", "workers": 2, "model": {"elements": 64}}\n' >"$T/noname.json"
expect empty-name 'noname.json: name: expected a non-empty string' "$CCSIM" validate "$T/noname.json"
printf '{"name": "a\\u001b[31mred", "workers": 2, "model": {"elements": 64}}\n' >"$T/escname.json"
expect control-in-name 'escname.json: name: expected a name without control characters (newline, tab, ...), got 0x1b' "$CCSIM" validate "$T/escname.json"
# a sweep where an experiment goes, an experiment where a sweep goes, a
# sweep whose base is a sweep: each said as such
printf '{"name": "s", "base": "good.json", "axes": [{"path": "workers", "values": [2]}]}\n' >"$T/ssweep.json"
expect run-a-sweep 'ssweep.json: (top level): expected an experiment, got a sweep file (it has "base" and "axes"): run it with ccsim sweep' "$CCSIM" run "$T/ssweep.json" --out "$T/ro"
printf '{"workers": 2, "model": {"elements": 64}}\n' >"$T/sexp.json"
expect sweep-an-experiment 'sexp.json: (top level): expected a sweep file, got an experiment (it has no "base" and no "axes"): run it with ccsim run' "$CCSIM" sweep "$T/sexp.json" --out "$T/so" --dry-run
printf '{"name": "s2", "base": "ssweep.json", "axes": [{"path": "seed", "values": [1]}]}\n' >"$T/sofs.json"
expect sweep-of-a-sweep 'expected an experiment, got a sweep file' "$CCSIM" sweep "$T/sofs.json" --out "$T/so" --dry-run
mkfifo "$T/sfifo.json"
expect sweep-fifo 'sfifo.json: is a FIFO; expected the sweep file' "$CCSIM" sweep "$T/sfifo.json" --out "$T/so" --dry-run

echo "bad_input_config: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
