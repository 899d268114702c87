"""The pieces of a report page: one self-contained HTML file, no script, no
external resource (a Content-Security-Policy forbids any), figures as base64
PNGs, each followed by the data it draws.

Every figure is
    <figure class="plot" id="plot-KEY" data-plot="KEY">
      <img src="data:image/png;base64,...">  <figcaption>...</figcaption>
      <script type="application/json" class="plot-data">{...the series drawn...}</script>
      <details><summary>data</summary><table>...</table></details>
    </figure>
so a reader (or a test) can check what a plot shows against the result files.
"""
import base64
import html
import io
import json
import math

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d232a;
 margin:0;background:#f4f6f8}
main{max-width:1060px;margin:0 auto;padding:1.2em 1.6em 3em;background:#fff;min-height:100vh}
h1{font-size:1.6em;margin:.3em 0 .1em}h2{font-size:1.25em;margin:1.6em 0 .5em;padding-top:.4em;
 border-top:2px solid #e3e8ee}
.sub{color:#5b6773;margin:0 0 1em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.88em}
th,td{border-bottom:1px solid #e3e8ee;padding:.22em .7em;text-align:left;vertical-align:top}
th{background:#f0f3f6;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.failed td{color:#a0281e}tr.base td{background:#eef6ee}
code,pre{font-family:"DejaVu Sans Mono",monospace;font-size:.85em}
pre{background:#f6f8fa;padding:.7em;overflow:auto;max-height:32em}
figure.plot{margin:1em 0 1.6em}figure.plot img{max-width:100%;height:auto;border:1px solid #e3e8ee}
figcaption{color:#3d4750;font-size:.9em;margin:.3em 0}
details summary{cursor:pointer;color:#2a5d8f;font-size:.88em}
.note{background:#fff8e1;border-left:4px solid #e0b000;padding:.4em .8em;margin:.6em 0}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1.2em;margin:.4em 0 1em}
dl.kv dt{color:#5b6773}dl.kv dd{margin:0}
nav a{margin-right:1em;color:#2a5d8f}div.wide{overflow-x:auto}
"""

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def esc(x):
    return html.escape(str(x), quote=True)


def num(v, digits=4):
    """A number as a table shows it; None and NaN never reach a table as 'nan'."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:.{digits}g}"
    return str(v)


def finite(v):
    """A float for the data a plot embeds: None for a missing or non-finite value."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def table(header, rows, classes=None, numeric=None):
    """An HTML table; cells are escaped, numbers right-aligned (numeric: the
    column indices, default every cell that is an int or float)."""
    out = ['<div class="wide"><table><thead><tr>', "".join(f"<th>{esc(h)}</th>" for h in header), "</tr></thead><tbody>"]
    for i, r in enumerate(rows):
        cls = f' class="{esc(classes[i])}"' if classes and classes[i] else ""
        cells = []
        for k, c in enumerate(r):
            isnum = (numeric is not None and k in numeric) or (numeric is None and isinstance(c, (int, float)))
            cells.append(f'<td class="n">{esc(num(c))}</td>' if isnum else f"<td>{esc(num(c))}</td>")
        out.append(f"<tr{cls}>{''.join(cells)}</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def kv(pairs):
    return '<dl class="kv">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(num(v))}</dd>" for k, v in pairs) + "</dl>"


def png(fig, dpi=110):
    """The figure as a base64 PNG (closed afterwards)."""
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def figure(key, fig, caption, data, data_table):
    """A plot with its caption, its data as JSON and the same data as a table.
    data_table: (header, rows) for the human reader."""
    text = json.dumps(dict(data, plot=key), allow_nan=False, separators=(",", ":"))
    text = text.replace("</", "<\\/")  # never ends the script element early
    return (f'<figure class="plot" id="plot-{esc(key)}" data-plot="{esc(key)}">'
            f'<img alt="{esc(caption)}" src="data:image/png;base64,{png(fig)}">'
            f"<figcaption>{esc(caption)}</figcaption>"
            f'<script type="application/json" class="plot-data">{text}</script>'
            f"<details><summary>data of this plot</summary>{table(*data_table)}</details></figure>")


def section(key, title, body):
    return f'<section id="{esc(key)}"><h2>{esc(title)}</h2>{body}</section>'


def note(text):
    return f'<p class="note">{esc(text)}</p>'


def page(title, subtitle, sections, kind):
    """The whole page: sections is a list of (key, title, body)."""
    nav = "".join(f'<a href="#{esc(k)}">{esc(t)}</a>' for k, t, _ in sections)
    body = "".join(section(k, t, b) for k, t, b in sections)
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head>"
            f'<body data-report="{esc(kind)}"><main><h1>{esc(title)}</h1><p class="sub">{esc(subtitle)}</p>'
            f"<nav>{nav}</nav>{body}</main></body></html>\n")
