#!/usr/bin/env bash
# workloads/cascade/real_gradients.sh [--quick] [CCSIM] — the compressor-error
# and cascade-error studies on real gradients beside the synthetic sources.
#
# Every compressor below aggregates the gradients of each source over its
# collective, and the table gives the aggregate's relative L2 error and
# cosine against the exact float64 mean (over all iterations) and the
# relative error at the last hop of the collective (hops.csv; docs/outputs.md):
#   normal   synthetic normal, scale 0.01, half the variance shared by the
#            workers (correlation 0.5: the cascade study's and
#            global-qsgd/sweep-error.json's source), 65,536 elements
#   sparse   the sparse synthetic source (64-wide rows, 512 Zipf tokens per
#            worker: an embedding table's gradient), 65,536 elements
#   digits-cnn, resnet-fmnist, lstm-kjv: traces of real data-parallel
#            training, recorded by analysis/record_trace.py after a warm-up
#            (analysis/TRACES.md)
#   lenet-fmnist  (full run only) LeNet-5 on Fashion-MNIST as ccsim trains
#            it (workloads/convergence/fmnist/none.json), iterations 0-2
#            recorded by ccsim's --record-trace: gradients at initialisation
# Full run: 8 workers x 3 iterations; the real traces are recorded into
# results/traces/ when absent (about 10 CPU minutes, one thread), the table
# written to workloads/cascade/REAL_GRADIENTS.md.  --quick: 4 workers x 2
# iterations on the small traces shipped in tests/data/traces (resnet-fmnist
# and lstm-kjv only), the table to results/real_gradients_quick.md.
# CCSIM: the ccsim binary (default build/src/ccsim).  REAL_GRADIENTS_OUT=DIR
# puts the runs and the table (DIR/table.md) there instead (tests use it).
set -eu
QUICK=0
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CCSIM=$(realpath -m "${1:-$ROOT/build/src/ccsim}")
[ -n "${REAL_GRADIENTS_OUT:-}" ] && REAL_GRADIENTS_OUT=$(realpath -m "$REAL_GRADIENTS_OUT")
cd "$ROOT"
[ -x "$CCSIM" ] || { echo "real_gradients.sh: no ccsim binary at $CCSIM (bash scripts/build.sh build)" >&2; exit 2; }
REC=analysis/record_trace.py
if [ $QUICK = 1 ]; then
  W=4 IT=2 OUTMD=results/real_gradients_quick.md RUNS=results/real_gradients_quick
  TRACES="resnet-fmnist=tests/data/traces/resnet-fmnist-4x2 lstm-kjv=tests/data/traces/lstm-kjv-4x2"
else
  W=8 IT=3 OUTMD=workloads/cascade/REAL_GRADIENTS.md RUNS=results/real_gradients
  T=results/traces
  record() { # name args...: record T/name unless it is there
    local name=$1; shift
    [ -f "$T/$name/index.json" ] && return 0
    echo "recording $T/$name" >&2
    /usr/bin/python3 "$REC" --out "$T/$name" --workers $W --iterations $IT --seed 1 "$@" >"$T/$name.log" ||
      { echo "real_gradients.sh: recording $name failed: $T/$name.log" >&2; exit 1; }
  }
  mkdir -p "$T"
  record digits-cnn --model digits-cnn --warmup 30 --lr 0.1
  record resnet-fmnist --model resnet-fmnist --warmup 100 --lr 0.1 --width 16
  record lstm-kjv --model lstm-kjv --warmup 100 --lr 1.0 --vocab 1000 --embed 32 --hidden 64
  # LeNet-5 on Fashion-MNIST as ccsim itself trains it (the convergence
  # study's uncompressed run), its first iterations recorded by --record-trace
  if [ ! -f "$T/lenet-fmnist/index.json" ]; then
    echo "recording $T/lenet-fmnist" >&2
    "$CCSIM" run workloads/convergence/fmnist/none.json --set workers=$W --set iterations=$IT --quiet \
      --out "$T/lenet-fmnist-run" --record-trace "$T/lenet-fmnist" >"$T/lenet-fmnist.log" 2>&1 ||
      { echo "real_gradients.sh: recording lenet-fmnist failed: $T/lenet-fmnist.log" >&2; exit 1; }
  fi
  TRACES="digits-cnn=$T/digits-cnn resnet-fmnist=$T/resnet-fmnist lstm-kjv=$T/lstm-kjv lenet-fmnist=$T/lenet-fmnist"
fi
if [ -n "${REAL_GRADIENTS_OUT:-}" ]; then RUNS=$REAL_GRADIENTS_OUT OUTMD=$REAL_GRADIENTS_OUT/table.md; fi
mkdir -p "$RUNS"
# label|compressor JSON|collective
METHODS='fp16|"fp16"|allreduce/ring
global-qsgd-8|{"name": "global-qsgd", "bits": 8}|allreduce/ring
qsgd-127|{"name": "qsgd", "levels": 127}|allgather/ring
topk-1%-allgather|{"name": "topk", "ratio": 0.01}|allgather/ring
topk-1%-recompress|{"name": "topk", "ratio": 0.01}|allreduce/ring-recompress
sign-ring|{"name": "sign-ring"}|allreduce/ring-recompress
marsit|{"name": "marsit"}|allreduce/ring
ef-signsgd|{"name": "ef-signsgd"}|allgather/ring
s2-sketch-5%|{"name": "s2-sketch", "cols": 64, "ratio": 0.05}|allreduce/tree'
SOURCES="normal sparse"
for t in $TRACES; do SOURCES="$SOURCES ${t%%=*}"; done
gradients() { # source -> "--set" arguments
  case $1 in
    normal) echo 'gradients={"source": "synthetic", "distribution": "normal", "scale": 0.01, "correlation": 0.5}|model.elements=65536' ;;
    sparse) echo 'gradients={"source": "sparse", "row_width": 64, "tokens": 512, "zipf": 1.0, "scale": 0.01}|model.elements=65536' ;;
    *) for t in $TRACES; do [ "${t%%=*}" = "$1" ] && echo "gradients={\"source\": \"trace\", \"trace\": \"$PWD/${t#*=}\"}"; done ;;
  esac
}
base="$RUNS/base.json"
cat >"$base" <<JSON
{"name": "real-gradients", "seed": 1, "workers": $W, "iterations": $IT, "device": "none",
 "platform": {"generate": "crossbar", "bandwidth": "25Gbps", "latency": "5us"},
 "gradients": {"source": "synthetic"}, "compressor": "none", "collective": "allreduce/ring"}
JSON
while IFS='|' read -r label comp coll; do
  for s in $SOURCES; do
    args=(--set "compressor=$comp" --set "collective=\"$coll\"")
    IFS='|' read -r -a g <<<"$(gradients "$s")"
    for x in "${g[@]}"; do args+=(--set "$x"); done
    out="$RUNS/$label/$s"
    "$CCSIM" run "$base" --quiet --out "$out" "${args[@]}" >/dev/null 2>"$RUNS/err" ||
      { echo "real_gradients.sh: $label on $s failed:" >&2; cat "$RUNS/err" >&2; exit 1; }
  done
done <<<"$METHODS"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# uncommitted changes besides the table itself
dirty=$(git status --porcelain -- . ":(exclude)$OUTMD" 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
cmd="bash workloads/cascade/real_gradients.sh"
[ $QUICK = 1 ] && cmd="$cmd --quick"
python3 - "$RUNS" "$OUTMD" "$commit$dirty" "$cmd" "$W" "$IT" "$SOURCES" "$TRACES" <<'PY'
import json, math, os, sys
runs, out, commit, cmd, W, IT, sources, traces = sys.argv[1:]
sources = sources.split()
traces = dict(t.split("=", 1) for t in traces.split())
order = ["fp16", "global-qsgd-8", "qsgd-127", "topk-1%-allgather", "topk-1%-recompress",
         "sign-ring", "marsit", "ef-signsgd", "s2-sketch-5%"]
labels = [l for l in order if os.path.isdir(os.path.join(runs, l))]
def cell(l, s):
    d = json.load(open(os.path.join(runs, l, s, "summary.json")))
    v = [d["agg_rel_error"], d["agg_cosine"], d["last_hop_rel_error"]]
    for x in v:
        if x is None or not math.isfinite(x):
            sys.exit(f"real_gradients.sh: {l} on {s}: a metric is not finite: {v}")
    return v, d["elements"]
rows, elems = {}, {}
for l in labels:
    for s in sources:
        rows[l, s], elems[s] = cell(l, s)
with open(out + ".tmp", "w") as f:
    f.write("# Compressor and cascade error: real gradients beside synthetic ones\n\n")
    f.write(f"Generated by `{cmd}` at commit {commit}; do not edit by hand.\n")
    f.write(f"{W} workers, {IT} iterations, seed 1 (workloads/cascade/real_gradients.sh says what each "
            "source is). Each cell: aggregate relative L2 error / cosine against the exact float64 "
            "mean / relative error at the collective's last hop.\n\n")
    for s in sources:
        src = traces.get(s)
        what = "synthetic" if src is None else json.load(open(os.path.join(src, "index.json")))["source"]
        f.write(f"- **{s}** ({elems[s]} elements): {what}\n")
    f.write("\n| compressor | " + " | ".join(sources) + " |\n")
    f.write("| --- |" + " --- |" * len(sources) + "\n")
    for l in labels:
        f.write(f"| {l} | " + " | ".join("%.4g / %.4f / %.4g" % tuple(rows[l, s]) for s in sources) + " |\n")
    f.write("\n## Real against synthetic normal: error ratio (aggregate relative error)\n\n")
    real = [s for s in sources if s in traces]
    f.write("| compressor | " + " | ".join(f"{s} / normal" for s in real) + " |\n")
    f.write("| --- |" + " --- |" * len(real) + "\n")
    for l in labels:
        n = rows[l, "normal"][0]
        f.write(f"| {l} | " + " | ".join(("%.2fx" % (rows[l, s][0] / n)) if n > 0 else "-" for s in real) + " |\n")
os.replace(out + ".tmp", out)
print(out)
PY
