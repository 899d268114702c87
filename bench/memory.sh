#!/usr/bin/env bash
# bench/memory.sh CCSIM [N] [BASE_CCSIM] — peak memory and CPU of the ring
# and recursive halving-doubling on the validation crossbar
# (tests/validation/ring_crossbar.json), 1M floats sampled to 65,536, one
# iteration (N workers, default 2048), against the memory estimate
# `ccsim validate` prints; with BASE_CCSIM, each run is followed by the same
# run of that binary (pairs in one sitting: the machine's noise, ratios
# only).  CPU seconds: user + system of the whole process tree; peak: the
# largest of ccsim and its timing executor (/usr/bin/time's %M).
set -u
NEW=$1
N=${2:-2048}
BASE=${3:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
args=(--set workers="$N" --set 'model={"elements":1048576}' --set model.sample=65536 --set iterations=1)
printf '| binary | collective | CPU s | wall s | peak MiB | estimate | simulated s |\n|---|---|---|---|---|---|---|\n'
for c in allreduce/ring allreduce/rhd; do
  for b in "$NEW" $BASE; do
    est=$("$b" validate "$SRC/tests/validation/ring_crossbar.json" "${args[@]}" --set collective=$c |
      sed 's/.*needs about \(.*\) of memory.*/\1/')
    rm -rf "$T/o"
    /usr/bin/time -f "%U %S %e %M" -o "$T/time" "$b" run "$SRC/tests/validation/ring_crossbar.json" "${args[@]}" \
      --set collective=$c --out "$T/o" >"$T/log" 2>&1 || { echo "failed: $b $c" >&2; tail -3 "$T/log" >&2; exit 1; }
    read -r u s w k <"$T/time"
    sim=$(sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$T/o/summary.json" | head -1)
    awk -v b="$b" -v c="$c" -v u="$u" -v s="$s" -v w="$w" -v k="$k" -v e="$est" -v sim="$sim" \
      'BEGIN { printf "| %s | %s | %.2f | %.1f | %.0f | %s | %s |\n", b, c, u + s, w, k / 1024, e, sim }'
  done
done
