#!/usr/bin/env bash
# tests/floors.sh SRCDIR — the folders of src/ stand in floors: the include
# graph between folders has no cycle (scripts/floors.py, which prints the
# cycle when there is one), and every include names its folder from the
# one include root (scripts/includes.py --check).  Then the checkers
# themselves, on a copy of the tree: an include back up is a cycle, a flat
# include is refused by the check and rewritten by includes.py (twice:
# nothing more the second time), and a name two files answer is refused.
set -u
SRC=$(readlink -f "$1")
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

$PY "$SRC/scripts/floors.py" "$SRC" || fail "the tree's folders include each other (above)"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp -r "$SRC/src" "$SRC/compressors" "$SRC/scripts" "$T/"
$PY "$T/scripts/floors.py" "$T" 2>/dev/null || fail "a copy of the tree does not pass"

# an include from the floor the collectives stand on back up into the run
cp "$T/src/comm/comm.h" "$T/comm.h.orig"
sed -i 's|#include <stdint.h>|#include <stdint.h>\n#include "sim/run.h"|' "$T/src/comm/comm.h"
out=$($PY "$T/scripts/floors.py" "$T" 2>&1)
rc=$?
[ $rc = 1 ] || fail "comm/ including sim/run.h: exit $rc, expected 1"
echo "$out" | grep -q "folders include each other: .*comm -> sim" || fail "the cycle through comm -> sim not printed: $out"
echo "$out" | grep -q "src/comm/comm.h:[0-9]*: #include \"sim/run.h\"" || fail "the include making comm -> sim not named: $out"
cp "$T/comm.h.orig" "$T/src/comm/comm.h"

# a flat include: refused by the check, rewritten once by includes.py
sed -i 's|#include "sim/exec.h"|#include "exec.h"|' "$T/src/sim/exec.c"
grep -q '#include "exec.h"' "$T/src/sim/exec.c" || fail "test set-up: exec.c does not include sim/exec.h"
out=$($PY "$T/scripts/floors.py" "$T" 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "src/sim/exec.c: an include does not name its folder" ||
  fail "a flat include passed the check: $out"
out=$($PY "$T/scripts/includes.py" "$T")
[ "$out" = "includes.py: 1 file(s) rewritten" ] || fail "includes.py on one flat include: $out"
grep -q '#include "sim/exec.h"' "$T/src/sim/exec.c" || fail "includes.py did not write sim/exec.h"
out=$($PY "$T/scripts/includes.py" "$T")
[ "$out" = "includes.py: 0 file(s) rewritten" ] || fail "includes.py run twice changed more: $out"
$PY "$T/scripts/floors.py" "$T" 2>/dev/null || fail "the rewritten copy does not pass"

# a name two files answer is refused, and nothing is written
cp "$T/src/sim/run.h" "$T/src/data/run.h"
sed -i 's|#include "sim/run.h"|#include "run.h"|' "$T/src/sim/run.c"
cp "$T/src/cli/run.c" "$T/run.c.orig"
sed -i 's|#include "sim/run.h"|#include "run.h"|' "$T/src/cli/run.c"
out=$($PY "$T/scripts/includes.py" "$T" 2>&1)
rc=$?
[ $rc = 2 ] || fail "an ambiguous include: exit $rc, expected 2"
echo "$out" | grep -q 'src/cli/run.c:[0-9]*: #include "run.h": several files: src/data/run.h, src/sim/run.h' ||
  fail "the ambiguity not named with its candidates: $out"
grep -q '#include "run.h"' "$T/src/cli/run.c" || fail "a refused run wrote a file"

[ $fails = 0 ] && echo "floors: OK" || { echo "floors: $fails failure(s)"; exit 1; }
