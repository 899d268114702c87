#!/usr/bin/python3
"""One self-contained HTML page of a ccsim run or sweep (what `ccsim report` runs).

usage: analysis/py analysis/report.py DIR [--baseline POINT-or-LABEL] [--out FILE.html]

DIR is a run's output directory (summary.json, iterations.csv, hops.csv,
timeline.csv if recorded) or a sweep's (sweep.csv and its points).  The page
(default DIR/report.html) has the setup, a summary table and the plots, each
with the data it draws; for a sweep one plot per axis and, with --baseline,
the speed-up of every point over the baseline (a point, AXIS=LABEL, or a label
one axis has; docs/report.md).  Exit 2 with one line for a directory that is
neither a run nor a sweep, or a baseline the sweep does not have.
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

PROG = "ccsim report"


def bad(msg):
    """Bad input: one line, exit 2."""
    print(f"{PROG}: {' '.join(str(msg).split())}", file=sys.stderr)
    sys.exit(2)


def write_atomic(path, text):
    """path gets text whole or not at all: a temporary beside it, fsync'd, renamed."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".html")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="a ccsim run or sweep output directory")
    ap.add_argument("--baseline", help="sweeps: the point (or AXIS=LABEL, or LABEL) speed-ups are over")
    ap.add_argument("--out", help="the page (default DIR/report.html)")
    a = ap.parse_args()
    d = a.dir
    if not os.path.isdir(d):
        bad(f"{d}: no such directory")
    is_run, is_sweep = (os.path.isfile(os.path.join(d, f)) for f in ("summary.json", "sweep.csv"))
    if not (is_run or is_sweep):
        bad(f"{d}: neither a run (no summary.json: not a ccsim run directory, or the run did not finish) "
            "nor a sweep (no sweep.csv)")
    if a.baseline is not None and not is_sweep:
        bad(f"--baseline {a.baseline}: {d} is a run; a baseline names a point of a sweep")
    out = a.out or os.path.join(d, "report.html")
    if not out.endswith((".html", ".htm")):
        bad(f"--out {out}: expected a file name ending in .html")
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        bad(f"--out {out}: no such directory {os.path.dirname(os.path.abspath(out))}")
    if os.path.isdir(out):
        bad(f"--out {out}: is a directory; expected the page's file name")
    try:
        import ccsim
        from ccsim import report_run, report_sweep
    except ImportError as e:
        print(f"{PROG}: {e}: needs Python 3 with numpy, pandas and matplotlib "
              "(Debian: python3-numpy python3-pandas python3-matplotlib)", file=sys.stderr)
        sys.exit(1)
    try:
        if is_sweep:
            text = report_sweep.report(ccsim.load_sweep(d), a.baseline)
        else:
            text = report_run.report(ccsim.load_run(d))
    except report_sweep.BadBaseline as e:
        bad(f"--baseline {a.baseline}: {e}")
    except KeyError as e:  # a result file without a key or column it must have
        bad(f"{d}: a result file lacks {e}")
    except (ValueError, OSError) as e:  # a malformed or unreadable result file
        bad(f"{d}: {e}")
    try:
        write_atomic(out, text)
    except OSError as e:  # a full disk, a read-only directory: a failed run (exit 1), one line
        print(f"{PROG}: {out}: cannot write: {e.strerror or e}", file=sys.stderr)
        sys.exit(1)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
