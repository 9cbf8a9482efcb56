"""Retries with exponential backoff on rate limits, server errors and dropped connections."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

import openai

T = TypeVar("T")
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def status_of(exc: BaseException) -> int | None:
    return getattr(exc, "status_code", None)


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (openai.APIConnectionError, openai.APITimeoutError)):
        return True
    status = status_of(exc)
    return status in RETRYABLE_STATUS or (status is not None and status >= 500)


def retry_after(exc: BaseException) -> float | None:
    """The server's Retry-After in seconds, when it sent one."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def with_retries(
    call: Callable[[], T],
    retries: int,
    base_s: float,
    max_s: float,
    on_retry: Callable[[int, BaseException, float], None] = lambda n, e, d: None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run `call`; on a retryable failure wait and try again, at most `retries` more times."""
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if attempt >= retries or not is_retryable(exc):
                raise
            delay = retry_after(exc)
            if delay is None:
                delay = base_s * (2**attempt) * (1 + 0.1 * random.random())  # jitter spreads concurrent reviews
            delay = min(max_s, max(0.0, delay))
            attempt += 1
            on_retry(attempt, exc, delay)
            sleep(delay)
