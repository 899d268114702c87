#!/usr/bin/python3
"""tests/report_check.py — what tests/report.sh asserts about a report page.

  report_check.py probe PAGE OUT          OUT: PAGE with a probe script first in
                                          its head (records errors, blocked loads,
                                          images that do not decode, on load)
  report_check.py run RUN PAGE DOM PNG    the run's page: PAGE as written, DOM as
  report_check.py sweep SWEEP PAGE DOM PNG  chromium built it from the probed copy,
                                          PNG its screenshot

Every value a plot embeds is checked against the result files, read here with
the csv and json modules, independently of the ccsim package.
"""
import csv
import json
import math
import os
import sys
from html.parser import HTMLParser

PROBE = """<script>
window.__errors = [];
window.addEventListener("error", function (e) {
  __errors.push("error: " + (e.message || (e.target && (e.target.tagName + " " + String(e.target.src).slice(0, 40)))));
}, true);
document.addEventListener("securitypolicyviolation", function (e) {
  __errors.push("blocked: " + e.violatedDirective + " " + e.blockedURI);
});
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var r = document.createElement("pre");
  r.id = "probe";
  r.textContent = JSON.stringify({
    images: imgs.length,
    broken: imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).map(function (i) { return i.alt; }),
    sizes: imgs.map(function (i) { return [i.naturalWidth, i.naturalHeight]; }),
    errors: __errors});
  document.body.appendChild(r);
});
</script>"""

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def close(a, b, rel=1e-9, abs_=0.0):
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_)


class Page(HTMLParser):
    """Sections, figures (with their images and data), every tag's attributes."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.sections, self.figures, self.tags, self.probe = [], {}, [], None
        self._fig = None
        self._script = None
        self._pre = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "section":
            self.sections.append(a.get("id"))
        elif tag == "figure" and "plot" in a.get("class", "").split():
            self._fig = a["data-plot"]
            self.figures[self._fig] = {"id": a.get("id"), "imgs": [], "data": []}
        elif tag == "img" and self._fig:
            self.figures[self._fig]["imgs"].append(a.get("src", ""))
        elif tag == "script" and a.get("type") == "application/json":
            self._script = []
        elif tag == "pre" and a.get("id") == "probe":
            self._pre = []

    def handle_endtag(self, tag):
        if tag == "figure":
            self._fig = None
        elif tag == "script" and self._script is not None:
            if self._fig:
                self.figures[self._fig]["data"].append(json.loads("".join(self._script)))
            self._script = None
        elif tag == "pre" and self._pre is not False:
            self.probe = json.loads("".join(self._pre))
            self._pre = False

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)
        elif self._pre is not False:
            self._pre.append(data)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fl(s):
    return None if s in ("", None) else float(s)


def static_checks(html_text):
    """The page as written: self-contained, no script but data, a CSP."""
    p = Page(html_text)
    for tag, a in p.tags:
        for k in ("src", "href", "action", "poster", "srcset"):
            if k in a:
                v = a[k] or ""
                check(v.startswith("data:image/png;base64,") or v.startswith("#"),
                      f"<{tag} {k}={v[:60]!r}>: an external resource")
        check(tag not in ("link", "iframe", "object", "embed", "base"), f"<{tag}> in the page")
        if tag == "script":
            check(a.get("type") == "application/json", "a <script> that runs code")
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            check("default-src 'none'" in a.get("content", ""), "the CSP does not forbid loads")
    check(any(t == "meta" and a.get("http-equiv") == "Content-Security-Policy" for t, a in p.tags), "no CSP")
    check("url(" not in html_text and "@import" not in html_text, "CSS that loads something")


def browser_checks(dom_text, png, sections, plots):
    """What chromium built: the probe's verdict, the sections, the plots."""
    p = Page(dom_text)
    check(p.probe is not None, "the probe did not run (the page did not finish loading)")
    if p.probe:
        check(p.probe["errors"] == [], f"errors while loading: {p.probe['errors']}")
        check(p.probe["broken"] == [], f"images that do not decode: {p.probe['broken']}")
        check(p.probe["images"] == len(plots), f"{p.probe['images']} images, expected {len(plots)}")
        check(all(w >= 400 and h >= 100 for w, h in p.probe["sizes"]), f"image sizes {p.probe['sizes']}")
    check(p.sections == sections, f"sections {p.sections}, expected {sections}")
    check(sorted(p.figures) == sorted(plots), f"plots {sorted(p.figures)}, expected {sorted(plots)}")
    for k, f in p.figures.items():
        check(len(f["imgs"]) == 1 and f["imgs"][0].startswith("data:image/png;base64,"), f"{k}: one PNG")
        check(len(f["data"]) == 1 and f["data"][0].get("plot") == k, f"{k}: its data beside it")
    import matplotlib.image as mpimg
    import numpy as np
    img = mpimg.imread(png)
    check(img.shape[1] == 1100, f"screenshot width {img.shape[1]}")
    colours = len(np.unique((img[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    inked = float(np.mean(np.any(img[..., :3] < 0.9, axis=-1)))
    check(colours > 100 and inked > 0.03, f"the screenshot is blank ({colours} colours, {inked:.3f} inked)")
    return {k: f["data"][0] for k, f in p.figures.items() if f["data"]}


def check_run(d, page, dom, png):
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    with open(page) as f:
        static_checks(f.read())
    with open(dom) as f:
        data = browser_checks(f.read(), png, ["setup", "summary", "time", "hops", "convergence", "timeline"],
                              ["time-breakdown", "iteration-time", "hops", "convergence", "timeline"])
    n, tb = s["iterations"], s["time_breakdown_s"]
    b = data.get("time-breakdown", {})
    parts = {x["part"]: x["value"] for x in b.get("stack", [])}
    check(close(sum(parts.values()), s["iteration_time_s"], 1e-12), "breakdown: the bars do not add up to the iteration time")
    check(close(parts.get("compute"), tb["compute"] / n, 1e-12), "breakdown: compute")
    check(close(parts.get("exposed_communicate"), tb["exposed_communicate"] / n, 1e-12), "breakdown: exposed")
    check(all(v >= 0 for v in parts.values()), f"breakdown: a negative part {parts}")
    for k in ("compute", "compress", "communicate", "exposed_communicate"):
        check(close(b.get("per_iteration", {}).get(k), tb[k] / n, 1e-12), f"breakdown: {k} per iteration")
    it = rows(os.path.join(d, "iterations.csv"))
    ser = {x["label"]: x for x in data.get("iteration-time", {}).get("series", [])}
    ys = ser.get("time_s", {}).get("y", [])
    check(len(ys) == len(it) and all(close(y, fl(r["time_s"]), 1e-15) for y, r in zip(ys, it)),
          "iteration-time: time_s")
    hp = rows(os.path.join(d, "hops.csv"))
    per = {}
    for r in hp:
        per.setdefault(int(r["hop"]), []).append(float(r["rel_error"]))
    h = {x["column"]: x for x in data.get("hops", {}).get("series", [])}.get("rel_error", {})
    check(h.get("x") == sorted(per), f"hops: x {h.get('x')}")
    check(all(close(y, sum(per[k]) / len(per[k]), 1e-12) for k, y in zip(sorted(per), h.get("y", []))),
          "hops: y is not the mean error per hop")
    check(all(close(lo, min(per[k]), 1e-15) and close(hi, max(per[k]), 1e-15)
              for k, lo, hi in zip(sorted(per), h.get("lo", []), h.get("hi", []))), "hops: the band")
    ev = [r for r in it if r["test_accuracy"]]
    acc = data.get("convergence", {}).get("panels", [{}])[0]
    check(acc.get("x") == "iteration" and len(acc["series"][0]["y"]) == len(ev) > 0
          and all(close(y, fl(r["test_accuracy"]), 1e-15) for y, r in zip(acc["series"][0]["y"], ev))
          and acc["series"][0]["x"] == [fl(r["iteration"]) for r in ev], "convergence: accuracy against iteration")
    t_end, ends = 0.0, {}
    for r in it:
        t_end += float(r["time_s"])
        ends[r["iteration"]] = t_end
    tacc = data.get("convergence", {}).get("panels", [{}, {}])[1]
    check(tacc.get("x") == "end_s" and all(close(x, ends[r["iteration"]], 1e-12)
                                           for x, r in zip(tacc["series"][0]["x"], ev)),
          "convergence: accuracy against simulated time")
    tl = rows(os.path.join(d, "timeline.csv"))
    last = max(int(r["iteration"]) for r in tl)
    want = [r for r in tl if int(r["iteration"]) == last]
    bars = data.get("timeline", {}).get("bars", [])
    t0 = min(float(r["start_s"]) for r in want)
    check(sorted((b["worker"], b["activity"], round(b["start_ms"], 9)) for b in bars) ==
          sorted((int(r["worker"]), r["activity"], round((float(r["start_s"]) - t0) * 1e3, 9)) for r in want),
          f"timeline: {len(bars)} bars for {len(want)} rows of iteration {last}")


def check_sweep(d, page, dom, png):
    with open(page) as f:
        static_checks(f.read())
    with open(dom) as f:
        data = browser_checks(f.read(), png, ["setup", "summary", "axes", "time", "speedup", "hops"],
                              ["axis-platform.bandwidth", "axis-method", "time-breakdown", "speedup", "hops"])
    pts = {r["point"]: r for r in rows(os.path.join(d, "sweep.csv"))}
    it = {p: float(r["iteration_time_s"]) for p, r in pts.items()}
    bw = data.get("axis-platform.bandwidth", {})
    check(bw.get("numeric") is True and bw.get("unit") == "bit/s", "bandwidth axis: read as bit/s")
    check(bw.get("x") == [1e9, 1e10, 1e11], f"bandwidth axis: x {bw.get('x')}, expected sorted 1e9 < 1e10 < 1e11")
    check(bw.get("x_labels") == ["1Gbps", "10Gbps", "100Gbps"], f"bandwidth axis: ticks {bw.get('x_labels')}")
    check(bw.get("x_scale") == "log", "bandwidth axis: two decades, not on a log scale")
    for s in bw.get("series", []):
        m = s["label"].split("=", 1)[1]
        want = [it[f"platform.bandwidth={b},method={m}"] for b in ("1Gbps", "10Gbps", "100Gbps")]
        check(len(s["y"]) == 3 and all(close(y, w, 1e-15) for y, w in zip(s["y"], want)),
              f"bandwidth axis, {s['label']}: y {s['y']} != sweep.csv {want}")
        base = [it[f"platform.bandwidth={b},method=none"] for b in ("1Gbps", "10Gbps", "100Gbps")]
        check(all(close(u, b / y, 1e-12) for u, b, y in zip(s["speedup"], base, want)),
              f"bandwidth axis, {s['label']}: speed-up")
    me = data.get("axis-method", {})
    check(me.get("numeric") is False and me.get("x_labels") == ["none", "fp16"], "method axis: labels in order")
    check([s["label"] for s in me.get("series", [])] == [f"platform.bandwidth={b}" for b in ("1Gbps", "10Gbps", "100Gbps")],
          "method axis: groups in bandwidth order")
    sp = data.get("speedup", {}).get("points", [])
    check(len(sp) == len(pts), f"speed-up: {len(sp)} points")
    for x in sp:
        b = x["point"].split(",")[0] + ",method=none"
        check(x["baseline"] == b, f"speed-up of {x['point']}: baseline {x['baseline']}")
        check(x["speedup"] == 1.0 if x["point"] == b else close(x["speedup"], it[b] / it[x["point"]], 1e-12),
              f"speed-up of {x['point']}: {x['speedup']}")
    check(sum(x["speedup"] == 1.0 for x in sp) == 3, "speed-up: the three baselines are not exactly 1")
    br = data.get("time-breakdown", {}).get("points", [])
    check(len(br) == len(pts), "breakdown: a bar per point")
    for x in br:
        r = pts[x["point"]]
        check(close(sum(x["stack"].values()), float(r["iteration_time_s"]), 1e-12),
              f"breakdown of {x['point']}: the bars do not add up to the iteration time")
        check(close(x["stack"]["compute"], float(r["compute_s"]), 1e-15) and
              close(x["stack"]["exposed_communicate"], float(r["exposed_communicate_s"]), 1e-15),
              f"breakdown of {x['point']}: compute and exposed are sweep.csv's")
    rank = {"1Gbps": 0, "10Gbps": 1, "100Gbps": 2}
    for key, xs in (("speed-up", sp), ("breakdown", br)):
        order = [(rank[x["point"].split(",")[0].split("=")[1]], x["point"].split("method=")[1]) for x in xs]
        check([o[0] for o in order] == sorted(o[0] for o in order), f"{key}: points not in bandwidth order {order}")
    hs = data.get("hops", {}).get("series", [])
    check(len(hs) == len(pts), "hops: a line per point")
    for s in hs:
        per = {}
        for r in rows(os.path.join(d, s["label"], "hops.csv")):
            per.setdefault(int(r["hop"]), []).append(float(r["rel_error"]))
        check(s["x"] == sorted(per) and all(close(y, sum(per[k]) / len(per[k]), 1e-12) for k, y in zip(s["x"], s["y"])),
              f"hops of {s['label']}")


def main():
    what = sys.argv[1]
    if what == "probe":
        with open(sys.argv[2]) as f:
            text = f.read()
        if "<head>" not in text:
            sys.exit("report_check: no <head>")
        with open(sys.argv[3], "w") as f:
            f.write(text.replace("<head>", "<head>" + PROBE, 1))
        return
    {"run": check_run, "sweep": check_sweep}[what](*sys.argv[2:6])
    print(f"report_check {what}: {'ok' if not failures else f'{len(failures)} failed'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
