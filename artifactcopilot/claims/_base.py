"""The base of every claim-check record: a pydantic model that serialises to plain JSON."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

Verdict = Literal["match", "partial", "mismatch", "not_established"]


class Record(BaseModel):
    """A claim-check result that becomes evidence: JSON-serialisable through `to_dict()`."""

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def clip(text: str, limit: int = 160) -> str:
    """One line of text, shortened for a report."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
