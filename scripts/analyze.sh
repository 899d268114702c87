#!/usr/bin/env bash
# scripts/analyze.sh SRCDIR [cppcheck|gcc-analyzer BUILDDIR] — static analysis
# of src/ and compressors/ (docs/testing.md).
#   cppcheck: warnings and portability, with scripts/cppcheck.supp (each
#     suppression says why); prints the findings, exits 1 if there are any;
#   gcc-analyzer BUILDDIR: configures BUILDDIR with -fanalyzer (once), builds
#     the libraries and the binary afresh, prints the -Wanalyzer-* warnings
#     that scripts/analyzer.supp does not justify and exits 1 if there are
#     any (or a suppression matches nothing); about 5 minutes on one core.
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
  # every file analysed afresh (a warning is printed only when its file compiles)
  ninja -C "$B" -t clean >/dev/null
  ninja -C "$B" -k 0 src/ccsim >"$B/analyzer.log" 2>&1
  python3 scripts/analyzer_report.py "$B/analyzer.log" scripts/analyzer.supp ;;
*) echo "analyze: unknown analysis $WHAT" >&2; exit 2 ;;
esac
