"""teaching/lesson.py — what the teaching notebooks share: finding ccsim, running
an experiment written as a Python dict, and storing the data a figure draws.

    import lesson
    run = lesson.run("ring-8", {...experiment...})   # an analysis/ccsim Run
    lesson.save_figure_data("01-alpha-beta", {...})  # what tests/teaching.sh checks

ccsim is $CCSIM, else build/src/ccsim under the repository root (the directory
above this file). Results go under $TEACHING_WORK, else teaching/work/. Reading
results is analysis/ccsim's job (docs/python.md); nothing here parses them.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "analysis"))
import ccsim  # noqa: E402  (analysis/ccsim: the result reader)

CCSIM = os.environ.get("CCSIM") or os.path.join(ROOT, "build", "src", "ccsim")
WORK = os.environ.get("TEACHING_WORK") or os.path.join(HERE, "work")


def check():
    """Say which ccsim runs, or stop with how to build one."""
    if not (os.path.isfile(CCSIM) and os.access(CCSIM, os.X_OK)):
        raise SystemExit(f"no ccsim at {CCSIM}: build it (bash scripts/build.sh build) or set CCSIM")
    v = subprocess.run([CCSIM, "--version"], capture_output=True, text=True, check=True)
    print(f"{v.stdout.strip()} ({CCSIM}); results under {WORK}; python {sys.executable}")


def run(name, experiment, *sets):
    """Run one experiment (a dict, as in docs/inputs.md) into WORK/name and
    return it as an analysis/ccsim Run. `sets` are extra "PATH=VALUE" overrides.
    A run that fails raises with ccsim's own message."""
    os.makedirs(WORK, exist_ok=True)
    exp = dict(experiment, name=name)
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump(exp, f, indent=1)
    out = os.path.join(WORK, name)
    cmd = [CCSIM, "run", path, "--out", out, "--quiet", "--force"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ccsim run {name} failed (exit {p.returncode}): {p.stderr.strip()}")
    return ccsim.load_run(out)


def save_figure_data(lesson, data):
    """Store what a lesson's figures draw as WORK/LESSON.json: the numbers the
    figures plot, for a student to compare with, and for tests/teaching.sh to
    check the lesson's claim on."""
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, lesson + ".json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    print(f"figure data: {path}")
    return path
