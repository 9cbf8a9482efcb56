"""Whether a paper's claims are what a tool does, read from the paper's own words and the artifact's documentation.

A tool paper presents a program and argues what it does: "We present X, an open-source static analysis tool that
extracts ...", "X is a framework for ...", a technique described as taking an input and giving an output. Its claims
are checked by running the tool on the documented examples and its own tests, not only by recomputing a table.
A study paper ("an exploratory study of 1,200 projects", "we measure", "we survey") argues findings about the
world; a script that recomputes them is not the claim. The decision weighs both kinds of sentence in the paper's
abstract and text (the abstract counts double; one passing mention in the body is not enough) and records whether
the documentation describes the tool's usage and output, which breaks a tie and never decides on its own (an
artifact's name or layout says nothing about what the paper claims).
"""
from __future__ import annotations

import re

from pydantic import Field

from ._base import Record, clip
from .prose import sentences

_TOOL_NOUN = (r"(?:tools?|toolkits?|tool-?chains?|frameworks?|analy[sz]ers?|generators?|detectors?|extractors?|"
              r"checkers?|fuzzers?|profilers?|debuggers?|libraries|library|plug-?ins?|compilers?|prototypes?|"
              r"taggers?|command-line tools?|solvers?|scanners?|linters?)")
_PRESENT = r"(?:present|propos|introduc|implement|develop|design|build|built|releas|describ|offer|provid|contribut)\w*"
_TOOL: dict[str, re.Pattern[str]] = {
    "presents a tool": re.compile(rf"(?i)\b(?:we|this paper|the paper|this work|the authors|our work|our)\s+"
                                  rf"(?:\w+\s+){{0,2}}{_PRESENT}\b(?:(?!\bstud(?:y|ies)\b|\bsurvey)[^.;]){{0,120}}"
                                  rf"\b{_TOOL_NOUN}\b(?!\s+APIs?\b)"),
    "names a tool": re.compile(rf"\b[A-Z][\w\-]*,\s+(?:an?|the)\s+(?:[\w\-]+\s+){{0,5}}(?i:{_TOOL_NOUN})\b"),
    "tool that does": re.compile(rf"(?i)\b{_TOOL_NOUN}\s+(?:that|which|to|for)\s+(?:automatically\s+)?"
                                 r"[a-z]+(?:s|es)?\b"),
    "open-source tool": re.compile(rf"(?i)\b(?:open[- ]source|publicly available|automated|automatic)\s+"
                                   rf"(?:[\w\-]+\s+){{0,3}}{_TOOL_NOUN}\b"),
    "input and output": re.compile(r"(?i)\b(?:the|its|as)\s+input\b[^.]{0,160}\b(?:the\s+)?outputs?\b|"
                                   r"\bgiven\b[^.]{0,160}\boutputs?\b|\btakes?\b[^.]{0,80}\bas input\b"),
}
_STUDY: dict[str, re.Pattern[str]] = {
    "empirical study": re.compile(r"(?i)\b(?:empirical|exploratory|measurement|large-scale|longitudinal|user|"
                                  r"qualitative|quantitative|case|field|comparative|systematic)\s+stud(?:y|ies)\b"),
    "survey or interviews": re.compile(r"(?i)\b(?:we|the authors)\s+(?:survey|interview)\w*\b|\bsurvey(?:ed)?\s+\d"),
    "studies a population": re.compile(r"(?i)\b(?:examin|stud|analy[sz]|investigat|inspect|characteri[sz]|measur|"
                                       r"crawl|collect)\w*\s+(?:[\w,\-]+\s+){0,4}\d[\d,.]*\s*(?:[kKM]\s+)?(?:well-known\s+)?"
                                       r"(?:\w+\s+){0,2}(?:projects|repositories|libraries|apps|applications|"
                                       r"websites|domains|users|developers|participants|papers|packages|samples|links)\b"),
    "findings": re.compile(r"(?i)\b(?:we|the authors)\s+(?:observe|find|found|reveal|show that most|conclude)\b"),
}
# The documentation's side: a usage or output description of a program (supports a tool reading, never decides it).
_DOC_TOOL = re.compile(r"(?im)^\s*#{1,6}\s*(?:usage|how to use|using\b|output|command[- ]line)|^\s*usage:\s|"
                       r"\bis an? (?:[\w\-]+\s+){0,4}" + _TOOL_NOUN + r"\b")


class ToolClaims(Record):
    """Whether the paper's claims are what a tool does, with the sentences that decided it."""

    tool: bool
    reason: str
    tool_signals: list[str] = Field(default_factory=list)
    study_signals: list[str] = Field(default_factory=list)
    docs_describe_tool: bool = False
    tool_score: float = 0.0
    study_score: float = 0.0


def _signals(patterns: dict[str, re.Pattern[str]], text: str, where: str, weight: float,
             seen: dict[str, float], found: list[str]) -> None:
    for sentence in sentences(text)[:400]:
        for name, pat in patterns.items():
            if name not in seen and pat.search(sentence):
                seen[name] = weight
                found.append(f"{name} ({where}): \"{clip(sentence, 140)}\"")


def tool_claims(abstract: str, paper_text: str, docs_text: str = "") -> ToolClaims:
    """Read the paper (abstract first) and the documentation; never raises."""
    try:
        return _decide(str(abstract or ""), str(paper_text or ""), str(docs_text or ""))
    except (re.error, ValueError, TypeError) as exc:
        return ToolClaims(tool=False, reason=f"the paper could not be read: {type(exc).__name__}: {exc}")


def _decide(abstract: str, text: str, docs: str) -> ToolClaims:
    tool: dict[str, float] = {}
    study: dict[str, float] = {}
    tool_found: list[str] = []
    study_found: list[str] = []
    for where, body, weight in (("abstract", abstract, 2.0), ("paper", text, 1.0)):
        _signals(_TOOL, body, where, weight, tool, tool_found)
        _signals(_STUDY, body, where, weight, study, study_found)
    order = list(_TOOL)
    tool_found.sort(key=lambda f: order.index(f.split(" (", 1)[0]))  # the plainest statement first
    t, s = sum(tool.values()), sum(study.values())
    docs_tool = bool(_DOC_TOOL.search(docs))
    base = {"tool_signals": tool_found, "study_signals": study_found, "docs_describe_tool": docs_tool,
            "tool_score": t, "study_score": s}
    if not t:
        return ToolClaims(tool=False, reason="the paper does not present a tool (no sentence presents a program or "
                          "a technique by its input and output)"
                          + (f"; it reports a study: {study_found[0]}" if study_found else ""), **base)
    if s > t or (s == t and not docs_tool):  # a tie goes to the tool only when its documentation describes its use
        return ToolClaims(tool=False, reason=f"the paper's claims are findings of a study ({study_found[0]}) more "
                          f"than what a tool does ({tool_found[0]})", **base)
    if t < 2:
        return ToolClaims(tool=False, reason=f"one passing mention of a tool in the paper's body ({tool_found[0]}), "
                          "nothing in its abstract", **base)
    return ToolClaims(tool=True, reason=f"the paper presents a tool and argues what it does: {tool_found[0]}"
                      + ("; the documentation describes its usage and output" if docs_tool else ""), **base)
