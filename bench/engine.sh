#!/usr/bin/env bash
# bench/engine.sh BUILD SRCDIR [CASES] — what one simulation costs, in one
# sitting: host CPU seconds (user + sys), wall seconds and peak memory of
#  (a) ring all-reduce of 1M floats, N=256, 10 iterations: ccsim with the full
#      data plane and sampled (model.sample=65536) against SimGrid SMPI's
#      MPI_Allreduce (ring algorithm "lr") on the same platform file;
#  (b) N=1024, one iteration, sampled, against bench/s4u_ring.c: a bare S4U
#      ring sending exactly ccsim's messages, no data (ccsim on its default
#      lanes and on one: ratios of CPU and of wall seconds);
#  (c) ResNet-50 profile, v100, DDP buckets, marsit with its memory, 25 Gbps
#      crossbar, N=1024, sample 262144, ITER_C iterations (default 100);
#  (d) the same at N=4096, ITER_D iterations (default 10).
# CASES picks some of a b c d (default: all).  A benchmark, not a test: it
# prints a table; ratios are what to trust on a shared machine.  ROUNDS_B=R
# (R > 1) adds to (b) R rounds of ccsim and the bare ring alternated, with
# each one's median and least wall time and their ratios.
# Extra ccsim options (e.g. --no-memo) come from CCSIM_OPTS.  BENCH_KEEP=DIR
# keeps every run's log, time and results in DIR instead of a removed temporary.
set -u
BUILD=$(readlink -f "$1")
SRC=$(readlink -f "$2")
shift 2
CASES=${*:-${CASES:-a b c d}} # the arguments, else $CASES, else all
CCSIM=$BUILD/src/ccsim
RING=$BUILD/tests/s4u_ring
ITER_C=${ITER_C:-100}
ITER_D=${ITER_D:-10}
OPTS=${CCSIM_OPTS:-}
. "$(dirname "$0")/lib.sh" # T, measure
SG="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thresh:warning"
sim_of() { sed -n 's/.*"sim_time_s": \([0-9.eE+-]*\).*/\1/p' "$1/summary.json"; }
field() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1/summary.json"; }
row() { # case what "cpu wall mb" sim ratio
  set -- "$1" "$2" $3 "$4" "$5"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
# the replays' CPU seconds, from the run's own "host" line (timing executor X CPU s)
tex() { sed -n 's/.*timing executor \([0-9.e+]*\) CPU s.*/\1/p' "$T/$1.log"; }
printf '| case | run | CPU s | wall s | peak MB | simulated s | ratio |\n|---|---|---|---|---|---|---|\n'
ring_exp() { # N sample iterations out
  local extra=""; [ "$2" != 0 ] && extra="--set model.sample=$2"
  # shellcheck disable=SC2086
  echo "$CCSIM" run "$SRC/tests/validation/ring_crossbar.json" --quiet --out "$4" --set workers=$1 \
    --set 'model={"elements":1048576}' --set iterations=$3 $extra $OPTS
}
for c in $CASES; do
  case $c in
  a)
    # shellcheck disable=SC2046
    full=$(measure afull $(ring_exp 256 0 10 "$T/afull"))
    # shellcheck disable=SC2046
    samp=$(measure asamp $(ring_exp 256 65536 10 "$T/asamp"))
    smpi="- - -"; ssim=-
    # SMPI_BIN: smpi_allreduce built beforehand (a pack's), else built
    # here; SMPIRUN: the smpirun to start it with (a pack's wrapper)
    prog=${SMPI_BIN:-}
    if [ -z "$prog" ] && command -v smpicc >/dev/null && smpicc -O2 -o "$T/smpi" "$SRC/bench/smpi_allreduce.c" 2>"$T/cc.log"; then
      prog=$T/smpi
    fi
    if [ -n "$prog" ] && command -v "${SMPIRUN:-smpirun}" >/dev/null; then
      "$CCSIM" hosts "$T/afull/platform.xml" | head -n 256 >"$T/hosts"
      # shellcheck disable=SC2086
      smpi=$(measure asmpi "${SMPIRUN:-smpirun}" -np 256 -platform "$T/afull/platform.xml" -hostfile "$T/hosts" \
        --cfg=smpi/allreduce:lr $SG --cfg=smpi/simulate-computation:no "$prog" 1048576 10)
      ssim=$(sed -n 's/^smpi_s //p' "$T/asmpi.log")
    fi
    scpu=${smpi%% *}
    swall=$(echo "$smpi" | cut -d' ' -f2)
    # both ratios: SMPI runs on one core, ccsim on its lanes (every core)
    vs() { echo "SMPI/this $(ratio "$scpu" "${1%% *}") CPU, $(ratio "$swall" "$(echo "$1" | cut -d' ' -f2)") wall"; }
    row a "ccsim full, N=256, 10 it" "$full" "$(sim_of "$T/afull")" "$(vs "$full")"
    row a "ccsim sampled 65536" "$samp" "$(sim_of "$T/asamp")" "$(vs "$samp")"
    row a "SMPI MPI_Allreduce lr" "$smpi" "$ssim" 1
    ;;
  b)
    # ROUNDS_B rounds of ccsim and the bare ring, alternated: on a machine
    # whose speed moves by a third from one minute to the next (the bare
    # ring ran 5.7-12.1 s in one sitting) one run of each is no ratio; the
    # rows give each one's median wall (and min) over the rounds
    if [ "${ROUNDS_B:-1}" -gt 1 ]; then
      cw="" bw=""
      for r in $(seq 1 "$ROUNDS_B"); do
        # shellcheck disable=SC2046
        x=$(measure "br$r" $(ring_exp 1024 65536 1 "$T/br$r")) && cw="$cw $(echo "$x" | cut -d' ' -f2)"
        # shellcheck disable=SC2086
        x=$(measure "bb$r" "$RING" "$T/br1/platform.xml" 1024 1048576 1 $SG) && bw="$bw $(echo "$x" | cut -d' ' -f2)"
      done
      mn() { tr ' ' '\n' | grep . | sort -g | head -1; }
      cm=$(echo "$cw" | median %.2f) bm=$(echo "$bw" | median %.2f) c0=$(echo "$cw" | mn) b0=$(echo "$bw" | mn)
      row b "ccsim sampled, N=1024, 1 it: median wall of $ROUNDS_B rounds (min)" "- $cm -" "-" "bare/this $(ratio "$bm" "$cm") median, $(ratio "$b0" "$c0") min ($c0 s)"
      row b "bare S4U ring: median wall of $ROUNDS_B rounds (min)" "- $bm -" "-" "($b0 s)"
    fi
    # shellcheck disable=SC2046
    samp=$(measure bsamp $(ring_exp 1024 65536 1 "$T/bsamp"))
    # the same on one lane: the CPU a second lane costs (the caches and
    # memory it shares with the first) against the wall time it saves
    # shellcheck disable=SC2046
    one=$(measure bone $(ring_exp 1024 65536 1 "$T/bone") --threads 1)
    # shellcheck disable=SC2086
    bare=$(measure bbare "$RING" "$T/bsamp/platform.xml" 1024 1048576 1 $SG)
    wall() { echo "$1" | cut -d' ' -f2; }
    both() { echo "this/bare $(ratio "${1%% *}" "${bare%% *}") CPU, $(ratio "$(wall "$1")" "$(wall "$bare")") wall"; }
    row b "ccsim sampled, N=1024, 1 it" "$samp" "$(sim_of "$T/bsamp")" "$(both "$samp")"
    row b "the same, --threads 1" "$one" "$(sim_of "$T/bone")" "$(both "$one")"
    t=$(tex bsamp)
    row b "its timing executor (the replay alone)" "$t - -" - "this/bare $(ratio "$t" "${bare%% *}")"
    row b "bare S4U ring" "$bare" "$(sed -n 's/^simulated_s //p' "$T/bbare.log")" 1
    ;;
  c | d)
    if [ "$c" = c ]; then N=1024 IT=$ITER_C; else N=4096 IT=$ITER_D; fi
    # shellcheck disable=SC2086
    r=$(measure "$c" "$CCSIM" run "$SRC/workloads/walltime/resnet50.json" --quiet --out "$T/$c" \
      --set workers=$N --set iterations=$IT --set platform.bandwidth=25Gbps \
      --set 'compressor={"name": "marsit", "memory": "marsit"}' $OPTS)
    sims=$(field "$T/$c" simulated_iterations)
    row "$c" "ResNet-50 marsit, N=$N, $IT it (simulated ${sims:-all}; replay $(tex "$c") CPU s)" "$r" "$(sim_of "$T/$c")" -
    ;;
  esac
done
