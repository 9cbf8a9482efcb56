"""report.md: the evidence report AE chairs audit (paper §IV-D).

Everything that came from the artifact or the agent (notes, commands, summaries) goes through
`esc`/`code`, so a hostile artifact cannot add links, HTML or table cells to the report.
Evidence is cited as relative links into the run directory, where report.md is written.
"""
from __future__ import annotations

from pathlib import Path

from ..models import Report, TraceStep
from ..rubric import Rubric
from .extras import ReportExtras
from .mdtext import Links, code, esc, mark, shown, table
from .reach import network_lines
from .route import route_section
from .sections import (
    acquisition_block,
    confidence_lines,
    contents,
    crosscheck_section,
    failed_run_block,
    results_section,
)
from .summary import summary_lines

SEVERITIES = ("high", "medium", "low", "info")
_STATUS = {"satisfied": "✓ satisfied", "violated": "✗ violated", "not_applicable": "– n.a."}


def _tracetable(steps: list[TraceStep], links: Links, with_rule: bool = False) -> list[str]:
    head = (["Check"] if with_rule else []) + ["Condition", "Observed", "Result", "Evidence"]
    rows = [([esc(s.rule)] if with_rule else []) + [esc(s.condition), shown(s.value), mark(s.result), links(s.evidence)]
            for s in steps]
    return table(head, rows)


def report_title(r: Report) -> str:
    """The paper's title (its file name when none was read, or for a report written before titles were)."""
    return r.title or Path(r.paper).name


def _header(r: Report, extras: ReportExtras, links: Links) -> list[str]:
    out = [f"# {esc(report_title(r))}", ""] + ([f"*{esc(r.title_note)}*", ""] if r.title_note else [])
    out += acquisition_block(extras.acquisition, links)
    if r.status == "incomplete":
        out += [("> **⚠ Incomplete review.** Not every phase finished; badges, scores and confidence "
                "reflect only what was established before the review stopped."), ""]
    out += summary_lines(r)
    fields = [("Review", "ArtifactCopilot"), ("Paper", r.paper), ("Artifact", r.artifact), ("Run id", r.run_id),
              ("Agent", r.agent),
              ("Sandbox", r.sandbox), ("Status", r.status.upper() if r.status == "incomplete" else r.status),
              ("Date", r.created_at), ("Tool version", r.tool_version)]
    return out + [f"- **{k}:** {esc(v)}" for k, v in fields] + [""]


def _badges(r: Report, rubric: Rubric, links: Links) -> list[str]:
    titles = {b.id: b.title for b in rubric.badges}
    out = ["## Badge verdict", "", f"**Recommended badge: {esc(titles.get(r.badge, 'No badge'))}**", ""]
    if r.badges_not_established:
        failed = "; ".join(f"{f.phase}: {f.reason}" for f in r.agent_failures if not f.fallback)
        out += [f"> **Not a verdict:** {esc(', '.join(r.badges_not_established))} not established — the agent "
                f"failed ({esc(failed)}). The badge above is what the evidence supports so far, a lower bound.", ""]
    out += table(["Badge", "Awarded", "Rule"],
                  [[esc(b.title), mark(r.badges.get(b.id)), esc(b.rule)] for b in rubric.badges])
    for b in rubric.badges:
        steps = [s for s in r.derivation if s.rule == b.id]
        out += [f"### Derivation: {esc(b.title)} {mark(r.badges.get(b.id))}", "", f"Rule: {esc(b.rule)}", ""]
        out += _tracetable(steps, links) if steps else ["No conditions were checked for this badge.", ""]
    return out


def _gate(r: Report, rubric: Rubric, links: Links) -> list[str]:
    rows = []
    for gc, spec in rubric.gate.items():
        res = r.gate.get(gc)
        verdict = "not assessed" if res is None else ("✓ passed" if res.passed else "✗ failed")
        if res is not None and res.agent_failure:
            verdict = f"not established — the agent failed: {esc(res.agent_failure)}"
        rows.append([gc, esc(spec["title"]), verdict, links(res.evidence if res else [])])
    return ["## Availability gate", ""] + table(["Check", "Title", "Result", "Evidence"], rows)


def _dimensions(r: Report, rubric: Rubric, links: Links, extras: ReportExtras) -> list[str]:
    out = ["## Dimensions", ""]
    ev_text = rubric.levels["evidence"]
    for dim_id in rubric.registry.dimensions:
        dim, res = rubric.dimensions[dim_id], r.dimensions.get(dim_id)
        out += [f"### {dim_id} — {esc(dim.title)}", ""]
        if res is not None and res.agent_failure and not res.reviewed_by:
            out += [f"- **Score:** not established — the agent failed: {esc(res.agent_failure)}"]
        elif res is None or res.score is None:
            out += ["- **Score:** not assessed"]
        else:
            out += [f"- **Score:** {res.score.value} — {esc(dim.criteria[res.score.value])}"]
        if res is None:
            out += [""]
            continue
        lv = res.evidence_level.value
        if res.reviewed_by:
            out += [f"- **Reviewed by:** the {esc(res.reviewed_by)} reviewer — the agent failed: "
                    f"{esc(res.agent_failure or '')} (flagged)"]
        out += [f"- **Evidence level:** {lv} — {esc(ev_text.get(lv, ''))}",
                f"- **Summary:** {esc(res.summary) or '—'}", f"- **Evidence:** {links(res.evidence)}", ""]
        if dim_id == "D3":
            out += failed_run_block(extras.failed, links)
        rows = [[esc(c.item), esc(rubric.item_text(c.item)), _STATUS[c.status], esc(c.note), links(c.evidence)]
                for c in res.checklist]
        head = ["Item", "Requirement", "Status", "Note", "Evidence"]
        out += table(head, rows) if rows else ["No checklist items.", ""]
        steps = [s for s in r.derivation if s.rule.startswith(f"{dim_id}.")]  # score-level trace, if recorded
        if steps:
            out += ["Score derivation:", ""] + _tracetable(steps, links, with_rule=True)
    return out


def _interventions(r: Report, rubric: Rubric, links: Links) -> list[str]:
    out = ["## Intervention ledger", ""]
    rows = [[esc(i.id), esc(i.phase), i.level.value, code(i.action, cell=True), esc(i.purpose), esc(i.rule),
             esc(i.anticipated_impact), links(i.evidence)] for i in r.interventions]
    out += table(["Id", "Phase", "Level", "Action", "Purpose", "Rule", "Anticipated impact", "Evidence"], rows) \
        if rows else ["No interventions were logged: the artifact was run as documented (I0).", ""]
    for lv in sorted({i.level for i in r.interventions}):
        out.append(f"- **{lv.value}:** {esc(rubric.levels['intervention'].get(lv.value, ''))}")
    i4 = [i.id for i in r.interventions if i.level.value == "I4"]
    out += ["", "Any I4 intervention (a semantic change) disqualifies Functional and Reusable."
            + (f" **This review logged I4: {esc(', '.join(i4))}.**" if i4 else ""), ""]
    levels = ", ".join(f"{d} {r.dimensions[d].evidence_level.value}" for d in rubric.registry.dimensions
                       if d in r.dimensions)
    return out + [(f"Evidence level per dimension: {levels or 'none assessed'}; "
                  f"overall: **{r.evidence_level.value}**."), ""]


def _flags(r: Report, rubric: Rubric, links: Links, extras: ReportExtras) -> list[str]:
    out = ["## Confidence and flags", ""] + confidence_lines(r, extras.confidence)
    for sev in SEVERITIES:
        flags = [f for f in r.flags if f.severity == sev]
        if flags:
            out += [f"### {sev.capitalize()} severity ({len(flags)})", ""]
            out += [f"- **{esc(f.code)}**{f' ({esc(f.phase)})' if f.phase else ''}: {esc(f.message)}" for f in flags]
            out += [""]
    if not r.flags:
        out += ["No flags raised.", ""]
    return out + crosscheck_section(r, rubric, links)


def _bullets(title: str, items: list[str], empty: str) -> list[str]:
    return [f"## {title}", ""] + ([f"- {esc(x, block=True)}" for x in items] or [empty]) + [""]


def _cost(r: Report) -> list[str]:
    out = ["## Cost and timing", "",
           f"- **LLM calls:** {r.cost.llm_calls}", f"- **Tokens:** {r.cost.tokens}", f"- **Cost:** ${r.cost.usd:.2f}"]
    return out + [f"- **{esc(k)}:** {v:.1f} s" for k, v in r.timing.items()] + [""]


def _evidence_index(r: Report, links: Links) -> list[str]:
    rows = [[links([e.id]), esc(e.phase), esc(e.kind), e.level.value, code(e.sha256[:12], cell=True), esc(e.summary)]
            for e in r.evidence]
    return ["## Evidence index", ""] + (table(["Evidence", "Phase", "Kind", "Level", "sha256", "Summary"], rows)
                                         if rows else ["No evidence was committed.", ""])


def render_markdown(report: Report, rubric: Rubric, extras: ReportExtras | None = None) -> str:
    """report.md; `extras` (see extras.py) adds what is read back from evidence: the acquisition failure,
    reproduced results, D3's failing command and the confidence findings."""
    extras = extras or ReportExtras()
    links = Links(report)
    gate_failed = bool(report.gate) and not all(g.passed for g in report.gate.values() if not g.agent_failure)
    body = (results_section(extras.tables, links, gate_failed, extras.failed) + _badges(report, rubric, links)
            + _gate(report, rubric, links) + _dimensions(report, rubric, links, extras)
            + route_section(report.route, links)
            + _interventions(report, rubric, links) + _flags(report, rubric, links, extras)
            + network_lines(report.network)
            + _bullets("Not established", report.not_established,
                       "Nothing: every fact the rubric asked for was established.")
            + _bullets("To reach the next badge", report.next_badge, "No further steps listed.")
            + _cost(report) + _evidence_index(report, links))
    parts = _header(report, extras, links) + contents(body) + body
    return "\n".join(parts).rstrip() + "\n"
