#!/usr/bin/env bash
# tests/progress.sh CCSIM SRCDIR — progress inside an iteration: messages
# simulated of those expected, then timed in SimGrid's replay, with an ETA; plain lines when stderr is not a
# terminal, one line redrawn on a terminal (script(1) gives a pty) with one
# overall percentage that never goes back and ends at 100%; nothing with --quiet.  CCSIM_PROGRESS_SECONDS=0 reports every 4096 messages.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# a ring of 64 workers: 2 x 64 x 63 = 8064 messages per iteration, on one
# thread: with several, each adds its count to the line once per 256
# messages, and the lines fall at other counts; --timing simgrid: the replay
# reports its progress from SimGrid (the analytical path, which this ring
# would take, reports none: it lasts milliseconds)
run=("$CCSIM" run "$SRC/tests/golden/small.json" --set workers=64 --set iterations=2
     --set 'model={"elements": 640}' --set platform.hosts=64 --threads 1 --timing simgrid)

CCSIM_PROGRESS_SECONDS=0 "${run[@]}" --out "$T/a" >/dev/null 2>"$T/err" || bad "run: $(cat "$T/err")"
grep -qE '^ccsim: iteration 1/2: 4096 of 8064 messages simulated, about [0-9]+ s left$' "$T/err" && ok ||
  bad "no progress line inside iteration 1: $(cat "$T/err")"
grep -qE '^ccsim: iteration 2/2: 4096 of 8064 messages simulated' "$T/err" && ok || bad "no progress inside iteration 2"
grep -qE '^ccsim: iteration 2/2 done at simulated [0-9.e-]+ s$' "$T/err" && ok || bad "no end-of-iteration line"
# the timing executor's replay in SimGrid (a forked child) reports too; the
# second iteration's timing comes from the memo: no replay to report
grep -qE '^ccsim: iteration 1/2: 4096 of 8064 messages timed in SimGrid, about [0-9]+ s left in this replay$' "$T/err" && ok ||
  bad "no progress line inside iteration 1's replay: $(cat "$T/err")"
[ "$(grep -c '2/2: .* timed in SimGrid' "$T/err")" = 0 ] && ok || bad "a replay reported for a memo hit"
CCSIM_PROGRESS_SECONDS=0 "${run[@]}" --out "$T/n" --no-memo >/dev/null 2>"$T/err" || bad "run --no-memo: $(cat "$T/err")"
grep -qE '^ccsim: iteration 2/2: 4096 of 8064 messages timed in SimGrid' "$T/err" && ok || bad "no replay progress with --no-memo"
# the default interval is 10 s without a terminal: this short run prints only per iteration
"${run[@]}" --out "$T/b" >/dev/null 2>"$T/err"
[ "$(grep -c 'messages simulated' "$T/err")" = 0 ] && [ "$(grep -c 'done at simulated' "$T/err")" = 2 ] && ok ||
  bad "default interval: $(cat "$T/err")"
CCSIM_PROGRESS_SECONDS=0 "${run[@]}" --out "$T/c" --quiet >/dev/null 2>"$T/err"
# (a sanitizer build warns about SimGrid's context switches: not progress)
grep -v -e '^==[0-9]*==WARNING: ASan' -e '^False positive error reports may follow' -e '^For details see https://github.com/google/sanitizers' "$T/err" >"$T/err2"
[ ! -s "$T/err2" ] && ok || bad "--quiet printed: $(cat "$T/err2")"
# progress is stderr only: the result files of a reporting and a quiet run are the same
strip() { grep -v -E '"(host_time_s|peak_rss_mb)"' "$1"; }
for f in "$T/a"/*; do
  b=$(basename "$f")
  if [ "$b" = summary.json ]; then cmp -s <(strip "$f") <(strip "$T/c/$b"); else cmp -s "$f" "$T/c/$b"; fi ||
    bad "$b differs between a reporting and a quiet run"
done
ok
# on a terminal: one line redrawn with \r, a bar, the counts and an ETA
if command -v script >/dev/null; then
  CCSIM_PROGRESS_SECONDS=0 script -qec "$(printf '%q ' "${run[@]}") --out $T/d >/dev/null" /dev/null >"$T/tty" 2>&1
  tr '\r' '\n' <"$T/tty" | sed 's/\x1b\[K//g' >"$T/lines"
  grep -qE '^\[#* *\] +[0-9]+% iteration 1/2: simulating 4096 of 8064 messages, about [0-9]+ s left$' "$T/lines" && ok ||
    bad "terminal: $(head -5 "$T/lines")"
  grep -qE '^\[#* *\] +[0-9]+% iteration 1/2: timing 4096 of 8064 messages' "$T/lines" && ok ||
    bad "terminal, replay: $(head -5 "$T/lines")"
  # one line for the whole run: its percentage never goes back (the replay
  # child draws from the same counts) and the last one is 100% with a full bar
  pct=$(grep -oE '^\[[# ]+\] +[0-9]+%' "$T/lines" | grep -oE '[0-9]+%$' | tr -d %)
  sort -n -c <<<"$pct" 2>/dev/null && [ "$(wc -l <<<"$pct")" -ge 5 ] && ok ||
    bad "terminal: the percentage goes back: $(tr '\n' ' ' <<<"$pct")"
  grep -E '^\[' "$T/lines" | tail -1 | grep -qE '^\[#{24}\] 100% 2/2 iterations, simulated [0-9.e-]+ s$' && ok ||
    bad "terminal: the last line is not 100%: $(tail -2 "$T/lines")"
  # four iterations without the memo: a replay per iteration, still one forward line to 100%
  CCSIM_PROGRESS_SECONDS=0 script -qec "$(printf '%q ' "${run[@]}") --set iterations=4 --no-memo --out $T/e >/dev/null" \
    /dev/null >"$T/tty" 2>&1
  tr '\r' '\n' <"$T/tty" | sed 's/\x1b\[K//g' >"$T/lines"
  pct=$(grep -oE '^\[[# ]+\] +[0-9]+%' "$T/lines" | grep -oE '[0-9]+%$' | tr -d %)
  sort -n -c <<<"$pct" 2>/dev/null && [ "$(tail -1 <<<"$pct")" = 100 ] && ok ||
    bad "terminal, --no-memo: $(tr '\n' ' ' <<<"$pct")"
  [ "$(grep -c 'timing 4096 of 8064' "$T/lines")" -ge 4 ] && ok || bad "terminal, --no-memo: not a replay per iteration"
  [ -z "$(ls /dev/shm 2>/dev/null | grep "^ccsim-progress-")" ] && ok || bad "a shared progress object was left in /dev/shm"
fi
echo "progress: $pass passed, $fail failed"
[ $fail -eq 0 ]
