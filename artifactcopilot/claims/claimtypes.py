"""The records of claim-number checks: a number the paper states, and whether a run's output shows it."""
from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from ._base import Record

ClaimKind = Literal["percent", "decimal", "count", "scaled", "ratio"]


class ClaimNumber(Record):
    text: str = Field(description="The number as the paper prints it, with its %, x or scale suffix.")
    value: float = Field(description="Its value, scale applied (42M -> 42000000); a percentage stays on its scale.")
    mantissa: float = Field(description="The printed digits' value (42 for 42M).")
    decimals: int = Field(description="Printed decimals of the mantissa.")
    scale: float = 1.0
    percent: bool = False
    kind: ClaimKind
    context: str = Field(description="The sentence that states it.")
    table: str | None = Field(None, description="Label of a paper table printing the same number, if any.")

    @property
    def significant(self) -> int:
        digits = re.sub(r"\D", "", self.text.split("e")[0])
        return len(digits.lstrip("0")) or 1


class ClaimMatch(Record):
    claim: ClaimNumber
    found: bool = False
    produced: str | None = Field(None, description="The produced number that shows the claim, as printed.")
    line: str | None = Field(None, description="The produced line it is on.")
    via: Literal["same", "scaled", "fraction"] | None = Field(
        None, description="same: same scale; scaled: a count shown at the claim's scale; fraction: 0.992 for 99.2%.")
    reason: str = ""
