#!/usr/bin/env bash
# bench/pack.sh BUILD DIR — the benchmarks' programs, packed to run on a
# machine that has no SimGrid (nor jansson, GSL, ...) installed: a larger
# host to measure issue 29's list on, say.  DIR gets the binaries
# (ccsim, the bare S4U ring, GNU time) under bin/, every shared library they
# load and the dynamic loader under lib/, and wrappers that start each
# binary through that loader with that library path: DIR/build/src/ccsim
# and DIR/build/tests/s4u_ring (so DIR/build stands for a build directory)
# and DIR/time.  The wrappers find DIR from their own path, so DIR can be
# copied anywhere.  DIR must be new, empty or an earlier pack: anything
# else is refused (exit 2), never removed.  On the other machine, from a checkout of the same
# commit (ccsim finds its data through CCSIM_DATA there, not beside the
# binary):
#   CCSIM_DATA=$PWD BENCH_TIME=DIR/time bash bench/engine.sh DIR/build . b c
# The other machine must be x86-64 Linux with a C library as new as this
# one's loader expects of the kernel; nothing else of it is used.
# Where smpicc is here, the pack carries SMPI too, for (b): the benchmark's
# MPI program built here (bin/smpi_allreduce), SimGrid's smpimain and a copy
# of smpirun that starts smpimain through the packed loader (DIR/smpirun);
# there, add SMPI_BIN=DIR/bin/smpi_allreduce SMPIRUN=DIR/smpirun.
set -eu
[ $# = 2 ] || { echo "usage: bench/pack.sh BUILD DIR" >&2; exit 2; }
BUILD=$(readlink -f "$1")
DIR=$2
TIMEBIN=/usr/bin/time
for b in "$BUILD/src/ccsim" "$BUILD/tests/s4u_ring" "$TIMEBIN"; do
  [ -x "$b" ] || { echo "bench/pack.sh: $b: not an executable (build first: ninja -C BUILD)" >&2; exit 2; }
done
# DIR is replaced only when it is empty or an earlier pack (its marker)
if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ] && [ ! -f "$DIR/.ccsim-pack" ]; then
  echo "bench/pack.sh: $DIR: exists and is not a pack (remove it or name another)" >&2
  exit 2
fi
rm -rf -- "$DIR"
mkdir -p -- "$DIR/bin" "$DIR/lib" "$DIR/build/src" "$DIR/build/tests"
echo "bench/pack.sh of $BUILD" >"$DIR/.ccsim-pack"
cp "$BUILD/src/ccsim" "$BUILD/tests/s4u_ring" "$DIR/bin/"
cp "$TIMEBIN" "$DIR/bin/time"
SRC=$(dirname "$(readlink -f "$0")")/..
SMPIMAIN=/usr/lib/x86_64-linux-gnu/simgrid/smpimain
smpi=0
if command -v smpicc >/dev/null && command -v smpirun >/dev/null && [ -x "$SMPIMAIN" ] &&
  smpicc -O2 -o "$DIR/bin/smpi_allreduce" "$SRC/bench/smpi_allreduce.c" 2>"$DIR/smpicc.log"; then
  smpi=1
  rm -f "$DIR/smpicc.log"
  cp "$SMPIMAIN" "$DIR/bin/smpimain"
  # smpirun with smpimain's path made the pack's (SMPI_PACK, which the wrapper sets)
  sed "s|$SMPIMAIN|\${SMPI_PACK}/bin/smpimain|" "$(command -v smpirun)" >"$DIR/bin/smpirun"
  if ! grep -q 'SMPI_PACK}/bin/smpimain' "$DIR/bin/smpirun"; then
    echo "bench/pack.sh: smpirun does not start $SMPIMAIN: SMPI not packed" >&2
    smpi=0
    rm -f "$DIR/bin/smpirun" "$DIR/bin/smpimain" "$DIR/bin/smpi_allreduce"
  fi
else
  rm -f "$DIR/bin/smpi_allreduce" "$DIR/smpicc.log"
fi
# every library each binary loads (ldd's "name => path"), and the loader
loader=
bins=("$DIR/bin/ccsim" "$DIR/bin/s4u_ring" "$DIR/bin/time")
[ $smpi = 1 ] && bins+=("$DIR/bin/smpimain" "$DIR/bin/smpi_allreduce")
for b in "${bins[@]}"; do
  ldd "$b" | while read -r name arrow path _; do
    if [ "$arrow" = "=>" ] && [ "${path#/}" != "$path" ]; then echo "$path"; fi
    case $name in /*ld-linux*) echo "$name" ;; esac
  done
done | sort -u >"$DIR/libs.txt"
while read -r f; do
  cp -L "$f" "$DIR/lib/"
  case $f in */ld-linux*) loader=$(basename "$f") ;; esac
done <"$DIR/libs.txt"
rm "$DIR/libs.txt"
[ -n "$loader" ] || { echo "bench/pack.sh: ldd named no dynamic loader for $BUILD/src/ccsim" >&2; exit 1; }
# the loader's name is written into the wrappers: a plain file name or nothing
case $loader in *[!A-Za-z0-9._-]*)
  echo "bench/pack.sh: the dynamic loader's name $loader is not a plain file name" >&2
  exit 1 ;;
esac
wrap() { # wrapper, binary, the wrapper's depth below DIR
  local up=""
  for _ in $(seq 1 "$3"); do up="$up/.."; done
  cat >"$1" <<EOF
#!/bin/sh
# bench/pack.sh's wrapper: $2 through the packed loader and libraries
D=\$(dirname "\$(readlink -f "\$0")")$up
exec "\$D/lib/$loader" --library-path "\$D/lib" "\$D/bin/$2" "\$@"
EOF
  chmod +x "$1"
}
wrap "$DIR/build/src/ccsim" ccsim 2
wrap "$DIR/build/tests/s4u_ring" s4u_ring 2
wrap "$DIR/time" time 0
if [ $smpi = 1 ]; then # smpirun, its smpimain started through the loader (smpirun's -wrapper)
  cat >"$DIR/smpirun" <<EOF
#!/bin/sh
# bench/pack.sh's wrapper: SimGrid's smpirun, its smpimain the pack's, through the packed loader
D=\$(dirname "\$(readlink -f "\$0")")
# smpirun splits its -wrapper into words: a pack under a path with blanks is refused, not split
case \$D in *[[:space:]]*) echo "bench/pack.sh's smpirun: the pack's path holds a blank, which smpirun's -wrapper would split: \$D" >&2; exit 2 ;; esac
export SMPI_PACK="\$D"
exec sh "\$D/bin/smpirun" -wrapper "\$D/lib/$loader --library-path \$D/lib" "\$@"
EOF
  chmod +x "$DIR/smpirun"
fi
du -sh "$DIR" | awk '{ print "bench/pack.sh: " $2 ": " $1 }'
