"""Settings of the LLM path, from flags and the environment, with the price table.

One `LLMSettings` per review (or reproduction): the review agent, its verifier and the reproduction
agent read the same object through their shared `ModelCaller`.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ..config import MAX_ATTEMPTS, MAX_COST_USD, MAX_STEPS
from ..errors import UsageError
from ..resources import data_dir

DEFAULT_MODEL = "gpt-4o-mini"


class Price(BaseModel):
    """USD per million tokens."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    input: float = 0.0
    """Price of one million prompt tokens."""
    output: float = 0.0
    """Price of one million completion tokens."""
    known: bool = True
    """False when the model is not in the price table (its calls then count 0 USD)."""

    def usd(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


def load_prices(path: Path | None = None) -> dict[str, Price]:
    path = path or data_dir("prompts") / "prices.yaml"
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return {name: Price(**value) for name, value in (doc.get("models") or {}).items()}
    except (OSError, yaml.YAMLError, TypeError, ValueError) as exc:
        raise UsageError(
            f"price table {path} is unreadable: {exc}", "fix the file or unset COPILOT_LLM_PRICES"
        ) from None


def price_for(model: str, prices: dict[str, Price]) -> Price:
    """Exact name first, then the longest table name the model starts with (dated snapshots)."""
    if model in prices:
        return prices[model]
    prefixes = sorted((n for n in prices if model.startswith(n)), key=len, reverse=True)
    return prices[prefixes[0]] if prefixes else Price(known=False)


class LLMSettings(BaseModel):
    """How the LLM agent talks to an OpenAI-compatible endpoint and how far it may go."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    model: str = DEFAULT_MODEL
    """Model name sent to the endpoint (--model, COPILOT_LLM_MODEL or OPENAI_MODEL)."""
    base_url: str | None = None
    """OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (OPENAI_BASE_URL); None = OpenAI."""
    api_key: str = Field("unused", repr=False)
    """Key sent to the endpoint (OPENAI_API_KEY); local servers accept any value."""
    temperature: float = 0.0
    """Sampling temperature (COPILOT_LLM_TEMPERATURE); 0 keeps reviews repeatable."""
    seed: int | None = 7
    """Sampling seed where the endpoint supports it (COPILOT_LLM_SEED; 'none' to omit)."""
    max_output_tokens: int = 2048
    """Completion tokens one call may produce (COPILOT_LLM_MAX_TOKENS); bounds a rambling model."""
    request_timeout_s: float = 120.0
    """Time limit of one model call in seconds (COPILOT_LLM_TIMEOUT)."""
    probe_timeout_s: float = 5.0
    """Time limit of the reachability check before a review starts, and of the context-window probes
    (COPILOT_LLM_PROBE_TIMEOUT)."""
    probe_wait_s: float = 180.0
    """How long the check waits for an endpoint that accepted the connection but is slow to answer: a busy server,
    not a down one (COPILOT_LLM_PROBE_WAIT_S)."""
    max_retries: int = 4
    """Retries of one call on rate limits (429), server errors (5xx) and dropped connections."""
    backoff_s: float = 1.0
    """First retry delay; doubles per retry unless the server sends Retry-After."""
    backoff_max_s: float = 30.0
    """Longest delay between two retries."""
    max_steps: int = MAX_STEPS
    """Model calls per phase attempt (--max-steps); a malformed call counts too."""
    max_cost_usd: float = MAX_COST_USD
    """Cost limit of the whole review in USD (--max-cost), verifier calls included."""
    wall_limit_s: float = 3600.0
    """Wall-clock limit of the whole LLM review in seconds (COPILOT_LLM_WALL_S)."""
    max_attempts: int = MAX_ATTEMPTS
    """Packet submissions per phase the graph allows; the last one is grounded before it is sent."""
    verify: bool = True
    """Question accepted packets in a verifier dialogue (COPILOT_LLM_VERIFY=0 turns it off)."""
    verifier_turns: int = 5
    """Model calls one verifier dialogue may take."""
    context_tokens: int | None = None
    """The model's context window in tokens (--context-tokens, COPILOT_LLM_CONTEXT_TOKENS); a smaller window the
    endpoint reports (vLLM, llama.cpp, Ollama) wins. Unknown: prompts are fitted once the server names it."""
    tool_output_chars: int = 4000
    """Tool output longer than this is cut, with a pointer to the full evidence file."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """USD per million tokens by model name (prompts/prices.yaml or COPILOT_LLM_PRICES)."""

    @property
    def price(self) -> Price:
        return price_for(self.model, self.prices)


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        return float(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a number", f"unset {name} or give a number") from None


def settings_from_env(
    model: str | None = None,
    max_steps: int = MAX_STEPS,
    max_cost: float = MAX_COST_USD,
    max_attempts: int = MAX_ATTEMPTS,
    context_tokens: int | None = None,
) -> LLMSettings:
    env = os.environ
    seed_raw = env.get("COPILOT_LLM_SEED", "7")
    prices_path = env.get("COPILOT_LLM_PRICES")
    return LLMSettings(
        model=model or env.get("COPILOT_LLM_MODEL") or env.get("OPENAI_MODEL") or DEFAULT_MODEL,
        base_url=env.get("OPENAI_BASE_URL") or None,
        api_key=env.get("OPENAI_API_KEY") or "unused",
        temperature=_env_float("COPILOT_LLM_TEMPERATURE", 0.0),
        seed=None if seed_raw.lower() in ("", "none") else int(_env_float("COPILOT_LLM_SEED", 7)),
        max_output_tokens=int(_env_float("COPILOT_LLM_MAX_TOKENS", 2048)),
        request_timeout_s=_env_float("COPILOT_LLM_TIMEOUT", 120.0),
        probe_timeout_s=_env_float("COPILOT_LLM_PROBE_TIMEOUT", 5.0),
        probe_wait_s=_env_float("COPILOT_LLM_PROBE_WAIT_S", 180.0),
        backoff_s=_env_float("COPILOT_LLM_BACKOFF_S", 1.0),
        max_steps=max_steps,
        max_cost_usd=max_cost,
        max_attempts=max_attempts,
        wall_limit_s=_env_float("COPILOT_LLM_WALL_S", 3600.0),
        verify=env.get("COPILOT_LLM_VERIFY", "1") not in ("0", "false", "no"),
        context_tokens=context_tokens or (int(_env_float("COPILOT_LLM_CONTEXT_TOKENS", 0)) or None),
        prices=load_prices(Path(prices_path) if prices_path else None),
    )
