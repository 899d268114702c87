#!/usr/bin/python3
"""scripts/floors.py [--graph] [ROOT] — the folders' include graph, and its cycles.

Each C/C++ file of src/ belongs to a folder: src/sim/run.c to "sim",
src/error.c to "src" (what every part uses); every file of compressors/ to
"ccomp" (libccomp).  Folder A includes folder B when a file of A includes a
file of B (scripts/includes.py finds which file an include means).  The
folders must stand in floors, each including only floors below it: the graph
has no cycle.

An arrow that must run back up for a while can be listed in KNOWN, with
what would remove it: the check leaves it out, and fails once it is gone
(delete it from KNOWN then, so that it cannot come back).  KNOWN is empty.

Exit 0 when the graph without KNOWN has no cycle, every KNOWN arrow is
still there, and every include names its folder (scripts/includes.py
--check); else 1, printing each cycle with one include that makes each of
its arrows.  --graph prints the floors (each folder with the folders it
includes, highest floor first; "!" marks a KNOWN arrow) and exits 0
whatever it found; docs/architecture.md draws what it prints.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import includes  # noqa: E402


# Arrows that still run back up, each with what would remove it: none.  An
# entry here is a debt: the check leaves the arrow out and fails once it
# is gone, so that the list only shrinks.
KNOWN = {}


def folder_of(path):
    parts = path.split('/')
    if parts[0] == 'compressors':
        return 'ccomp'
    if parts[0] == 'src':
        return parts[1] if len(parts) > 2 else 'src'
    return None


def graph(root):
    """{folder: {folder: 'file:line: #include "x"'}} for every arrow."""
    res = includes.Resolver(root)
    g = {}
    for path in res.files:
        a = folder_of(path)
        if a is None:
            continue
        g.setdefault(a, {})
        with open(os.path.join(root, path), encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                m = includes.INCLUDE.match(line)
                if not m:
                    continue
                cands = res.candidates(path, m.group(2))
                if len(cands) != 1:
                    continue  # includes.py --check reports these
                b = folder_of(cands[0])
                if b is not None and b != a and b not in g[a]:
                    g[a][b] = '%s:%d: #include "%s"' % (path, n, m.group(2))
    for a in list(g):
        for b in g[a]:
            g.setdefault(b, {})
    return g


def components(g):
    """Tarjan's strongly connected components, each a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def cycle_in(g, comp):
    """One shortest cycle through the component's first folder."""
    inside = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(g[v]):
            if w not in inside:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def floors(g):
    """Each folder's floor: 0 for one that includes no folder, else one
    above the highest it includes (a component counts as one folder)."""
    comp_of = {}
    comps = components(g)
    for i, c in enumerate(comps):
        for v in c:
            comp_of[v] = i
    level = {}
    for i, c in enumerate(comps):  # Tarjan yields components callees first
        lv = 0
        for v in c:
            for w in g[v]:
                if comp_of[w] != i:
                    lv = max(lv, level[comp_of[w]] + 1)
        level[i] = lv
    return {v: level[comp_of[v]] for v in g}


def main(argv):
    show = '--graph' in argv
    args = [a for a in argv if a != '--graph']
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    full = graph(root)
    g = {a: {b: w for b, w in full[a].items() if (a, b) not in KNOWN} for a in full}
    cycles = [c for c in components(g) if len(c) > 1]
    if show:
        fl = floors(g)
        for lv in sorted(set(fl.values()), reverse=True):
            for v in sorted(x for x in fl if fl[x] == lv):
                print('floor %d  %-12s -> %s' % (lv, v, ' '.join(
                    b + ('!' if (v, b) in KNOWN else '') for b in sorted(full[v])) or '-'))
        circles = [c for c in components(full) if len(c) > 1]
        inside = sum(1 for c in circles for v in c for w in full[v] if w in c)
        print('%d folders, %d arrows (%d known to run back up), without them %d circle(s); '
              'with them %d circle(s) of %d arrows'
              % (len(full), sum(len(x) for x in full.values()), len(KNOWN), len(cycles),
                 len(circles), inside))
        return 0
    bad = 0
    for (a, b), why in sorted(KNOWN.items()):
        if b not in full.get(a, {}):
            print('floors.py: the arrow %s -> %s is gone: delete it from KNOWN in scripts/floors.py'
                  % (a, b), file=sys.stderr)
            bad = 1
    res = includes.Resolver(root)
    problems = []
    for path in res.files:
        if includes.rewrite(res, path, problems) is not None:
            print('floors.py: %s: an include does not name its folder (run scripts/includes.py)'
                  % path, file=sys.stderr)
            bad = 1
    for p in problems:
        print('floors.py: ' + p, file=sys.stderr)
        bad = 1
    for c in cycles:
        cyc = cycle_in(g, c)
        print('floors.py: folders include each other: %s (the circle: %s)'
              % (' -> '.join(cyc), ', '.join(c)), file=sys.stderr)
        for a, b in zip(cyc, cyc[1:]):
            print('  %s -> %s: %s' % (a, b, g[a][b]), file=sys.stderr)
    return 1 if cycles or bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
