#!/usr/bin/env bash
# tests/hostile.sh CCSIM SRCDIR — a careful reviewer's bad inputs and
# hostile situations, through validate, run and sweep: every one ends with
# exit 2 (bad input) or 1 (a run failed) and ONE stderr line naming the file
# and the JSON path or element; none ends by signal or hangs (timeout 20);
# nothing is written outside the output directory; and no result file of
# any case holds a NaN or an infinity.  The cases are not those of
# bad_input.sh, bad_input_config.sh, platform_checks.sh, outputs.sh,
# sweep_safety.sh, numbers.sh or resources.sh.
set -u
CCSIM=$(realpath "$1")
SRC=$(realpath "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

# Under -Dsanitize=true, ASan adds its own notices about SimGrid's context
# switches to stderr; they are not ccsim's output, so they are dropped
# before stderr is judged (only these four known lines).
asan_notices() {
  grep -v -e "^==[0-9]*==WARNING: ASan doesn't fully support makecontext/swapcontext" \
    -e '^==[0-9]*==WARNING: ASan is ignoring requested __asan_handle_no_return' \
    -e '^False positive error reports may follow$' \
    -e '^For details see https://github.com/google/sanitizers/issues/189$' err >err.kept
  mv err.kept err
}
# xc CODE NAME WANT COMMAND...: exit CODE, one stderr line containing WANT
xc() {
  local code=$1 name=$2 want=$3
  shift 3
  timeout 20 "$@" >out 2>err </dev/null
  local rc=$? lines
  asan_notices
  lines=$(wc -l <err)
  if [ "$rc" -eq "$code" ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" err; then pass=$((pass + 1)); else
    bad "$name: exit $rc, $lines stderr lines, wanted exit $code and \"$want\" in: $(head -c 700 err)"
  fi
}
x2() { xc 2 "$@"; }
x1() { xc 1 "$@"; }
# x0 NAME COMMAND...: exit 0, nothing on stderr
x0() {
  local name=$1
  shift
  timeout 20 "$@" >out 2>err </dev/null
  local rc=$?
  asan_notices
  if [ "$rc" -eq 0 ] && [ ! -s err ]; then pass=$((pass + 1)); else bad "$name: exit $rc: $(head -c 500 err)"; fi
}
# e NAME JSON: the experiment NAME.json
e() { printf '%s\n' "$2" >"$1.json"; }
ok='"model": {"elements": 64}'
e good '{"workers": 2, '"$ok"'}'

# ---- experiment: types and structure at every level ----
e platnum '{"workers": 2, "platform": 5, '"$ok"'}'
x2 platform-number 'platnum.json: platform: expected an object, got 5' "$CCSIM" validate platnum.json
e platempty '{"workers": 2, "platform": "", '"$ok"'}'
x2 platform-empty-string 'platempty.json: platform.file: ' "$CCSIM" validate platempty.json
e collnull '{"workers": 2, "collective": null, '"$ok"'}'
x2 collective-null 'collnull.json: collective: expected an object, got null' "$CCSIM" validate collnull.json
e schedstr '{"workers": 2, "schedule": "buckets", '"$ok"'}'
x2 schedule-string 'schedstr.json: schedule: expected an object, got "buckets"' "$CCSIM" validate schedstr.json
e gradarr '{"workers": 2, "gradients": [], '"$ok"'}'
x2 gradients-array 'gradarr.json: gradients: expected an object, got []' "$CCSIM" validate gradarr.json
e workneg0 '{"workers": -0, '"$ok"'}'
x2 workers-minus-zero 'workneg0.json: workers: expected an integer in [1, ' "$CCSIM" validate workneg0.json
e seedfrac '{"workers": 2, "seed": 1.5, '"$ok"'}'
x2 seed-fraction 'seedfrac.json: seed: expected an integer >= 0, got 1.5' "$CCSIM" validate seedfrac.json
e topstr '"workers"'
x2 top-level-string 'topstr.json:1:' "$CCSIM" validate topstr.json
printf '{"workers": 2, "description": %s1%s}\n' "$(printf '[%.0s' $(seq 1 3000))" "$(printf ']%.0s' $(seq 1 3000))" >deep.json
x2 deep-nesting 'deep.json:1:' "$CCSIM" validate deep.json
e dupplat '{"workers": 2, "platform": {"bandwidth": "1Gbps", "bandwidth": "2Gbps"}, '"$ok"'}'
x2 duplicate-key-in-section 'dupplat.json:1:' "$CCSIM" validate dupplat.json
e nlname '{"workers": 2, "compressor": "a\nb", '"$ok"'}'
x2 newline-in-a-value 'nlname.json: compressor.name: unknown compressor "a\nb"' "$CCSIM" validate nlname.json
e escname '{"workers": 2, "compressor": "x\u001b[31mred", '"$ok"'}'
x2 escape-in-a-value 'escname.json: compressor.name: unknown compressor "x\x1b[31mred"' "$CCSIM" validate escname.json
e outunk '{"workers": 2, "output": {"directory": "x"}, '"$ok"'}'
x2 output-unknown-key 'outunk.json: output.directory: unknown key "directory"' "$CCSIM" validate outunk.json
e outnum '{"workers": 2, "output": {"dir": 5}, '"$ok"'}'
x2 output-dir-number 'outnum.json: output.dir: expected a string, got 5' "$CCSIM" validate outnum.json
e timel '{"workers": 2, "output": {"timeline": "yes"}, '"$ok"'}'
x2 output-timeline-string 'timel.json: output.timeline: expected true or false, got "yes"' "$CCSIM" validate timel.json
# a name that is not a path: encoded into one component under results/
e uni '{"name": "../\u00e9\u202e/x", "workers": 2, "iterations": 1, '"$ok"'}'
x0 odd-name "$CCSIM" run uni.json --quiet
[ "$(find results -name summary.json | wc -l)" -eq 1 ] && [ "$(find results -mindepth 1 -maxdepth 1 | wc -l)" -eq 1 ] &&
  [ ! -e x ] && pass=$((pass + 1)) || bad "odd-name: results not in one component of results/: $(find results)"

# ---- platform section: units and ranges SimGrid cannot simulate ----
e bwtiny '{"workers": 2, "platform": {"bandwidth": "1e-300bps"}, '"$ok"'}'
x2 bandwidth-tiny 'bwtiny.json: platform.bandwidth: expected a bandwidth such as "25Gbps" or "10GBps" from 1bps' "$CCSIM" validate bwtiny.json
e bwdenorm '{"workers": 2, "platform": {"bandwidth": "1e-308bps"}, '"$ok"'}'
x2 bandwidth-subnormal 'bwdenorm.json: platform.bandwidth: expected a bandwidth' "$CCSIM" run bwdenorm.json --out o --quiet
e bwhuge '{"workers": 2, "platform": {"bandwidth": "1e200Gbps"}, '"$ok"'}'
x2 bandwidth-huge 'bwhuge.json: platform.bandwidth: expected a bandwidth' "$CCSIM" validate bwhuge.json
e bwinf '{"workers": 2, "platform": {"bandwidth": "infGbps"}, '"$ok"'}'
x2 bandwidth-inf 'bwinf.json: platform.bandwidth: expected a bandwidth' "$CCSIM" validate bwinf.json
e bwbool '{"workers": 2, "platform": {"bandwidth": true}, '"$ok"'}'
x2 bandwidth-bool 'bwbool.json: platform.bandwidth: expected a bandwidth' "$CCSIM" validate bwbool.json
e lattiny '{"workers": 2, "platform": {"latency": "1e-300s"}, '"$ok"'}'
x2 latency-below-precision 'lattiny.json: platform.latency: expected a time such as "5us" or "1.5ms" of 0 or from 1ns' "$CCSIM" run lattiny.json --out o --quiet
e lathuge '{"workers": 2, "platform": {"latency": "1e308s"}, '"$ok"'}'
x2 latency-huge 'lathuge.json: platform.latency: expected a time' "$CCSIM" validate lathuge.json
e lathex '{"workers": 2, "platform": {"latency": "0x10us"}, '"$ok"'}'
x2 latency-hex 'lathex.json: platform.latency: expected a time' "$CCSIM" validate lathex.json
e nicbw '{"workers": 2, "platform": {"generate": "cloud", "racks": 1, "hosts_per_rack": 2, "nics": [{"bandwidth": "1e-30Gbps"}]}, '"$ok"'}'
x2 nic-bandwidth-tiny 'nicbw.json: platform.nics[0].bandwidth: expected a bandwidth' "$CCSIM" validate nicbw.json
e netnum '{"workers": 2, "platform": {"network_model": 3}, '"$ok"'}'
x2 network-model-number 'netnum.json: platform.network_model: expected a string, got 3' "$CCSIM" validate netnum.json
e cross '{"workers": 2, "platform": {"crosstraffic": "yes"}, '"$ok"'}'
x2 crosstraffic-string 'cross.json: platform.crosstraffic: expected true or false, got "yes"' "$CCSIM" validate cross.json
e hosts12 '{"workers": 2, "platform": {"hosts": 1e12}, '"$ok"'}'
x2 hosts-huge 'hosts12.json: platform.hosts: expected an integer in [1, 1048576], got 1000000000000' "$CCSIM" validate hosts12.json
e genempty '{"workers": 2, "platform": {"generate": ""}, '"$ok"'}'
x2 generate-empty 'genempty.json: platform.generate: unknown value ""' "$CCSIM" validate genempty.json

# ---- model: numbers that must not wrap or round silently ----
e sizehuge '{"workers": 2, "model": {"size": "1e30B"}}'
x2 size-huge 'sizehuge.json: model.size: expected a size' "$CCSIM" run sizehuge.json --out o --quiet
e sizefrac '{"workers": 2, "model": {"size": "6B"}}'
x2 size-not-whole-elements 'sizefrac.json: model.size: 6 bytes is not a whole number of fp32 elements' "$CCSIM" validate sizefrac.json
e elstr '{"workers": 2, "model": {"elements": "64"}}'
x2 elements-string 'elstr.json: model.elements: expected an integer >= 1, got "64"' "$CCSIM" validate elstr.json
e layobj '{"workers": 2, "model": {"layers": {"name": "a"}}}'
x2 layers-object 'layobj.json: model.layers: expected a non-empty array' "$CCSIM" validate layobj.json
e layfl '{"workers": 2, "model": {"layers": [{"name": "a", "params": 10, "fwd_flops": 1e308}]}}'
x2 layer-flops-huge 'layfl.json: model.layers[0].fwd_flops: expected a number in [0, 1e+30], got 1e+308' "$CCSIM" validate layfl.json
e batchhuge '{"workers": 2, "model": {"elements": 64, "batch": 1e15}}'
x2 batch-huge 'batchhuge.json: model.batch: expected an integer in [1, 1000000000]' "$CCSIM" validate batchhuge.json
e profempty '{"workers": 2, "model": {"profile": ""}}'
x2 profile-empty 'profempty.json: model.profile: model profile ""' "$CCSIM" validate profempty.json
e dtype '{"workers": 2, "model": {"elements": 64, "dtype": "fp16"}}'
x2 model-unknown-key 'dtype.json: model.dtype: unknown key "dtype"' "$CCSIM" validate dtype.json

# ---- gradients, compressor, memory, collective, schedule ----
e sc38 '{"workers": 2, "gradients": {"scale": 1e38}, '"$ok"'}'
x2 scale-1e38 'sc38.json: gradients.scale: expected a number in [1e-30, 1e+30], got 1e+38' "$CCSIM" validate sc38.json
e scsub '{"workers": 2, "gradients": {"scale": 1e-320}, '"$ok"'}'
x2 scale-subnormal 'scsub.json: gradients.scale: expected a number in [1e-30, 1e+30]' "$CCSIM" validate scsub.json
e ratiostr '{"workers": 2, "compressor": {"name": "topk", "ratio": "0.1"}, "collective": "allgather/ring", '"$ok"'}'
x2 ratio-string 'ratiostr.json: compressor.ratio: expected a number' "$CCSIM" validate ratiostr.json
e levfrac '{"workers": 2, "compressor": {"name": "qsgd", "levels": 1.5}, "collective": "allgather/ring", '"$ok"'}'
x2 levels-fraction "levfrac.json: compressor.levels: qsgd: parameter 'levels' must be an integer, got 1.5" "$CCSIM" validate levfrac.json
e bits64 '{"workers": 2, "compressor": {"name": "global-qsgd", "bits": 64}, '"$ok"'}'
x2 bits-64 "bits64.json: compressor.bits: global-qsgd: parameter 'bits' must be in [2, 16], got 64" "$CCSIM" validate bits64.json
e memnum '{"workers": 2, "compressor": {"name": "topk", "memory": 3}, "collective": "allgather/ring", '"$ok"'}'
x2 memory-number 'memnum.json: compressor.memory: expected a memory name' "$CCSIM" validate memnum.json
e memnoname '{"workers": 2, "compressor": {"name": "topk", "memory": {"beta": 0.5}}, "collective": "allgather/ring", '"$ok"'}'
x2 memory-no-name 'memnoname.json: compressor.memory.name: missing' "$CCSIM" validate memnoname.json
e memeta '{"workers": 2, "compressor": {"name": "ef-signsgd", "memory": {"name": "ef-sign", "eta": 1e300}}, "collective": "allgather/ring", '"$ok"'}'
x2 memory-eta-huge "memeta.json: compressor.memory.eta: ef-sign: parameter 'eta' must be in" "$CCSIM" validate memeta.json
e rows30 '{"workers": 12, "collective": {"name": "allreduce/torus2d", "rows": 1e30}, '"$ok"'}'
x2 rows-huge "rows30.json: collective.rows: allreduce/torus2d: parameter 'rows' must be in" "$CCSIM" validate rows30.json
e servers '{"workers": 4, "collective": {"name": "ps", "servers": 5}, '"$ok"'}'
x2 ps-servers-gt-workers 'servers.json: collective: ps: 5 servers but only 4 workers' "$CCSIM" validate servers.json
e collarr '{"workers": 4, "collective": ["allreduce/ring"], '"$ok"'}'
x2 collective-array 'collarr.json: collective: expected an object, got ["allreduce/ring"]' "$CCSIM" validate collarr.json
e groups '{"workers": 2, "schedule": {"kind": "mergecomp", "groups": 1000}, '"$ok"'}'
x2 groups-huge 'groups.json: schedule.groups: expected an integer in [1, 64], got 1000' "$CCSIM" validate groups.json
e bucket '{"workers": 2, "schedule": {"kind": "buckets", "bucket_mb": 1e300}, '"$ok"'}'
x2 bucket-huge 'bucket.json: schedule.bucket_mb: expected a number in [1e-06, 1e+06], got 1e+300' "$CCSIM" validate bucket.json
e probes '{"workers": 2, "schedule": {"kind": "mergecomp", "probes": 1000000000}, '"$ok"'}'
x2 probes-huge 'probes.json: schedule.probes: expected an integer in [1, 4096], got 1000000000' "$CCSIM" validate probes.json
e probesingle '{"workers": 2, "schedule": {"kind": "single", "probes": 8}, '"$ok"'}'
x2 probes-not-mergecomp 'probesingle.json: schedule.probes: only a "mergecomp" schedule takes probes' "$CCSIM" validate probesingle.json
e fixed1 '{"workers": 2, "schedule": {"kind": "fixed", "cuts": [1]}, '"$ok"'}'
x2 fixed-one-layer 'fixed1.json: schedule.kind: "fixed" cuts the layers, but the model has one layer' "$CCSIM" validate fixed1.json

# ---- --set: paths, indexes, values ----
x2 set-empty-path 'good.json: --set =5: expected PATH=VALUE' "$CCSIM" validate good.json --set =5
x2 set-empty 'good.json: --set : expected PATH=VALUE' "$CCSIM" validate good.json --set ''
x2 set-index 'good.json: platform.dims[0]: unknown key "dims[0]"' "$CCSIM" validate good.json --set 'platform.dims[0]=4'
x2 set-long-path 'good.json: --set: path of 300 characters (at most 255)' "$CCSIM" validate good.json --set "$(printf 'a%.0s' $(seq 1 300))=1"
x2 set-nan 'good.json: workers: expected an integer >= 1, got "NaN"' "$CCSIM" validate good.json --set workers=NaN
x2 set-truncated-json 'good.json: --set model={"elements": 1: the value is not valid JSON' "$CCSIM" validate good.json --set 'model={"elements": 1'
x2 set-newline-path 'good.json: a\nb: unknown key "a\nb"' "$CCSIM" validate good.json --set $'a\nb=1'
x2 set-into-default 'good.json: compressor.ratio: unknown key "ratio" (known here: name, memory)' "$CCSIM" validate good.json --set compressor.ratio=0.1

# ---- sweeps ----
s() { printf '%s\n' "$2" >"$1.json"; }
s swnobase '{"axes": [{"path": "seed", "values": [1]}]}'
x2 sweep-no-base 'swnobase.json: base: expected the path of the base experiment' "$CCSIM" sweep swnobase.json --out so --dry-run
s swaxobj '{"base": "good.json", "axes": {"path": "seed", "values": [1]}}'
x2 sweep-axes-object 'swaxobj.json: axes: expected an array of 1 to 8 axes' "$CCSIM" sweep swaxobj.json --out so --dry-run
s swaxname '{"base": "good.json", "axes": [{"name": "", "path": "seed", "values": [1]}]}'
x2 sweep-empty-axis-name 'swaxname.json: axes[0]: "name" must not be empty' "$CCSIM" sweep swaxname.json --out so --dry-run
s swlabel '{"base": "good.json", "axes": [{"name": "m", "values": [{"label": "", "set": {"seed": 1}}]}]}'
x2 sweep-empty-label 'swlabel.json: axes[0].values[0]: "label" must not be empty' "$CCSIM" sweep swlabel.json --out so --dry-run
s swdupax '{"base": "good.json", "axes": [{"path": "seed", "values": [1, 2]}, {"path": "seed", "values": [3]}]}'
x2 sweep-duplicate-axis 'swdupax.json: axes[1]: the axis name "seed" is axes[0]'"'"'s too' "$CCSIM" sweep swdupax.json --out so --dry-run
s swsame '{"base": "good.json", "axes": [{"path": "seed", "values": [1, 1.0]}]}'
x2 sweep-same-experiment 'swsame.json: axes: points "seed=1" and "seed=1.0" are the same experiment' "$CCSIM" sweep swsame.json --out so --dry-run
s sweq '{"base": "good.json", "set": {"name=x": 1}, "axes": [{"path": "seed", "values": [1]}]}'
x2 sweep-key-with-equals 'sweq.json: set: "name=x" is not a field path' "$CCSIM" sweep sweq.json --out so --dry-run
s swout '{"base": "good.json", "axes": [{"path": "seed", "values": [1]}], "output": {"dir": 5}}'
x2 sweep-output-dir-number 'swout.json: output.dir: expected a non-empty string' "$CCSIM" sweep swout.json --out so --dry-run
s swdev '{"base": "/dev/zero", "axes": [{"path": "seed", "values": [1]}]}'
x2 sweep-base-device 'swdev.json: point seed=1: /dev/zero: is a character device' "$CCSIM" sweep swdev.json --out so --dry-run
s swpoint '{"base": "good.json", "axes": [{"name": "m", "values": [{"label": "a", "set": {"seed": -1}}]}]}'
x2 sweep-bad-point 'swpoint.json: axes[0].values[0].set.seed: point m=a: seed: expected an integer in [0, ' "$CCSIM" sweep swpoint.json --out so --dry-run
s swnine '{"base": "good.json", "axes": [{"path": "seed", "values": [1]}, {"path": "a1", "values": [1]}, {"path": "a2", "values": [1]}, {"path": "a3", "values": [1]}, {"path": "a4", "values": [1]}, {"path": "a5", "values": [1]}, {"path": "a6", "values": [1]}, {"path": "a7", "values": [1]}, {"path": "a8", "values": [1]}]}'
x2 sweep-nine-axes 'swnine.json: axes: expected an array of 1 to 8 axes' "$CCSIM" sweep swnine.json --out so --dry-run
# a planted symbolic link at a point's directory is never written through
mkdir -p planted victim && ln -s ../victim "planted/seed=1"
s swplant '{"base": "good.json", "set": {"iterations": 1}, "axes": [{"path": "seed", "values": [1]}]}'
x2 sweep-planted-point 'swplant.json: point seed=1: its directory planted/seed=1 is a symbolic link' "$CCSIM" sweep swplant.json --out planted --quiet
[ -z "$(ls victim)" ] && pass=$((pass + 1)) || bad "sweep-planted-point: wrote into the link's target: $(ls victim)"
# without "name", a sweep is named after its file
s noname '{"base": "good.json", "set": {"iterations": 1}, "axes": [{"path": "seed", "values": [1]}]}'
timeout 20 "$CCSIM" sweep noname.json --out nn --dry-run >out 2>err && grep -q "ccsim sweep noname: 1 points" err &&
  pass=$((pass + 1)) || bad "sweep-default-name: $(cat err)"

# ---- platform files: SimGrid constructs ----
head='<?xml version="1.0"?><!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
plat() { printf '%s\n<platform version="4.1">\n%s\n</platform>\n' "$head" "$2" >"$1.xml"; printf '{"workers": 2, "platform": "%s.xml", %s}\n' "$1" "$ok" >"$1.json"; }
hab='<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>'
plat bigcl '<cluster id="c" prefix="h" radical="0-100000000" suffix="" speed="1Gf" bw="1GBps" lat="1us"/>'
x2 cluster-1e8-hosts './bigcl.xml:3: <cluster id="c">: the platform declares more than 1048576 hosts' "$CCSIM" validate bigcl.json
plat cllat '<cluster id="c" prefix="h" radical="0-3" suffix="" speed="1Gf" bw="10Gbps" lat="garbage"/>'
x2 cluster-latency-garbage './cllat.xml:3: <cluster id="c">: lat "garbage" must be a finite number >= 0' "$CCSIM" validate cllat.json
plat clcore '<cluster id="c" prefix="h" radical="0-3" suffix="" speed="1Gf" bw="10Gbps" lat="1us" core="0"/>'
x2 cluster-core-zero './clcore.xml:3: <cluster id="c">: core "0" must be a finite number > 0' "$CCSIM" validate clcore.json
plat clrad '<cluster id="c" prefix="h" radical="3-0" suffix="" speed="1Gf" bw="10Gbps" lat="1us"/>'
x2 cluster-radical-reversed './clrad.xml: SimGrid refuses the platform while loading the platform' "$CCSIM" validate clrad.json
plat duph '<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="a" speed="1Gf"/></zone>'
x2 duplicate-host "./duph.xml: SimGrid refuses the platform while loading the platform: Uncaught exception simgrid::AssertionError by maestro/0: Refusing to create a second host named 'a'." "$CCSIM" validate duph.json
plat rdst '<zone id="z" routing="Full">'"$hab"'<link id="l" bandwidth="1GBps" latency="1us"/><route src="a" dst="c"><link_ctn id="l"/></route></zone>'
x2 route-to-unknown-host "./rdst.xml: SimGrid refuses the platform while loading the platform: Parse error at ./rdst.xml:3: Route dst='c' does name a node." "$CCSIM" validate rdst.json
plat rlink '<zone id="z" routing="Full">'"$hab"'<link id="l" bandwidth="1GBps" latency="1us"/><route src="a" dst="b"><link_ctn id="nolink"/></route></zone>'
x2 route-unknown-link './rlink.xml: SimGrid refuses the platform while loading the platform: Uncaught exception std::invalid_argument: Link not found: nolink' "$CCSIM" validate rlink.json
plat speedhuge '<zone id="z" routing="Full"><host id="a" speed="1e400f"/><host id="b" speed="1Gf"/></zone>'
x2 speed-overflow './speedhuge.xml:3: <host id="a">: speed "1e400f" must be a finite number > 0' "$CCSIM" validate speedhuge.json
plat asym '<zone id="z" routing="Full">'"$hab"'<link id="l" bandwidth="1GBps" latency="1us"/><route src="a" dst="b" symmetrical="NO"><link_ctn id="l"/></route></zone>'
x2 one-way-route "./asym.xml: SimGrid refuses the platform while looking up the route between each pair of workers (or along a ring and to and from worker 0): You're trying to send data from b to a" "$CCSIM" run asym.json --out o --quiet
plat attr '<zone id="z" routing="Full">'"$hab"'<link id="l" bandwidth="1GBps" latency="1us" sharing="X"/></zone>'
x2 unknown-attribute './attr.xml: SimGrid refuses the platform while loading the platform' "$CCSIM" validate attr.json
x2 hosts-of-json 'good.json:1:0: not well-formed XML' "$CCSIM" hosts good.json

# ---- gradient traces: index.json and .npy ----
e rec '{"workers": 2, "iterations": 1, "model": {"elements": 8}}'
timeout 20 "$CCSIM" run rec.json --out recout --record-trace tr --quiet >/dev/null 2>&1 || bad "cannot record a trace"
tail -c 32 tr/w1/it0.npy >data32
# npy NAME DICT [DATA]: a copy of the trace whose w1/it0.npy has header DICT (118 bytes, padded)
npy() {
  cp -r tr "$1"
  { printf '\223NUMPY\001\000\166\000'; printf '%-117s\n' "$2"; cat "${3:-data32}"; } >"$1/w1/it0.npy"
  printf '{"workers": 2, "iterations": 1, "gradients": {"source": "trace", "trace": "%s"}}\n' "$1" >"$1.json"
}
npy tf8 "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }"
x2 npy-float64 "tf8.json: gradients.trace: ./tf8/w1/it0.npy: worker 1, iteration 0: dtype '<f8'" "$CCSIM" validate tf8.json
npy tbe "{'descr': '>f4', 'fortran_order': False, 'shape': (8,), }"
x2 npy-big-endian "tbe.json: gradients.trace: ./tbe/w1/it0.npy: worker 1, iteration 0: dtype '>f4'" "$CCSIM" run tbe.json --out o --quiet
npy ti4 "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }"
x2 npy-int32 "ti4.json: gradients.trace: ./ti4/w1/it0.npy: worker 1, iteration 0: dtype '<i4'" "$CCSIM" validate ti4.json
npy tfo "{'descr': '<f4', 'fortran_order': True, 'shape': (8,), }"
x2 npy-fortran "tfo.json: gradients.trace: ./tfo/w1/it0.npy: worker 1, iteration 0: fortran_order is True" "$CCSIM" validate tfo.json
npy tsh "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }"
x2 npy-shape-2d "tsh.json: gradients.trace: ./tsh/w1/it0.npy: worker 1, iteration 0: shape (2,4)" "$CCSIM" validate tsh.json
npy tbig "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615,), }"
x2 npy-shape-huge "tbig.json: gradients.trace: ./tbig/w1/it0.npy: worker 1, iteration 0: malformed .npy header" "$CCSIM" validate tbig.json
npy tevil "{'descr': __import__('os').system('touch PWNED'), 'shape': (8,), }"
x2 npy-code-in-header "tevil.json: gradients.trace: ./tevil/w1/it0.npy: worker 1, iteration 0: malformed .npy header" "$CCSIM" validate tevil.json
[ ! -e PWNED ] && pass=$((pass + 1)) || bad "a .npy header ran code"
head -c 28 data32 >data32inf && printf '\000\000\200\177' >>data32inf
npy tinf "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }" data32inf
x2 npy-inf "tinf.json: gradients.trace: ./tinf/w1/it0.npy: worker 1, iteration 0: element 7 (layer \"gradient\", its element 7) is +Inf" "$CCSIM" run tinf.json --out o --quiet
npy thdr "{}"
printf '\223NUMPY\001\000\377\377{' >thdr/w1/it0.npy
x2 npy-header-length-huge "thdr.json: gradients.trace: ./thdr/w1/it0.npy: worker 1, iteration 0: truncated .npy header" "$CCSIM" validate thdr.json
printf '\223NUMPY\002\000\377\377\377\377{' >thdr/w1/it0.npy
x2 npy-version-2 "thdr.json: gradients.trace: ./thdr/w1/it0.npy: worker 1, iteration 0: .npy format version 2.0" "$CCSIM" validate thdr.json
rm thdr/w1/it0.npy && mkfifo thdr/w1/it0.npy
x2 npy-fifo "thdr.json: gradients.trace: ./thdr/w1/it0.npy: worker 1, iteration 0: not a regular file (a FIFO)" "$CCSIM" validate thdr.json
rm thdr/w1/it0.npy && ln -s /dev/zero thdr/w1/it0.npy
x2 npy-dev-zero "thdr.json: gradients.trace: ./thdr/w1/it0.npy: worker 1, iteration 0: not a regular file (a character device)" "$CCSIM" run thdr.json --out o --quiet
# index.json: one field at a time
idx() {
  cp -r tr "$1"
  sed "$2" tr/index.json >"$1/index.json"
  printf '{"workers": 2, "iterations": 1, "gradients": {"source": "trace", "trace": "%s"}}\n' "$1" >"$1.json"
}
idx iw0 's/"workers": 2/"workers": 0/'
x2 index-workers-zero 'iw0.json: gradients.trace: ./iw0/index.json: workers: expected an integer in [1, 1048576], got 0' "$CCSIM" validate iw0.json
idx ifiles 's|"files": "w{worker}/it{iteration}.npy"|"files": "../../{worker}/it{iteration}.npy"|'
x2 index-files-escape 'ifiles.json: gradients.trace: ./ifiles/index.json: files: expected "w{worker}/it{iteration}.npy"' "$CCSIM" validate ifiles.json
idx iver 's/"version": 1/"version": 2/'
x2 index-version-2 'iver.json: gradients.trace: ./iver/index.json: version: expected 1' "$CCSIM" validate iver.json
idx icount 's/"count": 8/"count": 9/'
x2 index-count 'icount.json: gradients.trace: ./icount/index.json: layers[0].count: expected 8 (the product of shape [8]), got 9' "$CCSIM" validate icount.json
idx iext 's/"version": 1,/"version": 1, "extra": 1,/'
x2 index-unknown-key 'iext.json: gradients.trace: ./iext/index.json: extra: unknown key "extra"' "$CCSIM" validate iext.json
idx inum 's/"workers": 2/"workers": 1e300/'
x2 index-workers-huge 'inum.json: gradients.trace: ./inum/index.json: workers: expected an integer in [1, 1048576], got 1e+300' "$CCSIM" validate inum.json

# ---- device files ----
D="$SRC/devices/cpu-measured-epyc-1t.json"
# dev NAME PYTHON-STATEMENT: a copy of the measured device with one change
dev() {
  /usr/bin/python3 - "$D" "$1.dev.json" "$2" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
P
  printf '{"workers": 2, "iterations": 1, "model": {"profile": "lstm"}, "device": "%s.dev.json"}\n' "$1" >"$1.json"
}
dev dlaunch 'd["launch"]["isolated_s"] = -1'
x2 device-negative-time 'dlaunch.json: device: ./dlaunch.dev.json: launch.isolated_s: expected a number > 0' "$CCSIM" validate dlaunch.json
dev dfwd 'd["models"]["lstm"]["fp32"]["forward_s"] = 1e300'
x2 device-time-huge 'dfwd.json: device: ./dfwd.dev.json: models.lstm.fp32.forward_s: expected a number > 0 (at most 1e6 s)' "$CCSIM" run dfwd.json --out o --quiet
dev dbatch 'd["models"]["lstm"]["fp32"]["batch"] = 1e300'
x2 device-batch-huge 'dbatch.json: device: ./dbatch.dev.json: models.lstm.fp32.batch: expected a number >= 1 (at most 1e9)' "$CCSIM" run dbatch.json --out o --quiet
dev dcomp 'd["compressors"] = []'
x2 device-compressors-array 'dcomp.json: device: ./dcomp.dev.json: compressors: expected an object, got []' "$CCSIM" validate dcomp.json
dev dsizes 'd["compressors"]["topk"]["sizes"] = [1024, 512]'
x2 device-sizes-order 'dsizes.json: device: ./dsizes.dev.json: compressors.topk.sizes: element [1]' "$CCSIM" validate dsizes.json
e devempty '{"workers": 2, "model": {"profile": "lstm"}, "device": ""}'
x2 device-empty 'devempty.json: device: device "": expected a device name or a path' "$CCSIM" validate devempty.json
e devzero '{"workers": 2, "model": {"profile": "lstm"}, "device": "/dev/zero"}'
x2 device-dev-zero 'devzero.json: device: /dev/zero: is a character device' "$CCSIM" validate devzero.json

# ---- the command line ----
x2 no-command "ccsim: missing COMMAND" "$CCSIM"
x2 command-with-newline 'ccsim: unknown command "a\nb"' "$CCSIM" $'a\nb'
x2 file-name-newline 'no\nsuch.json: cannot open experiment file' "$CCSIM" validate $'no\nsuch.json'
x2 threads-zero 'ccsim run: --threads: expected a thread count from 1 to 1024, got "0"' "$CCSIM" run good.json --threads 0 --out o
x2 max-memory-inf 'ccsim validate: --max-memory: expected a size such as "8GiB" or "512MB", got "inf"' "$CCSIM" validate good.json --max-memory inf
x2 max-memory-1e400 'ccsim validate: --max-memory: expected a size such as "8GiB" or "512MB", got "1e400"' "$CCSIM" validate good.json --max-memory 1e400
x2 max-memory-hex 'ccsim validate: --max-memory: expected a size such as "8GiB" or "512MB", got "0x10"' "$CCSIM" validate good.json --max-memory 0x10
x2 max-memory-newline 'ccsim validate: --max-memory: expected a size such as "8GiB" or "512MB", got "lots\nof"' "$CCSIM" validate good.json --max-memory $'lots\nof'
x2 jobs-zero 'ccsim sweep: --jobs: expected an integer in [1, 4096], got "0"' "$CCSIM" sweep noname.json --jobs 0
x2 out-dev-null '/dev/null: cannot create output directory: /dev/null is not a directory' "$CCSIM" run good.json --out /dev/null --quiet
x2 out-under-a-file 'good.json/sub: cannot create output directory: good.json is not a directory' "$CCSIM" run good.json --out good.json/sub --quiet
# a symbolic link planted as the lock file is the directory's fault (exit 2, said as such)
mkdir -p planted-lock && ln -sf /nonexistent planted-lock/.ccsim.lock
x2 lock-symlink 'planted-lock: cannot use the lock file planted-lock/.ccsim.lock: it is a symbolic link, which ccsim does not follow' "$CCSIM" run good.json --out planted-lock --quiet
# a pseudo file system (no blocks) has no free space to count: the directory
# that cannot be made says why, not "0 B free", which blamed the iterations
x1 out-in-proc '/proc/1/nonexistent/x: cannot create output directory /proc/1/nonexistent: No such file or directory' "$CCSIM" run good.json --out /proc/1/nonexistent/x --quiet
x1 out-in-sys '/sys/ccsim-x: cannot create output directory /sys/ccsim-x: ' "$CCSIM" run good.json --out /sys/ccsim-x --quiet
x2 record-trace-into-file '--record-trace: good.json: cannot create output directory: good.json is not a directory' "$CCSIM" run good.json --out o2 --record-trace good.json --quiet
# a planted symbolic link in a trace being recorded is refused, not written through
mkdir -p trp victim2 && ln -s ../victim2 trp/w0
x2 record-trace-planted 'trp/w0: --record-trace: is a symbolic link; expected the directory of worker 0' "$CCSIM" run good.json --out o3 --record-trace trp --quiet
[ -z "$(ls victim2)" ] && pass=$((pass + 1)) || bad "record-trace-planted: wrote into the link's target"

# a trace recorded into the trace a run replays would lose its index: refused, the trace intact
printf '{"workers": 2, "iterations": 1, "gradients": {"source": "trace", "trace": "tr"}}\n' >replay.json
x2 record-into-replayed-trace 'replay.json: gradients.trace: --record-trace ./tr/ is the trace this run replays' "$CCSIM" run replay.json --out o4 --record-trace ./tr/ --quiet
[ -f tr/index.json ] && pass=$((pass + 1)) || bad "record-into-replayed-trace: the replayed trace lost its index.json"
# a trace larger than the disk: refused before anything is written
x2 record-trace-too-big 'good.json: --record-trace: the trace needs ' "$CCSIM" run good.json --set model.elements=100000000000 \
  --set iterations=100000 --out o5 --record-trace big --max-memory 1000TB --quiet
[ ! -e big ] && [ ! -e o5 ] && pass=$((pass + 1)) || bad "record-trace-too-big: wrote $(ls -d big o5 2>/dev/null)"

# ---- numbers that go bad at run time ----
# a zero aggregate is not a perfect one: no cosine (null, with the reason;
# an empty cell), not 1, and nothing sent has no compression ratio
e zeroagg '{"workers": 2, "iterations": 2, "compressor": {"name": "threshold", "tau": 1e300}, "collective": "allgather/ring", '"$ok"'}'
x0 zero-aggregate "$CCSIM" run zeroagg.json --out zeroagg --quiet
grep -q '"agg_cosine": null' zeroagg/summary.json && grep -q '"agg_rel_error": 1.0' zeroagg/summary.json &&
  grep -q '"compression_ratio": null' zeroagg/summary.json &&
  grep -q '"agg_cosine": "iteration 0: the aggregate is a zero vector' zeroagg/summary.json &&
  grep -q '"compression_ratio": "nothing was sent: 0 bytes on the wire"' zeroagg/summary.json &&
  [ "$(cut -d, -f8,10 zeroagg/iterations.csv | tail -n +2 | sort -u)" = , ] && pass=$((pass + 1)) ||
  bad "zero-aggregate: $(grep agg_ zeroagg/summary.json | tr '\n' ' ')"
# a zero exact aggregate with a nonzero simulated one: no relative error exists
cp -r tr trz
{ head -c 128 tr/w0/it0.npy; head -c 32 /dev/zero; } >trz/w0/it0.npy
{ head -c 128 tr/w1/it0.npy; head -c 32 /dev/zero; } >trz/w1/it0.npy
e zsig '{"workers": 2, "iterations": 1, "gradients": {"source": "trace", "trace": "trz"}, "compressor": "signsgd", "collective": "allgather/ring"}'
# (the run's other figures stand: the error is null, with the reason)
x0 zero-reference "$CCSIM" run zsig.json --out zsig --quiet
grep -q '"agg_rel_error": null' zsig/summary.json &&
  grep -q '"agg_rel_error": "iteration 0: the exact mean is a zero vector and the aggregate is not' zsig/summary.json &&
  pass=$((pass + 1)) || bad "zero-reference: $(grep -A4 undefined zsig/summary.json | tr '\n' ' ')"
# lossless on zero gradients is exact: relative error 0; a zero vector has
# no direction: no cosine (null)
e znone '{"workers": 2, "iterations": 1, "gradients": {"source": "trace", "trace": "trz"}}'
x0 zero-lossless "$CCSIM" run znone.json --out znone --quiet
grep -q '"agg_rel_error": 0.0' znone/summary.json && grep -q '"agg_cosine": null' znone/summary.json &&
  pass=$((pass + 1)) || bad "zero-lossless: $(grep agg_ znone/summary.json | tr '\n' ' ')"
# compute times out of scale: stopped before SimGrid, naming iteration and worker
e flops '{"workers": 2, "iterations": 2, "model": {"layers": [{"name": "a", "params": 10, "fwd_flops": 1e20}], "batch": 1000000000}, "device": {"name": "v100", "efficiency": 1e-6}}'
x1 compute-out-of-scale 'flops.json: iteration 0, worker 0: forward and backward take 1.91083e+22 s of simulated time per iteration, more than 1e+07 s' "$CCSIM" run flops.json --out flops --quiet
# training that diverges: exit 1 naming the iteration and the worker
e div '{"workers": 2, "iterations": 20, "gradients": {"source": "train"}, "train": {"dataset": "teacher", "optimizer": {"lr": 1000, "momentum": 0.9999, "weight_decay": 1}}}'
x1 training-diverges "div.json: training diverged: worker 0's loss at iteration" "$CCSIM" run div.json --out div --quiet
# ... and the run stops there: iterations 0..K (K the one that diverged)
# are done, the next one's workers never start (once, a failed training ran
# on to its last iteration on zeros and reported the failure then)
timeout 20 "$CCSIM" run div.json --out div2 >out 2>err </dev/null
k=$(sed -n "s/.*loss at iteration \([0-9]*\) is not finite.*/\1/p" err)
done_lines=$(grep -c '^ccsim: iteration [0-9]*/20 done' err)
if [ -n "$k" ] && [ "$done_lines" -eq $((k + 1)) ] && grep -q "^ccsim: iteration $((k + 1))/20 done" err; then
  pass=$((pass + 1))
else
  bad "training-diverges-stops: iteration ${k:-?} diverged, $done_lines iterations of 20 done: $(tail -c 300 err)"
fi

# ---- the timing executor's processes killed under a run ----
# the zygote: exit 1 naming the iteration (not SIGPIPE, not a hang), no
# process left; a replay: exit 1 naming the signal
# (64 workers, timed in SimGrid: a replay lasts long enough to be caught)
e slow '{"workers": 64, "iterations": 100000, "model": {"elements": 64}}'
for victim in zygote replay; do
  timeout 60 "$CCSIM" run slow.json --out "slow-$victim" --quiet --no-memo --timing simgrid >out 2>err </dev/null &
  runner=$!
  parent=""
  zyg=""
  for _ in $(seq 1 400); do
    parent=$(pgrep -f -- "^[^ ]*ccsim run slow.json --out slow-$victim" | head -1)
    [ -n "$parent" ] && zyg=$(pgrep -x -P "$parent" ccsim-zygote | head -1)
    [ -n "$zyg" ] && break
    sleep 0.05
  done
  if [ "$victim" = zygote ]; then kill -9 "$zyg" 2>/dev/null; else
    # a replay of 64 workers lasts milliseconds: look until one is caught
    # (on a loaded machine a look may miss several, or find one that has
    # just ended, which a signal no longer stops) and the run ends
    for _ in $(seq 1 4000); do
      rep=$(pgrep -x -P "$zyg" ccsim-replay | head -1)
      if [ -n "$rep" ] && kill -9 "$rep" 2>/dev/null; then
        sleep 0.5
        kill -0 "$runner" 2>/dev/null || break
      fi
      sleep 0.005
    done
  fi
  wait "$runner"
  rc=$?
  asan_notices
  case $victim in
    zygote) want="the timing executor's zygote died" ;;
    replay) want="the timing executor died of signal 9" ;;
  esac
  { [ $rc -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "^ccsim: iteration [0-9]*: $want" err; } && pass=$((pass + 1)) ||
    bad "$victim killed: exit $rc: $(head -c 300 err)"
  sleep 0.2
  [ -z "$(pgrep -f -- "--out slow-$victim")" ] && pass=$((pass + 1)) || bad "$victim killed: processes left"
done

# ---- CCSIM_TIMING_ZYGOTE: "fork" (the default) or "exec", nothing else;
# both give the same results, byte for byte ----
CCSIM_TIMING_ZYGOTE=spawn x2 zygote-env 'CCSIM_TIMING_ZYGOTE is "spawn", expected "exec" or "fork"' "$CCSIM" validate good.json
e zy '{"workers": 8, "iterations": 3, "model": {"elements": 4096}, "compressor": "global-qsgd"}'
for how in exec fork; do CCSIM_TIMING_ZYGOTE=$how x0 "zygote-$how" "$CCSIM" run zy.json --out "zy-$how" --quiet; done
for f in iterations.csv hops.csv; do
  cmp -s "zy-exec/$f" "zy-fork/$f" && pass=$((pass + 1)) || bad "zygote exec and fork: $f differs"
done

# ---- no result file anywhere holds a NaN or an infinity ----
found=$(find "$T" -type f \( -name '*.csv' -o -name 'summary.json' \) -exec grep -liE '(^|[,:[ ])[-+]?(nan|inf|infinity)([],} ]|$)' {} + 2>/dev/null)
[ -z "$found" ] && pass=$((pass + 1)) || bad "non-finite numbers in result files: $found"

echo "hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
