#!/usr/bin/env python3
"""scripts/heldout_timing.py CCSIM SEED COUNT [OUTDIR] -- held-out checks of
the analytical timing path: COUNT random experiments (seeded by SEED), each
run with --timing auto and --timing simgrid and compared by
tests/timing_compare.py (every simulated time within 1e-9 relative, every
data result byte for byte).  An experiment draws a collective (all of
`ccsim list collectives`' built-ins), a compressor the collective takes (with
its error feedback where it wants one), a worker count, a platform (crossbar,
fat-tree with over-subscription, torus, cloud racks, multi-GPU nodes,
dragonfly, shipped files), a size, 1-3 iterations, and memo off, 1 or 2
threads.  One line an experiment (the paths each mode took), then
"heldout: N experiments, N differ, N failed to run"; exit 1 when any differs
or fails.  Not a test of the suite: tests/timing_paths.sh is; this is for a
reviewer who wants cases nobody chose (bench/README.md, fifteenth round).

With --ring-forward (anywhere among the arguments) every experiment is a ring
all-reduce, run twice with --timing auto: as ccsim runs it, and with
CCSIM_RING_FORWARD=1 (every all-gather payload forwarded, not only recorded:
docs/engine.md), compared the same way (bench/README.md, seventeenth round).

With --against OTHER (another build's ccsim) each experiment runs once with
each binary, both --timing auto (or --timing simgrid where --simgrid is
given), compared the same way: a change that must not move a result
(bench/README.md, nineteenth round).  With --ring-forward as well, the
experiments are of the collectives built on rings (ring, torus,
hierarchical all-reduce, ring all-gather), without CCSIM_RING_FORWARD."""
import json, os, random, shutil, subprocess, sys, tempfile

FORWARD = "--ring-forward" in sys.argv
if FORWARD:
    sys.argv.remove("--ring-forward")
AGAINST = None
if "--against" in sys.argv:
    i = sys.argv.index("--against")
    if i + 1 >= len(sys.argv):
        sys.exit("heldout_timing.py: --against needs another build's ccsim")
    AGAINST = sys.argv[i + 1]
    del sys.argv[i:i + 2]
SIMGRID = "--simgrid" in sys.argv
if SIMGRID:
    sys.argv.remove("--simgrid")
if len(sys.argv) < 4:
    sys.exit("usage: heldout_timing.py CCSIM SEED COUNT [OUTDIR] [--ring-forward] [--against OTHER [--simgrid]]")
CCSIM, SEED, COUNT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(SRC, "tests", "golden", "small.json")
COMPARE = os.path.join(SRC, "tests", "timing_compare.py")
OUT = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(prefix="heldout-")
MADE = len(sys.argv) <= 4  # a temporary of its own: removed when nothing is left to look at
rng = random.Random(SEED)
SUMMABLE = ["none", "fp16", "bf16", "randomk", "s2-sketch", "global-qsgd", "marsit"]
ANY = SUMMABLE + ["topk", "threshold", "sbc", "stc", "signsgd", "onebit", "terngrad", "qsgd", "natural",
                  "sign-ring", "dgc", "ef-signsgd"]
NEEDS_SUMMABLE = ["allreduce/ring", "allreduce/tree", "allreduce/rhd", "allreduce/torus2d", "allreduce/hierarchical"]
COLLECTIVES = NEEDS_SUMMABLE + ["allreduce/ring-recompress", "allgather/ring", "allgather/rd", "ps",
                                "allreduce/sparcml", "allreduce/omnireduce"]
MEMORY = {"topk": "residual", "sbc": "residual", "onebit": "residual", "threshold": "residual",
          "dgc": "dgc", "ef-signsgd": "ef-sign"}


def platform(n):
    kind = rng.choice(["crossbar", "fat-tree", "torus", "cloud", "multigpu", "dragonfly", "file"])
    bw = rng.choice(["1Gbps", "10Gbps", "25Gbps", "100Gbps"])
    lat = rng.choice(["1us", "5us", "50us"])
    if kind == "crossbar":
        return {"generate": "crossbar", "bandwidth": bw, "latency": lat}
    if kind == "fat-tree":
        a = 4 if n <= 16 else 8
        return {"generate": "fat-tree", "down": [a, max(2, -(-n // a))], "up": [1, rng.choice([1, 2, a])],
                "parallel": [1, 1], "bandwidth": bw, "latency": lat}
    if kind == "torus":
        d = 2
        while d * d < n:
            d += 1
        return {"generate": "torus", "dims": [d, d], "bandwidth": bw, "latency": lat}
    if kind == "cloud":
        return {"generate": "cloud", "racks": 2, "hosts_per_rack": -(-n // 2),
                "oversubscription": rng.choice([1, 2, 4]), "bandwidth": bw}
    if kind == "multigpu":
        return {"generate": "multigpu", "nodes": -(-n // 4), "gpus_per_node": 4}
    if kind == "dragonfly":
        return {"generate": "dragonfly", "groups": 3, "chassis": 3, "routers": 4, "nodes_per_router": 2}
    return rng.choice(["dgx1-4x8", "fat-tree-64", "torus-4x4x4", "cloud-4racks", "cluster-backbone-80"])


def run(args, env=None, ccsim=None):
    return subprocess.run([ccsim or CCSIM, "run", BASE, "--quiet"] + args, capture_output=True, text=True,
                          env=dict(os.environ, **env) if env else None)


# the two ways each experiment runs: (name, extra arguments, environment, binary)
if AGAINST:
    T = ["--timing", "simgrid" if SIMGRID else "auto"]
    DATA = {"CCSIM_DATA": SRC}  # both read this tree's platforms and data: the same input paths
    MODES = [("this", T, DATA, CCSIM), ("other", T, DATA, AGAINST)]
elif FORWARD:
    MODES = [("unread", ["--timing", "auto"], None, CCSIM), ("forward", ["--timing", "auto"], {"CCSIM_RING_FORWARD": "1"}, CCSIM)]
else:
    MODES = [("auto", ["--timing", "auto"], None, CCSIM), ("simgrid", ["--timing", "simgrid"], None, CCSIM)]
RINGS = ["allreduce/ring", "allreduce/torus2d", "allgather/ring", "allreduce/hierarchical"]


differ = failed = 0
for i in range(COUNT):
    coll = (rng.choice(RINGS) if AGAINST else "allreduce/ring") if FORWARD else rng.choice(COLLECTIVES)
    comp = rng.choice(SUMMABLE if coll in NEEDS_SUMMABLE else ANY)
    n = rng.choice([2, 4, 8, 16, 32]) if coll == "allgather/rd" else rng.choice([2, 3, 4, 5, 8, 12, 16, 24, 32])
    c = {"name": coll}
    if coll == "allreduce/torus2d":
        c["rows"] = rng.choice([r for r in range(1, n + 1) if n % r == 0])
    if coll == "allreduce/hierarchical":
        c["node_size"] = rng.choice([r for r in range(1, n + 1) if n % r == 0])
    if coll in ("ps", "allreduce/omnireduce"):
        c["servers"] = rng.choice([0, 1, 2])
    cp = {"name": comp}
    if comp in MEMORY:
        cp["memory"] = MEMORY[comp]
    elif comp == "marsit" and rng.random() < 0.5:
        cp["memory"] = "marsit"
    p = platform(n)
    args = ["--set", f"workers={n}", "--set", "collective=" + json.dumps(c), "--set", "compressor=" + json.dumps(cp),
            "--set", "platform=" + json.dumps(p), "--set", 'model={"elements": %d}' % rng.choice([1000, 4097, 20000, 65536]),
            "--set", f"iterations={rng.choice([1, 2, 3])}"] + rng.choice([[], ["--no-memo"], ["--threads", "1"], ["--threads", "2"]])
    dirs = [os.path.join(OUT, f"{i}-{m[0]}") for m in MODES]
    what = " ".join(a for a in args if a != "--set")
    bad = None
    for d, (m, extra, env, ccsim) in zip(dirs, MODES):
        shutil.rmtree(d, ignore_errors=True)
        r = run(args + ["--out", d] + extra, env, ccsim)
        if r.returncode != 0:
            bad = f"{m}: exit {r.returncode}: {r.stderr.strip()[:300]}"
            break
    if bad:
        failed += 1
        print(f"{i} FAILED {bad} :: {what}", flush=True)
        continue
    cmp = subprocess.run([sys.executable, COMPARE] + dirs, capture_output=True, text=True)
    paths = subprocess.run([sys.executable, COMPARE, "--paths", dirs[0]], capture_output=True, text=True).stdout.split()
    ok = cmp.returncode == 0
    differ += not ok
    print(f"{i} {'same' if ok else 'DIFFER'} ({cmp.stdout.strip()[:200]}); auto timed {paths[2] if len(paths) > 2 else '?'} "
          f"messages analytically, {paths[3] if len(paths) > 3 else '?'} in SimGrid :: {what}", flush=True)
    if ok:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
if MADE and not differ and not failed:
    shutil.rmtree(OUT, ignore_errors=True)
print(f"heldout: {COUNT} experiments, {differ} differ, {failed} failed to run" +
      (f" (kept in {OUT})" if differ or failed else ""))
sys.exit(1 if differ or failed else 0)
