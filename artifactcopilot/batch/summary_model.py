"""summary.json of a batch; schemas/batch-summary.schema.json is generated from these models."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..models import BadgeName
from ..phases import registry


class _Open(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Binary(_Open):
    """A binary decision compared with the human one."""

    n: int = Field(description="Artifacts compared (summed over runs with --repeat).")
    accuracy: float | None = Field(description="(tp + tn) / n; None when n is 0.")
    precision: float | None = Field(description="tp / (tp + fp); None when nothing was predicted positive.")
    recall: float | None = Field(description="tp / (tp + fn); None when no human label is positive.")
    f1: float | None = Field(description="Harmonic mean of precision and recall; None when either is None.")
    tp: float = Field(description="True positives (summed over runs with --repeat).")
    fp: float = Field(description="False positives.")
    fn: float = Field(description="False negatives.")
    tn: float = Field(description="True negatives.")


class ClassScores(_Open):
    precision: float = Field(description="Precision of this badge class (0 when never predicted).")
    recall: float = Field(description="Recall of this badge class (0 when never labelled).")
    f1: float = Field(description="F1 of this badge class.")
    support: float = Field(description="Artifacts with this human badge.")


class Dimension(_Open):
    n: int = Field(description="Artifacts where the human or the review scored this dimension.")
    accuracy: float | None = Field(description="Four-class (R/WR/WA/A) agreement.")
    precision: float | None = Field(description="Binarised, WA/A positive.")
    recall: float | None = Field(description="Binarised, WA/A positive.")
    f1: float | None = Field(description="Binarised, WA/A positive.")


class DimensionMean(_Open):
    accuracy: float | None = Field(description="Mean four-class accuracy over all dimensions.")
    precision: float | None = Field(description="Mean binarised precision over all dimensions.")
    recall: float | None = Field(description="Mean binarised recall over all dimensions.")
    f1: float | None = Field(description="Mean binarised F1 over all dimensions.")


if TYPE_CHECKING:  # both are built from the rubric at import time: statically, models with open field names
    Dimensions = _Open
    Gates = _Open
else:
    # One field per dimension of the rubric, then their mean.
    Dimensions = create_model("Dimensions", __base__=_Open, **{d: (Dimension, ...) for d in registry().dimensions},
                              mean=(DimensionMean, ...))

    # One nested binary decision per rung of the badge ladder above 'none' (at or above that badge).
    Gates = create_model("Gates", __base__=_Open, **{
        b: (Binary, Field(description=f"At or above {b}: {registry().badge_rule(b)}.")) for b in registry().tiers[1:]})


class Confusion(_Open):
    labels: list[BadgeName] = Field(description="Badge order of rows and columns.")
    matrix: list[list[int]] = Field(description="matrix[human][predicted] counts (first run with --repeat).")


class Stability(_Open):
    """Table V of the paper: how repeated runs of the same artifact agree."""

    repeat: int = Field(description="Runs per artifact (K).")
    n: int = Field(description="Artifacts.")
    consistent: int = Field(description="Artifacts whose completed runs (at least two) all gave the same badge.")
    divergent: int = Field(description="Artifacts whose completed runs all gave different badges.")
    functional_agreement: int = Field(description="Artifacts whose completed runs agree on Functional or not.")
    runs: int = Field(description="Runs recorded.")
    failed_runs: int = Field(description="Runs that failed (error, timeout, worker lost).")
    failure_rate: float | None = Field(description="failed_runs / runs.")
    mean_cost_usd: float | None = Field(description="Mean cost of a completed run.")


class Failure(_Open):
    id: str = Field(description="Artifact id.")
    run: int = Field(description="1-based run index.")
    kind: str = Field(description="error, timeout or worker-lost.")
    message: str = Field(description="What went wrong, one line.")


class ArtifactRow(_Open):
    id: str = Field(description="Artifact id from the manifest.")
    status: Literal["ok", "failed", "missing"] = Field(
        description="ok: reviewed; failed: every run failed; missing: not run yet.")
    predicted: BadgeName | None = Field(description="Predicted badge (majority over runs with --repeat).")
    human: BadgeName | None = Field(description="Human badge from the manifest, if given.")
    report: str | None = Field(description="report.html relative to the batch directory (first completed run).")
    reproduced: bool | None = Field(None, description="Results Reproduced in the first completed run.")
    runs: list[BadgeName | None] = Field(default_factory=list, description="Badge of each run (None when it failed).")
    dimensions: dict[str, str | None] = Field(default_factory=dict,
                                              description="Predicted dimension scores (first completed run).")
    human_dimensions: dict[str, str | None] = Field(default_factory=dict,
                                                    description="Human dimension scores, if given.")
    confidence: float | None = Field(None, description="Review confidence (first completed run).")
    flags: dict[str, int] = Field(default_factory=dict, description="Flag counts by severity.")
    flag_codes: list[str] = Field(default_factory=list, description="Codes of high and medium flags.")
    cost_usd: float = Field(0.0, description="Cost of all runs of this artifact.")
    time_s: float = Field(0.0, description="Review time of all runs of this artifact.")
    agent_failed: dict[str, str] = Field(
        default_factory=dict, description="Phases whose agent failed with no fallback, and why (first completed run).")
    agent_fallback: list[str] = Field(
        default_factory=list, description="Phases the offline reviewer reviewed after the agent failed (first run).")
    attention: list[str] = Field(default_factory=list,
                                 description="Why a human should look (empty: nothing stands out).")
    priority: int = Field(0, description="Higher first: failure 100, disagreement 50, high flag 20, "
                                         "low confidence 10, divergence 10.")


class Totals(_Open):
    reviews: int = Field(description="Completed review runs.")
    total_usd: float = Field(description="Cost of all runs.")
    mean_usd: float | None = Field(description="Mean cost per completed run.")
    total_s: float = Field(description="Summed review time.")
    mean_s: float | None = Field(description="Mean time per completed run.")


class Stop(_Open):
    reason: Literal["max-cost", "interrupted"] | None = Field(
        description="Why the last run stopped early (None: it did not).")
    not_started: list[str] = Field(default_factory=list, description="Review folders (id or id/run-k) not run yet.")


class AgentFailures(_Open):
    """Completed reviews in which the review's agent failed: counted apart, never as badge 'none'."""

    reviews: int = Field(description="Artifacts whose first completed review had a phase whose agent failed, with "
                                     "no fallback.")
    not_a_verdict: int = Field(description="Of those, reviews whose badge is only a lower bound (a badge not "
                                           "established because of the failure); left out of the agreement "
                                           "figures.")
    fallback: int = Field(description="Artifacts whose review had phases reviewed offline after the agent failed.")
    phases: dict[str, int] = Field(default_factory=dict, description="Failed phases (no fallback) by phase.")


class BatchSummary(_Open):
    """summary.json: agreement of predicted with human badges over a batch (Tables III–V of the paper)."""

    schema_version: str = "1"
    tool_version: str
    created_at: str
    manifest: str = Field(description="Manifest the batch was run from.")
    n: int = Field(description="Artifacts in the manifest.")
    completed: int = Field(description="Artifacts with at least one completed review.")
    labelled: int = Field(description="Completed artifacts that have a human badge (the agreement population).")
    repeat: int = Field(description="Runs per artifact.")
    exact_match: float | None = Field(description="Share of labelled artifacts whose badge equals the human one (0–1).")
    macro_precision: float | None = Field(description="Macro precision over badge classes.")
    macro_recall: float | None = Field(description="Macro recall over badge classes.")
    macro_f1: float | None = Field(description="Macro F1 over badge classes.")
    per_class: dict[str, ClassScores] = Field(description="Per badge class scores.")
    gate: Gates = Field(description="Nested gate-level decisions.")
    functional_separator: Binary = Field(
        description="Functional as the artifact-level binary separator (same as gate.functional).")
    dimensions: Dimensions = Field(description="Dimension-level agreement.")
    confusion: Confusion
    stability: Stability | None = Field(None, description="With --repeat K > 1.")
    cost: Totals
    failures: list[Failure] = Field(description="Reviews that did not complete, latest attempt.")
    agent_failures: AgentFailures = Field(
        default_factory=lambda: AgentFailures(reviews=0, not_a_verdict=0, fallback=0),
        description="Completed reviews whose agent failed in a phase (not counted as badge 'none').")
    stopped: Stop
    artifacts: list[ArtifactRow] = Field(description="One row per manifest artifact, those needing a human first.")


def summary_schema() -> dict:
    schema = BatchSummary.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://artifactcopilot.dev/schemas/batch-summary.schema.json"
    return schema


def render_summary_schema() -> str:
    return json.dumps(summary_schema(), indent=2, sort_keys=True) + "\n"
