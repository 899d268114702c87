#!/usr/bin/env bash
# tests/trace_torch.sh TEST_TRACE SRCDIR — gradient traces between PyTorch and ccsim.
#  1. analysis/record_trace.py records a real data-parallel training run
#     (4 workers x 3 iterations); ccsim's reader (test_trace --dump, irregular
#     ranges) returns exactly the bits numpy wrote, and refuses a truncated copy;
#  2. the recording is deterministic under a seed, the workers' gradients differ
#     (own shards) and training works: 50 iterations lower the loss and beat
#     chance on held-out digits;
#  3. numpy reads the trace ccsim's writer writes, and re-saving it with numpy
#     gives the same bytes.
# Needs python3-torch and python3-numpy: fails (does not skip) without them.
set -u
TT=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the interpreter, chosen as analysis/py chooses it: Debian's first
PY=""
for py in /usr/bin/python3 python3; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c "import torch, numpy" 2>/dev/null; then
    PY=$py
    break
  fi
done
[ -n "$PY" ] || { echo "FAIL: no Python with torch and numpy; run scripts/install-deps.sh (python3-torch)"; exit 1; }
REC="$SRC/analysis/record_trace.py"
fail=0
no() { echo "FAIL: $*"; fail=1; }

# 1. bits in = bits out
"$PY" "$REC" --out "$T/a" --workers 4 --iterations 3 --batch 16 --seed 3 >"$T/a.log" ||
  { echo "FAIL: record_trace.py failed"; exit 1; }
"$TT" --dump "$T/a" "$T/a.f4" || { echo "FAIL: ccsim refuses the recorded trace"; exit 1; }
"$PY" - "$T/a" "$T/a.f4" <<'PYEOF' || no "ccsim's reader and numpy disagree on the recorded trace"
import json, sys
import numpy as np
d, dump = sys.argv[1], sys.argv[2]
ix = json.load(open(f"{d}/index.json"))
W, T, N = ix["workers"], ix["iterations"], ix["elements"]
assert (W, T) == (4, 3), (W, T)
assert N == sum(l["count"] for l in ix["layers"]) == 38282, N
got = np.fromfile(dump, dtype="<u4")
assert got.size == W * T * N, got.size
g = {}
for w in range(W):
    for it in range(T):
        a = np.load(f"{d}/w{w}/it{it}.npy")
        assert a.dtype == np.dtype("<f4") and a.shape == (N,), (a.dtype, a.shape)
        k = (w * T + it) * N
        if not np.array_equal(a.view("<u4"), got[k:k + N]):
            sys.exit(f"w{w}/it{it}.npy: ccsim read other bits than numpy wrote")
        g[w, it] = a.astype(np.float64)
for it in range(T):
    for w in range(W):
        # own shards: no two workers' gradients alike, none zero
        assert np.linalg.norm(g[w, it]) > 0, (w, it)
        assert all(not np.array_equal(g[w, it], g[v, it]) for v in range(w)), (w, it)
print(f"ccsim read {W}x{T}x{N} values bit for bit as numpy wrote them")
PYEOF
cp -r "$T/a" "$T/trunc"
truncate -s -4 "$T/trunc/w3/it2.npy"
if "$TT" --check "$T/trunc" 2>"$T/trunc.err"; then
  no "a truncated trace was accepted"
else
  grep -q "w3/it2.npy: worker 3, iteration 2: truncated" "$T/trunc.err" ||
    no "truncation message: $(cat "$T/trunc.err")"
fi

# 2. determinism and real training
"$PY" "$REC" --out "$T/b" --workers 4 --iterations 3 --batch 16 --seed 3 >/dev/null || no "second recording failed"
diff -r "$T/a" "$T/b" >/dev/null || no "two recordings with one seed differ"
"$PY" "$REC" --out "$T/long" --workers 4 --iterations 50 --seed 1 >"$T/long.log" || no "50-iteration recording failed"
"$TT" --check "$T/long" >/dev/null || no "ccsim refuses the 50-iteration trace"
awk '
  /^iteration/ { loss[$2] = $4; n++ }
  /^held-out accuracy/ { acc = $3 }
  END {
    for (i = 0; i < 5; i++) { a += loss[i]; b += loss[n - 1 - i] }
    printf "loss %.3f -> %.3f over %d iterations, held-out accuracy %s\n", a / 5, b / 5, n, acc
    exit !(n == 50 && b < 0.7 * a && acc > 0.5)
  }' "$T/long.log" || no "50 iterations of data-parallel SGD did not train (want loss down 30%, accuracy > 0.5)"

# 3. ccsim writes, numpy reads
"$TT" --write "$T/c" || no "ccsim's writer failed"
"$TT" --dump "$T/c" "$T/c.f4" || no "ccsim refuses its own trace"
"$PY" - "$T/c" "$T/c.f4" <<'PYEOF' || no "numpy does not read ccsim's trace as written"
import io, json, sys
import numpy as np
d, dump = sys.argv[1], sys.argv[2]
ix = json.load(open(f"{d}/index.json"))
W, T, N = ix["workers"], ix["iterations"], ix["elements"]
got = np.fromfile(dump, dtype="<u4")
for w in range(W):
    for it in range(T):
        raw = open(f"{d}/w{w}/it{it}.npy", "rb").read()
        a = np.load(io.BytesIO(raw))
        b = io.BytesIO()
        np.save(b, a)
        assert b.getvalue() == raw, f"w{w}/it{it}.npy: numpy.save writes other bytes"
        k = (w * T + it) * N
        assert np.array_equal(a.view("<u4"), got[k:k + N]), f"w{w}/it{it}.npy"
print(f"numpy read ccsim's {W}x{T}x{N} trace; numpy.save gives the same bytes")
PYEOF
[ $fail -eq 0 ] && echo "trace-torch: PyTorch traces replay bit for bit; truncation refused"
exit $fail
