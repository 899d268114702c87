#!/usr/bin/env python3
"""scripts/analyzer_report.py LOG SUPP — the -Wanalyzer-* warnings of a
compile log (gcc -fanalyzer, scripts/analyze.sh), each once, less those that
scripts/analyzer.supp justifies; exit 1 if any is left.

A warning is `file function kind` (kind without -Wanalyzer-): GCC prints the
function on the "In function" line before it.  The suppression file holds
lines `kind file function  # reason`; `*` as the function matches every
function of the file.  A suppression that matches nothing is reported too
(stale: the code it excused has changed), and fails."""
import re
import sys

FUNC = re.compile(r"^(\S+?): In function [‘'](\S+?)[’']:")
WARN = re.compile(r"^(\S+?):(\d+):\d+: warning: (.*) \[-Wanalyzer-([a-z-]+)\]$")
TREE = re.compile(r"(?:^|/)((?:src|compressors)/.*)$")


def rel(path):
    """The path from the source root (the compiler prints it from the build directory)."""
    m = TREE.search(path)
    return m.group(1) if m else path


def main():
    if len(sys.argv) != 3:
        print("usage: analyzer_report.py LOG SUPP", file=sys.stderr)
        return 2
    log, supp = sys.argv[1:]
    func = {}
    seen = {}  # (file, line, message, kind) -> function
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = FUNC.match(line)
            if m:
                func[rel(m.group(1))] = m.group(2)
                continue
            m = WARN.match(line.rstrip("\n"))
            if m:
                path, ln, msg, kind = m.groups()
                path = rel(path)
                seen.setdefault((path, int(ln), msg, kind), func.get(path, "?").split(".")[0])
    rules = []
    with open(supp, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            body = line.split("#", 1)[0].split()
            if not body:
                continue
            if len(body) != 3 or "#" not in line:
                print(f"{supp}:{n}: expected 'kind file function  # reason'", file=sys.stderr)
                return 2
            rules.append([body[0], body[1], body[2], n, 0])
    left = []
    for (path, ln, msg, kind), fn in sorted(seen.items()):
        hit = None
        for r in rules:
            if r[0] == kind and r[1] == path and r[2] in ("*", fn):
                hit = r
                break
        if hit:
            hit[4] += 1
        else:
            left.append(f"{path}:{ln}: {fn}: {msg} [-Wanalyzer-{kind}]")
    for line in left:
        print(line)
    stale = [r for r in rules if r[4] == 0]
    for r in stale:
        print(f"{supp}:{r[3]}: suppression '{r[0]} {r[1]} {r[2]}' matches no warning (stale)")
    sites = {(p, ln, k) for (p, ln, _, k) in seen}
    print(f"gcc -fanalyzer: {len(seen)} warning(s) at {len(sites)} place(s); {len(seen) - len(left)} justified "
          f"in {supp.split('/')[-1]}, {len(left)} not; {len(stale)} stale suppression(s)")
    return 1 if left or stale else 0


if __name__ == "__main__":
    sys.exit(main())
