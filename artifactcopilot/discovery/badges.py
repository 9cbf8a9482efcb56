"""The badges the authors applied for, normalised to available, functional, reusable, reproduced.

Phrasings: a "Requested Badge(s):" checklist ("- [x] **Available**", unchecked boxes excluded), "Requested Badge:
Reproduced, Functional and Available", "We are applying for Available badge", "Submission for Functional, Reusable,
and Available Badges", "applying towards the three badges ...", and a STATUS file whose headings are badge names.
A badge-application document (STATUS, ARTIFACT, appendix) outranks README prose. A document is read whole: its
request is the union of every statement in it (a badge is declined only when the application as a whole leaves
it out), negated statements ("we do not apply for …") excepted.
"""
from __future__ import annotations

import re

from .model import BadgeRequest

BADGE = re.compile(r"\b(?:evaluated[-\s])?(available|availability|functional|functionality|reusable|reusability|"
                   r"reproduced|reproducible|reproducibility|results\s+reproduced|replicated|replicable)\b",
                   re.IGNORECASE)
TRIGGER = re.compile(r"\b(request(ed|ing)?|apply(ing)?|applied|application|submission|submitting|submit|seek(ing)?|"
                     r"claim(ing)?|aim(ing)? for|target(ing)?|candidate for)\b", re.IGNORECASE)
NEGATED = re.compile(r"\b(not|don't|do not|no)\s+(request|apply|applying|claim|seek)", re.IGNORECASE)
CHECKED = re.compile(r"^\s*[-*+]?\s*\[(x|X|✓|✔)\]\s*(.*)$")
UNCHECKED = re.compile(r"^\s*[-*+]?\s*\[\s\]\s*(.*)$")
# A heading that lists the badges of the application: "## Badges: Available, Functional, and Reusable".
BADGES_HEADING = re.compile(r"(?:requested\s+|applied\s+)?badges?\s*[:\-–]\s*\S", re.IGNORECASE)
CANON = ["available", "functional", "reusable", "reproduced"]
RANK = {"status": 0, "artifact": 1, "appendix": 2, "install": 3, "reproduce": 3, "requirements": 3, "readme": 4,
        "subreadme": 5, "docs": 5}


def canonical(word: str) -> str:
    word = word.lower()
    if word.startswith("avail"):
        return "available"
    if word.startswith("function"):
        return "functional"
    if word.startswith("reus"):
        return "reusable"
    return "reproduced"


def _ordered(found: set[str]) -> list[str]:
    return [b for b in CANON if b in found]


def find_request(text: str, path: str, role: str) -> BadgeRequest | None:
    """Every statement of an application in one document, read whole: the badges are the union of what each
    statement asks for (two bullets, "we apply for the Available badge" and "we apply for Functional and Reusable
    badges", ask for all three), and the request quotes the lines it used."""
    lines = text.splitlines()
    ae_doc = role in ("status", "artifact", "appendix")
    found: set[str] = set()
    used: list[int] = []
    quoted: list[str] = []
    n = 0
    while n < len(lines):
        line = lines[n]
        heading = ae_doc and line.lstrip().startswith("#") and BADGES_HEADING.match(line.lstrip("# \t"))
        if heading:
            badges = _sentence_badges(line)
            if badges:
                found |= badges
                used.append(n)
                quoted.append(f"{n + 1}: {line.strip()}")
            n += 1
            continue
        if not TRIGGER.search(line) or NEGATED.search(line):
            n += 1
            continue
        window = _window(lines, n)
        if not ae_doc and not re.search(r"\bbadges?\b", " ".join(window), re.IGNORECASE):
            n += 1
            continue
        badges = _badges_in(window)
        if badges:
            found |= badges
            hit = next((k for k in range(n, min(n + 12, len(lines)))
                        if BADGE.search(lines[k]) and TRIGGER.search(lines[k])), n)
            used.append(hit)
            quoted.append(f"{n + 1}: " + " / ".join(w.strip() for w in window if w.strip()))
            n += len(window)
            continue
        n += 1
    if found:
        return BadgeRequest(_ordered(found), f"{path}:{used[0] + 1}", "\n".join(quoted)[:600])
    if role == "status":
        heads = {canonical(m.group(1)) for ln in lines if ln.lstrip().startswith("#")
                 for m in [BADGE.search(ln.lstrip("# "))] if m and len(ln.strip("# ").split()) <= 3}
        if heads:
            return BadgeRequest(_ordered(heads), f"{path}:1", "badge headings")
    return None


def _window(lines: list[str], n: int) -> list[str]:
    """The trigger line and the checklist or continuation lines that follow it (up to a blank line)."""
    out = [lines[n]]
    for line in lines[n + 1:n + 12]:
        if not line.strip():
            if len(out) == 1 and not BADGE.search(lines[n]):
                continue
            break
        if line.lstrip().startswith("#"):
            break
        out.append(line)
    return out


def _badges_in(window: list[str]) -> set[str]:
    has_boxes = any(CHECKED.match(ln) or UNCHECKED.match(ln) for ln in window)
    found: set[str] = set()
    for line in window:
        if has_boxes:
            match = CHECKED.match(line)
            if match:
                found |= {canonical(m.group(1)) for m in BADGE.finditer(match.group(2))}
            elif not UNCHECKED.match(line):
                found |= _sentence_badges(line) if TRIGGER.search(line) else set()
            continue
        found |= _sentence_badges(line)
    return found


def _sentence_badges(line: str) -> set[str]:
    if re.search(r"\bresults\s+reproduced\b", line, re.IGNORECASE):
        line = re.sub(r"\bresults\s+reproduced\b", "reproduced", line, flags=re.IGNORECASE)
    return {canonical(m.group(1)) for m in BADGE.finditer(line)
            if not re.match(r"\s+(at|from|on|via|online|in)\b", line[m.end():])}


def requested_badges(docs: list[tuple[str, str, str]]) -> BadgeRequest | None:
    """The request from the highest-ranked document that states one; docs are (path, role, text)."""
    best: tuple[int, int, BadgeRequest] | None = None
    for i, (path, role, text) in enumerate(docs):
        request = find_request(text, path, role)
        if request:
            rank = RANK.get(role, 5)
            if best is None or (rank, i) < best[:2]:
                best = (rank, i, request)
    return best[2] if best else None
