#!/usr/bin/env bash
# tests/bench_pack.sh CCSIM SRCDIR — bench/pack.sh packs the benchmarks'
# programs so that they run where nothing of theirs is installed:
#  - packed, then moved elsewhere, ccsim loads every shared library from
#    the pack (the loader's own list of what it initialised: none from
#    outside), and gives the same result files as the build's ccsim (a
#    ring and a compressed parameter server);
#  - the packed bare S4U ring simulates the same time as the build's, and
#    so does the packed SMPI (where smpicc packed it) as smpirun's;
#  - bench/scale.sh runs through the pack (BENCH_TIME naming its GNU time)
#    and fills its rows: the same simulated times as through the build;
#  - a directory that holds anything but an earlier pack is refused (exit
#    2, one line) and left as it was; an earlier pack is replaced;
#  - a build directory without the programs: exit 2 and one line.
. "$(dirname "$0")/lib.sh" "$@"
BUILD=$(dirname "$(dirname "$CCSIM")")
RING=$SRC/tests/validation/ring_crossbar.json

bash "$SRC/bench/pack.sh" "$BUILD" "$T/p" >"$T/pack.log" 2>&1 || { bad "pack: $(cat "$T/pack.log")"; finish bench-pack; }
mv "$T/p" "$T/moved"
P=$T/moved

# what the loader initialised once the wrapper (a shell, with its own
# libraries, as have its dirname and readlink) gave way to the packed
# loader: every library from the pack
LD_DEBUG=files "$P/build/src/ccsim" --version 2>"$T/ld.log" >/dev/null || bad "packed ccsim --version failed"
awk -v p="$P/" '/calling init: / { pid = $1; f = $NF
  if (index(f, p) == 1 && f ~ /ld-linux/) packed[pid] = 1
  else if (packed[pid]) print f }' "$T/ld.log" >"$T/after"
inits=$(wc -l <"$T/after")
outside=$(grep -v "^$P/" "$T/after" || true)
if [ "$inits" -ge 10 ] && [ -z "$outside" ]; then ok; else bad "packed ccsim: $inits libraries initialised, from outside the pack: $outside"; fi

run2() { # name args...: the build's ccsim and the packed one
  local name=$1
  shift
  "$CCSIM" run "$RING" --quiet --out "$T/$name-b" "$@" >/dev/null 2>"$T/err" || { bad "$name: build: $(cat "$T/err")"; return; }
  CCSIM_DATA=$SRC "$P/build/src/ccsim" run "$RING" --quiet --out "$T/$name-p" "$@" >/dev/null 2>"$T/err" ||
    { bad "$name: packed: $(cat "$T/err")"; return; }
  same "$name" "$T/$name-b" "$T/$name-p"
}
run2 ring --set workers=16 --set 'model={"elements":65536}' --set iterations=2
run2 ps --set workers=12 --set 'model={"elements":65536}' --set iterations=2 \
  --set 'collective={"name": "ps", "servers": 2}' --set 'compressor={"name": "topk", "ratio": 0.01}'

# the bare ring, on the platform the ring's run wrote
SG="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --log=root.thresh:warning"
# shellcheck disable=SC2086
a=$("$BUILD/tests/s4u_ring" "$T/ring-b/platform.xml" 16 65536 1 $SG 2>&1 | sed -n 's/^simulated_s //p')
# shellcheck disable=SC2086
b=$("$P/build/tests/s4u_ring" "$T/ring-b/platform.xml" 16 65536 1 $SG 2>&1 | sed -n 's/^simulated_s //p')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "bare ring: build '$a', packed '$b'"; fi

# SMPI through the pack, where it carries it (smpicc here): the same
# simulated time as SimGrid's own smpirun, and no library of the system's
# initialised after the packed loader took over
if [ -x "$P/smpirun" ]; then
  "$CCSIM" hosts "$T/ring-b/platform.xml" | head -n 8 >"$T/hosts8"
  smpicc -O2 -o "$T/smpi" "$SRC/bench/smpi_allreduce.c" 2>"$T/cc.log" || bad "smpicc: $(cat "$T/cc.log")"
  sm() { # smpirun program: the simulated seconds it prints
    # shellcheck disable=SC2086
    "$1" -np 8 -platform "$T/ring-b/platform.xml" -hostfile "$T/hosts8" --cfg=smpi/allreduce:lr $SG \
      --cfg=smpi/simulate-computation:no "$2" 65536 2 2>"$T/sm.err" | sed -n 's/^smpi_s //p'
  }
  a=$(sm smpirun "$T/smpi")
  b=$(LD_DEBUG=files sm "$P/smpirun" "$P/bin/smpi_allreduce")
  sys=$(awk -v p="$P/" '/calling init: / { pid = $1; f = $NF
    if (index(f, p) == 1 && f ~ /ld-linux/) packed[pid] = 1
    else if (packed[pid] && f ~ /^\/(usr\/)?lib/) print f }' "$T/sm.err")
  if [ -n "$a" ] && [ "$a" = "$b" ] && [ -z "$sys" ]; then ok; else
    bad "SMPI through the pack: smpirun '$a', packed '$b', system libraries: $sys $(tail -c 300 "$T/sm.err")"
  fi
  # smpirun splits its -wrapper into words: under a path with a blank the
  # packed smpirun refuses (exit 2, one line) rather than start a split path
  mkdir -p "$T/a b" && cp -a "$P" "$T/a b/p"
  "$T/a b/p/smpirun" -np 8 -platform "$T/ring-b/platform.xml" -hostfile "$T/hosts8" "$P/bin/smpi_allreduce" 65536 1 \
    >/dev/null 2>"$T/blank.err"
  rc=$?
  if [ $rc = 2 ] && [ "$(wc -l <"$T/blank.err")" = 1 ] && grep -q 'holds a blank' "$T/blank.err"; then ok; else
    bad "packed smpirun under a path with a blank: exit $rc: $(head -c 300 "$T/blank.err")"
  fi
  rm -rf "$T/a b"
fi

# a benchmark through the pack: its rows filled, the same simulated times
sims() { awk -F' [|] ' '/^[|] f [|]/ { print $6 }' "$1"; }
F_N=32 bash "$SRC/bench/scale.sh" "$BUILD" "$SRC" f >"$T/sb" 2>&1
CCSIM_DATA=$SRC BENCH_TIME=$P/time F_N=32 bash "$SRC/bench/scale.sh" "$P/build" "$SRC" f >"$T/sp" 2>&1
if [ "$(sims "$T/sb" | grep -c '^[0-9]')" = 2 ] && [ "$(sims "$T/sb")" = "$(sims "$T/sp")" ] &&
  ! grep -q -- '- - -\|failed' "$T/sp"; then ok; else bad "scale.sh f through the pack:" "$(cat "$T/sb" "$T/sp")"; fi

# a directory that holds something else is never replaced; an earlier
# pack is
mkdir -p "$T/keep" && echo data >"$T/keep/f"
bash "$SRC/bench/pack.sh" "$BUILD" "$T/keep" >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q 'not a pack' "$T/out" && [ -f "$T/keep/f" ]; then ok; else
  bad "a directory with a file in it: exit $rc: $(cat "$T/out")"
fi
if bash "$SRC/bench/pack.sh" "$BUILD" "$P" >"$T/out" 2>&1 && [ -x "$P/build/src/ccsim" ]; then ok; else bad "an earlier pack not replaced: $(cat "$T/out")"; fi

# a build directory without the programs
mkdir -p "$T/empty"
bash "$SRC/bench/pack.sh" "$T/empty" "$T/q" >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q 'not an executable' "$T/out"; then ok; else bad "empty build: exit $rc: $(cat "$T/out")"; fi
finish bench-pack
