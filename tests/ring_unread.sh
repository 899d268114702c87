#!/usr/bin/env bash
# tests/ring_unread.sh CCSIM SRCDIR — a ring all-gather whose payloads
# nobody reads (a shared output, fixed-size payloads) records its messages
# without moving them (coll_ring_allgather_unread, comm_exchange_unread),
# then waits at an untimed barrier until every chunk's owner has written its
# chunk.  The results must be those of the all-gather that forwards every
# payload (CCSIM_RING_FORWARD=1), byte for byte: simulated times (the same
# trace), bytes on the wire, errors, and what a memory that reads the
# aggregate makes of it in the next iterations (Marsit's: a reader that
# went on before the owners had written would read last iteration's
# chunks, with one lane as with two).  Uneven chunks (elements not a
# multiple of the workers) and coordinate sampling (payloads charged at
# their full size) check the bytes each step is charged.
. "$(dirname "$0")/lib.sh" "$@"
R50=$SRC/workloads/walltime/resnet50.json
MARSIT=(--set workers=33 --set iterations=3 --set platform.bandwidth=25Gbps
  --set 'model={"profile": "resnet50", "batch": 64, "sample": 20011}'
  --set 'compressor={"name": "marsit", "memory": "marsit"}')
for th in 1 2; do
  same_env "marsit-memory-threads$th" CCSIM_RING_FORWARD=1 "$R50" "${MARSIT[@]}" --threads $th
done
printf '{"name": "uneven", "seed": 3, "workers": 16, "iterations": 2, "model": {"elements": 4099},
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "3us"},
 "compressor": "none", "collective": "allreduce/ring"}\n' >uneven.json
same_env none-uneven CCSIM_RING_FORWARD=1 uneven.json --threads 2
for c in fp16 global-qsgd; do
  same_env "$c-sampled" CCSIM_RING_FORWARD=1 "$R50" --set workers=9 --set iterations=2 \
    --set 'model={"profile": "resnet50", "batch": 64, "sample": 7001}' --set "compressor.name=$c" --threads 2
done
finish ring-unread
