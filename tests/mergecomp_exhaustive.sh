#!/usr/bin/env bash
# tests/mergecomp_exhaustive.sh CCSIM SRCDIR — MergeComp's search
# (src/timemodel/schedule.c) finds the best partition of a small model.
#
# tests/data/mergecomp_small.json: 6 layers (sizes 50 K to 4 M, per-call
# costs of the measured H100, fp16 over a ring on 8 PCIe GPUs).  Every
# partition into 1, 2 or 3 groups of consecutive layers (1 + 5 + 10 = 16) is
# run on its own with the "fixed" schedule; MergeComp with groups 3 and a
# budget of 64 probes must search them all (exhaustive: true, 16 probes) and
# run the fastest from then on.  Asserted: the partition it settles on has the
# least iteration time of the 16 fixed runs (the simulator is deterministic:
# equal to the 10 digits iterations.csv keeps), each probe took the time its
# fixed run takes, and with a
# budget of 6 probes (a grid of 3 positions, then a binary search) it stops
# within its budget and keeps the fastest partition it measured.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
X="$SRC/tests/data/mergecomp_small.json"
run() { # name iterations schedule
  "$CCSIM" run "$X" --quiet --out "$T/$1" --set iterations="$2" --set "schedule=$3" >/dev/null 2>"$T/$1.err" ||
    { echo "run $1 failed:"; cat "$T/$1.err"; exit 1; }
}
run single 1 '{"kind": "single"}'
for a in 1 2 3 4 5; do
  run "c$a" 1 "{\"kind\": \"fixed\", \"cuts\": [$a]}"
  for b in $(seq $((a + 1)) 5); do run "c$a-$b" 1 "{\"kind\": \"fixed\", \"cuts\": [$a, $b]}"; done
done
run search 20 '{"kind": "mergecomp", "groups": 3, "probes": 64}'
run budget 12 '{"kind": "mergecomp", "groups": 3, "probes": 6}'
"$SRC/analysis/py" - "$T" <<'PY'
import csv, glob, json, os, sys
T = sys.argv[1]
def t0(d):
    with open(os.path.join(T, d, "iterations.csv")) as f:
        return [float(r["time_s"]) for r in csv.DictReader(f)]
fixed = {}
for d in [os.path.basename(p) for p in glob.glob(os.path.join(T, "*")) if os.path.isdir(p)]:
    if d == "single":
        fixed[()] = t0(d)[0]
    elif d.startswith("c"):
        fixed[tuple(int(x) for x in d[1:].split("-"))] = t0(d)[0]
best = min(fixed.values())
argmin = sorted(k for k, v in fixed.items() if v == best)
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok
s = json.load(open(os.path.join(T, "search", "summary.json")))["schedule"]
chosen = tuple(s["best_cuts"])
check(len(fixed) == 16, f"{len(fixed)} fixed partitions run")
check(s["search_finished"] and s["exhaustive"] and s["probes"] == 16,
      f"search: finished {s['search_finished']}, exhaustive {s['exhaustive']}, {s['probes']} probes")
check(chosen in argmin, f"chosen cuts {list(chosen)} ({fixed.get(chosen, float('nan')) * 1e3:.4f} ms); "
      f"exhaustive best {[list(a) for a in argmin]} ({best * 1e3:.4f} ms)")
plan = [b["first_layer_backward"] for b in s["buckets"]][1:]
check(tuple(plan) == chosen, f"the plan after the search: cuts {plan}")
check(abs(t0("search")[-1] - best) <= 1e-9 * best, f"last iteration {t0('search')[-1] * 1e3:.4f} ms = the best")
for p in s["log"]:
    k = tuple(p["cuts"])
    if abs(p["iteration_time_s"] - fixed[k]) > 1e-9 * fixed[k]:  # iterations.csv: 10 digits
        check(False, f"probe {list(k)}: {p['iteration_time_s']} s, its fixed run {fixed[k]} s")
print(f"one buffer {fixed[()] * 1e3:.4f} ms, best partition {best * 1e3:.4f} ms "
      f"({fixed[()] / best:.4f}x); the search's single_time_s {s['single_time_s'] * 1e3:.4f} ms")
check(abs(s["single_time_s"] - fixed[()]) <= 1e-9 * fixed[()], "single_time_s is the one-buffer run's")
b = json.load(open(os.path.join(T, "budget", "summary.json")))["schedule"]
fast = min(p["iteration_time_s"] for p in b["log"])
check(b["search_finished"] and not b["exhaustive"] and b["probes"] <= 6 and b["best_time_s"] == fast,
      f"budget 6: finished {b['search_finished']}, exhaustive {b['exhaustive']}, {b['probes']} probes, "
      f"kept {b['best_cuts']} at {b['best_time_s'] * 1e3:.4f} ms (fastest measured {fast * 1e3:.4f} ms)")
sys.exit(bad)
PY
