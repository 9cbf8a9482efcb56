"""The report's opening for a reviewer (report.json `summary`, the first lines of report.md, the card of report.html):
the badge and why in one sentence — the first failed condition of the next badge in the rule engine's derivation, in
words —, what ran (commands, how many valid, how long, the documented route's outcomes), the paper objects covered
and not, and the first thing a reviewer should try next. Read from the report and its committed evidence; never
raises, and says "not established" rather than guess."""
from __future__ import annotations

import re
from enum import Enum

from ..models import Report, Summary, TraceStep
from ..rubric import Rubric
from ..sandbox.commandlog import STDOUT, parse_log
from ..sandbox.outcome import RunOutcome
from .acquisition import AcquisitionFailure
from .mdtext import esc
from .reading import Reader

_CONDITION = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*(==|!=|>=|<=|>|<)\s*(.+?)\s*$")
_REVIEWER = re.compile(r"(?:^|(?<=\. ))((?:Once [^.]*?, a|A) reviewer\b[^.]*?\bwould\b.*)$")
"""The sentence of a 'not established' entry that says what a reviewer would do (unestablished.py writes it)."""
_ROUTE_WORDS = (("valid", "gave valid output"), ("partial", "partial output"), ("failed", "failed"),
                ("skipped", "skipped for their documented cost"), ("not run", "not run"))


def summarize(report: Report, rubric: Rubric, read: Reader, failure: AcquisitionFailure | None = None) -> Summary:
    commands, valid, seconds = _commands(report, read)
    return Summary(verdict=verdict(report, rubric, failure), commands=commands, valid=valid, seconds=seconds,
                   ran=_ran(report, commands, valid, seconds), covered=list(report.route.covered),
                   not_covered=list(report.route.not_covered), next_step=_next_step(report, rubric, failure))


def summary_lines(report: Report) -> list[str]:
    """The summary as report.md opens with it (nothing for a report written before summaries existed)."""
    s = report.summary
    if not s.verdict:
        return []
    if s.covered or s.not_covered:
        objects = (f"covered: {esc(', '.join(s.covered)) or 'none'}; "
                   f"not covered: {esc(', '.join(s.not_covered)) or 'none'}")
    else:
        objects = "none named: the documentation ties no command to a paper table, figure or experiment"
    # '*' bullets: a list of its own, not one with the run's facts that follow ('-')
    return [f"**{esc(s.verdict)}**", "", f"* **What ran:** {esc(s.ran)}", f"* **Paper objects:** {objects}",
            f"* **Try next:** {esc(s.next_step)}", ""]


# ---------------------------------------------------------------------------------- the badge and why

def _target(report: Report, rubric: Rubric) -> str | None:
    """The lowest badge not awarded: the one the verdict explains."""
    return next((b for b in rubric.registry.badges if not report.badges.get(b)), None)


def awarded(report: Report, rubric: Rubric) -> str:
    """The badge of the ladder and those awarded beside it: 'Artifacts Evaluated — Reusable + Results Reproduced'."""
    titles = {b.id: b.title for b in rubric.badges}
    return " + ".join([titles.get(report.badge, "No badge")] + [
        titles[b] for b in rubric.registry.badges if b not in rubric.registry.tiers and report.badges.get(b)])


def verdict(report: Report, rubric: Rubric, failure: AcquisitionFailure | None = None) -> str:
    titles = {b.id: b.title for b in rubric.badges}
    head, target = awarded(report, rubric), _target(report, rubric)
    if target is None:
        return f"{head}: every condition of every badge holds."
    if failure is not None and report.badge == "none":
        return f"{head}: the artifact could not be acquired ({failure.cause})."
    if target in report.badges_not_established:
        phases = ", ".join(f.phase for f in report.agent_failures if not f.fallback)
        return (f"{head}: {titles[target]} is not established — the agent failed at {phases or 'a phase'}, so this "
                "is a lower bound, not a verdict.")
    failed = [s for s in report.derivation if s.rule == target and not s.result]
    own = [s for s in failed if not s.condition.startswith("badge.")] or failed
    if not own:
        return f"{head}: {titles[target]} was not awarded (no failed condition was recorded)."
    more = len(own) - 1
    rest = f" (and {more} more condition{'s' if more > 1 else ''}, under Badge verdict)" if more else ""
    return f"{head}: not {titles[target]}, because {condition_words(own[0], rubric)}{rest}."


def _value(value: object) -> str:
    return str(value.value if isinstance(value, Enum) else value)


def _lower(text: str) -> str:
    """A sentence as a clause: without its final period, its first word lower-cased unless it is an acronym."""
    text = text.strip().rstrip(".")
    first = text.split(" ", 1)[0]
    return text if len(first) > 1 and first[:2].isupper() else text[:1].lower() + text[1:]


def condition_words(step: TraceStep, rubric: Rubric) -> str:
    """One failed condition of the derivation, in words ('D5 (Reusability) scored R; WA or above is needed')."""
    match = _CONDITION.match(step.condition)
    if not match:
        return f"{step.condition} does not hold"
    fact, _, want = match.groups()
    seen = None if step.value is None else _value(step.value)
    phase, _, key = fact.partition(".")
    if phase == "gate" and key:
        what = f"the availability check {key} ({rubric.gate.get(key, {}).get('title', key)})"
        return f"{what} was not established" if seen is None else f"{what} failed"
    if phase == "badge":
        return f"{({b.id: b.title for b in rubric.badges}).get(key, key)} was not awarded"
    if key == "score" and phase in rubric.dimensions:
        name = f"{phase} ({rubric.dimensions[phase].title})"
        return f"{name} was not scored" if seen is None else f"{name} scored {seen}; {want} or above is needed"
    if fact.endswith("evidence_level"):
        whose = "the review's evidence" if fact == "evidence_level" else f"{phase}'s evidence"
        need = f"{want} ({_lower(rubric.levels['evidence'].get(want, ''))}) is needed"
        return f"{whose} was not established; {need}" if seen is None else f"{whose} reached {seen}; {need}"
    if fact == "max_intervention":
        return (f"the review logged an {seen} intervention "
                f"({_lower(rubric.levels['intervention'].get(str(seen), ''))})")
    doc = rubric.fact_docs.get(fact) or (rubric.item_text(fact) if fact in rubric.facts else "")
    if doc and want in ("true", "false"):
        if seen is None:
            return f"it was not established whether {_lower(doc)}"
        return f"not shown: {_lower(doc)}" if want == "true" else _lower(doc)
    return f"{step.condition} does not hold (observed: {'not established' if seen is None else seen})"


# ---------------------------------------------------------------------------------- what ran

def _commands(report: Report, read: Reader) -> tuple[int, int, float]:
    """(commands run in the sandbox, how many ended valid, their wall time) from the committed command logs."""
    count = valid = 0
    seconds = 0.0
    for ev in report.evidence:
        if not ev.path.endswith(".log"):
            continue
        text = read(ev.id)
        if not text or not text.startswith("$ ") or f"\n{STDOUT}\n" not in text:
            continue
        log = parse_log(text)
        count += 1
        seconds += log.duration_s
        judged = RunOutcome.from_header(log.outcome) if log.outcome else None
        valid += log.ok and (judged is None or judged.valid)
    return count, valid, round(report.timing.get("commands_s", seconds), 1)


def took(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def _ran(report: Report, commands: int, valid: int, seconds: float) -> str:
    if commands == 0:
        stopped = report.gate and not all(g.passed for g in report.gate.values())
        return "No command ran in the sandbox" + ("; the review stopped at the availability gate" if stopped else "")
    out = f"{commands} command{'s' if commands > 1 else ''} in the sandbox ({took(seconds)}), {valid} of them valid"
    entries = report.route.entries
    if entries:
        counts = [(sum(e.status == status for e in entries), words) for status, words in _ROUTE_WORDS]
        parts = ", ".join(f"{n} {words}" for n, words in counts if n)
        out += f"; of the route's {len(entries)} documented command{'s' if len(entries) > 1 else ''}, {parts}"
    total = report.timing.get("total_s")
    return out + (f"; the whole review took {took(total)}" if total else "")


# ---------------------------------------------------------------------------------- what next

def _next_step(report: Report, rubric: Rubric, failure: AcquisitionFailure | None) -> str:
    target = _target(report, rubric)
    if target is None:
        return "Nothing for a badge: every condition holds; the derivation under Badge verdict cites the evidence."
    if failure is not None and report.badge == "none":
        return failure.advice
    if target in report.badges_not_established and report.next_badge:
        return _badge_named(report.next_badge[0], rubric)
    phases = [s.condition.split(".", 1)[0] for s in report.derivation
              if s.rule == target and not s.result and not s.condition.startswith("badge.")]
    said: dict[str, str] = {}
    for entry in report.not_established:
        said.setdefault(entry.split(" ", 1)[0], entry)
    for phase in [*dict.fromkeys(phases), *said]:
        found = _REVIEWER.search(said.get(phase, ""))
        if found:
            return found.group(1)
    if report.next_badge:
        return _badge_named(report.next_badge[0], rubric)
    return "not established: no step was recorded; the derivation under Badge verdict shows what failed."


def _badge_named(advice: str, rubric: Rubric) -> str:
    """'For reusable: …' with the badge's title."""
    for b in rubric.badges:
        if advice.startswith(f"For {b.id}: "):
            return f"For {b.title}: {advice.removeprefix(f'For {b.id}: ')}"
    return advice
