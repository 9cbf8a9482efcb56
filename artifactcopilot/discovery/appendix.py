"""The paper's artifact appendix ("Artifact Appendix" / "Artifact Evaluation" section), read as one more document."""
from __future__ import annotations

import re

HEAD = re.compile(r"^[ \t]*(#{1,6}[ \t]*)?((?:[A-Z]|\d+|[A-Z]\.\d+|Appendix[ \t]+[A-Z])[.:]?[ \t]+)?"
                  r"(artifact[ \t]+(appendix|evaluation)(?:[ \t]*[:\-–][^\n]*)?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
END = re.compile(r"^[ \t]*(#{1,6}[ \t]*)?(\d+[ \t]+)?(references|bibliography|acknowledge?ments?)[ \t]*$",
                 re.IGNORECASE | re.MULTILINE)
MAX_CHARS = 40_000


def artifact_appendix(paper_text: str | None) -> tuple[str, str] | None:
    """(title, text) of the paper's artifact appendix, or None when the paper has none."""
    if not paper_text or not isinstance(paper_text, str):
        return None
    for match in HEAD.finditer(paper_text[:5_000_000]):
        title = re.sub(r"\s+", " ", match.group(3)).strip()
        start = match.end()
        body = paper_text[start:start + MAX_CHARS]
        level = len(match.group(1).strip()) if match.group(1) else 0
        if level:
            nxt = re.search(rf"^[ \t]*#{{1,{level}}}[ \t]+\S", body, re.MULTILINE)
            body = body[:nxt.start()] if nxt else body
        end = END.search(body)
        body = body[:end.start()] if end else body
        if len(body.split()) >= 15:
            return title, f"# {title}\n{body}"
    return None
