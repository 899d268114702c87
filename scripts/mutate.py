#!/usr/bin/env python3
"""scripts/mutate.py — mutation testing: apply the one-line mutants of a
catalogue (tests/mutants.txt) one at a time, rebuild incrementally, run the
fast tests, and say which test killed each (docs/testing.md, "Mutation
testing").

  scripts/mutate.py [--build DIR] [--catalogue FILE] [--only ID,...]
                    [--sample K [--seed S]] [--ci] [--wide] [--no-baseline]
                    [--list] [--report FILE]

A mutant is killed when one of its tests (the catalogue's `kill:` line, then,
with --wide, every other fast test) fails or times out; it survives when all
pass.  A mutant whose line is no longer found, or found more than once, is
"stale"; one that no longer compiles is "broken": both fail a full run (the
catalogue must be kept up to date) and are skipped, with a message, by the
CI sample (--ci), which fails only on a survivor.

The source tree is changed in place and always restored: on exit, on
SIGINT/SIGTERM/SIGHUP, and, if the process was killed outright, by the next
run (the original text is journalled in BUILD/mutate-journal.json first).
Only the targets the tests need are rebuilt (`ninja -C BUILD TARGETS`), and
rebuilt again from the restored source before the script returns, so the
build directory holds the unmutated binaries afterwards.  Run it alone: no
other test may use the build directory meanwhile (the Meson test is
is_parallel: false).

Exit status: 0 when every mutant run was killed (--ci: and stale or broken
ones skipped), 1 otherwise, 2 on a bad catalogue or build directory.
"""
import argparse
import datetime
import json
import os
import random
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEARCH_DIRS = ("src", "compressors")
KEYS = ("id", "file", "find", "replace", "what", "kill", "after", "fast")


def die(msg, code=2):
    print("mutate: " + msg, file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- catalogue
def parse_catalogue(path):
    """The records of the catalogue and its `fast:` tests.

    Records are blocks of `key: value` lines separated by blank lines; `#`
    starts a comment line.  Keys: id, file, find, replace, what, kill, and
    optionally after (a line before the one to change, when its text is not
    unique in the file).  A `fast:` block (no id) lists the fast tests
    --wide runs."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    fast, records, cur = [], [], {}
    lineno = 0

    def close():
        nonlocal cur
        if not cur:
            return
        if "id" not in cur and "fast" in cur:
            fast.extend(cur["fast"].split())
        else:
            for k in ("id", "file", "find", "replace", "what", "kill"):
                if k not in cur:
                    die(f"{path}:{cur.get('_line', lineno)}: mutant {cur.get('id', '?')}: no '{k}:' line")
            if cur["find"] == cur["replace"]:
                die(f"{path}:{cur['_line']}: mutant {cur['id']}: replace is find")
            cur["kill"] = cur["kill"].split()
            records.append(cur)
        cur = {}

    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            close()
            continue
        key, sep, value = line.partition(":")
        if not sep or key.strip() not in KEYS:
            die(f"{path}:{lineno}: expected 'key: value' ({', '.join(KEYS)})")
        cur.setdefault("_line", lineno)
        key = key.strip()
        # find/replace keep their inner spaces; only the one after ':' goes
        value = value[1:] if value.startswith(" ") else value
        if key == "fast":
            cur["fast"] = cur.get("fast", "") + " " + value
            continue
        if key in cur:
            die(f"{path}:{lineno}: '{key}:' twice in one mutant")
        cur[key] = value.rstrip("\n") if key in ("find", "replace", "after") else value.strip()
    close()
    ids = [r["id"] for r in records]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        die(f"{path}: mutant id(s) used twice: {', '.join(sorted(dup))}")
    return fast, records


def source_files():
    for d in SEARCH_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = [x for x in dirnames if not x.startswith(".")]
            for f in filenames:
                if f.endswith((".c", ".h", ".cpp")):
                    yield os.path.join(dirpath, f)


def lines_with(path, find, after=None):
    """The indices of the lines holding find; with after, the first line
    holding find below each line holding after."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return []
    if after is None:
        return [i for i, line in enumerate(lines) if find in line]
    out = []
    for a in (i for i, line in enumerate(lines) if after in line):
        nxt = next((i for i in range(a + 1, len(lines)) if find in lines[i]), None)
        if nxt is not None:
            out.append(nxt)
    return out


def locate(rec):
    """(path, line index) of the mutant's line, or (None, why): the file as
    named, else a file of the same name anywhere under src/ or compressors/,
    else any source file; the text must be on exactly one line."""
    find = rec["find"].strip()
    after = rec["after"].strip() if "after" in rec else None
    named = os.path.join(ROOT, rec["file"])
    base = os.path.basename(rec["file"])
    tried = []
    if os.path.isfile(named):
        tried.append([named])
    tried.append([p for p in source_files() if os.path.basename(p) == base and p != named])
    tried.append([p for p in source_files() if os.path.basename(p) != base])
    for group in tried:
        hits = [(p, i) for p in group for i in lines_with(p, find, after)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            where = ", ".join(f"{os.path.relpath(p, ROOT)}:{i + 1}" for p, i in hits[:4])
            return None, f"the line is not unique ({where})"
    return None, "the line is not found under src/ or compressors/"


# ---------------------------------------------------------- tree and restore
class Tree:
    """The changed file and its original text; restored exactly once."""

    def __init__(self, build):
        self.journal = os.path.join(build, "mutate-journal.json")
        self.saved = None  # (path, original text)

    def recover(self):
        """A previous run killed outright left its journal: put its file back."""
        if not os.path.exists(self.journal):
            return
        with open(self.journal, encoding="utf-8") as f:
            j = json.load(f)
        with open(j["path"], "w", encoding="utf-8") as f:
            f.write(j["text"])
        os.unlink(self.journal)
        print(f"mutate: restored {os.path.relpath(j['path'], ROOT)} left mutated by an interrupted run")

    def apply(self, path, idx, find, replace):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        lines[idx] = lines[idx].replace(find.strip(), replace.strip(), 1)
        tmp = self.journal + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"path": path, "text": text}, f)
        os.replace(tmp, self.journal)
        self.saved = (path, text)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        return lines[idx]

    def restore(self):
        if not self.saved:
            return
        path, text = self.saved
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved = None
        if os.path.exists(self.journal):
            os.unlink(self.journal)


# ---------------------------------------------------------------- the tests
def meson_tests(build):
    try:
        out = subprocess.run(["meson", "introspect", build, "--tests"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"{build}: cannot list the tests (meson introspect): {e}")
    return {t["name"]: t for t in json.loads(out)}


def targets_of(build, tests):
    """The build outputs the tests run (their commands' files inside BUILD),
    as ninja targets."""
    b = os.path.realpath(build)
    out = set()
    for t in tests:
        for a in t["cmd"]:
            ra = os.path.realpath(os.path.join(t.get("workdir") or b, a))
            if ra.startswith(b + os.sep) and os.path.isfile(ra):
                out.add(os.path.relpath(ra, b))
    return sorted(out)


def ninja(build, targets, quiet=True):
    r = subprocess.run(["ninja", "-C", build] + targets, capture_output=True, text=True)
    if r.returncode and not quiet:
        sys.stderr.write(r.stdout[-3000:])
    return r.returncode == 0, r.stdout


RUNNING = []  # the test being run, ended with the script


def run_test(t, cap, build):
    """'pass', 'fail', 'timeout' or 'skip' (exit 77), and seconds."""
    env = dict(os.environ)
    env.update(t.get("env") or {})
    env.setdefault("MALLOC_PERTURB_", "0")
    timeout = min(t.get("timeout") or cap, cap)
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(t["cmd"], cwd=t.get("workdir") or build, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return "fail", 0.0
    RUNNING.append(p)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return "timeout", time.monotonic() - t0
    finally:
        RUNNING.remove(p)
    dt = time.monotonic() - t0
    if rc == 77:
        return "skip", dt
    return ("pass" if rc == 0 else "fail"), dt


# --------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--catalogue", default=os.path.join(ROOT, "tests", "mutants.txt"))
    ap.add_argument("--only", default="", help="comma-separated mutant ids")
    ap.add_argument("--sample", type=int, default=0, help="K random mutants")
    ap.add_argument("--seed", default="", help="the sample's seed (default: the commit, else the date)")
    ap.add_argument("--ci", action="store_true", help="stale or broken mutants are skipped, not failures")
    ap.add_argument("--wide", action="store_true", help="a survivor of its kill tests meets every fast test")
    ap.add_argument("--no-baseline", action="store_true", help="do not check the tests pass unmutated first")
    ap.add_argument("--test-timeout", type=float, default=120, help="seconds a test may take (default 120)")
    ap.add_argument("--list", action="store_true", help="print the catalogue and where each line is")
    ap.add_argument("--report", default="", help="write the results as JSON lines here")
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    if not os.path.isfile(os.path.join(build, "build.ninja")):
        die(f"{build}: not a configured build directory")
    fast, cat = parse_catalogue(a.catalogue)
    if a.only:
        want = a.only.split(",")
        missing = [w for w in want if w not in {r["id"] for r in cat}]
        if missing:
            die(f"no mutant {', '.join(missing)} in {a.catalogue}")
        cat = [r for r in cat if r["id"] in want]
    if a.sample:
        seed = a.seed or os.environ.get("CCSIM_MUTATION_SEED", "")
        if not seed:
            r = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
            seed = r.stdout.strip() if r.returncode == 0 else datetime.date.today().isoformat()
        cat = random.Random(seed).sample(cat, min(a.sample, len(cat)))
        print(f"mutate: {len(cat)} mutant(s) drawn with seed {seed}: {' '.join(r['id'] for r in cat)}")

    if a.list:
        for r in cat:
            path, idx = locate(r)
            where = f"{os.path.relpath(path, ROOT)}:{idx + 1}" if path else "STALE: " + idx
            print(f"{r['id']:28} {where:40} {r['what']}")
        return 0

    tests = meson_tests(build)
    named = {n for r in cat for n in r["kill"]} | (set(fast) if a.wide else set())
    unknown = sorted(n for n in named if n not in tests)
    if unknown:
        die(f"{a.catalogue}: no such test in {build}: {', '.join(unknown)}")

    tree = Tree(build)
    tree.recover()

    def on_signal(signum, frame):
        for p in RUNNING:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        tree.restore()
        print(f"mutate: interrupted by signal {signum}; the source is restored", file=sys.stderr)
        os._exit(128 + signum)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    used = sorted({n for r in cat for n in r["kill"]} | (set(fast) if a.wide else set()))
    targets = targets_of(build, [tests[n] for n in used])
    ok, out = ninja(build, targets, quiet=False)
    if not ok:
        die(f"{build}: the unmutated tree does not build")
    if not a.no_baseline:
        for n in used:
            res, dt = run_test(tests[n], a.test_timeout, build)
            if res not in ("pass", "skip"):
                die(f"test {n} does not pass on the unmutated tree ({res}): fix it first", 1)
            print(f"mutate: baseline {n}: {res} in {dt:.1f} s", flush=True)

    results = []
    t_start = time.monotonic()
    try:
        for r in cat:
            t0 = time.monotonic()
            path, idx = locate(r)
            row = {"id": r["id"], "what": r["what"], "file": None, "result": None, "by": None}
            if path is None:
                row.update(result="stale", by=idx)
            else:
                row["file"] = f"{os.path.relpath(path, ROOT)}:{idx + 1}"
                tree.apply(path, idx, r["find"], r["replace"])
                ok, _ = ninja(build, targets)
                if not ok:
                    row.update(result="broken", by="does not compile")
                else:
                    order = r["kill"] + ([n for n in fast if n not in r["kill"]] if a.wide else [])
                    row["result"] = "survived"
                    for n in order:
                        res, dt = run_test(tests[n], a.test_timeout, build)
                        if res in ("fail", "timeout"):
                            row.update(result="killed", by=n + (" (timeout)" if res == "timeout" else ""),
                                       listed=n in r["kill"])
                            break
                tree.restore()
            row["seconds"] = round(time.monotonic() - t0, 1)
            results.append(row)
            print(f"{row['id']:28} {row['result']:8} {row['by'] or '':36} {row['seconds']:6.1f} s  {row['what']}",
                  flush=True)
    finally:
        tree.restore()
        ninja(build, targets)  # the binaries of the unmutated source again

    counts = {k: sum(1 for x in results if x["result"] == k) for k in ("killed", "survived", "stale", "broken")}
    print(f"mutate: {len(results)} mutant(s): {counts['killed']} killed, {counts['survived']} survived, "
          f"{counts['stale']} stale, {counts['broken']} broken ({time.monotonic() - t_start:.0f} s)")
    if a.report:
        with open(a.report, "w", encoding="utf-8") as f:
            for x in results:
                f.write(json.dumps(x) + "\n")
    bad = counts["survived"] + (0 if a.ci else counts["stale"] + counts["broken"])
    if a.ci and counts["stale"] + counts["broken"]:
        print("mutate: stale or broken mutants skipped (update tests/mutants.txt): "
              + " ".join(x["id"] for x in results if x["result"] in ("stale", "broken")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
