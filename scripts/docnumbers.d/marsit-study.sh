# numbers: full
# workloads/papers/marsit/README.md "Results": the whole study (bash
# workloads/papers/marsit/run.sh: 8 and 16 workers, seeds 4-7, 100
# iterations, 40 runs) under comm.model "ideal", its tables, and its time
# claims under "ideal" and "nccl". The nccl times: the training is the same
# bytes under both models (the data never depend on the communication model,
# docs/comm-model.md) and every method's iteration takes the same simulated
# time at every iteration (fixed-size payloads, fixed compute: checked below
# on every ideal run, and on each nccl run), so each method's nccl time to a
# target is its iterations to the target times its nccl time per iteration,
# measured by a 2-iteration run under nccl of the same method and worker
# count. About 5 CPU minutes.
set -eu
P="$SRC/workloads/papers/marsit"
JOBS=2 bash "$P/run.sh" "$CCSIM" "$WORK/ideal" >"$WORK/log-ideal" 2>&1 || { tail -20 "$WORK/log-ideal" >&2; exit 1; }
for w in 8 16; do
  rows=2
  [ "$w" -ge 16 ] && rows=4
  for m in fp32-ring fp32-torus marsit-ring marsit-torus sign-ring; do
    extra=()
    case $m in *-torus) extra=(--set collective.rows=$rows) ;; esac
    "$CCSIM" run --quiet "$P/$m.json" --set seed=4 --set workers=$w --set iterations=2 --set train.eval_every=2 \
      --set platform.hosts_per_rack=$((w / 2)) "${extra[@]}" --set comm.model=nccl --out "$WORK/nccl/w$w/$m" \
      >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  done
done
/usr/bin/python3 - "$WORK" "$P" <<'PY'
import csv, json, math, os, sys
work, here = sys.argv[1], sys.argv[2]
sys.path.insert(0, here)
import analyze  # noqa: E402  (workloads/papers/marsit/analyze.py)
I = json.load(open(os.path.join(work, "ideal", "claims.json")))
print(open(os.path.join(work, "ideal", "table.md")).read().replace("### ", "#### ").rstrip())
print()
def per_iter(d):
    """The run's simulated seconds per iteration; exit unless every iteration took it."""
    t = [float(r["time_s"]) for r in csv.DictReader(open(os.path.join(d, "iterations.csv")))]
    if max(t) - min(t) > 1e-9 * max(t):
        sys.exit(f"marsit-study: {d}: iterations of different times ({min(t)} to {max(t)} s)")
    return t[0]
# the nccl time per iteration of each (workers, method), and the scale ideal -> nccl
scale, ideal = {}, {}
for w in I:
    for m in analyze.METHODS:
        tn = per_iter(os.path.join(work, "nccl", f"w{w}", m))
        ideal[(w, m)] = per_iter(os.path.join(work, "ideal", f"w{w}", "seed4", m))
        scale[(w, m)] = tn / ideal[(w, m)]
class NcclRun(analyze.Run):
    """An ideal run's trajectory, timed at the nccl time per iteration of its method."""
    def __init__(self, d):
        super().__init__(d)
        parts = os.path.normpath(d).split(os.sep)
        key = (parts[-3][1:], parts[-1])
        if abs(per_iter(d) - ideal[key]) > 1e-9 * ideal[key]:  # the same at every seed, as at seed 4
            sys.exit(f"marsit-study: {d}: another time per iteration than seed 4's")
        f = scale[key]
        self.time = [t * f for t in self.time]
        self.sim_time *= f
analyze.Run = NcclRun
N = {w: analyze.analyse(os.path.join(work, "ideal", f"w{w}"))[1] for w in I}
pct = lambda x: "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.1f}%"
def saved(C, w, m, t):
    e = C[w]["methods"][m]
    return f"{pct(e['saved_' + t])} ({e['pairs_' + t]}/{len(e['seeds'])})"
def per_it(C, w, m, base):
    e, b = C[w]["methods"][m], C[w]["methods"][base]
    return f"{e['ms_per_iteration']:.3f} vs {b['ms_per_iteration']:.3f} ms ({pct(1 - e['ms_per_iteration'] / b['ms_per_iteration'])})"
num = lambda x: math.nan if x is None else x
print("Time claims under both communication models (the same runs' accuracy; seeds where both reached the target in brackets):")
print()
print("| claim: Marsit (reconstructed compensation) trains faster | the paper | workers | ccsim ideal | ccsim nccl |")
print("|---|---|---|---|---|")
rows = []
for w in sorted(I, key=int):
    t = I[w]["targets"]
    for m, base, topo in (("marsit-ring", "fp32-ring", "ring"), ("marsit-torus", "fp32-torus", "torus")):
        rows.append((f"time saved vs fp32 over the {topo} to fp32's accuracy minus a point ({t['same']:.4f})",
                     "up to 35% (abstract, arXiv 2204.06787)", w, saved(I, w, m, "same"), saved(N, w, m, "same"),
                     (num(I[w]["methods"][m]["saved_same"]), num(N[w]["methods"][m]["saved_same"]))))
        rows.append((f"time saved vs fp32 over the {topo} to {t['common']:.2f} (every run reaches it)",
                     "up to 35%", w, saved(I, w, m, "common"), saved(N, w, m, "common"),
                     (num(I[w]["methods"][m]["saved_common"]), num(N[w]["methods"][m]["saved_common"]))))
        rows.append((f"ms per iteration, Marsit vs fp32 over the {topo}", "-", w, per_it(I, w, m, base),
                     per_it(N, w, m, base), None))
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |")
print()
moved = []
for r in rows:
    if r[5] is None or any(math.isnan(x) for x in r[5]):
        continue
    a, b = r[5]
    if (a > 0.005) != (b > 0.005):
        moved.append(f"{r[0]} at {r[2]} workers ({pct(a)} → {pct(b)})")
print("Time savings that change sign under nccl (faster ↔ not faster, 0.5% margin): "
      + ("; ".join(moved) if moved else "none") + ".")
PY
