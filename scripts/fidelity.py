#!/usr/bin/python3
"""scripts/fidelity.py — ccsim against published collective-communication
measurements (tests/validation/fidelity/cases.json, docs/fidelity.md).

    scripts/fidelity.py [--ccsim build/src/ccsim] [--cases FILE]
        [--models ideal,nccl] [--jobs 2] [--json results.json] [--check] [--quick]

Every case names a published measurement (an nccl-tests row, a statement in
an NCCL issue thread, a training scaling figure) and the ccsim keys that
model its system with ccsim's own generators.  For each case and each
`comm.model` asked for, ccsim runs one iteration of the case's experiment:
the suite's base (uncompressed allreduce/ring, device none, 1 iteration, seed
1) with the case's keys merged over it; "nccl" adds `--set comm.model=nccl`
and the case's own `comm` keys (e.g. comm.algorithm=ring where the
measurement forced NCCL_ALGO=RING); "ideal" sets no comm key at all (ideal is
the default, and a ccsim without the comm section runs it unchanged).

Compared quantity: time.  nccl-tests cases: ccsim's iteration time (device
none: all of it is the all-reduce) against the measured time.  Training
cases: the measured scaling efficiency e is turned into a measured iteration
time with ccsim's own compute time as the one-GPU basis (compute / e), so the
ratio is e / (compute / iteration_time) and the compute model cancels out.
The error is predicted / measured - 1.

--quick leaves out the cases marked "slow" (the two 512-GPU training cases:
each run takes minutes, the rest of the suite together well under one);
tests/fidelity.sh uses it, the document's run does not.

Prints a markdown table and a summary (geometric mean of |error| over all
cases, the held-out half and the fitted half, per comm.model; |error| is
floored at 1e-4 so that an exact case does not zero the mean).  With
--check, exits 1 when a case run with comm.model "nccl" lies outside its
band, when the held-out geometric mean exceeds the suite's bound, or when a
run fails; 0 otherwise.  A ccsim that refuses comm.model is reported as such
(the NCCL cost layer is missing) and fails the check.

Needs only the Python standard library and a built ccsim.
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOOR = 1e-4

BASE = {
    "seed": 1,
    "iterations": 1,
    "compressor": "none",
    "collective": "allreduce/ring",
    "device": "none",
}


REGIMES = ("latency-bound", "bandwidth-bound", "multi-NIC", "training")


def check_cases(path, doc):
    """Exits (status 2, one line naming the file and the case) when a case
    lacks what the suite needs."""
    def bad(where, what):
        sys.stderr.write("fidelity.py: %s: %s: expected %s\n" % (path, where, what))
        sys.exit(2)
    if not isinstance(doc.get("cases"), list) or not isinstance(doc.get("bands"), dict):
        bad("top level", '"cases" (a list) and "bands" (an object)')
    seen = set()
    for i, c in enumerate(doc["cases"]):
        where = "cases[%d]" % i
        for k in ("id", "source", "quote", "system", "regime", "half", "band", "ccsim"):
            if k not in c:
                bad(where, 'a field "%s"' % k)
        where = "cases[%d] (%s)" % (i, c["id"])
        if c["id"] in seen:
            bad(where, "an id no other case has")
        seen.add(c["id"])
        if c["regime"] not in REGIMES:
            bad(where + ".regime", " or ".join(REGIMES))
        if c["half"] not in ("fitted", "held-out"):
            bad(where + ".half", '"fitted" or "held-out"')
        if not isinstance(c["ccsim"].get("workers"), int):
            bad(where + ".ccsim.workers", "an integer")
        if c["regime"] == "training":
            if not 0 < c.get("measured_efficiency", 0) <= 1:
                bad(where + ".measured_efficiency", "a number in (0, 1]")
        else:
            if not (isinstance(c.get("bytes"), int) and c["bytes"] > 0 and c["bytes"] % 4 == 0):
                bad(where + ".bytes", "a positive whole number of fp32 elements' bytes")
            if not c.get("measured_s", 0) > 0:
                bad(where + ".measured_s", "a positive time in seconds")
        km = c.get("known_miss")
        if km is not None and not (isinstance(km, dict) and isinstance(km.get("error"), (int, float))
                                   and 0 < km.get("tolerance", 0) <= 0.1 and km.get("why")):
            bad(where + ".known_miss", '{"error": the documented relative error, "tolerance": at most 0.1, '
                '"why": the measured reason}')
    if "geomean_held_out" not in doc["bands"]:
        bad("bands", 'a field "geomean_held_out"')


def experiment(case):
    """The case's experiment: BASE with the case's ccsim keys over it (the
    `comm` keys are not part of it; they travel as --set)."""
    keys = {k: v for k, v in case["ccsim"].items() if k != "comm"}
    exp = dict(BASE)
    exp.update(keys)
    exp["name"] = case["id"]
    if "model" not in exp:
        elements = case["bytes"] // 4
        exp["model"] = {"elements": elements}
        if elements > 65536:
            exp["model"]["sample"] = 4096
    return exp


def sets_for(case, model):
    """The --set arguments for one comm.model."""
    if model == "ideal":
        return []
    out = ["comm.model=" + model]
    for k, v in sorted(case["ccsim"].get("comm", {}).items()):
        out.append("comm.%s=%s" % (k, v))
    return out


def run_one(ccsim, case, model, tmp):
    """Runs one case under one comm.model; returns (summary, error text)."""
    d = os.path.join(tmp, "%s.%s" % (case["id"], model))
    os.makedirs(d)
    path = os.path.join(d, "experiment.json")
    with open(path, "w") as f:
        json.dump(experiment(case), f, indent=1)
    cmd = [ccsim, "run", path, "--out", os.path.join(d, "out"), "--quiet", "--threads", "1"]
    for s in sets_for(case, model):
        cmd += ["--set", s]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return None, "exit %d: %s" % (p.returncode, msg[-1] if msg else "")
    with open(os.path.join(d, "out", "summary.json")) as f:
        return json.load(f), None


def probe(ccsim, case):
    """None when ccsim accepts comm.model=nccl for the case's experiment, else
    its message (ccsim validate: no simulation)."""
    with tempfile.TemporaryDirectory(prefix="ccsim-fidelity-probe-") as tmp:
        path = os.path.join(tmp, "experiment.json")
        with open(path, "w") as f:
            json.dump(experiment(case), f)
        cmd = [ccsim, "validate", path]
        for s in sets_for(case, "nccl"):
            cmd += ["--set", s]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode == 0:
            return None
        lines = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return lines[-1] if lines else "exit %d" % p.returncode


def ratio(case, summary):
    """predicted / measured, as times."""
    t = summary["iteration_time_s"]
    if case["regime"] == "training":
        compute = summary["time_breakdown_s"]["compute"]
        if compute <= 0:
            raise ValueError("%s: ccsim charged no compute time" % case["id"])
        predicted_eff = compute / t
        return case["measured_efficiency"] / predicted_eff
    return t / case["measured_s"]


def run_stamp(ccsim):
    """Which tree, binary and command made the results (for docs/fidelity.md)."""
    def git(*args):
        p = subprocess.run(["git", "-C", ROOT] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        return p.stdout.strip() if p.returncode == 0 else ""
    version = subprocess.run([ccsim, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout.strip()
    return {"commit": git("rev-parse", "--short", "HEAD") or "unknown",
            "local_changes": bool(git("status", "--porcelain", "--untracked-files=no")),
            "ccsim": version,
            "command": " ".join(["scripts/fidelity.py"] + [x for x in sys.argv[1:]]),
            "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")}


def geomean_abs(errors):
    if not errors:
        return None
    return math.exp(sum(math.log(max(abs(e), FLOOR)) for e in errors) / len(errors))


def fmt_t(s):
    if s is None:
        return "—"
    if s < 1e-3:
        return "%.2f us" % (s * 1e6)
    if s < 1:
        return "%.3f ms" % (s * 1e3)
    return "%.3f s" % s


def fmt_e(e):
    return "—" if e is None else "%+.1f%%" % (100 * e)


def main():
    ap = argparse.ArgumentParser(description="ccsim against published NCCL measurements.")
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "src", "ccsim"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "tests", "validation", "fidelity", "cases.json"))
    ap.add_argument("--models", default="ideal,nccl", help="comma-separated comm.model values")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the results (per case and model) to this file")
    ap.add_argument("--check", action="store_true", help="exit 1 when a nccl case leaves its band")
    ap.add_argument("--quick", action="store_true", help="leave out the cases marked slow")
    a = ap.parse_args()

    stamp = run_stamp(a.ccsim)  # before the runs: the tree they ran from
    try:
        with open(a.cases) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("fidelity.py: %s: %s\n" % (a.cases, e))
        return 2
    check_cases(a.cases, doc)
    cases = doc["cases"]
    models = [m for m in a.models.split(",") if m]
    for m in models:
        if m not in ("ideal", "nccl"):
            sys.exit("fidelity.py: --models: %r is not ideal or nccl" % m)

    if a.check and len(cases) < 20:
        print("FAIL: only %d cases in %s" % (len(cases), a.cases))
        return 1
    if "nccl" in models:
        refused = probe(a.ccsim, cases[0])
        if refused:
            print("this ccsim refuses comm.model=nccl, so the NCCL cost layer (issue 27) is missing: %s" % refused)
            if a.check:
                print("FAIL: nothing to check")
                return 1
            models = [m for m in models if m != "nccl"]

    results = {c["id"]: {} for c in cases}
    failures = []
    with tempfile.TemporaryDirectory(prefix="ccsim-fidelity-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            todo = [(c, m) for c in cases for m in models if not (a.quick and c.get("slow"))]
            # the slow cases first, so that the two jobs end together
            todo.sort(key=lambda cm: not cm[0].get("slow"))
            jobs = {pool.submit(run_one, a.ccsim, c, m, tmp): (c, m) for c, m in todo}
            for fut in concurrent.futures.as_completed(jobs):
                c, m = jobs[fut]
                summary, err = fut.result()
                if err:
                    results[c["id"]][m] = {"error": err}
                    failures.append("%s [%s]: ccsim failed: %s" % (c["id"], m, err))
                    continue
                r = ratio(c, summary)
                results[c["id"]][m] = {"ratio": r, "error": None, "iteration_time_s": summary["iteration_time_s"],
                                       "compute_s": summary["time_breakdown_s"]["compute"],
                                       "host_time_s": summary.get("host_time_s")}

    # table
    head = "| case | regime | half | measured |"
    rule = "|---|---|---|---|"
    for m in models:
        head += " %s | error |" % m
        rule += "---|---|"
    head += " band | in band |"
    rule += "---|---|"
    print(head)
    print(rule)
    errors = {m: {"all": [], "held-out": [], "fitted": []} for m in models}
    by_regime = {}
    out_of_band = []
    known_misses = []
    for c in cases:
        if c["regime"] == "training":
            meas = "eff. %.0f%%" % (100 * c["measured_efficiency"])
        else:
            meas = fmt_t(c["measured_s"])
        row = "| %s | %s | %s | %s |" % (c["id"], c["regime"], c["half"], meas)
        verdict = "—"
        for m in models:
            res = results[c["id"]].get(m)
            if res is None:
                row += " skipped | — |"
                continue
            if res.get("error"):
                row += " failed | — |"
                continue
            e = res["ratio"] - 1
            res["rel_error"] = e
            if c["regime"] == "training":
                shown = "eff. %.1f%%" % (100 * res["compute_s"] / res["iteration_time_s"])
            else:
                shown = fmt_t(res["iteration_time_s"])
            row += " %s | %s |" % (shown, fmt_e(e))
            errors[m]["all"].append(e)
            errors[m][c["half"]].append(e)
            by_regime.setdefault((m, c["regime"]), []).append(e)
            if m == "nccl":
                ok = abs(e) <= c["band"]
                verdict = "yes" if ok else "**no**"
                km = c.get("known_miss")
                if not ok and km and abs(e - km["error"]) <= km["tolerance"]:
                    # outside the target band, as documented (docs/fidelity.md says why);
                    # the test still fails if it moves from its documented error
                    verdict = "**no** (documented)"
                    known_misses.append("%s: %+.1f%% (documented %+.1f%% ± %.0f points: %s)" % (
                        c["id"], 100 * e, 100 * km["error"], 100 * km["tolerance"], km["why"]))
                elif not ok:
                    out_of_band.append("%s: %+.1f%% outside its %s band of %.0f%%%s" % (
                        c["id"], 100 * e, c["regime"], 100 * c["band"],
                        " (documented %+.1f%%, moved)" % (100 * km["error"]) if km else ""))
        row += " %.0f%% | %s |" % (100 * c["band"], verdict)
        print(row)

    print()
    bound = doc["bands"]["geomean_held_out"]
    summary = {}
    for m in models:
        g = {k: geomean_abs(v) for k, v in errors[m].items()}
        summary[m] = g
        print("%-6s geomean |error|: all %s (%d), held-out %s (%d), fitted %s (%d)" % (
            m, "—" if g["all"] is None else "%.1f%%" % (100 * g["all"]), len(errors[m]["all"]),
            "—" if g["held-out"] is None else "%.1f%%" % (100 * g["held-out"]), len(errors[m]["held-out"]),
            "—" if g["fitted"] is None else "%.1f%%" % (100 * g["fitted"]), len(errors[m]["fitted"])))
        for (mm, reg), es in sorted(by_regime.items()):
            if mm == m:
                print("%-6s   %-16s geomean %.1f%%, worst %+.1f%% (%d cases)" % (
                    "", reg, 100 * geomean_abs(es), 100 * max(es, key=abs), len(es)))

    if a.json:
        with open(a.json, "w") as f:
            json.dump({"run": stamp, "models": models, "summary": summary, "results": results,
                       "out_of_band": out_of_band, "known_misses": known_misses, "failures": failures},
                      f, indent=1)

    for line in failures:
        print("FAILED RUN " + line)
    for line in known_misses:
        print("DOCUMENTED MISS " + line)
    if not a.check:
        return 0
    bad = list(failures)
    if "nccl" not in models:
        bad.append("--check needs comm.model nccl among --models")
    else:
        bad += ["OUT OF BAND " + s for s in out_of_band]
        gh = summary["nccl"]["held-out"]
        if gh is not None and gh > bound:
            bad.append("held-out geomean |error| %.1f%% above %.0f%%" % (100 * gh, 100 * bound))
    for line in bad:
        print("FAIL: " + line)
    if bad:
        return 1
    print("ok: every nccl case within its band (%d documented misses, at their documented errors), held-out "
          "geomean |error| within %.0f%%" % (len(known_misses), 100 * bound))
    return 0


if __name__ == "__main__":
    sys.exit(main())
