"""Defaults of the options a review, a batch and the reproduction commands share: each written once."""
from __future__ import annotations

TIMEOUT_S = 1800.0
"""Time limit of one artifact command (`--timeout`), seconds."""
MAX_STEPS = 30
"""Step limit per phase for an LLM agent (`--max-steps`)."""
MAX_COST_USD = 1.0
"""Cost limit per review for an LLM agent (`--max-cost`), USD."""
MAX_ATTEMPTS = 3
"""Packet submissions per phase before the checker commits a downgraded packet."""
AGENTS = ("auto", "llm", "heuristic")
REVIEW_BUDGET_S = 840.0
"""Time the offline reviewer gives the artifact's own commands in one review (`--max-minutes`), shared out
per phase; a phase that uses its share up commits what it has."""
