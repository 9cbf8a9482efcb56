""""Not established", in words: for each dimension scored below WA, what the review tried, what blocked it and
what a reviewer with those resources would do next — instead of a list of checklist ids.

Everything is read from the evidence the phases committed: the command logs their unmet items cite (the command,
its exit status or the time it was cut at, the last lines it printed) and the notes of those items. The cause is
the first blocker of rubric/blockers.yaml whose pattern matches a failing command's output (a GPU, restricted
data, a download from elsewhere, a program or module that is not installed, a pin no interpreter here satisfies,
memory, a file missing from the repository, an error line), or a time cut. Artifact names play no part.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from ..models import PhasePacket, Score
from ..resources import data_dir
from ..rubric import Rubric
from ..sandbox.commandlog import STDOUT, CommandLog, parse_log
from .reading import Reader

TAIL = 6000
MAX_LOGS = 16


@dataclass(frozen=True)
class Blocker:
    code: str
    pattern: re.Pattern[str]
    blocked: str
    next: str


@dataclass
class Cause:
    code: str
    blocked: str
    next: str
    evidence: str


@lru_cache(maxsize=1)
def blockers() -> tuple[Blocker, ...]:
    """rubric/blockers.yaml (a rubric folder without it: none, and causes fall back to the exit status)."""
    try:
        doc = yaml.safe_load((data_dir("rubric") / "blockers.yaml").read_text(encoding="utf-8")) or []
    except (OSError, yaml.YAMLError):
        return ()
    return tuple(Blocker(str(b["code"]), re.compile(str(b["pattern"])), str(b["blocked"]), str(b["next"]))
                 for b in doc if isinstance(b, dict) and {"code", "pattern", "blocked", "next"} <= set(b))


def _logs(ids: list[str], read: Reader) -> list[tuple[str, CommandLog]]:
    out = []
    for ev_id in dict.fromkeys(ids):
        text = read(ev_id)
        if text and text.startswith("$ ") and f"\n{STDOUT}\n" in text:
            out.append((ev_id, parse_log(text)))
        if len(out) >= MAX_LOGS:
            break
    return out


def _shown(log: CommandLog) -> str:
    lines = [ln for ln in log.script.strip().splitlines() if ln.strip()]
    return f"`{(lines[-1] if lines else 'command')[:100]}`"


def _status(log: CommandLog) -> str:
    if log.timed_out:
        return f"cut at {log.duration_s:.0f} s"
    return "exit status unknown" if log.exit_code is None else f"exit {log.exit_code}"


def _failed(log: CommandLog) -> bool:
    return log.timed_out or log.exit_code not in (0, None)


def find_cause(logs: list[tuple[str, CommandLog]], only_failing: bool = False) -> Cause | None:
    """The first blocker (in rubric order) a failing command's output shows; a time cut when none does. Without a
    failing command, the output of the others (an exit 0 that printed errors), unless `only_failing`."""
    failing = [(ev, log) for ev, log in logs if _failed(log)] or ([] if only_failing else logs)
    for blocker in blockers():
        if blocker.code == "error":  # an error line names the cause only when nothing more telling was found
            cut = next(((ev, log) for ev, log in failing if log.timed_out), None)
            if cut:
                return Cause("time", f"{_shown(cut[1])} was cut by the review's time budget after "
                             f"{cut[1].duration_s:.0f} s", "A reviewer with more time would run {cmd} to the end "
                             "(or in a documented reduced configuration) and compare its output with the paper.",
                             cut[0])
        for ev, log in failing:
            match = blocker.pattern.search(log.stderr[-TAIL:] + "\n" + log.stdout[-TAIL:])
            if match:
                groups = {k: v for k, v in match.groupdict().items() if v}
                what = (groups.get("what") or groups.get("what2") or match.group(0)).strip()[:160]
                return Cause(blocker.code, blocker.blocked.replace("{what}", what),
                             blocker.next.replace("{what}", what), ev)
    return None


def _tried(logs: list[tuple[str, CommandLog]]) -> str:
    """'ran `a` 3 times (exit 1), `b` (cut at 600 s)': each command once, with how often and how it ended."""
    by_cmd: dict[str, list[str]] = {}
    for _, log in logs:
        by_cmd.setdefault(_shown(log), []).append(_status(log))
    shown = [f"{cmd}{f' {len(ends)} times' if len(ends) > 1 else ''} ({', '.join(dict.fromkeys(ends))})"
             for cmd, ends in list(by_cmd.items())[:3]]
    more = f" and {len(by_cmd) - 3} more commands" if len(by_cmd) > 3 else ""
    return "ran " + ", ".join(shown) + more


def _unmet(packet: PhasePacket, rubric: Rubric, limit: int = 3) -> str:
    violated = [c for c in packet.checklist if c.status == "violated"]
    parts = [rubric.item_text(c.item).rstrip(".").lower() for c in violated[:limit]]
    return "; ".join(parts) + (f" (and {len(violated) - limit} more)" if len(violated) > limit else "")


def _sentence(dim: str, packet: PhasePacket, rubric: Rubric, tried: str, cause: Cause | None, cmd: str) -> str:
    title = rubric.dimensions[dim].title if dim in rubric.dimensions else dim
    score = packet.score.value if packet.score else "not scored"
    head = f"{dim} ({title}), {score}: {tried}."
    if cause is None:
        return f"{head} Unmet: {_unmet(packet, rubric)}."
    return f"{head} Blocked: {cause.blocked} ({cause.evidence}). {cause.next.replace('{cmd}', cmd)}"


def _violated_evidence(packet: PhasePacket) -> list[str]:
    return [e for c in packet.checklist if c.status == "violated" for e in c.evidence] + list(packet.evidence)


def dimension_words(dim: str, packets: dict[str, PhasePacket], rubric: Rubric, read: Reader) -> str | None:
    """One or two sentences for a dimension below WA (None at WA or above, or without a packet)."""
    packet = packets.get(dim)
    if packet is None or packet.score is None or packet.score >= Score.WA:
        return None
    if dim == rubric.registry.dimensions[0]:  # the documentation: what it does not say
        return (f"{dim} ({rubric.dimensions[dim].title}), {packet.score.value}: the documentation was read; unmet: "
                f"{_unmet(packet, rubric, 4)}. Only the authors can add it; a reviewer can only infer it.")
    upstream = _upstream(dim, packets, rubric, read)
    if upstream:
        return upstream
    logs = _logs(_violated_evidence(packet), read)
    if dim == "D4" and not any(_failed(log) for _, log in logs):
        return _unmapped(packet, rubric, logs)
    cause = find_cause(logs, only_failing=dim not in ("D2", "D3")) if logs else None
    cmd = _shown(next((log for ev, log in logs if cause and ev == cause.evidence), logs[0][1])) if logs else "it"
    tried = _tried(logs) if logs else "nothing it could run was found for this dimension"
    return _sentence(dim, packet, rubric, tried, cause, cmd)


def _unmapped(packet: PhasePacket, rubric: Rubric, logs: list[tuple[str, CommandLog]]) -> str:
    """Claims below WA although the workflow ran: what the output was held against, and what it lacked."""
    notes = {c.item.split(".", 1)[-1]: c.note for c in packet.checklist}
    runs = ", ".join(_shown(log) for _, log in logs[:3]) or "the workflow"
    score = packet.score.value if packet.score else "not scored"
    found = "; ".join(n for n in (notes.get("mapping"), notes.get("paper_numbers")) if n)
    return (f"D4 ({rubric.dimensions['D4'].title}), {score}: the output of {runs} was held against the paper's tables, "
            f"stated numbers and the documented outputs ({found or 'nothing comparable'}). Blocked: nothing in the "
            "output could be tied to a paper result — the paper available to the review gives no table or number "
            "the output reproduces, and the documentation does not say which output stands for which result. A "
            "reviewer with the paper's result tables, or the authors' mapping of outputs to them, would compare "
            f"these outputs with them.")


def _upstream(dim: str, packets: dict[str, PhasePacket], rubric: Rubric, read: Reader) -> str:
    """For the dimensions after the workflow (claims, reuse): the workflow's own blocker, when it did not run."""
    workflow = packets.get("D3")
    if dim in ("D2", "D3") or workflow is None or workflow.score is None or workflow.score >= Score.WA:
        return ""
    packet = packets[dim]
    title = rubric.dimensions[dim].title if dim in rubric.dimensions else dim
    logs = _logs(_violated_evidence(workflow), read)
    cause = find_cause(logs) if logs else None
    why = f"{cause.blocked} ({cause.evidence})" if cause else "it produced no valid output"
    score = packet.score.value if packet.score else "not scored"
    return (f"{dim} ({title}), {score}: nothing to assess without a valid run of the workflow (D3): {why}. "
            "Once the workflow runs, a reviewer would "
            + ("compare its output with the paper's tables, figures and stated numbers."
               if dim == "D4" else "try it on a new input or configuration the documentation describes."))


def not_established_words(packets: dict[str, PhasePacket], rubric: Rubric, read: Reader) -> list[str]:
    """In rubric order: the sentences of every dimension below WA; for one at WA or above, its unmet requirements
    in words; for one without a committed packet, that."""
    out = []
    for dim in rubric.registry.dimensions:
        packet = packets.get(dim)
        if packet is None:
            out.append(f"{dim} has no committed packet (not established).")
        elif words := dimension_words(dim, packets, rubric, read):
            out.append(words)
        elif any(c.status == "violated" for c in packet.checklist):
            title = rubric.dimensions[dim].title if dim in rubric.dimensions else dim
            score = packet.score.value if packet.score else "not scored"
            out.append(f"{dim} ({title}), {score}: not established — {_unmet(packet, rubric, 4)}.")
    return out


__all__ = ["Cause", "dimension_words", "find_cause", "not_established_words"]
