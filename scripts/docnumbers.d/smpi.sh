# numbers: quick
# README "Against SimGrid SMPI": ccsim's ring all-reduce against SMPI's
# MPI_Allreduce (smpi/allreduce:lr) on the platform ccsim wrote
# (tests/validation/smpi.sh, which asserts 1%; this block prints its table).
set -eu
bash "$SRC/tests/validation/smpi.sh" "$CCSIM" "$SRC" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; exit 1; }
echo '| platform | N | ccsim (s) | SMPI lr (s) | deviation |'
echo '|---|---|---|---|---|'
grep -E '^\| [0-9]+ \|' "$WORK/out" | sed 's/^| /| crossbar 25 Gbps, 5 µs | /; s/| -/| −/'
