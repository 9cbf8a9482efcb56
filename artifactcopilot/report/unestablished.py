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
from ..sandbox.base import ARTIFACT_DIR
from ..sandbox.commandlog import STDOUT, CommandLog, parse_log
from .reach import with_reach
from .reading import Reader, read_json
from .reviewlimits import review_limit_cause

TAIL = 6000
NOT_RUN = "not run"
PROVENANCE = "provenance rerun"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
NOTEBOOK_RUN = re.compile(r"python - (\S+\.ipynb) ")
"""The headless notebook runner's command line (tools/running.py): the notebook is what ran."""
ABSOLUTE = ("a file it needs is named by an absolute path ({what}) outside the artifact: the layout of the authors' "
            "machine or container, not the repository's")
ABSOLUTE_NEXT = ("A reviewer would run it where that path exists (the authors' container, or the repository placed "
                 "where the path expects it) and rerun {cmd}.")
MAX_LOGS = 16
NEXT_STEP = {
    "D2": "A reviewer would repair the setup by hand from the failing step's output and log each fix.",
    "D3": "A reviewer would find the documented command that produces the paper's results and run it.",
    "D5": ("A reviewer would write a new input of the documented form (or change a documented option), run the "
           "documented command on it twice and check its output."),
}
"""What a reviewer would do next when no command's output names the cause."""


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
    """What a reviewer would do; `{cmd}` stands for the command."""
    evidence: str
    cmd: str = "it"
    """The command whose output showed the cause, as the report quotes it."""
    what: str = ""
    """The program, module or file the cause names."""

    def words(self) -> tuple[str, str]:
        """(what blocked, with its evidence id; what a reviewer would do)."""
        shown = f"{self.blocked} ({self.evidence})" if self.evidence else self.blocked
        return shown, self.next.replace("{cmd}", self.cmd)


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
    """The commands the evidence records: command logs, and documented commands a selection record says were not
    run and why (a JSON object with "skipped": [{"cmd", "why"}]), as logs of commands that did not run."""
    out = []
    for ev_id in dict.fromkeys(ids):
        text = read(ev_id)
        if text and text.startswith("$ ") and f"\n{STDOUT}\n" in text:
            log = parse_log(text)
            log.script = text.split("\n# cwd:", 1)[0][2:]  # the whole script (its log gives its first line only)
            if not log.note.startswith(PROVENANCE):  # a rerun without a file on purpose: a check, not an attempt
                out.append((ev_id, log))
        elif text and text.lstrip().startswith("{"):
            out += [(ev_id, log) for log in _skipped(read_json(read, ev_id))]
        if len(out) >= MAX_LOGS:
            break
    return out[:MAX_LOGS]


def _skipped(record: dict | None) -> list[CommandLog]:
    entries = record.get("skipped") if record else None
    if not isinstance(entries, list):
        return []
    return [CommandLog(script=str(e["cmd"]), invocation=NOT_RUN, note=str(e.get("why") or ""),
                       stderr=str(e.get("why") or "")) for e in entries[:8] if isinstance(e, dict) and e.get("cmd")]


def _shown(log: CommandLog) -> str:
    notebook = NOTEBOOK_RUN.search(log.script)
    if notebook:
        return f"the notebook {_quoted(notebook[1])}"
    lines = [ln for ln in log.script.strip().splitlines() if ln.strip()]
    return _quoted(lines[-1] if lines else "command")


def _quoted(cmd: str) -> str:
    cmd = " ".join(cmd.split())
    return f"“{cmd[:100]}{'…' if len(cmd) > 100 else ''}”"


def _status(log: CommandLog) -> str:
    if log.invocation == NOT_RUN:
        why = re.sub(r"^not runnable:\s*", "", log.note)
        return f"not run: {why[:160]}" if why else "not run"
    if log.timed_out:
        return f"cut at {log.duration_s:.0f} s"
    return "exit status unknown" if log.exit_code is None else f"exit {log.exit_code}"


def _failed(log: CommandLog) -> bool:
    return log.timed_out or log.exit_code not in (0, None) or log.invocation == NOT_RUN


def find_cause(logs: list[tuple[str, CommandLog]], only_failing: bool = False,
               files: frozenset[str] = frozenset()) -> Cause | None:
    """The first blocker (in rubric order) a failing command's output shows; a time cut when none does. Without a
    failing command, the output of the others (an exit 0 that printed errors), unless `only_failing`. `files`:
    the repository's files, to tell a file missing from it from one looked up in the wrong place."""
    causes = find_causes(logs, only_failing, limit=1, files=files)
    return causes[0] if causes else None


def find_causes(logs: list[tuple[str, CommandLog]], only_failing: bool = False, limit: int = 2,
                files: frozenset[str] = frozenset()) -> list[Cause]:
    """Up to `limit` causes of different kinds, each from another command, in rubric order; an error line only when
    nothing more telling was found."""
    failing = [(ev, log) for ev, log in logs if _failed(log)] or ([] if only_failing else logs)
    found = [c for ev, log in failing if (c := review_limit_cause(ev, log, _shown(log), Cause))][:limit]
    for blocker in blockers():
        if blocker.code == "error":
            cut = next(((ev, log) for ev, log in failing if log.timed_out and ev not in {c.evidence for c in found}),
                       None)
            if cut:
                found.append(Cause("time", f"{_shown(cut[1])} was cut by the review's time budget after "
                                   f"{cut[1].duration_s:.0f} s", "A reviewer with more time would let {cmd} run to "
                                   "the end (or run a documented reduced configuration) and go on from its output.",
                                   cut[0], _shown(cut[1])))
            if found:
                break
        cause = _match(blocker, [(ev, log) for ev, log in failing if ev not in {c.evidence for c in found}], files)
        if cause:
            found.append(cause)
        if len(found) >= limit:
            break
    return found[:limit]


def _match(blocker: Blocker, logs: list[tuple[str, CommandLog]], files: frozenset[str]) -> Cause | None:
    for ev, log in logs:
        match = blocker.pattern.search(ANSI.sub("", log.stdout[-TAIL:] + "\n" + log.stderr[-TAIL:]))
        if not match:
            continue
        groups = {k: v for k, v in match.groupdict().items() if v}
        what = _in_artifact((groups.get("what") or groups.get("what2") or match.group(0)).strip()[:160])
        code, blocked, after = blocker.code, blocker.blocked, blocker.next
        if code == "missing-file":
            code, blocked, after = _misplaced(what, log, files) or (
                ("absolute-path", ABSOLUTE, ABSOLUTE_NEXT) if what.startswith("/") else (code, blocked, after))
        return Cause(code, blocked.replace("{what}", what), after.replace("{what}", what), ev, _shown(log), what)
    return None


def _misplaced(what: str, log: CommandLog, files: frozenset[str]) -> tuple[str, str, str] | None:
    """A 'missing' file the repository has under another folder: looked up from the wrong place, not missing."""
    tail = what.lstrip("./")
    found = sorted(f for f in files if f == tail or f.endswith("/" + tail) or tail.endswith("/" + f))
    if not found or not tail:
        return None
    where = found[0]
    if what.startswith("/"):
        return ("absolute-path", f"{ABSOLUTE}; the repository has it as {where}", ABSOLUTE_NEXT)
    if where == tail and (log.cwd or ".") == ".":
        return ("absent", "a file it reads ({what}) was not there when it ran, though the repository ships it",
                "A reviewer would check which step deletes or is meant to recreate {what} and rerun {cmd} after it.")
    return ("misplaced", f"a file it needs ({{what}}) was looked up in the wrong place: the repository has {where}, "
            f"and the command ran in {log.cwd or '.'}",
            "A reviewer would run {cmd} from the folder its paths are relative to (or correct the path, as a logged "
            "fix) and rerun it.")


def _in_artifact(path: str) -> str:
    """A path inside the sandbox's artifact copy, relative to the artifact; other text unchanged."""
    prefix = ARTIFACT_DIR.rstrip("/") + "/"
    return path[len(prefix):] if path.startswith(prefix) else path


def _tried(logs: list[tuple[str, CommandLog]]) -> str:
    """'ran `a` 3 times (exit 1), `b` (cut at 600 s)': each command once, with how often and how it ended."""
    by_cmd: dict[str, list[str]] = {}
    # what failed first; the review's own probes and base-image switches only when nothing else ran or they failed
    kept = [(ev, log) for ev, log in logs if _failed(log) or log.invocation not in ("", "probe")] or logs
    for _, log in sorted(kept, key=lambda pair: not _failed(pair[1])):
        by_cmd.setdefault(_shown(log), []).append(_status(log))
    listed = [f"{cmd}{f' {len(ends)} times' if len(ends) > 1 else ''} ({', '.join(dict.fromkeys(ends))})"
              for cmd, ends in list(by_cmd.items())[:3]]
    more = f" and {len(by_cmd) - 3} more commands" if len(by_cmd) > 3 else ""
    return "ran " + ", ".join(listed) + more


def _unmet(packet: PhasePacket, rubric: Rubric, limit: int = 3) -> str:
    violated = [c for c in packet.checklist if c.status == "violated"]
    parts = [_lower_first(rubric.item_text(c.item).rstrip(".")) for c in violated[:limit]]
    return "; ".join(parts) + (f" (and {len(violated) - limit} more)" if len(violated) > limit else "")


def _said(summary: str) -> str:
    """The phase's own summary, as a clause ('; it reports: …')."""
    text = " ".join(summary.split()).rstrip(".")
    return f" (its summary: {text[:300]})" if text else ""


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text if len(first) > 1 and first.isupper() else text[:1].lower() + text[1:]


def _sentence(dim: str, packet: PhasePacket, rubric: Rubric, tried: str, causes: list[Cause]) -> str:
    title = rubric.dimensions[dim].title if dim in rubric.dimensions else dim
    score = packet.score.value if packet.score else "not scored"
    head = f"{dim} ({title}), {score}: {tried}."
    if not causes:
        said = " ".join(packet.summary.split())[:300] if "(its summary:" not in tried else ""
        return f"{head} {said + ' ' if said else ''}Unmet: {_unmet(packet, rubric)}. {NEXT_STEP.get(dim, '')}".rstrip()
    words = [c.words() for c in causes]
    return (f"{head} Blocked: " + "; and ".join(w[0] for w in words) + ". "
            + " ".join(dict.fromkeys(w[1] for w in words)))


def _violated_evidence(packet: PhasePacket) -> list[str]:
    return [e for c in packet.checklist if c.status == "violated" for e in c.evidence] + list(packet.evidence)


def dimension_words(dim: str, packets: dict[str, PhasePacket], rubric: Rubric, read: Reader,
                    files: frozenset[str] = frozenset()) -> str | None:
    """One or two sentences for a dimension below WA (None at WA or above, or without a packet). `files`: the
    repository's files (see `repository_files`)."""
    packet = packets.get(dim)
    if packet is None or packet.score is None or packet.score >= Score.WA:
        return None
    if dim == rubric.registry.dimensions[0]:  # the documentation: what it does not say
        return (f"{dim} ({rubric.dimensions[dim].title}), {packet.score.value}: the documentation was read; unmet: "
                f"{_unmet(packet, rubric, 4)}. Only the authors can add it; a reviewer can only infer it.")
    upstream = _upstream(dim, packets, rubric, read, files)
    if upstream:
        return upstream
    logs = _logs(_violated_evidence(packet), read)
    if dim == "D4" and not any(_failed(log) for _, log in logs):
        return _unmapped(packet, rubric, logs)
    causes = find_causes(logs, only_failing=dim not in ("D2", "D3"), files=files) if logs else []
    if dim == "D3":
        causes = _with_reach(causes, packets)
    tried = _tried(logs) if logs else f"no command was run for it{_said(packet.summary)}"
    if logs and all(log.invocation == NOT_RUN for _, log in logs):
        tried = tried.replace("ran ", "found ", 1)
    return _sentence(dim, packet, rubric, tried, causes)


def _with_reach(causes: list[Cause], packets: dict[str, PhasePacket]) -> list[Cause]:
    return with_reach(causes, packets, Cause)


def _unmapped(packet: PhasePacket, rubric: Rubric, logs: list[tuple[str, CommandLog]]) -> str:
    """Claims below WA although the workflow ran: what the output was held against, and what it lacked."""
    notes = {c.item.split(".", 1)[-1]: c.note for c in packet.checklist}
    runs = ", ".join(dict.fromkeys(_shown(log) for _, log in logs[:6])) or "the workflow"
    score = packet.score.value if packet.score else "not scored"
    if (found := packet.item("D4.contradicted")) is not None and found.status == "satisfied":
        return (f"D4 ({rubric.dimensions['D4'].title}), {score}: the output of {runs} maps to the paper's results and "
                f"contradicts them — {found.note}. A reviewer would check the run used the paper's configuration, "
                "seeds and data version; the authors can say which settings produce the published numbers.")
    mapping = notes.get("mapping") or ""
    tables = ("the output holds none of the paper's tables" if not mapping or mapping.startswith("no paper table")
              else f"the closest paper table matched only in part ({mapping})")
    numbers = notes.get("paper_numbers") or ""
    numbers = f", {numbers}" if numbers and not numbers.startswith("0 of 0") else ""
    return (f"D4 ({rubric.dimensions['D4'].title}), {score}: the output of {runs} was held against the paper and the "
            f"documentation. Blocked: {tables}{numbers}, and the documentation neither shows the output of these "
            "commands nor says which output stands for which paper result. A reviewer with the authors' mapping of "
            "outputs to the paper's tables and figures (or the full-scale run the paper reports) would compare them.")


def _upstream(dim: str, packets: dict[str, PhasePacket], rubric: Rubric, read: Reader, files: frozenset[str]) -> str:
    """For the dimensions after the workflow (claims, reuse): the workflow's own blocker, when it did not run."""
    workflow = packets.get("D3")
    if dim in ("D2", "D3") or workflow is None or workflow.score is None or workflow.score >= Score.WA:
        return ""
    packet = packets[dim]
    title = rubric.dimensions[dim].title if dim in rubric.dimensions else dim
    logs = _logs(_violated_evidence(workflow), read)
    causes = _with_reach([c for c in [find_cause(logs, files=files) if logs else None] if c], packets)
    cause = causes[0] if causes else None
    why = (cause.words()[0] if cause
           else " ".join(workflow.summary.split())[:300].rstrip(".") or "it produced no valid output")
    score = packet.score.value if packet.score else "not scored"
    return (f"{dim} ({title}), {score}: nothing to assess without a valid run of the workflow (D3): {why}. "
            "Once the workflow runs, a reviewer would "
            + ("compare its output with the paper's tables, figures and stated numbers."
               if dim == "D4" else "try it on a new input or configuration the documentation describes."))


def repository_files(gate: PhasePacket | None, read: Reader) -> frozenset[str]:
    """The artifact's files as the gate's acquisition record lists them ("files"), or none."""
    for ev_id in gate.evidence if gate else []:
        record = read_json(read, ev_id) if "acquisition" in ev_id else None
        names = record.get("files") if record else None
        if isinstance(names, list):
            return frozenset(str(n) for n in names)
    return frozenset()


def not_established_words(packets: dict[str, PhasePacket], rubric: Rubric, read: Reader) -> list[str]:
    """In rubric order: the sentences of every dimension below WA; for one at WA or above, its unmet requirements
    in words; for one without a committed packet, that."""
    out = []
    files = repository_files(packets.get(rubric.registry.gate_phase), read)
    for dim in rubric.registry.dimensions:
        packet = packets.get(dim)
        if packet is None:
            out.append(f"{dim} has no committed packet (not established).")
        elif words := dimension_words(dim, packets, rubric, read, files):
            out.append(words)
        elif any(c.status == "violated" for c in packet.checklist):
            title = rubric.dimensions[dim].title if dim in rubric.dimensions else dim
            score = packet.score.value if packet.score else "not scored"
            out.append(f"{dim} ({title}), {score}: not established — {_unmet(packet, rubric, 4)}.")
    return out

__all__ = ["Cause", "dimension_words", "find_cause", "find_causes", "not_established_words", "repository_files"]
