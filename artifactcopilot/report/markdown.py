"""report.md: the evidence report AE chairs audit (paper §IV-D).

Everything that came from the artifact or the agent (notes, commands, summaries) goes through
`esc`/`code`, so a hostile artifact cannot add links, HTML or table cells to the report.
Evidence is cited as relative links into the run directory, where report.md is written.
"""
from __future__ import annotations

import re
from urllib.parse import quote

from ..models import Report, TraceStep
from ..rubric import Rubric

SEVERITIES = ("high", "medium", "low", "info")
_STATUS = {"satisfied": "✓ satisfied", "violated": "✗ violated", "not_applicable": "– n.a."}
# Backslash-escapable punctuation that can start markup inline (CommonMark + GFM tables/strikethrough).
_SPECIAL = re.compile(r"([\\`*_\[\]<>|&!~#])")
_LIST_START = re.compile(r"^([-+=])|^(\d+)([.)])")


def esc(text: object, block: bool = False) -> str:
    """Artifact text as inert Markdown on one line (a newline could end a table row or open a block).
    With block=True the text starts a block (a list item), where '- ' or '1. ' would nest a list."""
    flat = _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    return _LIST_START.sub(lambda m: "\\" + m[1] if m[1] else f"{m[2]}\\{m[3]}", flat) if block else flat


def code(text: object, cell: bool = False) -> str:
    """A code span. Backslashes do not work inside code spans, so backticks in the text get a
    longer fence instead; `|` still needs `\\|` inside a table, where rows are split first."""
    flat = " ".join(str(text).split())
    fence = "`" * (max((len(r) for r in re.findall(r"`+", flat)), default=0) + 1)
    if cell:
        flat = flat.replace("|", "\\|")
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}" if flat else "(empty)"


def mark(ok: bool | None) -> str:
    return "–" if ok is None else ("✓" if ok else "✗")


def shown(value: object) -> str:
    """Observed fact value; None means the review did not establish it, never 'false'."""
    if value is None:
        return "*not established*"
    return esc(str(value).lower() if isinstance(value, bool) else value)


class _Links:
    def __init__(self, report: Report):
        self.paths = {e.id: e.path for e in report.evidence}
        self.ledger = {i.id for i in report.interventions}  # the rule engine cites INT-* for max_intervention

    def __call__(self, ids: list[str]) -> str:
        out = []
        for ev_id in ids:
            path = self.paths.get(ev_id)
            if ev_id in self.ledger:
                out.append(f"{esc(ev_id)} (ledger)")
            elif path is None:  # cited but never committed: show it, so the chair sees the gap
                out.append(f"{esc(ev_id)} (missing)")
            else:  # percent-quote so a path can never become a scheme ('javascript:') or break the link
                out.append(f"[{esc(ev_id)}]({quote(path, safe='/._-')})")
        return ", ".join(out) or "—"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows] + [""]


def _trace_table(steps: list[TraceStep], links: _Links, with_rule: bool = False) -> list[str]:
    head = (["Check"] if with_rule else []) + ["Condition", "Observed", "Result", "Evidence"]
    rows = [([esc(s.rule)] if with_rule else []) + [esc(s.condition), shown(s.value), mark(s.result), links(s.evidence)]
            for s in steps]
    return _table(head, rows)


def _header(r: Report) -> list[str]:
    out = [f"# ArtifactCopilot review — {esc(r.paper)}", ""]
    if r.status == "incomplete":
        out += ["> **⚠ Incomplete review.** Not every phase finished; badges, scores and confidence "
                "reflect only what was established before the review stopped.", ""]
    fields = [("Paper", r.paper), ("Artifact", r.artifact), ("Run id", r.run_id), ("Agent", r.agent),
              ("Sandbox", r.sandbox), ("Status", r.status.upper() if r.status == "incomplete" else r.status),
              ("Date", r.created_at), ("Tool version", r.tool_version)]
    return out + [f"- **{k}:** {esc(v)}" for k, v in fields] + [""]


def _badges(r: Report, rubric: Rubric, links: _Links) -> list[str]:
    titles = {b.id: b.title for b in rubric.badges}
    out = ["## Badge verdict", "", f"**Recommended badge: {esc(titles.get(r.badge, 'No badge'))}**", ""]
    out += _table(["Badge", "Awarded", "Rule"],
                  [[esc(b.title), mark(r.badges.get(b.id)), esc(b.rule)] for b in rubric.badges])
    for b in rubric.badges:
        steps = [s for s in r.derivation if s.rule == b.id]
        out += [f"### Derivation: {esc(b.title)} {mark(r.badges.get(b.id))}", "", f"Rule: {esc(b.rule)}", ""]
        out += _trace_table(steps, links) if steps else ["No conditions were checked for this badge.", ""]
    return out


def _gate(r: Report, rubric: Rubric, links: _Links) -> list[str]:
    rows = []
    for gc, spec in rubric.gate.items():
        res = r.gate.get(gc)
        verdict = "not assessed" if res is None else ("✓ passed" if res.passed else "✗ failed")
        rows.append([gc, esc(spec["title"]), verdict, links(res.evidence if res else [])])
    return ["## Availability gate", ""] + _table(["Check", "Title", "Result", "Evidence"], rows)


def _dimensions(r: Report, rubric: Rubric, links: _Links) -> list[str]:
    out = ["## Dimensions", ""]
    ev_text = rubric.levels["evidence"]
    for dim_id in rubric.registry.dimensions:
        dim, res = rubric.dimensions[dim_id], r.dimensions.get(dim_id)
        out += [f"### {dim_id} — {esc(dim.title)}", ""]
        if res is None or res.score is None:
            out += ["- **Score:** not assessed"]
        else:
            out += [f"- **Score:** {res.score.value} — {esc(dim.criteria[res.score.value])}"]
        if res is None:
            out += [""]
            continue
        lv = res.evidence_level.value
        out += [f"- **Evidence level:** {lv} — {esc(ev_text.get(lv, ''))}",
                f"- **Summary:** {esc(res.summary) or '—'}", f"- **Evidence:** {links(res.evidence)}", ""]
        rows = [[esc(c.item), esc(rubric.item_text(c.item)), _STATUS[c.status], esc(c.note), links(c.evidence)]
                for c in res.checklist]
        out += _table(["Item", "Requirement", "Status", "Note", "Evidence"], rows) if rows else ["No checklist items.", ""]
        steps = [s for s in r.derivation if s.rule.startswith(f"{dim_id}.")]  # score-level trace, if recorded
        if steps:
            out += ["Score derivation:", ""] + _trace_table(steps, links, with_rule=True)
    return out


def _interventions(r: Report, rubric: Rubric, links: _Links) -> list[str]:
    out = ["## Intervention ledger", ""]
    rows = [[esc(i.id), esc(i.phase), i.level.value, code(i.action, cell=True), esc(i.purpose), esc(i.rule),
             esc(i.anticipated_impact), links(i.evidence)] for i in r.interventions]
    out += _table(["Id", "Phase", "Level", "Action", "Purpose", "Rule", "Anticipated impact", "Evidence"], rows) \
        if rows else ["No interventions were logged: the artifact was run as documented (I0).", ""]
    for lv in sorted({i.level for i in r.interventions}):
        out.append(f"- **{lv.value}:** {esc(rubric.levels['intervention'].get(lv.value, ''))}")
    i4 = [i.id for i in r.interventions if i.level.value == "I4"]
    out += ["", "Any I4 intervention (a semantic change) disqualifies Functional and Reusable."
            + (f" **This review logged I4: {esc(', '.join(i4))}.**" if i4 else ""), ""]
    levels = ", ".join(f"{d} {r.dimensions[d].evidence_level.value}" for d in rubric.registry.dimensions if d in r.dimensions)
    return out + [f"Evidence level per dimension: {levels or 'none assessed'}; overall: **{r.evidence_level.value}**.", ""]


def _flags(r: Report, links: _Links) -> list[str]:
    out = ["## Confidence and flags", "",
           f"**Confidence: {r.confidence:.2f}** (a reviewer cue from evidence completeness and intervention "
           "burden; flags and confidence never change a badge).", ""]
    for sev in SEVERITIES:
        flags = [f for f in r.flags if f.severity == sev]
        if flags:
            out += [f"### {sev.capitalize()} severity ({len(flags)})", ""]
            out += [f"- **{esc(f.code)}**{f' ({esc(f.phase)})' if f.phase else ''}: {esc(f.message)}" for f in flags]
            out += [""]
    if not r.flags:
        out += ["No flags raised.", ""]
    checks = [s for s in r.derivation if s.rule.startswith("crosscheck:")]
    if checks:
        out += ["### Cross-check trace", ""] + _trace_table(checks, links, with_rule=True)
    return out


def _bullets(title: str, items: list[str], empty: str) -> list[str]:
    return [f"## {title}", ""] + ([f"- {esc(x, block=True)}" for x in items] or [empty]) + [""]


def _cost(r: Report) -> list[str]:
    out = ["## Cost and timing", "",
           f"- **LLM calls:** {r.cost.llm_calls}", f"- **Tokens:** {r.cost.tokens}", f"- **Cost:** ${r.cost.usd:.2f}"]
    return out + [f"- **{esc(k)}:** {v:.1f} s" for k, v in r.timing.items()] + [""]


def _evidence_index(r: Report, links: _Links) -> list[str]:
    rows = [[links([e.id]), esc(e.phase), esc(e.kind), e.level.value, code(e.sha256[:12], cell=True), esc(e.summary)]
            for e in r.evidence]
    return ["## Evidence index", ""] + (_table(["Evidence", "Phase", "Kind", "Level", "sha256", "Summary"], rows)
                                         if rows else ["No evidence was committed.", ""])


def render_markdown(report: Report, rubric: Rubric) -> str:
    links = _Links(report)
    parts = (_header(report) + _badges(report, rubric, links) + _gate(report, rubric, links)
             + _dimensions(report, rubric, links) + _interventions(report, rubric, links) + _flags(report, links)
             + _bullets("Not established", report.not_established, "Nothing: every fact the rubric asked for was established.")
             + _bullets("To reach the next badge", report.next_badge, "No further steps listed.")
             + _cost(report) + _evidence_index(report, links))
    return "\n".join(parts).rstrip() + "\n"
