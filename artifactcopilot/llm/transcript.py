"""Transcripts: every prompt, response and tool call of a phase attempt, as JSON lines.

Written to `<run>/transcripts/<phase>-<attempt>.jsonl` so a chair can audit a decision (without a
run directory the lines are kept in `records`, e.g. for the reproduction command's own log). A
transcript is a trace, never evidence: packets cannot cite it and the rule engine never reads it.
Every line passes the secret redactor before it is written.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from ..redact import Redactor, default_redactor


def message_record(message: BaseMessage) -> dict[str, Any]:
    record: dict[str, Any] = {"role": message.type, "content": message.content}
    for key in ("tool_calls", "invalid_tool_calls", "usage_metadata"):
        value = getattr(message, key, None)
        if value:
            record[key] = value
    if call_id := getattr(message, "tool_call_id", None):
        record["tool_call_id"] = call_id
    return record


class Transcript:
    def __init__(self, run_dir: Path | None, name: str, redactor: Redactor | None = None):
        self.redactor, self.name = redactor, name
        self.records: list[dict[str, Any]] = []
        """The lines written, when there is no run directory to write them to."""
        self.path: Path | None = None
        if run_dir is None:
            return
        self.path = Path(run_dir) / "transcripts" / f"{name}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        n = 2
        while self.path.exists():  # a resumed review keeps the earlier transcript beside the new one
            self.path = self.path.with_name(f"{name}.{n}.jsonl")
            n += 1

    def write(self, event: str, **data: Any) -> None:
        # strings are redacted before serialising: JSON escapes would hide a secret from a text pass
        line = (self.redactor or default_redactor()).redact_obj({"t": round(time.time(), 3), "event": event, **data})
        if self.path is None:
            self.records.append(json.loads(json.dumps(line, default=str, ensure_ascii=False)))
            return
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, default=str, ensure_ascii=False) + "\n")

    def messages(self, event: str, messages: list[BaseMessage]) -> None:
        self.write(event, messages=[message_record(m) for m in messages])
