"""summary.md: the agreement tables in the layout of the paper's Tables III and V."""
from __future__ import annotations

from ..phases import registry


def dimension_title(dim: str) -> str:
    return registry().spec(dim).name


def pct(value) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _scores(m: dict) -> str:
    return f"{pct(m['accuracy'])} | {pct(m['precision'])} | {pct(m['recall'])} | {pct(m['f1'])} |"


def _agent_failures(af: dict) -> list[str]:
    """Reviews whose agent failed a phase: counted apart, never as badge 'none'."""
    if not (af.get("reviews") or af.get("fallback")):
        return []
    phases = ", ".join(f"{p} {n}" for p, n in (af.get("phases") or {}).items()) or "–"
    return ["## Agent failures (not verdicts)", "",
            f"- reviews in which the agent failed a phase: {af['reviews']} (phases: {phases})",
            f"- of those, badge only a lower bound (left out of the agreement figures, not counted as "
            f"'none'): {af['not_a_verdict']}",
            f"- reviews with phases reviewed offline after the agent failed (flagged): {af['fallback']}", ""]


def render_summary_md(s: dict) -> str:
    lines = [f"# Batch summary ({s['completed']}/{s['n']} artifacts reviewed)", ""]
    if s["stopped"]["reason"] == "max-cost":
        lines += [f"> Stopped at the cost limit: {len(s['stopped']['not_started'])} review(s) not started. "
                  "Run again with a higher --max-cost to continue.", ""]
    elif s["stopped"]["reason"] == "interrupted":
        lines += [f"> Interrupted: {len(s['stopped']['not_started'])} review(s) still to run. "
                  "Run the same command again to resume.", ""]
    lines += [f"Labelled artifacts (human badge given): {s['labelled']}"
              + (f"; {s['repeat']} runs each, values are means over runs." if s["repeat"] > 1 else "."), ""]
    lines += ["## Agreement with human adjudication", "",
              "| Layer | Item | Description | Acc. | Prec. | Rec. | F1 |", "|---|---|---|---|---|---|---|",
              f"| Badge | Exact match | Four-level badge | {pct(s['exact_match'])} | {pct(s['macro_precision'])} | "
              f"{pct(s['macro_recall'])} | {pct(s['macro_f1'])} |"]
    for gate, title in ((b, registry().badge_rule(b)) for b in registry().tiers[1:]):
        g = s["gate"][gate]
        lines.append(f"| Gate | {gate.capitalize()} | {title} | " + _scores(g))
    for dim in registry().dimensions:
        d = s["dimensions"][dim]
        lines.append(f"| Dimension | {dim} | {dimension_title(dim)} (n={d['n']}) | " + _scores(d))
    m = s["dimensions"]["mean"]
    lines += [f"| Dimension | Mean | over {registry().dimension_span()} | " + _scores(m), "",
              "Gate accuracy for Functional is the artifact-level binary separator; "
              "dimension precision/recall/F1 count WA/A as positive.", ""]
    lines += ["## Confusion matrix (rows: human, columns: predicted)", "",
              "| human \\ predicted | " + " | ".join(registry().tiers) + " |", "|---|" + "---|" * len(registry().tiers)]
    for label, row in zip(s["confusion"]["labels"], s["confusion"]["matrix"]):
        lines.append(f"| {label} | " + " | ".join(str(c) for c in row) + " |")
    lines.append("")
    if s.get("stability"):
        st = s["stability"]
        cost = "–" if st["mean_cost_usd"] is None else f"${st['mean_cost_usd']:.3f}"
        lines += [f"## Stability across {st['repeat']} runs", "",
                  "| Badge consistency | Badge divergence | Functional agreement | Failure rate | Cost |",
                  "|---|---|---|---|---|", f"| {st['consistent']}/{st['n']} | {st['divergent']}/{st['n']} | "
                  f"{st['functional_agreement']}/{st['n']} | {pct(st['failure_rate'])} | {cost} |", ""]
    c = s["cost"]
    lines += ["## Cost and time", "", f"- completed review runs: {c['reviews']}",
              f"- cost: ${c['total_usd']:.4f} total"
              + (f", ${c['mean_usd']:.4f} per review" if c["mean_usd"] is not None else ""),
              f"- time: {c['total_s']:.1f} s of review time"
              + (f", {c['mean_s']:.2f} s per review" if c["mean_s"] is not None else ""), ""]
    lines += _agent_failures(s.get("agent_failures") or {})
    if s["failures"]:
        lines += ["## Failed reviews", "", "| Artifact | Run | Kind | Message |", "|---|---|---|---|"]
        lines += [f"| {_cell(f['id'])} | {f['run']} | {f['kind']} | {_cell(f['message'][:200])} |"
                  for f in s["failures"]]
        lines.append("")
    lines += ["## Artifacts (those needing a human first)", "",
              f"| Artifact | Predicted | Human | {registry().dimension_span()} | Confidence | "
              "Needs a human because | Report |", "|---|---|---|---|---|---|---|"]
    for a in s["artifacts"]:
        dims = " ".join(a["dimensions"].get(d) or "–" for d in registry().dimensions) if a["dimensions"] else "–"
        conf = "–" if a["confidence"] is None else f"{a['confidence']:.2f}"
        report = f"[report]({a['report']})" if a["report"] else "–"
        predicted = (a["predicted"] or a["status"]) + (" (agent failed)" if a.get("agent_failed") else "")
        lines.append(f"| {_cell(a['id'])} | {predicted} | {a['human'] or '–'} | {dims} | {conf} | "
                     f"{_cell('; '.join(a['attention'])) or '–'} | {report} |")
    return "\n".join(lines) + "\n"
