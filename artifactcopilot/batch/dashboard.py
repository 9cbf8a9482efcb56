"""index.html: the venue dashboard. One static file, opened straight from the batch folder (file://):
inline CSS, inline SVG charts, a few lines of inline script for sorting, no remote loads.

Rows come in the summary's order: artifacts that most need a human (failed review, disagreement
with the human badge, high-severity flags, low confidence) first. Clicking a header sorts; the
sort is kept in the URL (#sort=cost-desc) so a sorted view can be linked."""
from __future__ import annotations

from html import escape

from ..phases import registry
from .summary_md import dimension_title, pct

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;\
margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}.cards{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}
.card{border:1px solid #ccc;border-radius:6px;padding:.5em .9em;background:#fafafa;min-width:8em}
.card b{display:block;font-size:1.3em}.charts{display:flex;flex-wrap:wrap;gap:2em;margin:1em 0}
.notice{background:#fff4e5;border-left:4px solid #e69500;padding:.5em 1em}
table{border-collapse:collapse;width:100%;font-size:.93em}\
th,td{border:1px solid #ddd;padding:.25em .45em;text-align:left;vertical-align:top}
th{background:#f1f1f1;cursor:pointer;user-select:none;white-space:nowrap}th[aria-sort=ascending]::after{content:" ▲"}
th[aria-sort=descending]::after{content:" ▼"}tr.attn td:first-child{border-left:4px solid #c62828}
td.agree-no{background:#fde8e8}td.dim{white-space:nowrap}td.agree-yes{background:#e8f5e9}.num{text-align:right}.small{color:#666;font-size:.9em}
"""
_SCRIPT = """
(function(){
  var table=document.getElementById('artifacts'), body=table.tBodies[0];
  function sortBy(col, dir){
    var th=table.querySelector('th[data-col="'+col+'"]'); if(!th) return;
    var idx=Array.prototype.indexOf.call(th.parentNode.children, th), numeric=th.dataset.type==='num';
    var rows=Array.prototype.slice.call(body.rows);
    rows.sort(function(a,b){
      var x=a.cells[idx].dataset.sort, y=b.cells[idx].dataset.sort;
      if(numeric){x=parseFloat(x); y=parseFloat(y); x=isNaN(x)?-1e9:x; y=isNaN(y)?-1e9:y;}
      var r = x<y?-1:(x>y?1:0); return dir==='desc'?-r:r;
    });
    rows.forEach(function(r){body.appendChild(r);});
    Array.prototype.forEach.call(table.querySelectorAll('th'), function(h){h.removeAttribute('aria-sort');});
    th.setAttribute('aria-sort', dir==='desc'?'descending':'ascending');
  }
  Array.prototype.forEach.call(table.querySelectorAll('th[data-col]'), function(th){
    th.addEventListener('click', function(){
      var dir=th.getAttribute('aria-sort')==='ascending'?'desc':'asc';
      sortBy(th.dataset.col, dir); history.replaceState(null,'','#sort='+th.dataset.col+'-'+dir);
    });
  });
  var m=/^#sort=([a-z0-9_]+)-(asc|desc)$/.exec(location.hash); if(m) sortBy(m[1], m[2]);
})();
"""
COLUMNS = [("attention", "Needs a human", "num"), ("id", "Artifact", "text"), ("predicted", "Predicted", "num"),
           ("human", "Human", "num"), ("agree", "Agrees", "text")] + [
           (d.lower(), d, "num") for d in registry().dimensions] + [
           ("confidence", "Confidence", "num"), ("flags", "Flags", "num"), ("cost", "Cost (USD)", "num"),
           ("time", "Time (s)", "num"), ("status", "Status", "text"), ("report", "Report", "text")]
_SCORE_RANK = {"R": 0, "WR": 1, "WA": 2, "A": 3}


def _td(text: str, sort, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f'<td data-sort="{escape(str(sort))}"{attr}>{text}</td>'


def _row(a: dict) -> str:
    agree = "" if not (a["human"] and a["predicted"]) else ("yes" if a["human"] == a["predicted"] else "no")
    cells = [_td(escape("; ".join(a["attention"])) or '<span class="small">–</span>', a["priority"]),
             _td(escape(a["id"]), a["id"]),
             _td(escape(a["predicted"] or "–"), registry().tiers.index(a["predicted"]) if a["predicted"] else -1),
             _td(escape(a["human"] or "–"), registry().tiers.index(a["human"]) if a["human"] else -1),
             _td(agree or "–", agree, f"agree-{agree}" if agree else "")]
    for d in registry().dimensions:
        got, want = a["dimensions"].get(d), a["human_dimensions"].get(d)
        text = escape(got or "–") + (f' <span class="small">/ {escape(want)}</span>' if want else "")
        cells.append(_td(text, _SCORE_RANK.get(got, -1), "dim agree-no" if want and got != want else "dim"))
    flags = a["flags"]
    flag_text = ", ".join(f"{flags[s]} {s}" for s in ("high", "medium", "low") if flags.get(s)) or "–"
    flag_rank = flags.get("high", 0) * 100 + flags.get("medium", 0) * 10 + flags.get("low", 0)
    link = f'<a href="{escape(a["report"])}">report</a>' if a["report"] else "–"
    cells += [_td("–" if a["confidence"] is None else f"{a['confidence']:.2f}",
                  a["confidence"] if a["confidence"] is not None else ""),
              _td(escape(flag_text) + (f'<div class="small">{escape(", ".join(a["flag_codes"]))}</div>'
                                       if a["flag_codes"] else ""), flag_rank),
              _td(f"{a['cost_usd']:.4f}", a["cost_usd"], "num"), _td(f"{a['time_s']:.2f}", a["time_s"], "num"),
              _td(escape(a["status"]), a["status"]), _td(link, a["report"] or "")]
    cls = ' class="attn"' if a["priority"] >= 20 else ""
    return f'<tr data-id="{escape(a["id"])}"{cls}>' + "".join(cells) + "</tr>"


def confusion_svg(confusion: dict, labelled: int) -> str:
    size, left, top = 62, 92, 56
    width, height = left + size * len(registry().tiers) + 10, top + size * len(registry().tiers) + 30
    parts = [f'<svg id="confusion" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="Confusion matrix, human badge by predicted badge">',
             f'<text x="{left}" y="16" font-size="13" font-weight="600">Confusion matrix</text>',
             f'<text x="{left}" y="36" font-size="11" fill="#555">predicted →</text>']
    peak = max((c for row in confusion["matrix"] for c in row), default=0) or 1
    for j, label in enumerate(registry().tiers):
        parts.append(f'<text x="{left + j * size + size / 2}" y="{top - 6}" font-size="11" text-anchor="middle">'
                     f'{label}</text>')
    for i, (label, row) in enumerate(zip(confusion["labels"], confusion["matrix"])):
        y = top + i * size
        parts.append(f'<text x="{left - 6}" y="{y + size / 2 + 4}" font-size="11" text-anchor="end">{label}</text>')
        for j, count in enumerate(row):
            hue = 130 if i == j else 8
            light = 96 - int(46 * count / peak) if count else 98
            parts.append(f'<rect x="{left + j * size}" y="{y}" width="{size}" height="{size}" '
                         f'fill="hsl({hue},60%,{light}%)" stroke="#bbb">'
                         f'<title>human {label}, predicted {registry().tiers[j]}: {count}</title></rect>'
                         f'<text x="{left + j * size + size / 2}" y="{y + size / 2 + 5}" font-size="14" '
                         f'text-anchor="middle">{count}</text>')
    parts.append(f'<text x="4" y="{height - 8}" font-size="11" fill="#555">rows: human badge'
                 f'{"" if labelled else " (no human badges given)"}</text></svg>')
    return "".join(parts)


def dimensions_svg(dimensions: dict) -> str:
    bar, gap, height, base = 18, 22, 160, 190
    width = 60 + len(registry().dimensions) * (2 * bar + gap) + 150
    parts = [f'<svg id="dimension-agreement" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{base + 30}" '
             'role="img" aria-label="Per-dimension agreement">',
             '<text x="40" y="16" font-size="13" font-weight="600">Per-dimension agreement</text>']
    for tick in (0, 50, 100):
        y = base - height * tick / 100
        parts.append(f'<line x1="40" x2="{width - 150}" y1="{y}" y2="{y}" stroke="#ddd"/>'
                     f'<text x="34" y="{y + 4}" font-size="10" text-anchor="end">{tick}%</text>')
    for k, dim in enumerate(registry().dimensions):
        x = 50 + k * (2 * bar + gap)
        for m, (key, color) in enumerate((("accuracy", "#3b6fb6"), ("f1", "#e08a2c"))):
            value = dimensions[dim][key]
            h = 0 if value is None else height * value
            parts.append(f'<rect class="bar-{key}" data-dim="{dim}" x="{x + m * bar}" y="{base - h}" '
                         f'width="{bar - 2}" height="{h}" fill="{color}">'
                         f'<title>{dim} {dimension_title(dim)} {key}: {pct(value)} (n={dimensions[dim]["n"]})'
                         '</title></rect>')
        parts.append(f'<text x="{x + bar}" y="{base + 16}" font-size="11" text-anchor="middle">{dim}</text>')
    lx = width - 140
    parts.append(f'<rect x="{lx}" y="40" width="10" height="10" fill="#3b6fb6"/>'
                 f'<text x="{lx + 14}" y="49" font-size="11">4-class accuracy</text>'
                 f'<rect x="{lx}" y="58" width="10" height="10" fill="#e08a2c"/>'
                 f'<text x="{lx + 14}" y="67" font-size="11">F1 (WA/A positive)</text></svg>')
    return "".join(parts)


def _cards(s: dict) -> str:
    func = s["gate"]["functional"]
    items = [("Artifacts", s["n"]), ("Reviewed", s["completed"]), ("Labelled", s["labelled"]),
             ("Exact match", pct(s["exact_match"])), ("Macro F1", pct(s["macro_f1"])),
             ("Functional P / R", f"{pct(func['precision'])} / {pct(func['recall'])}"),
             ("Failed reviews", len(s["failures"])), ("Cost", f"${s['cost']['total_usd']:.2f}")]
    if s.get("stability"):
        st = s["stability"]
        items += [("Consistent runs", f"{st['consistent']}/{st['n']}"), ("Failure rate", pct(st["failure_rate"]))]
    return '<div class="cards">' + "".join(f'<div class="card">{escape(k)}<b>{escape(str(v))}</b></div>'
                                           for k, v in items) + "</div>"


def render_dashboard(s: dict) -> str:
    notice = ""
    if s["stopped"]["reason"]:
        why = "the cost limit was reached" if s["stopped"]["reason"] == "max-cost" else "the run was interrupted"
        notice = f'<p class="notice">Incomplete: {why}; {len(s["stopped"]["not_started"])} review(s) not run yet.</p>'
    head = "".join(f'<th data-col="{c}" data-type="{t}" scope="col">{escape(title)}</th>' for c, title, t in COLUMNS)
    rows = "\n".join(_row(a) for a in s["artifacts"])
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
            f'<title>ArtifactCopilot batch — {s["n"]} artifacts</title>\n'
            f"<style>{_CSS}</style>\n</head>\n<body>\n<h1>Batch review: {s['completed']} of {s['n']} artifacts</h1>\n"
            f'<p class="small">Manifest {escape(s["manifest"])} · {s["repeat"]} run(s) per artifact · '
            f'{escape(s["created_at"])}</p>\n'
            f"{notice}{_cards(s)}\n<div class=\"charts\">{confusion_svg(s['confusion'], s['labelled'])}"
            f"{dimensions_svg(s['dimensions'])}</div>\n"
            f'<table id="artifacts">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>\n'
            '<p class="small">Rows start with the artifacts that most need a human: failed reviews, '
            'disagreement with the human badge, high-severity flags, low confidence. Click a column to sort.</p>\n'
            f"<script>{_SCRIPT}</script>\n</body>\n</html>\n")
