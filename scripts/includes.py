#!/usr/bin/python3
"""scripts/includes.py [--check] [ROOT] — every quoted include names its folder.

ccsim has one include root, src/: a header is included by its path from
there ("sim/exec.h", "comm/comm.h", "error.h" for src/error.h).  libccomp is
its own library with its own root, compressors/: ccsim includes its public
headers as an installed program does ("ccomp/compressor.h"), libccomp's own
files include theirs by their path from compressors/ ("qbits.h").  A test's
own helpers (tests/check.h, tests/fuzz/fuzz_common.h) are included by their
path from the test's folder.

This script rewrites each `#include "X"` in src/, compressors/, tests/ and
bench/ (C and C++) to that form, finding X in the file tree:

  1. X as a path: beside the including file, or from one of the roots
     (src/, compressors/; tests/ for a test);
  2. else X's trailing components (the file name, or "sim/comm.h" when the
     header moved to src/comm/): every header whose path ends so.

Exactly one file must answer; an include that none or several answer is
refused, with the candidates, and nothing is written.  A run of quoted
includes that was sorted stays sorted.  Running it twice changes nothing
(the second run finds every include already in its form).  --check writes
nothing and exits 1 when a file would change (tests/floors runs it so).

Used after merging branches that added includes in the old flat style:
    /usr/bin/python3 scripts/includes.py && ninja -C build
"""
import os
import re
import sys

EXTS = ('.c', '.h', '.cpp', '.cc', '.hpp')
TREES = ('src', 'compressors', 'tests', 'bench')
INCLUDE = re.compile(r'^(\s*#\s*include\s*)"([^"]+)"(.*)$')


def source_files(root):
    """Every C/C++ file under the trees, as paths relative to root, sorted."""
    out = []
    for tree in TREES:
        for d, dirs, files in os.walk(os.path.join(root, tree)):
            dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
            for f in sorted(files):
                if f.endswith(EXTS):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def tree_of(path):
    return path.split('/', 1)[0]


def roots_for(path):
    """The include roots a file in this tree sees, in order."""
    t = tree_of(path)
    if t == 'compressors':
        return ['compressors']
    if t == 'src':
        return ['src', 'compressors']
    if t == 'bench':
        return ['src', 'compressors']
    return ['src', 'compressors', 'tests']


def norm(p):
    return os.path.normpath(p).replace(os.sep, '/')


class Resolver:
    def __init__(self, root):
        self.root = root
        self.files = source_files(root)
        self.fileset = set(self.files)

    def candidates(self, includer, spec):
        """The files that `#include "spec"` in includer can mean."""
        here = os.path.dirname(includer)
        roots = roots_for(includer)
        exact = []
        for base in [here] + roots:
            p = norm(os.path.join(base, spec))
            if p in self.fileset and p not in exact:
                exact.append(p)
        if exact:
            return exact
        # by trailing components: the last one, then more while several match
        parts = norm(spec).split('/')
        visible = [f for f in self.files if tree_of(f) in roots or f.startswith(here + '/')]
        found = []
        for n in range(len(parts), 0, -1):
            tail = '/'.join(parts[-n:])
            found = [f for f in visible if f == tail or f.endswith('/' + tail)]
            if found:
                break
        return found

    def spelling(self, includer, target):
        """How includer names target: from its root, or beside it (tests)."""
        t = tree_of(target)
        if t == 'tests':
            return norm(os.path.relpath(target, os.path.dirname(includer)))
        return norm(os.path.relpath(target, t))


def rewrite(res, path, problems):
    """The new text of path, or None when unchanged; problems collects refusals."""
    full = os.path.join(res.root, path)
    with open(full, encoding='utf-8') as f:
        lines = f.read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        # a run of consecutive quoted includes
        j = i
        while j < len(lines) and INCLUDE.match(lines[j]):
            j += 1
        if j == i:
            out.append(lines[i])
            i += 1
            continue
        run = []
        for k in range(i, j):
            m = INCLUDE.match(lines[k])
            spec = m.group(2)
            cands = res.candidates(path, spec)
            if len(cands) != 1:
                what = 'no file' if not cands else 'several files: ' + ', '.join(cands)
                problems.append('%s:%d: #include "%s": %s' % (path, k + 1, spec, what))
                new = spec
            else:
                new = res.spelling(path, cands[0])
            run.append((spec, m.group(1) + '"' + new + '"' + m.group(3)))
        was_sorted = [s for s, _ in run] == sorted(s for s, _ in run)
        lines_new = [l for _, l in run]
        if was_sorted:
            lines_new.sort(key=lambda l: INCLUDE.match(l).group(2))
        out.extend(lines_new)
        i = j
    text = '\n'.join(out)
    return None if text == '\n'.join(lines) else text


def main(argv):
    check = '--check' in argv
    args = [a for a in argv if a != '--check']
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    res = Resolver(root)
    problems, changes = [], {}
    for path in res.files:
        new = rewrite(res, path, problems)
        if new is not None:
            changes[path] = new
    if problems:
        for p in problems:
            print('includes.py: ' + p, file=sys.stderr)
        print('includes.py: %d include(s) refused; nothing written' % len(problems), file=sys.stderr)
        return 2
    if check:
        for path in sorted(changes):
            print('includes.py: %s: an include does not name its folder' % path, file=sys.stderr)
        return 1 if changes else 0
    for path, text in sorted(changes.items()):
        with open(os.path.join(root, path), 'w', encoding='utf-8') as f:
            f.write(text)
    print('includes.py: %d file(s) rewritten' % len(changes))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
