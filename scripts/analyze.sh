#!/usr/bin/env bash
# scripts/analyze.sh SRCDIR [cppcheck|gcc-analyzer BUILDDIR] — static analysis
# of src/ and compressors/ (docs/testing.md).
#   cppcheck: warnings and portability, with scripts/cppcheck.supp (each
#     suppression says why); prints the findings, exits 1 if there are any;
#   gcc-analyzer BUILDDIR: configures BUILDDIR with -fanalyzer (once), builds
#     the libraries and the binary, prints the -Wanalyzer-* warnings and
#     their count (slow: minutes per file on a loaded machine).
set -u
SRC=$(realpath "$1")
WHAT=${2:-cppcheck}
cd "$SRC" || exit 2
case $WHAT in
cppcheck)
  command -v cppcheck >/dev/null || { echo "analyze: cppcheck not installed: skipped"; exit 77; }
  out=$(cppcheck -q --enable=warning,portability --inline-suppr --suppressions-list=scripts/cppcheck.supp \
    -I src -I compressors -D__GNUC__ -D__BYTE_ORDER__=1234 -D__ORDER_LITTLE_ENDIAN__=1234 \
    --suppress=missingIncludeSystem --template='{file}:{line}: {severity}: {message} [{id}]' \
    src compressors 2>&1)
  if [ -n "$out" ]; then echo "$out"; echo "cppcheck: $(grep -c . <<<"$out") finding(s)"; exit 1; fi
  echo "cppcheck: clean (src/ and compressors/, scripts/cppcheck.supp applied)" ;;
gcc-analyzer)
  B=${3:?gcc-analyzer needs a build directory}
  [ -f "$B/build.ninja" ] || meson setup "$B" -Dc_args=-fanalyzer >/dev/null || exit 2
  ninja -C "$B" -k 0 src/ccsim 2>&1 | grep -E 'warning: .*\[-Wanalyzer' | sort -u | tee "$B/analyzer.txt"
  echo "gcc -fanalyzer: $(grep -c . "$B/analyzer.txt") warning(s)" ;;
*) echo "analyze: unknown analysis $WHAT" >&2; exit 2 ;;
esac
