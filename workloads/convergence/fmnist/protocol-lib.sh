# workloads/convergence/fmnist/protocol-lib.sh — the stages of protocol.sh
# shellcheck shell=bash
# (sourced; protocol.sh sets CCSIM OUT HERE FMNIST ITERS EPOCH_ITERS
# TRAIN_SAMPLES, the seeds, grids and speeds, and holds the job server's
# tokens on fd 3).

# placements M: the error-feedback placements method M defines, each tuned
# on its own grid. residual: error feedback on the gradient, momentum applied
# by the optimizer to the aggregate; dgc: momentum inside the error feedback
# (DGC's momentum correction and masking, compressors/mem_dgc.c), optimizer
# without momentum; betaB: Marsit's compensation with beta B (1 the global
# rule of docs/algorithms.md, 0.5 ccsim's default; [reconstructed]).
placements() {
  case $1 in
    topk | sbc) echo "residual dgc" ;;
    marsit) echo "beta0.5 beta1" ;;
    *) echo "default" ;;
  esac
}

# grid0 M: the first effective steps eff = lr / (1 - momentum). Marsit's
# aggregate is +-1 per coordinate (its memory's eta 100 sets the gradient
# scale), so its steps are two orders smaller. EFF0 (environment) replaces
# them for every method; GRID=mid keeps the middle one.
grid0() {
  [ "$GRID" = mid ] && { GRID=full grid0 "$1" | awk '{ print $(int((NF + 1) / 2)) }'; return; }
  [ -n "${EFF0:-}" ] && { echo "$EFF0"; return; }
  case $1 in
    ef-signsgd | sbc) echo "0.125 0.25 0.5" ;;
    marsit) echo "0.004 0.008 0.016" ;;
    *) echo "0.25 0.5 1" ;;
  esac
}

# sets P EFF M: the --set arguments of placement P at effective step EFF and
# momentum M (one per line).
sets() {
  local lr
  lr=$(awk -v e="$2" -v m="$3" 'BEGIN { printf "%.6g", e * (1 - m) }')
  echo "train.optimizer.lr=$lr"
  case $1 in
    dgc)
      echo "train.optimizer.momentum=0"
      echo "compressor.memory={\"name\":\"dgc\",\"momentum\":$3}"
      ;;
    beta*)
      echo "train.optimizer.momentum=$3"
      echo "compressor.memory.beta=${1#beta}"
      ;;
    *) echo "train.optimizer.momentum=$3" ;;
  esac
}

# run_one CSV WORKLOAD SEED TEST_SAMPLES EVAL_EVERY ITERATIONS [SET...]:
# one ccsim run (one thread, one job-server token), its evaluations written
# to CSV (iteration,sim_time_s,train_loss,test_loss,test_accuracy: the
# simulated time is cumulative), or, when training diverged (exit 1 and
# ccsim's "training diverged" line), that line to CSV's .failed file: a
# diverged grid point is a result. Any other failure (a bad input, a crash)
# fails the study. Nothing is run when CSV or its .failed exists.
run_one() {
  local csv=$1 w=$2 seed=$3 test=$4 ev=$5 it=$6
  shift 6
  local fail=${csv%.csv}.failed
  [ -e "$csv" ] || [ -e "$fail" ] && return 0
  mkdir -p "$(dirname "$csv")" "$OUT/.scratch"
  local d
  d=$OUT/.scratch/$(printf '%s' "$csv" | md5sum | cut -c1-16)
  local args=(--set "seed=$seed" --set "iterations=$it" --set "train.data=$FMNIST"
    --set "train.train_samples=$TRAIN_SAMPLES" --set "train.test_samples=$test" --set "train.eval_every=$ev")
  local s
  for s in "$@"; do args+=(--set "$s"); done
  local rc
  read -r -n 1 -u 3 _
  "$CCSIM" run "$HERE/$w.json" --out "$d" --quiet --force --threads 1 "${args[@]}" >/dev/null 2>"$d.err"
  rc=$?
  printf x >&3
  if [ $rc = 0 ]; then
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "iteration,sim_time_s,train_loss,test_loss,test_accuracy"; next }
             { t += $c["time_s"] }
             $c["test_accuracy"] != "" { printf "%s,%.9g,%s,%s,%s\n", $c["iteration"], t, $c["train_loss"], $c["test_loss"], $c["test_accuracy"] }' \
      "$d/iterations.csv" >"$csv.tmp" && mv "$csv.tmp" "$csv"
    if [ "${KEEP_RUNS:-0}" != 1 ]; then rm -rf "$d" "$d.err"; fi
    return 0
  fi
  if [ $rc = 1 ] && grep -q 'training diverged' "$d.err"; then
    grep -m1 'training diverged' "$d.err" >"$fail"
    [ "${KEEP_RUNS:-0}" = 1 ] || rm -rf "$d" "$d.err"
    return 0
  fi
  echo "run $csv failed (exit $rc): $(head -c 400 "$d.err")" >&2
  return 1
}

# score DIR: the point's score, the mean over the tuning seeds of the mean
# test accuracy of the evaluations in the last epoch (iteration >= ITERS -
# EPOCH_ITERS); a failed seed scores 0. Prints "SCORE NFAILED".
score() {
  local dir=$1 s tot=0 nf=0 x
  for s in $TUNE_SEEDS; do
    if [ -e "$dir/seed$s.failed" ]; then
      x=0
      nf=$((nf + 1))
    else
      x=$(awk -F, -v from=$((ITERS - EPOCH_ITERS)) 'NR > 1 && $1 >= from { a += $5; n++ } END { printf "%.6f", n ? a / n : 0 }' "$dir/seed$s.csv")
    fi
    tot=$(awk -v a="$tot" -v b="$x" 'BEGIN { printf "%.6f", a + b }')
  done
  awk -v a="$tot" -v n="$(echo "$TUNE_SEEDS" | wc -w)" -v f=$nf 'BEGIN { printf "%.6f %d\n", a / n, f }'
}

# g EXPR: the number EXPR evaluates to, as %g (the points' names)
g() { awk "BEGIN { printf \"%g\", $1 }"; }

# tune M P: the grid of method M, placement P, extended until its best
# point is inside (see protocol.sh). tune/M/P/points.txt: one line "EFF M
# ROUND" per grid point (ROUND the extension that added it, so that a
# resumed study extends no further than MAX_ROUNDS); rounds.txt: the
# scores, whose last line is "best EFF M SCORE inside|edge".
tune() {
  local m=$1 p=$2 dir=$OUT/tune/$1/$2
  mkdir -p "$dir"
  local pts=$dir/points.txt log=$dir/rounds.txt
  if [ ! -s "$pts" ]; then
    for e in $(grid0 "$m"); do for mo in $MOMENTA0; do echo "$(g "$e") $(g "$mo") 0"; done; done >"$pts"
  fi
  : >"$log"
  local round e mo s
  while :; do
    round=$(awk '$3 > r { r = $3 } END { print r + 0 }' "$pts")
    local pids=()
    while read -r e mo _; do
      for s in $TUNE_SEEDS; do
        mapfile -t st < <(sets "$p" "$e" "$mo")
        run_one "$dir/e$e-m$mo/seed$s.csv" "$m" "$s" "$TUNE_TEST" "$TUNE_EVAL" "$ITERS" "${st[@]}" </dev/null &
        pids+=($!)
      done
    done <"$pts"
    local pid
    for pid in "${pids[@]}"; do wait "$pid" || return 1; done
    local best="" bs=-1 sc nf
    while read -r e mo _; do
      read -r sc nf < <(score "$dir/e$e-m$mo")
      echo "round $round: eff $e momentum $mo score $sc failed $nf" >>"$log"
      if awk -v a="$sc" -v b="$bs" 'BEGIN { exit !(a > b) }'; then best="$e $mo" bs=$sc; fi
    done <"$pts"
    read -r e mo <<<"$best"
    local want=() lo hi
    want+=("$(g "$e / 2") $mo" "$(g "$e * 2") $mo")
    lo=$(echo "$LADDER" | tr ' ' '\n' | awk -v m="$mo" '$1 + 0 < m + 0 { x = $1 } END { print x }')
    hi=$(echo "$LADDER" | tr ' ' '\n' | awk -v m="$mo" '$1 + 0 > m + 0 { print; exit }')
    [ -n "$lo" ] && want+=("$e $(g "$lo")")
    [ -n "$hi" ] && want+=("$e $(g "$hi")")
    local missing=() w
    for w in "${want[@]}"; do awk -v w="$w" '$1 " " $2 == w { f = 1 } END { exit !f }' "$pts" || missing+=("$w"); done
    if [ ${#missing[@]} = 0 ]; then
      echo "best $best $bs inside" >>"$log"
      return 0
    fi
    if [ "$round" -ge "$MAX_ROUNDS" ]; then
      echo "best $best $bs edge (after $MAX_ROUNDS extensions; not run: ${missing[*]})" >>"$log"
      return 0
    fi
    echo "round $round: best $best $bs: extending with ${missing[*]}" >>"$log"
    printf "%s $((round + 1))\n" "${missing[@]}" >>"$pts"
  done
}

# method_pipeline M: tune every placement of M (at once), pick the best,
# then its held-out runs and its speed runs (speed/M/BW.csv: one evaluation
# at the last iteration; its sim_time_s / (iteration + 1) is the iteration
# time at that link speed).
method_pipeline() {
  local m=$1 p pids=() pid
  for p in $(placements "$m"); do
    tune "$m" "$p" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || return 1; done
  local bp="" be bm bs=-1 e mo sc rest
  for p in $(placements "$m"); do
    read -r _ e mo sc rest < <(tail -1 "$OUT/tune/$m/$p/rounds.txt")
    if awk -v a="$sc" -v b="$bs" 'BEGIN { exit !(a > b) }'; then bp=$p be=$e bm=$mo bs=$sc; fi
  done
  echo "$bp $be $bm $bs" >"$OUT/tune/$m/best.txt"
  mapfile -t st < <(sets "$bp" "$be" "$bm")
  pids=()
  local s bw
  for s in $HELD_SEEDS; do
    run_one "$OUT/heldout/$m/seed$s.csv" "$m" "$s" "$HELD_TEST" "$HELD_EVAL" "$ITERS" "${st[@]}" </dev/null &
    pids+=($!)
  done
  set -- $HELD_SEEDS
  for bw in $SPEEDS; do
    run_one "$OUT/speed/$m/$bw.csv" "$m" "$1" "$TUNE_TEST" "$SPEED_ITERS" "$SPEED_ITERS" "${st[@]}" \
      "platform.bandwidth=$bw" </dev/null &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || return 1; done
}
