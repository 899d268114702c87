#!/usr/bin/python3
"""The tables of the Fashion-MNIST fair protocol, from protocol.sh's raw results.

usage: analyse.py RAW [--target ACC] [--table tuning|heldout|tta|oldnew|all]

RAW is protocol.sh's OUT (meta.txt, tune/, heldout/, speed/). Writes markdown
on standard output:
  tuning   per method and error-feedback placement: the grid as run, its
           best point (effective step, momentum, lr) and whether it is
           inside the grid; the placement chosen. The best point is
           recomputed here from the raw evaluations and must agree with the
           one protocol.sh chose (rounds.txt, best.txt), else exit 1.
  heldout  per method on the held-out seeds: final test accuracy, its gap to
           uncompressed paired by seed with the 95% t-interval, the same for
           the last-epoch mean accuracy, and iterations to the target.
  tta      time to the target at each link speed: iterations to the target
           (median over the held-out seeds) x the method's simulated
           iteration time at that speed.
  oldnew   the gaps of the old protocol (150 iterations of 6,000 images,
           momentum fixed at 0.9, lr tuned alone; quoted from
           workloads/convergence/README.md at commit 708f374) beside the new.
The target defaults to uncompressed's held-out mean final accuracy minus one
point, rounded down to a multiple of 0.005. Needs numpy only.
Exit status: 0; 1 results missing, truncated or inconsistent; 2 bad usage.
"""
import argparse
import csv
import math
import os
import re
import sys

import numpy as np

LABEL = {
    "none": "uncompressed",
    "ef-signsgd": "EF-signSGD",
    "sbc": "SBC 1%",
    "topk": "top-k 1%",
    "marsit": "Marsit (reconstructed compensation)",
    "global-qsgd": "Global-QSGD 8 bits",
    "sign-ring": "naive sign ring",
}
PLACEMENT = {
    "default": "as defined",
    "residual": "EF on gradients, momentum on the aggregate",
    "dgc": "momentum inside EF (DGC correction + masking)",
    "beta0.5": "compensation beta 0.5 (ccsim default)",
    "beta1": "compensation beta 1 (global)",
}
# The old protocol's gaps, 16 workers, iid, held-out seeds 4-8: last-50
# accuracy (5 evaluations of 1,000 test images) minus uncompressed's, points,
# mean [95% t-interval] (workloads/convergence/README.md at 708f374,
# "Report (held-out seeds 4-8)", iid table, 16 workers column).
OLD = {
    "marsit": (-1.86, -4.19, 0.48),
    "sign-ring": (-3.58, -6.24, -0.92),
    "ef-signsgd": (-14.90, -17.81, -11.98),
    "topk": (-5.45, -8.09, -2.81),
    "global-qsgd": (-0.84, -3.69, 2.01),
    "sbc": (-15.11, -19.39, -10.83),
}
OLD_NONE = 0.8182
CHANCE = 0.2  # 10 classes: a final accuracy below this is a collapsed run


class Bad(Exception):
    pass


def t_quantile(p, df):
    """The p quantile of Student's t with df degrees of freedom (p > 0.5):
    bisection on the CDF, the density integrated by Simpson's rule."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def cdf(x):
        n = 4000
        t = np.linspace(0.0, x, n + 1)
        f = c * (1 + t * t / df) ** (-(df + 1) / 2)
        return 0.5 + (x / n / 3) * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def interval(d):
    """mean, low, high of the 95% t-interval of the differences d (None when n < 2)."""
    d = np.asarray(d, dtype=float)
    m = float(d.mean())
    if len(d) < 2:
        return m, None, None
    h = t_quantile(0.975, len(d) - 1) * float(d.std(ddof=1)) / math.sqrt(len(d))
    return m, m - h, m + h


def fmt_gap(m, lo, hi):
    if lo is None:
        return f"{m:+.2f} (one seed: no interval)"
    claim = "worse" if hi < 0 else "better" if lo > 0 else "n.s."
    return f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}] {claim}"


def read_meta(raw):
    p = os.path.join(raw, "meta.txt")
    if not os.path.exists(p):
        raise Bad(f"{p}: missing (not a protocol.sh output directory)")
    meta = {}
    for line in open(p):
        k, _, v = line.rstrip("\n").partition("=")
        meta[k] = v
    if meta.get("status") != "complete":
        raise Bad(f"{p}: status is {meta.get('status', 'absent')!r}, not 'complete': the study did not finish")
    meta["iterations"] = int(meta["iterations"])
    meta["epoch_iters"] = int(meta["epoch_iters"])
    return meta


def read_evals(path):
    """[(iteration, sim_time_s, test_accuracy)] of one run's CSV."""
    rows = list(csv.DictReader(open(path)))
    if not rows:
        raise Bad(f"{path}: no evaluation")
    return [(int(r["iteration"]), float(r["sim_time_s"]), float(r["test_accuracy"])) for r in rows]


def last_epoch(ev, meta):
    frm = meta["iterations"] - meta["epoch_iters"]
    a = [acc for it, _, acc in ev if it >= frm]
    return sum(a) / len(a)


def final(ev, meta, path):
    if ev[-1][0] != meta["iterations"] - 1:
        raise Bad(f"{path}: last evaluation at iteration {ev[-1][0]}, expected {meta['iterations'] - 1}")
    return ev[-1][2]


def tuning(raw, meta):
    """{method: {placement: {"points": {(eff, m): score}, "failed": n, "best": (eff, m, score), "state": str}}}"""
    seeds = meta["tune_seeds"].split()
    out = {}
    for m in meta["methods"].split():
        md = os.path.join(raw, "tune", m)
        if not os.path.isdir(md):
            raise Bad(f"{md}: missing")
        out[m] = {}
        for p in sorted(x for x in os.listdir(md) if os.path.isdir(os.path.join(md, x))):
            pd_ = os.path.join(md, p)
            order = [tuple(line.split()[:2]) for line in open(os.path.join(pd_, "points.txt")) if line.strip()]
            pts, failed = {}, 0
            for e, mo in order:
                sc = []
                for s in seeds:
                    base = os.path.join(pd_, f"e{e}-m{mo}", f"seed{s}")
                    if os.path.exists(base + ".failed"):
                        sc.append(0.0)
                        failed += 1
                    elif os.path.exists(base + ".csv"):
                        sc.append(last_epoch(read_evals(base + ".csv"), meta))
                    else:
                        raise Bad(f"{base}.csv: missing")
                pts[(e, mo)] = round(sum(sc) / len(sc), 6)
            best = None
            for k in order:  # the first of equal scores, as protocol.sh
                if best is None or pts[k] > pts[best]:
                    best = k
            last = open(os.path.join(pd_, "rounds.txt")).read().strip().split("\n")[-1].split()
            if last[0] != "best" or (last[1], last[2]) != best:
                raise Bad(f"{pd_}/rounds.txt: protocol.sh chose {last[1:3]}, the raw evaluations give {list(best)}")
            out[m][p] = {"points": pts, "failed": failed, "best": best, "state": " ".join(last[4:])}
        bt = open(os.path.join(md, "best.txt")).read().split()
        top = max(pts_of(t) for t in out[m].values())
        if bt[0] not in out[m] or pts_of(out[m][bt[0]]) != top:
            raise Bad(f"{md}/best.txt: protocol.sh chose placement {bt[0]}, not one with the best score {top:.6f}")
        out[m]["_chosen"] = bt[0]
    return out


def epochs(meta):
    return f"{meta['epochs']} epoch" + ("" if meta["epochs"] == "1" else "s")


def images(meta):
    n = int(meta["train_samples"])
    return f"{n:,}" if n else "60,000"


def pts_of(t):
    return t["points"][t["best"]]


def lr_of(e, mo):
    return float(e) * (1 - float(mo))


def table_tuning(tu, meta):
    print(f"Tuning: seeds {', '.join(meta['tune_seeds'].split())}; {epochs(meta)} of {images(meta)} "
          f"training images ({meta['iterations']} iterations of 16 workers × 32); "
          f"score = mean test accuracy of the last epoch's evaluations (every {meta['tune_eval_every']} "
          f"iterations, {int(meta['tune_test_samples']):,} test images), averaged over the seeds; a failed "
          f"(diverged) run scores 0; eff = lr / (1 − momentum).")
    print()
    print("| method | error-feedback placement | points run (failed runs) | eff tried | momenta tried | best: eff, momentum (lr) | score | best inside the grid |")
    print("|---|---|---|---|---|---|---|---|")
    for m, pl in tu.items():
        for p, t in pl.items():
            if p == "_chosen":
                continue
            effs = sorted({float(e) for e, _ in t["points"]})
            moms = sorted({float(mo) for _, mo in t["points"]})
            e, mo = t["best"]
            chosen = p == pl["_chosen"]
            b = "**" if chosen else ""
            print(f"| {LABEL.get(m, m)} | {b}{PLACEMENT.get(p, p)}{b} | {len(t['points'])} ({t['failed']}) | "
                  f"{', '.join(f'{x:g}' for x in effs)} | {', '.join(f'{x:g}' for x in moms)} | "
                  f"{b}{e}, {mo} ({lr_of(e, mo):.4g}){b} | {pts_of(t):.4f} | {t['state']} |")
    print()
    print("Bold: the placement each method is reported with (its best score).")


def heldout(raw, meta):
    seeds = meta["heldout_seeds"].split()
    res = {}
    for m in meta["methods"].split():
        r = {}
        for s in seeds:
            base = os.path.join(raw, "heldout", m, f"seed{s}")
            if os.path.exists(base + ".failed"):
                r[s] = None
                continue
            if not os.path.exists(base + ".csv"):
                raise Bad(f"{base}.csv: missing")
            ev = read_evals(base + ".csv")
            r[s] = {"final": final(ev, meta, base + ".csv"), "last": last_epoch(ev, meta), "ev": ev}
        res[m] = r
    return res


def target_of(ho, override):
    if override is not None:
        return override
    f = [r["final"] for r in ho["none"].values() if r]
    if not f:
        raise Bad("no held-out uncompressed run: no target")
    return math.floor((sum(f) / len(f) - 0.01) * 200 + 1e-9) / 200


def iters_to(ev, target):
    for it, _, acc in ev:
        if acc >= target:
            return it + 1
    return None


def median_iters(r, target):
    """median iterations to the target over the seeds (a seed that never
    reaches it counts as infinite), and how many reached it"""
    its = [iters_to(x["ev"], target) if x else None for x in r.values()]
    reached = sum(i is not None for i in its)
    v = sorted(i if i is not None else math.inf for i in its)
    n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    return med, reached, n


def table_heldout(tu, ho, meta, target):
    seeds = meta["heldout_seeds"].split()
    print(f"Held-out seeds {', '.join(seeds)} (tuning never saw them), {epochs(meta)} "
          f"({meta['iterations']} iterations), {int(meta['heldout_test_samples']):,}-image test set. "
          f"Gap: the method's accuracy minus uncompressed's with the same seed, in points: mean "
          f"[95% t-interval over the {len(seeds)} seeds]; a claim where the interval excludes zero. "
          f"Target {target:.3f}: iterations to the first evaluation at or above it (evaluated every "
          f"{meta['heldout_eval_every']} iterations), median over the seeds (reached/seeds).")
    print()
    print("| method | setting (lr, momentum) | final accuracy, mean (min–max) | final: gap to uncompressed | last-epoch mean: gap | iterations to target |")
    print("|---|---|---|---|---|---|")
    base = ho["none"]
    for m, r in ho.items():
        p = tu[m]["_chosen"]
        e, mo = tu[m][p]["best"]
        setting = f"{PLACEMENT.get(p, p) + ', ' if p != 'default' else ''}lr {lr_of(e, mo):.4g}, momentum {mo}"
        ok = [s for s in seeds if r[s]]
        fails = [s for s in seeds if not r[s]]
        if not ok:
            print(f"| {LABEL.get(m, m)} | {setting} | failed on every seed | | | |")
            continue
        f = [r[s]["final"] for s in ok]
        acc = f"{np.mean(f):.4f} ({min(f):.4f}–{max(f):.4f})" + (f"; diverged on seed {', '.join(fails)}" if fails else "")
        chance = [s for s in ok if r[s]["final"] < CHANCE]
        if chance:
            acc += f"; at chance level (below {CHANCE}) on seed {', '.join(chance)}"
        if m == "none":
            gf = gl = "—"
        else:
            pair = [s for s in ok if base[s]]
            gf = fmt_gap(*interval([100 * (r[s]["final"] - base[s]["final"]) for s in pair]))
            gl = fmt_gap(*interval([100 * (r[s]["last"] - base[s]["last"]) for s in pair]))
        med, k, n = median_iters(r, target)
        it = ("never" if med == math.inf else f"{med:g}") + f" ({k}/{n})"
        print(f"| {LABEL.get(m, m)} | {setting} | {acc} | {gf} | {gl} | {it} |")


def speeds(raw, meta):
    names = meta["speeds"].split()
    t = {}
    for m in meta["methods"].split():
        for bw in names:
            p = os.path.join(raw, "speed", m, f"{bw}.csv")
            if not os.path.exists(p):
                raise Bad(f"{p}: missing")
            it, sim, _ = read_evals(p)[-1]
            t[(m, bw)] = sim / (it + 1)
    return names, t


def table_tta(ho, meta, target, raw):
    names, t = speeds(raw, meta)
    print(f"Time to accuracy {target:.3f}: iterations to the target (median over the held-out seeds) × the "
          f"method's simulated iteration time at the link speed (16 V100s, crossbar, 5 µs; the training "
          f"does not depend on the link, so one accuracy curve serves every speed).")
    print()
    print("| method | " + " | ".join(f"ms / iteration, {b}" for b in names) + " | iterations | "
          + " | ".join(f"time to target, {b}" for b in names) + " |")
    print("|---|" + "---|" * (2 * len(names) + 1))
    ref = {}
    med0, _, _ = median_iters(ho["none"], target)
    for b in names:
        ref[b] = med0 * t[("none", b)]
    for m in ho:
        med, k, n = median_iters(ho[m], target)
        cells = [f"{1e3 * t[(m, b)]:.3f}" for b in names]
        cells.append(("never" if med == math.inf else f"{med:g}") + f" ({k}/{n})")
        for b in names:
            if med == math.inf:
                cells.append("never")
            else:
                tt = med * t[(m, b)]
                x = f" ({ref[b] / tt:.2f}× uncompressed)" if m != "none" and ref[b] != math.inf else ""
                cells.append(f"{1e3 * tt:.1f} ms{x}")
        print(f"| {LABEL.get(m, m)} | " + " | ".join(cells) + " |")


def table_oldnew(ho, meta):
    seeds = meta["heldout_seeds"].split()
    print("Gap to uncompressed, points, mean [95% t-interval], 16 workers, iid. Old: 150 iterations on 6,000 "
          "training images, momentum fixed at 0.9 and the learning rate tuned alone, last-50 accuracy on "
          "1,000 test images, held-out seeds 4–8 (workloads/convergence/README.md at commit 708f374). New: "
          f"this protocol, {epochs(meta)} of {images(meta)} images, lr × momentum × placement tuned, "
          f"held-out seeds {', '.join(seeds)}, last-epoch mean and final accuracy on "
          f"{int(meta['heldout_test_samples']):,} test images.")
    print()
    print("| method | old gap | new gap, last-epoch mean | new gap, final | changed |")
    print("|---|---|---|---|---|")
    base = ho["none"]
    nb = [r["final"] for r in base.values() if r]
    print(f"| uncompressed (accuracy) | {OLD_NONE:.4f} | {np.mean([r['last'] for r in base.values() if r]):.4f} | "
          f"{np.mean(nb):.4f} | |")
    for m in ho:
        if m == "none" or m not in OLD:
            continue
        o = OLD[m]
        r = ho[m]
        pair = [s for s in seeds if r[s] and base[s]]
        if not pair:
            print(f"| {LABEL.get(m, m)} | {fmt_gap(*o)} | failed | failed | |")
            continue
        gl = interval([100 * (r[s]["last"] - base[s]["last"]) for s in pair])
        gf = interval([100 * (r[s]["final"] - base[s]["final"]) for s in pair])
        claim = lambda g: "n/a" if g[1] is None else "worse" if g[2] < 0 else "better" if g[1] > 0 else "n.s."
        ch = "same claim" if claim(o) == claim(gl) else f"{claim(o)} → {claim(gl)}"
        print(f"| {LABEL.get(m, m)} | {fmt_gap(*o)} | {fmt_gap(*gl)} | {fmt_gap(*gf)} | {ch} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("raw")
    ap.add_argument("--target", type=float)
    ap.add_argument("--table", default="all", choices=["tuning", "heldout", "tta", "oldnew", "all"])
    a = ap.parse_args()
    try:
        meta = read_meta(a.raw)
        if "none" not in meta["methods"].split():
            raise Bad("the study has no uncompressed method: no gap")
        tu = tuning(a.raw, meta)
        ho = heldout(a.raw, meta)
        target = target_of(ho, a.target)
        q = " QUICK (a pipeline check: tiny data, numbers meaningless)" if meta.get("quick") == "1" else ""
        full = {"epochs": "4", "tune_seeds": "1 2", "heldout_seeds": "11 12 13 14 15", "grid": "full",
                "momenta0": "0 0.5 0.9", "max_rounds": "4", "train_samples": "0", "eff0": "",
                "methods": "none ef-signsgd sbc topk marsit global-qsgd sign-ring"}
        diff = [f"{k} {meta.get(k)}" for k, v in full.items() if str(meta.get(k)) != v]
        if diff and not q:
            q = (f" REDUCED ({'; '.join(diff)}): a check of the pipeline, not the study's numbers")
        print(f"<sub>raw results: {meta['ccsim']} at commit {meta['commit']}, {meta['host']}, JOBS {meta['jobs']}, "
              f"{meta['started']} to {meta['finished']}{q}</sub>")
        for name, fn in (("tuning", lambda: table_tuning(tu, meta)), ("heldout", lambda: table_heldout(tu, ho, meta, target)),
                         ("tta", lambda: table_tta(ho, meta, target, a.raw)), ("oldnew", lambda: table_oldnew(ho, meta))):
            if a.table in (name, "all"):
                print()
                fn()
    except Bad as e:
        print(f"analyse.py: {e}", file=sys.stderr)
        return 1
    except (OSError, KeyError, ValueError, IndexError) as e:
        print(f"analyse.py: {a.raw}: unreadable results: {e!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
