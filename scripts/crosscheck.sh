#!/usr/bin/env bash
# scripts/crosscheck.sh CCSIM MODE [SEED] [COUNT] — random experiments
# checked against ccsim's own contracts, for cases no test names:
#   timing  each runs with --timing auto and --timing simgrid: every
#           simulated time within 1e-9 relative, every data result byte
#           for byte (tests/timing_compare.py); platforms of 16 hosts
#           (crossbar, fat-tree with contention, torus, cloud, multigpu,
#           dragonfly), every collective, 2-16 workers, memo on and off,
#           1 and 2 threads
#   profile the same comparison on model profiles (ResNet-50, LSTM, BERT,
#           VGG-16) with a device (roofline or measured), every schedule
#           (single, buckets, layer-wise, MergeComp's search), sampled
#           coordinates, and sometimes comm.model "nccl"
#   memory  the estimate `ccsim validate` prints is at least the peak
#           resident memory the run reports (2-64 workers, 16K-2M
#           elements, sampled or not, 1-3 iterations, on two CPUs)
#   crash   random compressor parameters, memories, gradients and sizes
#           (1-40 workers, 1-3000 elements): every run ends with 0, or 1
#           or 2 and a message; anything else (an assertion, a signal) is
#           reported
# The same SEED gives the same experiments.  Prints one line a case
# (ok; refused, with its input error, or stopped by its data, with the
# runtime error: both counted as refused; or the failure) and a last line
# "N checked, N refused, N failed"; exits 1 if any failed.  Examples:
#   bash scripts/crosscheck.sh build/src/ccsim timing 11 200
#   bash scripts/crosscheck.sh build/src/ccsim memory 3 60
set -u
CCSIM=$(readlink -f "$1")
MODE=$2
RANDOM=${3:-1}
COUNT=${4:-30}
SRC=$(cd "$(dirname "$0")/.." && pwd)
G=$SRC/tests/golden/small.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
checked=0 refused=0 failed=0
# The draws are $RANDOM's in this shell only: bash reseeds it in every
# subshell, so nothing that draws runs in one ($(...)); the helpers set
# REPLY instead of printing.
pick() { local -n a=$1; REPLY=${a[$((RANDOM % ${#a[@]}))]}; }
rf() { local r=$RANDOM; REPLY=$(awk -v r=$r -v lo="$1" -v hi="$2" 'BEGIN { printf "%.4g", lo + (hi - lo) * r / 32767 }'); }
yn() { [ $((RANDOM % 2)) = 0 ] && REPLY=true || REPLY=false; }
# run DIR ARGS...: the base experiment G with ARGS into DIR; its exit status
run() {
  local out=$1
  shift
  rm -rf "$out"
  timeout 300 "$CCSIM" run "$G" --quiet --out "$out" "$@" >/dev/null 2>"$out.err"
}
# every collective, for the timing and memory modes (TORUS: made to fit N)
COLLS=(allreduce/ring allreduce/ring-recompress allreduce/tree allreduce/rhd TORUS
  '{"name": "allreduce/hierarchical", "node_size": 4}' allgather/ring allgather/rd
  '{"name": "ps", "servers": 2}' allreduce/sparcml allreduce/omnireduce)
# both_ways: the experiment of args with --timing auto and with --timing
# simgrid, compared (0 ok, 2 refused or stopped alike, 1 failed)
both_ways() {
  local ra rs
  run "$T/auto" --timing auto "${args[@]}"
  ra=$?
  run "$T/simgrid" --timing simgrid "${args[@]}"
  rs=$?
  if [ $ra != $rs ]; then echo "FAIL exit $ra with auto, $rs with simgrid"; return 1; fi
  if [ $ra = 2 ]; then echo "refused: $(head -c 160 "$T/auto.err")"; return 2; fi
  if [ $ra = 1 ] && cmp -s "$T/auto.err" "$T/simgrid.err"; then # the data stopped it, alike
    echo "stopped alike: $(head -c 160 "$T/auto.err")"
    return 2
  fi
  if [ $ra != 0 ]; then echo "FAIL exit $ra: $(head -c 300 "$T/auto.err")"; return 1; fi
  local how
  how=$(python3 "$SRC/tests/timing_compare.py" "$T/auto" "$T/simgrid") || { echo "FAIL auto and simgrid disagree: $how"; return 1; }
  echo "ok (analytical/SimGrid iterations, messages: $(python3 "$SRC/tests/timing_compare.py" --paths "$T/auto"))"
}
timing_case() {
  local comps=(none fp16 '{"name": "topk", "ratio": 0.05}' '{"name": "marsit", "memory": "marsit"}'
    '{"name": "global-qsgd", "bits": 12}' sbc s2-sketch signsgd '{"name": "qsgd", "levels": 7}' randomk terngrad
    '{"name": "threshold", "tau": 0.02}')
  local plats=('{"generate": "crossbar", "bandwidth": "10Gbps", "latency": "2us"}'
    '{"generate": "fat-tree", "down": [4, 4], "up": [1, 2], "parallel": [1, 1], "bandwidth": "10Gbps", "latency": "2us"}'
    '{"generate": "torus", "dims": [2, 2, 4]}'
    '{"generate": "cloud", "racks": 2, "hosts_per_rack": 8, "oversubscription": 2.0}'
    '{"generate": "multigpu", "nodes": 4, "gpus_per_node": 4}'
    '{"generate": "dragonfly", "groups": 2, "chassis": 2, "routers": 2, "nodes_per_router": 2}')
  local c p pl n memo=()
  pick COLLS; c=$REPLY; pick comps; p=$REPLY; pick plats; pl=$REPLY; n=$((2 + RANDOM % 15))
  case $c in
  allgather/rd) n=$((1 << (1 + RANDOM % 4))) ;;
  TORUS) n=$(((2 + RANDOM % 3) * 2)) c='{"name": "allreduce/torus2d", "rows": 2}' ;;
  *hierarchical*) n=$((4 * (1 + RANDOM % 4))) ;;
  esac
  [ $((RANDOM % 2)) = 0 ] && memo=(--no-memo)
  [[ $c == \{* ]] || c="\"$c\""
  args=(--set workers=$n --set iterations=$((1 + RANDOM % 3)) --set "model={\"elements\": $((500 + RANDOM % 5000))}"
    --set "collective=$c" --set "compressor=$p" --set "platform=$pl" --threads $((1 + RANDOM % 2)) "${memo[@]}")
  echo "${args[*]}" >"$T/args"
  both_ways
}
profile_case() {
  local models=(resnet50 lstm bert-base vgg16 resnet50-cifar) devices=(v100 a100 h100 cpu h100-measured)
  local colls=(allreduce/ring allreduce/tree allreduce/rhd '{"name": "allreduce/hierarchical", "node_size": 4}'
    allgather/ring '{"name": "allreduce/torus2d", "rows": 2}')
  local comps=(none fp16 '{"name": "topk", "ratio": 0.01, "memory": "residual"}' '{"name": "marsit", "memory": "marsit"}'
    '{"name": "global-qsgd", "bits": 12}' '{"name": "ef-signsgd", "memory": "ef-sign"}' s2-sketch)
  local plats=('{"generate": "crossbar", "bandwidth": "10Gbps", "latency": "2us"}'
    '{"generate": "fat-tree", "down": [4, 4], "up": [1, 2], "parallel": [1, 1], "bandwidth": "10Gbps", "latency": "2us"}'
    '{"generate": "multigpu", "nodes": 4, "gpus_per_node": 4}')
  local m d c p pl s n comm=()
  pick models; m=$REPLY; pick devices; d=$REPLY; pick colls; c=$REPLY; pick comps; p=$REPLY; pick plats; pl=$REPLY
  case $((RANDOM % 4)) in
  0) s='{"kind": "single"}' ;; 1) s="{\"kind\": \"buckets\", \"bucket_mb\": $((1 + RANDOM % 50))}" ;;
  2) s='{"kind": "layerwise"}' ;; 3) s="{\"kind\": \"mergecomp\", \"probes\": $((1 + RANDOM % 8))}" ;;
  esac
  n=$((2 + RANDOM % 15))
  case $c in *hierarchical* | *torus2d*) n=$((4 * (1 + RANDOM % 4))) ;; esac
  [[ $c == \{* ]] || c="\"$c\""
  [ $((RANDOM % 4)) = 0 ] && comm=(--set 'comm={"model": "nccl"}')
  args=(--set workers=$n --set iterations=$((1 + RANDOM % 3))
    --set "model={\"profile\": \"$m\", \"batch\": $((16 << (RANDOM % 3))), \"sample\": $((4096 << (RANDOM % 5)))}"
    --set "device=\"$d\"" --set "schedule=$s" --set "collective=$c" --set "compressor=$p" --set "platform=$pl"
    --threads $((1 + RANDOM % 2)) "${comm[@]}")
  echo "${args[*]}" >"$T/args"
  both_ways
}
mib() { awk -v v="$1" -v u="$2" 'BEGIN { f = u == "KiB" ? 1 / 1024 : u == "MiB" ? 1 : u == "GiB" ? 1024 : u == "TiB" ? 1048576 : 1 / 1048576; printf "%.1f", v * f }'; }
memory_case() {
  local comps=(none fp16 '{"name": "topk", "ratio": 0.05, "memory": "residual"}' '{"name": "marsit", "memory": "marsit"}'
    '{"name": "global-qsgd", "bits": 12}' sbc s2-sketch signsgd '{"name": "qsgd", "levels": 7}' randomk
    '{"name": "powersgd", "rank": 2}' '{"name": "dgc", "memory": "dgc"}' '{"name": "ef-signsgd", "memory": "ef-sign"}')
  local c p n el r sample=() memo=()
  pick COLLS; c=$REPLY; pick comps; p=$REPLY; n=$((2 + RANDOM % 63)) el=$(((1 << (14 + RANDOM % 8)) + RANDOM % 1000))
  case $c in
  allgather/rd) n=$((1 << (1 + RANDOM % 6))) ;;
  TORUS) r=$((2 + RANDOM % 4)) n=$((r * (2 + RANDOM % 6))) c="{\"name\": \"allreduce/torus2d\", \"rows\": $r}" ;;
  *hierarchical*) n=$((4 * (1 + RANDOM % 12))) ;;
  esac
  [[ $c == \{* ]] || c="\"$c\""
  [ $((RANDOM % 3)) = 0 ] && sample=(--set "model.sample=$((el / 4))")
  [ $((RANDOM % 2)) = 0 ] && memo=(--no-memo)
  args=(--set workers=$n --set iterations=$((1 + RANDOM % 3)) --set "model={\"elements\": $el}" "${sample[@]}"
    --set "collective=$c" --set "compressor=$p")
  echo "${args[*]} ${memo[*]}" >"$T/args"
  local cpus out v u est rss
  cpus=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
  out=$(taskset -c "$cpus" "$CCSIM" validate "$G" "${args[@]}" 2>&1) || { echo "refused: $(head -c 160 <<<"$out")"; return 2; }
  read -r v u < <(sed -n 's/.*needs about \([0-9.]*\) \([KMGT]*i*B\) of memory.*/\1 \2/p' <<<"$out")
  [ -n "${v:-}" ] || { echo "FAIL no estimate in: $out"; return 1; }
  est=$(mib "$v" "$u")
  rm -rf "$T/o"
  taskset -c "$cpus" "$CCSIM" run "$G" "${args[@]}" "${memo[@]}" --out "$T/o" --quiet >/dev/null 2>"$T/err"
  local rc=$?
  # a run the data stops (exit 1, one line: a NaN or an overflow, as a
  # count sketch re-encoded hop by hop grows) has no peak to compare
  if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ]; then echo "stopped: $(head -c 160 "$T/err")"; return 2; fi
  [ $rc = 0 ] || { echo "FAIL run (exit $rc): $(head -c 300 "$T/err")"; return 1; }
  rss=$(sed -n 's/.*"peak_rss_mb": \([0-9.]*\).*/\1/p' "$T/o/summary.json")
  awk -v a="$est" -v b="$rss" 'BEGIN { exit !(a >= b) }' || { echo "FAIL estimate $est MiB below the peak $rss MiB"; return 1; }
  echo "ok (estimate $est MiB, peak $rss MiB)"
}
crash_comp() { # REPLY: a compressor, its parameters drawn
  local a b c
  case $((RANDOM % 21)) in
  0) REPLY='"none"' ;; 1) REPLY='"fp16"' ;; 2) REPLY='"bf16"' ;;
  3) rf 0.0001 1; REPLY="{\"name\": \"topk\", \"ratio\": $REPLY}" ;;
  4) rf 0.0001 1; a=$REPLY; yn; REPLY="{\"name\": \"randomk\", \"ratio\": $a, \"scaled\": $REPLY}" ;;
  5) rf 0 0.05; REPLY="{\"name\": \"threshold\", \"tau\": $REPLY}" ;;
  6) rf 0.5 0.9999; a=$REPLY; rf 0.001 1; REPLY="{\"name\": \"dgc\", \"sparsity\": $a, \"sample\": $REPLY}" ;;
  7) rf 0.0001 1; REPLY="{\"name\": \"sbc\", \"ratio\": $REPLY, \"delay\": $((1 + RANDOM % 3))}" ;;
  8) rf 0.0001 1; REPLY="{\"name\": \"stc\", \"ratio\": $REPLY}" ;;
  9) a=$((1 + RANDOM % 256)); rf 0.0001 0.5; b=$REPLY; c=$((1 + RANDOM % 3))
    REPLY="{\"name\": \"s2-sketch\", \"cols\": $a, \"ratio\": $b, \"depth\": $c}" ;;
  10) REPLY="{\"name\": \"powersgd\", \"rank\": $((1 + RANDOM % 4))}" ;;
  11) REPLY='"signsgd"' ;; 12) REPLY='"ef-signsgd"' ;;
  13) rf 0 0.99; REPLY="{\"name\": \"signum\", \"beta\": $REPLY}" ;;
  14) REPLY='"onebit"' ;;
  15) rf 0.5 5; REPLY="{\"name\": \"terngrad\", \"clip\": $REPLY}" ;;
  16) a=$((1 + RANDOM % 255)); [ $((RANDOM % 2)) = 0 ] && b=l2 || b=max
    REPLY="{\"name\": \"qsgd\", \"levels\": $a, \"norm\": \"$b\"}" ;;
  17) REPLY='"natural"' ;;
  18) a=$((2 + RANDOM % 15)); [ $((RANDOM % 2)) = 0 ] && b=standard || b=exponential
    REPLY="{\"name\": \"global-qsgd\", \"bits\": $a, \"dithering\": \"$b\"}" ;;
  19) REPLY='"marsit"' ;;
  20) yn; REPLY="{\"name\": \"sign-ring\", \"scaled\": $REPLY}" ;;
  esac
}
crash_case() {
  local colls=('"allreduce/ring"' '"allreduce/ring-recompress"' '"allreduce/tree"' '"allreduce/rhd"' '"allreduce/torus2d"'
    HIER '"allgather/ring"' '"allgather/rd"' PS SPARCML OMNI)
  local mems=(none residual dgc ef-sign marsit)
  local c p el d sample=()
  pick colls; c=$REPLY
  case $c in
  HIER) c="{\"name\": \"allreduce/hierarchical\", \"node_size\": $((1 + RANDOM % 8))}" ;;
  PS) p=$((RANDOM % 4)); yn; c="{\"name\": \"ps\", \"servers\": $p, \"downlink\": $REPLY}" ;;
  SPARCML) rf 0 1; c="{\"name\": \"allreduce/sparcml\", \"dense_at\": $REPLY}" ;;
  OMNI) c="{\"name\": \"allreduce/omnireduce\", \"block\": $((1 + RANDOM % 512))}" ;;
  esac
  crash_comp; p=$REPLY
  if [ $((RANDOM % 3)) = 0 ]; then # with a memory
    pick mems
    [[ $p == \{* ]] && p="${p%\}}, \"memory\": \"$REPLY\"}" || p="{\"name\": $p, \"memory\": \"$REPLY\"}"
  fi
  el=$((1 + RANDOM % 3000))
  [ $((RANDOM % 4)) = 0 ] && [ $el -gt 10 ] && sample=(--set "model.sample=$((1 + RANDOM % el))")
  [ $((RANDOM % 2)) = 0 ] && d=normal || d=laplace
  rf 0.0001 10
  args=(--set workers=$((1 + RANDOM % 40)) --set iterations=$((1 + RANDOM % 3)) --set "model={\"elements\": $el}"
    "${sample[@]}" --set "collective=$c" --set "compressor=$p" --threads $((1 + RANDOM % 2))
    --set "gradients={\"source\": \"synthetic\", \"distribution\": \"$d\", \"scale\": $REPLY}")
  echo "${args[*]}" >"$T/args"
  run "$T/o" "${args[@]}"
  local rc=$?
  case $rc in
  0) echo ok ;;
  1 | 2) [ "$(wc -l <"$T/o.err")" = 1 ] || { echo "FAIL exit $rc without one line: $(head -c 300 "$T/o.err")"; return 1; }
    echo "refused: $(head -c 160 "$T/o.err")"
    return 2 ;;
  *) echo "FAIL exit $rc: $(head -c 300 "$T/o.err")"; return 1 ;;
  esac
}
if [ "$MODE" = memory ] && ldd "$CCSIM" 2>/dev/null | grep -q libasan; then
  echo "crosscheck.sh: memory: skipped: $CCSIM is built with AddressSanitizer (its shadow memory is in every peak)"
  exit 77
fi
case $MODE in timing | profile | memory | crash) ;; *) echo "crosscheck.sh: MODE is timing, profile, memory or crash, got '$MODE'" >&2; exit 2 ;; esac
for ((k = 1; k <= COUNT; k++)); do
  : >"$T/args"
  "${MODE}_case" >"$T/line" # in this shell: $RANDOM's draws carry on from case to case
  rc=$?
  echo "$k: $(cat "$T/line") :: $(cat "$T/args")"
  case $rc in 0) checked=$((checked + 1)) ;; 2) refused=$((refused + 1)) ;; *) failed=$((failed + 1)) ;; esac
done
echo "$checked checked, $refused refused, $failed failed"
[ $failed = 0 ]
