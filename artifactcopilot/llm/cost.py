"""Cost accounting of every model call, including calls whose output could not be used."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Literal

from ..models import Cost
from .settings import Price


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


def usage_of(message) -> Usage:
    """Token usage a LangChain message reports (usage_metadata, else the raw response metadata)."""
    meta = getattr(message, "usage_metadata", None) or {}
    if meta:
        return Usage(int(meta.get("input_tokens") or 0), int(meta.get("output_tokens") or 0))
    raw = (getattr(message, "response_metadata", None) or {}).get("token_usage") or {}
    return Usage(int(raw.get("prompt_tokens") or 0), int(raw.get("completion_tokens") or 0))


@dataclass
class CostMeter:
    """Calls, tokens and USD of one review; shared by the review agent and the verifier."""

    price: Price
    limit_usd: float
    wall_limit_s: float
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def charge(self, message=None) -> Usage:
        """Count one call; `message` None means the call returned nothing usable (still a call)."""
        usage = usage_of(message) if message is not None else Usage()
        with self._lock:
            self.calls += 1
            self.input_tokens += usage.input_tokens
            self.output_tokens += usage.output_tokens
            self.usd += self.price.usd(usage.input_tokens, usage.output_tokens)
        return usage

    def exceeded(self) -> Literal["cost", "wall"] | None:
        """Which review-wide limit is used up: 'cost', 'wall' or None."""
        if self.limit_usd >= 0 and self.usd >= self.limit_usd and (self.usd > 0 or self.limit_usd == 0):
            return "cost"
        if time.monotonic() - self.started >= self.wall_limit_s:
            return "wall"
        return None

    @property
    def cost(self) -> Cost:
        return Cost(llm_calls=self.calls, tokens=self.input_tokens + self.output_tokens, usd=round(self.usd, 6))
