#!/usr/bin/env bash
# tests/numbers_fresh.sh CCSIM SRCDIR — every quick block of generated
# numbers in the README and docs is what the build under test makes
# (scripts/docnumbers.py --check --quick): a change that moves a shipped
# number fails here until `scripts/docnumbers.py --quick` regenerates it.
# Then the checker itself: a block edited by hand is reported stale.
set -u
CCSIM=$(readlink -f "$1")
SRC=$(readlink -f "$2")
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
$PY "$SRC/scripts/docnumbers.py" --ccsim "$CCSIM" --check --quick || exit 1
# the checker must see a hand edit: a copy of the tree with one digit changed
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src/scripts"
cp -r "$SRC/scripts/docnumbers.d" "$SRC/scripts/docnumbers.py" "$T/src/scripts/"
cp -r "$SRC/workloads" "$SRC/tests" "$T/src/"
cp -r "$SRC/docs" "$T/src/"
cp "$SRC/README.md" "$T/src/"
# the quickstart block says "5 iterations" in its setup line: make it 6
sed -i '/<!-- numbers:quickstart -->/,/<!-- \/numbers:quickstart -->/ s/elements, 5 iterations/elements, 6 iterations/' "$T/src/README.md"
grep -q 'elements, 6 iterations' "$T/src/README.md" || { echo "FAIL: the hand edit did not apply"; exit 1; }
$PY "$T/src/scripts/docnumbers.py" --ccsim "$CCSIM" --check quickstart >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'block quickstart is stale' "$T/out" || { echo "FAIL: a hand-edited block was not reported stale (exit $rc)"; cat "$T/out"; exit 1; }
echo "numbers: the quick blocks are fresh, and a hand edit is caught"
