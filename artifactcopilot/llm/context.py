"""The model's context window: how large it is, how many tokens a conversation takes, what must go.

The window comes from the setting (`--context-tokens`, COPILOT_LLM_CONTEXT_TOKENS) and from the
endpoint where it says so — vLLM's /v1/models (`max_model_len`), llama.cpp's /props (`n_ctx`),
Ollama's /api/show (`num_ctx`); the smaller wins. A context-length error teaches it too (servers name
the window and the prompt's size in the message). Tokens are counted by the server's tokenizer when
it has one (llama-cpp-python's /extras/tokenize/count, llama.cpp's and vLLM's /tokenize), else
estimated conservatively (one token per three bytes); either count is scaled up when the server
reports more prompt tokens than were counted.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import httpx
from langchain_core.messages import AIMessage, BaseMessage

from .settings import LLMSettings

BYTES_PER_TOKEN = 3
"""The estimate without a tokenizer: real tokenizers give 3.5–4.5 bytes a token on English and code."""
MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds per message (role markers, separators)."""
CONTEXT_ERROR = re.compile(r"context (length|window)|maximum context|too many tokens|prompt is too long|"
                           r"max_model_len|input is too long|exceeds? the (model|maximum)|n_ctx", re.IGNORECASE)
WINDOW_IN_ERROR = (re.compile(r"maximum context length is (\d+)", re.I), re.compile(r"context window of (\d+)", re.I),
                   re.compile(r"max_model_len[^0-9]{0,20}(\d+)", re.I), re.compile(r"n_ctx[^0-9]{0,12}(\d+)", re.I))
PROMPT_IN_ERROR = (re.compile(r"\((\d+) in the messages", re.I), re.compile(r"Requested tokens \((\d+)\)", re.I),
                   re.compile(r"(\d+) tokens? in the (?:prompt|input)", re.I))


def is_context_error(exc: BaseException) -> bool:
    """A refusal because the prompt (with the completion) exceeds the model's window."""
    status = getattr(exc, "status_code", None)
    return status in (400, 413, 422) and bool(CONTEXT_ERROR.search(str(exc)))


def _first_int(patterns, text: str) -> int | None:
    for pattern in patterns:
        if m := pattern.search(text):
            return int(m.group(1))
    return None


def api_root(settings: LLMSettings) -> str:
    base = (settings.base_url or "https://api.openai.com/v1").rstrip("/")
    return base[:-3] if base.endswith("/v1") else base


def _get(client: httpx.Client, method: str, url: str, body: dict | None = None) -> Any:
    try:
        response = client.request(method, url, json=body)
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def endpoint_window(settings: LLMSettings) -> tuple[int | None, str]:
    """The window a local server reports (vLLM, llama.cpp, Ollama), or None; never raises."""
    if not settings.base_url:
        return None, ""
    root, base = api_root(settings), settings.base_url.rstrip("/")
    headers = {"Authorization": f"Bearer {settings.api_key}"}
    with httpx.Client(timeout=settings.probe_timeout_s, headers=headers) as client:
        models = _get(client, "GET", f"{base}/models") or {}
        for entry in models.get("data") or [] if isinstance(models, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("max_model_len"), int):
                return entry["max_model_len"], "the endpoint's /v1/models (max_model_len)"
        props = _get(client, "GET", f"{root}/props") or {}
        if isinstance(props, dict):
            n_ctx = props.get("n_ctx") or (props.get("default_generation_settings") or {}).get("n_ctx")
            if isinstance(n_ctx, int) and n_ctx > 0:
                return n_ctx, "the endpoint's /props (n_ctx)"
        show = _get(client, "POST", f"{root}/api/show", {"model": settings.model}) or {}
        if isinstance(show, dict) and (m := re.search(r"num_ctx\s+(\d+)", str(show.get("parameters") or ""))):
            return int(m.group(1)), "the endpoint's /api/show (num_ctx)"
    return None, ""


class TokenCounter:
    """Tokens of a text: the server's tokenizer when it has one, else a conservative estimate; cached."""

    def __init__(self, settings: LLMSettings | None = None, use_endpoint: bool = True):
        self.settings = settings
        self.route: str | None = None
        """The tokenize route that answered; 'estimate' once none did."""
        if settings is None or not settings.base_url or not use_endpoint:
            self.route = "estimate"
        self._cache: dict[str, int] = {}

    @property
    def exact(self) -> bool:
        return self.route not in (None, "estimate")

    def count(self, text: str) -> int:
        if not text:
            return 0
        key = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()
        if key not in self._cache:
            self._cache[key] = self._endpoint(text) or math.ceil(len(text.encode("utf-8", "replace")) / BYTES_PER_TOKEN)
        return self._cache[key]

    def _endpoint(self, text: str) -> int | None:
        if self.route == "estimate" or self.settings is None:
            return None
        s = self.settings
        root = api_root(s)
        routes = [self.route] if self.route else [f"{root}/extras/tokenize/count", f"{root}/tokenize"]
        with httpx.Client(timeout=s.probe_timeout_s, headers={"Authorization": f"Bearer {s.api_key}"}) as client:
            for url in routes:
                # llama-cpp-python reads `input`, llama.cpp `content`, vLLM `prompt`; each ignores the others
                got = _get(client, "POST", url, {"model": s.model, "input": text, "content": text, "prompt": text,
                                                 "add_special": False})
                n = got.get("count") if isinstance(got, dict) else None
                if n is None and isinstance(got, dict) and isinstance(got.get("tokens"), list):
                    n = len(got["tokens"])
                if isinstance(n, int):
                    self.route = url
                    return n
        self.route = self.route or "estimate"
        return None


def message_text(message: BaseMessage) -> str:
    text = message.content if isinstance(message.content, str) else json.dumps(message.content, default=str)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = [{"name": c["name"], "args": c["args"]} for c in list(message.tool_calls)]
        text += json.dumps(calls, default=str)
    return text


@dataclass
class ContextBudget:
    """The window of one review's model and the token accounting that fits conversations into it."""

    window: int | None
    source: str
    counter: TokenCounter
    max_output: int = 2048
    scale: float = 1.0
    """Server-reported prompt tokens over counted ones (with a margin), from the last call or context error."""
    learned: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(cls, settings: LLMSettings, probe: bool = False) -> ContextBudget:
        """The budget for `settings`; with `probe` the endpoint is asked for its window and tokenizer."""
        window, source = settings.context_tokens, "the setting (--context-tokens / COPILOT_LLM_CONTEXT_TOKENS)"
        if probe:
            reported, where = endpoint_window(settings)
            if reported and (window is None or reported < window):
                window, source = reported, where
        counter = TokenCounter(settings, use_endpoint=probe)
        if probe:
            counter.count("which tokenizer answers")  # finds the server's tokenize route, if it has one
        return cls(window, source if window else "unknown", counter, settings.max_output_tokens)

    @property
    def margin(self) -> int:
        """Tokens kept free beside the prompt and the answer: the chat template's own markers, rounding."""
        return 0 if self.window is None else 16 + self.window // 32

    def reserve(self, answer: int) -> int:
        """Completion tokens a call keeps free: what the conversation's answer needs, at most `max_output`."""
        return max(1, min(self.max_output, answer))

    def limit(self, answer: int) -> int | None:
        """Prompt tokens a call may send when its answer needs `answer` tokens (None: the window is unknown)."""
        if self.window is None:
            return None
        return max(0, self.window - self.reserve(answer) - self.margin)

    def count(self, messages: list[BaseMessage], schemas: list[dict] | None = None) -> int:
        raw = sum(self.counter.count(message_text(m)) + MESSAGE_OVERHEAD for m in messages)
        raw += self.counter.count(json.dumps(schemas, separators=(",", ":"))) if schemas else 0
        return math.ceil(raw * self.scale)

    def observe(self, counted: int, reported: int) -> None:
        """The server counted `reported` prompt tokens where we counted `counted` (scaled): from now on our counts
        follow the server's, with a margin (a server's count includes its chat template and tool rendering)."""
        raw = counted / self.scale
        if raw > 0 and reported > 0:
            self.scale = min(4.0, max(0.5, reported * 1.05 / raw))

    def learn(self, error: str, counted: int) -> None:
        """What a context-length error says: the window, and how many tokens the prompt really had."""
        window = _first_int(WINDOW_IN_ERROR, error)
        if window and (self.window is None or window < self.window):
            self.window, self.source = window, "the endpoint's context-length error"
            self.learned.append(f"window {window} tokens")
        prompt = _first_int(PROMPT_IN_ERROR, error)
        if prompt:
            self.observe(counted, prompt)
