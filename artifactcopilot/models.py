"""Data model of a review: scores, levels, evidence, packets and the report.

Every model here is also published as a JSON Schema under `schemas/` (see `schemas.py`).
Ordered enums (Score, InterventionLevel, EvidenceLevel) compare by rank so rules can say `>= WA`.
"""
from __future__ import annotations

from datetime import datetime, timezone
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .phases import registry

if TYPE_CHECKING:  # the tiers are read from rubric/badges.yaml at import time: statically, a string
    BadgeName = str
else:
    BadgeName = Literal.__getitem__(registry().tiers)
"""A rung of the badge ladder: 'none' and the tiers of rubric/badges.yaml, as a Literal type."""
ScoreName = Literal["R", "WR", "WA", "A"]


def utcnow() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Ranked(str, Enum):
    """A string enum whose members are ordered by declaration."""

    @property
    def rank(self) -> int:
        return list(type(self)).index(self)

    def __lt__(self, other):
        if isinstance(other, type(self)):
            return self.rank < other.rank
        return NotImplemented

    def __le__(self, other):
        if isinstance(other, type(self)):
            return self.rank <= other.rank
        return NotImplemented

    def __gt__(self, other):
        if isinstance(other, type(self)):
            return self.rank > other.rank
        return NotImplemented

    def __ge__(self, other):
        if isinstance(other, type(self)):
            return self.rank >= other.rank
        return NotImplemented


class Score(_Ranked):
    """ArtifactGuide four-level dimension scale: reject < weak reject < weak accept < accept."""

    R = "R"
    WR = "WR"
    WA = "WA"
    A = "A"


class InterventionLevel(_Ranked):
    """How much the reviewer changed to make the artifact work (Table II)."""

    I0 = "I0"
    I1 = "I1"
    I2 = "I2"
    I3 = "I3"
    I4 = "I4"


class EvidenceLevel(_Ranked):
    """How strong the executable evidence is (Table II)."""

    E0 = "E0"
    E1 = "E1"
    E2 = "E2"
    E3 = "E3"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=False)


class CommandRecord(Strict):
    """One command run in the sandbox, with where its output was saved."""

    cmd: str = Field(description="Shell command as executed.")
    cwd: str = Field(".", description="Working directory relative to the artifact root.")
    exit_code: int | None = Field(description="Exit status; None when killed before exiting.")
    duration_s: float = Field(description="Wall time of the command in seconds.")
    timed_out: bool = Field(False, description="Killed because it exceeded its timeout.")
    output_truncated: bool = Field(False, description="Output exceeded the cap; the log keeps the head.")
    stdout: str = Field("", description="Head of standard output (the full capped log is evidence).")
    stderr: str = Field("", description="Head of standard error.")
    files_created: list[str] = Field(default_factory=list, description="Artifact-relative files the command created.")
    files_modified: list[str] = Field(default_factory=list, description="Pre-existing files whose content changed.")
    files_deleted: list[str] = Field(default_factory=list, description="Pre-existing files the command removed.")
    network: bool = Field(False,
                          description="Whether the command had network access (install and download steps only).")
    limits_hit: list[str] = Field(default_factory=list, description="Sandbox limits the command ran into.")
    figures_shown: list[str] = Field(default_factory=list,
                                     description="Figures the command showed (a plotting library's show()), saved "
                                                 "by the review's headless display under .copilot/figures/.")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class Evidence(Strict):
    """A persisted, content-hashed evidence file under the run directory."""

    id: str = Field(description="Stable id, e.g. 'D3-004-run'. Cited by checklist items and badges.")
    phase: str = Field(description="Phase that collected it (gate, D1..D5).")
    kind: str = Field(description="command, listing, readme, analysis, comparison, download, diff, note ...")
    path: str = Field(description="Path relative to the run directory.")
    sha256: str = Field(description="Hex digest of the file content at commit time.")
    size: int = Field(description="Size in bytes.")
    summary: str = Field("", description="One line for the report.")
    level: EvidenceLevel = Field(EvidenceLevel.E0, description="Evidence level this record supports.")
    created_at: str = Field(default_factory=utcnow)


class Intervention(Strict):
    """A reviewer-side action beyond the artifact's instructions, classified before it runs."""

    id: str = Field(description="Stable id, e.g. 'INT-003'.")
    phase: str = Field(description="Phase in which the action was taken.")
    action: str = Field(description="What was done (command or edit).")
    purpose: str = Field(description="Why the reviewer did it.")
    level: InterventionLevel = Field(description="I0..I4 as classified by the rule below.")
    rule: str = Field(description="Id of the classification rule that fired.")
    anticipated_impact: str = Field(description="What the action may change about the evidence.")
    evidence: list[str] = Field(default_factory=list, description="Evidence ids (diffs, logs).")
    created_at: str = Field(default_factory=utcnow)


class ChecklistItem(Strict):
    """One rubric item judged in a phase, anchored to evidence."""

    item: str = Field(description="Rubric item id, e.g. 'GC2', 'D1.setup', 'RW3'.")
    status: Literal["satisfied", "violated", "not_applicable"]
    evidence: list[str] = Field(default_factory=list, description="Evidence ids that show it.")
    note: str = Field("", description="Short justification.")


class Flag(Strict):
    """A reviewer-facing warning. Flags never change a badge."""

    severity: Literal["info", "low", "medium", "high"]
    code: str = Field(description="Machine-readable code, e.g. 'checker-downgrade'.")
    message: str
    phase: str | None = None


class PhasePacket(Strict):
    """What a phase submits: score, checklist, cited evidence, facts for later phases."""

    phase: str = Field(description="gate, D1..D5.")
    score: Score | None = Field(None, description="Dimension score (None for the gate).")
    gate: dict[str, bool] = Field(default_factory=dict, description="Gate only: GC1..GC3 outcomes.")
    checklist: list[ChecklistItem] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list, description="Every evidence id the packet relies on.")
    evidence_level: EvidenceLevel = Field(EvidenceLevel.E0)
    interventions: list[str] = Field(default_factory=list, description="Intervention ids logged in this phase.")
    facts: dict[str, Any] = Field(default_factory=dict, description="Structured findings later phases read.")
    summary: str = Field("", description="One paragraph for the report.")
    flags: list[Flag] = Field(default_factory=list)
    attempt: int = Field(1, description="1-based attempt that produced this packet.")
    agent_failure: str | None = Field(
        None, description="Set when the phase's agent failed (context window, endpoint, repeated invalid packets, "
                          "budget): why. The phase is then not established, not judged, unless `reviewed_by` names "
                          "who reviewed it instead; gate checks acquisition settles mechanically still stand.")
    reviewed_by: str | None = Field(
        None, description="Who produced this packet when the review's agent failed: 'heuristic' when the offline "
                          "reviewer stood in (--agent auto).")

    def item(self, item_id: str) -> ChecklistItem | None:
        return next((c for c in self.checklist if c.item == item_id), None)


class GateResult(Strict):
    passed: bool
    evidence: list[str] = Field(default_factory=list)
    agent_failure: str | None = Field(
        None, description="Not established because the gate's agent failed: why (then `passed` is no verdict).")


class DimensionResult(Strict):
    score: Score | None
    checklist: list[ChecklistItem] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    evidence_level: EvidenceLevel = EvidenceLevel.E0
    summary: str = ""
    agent_failure: str | None = Field(
        None, description="The phase's agent failed: why. Without `reviewed_by` the dimension is not established "
                          "(score None), not rejected.")
    reviewed_by: str | None = Field(
        None, description="'heuristic' when the offline reviewer reviewed the phase after the agent failed.")


class AgentFailure(Strict):
    """A phase whose agent failed: a failure of the review, never a verdict on the artifact."""

    phase: str
    reason: str = Field(description="What failed: context window, endpoint, invalid packets, budget, internal error.")
    fallback: str | None = Field(None, description="Who reviewed the phase instead ('heuristic'), or None: the "
                                                   "phase is not established.")


class TraceStep(Strict):
    """One condition the rule engine checked."""

    rule: str = Field(description="Badge or cross-check the condition belongs to.")
    condition: str = Field(description="Human-readable condition, e.g. 'D3.score >= WA'.")
    value: Any = Field(description="Fact value observed (None = not established).")
    result: bool
    evidence: list[str] = Field(default_factory=list)


class Cost(Strict):
    llm_calls: int = 0
    tokens: int = 0
    usd: float = 0.0


class Fetch(Strict):
    """One fetch of something the artifact lives on elsewhere: a documented download or clone, or a submodule or
    repository the documentation links, acquired with it."""

    step: str = Field(description="The documented command, or 'submodule PATH' / 'linked repository'.")
    source: str = Field("", description="Where the documentation gives it (doc:line), or the acquisition.")
    url: str = Field("", description="What it fetches.")
    host: str = Field("", description="The URL's host.")
    final_host: str = Field("", description="The host it ended at after redirects.")
    status: Literal["fetched", "failed", "not run"] = Field(description="What came of it.")
    error: str = Field("", description="Why it failed or was not run, in words (unreachable, 404, login or token "
                                       "required, quota, offline).")
    bytes: int = Field(0, description="Bytes it wrote.")
    sha256: str = Field("", description="Hash of the (first) file it wrote.")
    seconds: float = Field(0.0, description="How long it took.")
    blocked: list[str] = Field(default_factory=list, description="Later documented steps that needed what it makes.")
    evidence: str = Field("", description="Evidence id of its record.")


class NetworkUse(Strict):
    """How the review used the network: the artifact's, never the reviewer's."""

    offline: bool = Field(False, description="--offline: no step had network; nothing was fetched.")
    containment: str = Field("", description="How a network-on step was contained in this sandbox (bridge network, "
                                             "user-mode network, proxy only, or the host's network).")
    fetches: list[Fetch] = Field(default_factory=list, description="Every documented fetch and linked acquisition.")


class RouteEntry(Strict):
    """One documented command of the route, in the order the review ran it, and what came of it."""

    rank: int
    command: str
    cwd: str = "."
    objects: list[str] = Field(default_factory=list, description="Paper objects the documentation ties it to.")
    cost: str = Field("", description="Its documented cost as written, with where (empty: none stated).")
    status: Literal["valid", "partial", "failed", "skipped", "not run"]
    detail: str = Field("", description="The outcome, why it was skipped or not run, how it was reduced.")
    seconds: float | None = None
    evidence: list[str] = Field(default_factory=list)


class Route(Strict):
    """The documentation read as a plan and what the review covered of it (D1 plans it, D3 runs it)."""

    entries: list[RouteEntry] = Field(default_factory=list)
    covered: list[str] = Field(default_factory=list, description="Paper objects a valid or partial run covered.")
    not_covered: list[str] = Field(default_factory=list, description="Paper objects tied or named, not covered.")
    reduced: list[str] = Field(default_factory=list, description="Commands run smaller, with how.")
    prerequisites: list[str] = Field(default_factory=list, description="What the prose asked to do first, done.")


class Summary(Strict):
    """The report's opening for a reviewer: the badge and why, what ran, what of the paper it covered, what next."""

    verdict: str = Field("", description="The badge and why, in one sentence: the first condition of the next badge "
                                         "that failed (from the rule engine's derivation), in words.")
    commands: int = Field(0, description="Commands the review ran in the sandbox (setup, probes and runs).")
    valid: int = Field(0, description="Of them, those that ended valid: exit 0, not cut, and output not judged "
                                      "invalid.")
    seconds: float = Field(0.0, description="Wall time of those commands.")
    ran: str = Field("", description="What ran, in words: the counts above and the documented route's outcomes.")
    covered: list[str] = Field(default_factory=list, description="Paper objects a valid or partial run covered.")
    not_covered: list[str] = Field(default_factory=list, description="Paper objects tied or named, not covered.")
    next_step: str = Field("", description="The first thing a reviewer should try next.")


class Report(Strict):
    """report.json: the contract in DESIGN.md, validated by schemas/report.schema.json."""

    schema_version: str = "1"
    tool_version: str
    run_id: str
    paper: str
    title: str = Field("", description="The paper's title as read from it, or its file name when none could be read "
                                       "(then `title_note` says why).")
    title_note: str = Field("", description="Why the title is the file name (empty when it was read from the paper).")
    summary: Summary = Field(default_factory=Summary, description="The report's opening: the badge and why, what "
                             "ran, the paper objects covered and not, and what a reviewer should try next.")
    artifact: str
    agent: str
    sandbox: str
    status: Literal["complete", "incomplete"] = "complete"
    badge: BadgeName
    badges: dict[str, bool] = Field(description="available, functional, reusable, reproduced.")
    gate: dict[str, GateResult]
    dimensions: dict[str, DimensionResult]
    evidence_level: EvidenceLevel
    interventions: list[Intervention] = Field(default_factory=list)
    derivation: list[TraceStep] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)
    cost: Cost = Field(default_factory=Cost)
    timing: dict[str, float] = Field(default_factory=dict, description="Seconds: total, commands, per phase.")
    evidence: list[Evidence] = Field(default_factory=list, description="Every committed evidence record.")
    not_established: list[str] = Field(default_factory=list, description="What the review could not establish.")
    next_badge: list[str] = Field(default_factory=list, description="What authors could do to reach the next badge.")
    agent_failures: list[AgentFailure] = Field(
        default_factory=list, description="Phases whose agent failed; without a fallback they are not established.")
    badges_not_established: list[str] = Field(
        default_factory=list, description="Badges not awarded only because a phase they need was not established "
                                          "(its agent failed): no verdict on the artifact, the badge is a lower bound.")
    route: Route = Field(default_factory=Route, description="The documented route: each command in the order run, "
                         "its paper objects, documented cost and outcome; the objects covered and not.")
    network: NetworkUse = Field(default_factory=NetworkUse,
                                description="Network use: offline or not, how network-on steps were contained, and "
                                            "every fetch with its URL, host, bytes, hash and outcome.")
    created_at: str = Field(default_factory=utcnow)
