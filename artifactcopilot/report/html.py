"""report.html: report.md rendered as one standalone page, readable straight from the run directory.

Raw HTML in the Markdown is disabled, so artifact text that slipped through is shown as text,
and a Content-Security-Policy forbids scripts and remote loads as a second line of defence.
The page adds a summary card, a table of contents, colours for verdicts (with the ✓/✗/⚠ marks kept,
so colour is never the only cue) and hashes that do not wrap.
"""
from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from ..models import Report
from ..rubric import Rubric
from .extras import ReportExtras
from .markdown import SEVERITIES, report_title
from .mdtext import esc
from .sections import slug
from .summary import awarded, summary_lines

_CSS = """
:root{--ok:#1b6e2d;--ok-bg:#e7f5ea;--bad:#a4161a;--bad-bg:#fdeaea;--warn:#8a5300;--warn-bg:#fff3dc;--na:#5f6368}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1150px;margin:2em auto;padding:0 1em;
color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0 1em;width:100%;font-size:.92em}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{background:#f4f4f4;padding:0 .2em;overflow-wrap:anywhere}
code.hash{white-space:nowrap;overflow-wrap:normal}
pre{background:#f6f6f6;border:1px solid #ddd;border-left:4px solid var(--bad);padding:.6em .8em;overflow-x:auto}
pre code{background:none;overflow-wrap:normal}
blockquote{margin:0 0 1em;padding:.5em 1em;background:var(--warn-bg);border-left:4px solid #e69500}
blockquote.failure{background:var(--bad-bg);border-left-color:var(--bad)}
td.v-ok{color:var(--ok);background:var(--ok-bg)}td.v-bad{color:var(--bad);background:var(--bad-bg)}
td.v-warn{color:var(--warn);background:var(--warn-bg)}td.v-na{color:var(--na)}
li.score-A,li.score-WA{color:var(--ok)}li.score-WR{color:var(--warn)}li.score-R{color:var(--bad)}
.card{border:1px solid #bbb;border-radius:6px;padding:.8em 1.2em;margin-bottom:1em;background:#fafafa}
.card .badge{font-size:1.3em;font-weight:600}.card.ok{border-left:6px solid var(--ok)}
.card.none{border-left:6px solid var(--bad)}.card .warn{color:var(--warn);font-weight:600}
.card .why{color:var(--bad)}.card #summary p{margin:.4em 0}.card #summary ul{margin:.3em 0}
nav#contents{font-size:.92em;margin:0 0 1.5em}nav#contents ol{columns:2;margin:.3em 0}
.sev{display:inline-block;margin-right:1em}.sev-high{color:var(--bad)}.sev-medium{color:var(--warn)}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"
_MARKS = (("✓", "v-ok"), ("✗", "v-bad"), ("⚠", "v-warn"), ("–", "v-na"))
_HASH = re.compile(r"^[0-9a-f]{12,64}$")
_SCORE = re.compile(r"^\*\*Score:\*\* (A|WA|WR|R)\b")
_TITLE_END = re.compile(r"</h1>\n(?:<p><em>.*?</em></p>\n)?")


def _mark_class(text: str) -> str | None:
    return next((cls for sign, cls in _MARKS if text.startswith(sign)), None)


def _decorate(state) -> None:
    """Classes on rendered tokens: verdict cells, score lines, hashes, the acquisition-failure quote."""
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type == "td_open" and i + 1 < len(tokens) and tokens[i + 1].type == "inline":
            cls = _mark_class(tokens[i + 1].content.strip())
            if cls:
                tok.attrSet("class", cls)
        elif tok.type == "list_item_open" and i + 2 < len(tokens) and tokens[i + 2].type == "inline":
            score = _SCORE.match(tokens[i + 2].content)
            if score:
                tok.attrSet("class", f"score-{score.group(1)}")
        elif tok.type == "blockquote_open" and i + 2 < len(tokens) and tokens[i + 2].content.startswith("**✗"):
            tok.attrSet("class", "failure")
        elif tok.type == "inline":
            for child in tok.children or []:
                if child.type == "code_inline" and _HASH.match(child.content):
                    child.attrSet("class", "hash")


def _md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    seen: dict[str, int] = {}

    def heading_open(self, tokens, idx, options, env):
        # Stable ids (e.g. #d3-workflow-executability) so chairs and tests can link to a section.
        sid = slug(re.sub(r"\(\d+\)$", "", tokens[idx + 1].content))  # "High severity (2)" -> high-severity
        seen[sid] = seen.get(sid, 0) + 1
        tokens[idx].attrSet("id", sid if seen[sid] == 1 else f"{sid}-{seen[sid]}")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("heading_open", heading_open)
    md.core.ruler.push("copilot_decorate", _decorate)
    return md


def _card(report: Report, rubric: Rubric, extras: ReportExtras, summary: str) -> str:
    counts = "".join(
        f'<span class="sev sev-{sev}">{sev}: {sum(f.severity == sev for f in report.flags)}</span>'
        for sev in SEVERITIES)
    warn = ('<p class="warn">⚠ Incomplete review: not every phase finished.</p>'
            if report.status == "incomplete" else "")
    why = ""
    if extras.acquisition is not None:
        why = (f'<p class="why" id="acquisition-failure">✗ The artifact could not be acquired '
               f"({html.escape(extras.acquisition.cause)}): {html.escape(extras.acquisition.reason)}</p>")
    tone = "none" if report.badge == "none" else "ok"
    summary = f'<div id="summary">\n{summary}</div>\n' if summary else ""
    badge = html.escape(awarded(report, rubric))
    return (f'<section id="badge" class="card {tone}">\n<div class="badge">{badge}</div>\n'
            f"{warn}{why}{summary}<p>Confidence: <strong>{report.confidence:.2f}</strong> · "
            f"Evidence level: <strong>{html.escape(report.evidence_level.value)}</strong> · "
            f"Status: <strong>{html.escape(report.status)}</strong></p>\n"
            f'<p id="flag-counts">Flags — {counts}</p>\n</section>')


def _without_badge(block: str, report: Report, rubric: Rubric) -> str:
    """The summary for the card, whose headline already names the badge: the verdict sentence without it."""
    lead = f"**{esc(awarded(report, rubric))}: "
    if not block.startswith(lead):
        return block
    rest = block[len(lead):]
    return f"**{rest[:1].upper()}{rest[1:]}"


def _contents(markdown_text: str) -> tuple[str, str]:
    """(the Markdown without its Contents line, a <nav> listing the level-2 sections)."""
    lines = markdown_text.split("\n")
    kept = [ln for ln in lines if not ln.startswith("**Contents:** ")]
    heads = [ln[3:].strip() for ln in kept if ln.startswith("## ")]
    items = "".join(f'<li><a href="#{slug(h)}">{html.escape(h)}</a></li>' for h in heads)
    nav = f'<nav id="contents" aria-label="Contents"><strong>Contents</strong><ol>{items}</ol></nav>\n' if heads else ""
    return "\n".join(kept), nav


def render_html(report: Report, rubric: Rubric, markdown_text: str, extras: ReportExtras | None = None) -> str:
    text, nav = _contents(markdown_text)
    block = "\n".join(summary_lines(report))
    if block and block in text:  # the summary opens the page in the card, not twice
        text = text.replace(block, "", 1)
    body = _md().render(text)
    at = body.find("<h2")  # the contents go after the title and the run's facts, before the first section
    body = body[:at] + nav + body[at:] if at >= 0 else nav + body
    card = _card(report, rubric, extras or ReportExtras(), _md().render(_without_badge(block, report, rubric)))
    head = _TITLE_END.search(body)  # the card right under the title (and the note on how it was read)
    body = body[:head.end()] + card + "\n" + body[head.end():] if head else card + "\n" + body
    title = html.escape(f"{report_title(report)} — ArtifactCopilot review")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<main>\n{body}</main>\n</body>\n</html>\n")
