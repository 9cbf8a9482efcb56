"""One kind of evidence a method verdict used (static reading, target checks, provenance, reruns, a model)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Signal(BaseModel):
    """One kind of evidence the verdict used."""

    source: Literal["static", "target", "provenance", "rerun", "model"]
    finding: str = Field(description="What it points to: copy, last_mile, full, undetermined, or none.")
    detail: str = ""
