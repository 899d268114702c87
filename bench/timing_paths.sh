#!/usr/bin/env bash
# bench/timing_paths.sh BUILD SRCDIR [N ...] — the analytical timing path
# against SimGrid, in one sitting: the ring of 1M floats on the validation
# crossbar, sampled (model.sample=65536), one iteration, run with
# `--timing auto` and `--timing simgrid` alternately ROUNDS times (default 2)
# for each N (default 1024).  Per run: the whole run's CPU seconds, the
# timing executor's own CPU seconds (the run's "host" line), wall seconds,
# peak MB, and the simulated time (which must be the same both ways).
set -u
BUILD=$1
SRC=$2
shift 2
NS=${*:-1024}
ROUNDS=${ROUNDS:-2}
CCSIM=$BUILD/src/ccsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '| N | timing | round | run CPU s | timing executor CPU s | wall s | peak MB | simulated s | messages analytical / SimGrid |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for n in $NS; do
  for r in $(seq 1 "$ROUNDS"); do
    for m in auto simgrid; do
      o=$T/$n-$m-$r
      /usr/bin/time -f "%U %S %e %M" -o "$o.time" "$CCSIM" run "$SRC/tests/validation/ring_crossbar.json" --out "$o" \
        --set workers="$n" --set 'model={"elements":1048576}' --set model.sample=65536 --set iterations=1 \
        --timing "$m" >"$o.log" 2>&1 || { echo "failed: N=$n --timing $m" >&2; tail -3 "$o.log" >&2; exit 1; }
      read -r u s w k <"$o.time"
      tex=$(sed -n 's/.*timing executor \([0-9.e+-]*\) CPU s.*/\1/p' "$o.log")
      sim=$(sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$o/summary.json")
      am=$(sed -n 's/.*"analytical_messages": \([0-9]*\).*/\1/p' "$o/summary.json")
      sm=$(sed -n 's/.*"simgrid_messages": \([0-9]*\).*/\1/p' "$o/summary.json")
      awk -v n="$n" -v m="$m" -v r="$r" -v u="$u" -v s="$s" -v w="$w" -v k="$k" -v t="$tex" -v sim="$sim" -v am="$am" -v sm="$sm" \
        'BEGIN { printf "| %s | %s | %s | %.2f | %s | %.2f | %.0f | %s | %s / %s |\n", n, m, r, u + s, t, w, k / 1024, sim, am, sm }'
    done
  done
done
