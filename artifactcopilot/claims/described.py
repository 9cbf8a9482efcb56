"""An output the documentation describes in words, checked on the file a run wrote.

READMEs often say what a command writes without showing it: "the output file is a CSV file, same shape as the input
file with one additional column containing the cluster index of each element", "writes a JSON with keys `score` and
`label`", "a CSV with columns id, name, value". A committee member opens the file the run wrote and checks those
properties: the format parses, the rows are as many as the input's, the extra column is there and holds the kind
of values described, the named columns or keys are present. Nothing here reads the artifact or runs anything:
`read_descriptions` takes documentation text, `check_described` the text of the written file (and of the input).
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from ._base import Record, clip

Format = Literal["csv", "tsv", "json", ""]
ValueKind = Literal["integer", "number", ""]

_OUTPUT = re.compile(r"\b(?:output|writes?|written|produces?|saves?|saved|generates?|results? file)\b", re.I)
_SAME_ROWS = re.compile(r"\bsame (?:shape|number of (?:rows|lines|records|entries)|rows|length|size) as (?:the |its )?"
                        r"input|\b(?:as many (?:rows|lines) as (?:the )?input)|\bone (?:row|line) (?:per|for each) "
                        r"(?:input |element|row|line|record|sample|item|point|entry)", re.I)
_NUMBERS = {"one": 1, "a": 1, "an": 1, "1": 1, "two": 2, "2": 2, "three": 3, "3": 3, "four": 4, "4": 4}
_EXTRA = re.compile(r"\b(one|an?|1|two|2|three|3|four|4)\s+(?:additional|extra|more|new|added)\s+columns?|"
                    r"\bplus\s+(one|an?|1|two|2|three|3)\s+columns?|\bwith\s+an?\s+(?:additional|extra|added)\s+column",
                    re.I)
_INTEGER = re.compile(r"\b(?:index|indices|id|ids|number|count|cluster|class|rank)\b", re.I)
_REAL = re.compile(r"\b(?:score|scores|probabilit(?:y|ies)|distance|similarity|value|weight)\b", re.I)
_NAME = r"`?[A-Za-z_][\w\-. ]{0,30}?`?"
_COLUMNS = re.compile(rf"\bcolumns?\s*(?:named\s*|called\s*|:\s*)?((?:{_NAME}\s*,\s*)+(?:and\s+)?{_NAME})(?=[.;)]|$)",
                      re.I | re.M)
_KEYS = re.compile(rf"\bJSON\b[^.]*?\bkeys?\s*(?:named\s*|called\s*|:\s*)?"
                   rf"((?:{_NAME}\s*,\s*)*(?:(?:and|or)\s+)?{_NAME})(?=[.;)]|$)", re.I | re.M)
_FILE = re.compile(r"`([\w./*\-{}]+\.(?:csv|tsv|json|txt|out))`|\b([\w\-]+(?:/[\w\-*]+)*\.(?:csv|tsv|json|txt|out))\b",
                   re.I)
_LINES = re.compile(r"\b(?:will have|has|have|contains?|with|of)\s+(\d[\d,]*)\s+(?:lines|rows|records|entries)\b", re.I)
_LINE_EXAMPLE = re.compile(r"\b(?:a|each|every|one)\s+(?:line|row)\s+(?:like\s+|such as\s+)?`([^`\n]{1,200})`", re.I)
_UNITS = re.compile(r"\b(\d+|one|two|three|four|five|six)\s+(options|variables|features|attributes|columns|parameters|"
                    r"dimensions|items)\b", re.I)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
CNF_HEADER = re.compile(r"(?m)^p\s+cnf\s+(\d+)\s+\d+")
MAX_SENTENCES = 8


class Description(Record):
    source: str = Field(description="The documentation file.")
    sentence: str = Field(description="The words that describe the output.")
    format: Format = ""
    same_rows: bool = Field(False, description="As many rows as the input.")
    extra_columns: int = Field(0, description="Columns beyond the input's.")
    extra_kind: ValueKind = Field("", description="The kind of values the extra column holds.")
    columns: list[str] = Field(default_factory=list, description="Columns the output is said to have.")
    keys: list[str] = Field(default_factory=list, description="JSON keys the output is said to have.")
    file: str = Field("", description="A file name or pattern the description names.")
    lines: int = Field(0, description="The number of lines or rows the output is said to have.")
    line_example: str = Field("", description="A line of the output the documentation shows as an example.")
    line: int = Field(0, description="The line of the documentation file where the description starts (0: unknown).")
    per_unit: str = Field("", description="What each value of a line stands for, one per unit of the input "
                                          "(`options`: as many values as the input has options).")

    @property
    def properties(self) -> int:
        return (int(self.same_rows) + int(bool(self.extra_columns)) + len(self.columns) + len(self.keys)
                + int(bool(self.lines)) + int(bool(self.line_example)) + int(bool(self.per_unit)))

    @property
    def grid(self) -> bool:
        """Whether a property needs the output read as a table."""
        return self.same_rows or bool(self.extra_columns or self.columns)


def _sentences(text: str) -> list[tuple[str, bool]]:
    """Sentences, each with whether an earlier sentence of its paragraph spoke of the output."""
    paragraphs = re.split(r"\n\s*\n|\n\s*(?=[-*+]\s|\d+[.)]\s)", text)
    out = []
    for par in paragraphs:
        if par.lstrip().startswith(("```", "    ")):
            continue
        joined = " ".join(par.split()).lstrip("-*+ ")
        context = False
        for sentence in (s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", joined) if s):
            out.append((sentence, context))
            context = context or bool(_OUTPUT.search(sentence))
    return out


def _example(source: str, sentence: str) -> Description | None:
    """An example line of the output (`0 1 0`), and what its values stand for when the sentence says so ("for a
    system with 3 options ... a line `0 1 0`": one value per option of the input)."""
    m = _LINE_EXAMPLE.search(sentence)
    if not m:
        return None
    desc = Description(source=source, sentence=clip(sentence, 300), line_example=m.group(1).strip())
    count_shown = len(tokens(desc.line_example))
    for unit in _UNITS.finditer(sentence[:m.start()]):
        count = _WORDS.get(unit.group(1).lower()) or int(unit.group(1))
        if count == count_shown and count_shown > 1:
            desc.per_unit = unit.group(2).lower()
    return desc


def _line_of(text: str, sentence: str) -> int:
    """The line of `text` where `sentence` (whitespace-normalised) starts; 0 when it cannot be found."""
    words = sentence.split()[:6]
    m = re.search(r"\s+".join(re.escape(w) for w in words), text) if words else None
    return text.count("\n", 0, m.start()) + 1 if m else 0


def tokens(line: str) -> list[str]:
    return [t for t in re.split(r"[\s,;]+", line.strip()) if t]


def _names(group: str) -> list[str]:
    parts = re.split(r"\s*,\s*|\s+(?:and|or)\s+", group.strip())
    return [p.strip("` ") for p in parts if p.strip("` ") and len(p.split()) <= 3]


def read_descriptions(source: str, text: str) -> list[Description]:
    """Sentences of a documentation file that describe a command's output file by its shape; never raises."""
    out: list[Description] = []
    for sentence, context in _sentences(text or ""):
        if len(sentence) > 600 or not _OUTPUT.search(sentence):
            if context and len(sentence) <= 600 and (example := _example(source, sentence)):
                example.line = _line_of(text, sentence)
                out.append(example)
            continue
        desc = _example(source, sentence) or Description(source=source, sentence=clip(sentence, 300))
        low = sentence.lower()
        desc.format = ("tsv" if "tab separated" in low or "tab-separated" in low or re.search(r"(?<![.\w])tsv\b", low)
                       else "csv" if re.search(r"(?<![.\w])csv\b|comma[- ]separated", low) else
                       "json" if re.search(r"(?<![.\w])json\b", low) else "")  # words, not file names
        desc.same_rows = bool(_SAME_ROWS.search(sentence))
        if m := _EXTRA.search(sentence):
            desc.extra_columns = _NUMBERS.get((m.group(1) or m.group(2) or "a").lower(), 1)
            tail = sentence[m.end():m.end() + 80]
            desc.extra_kind = ("integer" if _INTEGER.search(tail) else "number" if _REAL.search(tail) else "")
        if desc.format != "json" and (m := _COLUMNS.search(sentence)):
            desc.columns = _names(m.group(1))
        if desc.format == "json" and (m := _KEYS.search(sentence)):
            desc.keys = _names(m.group(1))
        if m := _LINES.search(sentence):
            desc.lines = int(m.group(1).replace(",", ""))
        if f := _FILE.search(sentence):
            desc.file = f.group(1) or f.group(2)
        if desc.properties:
            desc.line = _line_of(text, sentence)
            out.append(desc)
        if len(out) >= MAX_SENTENCES:
            break
    return out


__all__ = ["CNF_HEADER", "Description", "read_descriptions", "tokens"]
