#!/usr/bin/python3
"""scripts/fidelity_doc.py — writes the generated parts of docs/fidelity.md:
the case list (from tests/validation/fidelity/cases.json) and the results
table (from a run of scripts/fidelity.py), each between its markers

    <!-- fidelity:cases:begin --> ... <!-- fidelity:cases:end -->
    <!-- fidelity:results:begin --> ... <!-- fidelity:results:end -->

    scripts/fidelity_doc.py [--ccsim build/src/ccsim] [--models ideal,nccl]
        [--jobs 2] [--doc docs/fidelity.md] [--results RUN.json]

It runs scripts/fidelity.py itself (without --check), or takes the --json
file of such a run (--results), and stamps the table with that run's commit,
whether the tree had local changes, the ccsim version and the command, so
that every number in the document comes from one named run.
The text around the markers is left alone.  Exit 1 when a run failed (the
table is still written, with the failure).

Needs only the Python standard library and a built ccsim.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fidelity import fmt_e, fmt_t  # noqa: E402


def size(b):
    if b is None:
        return "—"
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f and b % f == 0:
            return "%d %s" % (b // f, unit)
    return "%d B" % b


def system_text(s):
    parts = ["%d × %s" % (s["gpus"], s["gpu"])]
    if s.get("nodes", 1) > 1:
        parts.append("%d nodes" % s["nodes"])
        if s.get("nics_per_node"):
            parts.append("%d NIC%s/node at %s" % (s["nics_per_node"], "" if s["nics_per_node"] == 1 else "s",
                                                 s.get("nic_rate", "?")))
    parts.append(s["intra"])
    return ", ".join(parts)


def cases_section(doc):
    out = ["| case | system | size | measured | regime, band | half | source |", "|---|---|---|---|---|---|---|"]
    for c in doc["cases"]:
        meas = ("scaling efficiency %.0f%%" % (100 * c["measured_efficiency"]) if c["regime"] == "training"
                else fmt_t(c["measured_s"]))
        if c["measured_from"].startswith("derived"):
            meas += " (derived)"
        src = c["source"]["url"].split(" ")[0]
        out.append("| `%s` | %s | %s | %s | %s, %.0f%% | %s | [%s](%s) |" % (
            c["id"], system_text(c["system"]), size(c.get("bytes")), meas, c["regime"], 100 * c["band"],
            c["half"], re.sub(r"^https://github.com/", "", src), src))
    out.append("")
    out.append("The quoted row or sentence, where in the thread it is, how a derived time was computed, the link "
               "rates with their datasheets and the ccsim keys of every case are in `tests/validation/fidelity/cases.json`.")
    return "\n".join(out)


def results_section(doc, res, stamp):
    models = res["models"]
    out = [stamp, ""]
    head = "| case | regime | half | measured |"
    rule = "|---|---|---|---|"
    for m in models:
        head += " `%s` | error |" % m
        rule += "---:|---:|"
    head += " band | `nccl` in band |"
    rule += "---:|---|"
    out += [head, rule]
    for c in doc["cases"]:
        r = res["results"][c["id"]]
        meas = ("eff. %.0f%%" % (100 * c["measured_efficiency"]) if c["regime"] == "training" else fmt_t(c["measured_s"]))
        row = "| `%s` | %s | %s | %s |" % (c["id"], c["regime"], c["half"], meas)
        verdict = "—"
        for m in models:
            x = r.get(m)
            if x is None:
                row += " skipped | — |"
                continue
            if x.get("error") or "ratio" not in x:
                row += " failed | — |"
                continue
            e = x["ratio"] - 1
            shown = ("eff. %.1f%%" % (100 * x["compute_s"] / x["iteration_time_s"]) if c["regime"] == "training"
                     else fmt_t(x["iteration_time_s"]))
            row += " %s | %s |" % (shown, fmt_e(e))
            if m == "nccl":
                verdict = "yes" if abs(e) <= c["band"] else "**no**"
        row += " %.0f%% | %s |" % (100 * c["band"], verdict)
        out.append(row)
    out.append("")
    out.append("Geometric mean of |error| (floored at 0.01%):")
    out.append("")
    out.append("| `comm.model` | all | held-out | fitted |")
    out.append("|---|---:|---:|---:|")
    for m in models:
        g = res["summary"][m]
        f = lambda v: "—" if v is None else "%.1f%%" % (100 * v)  # noqa: E731
        out.append("| `%s` | %s | %s | %s |" % (m, f(g["all"]), f(g["held-out"]), f(g["fitted"])))
    if res["failures"]:
        out.append("")
        out.append("Runs that failed:")
        out.append("")
        out += ["- " + x for x in res["failures"]]
    if res["out_of_band"]:
        out.append("")
        out.append("Out of band with `comm.model` \"nccl\":")
        out.append("")
        out += ["- " + x for x in res["out_of_band"]]
    return "\n".join(out)


def replace(text, name, body):
    begin, end = "<!-- fidelity:%s:begin -->" % name, "<!-- fidelity:%s:end -->" % name
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        sys.exit("fidelity_doc.py: the document has no %s ... %s markers" % (begin, end))
    return text[:i + len(begin)] + "\n" + body + "\n" + text[j:]


def main():
    ap = argparse.ArgumentParser(description="Regenerate the tables of docs/fidelity.md.")
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "src", "ccsim"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "tests", "validation", "fidelity", "cases.json"))
    ap.add_argument("--models", default="ideal,nccl")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "fidelity.md"))
    ap.add_argument("--results", help="the --json file of an earlier scripts/fidelity.py run, instead of running it")
    a = ap.parse_args()

    with open(a.cases) as f:
        doc = json.load(f)
    if a.results:
        with open(a.results) as f:
            res = json.load(f)
    else:
        with tempfile.TemporaryDirectory(prefix="ccsim-fidelity-doc-") as tmp:
            rj = os.path.join(tmp, "results.json")
            cmd = [sys.executable, os.path.join(ROOT, "scripts", "fidelity.py"), "--ccsim", a.ccsim, "--cases",
                   a.cases, "--models", a.models, "--jobs", str(a.jobs), "--json", rj]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
            sys.stdout.write(p.stdout)
            if not os.path.exists(rj):
                sys.exit("fidelity_doc.py: scripts/fidelity.py wrote no results (exit %d)" % p.returncode)
            with open(rj) as f:
                res = json.load(f)
    run = res["run"]
    stamp = ("Made by `scripts/fidelity_doc.py` from the run `%s` at commit `%s`%s, %s, %s UTC." % (
        run["command"], run["commit"], " with local changes" if run["local_changes"] else "", run["ccsim"], run["utc"]))
    with open(a.doc) as f:
        text = f.read()
    text = replace(text, "cases", cases_section(doc))
    text = replace(text, "results", results_section(doc, res, stamp))
    with open(a.doc, "w") as f:
        f.write(text)
    print("wrote %s" % a.doc)
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
