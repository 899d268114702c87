#!/usr/bin/env bash
# tests/wire_bytes.sh CCSIM SRCDIR — bytes_on_wire and compression_ratio
# of iterations.csv, exactly, from the wire formats (docs/compressors.md) and
# the collectives' message counts (docs/collectives.md), with and without
# model.sample (a sampled tensor is charged what the full tensor's payload
# would take: a fixed-size payload the full tensor's wire bytes, a
# variable-size one its bytes scaled by full / sampled elements).
# 5 workers; 1000 elements sampled out of 100000 cut into 5 chunks of 200.
. "$(dirname "$0")/lib.sh" "$@"
cat >e.json <<'EOF'
{"seed": 9, "workers": 5, "iterations": 2, "model": {"elements": 1000},
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "2us"},
 "compressor": "fp16", "collective": "allreduce/ring"}
EOF
# expect NAME BYTES RATIO --set ...: every iteration's bytes_on_wire and compression_ratio
expect() {
  local name=$1 bytes=$2 ratio=$3
  shift 3
  if ! "$CCSIM" run e.json --quiet --out "$name" "$@" >/dev/null 2>err; then
    bad "$name: run failed: $(cat err)"
    return
  fi
  local got
  got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "%s %s\n", $c["bytes_on_wire"], $c["compression_ratio"] }' "$name/iterations.csv" | sort -u)
  if awk -v g="$got" -v b="$bytes" -v r="$ratio" 'BEGIN { n = split(g, f, " ");
      exit !(n == 2 && f[1] == b && (f[2] - r) ^ 2 <= (1e-9 * r) ^ 2) }'; then
    pass=$((pass + 1))
  else
    bad "$name: bytes_on_wire, compression_ratio: got $(echo $got | tr '\n' ';'), expected $bytes $ratio"
  fi
}
S='model={"elements": 100000, "sample": 1000}'
# fp16 is exactly half of fp32, so on every all-reduce the ratio is 2 and
# the bytes are half the uncompressed count of docs/collectives.md:
# halving-doubling, 5 workers (P = 4, R = 1): 4n (2(P-1) + 2R) / 2;
# hierarchical, 12 workers in nodes of G = 4 (M = 3): (2M(G-1) + 2(M-1)) 4n / 2
expect rhd 16000 2 --set collective=allreduce/rhd
expect hierarchical 44000 2 --set workers=12 --set 'collective={"name": "allreduce/hierarchical", "node_size": 4}'
# fp16 ring: 2(N-1) steps, N chunks of n/N elements, 2 bytes each: 4(N-1)n;
# uncompressed 8(N-1)n: ratio 2
expect fp16 16000 2
expect fp16-sampled 1600000 2 --set "$S"
# ring-recompress with top-k 0.1: every payload 20 of its 200 elements, 8
# bytes each (160 B; x 100 sampled); 2(N-1) N payloads
expect topk-recompress 6400 5 --set collective=allreduce/ring-recompress --set 'compressor={"name": "topk", "ratio": 0.1}'
expect topk-recompress-sampled 640000 5 --set collective=allreduce/ring-recompress \
  --set 'compressor={"name": "topk", "ratio": 0.1}' --set "$S"
# all-gather with top-k 0.1: N(N-1) payloads of 100 records (800 B; x 100
# sampled); uncompressed N(N-1) 4n
expect topk-allgather 16000 5 --set collective=allgather/ring --set 'compressor={"name": "topk", "ratio": 0.1}'
expect topk-allgather-sampled 1600000 5 --set collective=allgather/ring \
  --set 'compressor={"name": "topk", "ratio": 0.1}' --set "$S"
# parameter server (every worker serves a shard of n/N): N(N-1) shards up,
# 2 bytes an element in fp16, N(N-1) aggregated shards down in fp32 (no
# downlink compression): 6(N-1)n; uncompressed 8(N-1)n
expect ps-none 32000 1 --set collective=ps --set compressor=none
expect ps-fp16 24000 "$(awk 'BEGIN { printf "%.17g", 4 / 3 }')" --set collective=ps
# global-qsgd, 8 bits: 2(N-1) N payloads of 200 bytes + a 4-byte max, and
# the max-reduction before: N - 1 steps of 4 bytes from each of N workers
expect global-qsgd $((40 * 204 + 20 * 4)) "$(awk 'BEGIN { printf "%.17g", 32000 / 8240 }')" --set compressor=global-qsgd
finish wire-bytes
