#!/usr/bin/env bash
# scripts/kjv-corpus.sh [OUT] — the King James Bible as plain text, one verse
# a line, for dataset "corpus-text" (src/train/corpus.c) and the language
# model of analysis/record_trace.py.  Debian's bible-kjv-text ships the text
# in the bible program's own compressed format (/usr/lib/bible.data), so the
# program (package bible-kjv) prints every verse, Genesis 1:1 to Revelation
# 22:21, one per line (-l: a line width no verse reaches); the chapter
# headings ("1 Samuel 3") are dropped and each verse loses its number.  The
# output is the same on every machine (docs/training.md gives its checksum).
# OUT: /usr/local/share/ccsim/kjv.txt by default.
set -eu
out=${1:-/usr/local/share/ccsim/kjv.txt}
command -v bible >/dev/null || { echo "kjv-corpus.sh: the bible program is missing (apt-get install bible-kjv bible-kjv-text)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
# verse lines are indented "  N text"; headings start in column 1
bible -l 100000 gen1:1-rev22:21 | sed -n 's/^ \{1,\}[0-9]\{1,\} //p' >"$tmp"
n=$(wc -l <"$tmp")
[ "$n" -eq 31102 ] || { rm -f "$tmp"; echo "kjv-corpus.sh: $n verses, expected 31102" >&2; exit 1; }
mv "$tmp" "$out"
