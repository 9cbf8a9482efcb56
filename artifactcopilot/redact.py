"""Secret redaction for everything a review writes (evidence, transcripts, log, packets, reports).

An artifact runs next to the reviewer's credentials: it may print an API key it found, or an encoded copy
of one. A `Redactor` replaces
  - the values of the reviewer's environment variables whose names look secret (KEY, TOKEN, SECRET,
    PASSWORD, AWS_*, ...), and their base64 and hex encodings, also inside a longer encoded stream;
  - common credential formats (OpenAI, GitHub, AWS, Slack, Google, Hugging Face keys, private key PEM
    blocks, `Authorization: Bearer ...` values, passwords in URLs)
with `[REDACTED:<variable name or kind>]`. All of it is one compiled regular expression, so a redactor is
cheap to run over megabytes of command output.
"""
from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_",
                         re.IGNORECASE)
"""Environment variable names whose values are treated as secrets ..."""
NOT_SECRET_NAME = re.compile(r"REGION|_PROFILE$|_SOCK$|_DIR$|_FILE$|_PATH$", re.IGNORECASE)
"""... except these (AWS_DEFAULT_REGION, SSH_AUTH_SOCK, ...): settings and locations, not credentials."""
MIN_SECRET_LEN = 8
"""Shorter values are too likely to occur by chance in ordinary output."""
MAX_SECRET_LEN = 16384
NOT_SECRET_VALUE = re.compile(r"[-+]?[\d.,:_ ]+|(?i:true|false|yes|no|none|null|unused)|/[^\s:@]*")
"""Numbers, booleans and plain absolute paths: redacting them would garble results and buy nothing."""

# (kind, first characters, rest of the pattern after the first character, word boundary before it). Every
# alternative of the compiled expression starts with a literal character, so the scan skips ahead in C over
# text that cannot start a match. A group `keep` marks a prefix that stays; the rest of the match is replaced.
PATTERNS: tuple[tuple[str, str, str, bool], ...] = (
    ("private-key", "-", (r"----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----"
                          r"|[A-Za-z0-9+/=\s]*)"), False),
    ("openai-key", "s", r"k-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}", True),
    ("github-token", "g", r"(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{22,})", True),
    ("aws-access-key-id", "A", r"[KS]IA[0-9A-Z]{16}\b", True),
    ("aws-secret-key", "aA", (r"(?P<keep>(?i:ws_?secret(?:_access)?_?key|ws_?secret)[\"']?\s*[:=]\s*[\"']?)"
                              r"[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"), True),
    ("slack-token", "x", r"ox[abprs]-[A-Za-z0-9-]{10,}", True),
    ("google-api-key", "A", r"Iza[0-9A-Za-z_-]{35}", True),
    ("hf-token", "h", r"f_[A-Za-z0-9]{30,}", True),
    ("bearer-token", "aA", (r"(?P<keep>(?i:uthorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|token|basic)\s+)"
                            r"[A-Za-z0-9._~+/=-]{8,}"), True),
    ("bearer-token", "bB", r"(?P<keep>(?i:earer)\s+)[A-Za-z0-9._~+/-]{16,}=*", True),
    ("url-credentials", ":", r"(?P<keep>//[^/\s:@'\"]+:)[^/\s@'\"]{3,}(?=@)", False),
)
_NOT_AFTER_WORD = r"(?<![A-Za-z0-9_].)"  # placed after the first character: a word boundary before it


def looks_secret(name: str, value: str) -> bool:
    """Whether an environment variable holds a secret worth redacting."""
    value = value.strip()
    return (bool(SECRET_NAME.search(name)) and not NOT_SECRET_NAME.search(name)
            and MIN_SECRET_LEN <= len(value) <= MAX_SECRET_LEN and not NOT_SECRET_VALUE.fullmatch(value))


def _base64_fragments(raw: bytes) -> set[str]:
    """The base64 text of `raw` at each of the three byte alignments it can have inside a longer stream,
    cut to the characters that depend on `raw` alone (standard and URL-safe alphabets)."""
    out = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii").rstrip("=")
        start, stop = -(-8 * offset // 6), 8 * (offset + len(raw)) // 6
        fragment = encoded[start:stop]
        if len(fragment) >= MIN_SECRET_LEN:
            out |= {fragment, fragment.replace("+", "-").replace("/", "_")}
    return out


def encodings(value: str) -> dict[str, str]:
    """Text forms of one secret value an artifact may write: plain, hex, base64. Maps form -> label suffix."""
    raw = value.encode("utf-8", "surrogateescape")
    forms = {value: "", raw.hex(): "/hex", raw.hex().upper(): "/hex"}
    for fragment in _base64_fragments(raw):
        forms.setdefault(fragment, "/base64")
    return forms


def _trie_branches(words: list[str]) -> list[tuple[str, str]]:
    """(first character, pattern of the rest) for a set of words, shared prefixes factored into a trie (fast on
    long texts: one branch per distinct character instead of one per word). Longer words win."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return [(ch, _node_pattern(child)) for ch, child in sorted(trie.items()) if ch != ""]


def _node_pattern(node: dict) -> str:
    prefix = []
    while len(node) == 1 and "" not in node:  # a chain without branches: no nesting, no deep recursion
        ch, node = next(iter(node.items()))
        prefix.append(re.escape(ch))
    ends_here = "" in node
    branches = [re.escape(ch) + _node_pattern(child) for ch, child in sorted(node.items()) if ch != ""]
    if not branches:
        return "".join(prefix)
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return "".join(prefix) + (f"(?:{body})?" if ends_here else body)


@dataclass
class Redactor:
    """Replaces secrets in text. Build it with `from_environ` (or `default_redactor()`)."""

    secrets: dict[str, str] = field(default_factory=dict)
    """Secret value -> name of the environment variable it came from."""

    def __post_init__(self) -> None:
        self._compile()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Redactor:
        env = os.environ if environ is None else environ
        return cls({value.strip(): name for name, value in sorted(env.items()) if looks_secret(name, value)})

    def add_secrets(self, values: Mapping[str, str]) -> bool:
        """Add `value -> name` pairs; returns True when something new was added (the pattern is rebuilt)."""
        new = {v.strip(): n for v, n in values.items() if v.strip() not in self.secrets
               and MIN_SECRET_LEN <= len(v.strip()) <= MAX_SECRET_LEN}
        if new:
            self.secrets.update(new)
            self._compile()
        return bool(new)

    def _compile(self) -> None:
        self._labels: dict[str, str] = {}
        for value, name in self.secrets.items():
            for form, suffix in encodings(value).items():
                self._labels.setdefault(form, name + suffix)
        alternatives: list[str] = []
        self._kinds: dict[str, str] = {}  # marker group -> kind ("" for an environment value)
        for first, rest in _trie_branches(list(self._labels)):
            alternatives.append(f"{re.escape(first)}{rest}(?P<m{len(alternatives)}>)")
            self._kinds[f"m{len(alternatives) - 1}"] = ""
        for kind, firsts, rest, boundary in PATTERNS:
            for first in firsts:
                name = f"m{len(alternatives)}"
                self._kinds[name] = kind
                alternatives.append(re.escape(first) + (_NOT_AFTER_WORD if boundary else "")
                                    + rest.replace("?P<keep>", f"?P<{name}k>") + f"(?P<{name}>)")
        self._regex = re.compile("|".join(alternatives))

    def _replace(self, match: re.Match) -> str:
        marker = match.lastgroup or ""  # the empty group that ends the alternative which matched
        kind = self._kinds.get(marker, "secret")
        if not kind:
            return f"[REDACTED:{self._labels.get(match.group(), 'secret')}]"
        keep = match.string[match.start():match.end(marker + "k")] if f"{marker}k" in self._regex.groupindex else ""
        return f"{keep}[REDACTED:{kind}]"

    def redact_count(self, text: str) -> tuple[str, int]:
        """The text with secrets replaced, and how many were replaced."""
        if not text:
            return text, 0
        return self._regex.subn(self._replace, text)

    def redact(self, text: str) -> str:
        return self.redact_count(text)[0]

    def redact_bytes_count(self, data: bytes) -> tuple[bytes, int]:
        """Bytes variant; bytes that are not UTF-8 pass through unchanged."""
        text, n = self.redact_count(data.decode("utf-8", "surrogateescape"))
        return (text.encode("utf-8", "surrogateescape"), n) if n else (data, 0)

    def redact_bytes(self, data: bytes) -> bytes:
        return self.redact_bytes_count(data)[0]

    def redact_obj(self, obj: Any) -> Any:
        """A JSON-ready copy of `obj` with every string redacted (keys too); other objects become text.
        Redact before serialising: a secret with quotes or non-ASCII characters is escaped in JSON text."""
        return self.redact_obj_count(obj)[0]

    def redact_obj_count(self, obj: Any) -> tuple[Any, int]:
        """`redact_obj` and how many secrets it replaced."""
        if isinstance(obj, str):
            return self.redact_count(obj)
        if obj is None or isinstance(obj, (bool, int, float)):
            return obj, 0
        if isinstance(obj, dict):
            out, total = {}, 0
            for key, value in obj.items():
                key, n = self.redact_count(key) if isinstance(key, str) else (key, 0)
                out[key], m = self.redact_obj_count(value)
                total += n + m
            return out, total
        if isinstance(obj, (list, tuple, set, frozenset)):
            items = [self.redact_obj_count(v) for v in obj]
            return [v for v, _ in items], sum(n for _, n in items)
        if isinstance(obj, bytes):
            return self.redact_count(obj.decode("utf-8", "replace"))
        return self.redact_count(str(obj))


_DEFAULT: Redactor | None = None
_SEEN: frozenset = frozenset()
_LOCK = threading.Lock()


def default_redactor() -> Redactor:
    """The process-wide redactor: every secret-looking variable the environment has held since start-up
    (variables set later are added on the next call; none is ever forgotten)."""
    global _DEFAULT, _SEEN
    current = frozenset((n, v) for n, v in os.environ.items() if looks_secret(n, v))
    with _LOCK:
        if _DEFAULT is None:
            _DEFAULT, _SEEN = Redactor.from_environ(), current
        elif current != _SEEN:
            _DEFAULT.add_secrets({v: n for n, v in current - _SEEN})
            _SEEN = _SEEN | current
        return _DEFAULT


def set_default_redactor(redactor: Redactor | None) -> None:
    """Replace the process-wide redactor (None: build it again from the environment on the next call)."""
    global _DEFAULT, _SEEN
    with _LOCK:
        _DEFAULT, _SEEN = redactor, frozenset()
