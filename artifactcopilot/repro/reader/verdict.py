"""The static reader's verdict on a script: copy, last-mile, full or undetermined, with the flows that decided it."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .marks import Confidence
from .trace import FlowTrace

FlowMethod = Literal["full", "last_mile", "copy", "undetermined"]


class FlowVerdict(BaseModel):
    """The static reader's verdict on a script."""

    method: FlowMethod
    confidence: Confidence = "low"
    reasons: list[str] = Field(default_factory=list)
    displayed: list[str] = Field(default_factory=list, description="Stored files an output shows as they are.")
    stored_inputs: list[str] = Field(default_factory=list, description="Stored results an output is computed from.")
    derived_final: list[str] = Field(default_factory=list, description="Stored final numbers an output only derives "
                                     "percentages, totals or rounded values from.")
    experiments: list[str] = Field(default_factory=list, description="Programs or code that compute the outputs.")
    literal: bool = Field(False, description="An output is a table of numbers written in the script.")
    paper: bool = Field(False, description="An output comes from the paper.")
    outputs: list[int] = Field(default_factory=list, description="Indices of the steps taken as the script's outputs.")
    flows: list[FlowTrace] = Field(default_factory=list, description="The flows that decided the verdict: value -> "
                                                                     "commands -> source, with line numbers.")
