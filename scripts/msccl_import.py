#!/usr/bin/env python3
"""scripts/msccl_import.py -- an MSCCL-IR all-reduce (the XML that MSCCLang
compiles to: <algo> / <gpu> / <tb send recv chan> / <step s type srcbuf srcoff
dstbuf dstoff cnt depid deps hasdep>) turned into a ccsim collective program
(docs/programs.md) for its fixed GPU count.

usage: msccl_import.py ALGO.xml > PROGRAM.json

Each GPU's thread blocks run concurrently in MSCCL; a ccsim rank runs one
sequence of steps.  The importer plays the XML once, all GPUs together
(respecting step order inside a thread block, depid/deps, and FIFO order
between two GPUs), and writes each GPU's steps in the order they ran:

  s      -> encode (own chunks, on first use), send (kept: MSCCL's buffer still holds it)
  r      -> recv, store
  rrc    -> recv, reduce (received + held)
  rrs    -> recv, reduce, send
  rrcs   -> recv, reduce, send
  rcs    -> recv, store, send
  cpy    -> nothing when it copies a chunk to its own offset (i -> o)
  nop    -> nothing

A send waits for the rank's earlier sends first (as ccsim's ring does), and
every rank delivers every chunk at the end, the rank that completed a
chunk's sum delivering it as final.  A reduce's hop is how many reductions
the payload has gone through.  Not imported (an error names the step):
scratch buffers, copies between offsets, a received chunk put at another
offset, and the other step types; other collectives than all-reduce.
"""
import json
import sys
import xml.etree.ElementTree as ET


class ImportError_(Exception):
    pass


def ints(v):
    return [int(x) for x in str(v).split(",") if x.strip() != ""]


def load(path):
    algo = ET.parse(path).getroot()
    if algo.tag != "algo":
        raise ImportError_(f"{path}: the root element is <{algo.tag}>, expected <algo>")
    coll = algo.get("coll", "allreduce")
    if coll != "allreduce":
        raise ImportError_(f"{path}: coll=\"{coll}\": only all-reduce algorithms are imported")
    gpus = {}
    for g in algo.findall("gpu"):
        gid = int(g.get("id"))
        tbs = []
        for tb in g.findall("tb"):
            steps = sorted(tb.findall("step"), key=lambda s: int(s.get("s")))
            tbs.append({"id": int(tb.get("id")), "send": int(tb.get("send", -1)),
                        "recv": int(tb.get("recv", -1)), "chan": int(tb.get("chan", 0)),
                        "steps": steps, "next": 0})
        gpus[gid] = {"tbs": {t["id"]: t for t in tbs}, "order": [t["id"] for t in tbs]}
    n = len(gpus)
    if sorted(gpus) != list(range(n)):
        raise ImportError_(f"{path}: GPU ids are not 0 .. {n - 1}")
    k = int(algo.get("nchunksperloop"))
    return algo.get("name", "msccl"), n, k, gpus


def convert(path):
    name, N, K, gpus = load(path)
    out = {g: [] for g in range(N)}
    held = {g: {} for g in range(N)}       # chunk -> (ranks frozenset, depth) once encoded
    pending = {g: 0 for g in range(N)}     # sends not yet waited for
    done = {g: set() for g in range(N)}    # (tb, s) done
    chan = {}                              # (src, dst) -> FIFO of (chan, ids, payloads)
    finisher, messages, maxdepth = {}, 0, 0

    def where(g, tb, st):
        return f"{path}: gpu {g} tb {tb['id']} step {st.get('s')} ({st.get('type')})"

    def ids(g, tb, st, buf, off):
        b, o, c = st.get(buf), int(st.get(off)), int(st.get("cnt", 1))
        if b not in ("i", "o"):
            raise ImportError_(f"{where(g, tb, st)}: buffer {b}: scratch buffers are not imported")
        if o < 0 or o + c > K:
            raise ImportError_(f"{where(g, tb, st)}: chunks [{o}, {o + c}) outside 0 .. {K - 1}")
        return list(range(o, o + c))

    def own(g, cs):
        new = [c for c in cs if c not in held[g]]
        for c in new:
            held[g][c] = (frozenset([g]), 0)
        i = 0
        while i < len(new):  # one encode per contiguous run
            j = i
            while j + 1 < len(new) and new[j + 1] == new[j] + 1:
                j += 1
            out[g].append({"encode": rng(new[i:j + 1])})
            i = j + 1

    def rng(cs):
        return cs[0] if len(cs) == 1 else [cs[0], cs[-1] + 1]

    def send(g, tb, st, cs):
        nonlocal messages
        if tb["send"] < 0:
            raise ImportError_(f"{where(g, tb, st)}: sends, but its thread block has no send peer")
        if pending[g]:
            out[g].append({"wait": "sends"})
            pending[g] = 0
        out[g].append({"send": rng(cs), "to": tb["send"], "keep": True})
        pending[g] += 1
        messages += len(cs)
        chan.setdefault((g, tb["send"]), []).append((tb["chan"], cs, [held[g][c] for c in cs]))

    def try_step(g, tb):
        nonlocal maxdepth
        st = tb["steps"][tb["next"]]
        for d, s in zip(ints(st.get("depid", -1)), ints(st.get("deps", -1))):
            if d >= 0 and (d, s) not in done[g]:
                return False
        t = st.get("type")
        if t in ("r", "rrc", "rrs", "rrcs", "rcs"):
            q = chan.get((tb["recv"], g), [])
            if not q or q[0][0] != tb["chan"]:
                return False
            _, cs, pays = q.pop(0)
            dst = ids(g, tb, st, "dstbuf", "dstoff")
            if cs != dst:
                raise ImportError_(f"{where(g, tb, st)}: receives chunks {cs} into offsets {dst}: moving a chunk to another offset is not imported")
            out[g].append({"recv": rng(cs), "from": tb["recv"]})
            if t in ("r", "rcs"):
                out[g].append({"store": rng(cs)})
                for c, p in zip(cs, pays):
                    held[g][c] = p
            else:
                own(g, cs)
                hops = set()
                for c, p in zip(cs, pays):
                    a = held[g][c]
                    if a[0] & p[0]:
                        raise ImportError_(f"{where(g, tb, st)}: chunk {c} would count a GPU twice")
                    held[g][c] = (a[0] | p[0], max(a[1], p[1]) + 1)
                    hops.add(held[g][c][1])
                    if len(held[g][c][0]) == N:
                        finisher.setdefault(c, g)
                if len(hops) != 1:
                    raise ImportError_(f"{where(g, tb, st)}: its chunks have gone through different numbers of reductions")
                h = hops.pop()
                maxdepth = max(maxdepth, h)
                out[g].append({"reduce": rng(cs), "order": "received+held", "hop": h})
            if t in ("rrs", "rrcs", "rcs"):
                send(g, tb, st, cs)
        elif t == "s":
            cs = ids(g, tb, st, "srcbuf", "srcoff")
            own(g, cs)
            send(g, tb, st, cs)
        elif t == "cpy":
            if ids(g, tb, st, "srcbuf", "srcoff") != ids(g, tb, st, "dstbuf", "dstoff"):
                raise ImportError_(f"{where(g, tb, st)}: a copy between offsets is not imported")
        elif t != "nop":
            raise ImportError_(f"{where(g, tb, st)}: step type \"{t}\" is not imported")
        done[g].add((tb["id"], int(st.get("s"))))
        tb["next"] += 1
        return True

    moved = True
    while moved:
        moved = False
        for g in range(N):
            for tid in gpus[g]["order"]:
                tb = gpus[g]["tbs"][tid]
                while tb["next"] < len(tb["steps"]) and try_step(g, tb):
                    moved = True
    for g in range(N):
        for tid in gpus[g]["order"]:
            tb = gpus[g]["tbs"][tid]
            if tb["next"] < len(tb["steps"]):
                raise ImportError_(f"{where(g, tb, tb['steps'][tb['next']])}: never runs (a deadlock, or a receive with no matching send)")
    for (s, d), q in chan.items():
        if q:
            raise ImportError_(f"{path}: gpu {s} sends chunks {q[0][1]} to gpu {d}, which never receives them")
    for g in range(N):
        if pending[g]:
            out[g].append({"wait": "sends"})
        for c in range(K):
            p = held[g].get(c)
            if not p or len(p[0]) != N:
                raise ImportError_(f"{path}: gpu {g} ends with chunk {c} summing {len(p[0]) if p else 0} of {N} GPUs")
            out[g].append({"deliver": c, "final": True} if finisher.get(c) == g else {"deliver": c})
    return {
        "name": f"msccl-{name}",
        "description": f"imported from the MSCCL-IR all-reduce {path.split('/')[-1]} ({N} GPUs, {K} chunks) by scripts/msccl_import.py",
        "requires": "summable",
        "checks": [{"require": f"N == {N}", "error": f"imported from an MSCCL-IR file for {N} GPUs: set workers to {N}"}],
        "chunks": K,
        "hops": maxdepth,
        "dense_bytes": f"4 * n * {messages} / {K}",
        "program": [{"if": f"r == {g}", "then": out[g]} for g in range(N)],
    }


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: msccl_import.py ALGO.xml > PROGRAM.json")
    try:
        prog = convert(sys.argv[1])
    except (ImportError_, ET.ParseError, ValueError, TypeError) as e:
        print(f"msccl_import.py: {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:  # missing, a directory, unreadable: one line, not a traceback
        print(f"msccl_import.py: {sys.argv[1]}: {e.strerror or e}", file=sys.stderr)
        sys.exit(2)
    json.dump(prog, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
