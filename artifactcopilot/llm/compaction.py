"""What a conversation gives up to fit the model's window, one step at a time (fitting.py decides when).

A tool output becomes a stub naming the evidence that holds it; an older reply keeps the start of its text and
loses long arguments; an older note of the review (checker feedback, a nudge) is cut short; and an older
exchange — a tool call and its answers — is folded into one line of the phase's opening message ("Done earlier
in this phase"), so that a long phase in a small window keeps going instead of filling it with stubs.
"""
from __future__ import annotations

import json
import re

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

STUB = "[output removed to fit the model's context window"
REPLY_CHARS = 200
"""An older reply of the model keeps this much of its text once replies are compacted."""
ARGS_CHARS = 300
"""An older tool call whose arguments are longer than this keeps only a note that they were removed."""
NOTE_CHARS = 600
"""An older message of the review (checker feedback, a nudge) keeps this much once compacted."""
FOLDED_HEAD = "\n\n## Done earlier in this phase (outputs removed to fit the window; read_evidence reads them)\n"
FOLDED_LINES = 30
EVIDENCE_REF = re.compile(r'"evidence":\s*(?:"([^"]+)"|\[([^\]]*)\])|in evidence ([\w.-]+(?:, [\w.-]+)*)')


def evidence_ids(text: str) -> list[str]:
    ids: list[str] = []
    for one, many, stub in EVIDENCE_REF.findall(text):
        ids += [one] if one else [i.strip().strip('"') for i in (many or stub).split(",")]
    return [i for i in dict.fromkeys(ids) if i]


def pointer(text: str) -> str:
    ids = evidence_ids(text)
    return f"evidence {', '.join(ids[:4])}" if ids else "this phase's transcript"


def stub_output(messages: list[BaseMessage]) -> int | None:
    """Replace the oldest tool output still there with a stub; the index, or None when none is left."""
    for i, m in enumerate(messages):
        if isinstance(m, ToolMessage) and isinstance(m.content, str) and not m.content.startswith(STUB):
            messages[i] = m.model_copy(update={"content": f"{STUB}; the full output is in {pointer(m.content)}]"})
            return i
    return None


def cut_reply(messages: list[BaseMessage]) -> int | None:
    """Cut the oldest long reply of the model (not the last message): its text, its long arguments."""
    for i, m in enumerate(messages[2:-1], start=2):
        if not isinstance(m, AIMessage):
            continue
        text = m.content if isinstance(m.content, str) else ""
        requested = list(m.tool_calls)  # read here, run only by the tool loop
        long_args = [c for c in requested if len(json.dumps(c["args"], default=str)) > ARGS_CHARS]
        if len(text) <= REPLY_CHARS + 40 and not long_args:
            continue
        calls = [{**c, "args": {"removed": "arguments cut to fit the model's context window"}} if c in long_args
                 else c for c in requested]
        content = text[:REPLY_CHARS] + " [... reply cut]" if len(text) > REPLY_CHARS + 40 else text
        messages[i] = m.model_copy(update={"content": content, "tool_calls": calls})
        return i
    return None


def cut_note(messages: list[BaseMessage]) -> int | None:
    """Cut the oldest long message of the review after the opening (checker feedback, a nudge)."""
    for i, m in enumerate(messages[2:-1], start=2):
        if isinstance(m, HumanMessage) and isinstance(m.content, str) and len(m.content) > NOTE_CHARS + 40:
            messages[i] = m.model_copy(update={"content": m.content[:NOTE_CHARS] + " [... cut]"})
            return i
    return None


def fold_exchange(messages: list[BaseMessage], folded: list[str]) -> int | None:
    """Remove the oldest tool call of the model and its answers (never the latest exchange), adding a line for it
    to `folded`; the index it was at, or None when there is none to fold."""
    replies = [i for i, m in enumerate(messages) if i >= 2 and isinstance(m, AIMessage)]
    if len(replies) < 2:
        return None
    start = replies[0]
    end = start + 1
    while end < len(messages) and isinstance(messages[end], ToolMessage):
        end += 1
    reply = messages[start]
    assert isinstance(reply, AIMessage)
    answers = " ".join(str(m.content) for m in messages[start + 1:end])
    ids = evidence_ids(answers)
    requested = [(c["name"], c["args"]) for c in list(reply.tool_calls)]
    for name, args in requested or [("(a reply without a tool call)", {})]:
        shown = json.dumps(args, ensure_ascii=False, default=str)[:80]
        folded.append(f"- {name} {shown}" + (f" -> evidence {', '.join(ids[:3])}" if ids else ""))
    del messages[start:end]
    return start


def with_folded(opening: str, folded: list[str]) -> str:
    """The opening message with the folded lines (the latest ones, when there are many) after it."""
    if not folded:
        return opening
    lines = folded[-FOLDED_LINES:]
    more = [f"- ({len(folded) - len(lines)} earlier calls)"] if len(folded) > len(lines) else []
    return opening + FOLDED_HEAD + "\n".join(more + lines)
