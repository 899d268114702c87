#!/usr/bin/env bash
# bench/data_plane.sh OLD NEW SRCDIR [CASES] — what the data plane costs per
# iteration, two ccsim binaries side by side (OLD: a build of the commit
# before, NEW: this one), alternated ROUNDS times (default 3) in one
# sitting, and NEW against SimGrid SMPI's MPI_Allreduce.  CPU seconds are
# user + sys of the whole process tree; "data/it" is (CPU - the timing
# executor's CPU from the run's host line) / iterations, the data
# executor's share.  The result files of OLD and NEW must be identical
# (the script says when they are not).  A benchmark, not a test.
# Cases:
#   memo     ring all-reduce of 1M floats, N=256, 10 iterations, full data
#            plane, memo on (SimGrid or the analytical path times the first
#            iteration only; nine are data alone)
#   sampled  N=1024, the same tensor, model.sample=65536, 3 iterations
#   smpi     issue 29's (b): N=256, 1M floats, 10 iterations, full data
#            plane (NEW) against MPI_Allreduce (ring algorithm "lr") on the
#            same platform file; ratio SMPI CPU / ccsim CPU
# SMPI needs smpicc and smpirun (or SMPI_BIN, an smpi_allreduce built
# beforehand).  OPTS (environment) adds ccsim options to every run.
set -u
OLD=$(readlink -f "$1")
NEW=$(readlink -f "$2")
SRC=$(readlink -f "$3")
shift 3
CASES=${*:-memo sampled smpi}
ROUNDS=${ROUNDS:-3}
OPTS=${OPTS:-}
. "$(dirname "$0")/lib.sh" # T, measure
EXP=$SRC/tests/validation/ring_crossbar.json
SG="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thresh:warning"
tex() { sed -n 's/.*timing executor \([0-9.e+-]*\) CPU s.*/\1/p' "$T/$1.log"; }
per_it() { awk -v c="$1" -v t="$2" -v i="$3" 'BEGIN { if (t == "") t = 0; printf "%.3f", (c - t) / i }'; }
ccsim_run() { # binary out N sample iterations
  local extra=""; [ "$4" != 0 ] && extra="--set model.sample=$4"
  # shellcheck disable=SC2086
  echo "$1" run "$EXP" --quiet --out "$2" --set workers=$3 --set 'model={"elements":1048576}' --set iterations=$5 $extra $OPTS
}
same() { # dir1 dir2 -> "identical" or what differs
  local f d=""
  for f in iterations.csv hops.csv; do cmp -s "$1/$f" "$2/$f" || d="$d $f"; done
  [ -z "$d" ] && echo identical || echo "DIFFER:$d"
}
SMPI=${SMPI_BIN:-}
if [ -z "$SMPI" ] && command -v smpicc >/dev/null; then
  smpicc -O2 -o "$T/smpi" "$SRC/bench/smpi_allreduce.c" 2>"$T/cc.log" && SMPI=$T/smpi
fi
printf '| case | round | binary | CPU s | wall s | peak MB | timing executor CPU s | data CPU s / iteration | results |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for c in $CASES; do
  case $c in memo) N=256 S=0 IT=10 ;; sampled) N=1024 S=65536 IT=3 ;; smpi) N=256 S=0 IT=10 ;; *) echo "no case $c" >&2; exit 2 ;; esac
  for r in $(seq 1 "$ROUNDS"); do
    if [ "$c" = smpi ]; then
      # shellcheck disable=SC2046
      m=$(measure "n$c$r" $(ccsim_run "$NEW" "$T/n$c$r" $N $S $IT))
      smpi="- - -"
      if [ -n "$SMPI" ] && command -v smpirun >/dev/null; then
        "$NEW" hosts "$T/n$c$r/platform.xml" | head -n $N >"$T/hosts"
        # shellcheck disable=SC2086
        smpi=$(measure "s$c$r" smpirun -np $N -platform "$T/n$c$r/platform.xml" -hostfile "$T/hosts" \
          --cfg=smpi/allreduce:lr $SG --cfg=smpi/simulate-computation:no "$SMPI" 1048576 $IT)
      fi
      read -r cpu wall mb <<<"$m"
      read -r scpu swall smb <<<"$smpi"
      printf '| %s | %s | new | %s | %s | %s | %s | %s | sim %s s |\n' "$c" "$r" "$cpu" "$wall" "$mb" "$(tex "n$c$r")" \
        "$(per_it "$cpu" "$(tex "n$c$r")" $IT)" "$(sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$T/n$c$r/summary.json")"
      printf '| %s | %s | SMPI lr | %s | %s | %s | - | - | sim %s s; SMPI/new CPU %s |\n' "$c" "$r" "$scpu" "$swall" "$smb" \
        "$(sed -n 's/^smpi_s //p' "$T/s$c$r.log" 2>/dev/null)" "$(awk -v a="$scpu" -v b="$cpu" 'BEGIN { if (b > 0 && a != "-") printf "%.2f", a / b; else print "-" }')"
      continue
    fi
    # alternate which binary goes first from round to round
    order="old new"; [ $((r % 2)) = 0 ] && order="new old"
    for b in $order; do
      bin=$OLD; [ $b = new ] && bin=$NEW
      # shellcheck disable=SC2046
      m=$(measure "$b$c$r" $(ccsim_run "$bin" "$T/$b$c$r" $N $S $IT))
      read -r cpu wall mb <<<"$m"
      res=-; [ $b = new ] && [ -d "$T/old$c$r" ] && res=$(same "$T/old$c$r" "$T/new$c$r")
      [ $b = old ] && [ -d "$T/new$c$r" ] && res=$(same "$T/old$c$r" "$T/new$c$r")
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$c" "$r" "$b" "$cpu" "$wall" "$mb" "$(tex "$b$c$r")" \
        "$(per_it "$cpu" "$(tex "$b$c$r")" $IT)" "$res"
    done
  done
done
