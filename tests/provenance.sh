#!/usr/bin/env bash
# tests/provenance.sh CCSIM SRCDIR — a run's results name every file it read
# (path and SHA-256) and the options that change them (docs/outputs.md); a
# resumed sweep and --skip-finished rerun a point when the content of any
# input or an option changed, and say which, in one stderr line.
. "$(dirname "$0")/lib.sh" "$@"
py=/usr/bin/python3
field() { $py -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"s": s}))' "$@"; }
# scale NAME FILE FACTOR: every number whose key ends in _s (a device's
# times) or _flops (a profile's work) multiplied by FACTOR, in place
scale() {
  $py - "$@" <<'PY'
import json, sys
suffix, path, k = sys.argv[1], sys.argv[2], float(sys.argv[3])
def walk(x):
    if isinstance(x, dict):
        return {key: (v * k if key.endswith(suffix) and isinstance(v, (int, float)) and not isinstance(v, bool)
                      else walk(v)) for key, v in x.items()}
    return [walk(v) for v in x] if isinstance(x, list) else x
d = json.load(open(path))
json.dump(walk(d), open(path, "w"))
PY
}
mkdir devices models
cp "$SRC/devices/h100-measured.json" devices/mydev.json
cp "$SRC/workloads/models/resnet50.json" models/p.json
cp "$SRC/platforms/fat-tree-64.xml" plat.xml

# 1. a device file named by path, in a sweep: compute x10, the resume reruns
#    both points, saying why, and the time follows
printf '%s\n' '{"name": "dev", "workers": 4, "iterations": 2, "model": {"profile": "resnet50", "sample": 1000}, "device": {"name": "devices/mydev.json"}}' >dev.json
printf '%s\n' '{"name": "devsweep", "base": "dev.json", "axes": [{"path": "workers", "values": [2, 4]}], "output": {"dir": "sw"}}' >sw.json
"$CCSIM" sweep sw.json --quiet 2>err || bad "sweep: $(cat err)"
t0=$(field sw/workers=4/summary.json 's["iteration_time_s"]')
"$CCSIM" sweep sw.json 2>err >/dev/null
grep -q "0 rerun as changed" err && ! grep -q rerunning err && ok || bad "unchanged sweep: $(cat err)"
scale _s devices/mydev.json 10
"$CCSIM" sweep sw.json 2>err >/dev/null || bad "resumed sweep: $(cat err)"
grep -qx "ccsim sweep: point workers=2: device file ./devices/mydev.json changed; rerunning" err &&
  grep -qx "ccsim sweep: point workers=4: device file ./devices/mydev.json changed; rerunning" err &&
  grep -q " 0 reused, 2 rerun as changed" err && ok || bad "device x10: $(cat err)"
t1=$(field sw/workers=4/summary.json 's["iteration_time_s"]')
$py -c "import sys; sys.exit(not float(sys.argv[2]) > 5 * float(sys.argv[1]))" "$t0" "$t1" && ok ||
  bad "device x10: iteration time $t0 -> $t1"
# summary.json: each input with its path and the digest sha256sum prints
want=$(sha256sum devices/mydev.json | cut -d' ' -f1)
[ "$(field sw/workers=4/summary.json '[i["sha256"] for i in s["inputs"] if i["role"] == "device file"][0]')" = "$want" ] &&
  [ "$(field sw/workers=4/summary.json '[i["role"] for i in s["inputs"]]')"  = "['experiment file', 'model profile', 'device file']" ] &&
  ok || bad "device: inputs recorded: $(field sw/workers=4/summary.json 's["inputs"]')"

# 2. a model profile named by path, --skip-finished
printf '%s\n' '{"name": "prof", "workers": 4, "iterations": 2, "model": {"profile": "models/p.json", "sample": 1000}, "device": "v100"}' >prof.json
"$CCSIM" run prof.json --out pr --quiet >/dev/null 2>err || bad "profile run: $(cat err)"
t0=$(field pr/summary.json 's["iteration_time_s"]')
"$CCSIM" run prof.json --out pr --quiet --skip-finished >out 2>err
grep -q "already holds the finished results" out && [ ! -s err ] && ok || bad "profile unchanged: $(cat out err)"
scale _flops models/p.json 2
"$CCSIM" run prof.json --out pr --quiet --skip-finished >/dev/null 2>err || bad "profile rerun: $(cat err)"
[ "$(cat err)" = "ccsim: pr: model profile ./models/p.json changed; rerunning" ] && ok || bad "profile: $(cat err)"
t1=$(field pr/summary.json 's["iteration_time_s"]')
$py -c "import sys; sys.exit(not float(sys.argv[2]) > 1.5 * float(sys.argv[1]))" "$t0" "$t1" && ok ||
  bad "profile x2: iteration time $t0 -> $t1"

# 3. --cfg: part of the hash, recorded, named when it appears or goes
printf '%s\n' '{"name": "cfg", "workers": 4, "iterations": 2, "model": {"elements": 1000000}, "platform": {"file": "plat.xml"}}' >cfg.json
"$CCSIM" run cfg.json --out cf --quiet >/dev/null 2>err || bad "cfg run: $(cat err)"
t0=$(field cf/summary.json 's["iteration_time_s"]')
h0=$(field cf/summary.json 's["experiment_hash"]')
"$CCSIM" run cfg.json --out cf --quiet --skip-finished --cfg network/TCP-gamma:1000 >/dev/null 2>err
[ "$(cat err)" = "ccsim: cf: option --cfg=network/TCP-gamma:1000 is new; rerunning" ] && ok || bad "cfg: $(cat err)"
t1=$(field cf/summary.json 's["iteration_time_s"]')
[ "$t0" != "$t1" ] && [ "$h0" != "$(field cf/summary.json 's["experiment_hash"]')" ] &&
  [ "$(field cf/summary.json 's["options"]')" = "['--cfg=network/TCP-gamma:1000']" ] && ok ||
  bad "cfg: time $t0 -> $t1, options $(field cf/summary.json 's["options"]')"
"$CCSIM" run cfg.json --out cf --quiet --skip-finished --cfg network/TCP-gamma:1000 >out 2>err
grep -q "already holds" out && ok || bad "cfg: the same option reran: $(cat err)"
"$CCSIM" run cfg.json --out cf --quiet --skip-finished >/dev/null 2>err
[ "$(cat err)" = "ccsim: cf: option --cfg=network/TCP-gamma:1000 was given then, not now; rerunning" ] && ok ||
  bad "cfg dropped: $(cat err)"
[ "$(field cf/summary.json 's["iteration_time_s"]')" = "$t0" ] && [ "$(field cf/summary.json 's["options"]')" = "[]" ] &&
  ok || bad "cfg dropped: not the first run's time"
# --log changes nothing that is computed: not an option of the hash
"$CCSIM" run cfg.json --out cf --quiet --skip-finished --log root.thres:critical >out 2>err
grep -q "already holds" out && ok || bad "--log reran: $(cat err)"

# 4. the platform file: one byte of it (a bandwidth) edited
sed -i 's/bw="12500000000Bps"/bw="1250000000Bps"/' plat.xml
"$CCSIM" run cfg.json --out cf --quiet --skip-finished >/dev/null 2>err
[ "$(cat err)" = "ccsim: cf: platform file ./plat.xml changed; rerunning" ] &&
  [ "$(field cf/summary.json 's["iteration_time_s"]')" != "$t0" ] && ok || bad "platform: $(cat err)"

# 5. a gradient trace: its index and the data files the run replays
printf '%s\n' '{"name": "rec", "workers": 2, "iterations": 2, "model": {"elements": 300}}' >rec.json
"$CCSIM" run rec.json --out rec --quiet --record-trace tr >/dev/null 2>err || bad "record: $(cat err)"
printf '%s\n' '{"name": "rep", "workers": 2, "iterations": 2, "gradients": {"source": "trace", "trace": "tr"}, "compressor": "fp16"}' >rep.json
"$CCSIM" run rep.json --out rep --quiet >/dev/null 2>err || bad "replay: $(cat err)"
e0=$(field rep/summary.json 's["agg_rel_error"]')
[ "$(field rep/summary.json '[i["role"] for i in s["inputs"]]')" = "['experiment file', 'trace index', 'trace data']" ] && ok ||
  bad "trace: inputs $(field rep/summary.json 's["inputs"]')"
# one value of worker 1's last gradient becomes 1.0f
printf '\x00\x00\x80\x3f' | dd of=tr/w1/it1.npy bs=1 seek=200 conv=notrunc status=none
"$CCSIM" run rep.json --out rep --quiet --skip-finished >/dev/null 2>err
[ "$(cat err)" = "ccsim: rep: trace data ./tr changed; rerunning" ] && ok || bad "trace data: $(cat err)"
[ "$(field rep/summary.json 's["agg_rel_error"]')" != "$e0" ] && ok || bad "trace data: the same error as before"
"$CCSIM" run rep.json --out rep --quiet --skip-finished >out 2>err
grep -q "already holds" out && ok || bad "trace data, unchanged: $(cat err)"

# 6. a changed field is another experiment: refused without --force, as before
"$CCSIM" run cfg.json --out cf --quiet --skip-finished --set iterations=3 >/dev/null 2>err
[ $? -eq 2 ] && grep -q "holds the results of another experiment" err && ok || bad "field: $(cat err)"

# 7. where the results go is no part of the experiment: the same run into
# another directory (--out, or output.dir) has the same hash
"$CCSIM" run rep.json --out rep2 --quiet >/dev/null 2>err || bad "replay into rep2: $(cat err)"
"$CCSIM" run rep.json --quiet --set output.dir=rep3 >/dev/null 2>err || bad "replay into rep3: $(cat err)"
h=$(field rep/summary.json 's["experiment_hash"]')
[ "$(field rep2/summary.json 's["experiment_hash"]')" = "$h" ] && [ "$(field rep3/summary.json 's["experiment_hash"]')" = "$h" ] &&
  ok || bad "the hash depends on the output directory"

finish provenance
