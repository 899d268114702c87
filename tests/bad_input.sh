#!/usr/bin/env bash
# tests/bad_input.sh CCSIM SRCDIR — every bad input gets exit status 2 and one
# message on stderr naming the file, the JSON path and what was expected.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

. "$SRC/tests/expect.sh" # expect NAME EXPECTED-SUBSTRING COMMAND...

# exp NAME JSON: write $T/NAME.json
exp() { printf '%s\n' "$2" >"$T/$1.json"; }

ok='"model": {"elements": 64}'
exp malformed '{"workers": 4,, "model": {"elements": 8}}'
expect malformed "malformed.json:1:15: malformed JSON" "$CCSIM" validate "$T/malformed.json"
exp truncated $'{"workers": 4,\n "model": {"elements"'
expect truncated "truncated.json:3:0: malformed JSON: ':' expected near end of file" "$CCSIM" validate "$T/truncated.json"
# an empty file, white space only, UTF-16: said as what they are; a UTF-8
# byte-order mark is ignored (RFC 8259 8.1)
: >"$T/empty.json"
expect empty-file "empty.json: the file is empty; expected a JSON object" "$CCSIM" validate "$T/empty.json"
printf ' \n\t\n' >"$T/blank.json"
expect blank-file "blank.json: the file is empty (white space only); expected a JSON object" "$CCSIM" validate "$T/blank.json"
printf '{"model": {"elements": 64}}' | iconv -f UTF-8 -t UTF-16 >"$T/utf16.json"
expect utf16-file "utf16.json: the file is UTF-16 (it starts with a UTF-16 byte-order mark); expected JSON in UTF-8" "$CCSIM" validate "$T/utf16.json"
printf '\xef\xbb\xbf{"workers": 2, "model": {"elements": 64}}' >"$T/bom.json"
if "$CCSIM" validate "$T/bom.json" >/dev/null 2>&1; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL a UTF-8 byte-order mark refused" >&2; fi
{ printf '\xef\xbb\xbf'; cat "$SRC/workloads/collectives/ring.json"; } >"$T/bomprog.json"
if "$CCSIM" validate "$T/bom.json" --set "collective={\"program\": \"$T/bomprog.json\"}" >/dev/null 2>&1; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL a program file with a UTF-8 byte-order mark refused" >&2
fi
exp empty ''
expect empty "empty.json:" "$CCSIM" validate "$T/empty.json"
exp dupkey '{"workers": 4, "workers": 5, '"$ok"'}'
expect duplicate-key "duplicate object key" "$CCSIM" validate "$T/dupkey.json"
exp array '[1, 2]'
expect not-object "array.json: (top level): expected a JSON object" "$CCSIM" validate "$T/array.json"
expect no-file "nothere.json: cannot open experiment file" "$CCSIM" validate "$T/nothere.json"

exp noworkers '{'"$ok"'}'
expect missing-key "noworkers.json: workers: missing" "$CCSIM" validate "$T/noworkers.json"
exp nomodel '{"workers": 2}'
expect missing-model 'nomodel.json: model: give exactly one of "elements"' "$CCSIM" validate "$T/nomodel.json"
exp unknown '{"workers": 2, "wrokers": 3, '"$ok"'}'
expect unknown-key 'unknown.json: wrokers: unknown key "wrokers" (did you mean "workers"? known here: name' "$CCSIM" validate "$T/unknown.json"
exp unknown2 '{"workers": 2, "platform": {"bandwith": "1Gbps"}, '"$ok"'}'
expect unknown-nested 'unknown2.json: platform.bandwith: unknown key "bandwith"' "$CCSIM" validate "$T/unknown2.json"
exp comp '{"workers": 2, "compressor": "zip", '"$ok"'}'
expect unknown-compressor 'comp.json: compressor.name: unknown compressor "zip" (known: none, fp16' "$CCSIM" validate "$T/comp.json"
exp cparam '{"workers": 2, "compressor": {"name": "fp16", "ratio": 0.1}, '"$ok"'}'
expect unknown-param 'cparam.json: compressor.ratio: unknown key "ratio"' "$CCSIM" validate "$T/cparam.json"
exp cchoice '{"workers": 2, "compressor": {"name": "global-qsgd", "dithering": "expo"}, '"$ok"'}'
expect bad-choice 'cchoice.json: compressor.dithering: expected one of standard|exponential, got "expo"' "$CCSIM" validate "$T/cchoice.json"
exp cheadroom '{"workers": 9, "compressor": {"name": "global-qsgd", "bits": 4, "dithering": "exponential"}, '"$ok"'}'
expect exp-headroom 'dithering=exponential with bits=4 has level codes 1..7, fewer than the workers=9' "$CCSIM" validate "$T/cheadroom.json"
exp mem '{"workers": 2, "compressor": {"name": "fp16", "memory": "forgetful"}, '"$ok"'}'
expect unknown-memory 'mem.json: compressor.memory: unknown memory "forgetful" (known: none' "$CCSIM" validate "$T/mem.json"
exp coll '{"workers": 2, "collective": "allreduce/star", '"$ok"'}'
expect unknown-collective 'coll.json: collective.name: unknown collective "allreduce/star" (known: allreduce/ring' "$CCSIM" validate "$T/coll.json"
exp hosts '{"workers": 8, "platform": {"generate": "crossbar", "hosts": 4}, '"$ok"'}'
expect workers-gt-hosts 'hosts.json: workers: 8 workers but the platform has 4 hosts' "$CCSIM" validate "$T/hosts.json"
cp "$SRC/tests/data/two_hosts.xml" "$T/two.xml"
exp hostsxml '{"workers": 4, "platform": "two.xml", '"$ok"'}'
expect workers-gt-xml-hosts 'hostsxml.json: workers: 4 workers but platform' "$CCSIM" validate "$T/hostsxml.json"
exp zero '{"workers": 0, '"$ok"'}'
expect zero-workers 'zero.json: workers: expected an integer in [1, ' "$CCSIM" validate "$T/zero.json"
exp negel '{"workers": 2, "model": {"elements": -5}}'
expect negative-elements 'negel.json: model.elements: expected an integer in [1, ' "$CCSIM" validate "$T/negel.json"
exp zerosize '{"workers": 2, "model": {"size": "0MB"}}'
expect zero-size 'zerosize.json: model.size: expected a size' "$CCSIM" validate "$T/zerosize.json"
exp negbw '{"workers": 2, "platform": {"bandwidth": "-1Gbps"}, '"$ok"'}'
expect negative-bandwidth 'negbw.json: platform.bandwidth: expected a bandwidth' "$CCSIM" validate "$T/negbw.json"
exp unit '{"workers": 2, "platform": {"bandwidth": "25Gbs"}, '"$ok"'}'
expect bad-unit 'unit.json: platform.bandwidth: expected a bandwidth such as "25Gbps" or "10GBps", got "25Gbs" (unknown unit)' "$CCSIM" validate "$T/unit.json"
exp unitrange '{"workers": 2, "platform": {"generate": "crossbar", "bandwidth": "1e400Gbps"}, '"$ok"'}'
expect unit-out-of-range 'unitrange.json: platform.bandwidth: expected a bandwidth such as "25Gbps" or "10GBps", got "1e400Gbps" (the number is out of range)' "$CCSIM" validate "$T/unitrange.json"
exp bwreal '{"workers": 2, "platform": {"generate": "crossbar", "bandwidth": 1e-30}, '"$ok"'}'
expect number-shown-as-written 'bwreal.json: platform.bandwidth: expected a bandwidth such as "25Gbps" or "10GBps" from 1bps to 8000Pbps (1e18 bytes/s), got 1e-30' "$CCSIM" validate "$T/bwreal.json"
exp nounit '{"workers": 2, "platform": {"generate": "crossbar", "latency": "5"}, '"$ok"'}'
expect no-unit 'nounit.json: platform.latency: expected a time such as "5us" or "1.5ms", got "5" (no unit)' "$CCSIM" validate "$T/nounit.json"
exp lat '{"workers": 2, "platform": {"latency": "5 parsecs"}, '"$ok"'}'
expect bad-time-unit 'lat.json: platform.latency: expected a time' "$CCSIM" validate "$T/lat.json"
exp sizeunit '{"workers": 2, "model": {"size": "4 megs"}}'
expect bad-size-unit 'sizeunit.json: model.size: expected a size' "$CCSIM" validate "$T/sizeunit.json"
exp nofile '{"workers": 2, "platform": "no/such/platform.xml", '"$ok"'}'
expect missing-platform 'nofile.json: platform.file: "'"$T"'/no/such/platform.xml": cannot open platform file: No such file' "$CCSIM" validate "$T/nofile.json"
exp model '{"workers": 2, "platform": {"network_model": "FOO"}, '"$ok"'}'
expect bad-network-model 'model.json: platform.network_model: unknown value "FOO" (known: CM02' "$CCSIM" validate "$T/model.json"
exp iters '{"workers": 2, "iterations": "ten", '"$ok"'}'
expect wrong-type 'iters.json: iterations: expected an integer' "$CCSIM" validate "$T/iters.json"
exp both '{"workers": 2, "platform": {"file": "two.xml", "generate": "crossbar"}, '"$ok"'}'
expect file-and-generate 'both.json: platform: give either "file" or "generate"' "$CCSIM" validate "$T/both.json"
exp good '{"workers": 2, '"$ok"'}'
expect set-syntax '--set workers: expected PATH=VALUE' "$CCSIM" validate "$T/good.json" --set workers
expect set-value 'good.json: workers: expected an integer in [1, ' "$CCSIM" validate "$T/good.json" --set workers=-3
expect set-into-scalar 'good.json: workers: --set workers.x=1: cannot set inside an integer' "$CCSIM" validate "$T/good.json" --set workers.x=1
expect run-bad-unit 'good.json: platform.latency: expected a time' "$CCSIM" run "$T/good.json" --out "$T/o" --set platform.latency=fast

# platforms: the generators' fields
exp tdim '{"workers": 2, "platform": {"generate": "torus", "dims": [4, 0, 4]}, '"$ok"'}'
expect torus-dim-zero 'tdim.json: platform.dims[1]: expected an integer >= 1, got 0' "$CCSIM" validate "$T/tdim.json"
exp tdimt '{"workers": 2, "platform": {"generate": "torus", "dims": [4, "4"]}, '"$ok"'}'
expect torus-dim-type 'tdimt.json: platform.dims[1]: expected an integer >= 1, got "4"' "$CCSIM" validate "$T/tdimt.json"
exp tdims '{"workers": 2, "platform": {"generate": "torus", "dims": "4x4"}, '"$ok"'}'
expect torus-dims-not-array 'tdims.json: platform.dims: expected an array of integers >= 1 such as [4, 4, 4], got "4x4"' "$CCSIM" validate "$T/tdims.json"
exp tnodims '{"workers": 2, "platform": {"generate": "torus"}, '"$ok"'}'
expect torus-no-dims 'tnodims.json: platform.dims: missing; expected an array of integers >= 1' "$CCSIM" validate "$T/tnodims.json"
exp tlong '{"workers": 2, "platform": {"generate": "torus", "dims": [2, 2, 2, 2, 2, 2, 2, 2, 2]}, '"$ok"'}'
expect torus-too-many-dims 'tlong.json: platform.dims: expected 1 to 8 integers, got 9' "$CCSIM" validate "$T/tlong.json"
exp tbig '{"workers": 2, "platform": {"generate": "torus", "dims": [1024, 1024, 2]}, '"$ok"'}'
expect torus-too-many-hosts 'tbig.json: platform: the torus would have more than 1048576 hosts (product of platform.dims = 1024 x 1024 x 2)' "$CCSIM" validate "$T/tbig.json"
exp ftw '{"workers": 80, "platform": {"generate": "fat-tree", "down": [8, 8]}, '"$ok"'}'
expect fat-tree-workers-gt-hosts 'ftw.json: workers: 80 workers but the fat-tree platform has 64 hosts (product of platform.down = 8 x 8)' "$CCSIM" validate "$T/ftw.json"
exp ftup '{"workers": 2, "platform": {"generate": "fat-tree", "down": [8, 8], "up": [1, 8, 8]}, '"$ok"'}'
expect fat-tree-up-length 'ftup.json: platform.up: expected 2 integers (one per level, like platform.down), got 3' "$CCSIM" validate "$T/ftup.json"
exp ftpar '{"workers": 2, "platform": {"generate": "fat-tree", "down": [8, 8], "parallel": [0, 1]}, '"$ok"'}'
expect fat-tree-parallel-zero 'ftpar.json: platform.parallel[0]: expected an integer >= 1, got 0' "$CCSIM" validate "$T/ftpar.json"
exp dfgr '{"workers": 2, "platform": {"generate": "dragonfly", "groups": 4, "chassis": 2, "routers": 3, "nodes_per_router": 2}, '"$ok"'}'
expect dragonfly-groups-gt-routers 'dfgr.json: platform.groups: 4 groups but 3 routers per chassis' "$CCSIM" validate "$T/dfgr.json"
exp dfmiss '{"workers": 2, "platform": {"generate": "dragonfly", "groups": 2, "chassis": 2, "nodes_per_router": 2}, '"$ok"'}'
expect dragonfly-no-routers 'dfmiss.json: platform.routers: missing; expected an integer >= 1' "$CCSIM" validate "$T/dfmiss.json"
exp dflinks '{"workers": 2, "platform": {"generate": "dragonfly", "groups": 1, "chassis": 1, "routers": 2, "nodes_per_router": 2, "group_links": 0}, '"$ok"'}'
expect dragonfly-zero-links 'dflinks.json: platform.group_links: expected an integer in [1, 1024], got 0' "$CCSIM" validate "$T/dflinks.json"
exp clboth '{"workers": 2, "platform": {"generate": "cloud", "racks": 2, "hosts_per_rack": 2, "bandwidth": "10Gbps", "nics": [{"bandwidth": "25Gbps"}]}, '"$ok"'}'
expect cloud-bandwidth-and-nics 'clboth.json: platform.bandwidth: give either platform.bandwidth (every NIC) or platform.nics' "$CCSIM" validate "$T/clboth.json"
exp clnic '{"workers": 2, "platform": {"generate": "cloud", "racks": 2, "hosts_per_rack": 2, "nics": [{"bandwidth": "25Gbps"}, {"count": 2, "bandwidth": "100Gbit"}]}, '"$ok"'}'
expect cloud-nic-unit 'clnic.json: platform.nics[1].bandwidth: expected a bandwidth such as "25Gbps"' "$CCSIM" validate "$T/clnic.json"
exp clnickey '{"workers": 2, "platform": {"generate": "cloud", "racks": 2, "hosts_per_rack": 2, "nics": [{"speed": "25Gbps"}]}, '"$ok"'}'
expect cloud-nic-key 'clnickey.json: platform.nics[0].speed: unknown key "speed" (known here: count, bandwidth)' "$CCSIM" validate "$T/clnickey.json"
exp clnics '{"workers": 2, "platform": {"generate": "cloud", "racks": 2, "hosts_per_rack": 2, "nics": []}, '"$ok"'}'
expect cloud-nics-empty 'clnics.json: platform.nics: expected an array of 1 to 16 objects' "$CCSIM" validate "$T/clnics.json"
exp clover '{"workers": 2, "platform": {"generate": "cloud", "racks": 2, "hosts_per_rack": 2, "oversubscription": 0.5}, '"$ok"'}'
expect cloud-oversubscription 'clover.json: platform.oversubscription: expected a number in [1, 1e+06], got 0.5' "$CCSIM" validate "$T/clover.json"
exp clw '{"workers": 9, "platform": {"generate": "cloud", "racks": 2, "hosts_per_rack": 4}, '"$ok"'}'
expect cloud-workers-gt-hosts 'clw.json: workers: 9 workers but the cloud platform has 8 hosts (racks x hosts_per_rack = 2 x 4)' "$CCSIM" validate "$T/clw.json"
exp mgnic '{"workers": 2, "platform": {"generate": "multigpu", "nodes": 2, "gpus_per_node": 8, "nics_per_node": 3}, '"$ok"'}'
expect multigpu-nics-divide 'mgnic.json: platform.nics_per_node: expected a divisor of platform.gpus_per_node (8)' "$CCSIM" validate "$T/mgnic.json"
exp mgintra '{"workers": 2, "platform": {"generate": "multigpu", "nodes": 2, "gpus_per_node": 8, "intra_bandwidth": "fast"}, '"$ok"'}'
expect multigpu-intra-unit 'mgintra.json: platform.intra_bandwidth: expected a bandwidth' "$CCSIM" validate "$T/mgintra.json"
exp other '{"workers": 2, "platform": {"generate": "torus", "dims": [4], "down": [2]}, '"$ok"'}'
expect field-of-other-generator 'other.json: platform.down: not a field of "generate": "torus" (its fields: dims, bandwidth, latency)' "$CCSIM" validate "$T/other.json"
exp thosts '{"workers": 2, "platform": {"generate": "torus", "dims": [4], "hosts": 4}, '"$ok"'}'
expect hosts-not-for-torus 'thosts.json: platform.hosts: not a field of "generate": "torus"' "$CCSIM" validate "$T/thosts.json"
exp mesh '{"workers": 2, "platform": {"generate": "mesh"}, '"$ok"'}'
expect unknown-generator 'mesh.json: platform.generate: unknown value "mesh" (known: crossbar, fat-tree, torus, dragonfly, cloud, multigpu, pcie-server)' "$CCSIM" validate "$T/mesh.json"
exp gpnf '{"workers": 2, "platform": {"file": "two.xml", "gpus_per_node": 0}, '"$ok"'}'
expect file-gpus-per-node 'gpnf.json: platform.gpus_per_node: expected an integer in [1, ' "$CCSIM" validate "$T/gpnf.json"
exp gpnx '{"workers": 2, "platform": {"generate": "crossbar", "gpus_per_node": 2}, '"$ok"'}'
expect crossbar-gpus-per-node 'gpnx.json: platform.gpus_per_node: not a field of "generate": "crossbar"' "$CCSIM" validate "$T/gpnx.json"
exp fdims '{"workers": 2, "platform": {"file": "two.xml", "dims": [2]}, '"$ok"'}'
expect file-with-dims 'fdims.json: platform.dims: only for generated platforms' "$CCSIM" validate "$T/fdims.json"
# end platforms
# convergence: training and traces
tr='"gradients": {"source": "train"}'
exp dataset '{"workers": 2, '"$tr"', "train": {"dataset": "mnist"}}'
expect unknown-dataset 'dataset.json: train.dataset: unknown value "mnist" (known: digits, teacher, fashion-mnist, zipf-text, corpus-text)' "$CCSIM" validate "$T/dataset.json"
exp lr '{"workers": 2, '"$tr"', "train": {"optimizer": {"lr": -0.1}}}'
expect bad-lr 'lr.json: train.optimizer.lr: expected a number in [1e-12, 1000], got -0.1' "$CCSIM" validate "$T/lr.json"
exp lrtype '{"workers": 2, '"$tr"', "train": {"optimizer": {"lr": "fast"}}}'
expect lr-not-number 'lrtype.json: train.optimizer.lr: expected a number' "$CCSIM" validate "$T/lrtype.json"
exp optkey '{"workers": 2, '"$tr"', "train": {"optimizer": {"nesterov": true}}}'
expect optimizer-key 'optkey.json: train.optimizer.nesterov: unknown key "nesterov" (known here: lr, momentum, weight_decay)' "$CCSIM" validate "$T/optkey.json"
exp trainsynth '{"workers": 2, '"$ok"', "train": {"batch": 8}}'
expect train-without-source 'trainsynth.json: train: only with gradients.source "train"' "$CCSIM" validate "$T/trainsynth.json"
exp trainel '{"workers": 2, '"$tr"', "model": {"elements": 100}, "train": {"model": {"kind": "softmax"}}}'
expect train-elements 'trainel.json: model.elements: 100 elements, but the trained model (train.model) has 650' "$CCSIM" validate "$T/trainel.json"
exp trainprof '{"workers": 2, '"$tr"', "model": {"profile": "resnet50"}, "train": {}}'
expect train-profile 'trainprof.json: model.profile: the trained model (train.model) fixes the layers and their flops; leave the model section out' "$CCSIM" validate "$T/trainprof.json"
exp trainbatch '{"workers": 2, '"$tr"', "model": {"batch": 64}, "train": {"batch": 16}}'
expect train-batch 'trainbatch.json: model.batch: 64, but train.batch is 16: the time model follows the training batch' "$CCSIM" validate "$T/trainbatch.json"
exp softhid '{"workers": 2, '"$tr"', "train": {"model": {"kind": "softmax", "hidden": [8]}}}'
expect softmax-hidden 'softhid.json: train.model.hidden: softmax regression has no hidden layers' "$CCSIM" validate "$T/softhid.json"
exp nodata '{"workers": 2, '"$tr"', "train": {"data": "no/such/digits.csv.gz"}}'
expect missing-data 'nodata.json: train.data: cannot read "no/such/digits.csv.gz"' "$CCSIM" validate "$T/nodata.json"
exp notrace '{"workers": 2, "gradients": {"source": "trace", "trace": "no/such/trace"}}'
expect missing-trace 'notrace.json: gradients.trace: ' "$CCSIM" validate "$T/notrace.json"
# a real trace of 3 workers x 2 iterations x 8 elements, recorded by ccsim
exp rec '{"workers": 3, "iterations": 2, "model": {"elements": 8}}'
"$CCSIM" run "$T/rec.json" --out "$T/recout" --record-trace "$T/tr" --quiet >/dev/null 2>&1 || echo "FAIL: cannot record a trace" >&2
exp shape '{"workers": 2, "iterations": 2, "model": {"elements": 9}, "gradients": {"source": "trace", "trace": "tr"}}'
expect trace-shape 'shape.json: model.elements: 9 elements, but the trace' "$CCSIM" validate "$T/shape.json"
exp trworkers '{"workers": 4, "iterations": 2, "gradients": {"source": "trace", "trace": "tr"}}'
expect trace-workers 'trworkers.json: gradients.trace: the trace' "$CCSIM" validate "$T/trworkers.json"
exp triters '{"workers": 3, "iterations": 3, "gradients": {"source": "trace", "trace": "tr"}}'
expect trace-iterations 'triters.json: gradients.trace: the trace' "$CCSIM" validate "$T/triters.json"
exp trsynth '{"workers": 3, "iterations": 2, "gradients": {"source": "trace", "trace": "tr", "scale": 2}}'
expect trace-synthetic-key 'trsynth.json: gradients.scale: only for sources "synthetic" and "sparse" (the source is "trace")' "$CCSIM" validate "$T/trsynth.json"
cp -r "$T/tr" "$T/trnan"
f="$T/trnan/w1/it1.npy"
printf '\000\000\300\177' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc status=none
exp trnan '{"workers": 3, "iterations": 2, "gradients": {"source": "trace", "trace": "trnan"}}'
expect trace-nan 'trnan.json: gradients.trace: ' "$CCSIM" run "$T/trnan.json" --out "$T/o"
grep -q "element 7 (layer \"gradient\", its element 7) is NaN" "$T/err" || { fail=$((fail + 1)); echo "FAIL trace-nan: message" >&2; }
cp -r "$T/tr" "$T/trcut"
truncate -s -2 "$T/trcut/w2/it0.npy"
exp trcut '{"workers": 3, "iterations": 2, "gradients": {"source": "trace", "trace": "trcut"}}'
expect trace-truncated 'trcut.json: gradients.trace: ' "$CCSIM" validate "$T/trcut.json"
grep -q "truncated" "$T/err" || { fail=$((fail + 1)); echo "FAIL trace-truncated: message" >&2; }

# cnn and fashion-mnist: datasets, models, subsets
fm='"train": {"dataset": "fashion-mnist"'
exp fmdir '{"workers": 2, '"$tr"', '"$fm"', "data": "/nonexistent/fmnist"}}'
expect fashion-dir 'fmdir.json: train.data: cannot read "/nonexistent/fmnist"' "$CCSIM" validate "$T/fmdir.json"
exp fmfrac '{"workers": 2, '"$tr"', '"$fm"', "test_fraction": 0.1}}'
expect fashion-test-fraction 'fmfrac.json: train.test_fraction: not for "fashion-mnist"' "$CCSIM" validate "$T/fmfrac.json"
exp fmtake '{"workers": 2, '"$tr"', '"$fm"', "train_samples": 60001}}'
expect fashion-train-samples 'fmtake.json: train.train_samples: expected an integer in [0, 60000], got 60001' "$CCSIM" validate "$T/fmtake.json"
exp dgtake '{"workers": 2, '"$tr"', "train": {"test_samples": 100}}'
expect digits-test-samples 'dgtake.json: train.test_samples: only for dataset "fashion-mnist"' "$CCSIM" validate "$T/dgtake.json"
exp dglenet '{"workers": 2, '"$tr"', "train": {"model": {"kind": "lenet5"}}}'
expect digits-lenet 'dglenet.json: train.model.kind: "lenet5" needs images: dataset "fashion-mnist"' "$CCSIM" validate "$T/dglenet.json"
exp fmhid '{"workers": 2, '"$tr"', '"$fm"', "model": {"kind": "cnn", "hidden": [3]}}}'
expect cnn-hidden 'fmhid.json: train.model.hidden: only for kind "mlp"' "$CCSIM" validate "$T/fmhid.json"
mkdir -p "$T/badfm"
printf '\x00\x00\x08\x03\x00\x00\x00\x02' >"$T/badfm/train-images-idx3-ubyte.gz"
: >"$T/badfm/train-labels-idx1-ubyte.gz"
: >"$T/badfm/t10k-images-idx3-ubyte.gz"
: >"$T/badfm/t10k-labels-idx1-ubyte.gz"
exp fmbad '{"workers": 2, "iterations": 1, '"$tr"', '"$fm"', "data": "badfm"}}'
expect fashion-truncated 'fmbad.json: train.data: '"$T"'/badfm/train-images-idx3-ubyte.gz: truncated idx header' "$CCSIM" run "$T/fmbad.json" --out "$T/fmbad"
exp spw '{"workers": 2, "model": {"elements": 100}, "gradients": {"row_width": 8}, "compressor": "none", "collective": "allreduce/ring"}'
expect synthetic-row-width 'spw.json: gradients.row_width: only for source "sparse" (the source is "synthetic")' "$CCSIM" validate "$T/spw.json"
exp spd '{"workers": 2, "model": {"elements": 100}, "gradients": {"source": "sparse", "distribution": "laplace"}, "compressor": "none", "collective": "allreduce/ring"}'
expect sparse-distribution 'spd.json: gradients.distribution: only for source "synthetic" (the source is "sparse")' "$CCSIM" validate "$T/spd.json"
# Every registered gradient source (ccsim list sources): each of its keys,
# given to a source that does not take it, is refused naming the source(s)
# that do; the registry decides, so a new source is covered here at once.
"$CCSIM" list sources >"$T/sources" 2>&1 || echo "FAIL: ccsim list sources" >&2
nsrc=0
while read -r sname skeys _; do
  case $skeys in \(*) continue ;; esac
  for k in ${skeys//,/ }; do
    host=$(awk -v k="$k" '{ n = split($2, a, ","); t = 0; for (i = 1; i <= n; i++) if (a[i] == k) t = 1;
      if (!t) { print $1; exit } }' "$T/sources")
    exp "src-$sname-$k" '{"workers": 2, "gradients": {"source": "'"$host"'", "'"$k"'": 1}}'
    expect "source-key-$sname-$k" "src-$sname-$k.json: gradients.$k: only for source" "$CCSIM" validate "$T/src-$sname-$k.json"
    grep -qF "\"$sname\"" "$T/err" && grep -qF "(the source is \"$host\")" "$T/err" && pass=$((pass + 1)) ||
      { fail=$((fail + 1)); echo "FAIL source-key-$sname-$k: $(cat "$T/err")" >&2; }
    nsrc=$((nsrc + 1))
  done
done <"$T/sources"
[ "$nsrc" -ge 8 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: only $nsrc source keys listed" >&2; }
exp spz '{"workers": 2, "model": {"elements": 100}, "gradients": {"source": "sparse", "zipf": 0}, "compressor": "none", "collective": "allreduce/ring"}'
expect sparse-zipf 'spz.json: gradients.zipf: expected a number in [0.01, 10], got 0' "$CCSIM" validate "$T/spz.json"
exp txt '{"workers": 2, '"$tr"', "train": {"dataset": "zipf-text", "text": {"vocab": 1}}}'
expect text-vocab 'txt.json: train.text.vocab: expected an integer in [2, 65536], got 1' "$CCSIM" validate "$T/txt.json"
exp txtd '{"workers": 2, '"$tr"', "train": {"text": {"vocab": 10}}}'
expect text-digits 'txtd.json: train.text: only for dataset "zipf-text"' "$CCSIM" validate "$T/txtd.json"
# end cnn and fashion-mnist

# a platform path that is no platform file: named where the experiment
# names it (file, platform.file) with what was expected, for run and validate
mkdir -p "$T/pdir"
mkfifo "$T/pfifo"
: >"$T/pempty.xml"
printf '<?xml version="1.0"?>\n<platform version="4.1"><zone id="z" routing="Full">\n' >"$T/pcut.xml"
for p in /proc/self/mem:"is empty (or a kernel pseudo-file); expected a SimGrid platform XML file" \
  /proc/self/status:"is empty (or a kernel pseudo-file); expected a SimGrid platform XML file" \
  /dev/zero:"is a character device; expected the platform file (a regular file)" \
  "$T/pdir":"is a directory; expected the platform file (a regular file)" \
  "$T/pfifo":"is a FIFO; expected the platform file (a regular file)" \
  "$T/pempty.xml":"is empty (or a kernel pseudo-file); expected a SimGrid platform XML file" \
  "$T/pcut.xml":"pcut.xml:3:0: not well-formed XML"; do
  exp pfile '{"workers": 2, "platform": {"file": "'"${p%%:*}"'"}, '"$ok"'}'
  for cmd in "run --quiet --out $T/pout" validate; do
    expect "platform-path-$cmd ${p%%:*}" "pfile.json: platform.file: " timeout 20 "$CCSIM" $cmd "$T/pfile.json"
    grep -qF -- "${p#*:}" "$T/err" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL platform-path ${p%%:*}: $(cat "$T/err")" >&2; }
  done
done
# comm (docs/comm-model.md): each key's bad value
exp cmodel '{"workers": 2, "comm": {"model": "fast"}, '"$ok"'}'
expect comm-model 'cmodel.json: comm.model: unknown value "fast" (known: ideal, nccl)' "$CCSIM" validate "$T/cmodel.json"
exp cproto '{"workers": 2, "comm": {"model": "nccl", "protocol": "ll"}, '"$ok"'}'
expect comm-protocol 'cproto.json: comm.protocol: unknown value "ll" (did you mean "LL"? known: auto, LL, LL128, Simple)' "$CCSIM" validate "$T/cproto.json"
exp calgo '{"workers": 2, "compressor": "fp16", "comm": {"model": "nccl", "algorithm": "tree"}, '"$ok"'}'
expect comm-algorithm 'calgo.json: comm.algorithm: expected "auto" or "ring": NCCL'"'"'s ring or tree prices only an uncompressed allreduce/ring (compressor none), and collective allreduce/ring with compressor fp16 is priced as the ring it runs; got "tree"' "$CCSIM" validate "$T/calgo.json"
exp calgo2 '{"workers": 2, "comm": {"algorithm": "mesh"}, '"$ok"'}'
expect comm-algorithm-name 'calgo2.json: comm.algorithm: unknown value "mesh" (known: auto, tree, ring)' "$CCSIM" validate "$T/calgo2.json"
exp cchan '{"workers": 2, "comm": {"model": "nccl", "channels": 0}, '"$ok"'}'
expect comm-channels 'cchan.json: comm.channels: expected an integer in [1, 64], got 0' "$CCSIM" validate "$T/cchan.json"
exp cchan2 '{"workers": 2, "comm": {"model": "nccl", "channels": "many"}, '"$ok"'}'
expect comm-channels-text 'cchan2.json: comm.channels: expected "auto" or an integer in [1, 64], got "many"' "$CCSIM" validate "$T/cchan2.json"
exp clinks '{"workers": 2, "comm": {"model": "nccl", "links": "h900"}, '"$ok"'}'
expect comm-links-unknown 'clinks.json: comm.links: expected a link-calibration file' "$CCSIM" validate "$T/clinks.json"
exp clinks2 '{"workers": 2, "comm": {"links": "nosuch/dir.json"}, '"$ok"'}'
expect comm-links-ideal 'clinks2.json: comm.links: '"$T"'/nosuch/dir.json: cannot open link-calibration file' "$CCSIM" validate "$T/clinks2.json"
exp clinks3 '{"workers": 2, "comm": {"model": "nccl", "links": 3}, '"$ok"'}'
expect comm-links-type 'clinks3.json: comm.links: expected the name of a file in links/ or a path' "$CCSIM" validate "$T/clinks3.json"
printf '{"links": {"nvlink": {"bandwidth": "fast", "latency": "3us", "source": "x"}}}\n' >"$T/badlinks.json"
exp clinks4 '{"workers": 2, "comm": {"model": "nccl", "links": "badlinks.json"}, '"$ok"'}'
expect comm-links-file 'clinks4.json: comm.links: '"$T"'/badlinks.json: links.nvlink.bandwidth: expected a bandwidth' "$CCSIM" validate "$T/clinks4.json"
printf '{"links": {"nvlink": {"bandwidth": "300GBps", "latency": "3us"}}}\n' >"$T/nosrc.json"
exp clinks5 '{"workers": 2, "comm": {"model": "nccl", "links": "nosrc.json"}, '"$ok"'}'
expect comm-links-source 'clinks5.json: comm.links: '"$T"'/nosrc.json: links.nvlink.source: missing' "$CCSIM" validate "$T/clinks5.json"
printf '{"links": {"infiniband": {}}}\n' >"$T/badclass.json"
exp clinks6 '{"workers": 2, "comm": {"model": "nccl", "links": "badclass.json"}, '"$ok"'}'
expect comm-links-class 'clinks6.json: comm.links: '"$T"'/badclass.json: links.infiniband: unknown key "infiniband"' "$CCSIM" validate "$T/clinks6.json"
exp clinks7 '{"workers": 2, "comm": {"model": "nccl", "links": "/dev/zero"}, '"$ok"'}'
expect comm-links-special 'clinks7.json: comm.links: /dev/zero: is a character device; expected the link-calibration file (a regular file)' "$CCSIM" validate "$T/clinks7.json"
printf '{"links": \n' >"$T/trunclinks.json"
exp clinks8 '{"workers": 2, "comm": {"model": "nccl", "links": "trunclinks.json"}, '"$ok"'}'
expect comm-links-malformed 'clinks8.json: comm.links: '"$T"'/trunclinks.json:2:0: malformed JSON' "$CCSIM" validate "$T/clinks8.json"
printf '{"name": "a\\u0000b", '"$ok"'}\n' >"$T/nulname.json"
expect nul-in-string 'nulname.json:1:19: malformed JSON: a string holds a NUL character (\u0000), which ccsim does not take' "$CCSIM" validate "$T/nulname.json"
exp ckey '{"workers": 2, "comm": {"modle": "nccl"}, '"$ok"'}'
expect comm-unknown-key 'ckey.json: comm.modle: unknown key "modle"' "$CCSIM" validate "$T/ckey.json"

# and a good file is fine, with exit 0
if "$CCSIM" validate "$T/good.json" >/dev/null 2>&1; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL good file rejected" >&2; fi
echo "bad_input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
