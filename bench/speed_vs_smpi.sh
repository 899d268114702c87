#!/usr/bin/env bash
# bench/speed_vs_smpi.sh CCSIM SRCDIR [N...] — host time and peak memory of an
# uncompressed ring all-reduce of 1M floats with real data on a generated
# 25 Gbps crossbar, next to SimGrid SMPI's MPI_Allreduce (ring algorithm
# "lr") on the very same platform file, in the same run.  A benchmark, not a
# test: it prints a table (default N = 256 1024; SMPI is skipped above
# SMPI_MAX, default 256, since it needs ~2 GB at N = 256).
#
# ccsim is run twice per N: with the whole tensor in the data plane, and in
# coordinate-sampling mode (model.sample = 65536: the data plane runs on 64K
# evenly spaced coordinates while the network carries full-size messages;
# the simulated time is the same).  Every row checks that ccsim's simulated
# time agrees with SMPI's.
set -u
CCSIM=$(readlink -f "$1")
SRC=$(readlink -f "$2")
shift 2
NS=${*:-256 1024}
SMPI_MAX=${SMPI_MAX:-256}
COUNT=1048576
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
have_smpi=1
command -v smpicc >/dev/null && command -v smpirun >/dev/null || have_smpi=0
[ $have_smpi = 1 ] && { smpicc -O2 -o "$T/allreduce" "$SRC/tests/validation/mpi_allreduce.c" 2>"$T/cc.log" || have_smpi=0; }
measure() { # out-prefix command... -> "host_s peak_MB"
  local p=$1; shift
  /usr/bin/time -f "%e %M" -o "$p.time" "$@" >"$p.log" 2>&1 || { echo "failed: $*" >&2; tail -3 "$p.log" >&2; return 1; }
  awk '{ printf "%.2f %.0f", $1, $2 / 1024 }' "$p.time"
}
printf '| N | run | host time (s) | peak memory (MB) | simulated (s) |\n|---|---|---|---|---|\n'
for N in $NS; do
  exp="$SRC/tests/validation/ring_crossbar.json"
  for mode in full sampled; do
    extra=""; [ $mode = sampled ] && extra="--set model.sample=65536"
    # shellcheck disable=SC2086
    r=$(measure "$T/c$N$mode" "$CCSIM" run "$exp" --quiet --out "$T/out$N$mode" --set workers=$N \
        --set "model={\"elements\": $COUNT}" $extra) || continue
    sim=$(sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$T/out$N$mode/summary.json")
    printf '| %d | ccsim (%s data plane) | %s | %s | %.9g |\n' "$N" "$mode" ${r% *} ${r#* } "$sim"
  done
  if [ $have_smpi = 1 ] && [ "$N" -le "$SMPI_MAX" ]; then
    plat="$T/out${N}full/platform.xml"
    "$CCSIM" hosts "$plat" | head -n "$N" >"$T/hosts"
    r=$(measure "$T/s$N" smpirun -np "$N" -platform "$plat" -hostfile "$T/hosts" \
        --cfg=smpi/allreduce:lr --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
        --cfg=smpi/simulate-computation:no --log=root.thresh:error "$T/allreduce" $COUNT) || continue
    sim=$(sed -n 's/^smpi_allreduce_s //p' "$T/s$N.log")
    printf '| %d | SMPI MPI_Allreduce (lr) | %s | %s | %.9g |\n' "$N" ${r% *} ${r#* } "$sim"
  fi
done
