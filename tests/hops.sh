#!/usr/bin/env bash
# tests/hops.sh CCSIM SRCDIR — hops.csv holds the hops docs/collectives.md
# gives each collective (the table's last column), numbered 1 .. H in every
# iteration, and an all-reduce's last hop sums all N workers.  Seconds: one
# iteration of 64 elements per case.
. "$(dirname "$0")/lib.sh" "$@"
cat >e.json <<'EOF'
{"seed": 5, "workers": 6, "iterations": 2, "model": {"elements": 64},
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "2us"},
 "compressor": "fp16", "collective": "allreduce/ring"}
EOF
# case NAME HOPS LAST_WORKERS(- when not checked) --set ...
case_() {
  local name=$1 hops=$2 last=$3
  shift 3
  if ! "$CCSIM" run e.json --quiet --out "$name" "$@" >/dev/null 2>err; then
    bad "$name: run failed: $(cat err)"
    return
  fi
  local got
  for it in 0 1; do
    got=$(awk -F, -v it=$it 'NR > 1 && $1 == it { n++; if ($2 != n) bad = 1 } END { print bad ? "misnumbered" : n + 0 }' "$name/hops.csv")
    [ "$got" = "$hops" ] || { bad "$name: iteration $it: $got hops in hops.csv, docs/collectives.md says $hops"; return; }
  done
  if [ "$last" != - ]; then
    got=$(awk -F, -v h="$hops" 'NR > 1 && $1 == 0 && $2 == h { print $3 }' "$name/hops.csv")
    [ "$got" = "$last" ] || { bad "$name: the last hop sums $got workers, not $last"; return; }
  fi
  pass=$((pass + 1))
}
# N - 1 for the rings
case_ ring 5 6
case_ ring-recompress 5 6 --set collective=allreduce/ring-recompress
case_ allgather-ring 5 - --set collective=allgather/ring
# ceil(log2 N) for the tree: 5, 6 and 8 workers
case_ tree5 3 5 --set collective=allreduce/tree --set workers=5
case_ tree6 3 6 --set collective=allreduce/tree
case_ tree8 3 8 --set collective=allreduce/tree --set workers=8
# log2 P, + 1 when N is not a power of two (P = 4 for 6 workers)
case_ rhd6 3 6 --set collective=allreduce/rhd
case_ rhd8 3 8 --set collective=allreduce/rhd --set workers=8
# log2 N for recursive doubling
case_ allgather-rd 3 - --set collective=allgather/rd --set workers=8
# C - 1 + R - 1: 12 workers in 3 rows of 4
case_ torus2d 5 12 --set workers=12 --set 'collective={"name": "allreduce/torus2d", "rows": 3}'
# ceil(log2 G) + M - 1: 12 workers, nodes of G = 4, M = 3
case_ hierarchical 4 12 --set workers=12 --set 'collective={"name": "allreduce/hierarchical", "node_size": 4}'
# 1, + 1 with a recompressed downlink
case_ ps 1 - --set collective=ps
case_ ps-downlink 2 - --set 'collective={"name": "ps", "downlink": true}'
finish hops
