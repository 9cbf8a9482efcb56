"""Python version requests (PEP 440, Poetry caret/tilde, conda, prose) and their test against X.Y versions."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.specifiers import InvalidSpecifier, SpecifierSet

Minor = tuple[int, int]
UNIVERSE: tuple[Minor, ...] = ((2, 7), *((3, m) for m in range(21)))
"""Versions a request is tested against when looking for the nearest available one."""

_CARET = re.compile(r"^\^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$")
_TILDE = re.compile(r"^~(?!=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$")
_BARE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+|\*))?$")
_PLUS = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?\s*(\+|or (?:above|higher|later|newer|greater)"
                   r"|and (?:above|up|later|newer))$",
                   re.IGNORECASE)
_OPS = re.compile(r"(===|==|!=|~=|>=|<=|>|<)\s*")


def parse_minor(text: str) -> Minor | None:
    """'3.11' / '3.11.4' / 'python3.11' -> (3, 11); anything else -> None."""
    match = re.search(r"(\d+)\.(\d+)", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def fmt(version: Minor) -> str:
    return f"{version[0]}.{version[1]}"


@dataclass
class PySpec:
    """A Python version request: any of `alternatives` (Poetry's `||`), each a PEP 440 specifier set."""

    text: str
    alternatives: list[SpecifierSet] = field(default_factory=list)

    def contains(self, version: Minor) -> bool:
        """True when some release of X.Y satisfies the request (X.Y.0 or a late patch)."""
        probes = (f"{version[0]}.{version[1]}.0", f"{version[0]}.{version[1]}.99")
        return any(alt.contains(p, prereleases=True) for alt in self.alternatives for p in probes)

    @property
    def exact(self) -> Minor | None:
        """The single X.Y the request allows, if it allows only one (e.g. "==3.8.*", "3.8")."""
        hits = [v for v in UNIVERSE if self.contains(v)]
        return hits[0] if len(hits) == 1 else None


def poetry_constraint(part: str) -> str | None:
    """One Poetry/conda constraint (no commas) as PEP 440, or None when it cannot be read."""
    part = part.strip()
    if part in ("", "*"):
        return ""
    if match := _CARET.match(part):
        major, minor = int(match.group(1)), int(match.group(2) or 0)
        upper = f"{major + 1}.0" if major > 0 or match.group(2) is None else f"0.{minor + 1}"
        return f">={major}.{minor}{'.' + match.group(3) if match.group(3) else ''},<{upper}"
    if match := _TILDE.match(part):
        major, minor_part = int(match.group(1)), match.group(2)
        upper = f"{major}.{int(minor_part) + 1}" if minor_part is not None else f"{major + 1}.0"
        return f">={major}.{minor_part or 0}{'.' + match.group(3) if match.group(3) else ''},<{upper}"
    if match := _BARE.match(part):
        return f"=={match.group(1)}.{match.group(2)}.*"  # a patch pin still asks for that X.Y
    if match := _PLUS.match(part):
        return f">={match.group(1)}.{match.group(2)}"
    if part.startswith("=") and not part.startswith("=="):  # conda "=3.8"
        return poetry_constraint(part[1:])
    normalized = _OPS.sub(lambda m: m.group(1), part)
    if re.fullmatch(r"(===|==|!=|~=|>=|<=|>|<)[\w.*+!-]+", normalized):
        if exact := re.fullmatch(r"==(\d+)\.(\d+)(?:\.\d+)?", normalized):
            return f"=={exact.group(1)}.{exact.group(2)}.*"
        return normalized
    return None


def parse_spec(text: str | None) -> PySpec | None:
    """Read a Python request: PEP 440 (">=3.8,<3.11"), Poetry ("^3.9", "~3.8", ">=3.8 <3.11", "a || b"),
    conda ("3.8", "3.8.*", ">=3.8"), pyenv ("3.12.1") or prose ("3.6+", "3.10 or above"). None when unreadable."""
    if not text or not isinstance(text, str):
        return None
    raw = text.strip().strip("\"'")
    raw = re.sub(r"^(?:python|py|cpython)\s*-?\s*", "", raw, flags=re.IGNORECASE).strip()
    if not raw or raw.lower() in ("system", "*"):
        return None
    alternatives: list[SpecifierSet] = []
    for alt in raw.split("||"):
        alt = re.sub(r"(\d)\s+(?=[<>=!~^])", r"\1,", alt.strip())  # Poetry's space-separated AND
        parts = [poetry_constraint(p) for p in alt.split(",")]
        if any(p is None for p in parts):
            return None
        try:
            alternatives.append(SpecifierSet(",".join(p for p in parts if p)))
        except InvalidSpecifier:
            return None
    spec = PySpec(text=raw, alternatives=alternatives)
    if not any(spec.contains(v) for v in UNIVERSE if v[0] >= 3):
        return None  # e.g. "2.7" only or a version far outside what a Python 3 venv can be
    return spec


def nearest(candidates: list[Minor], targets: list[Minor]) -> Minor:
    """The candidate closest (in minor releases) to any target; ties go to the newer candidate."""
    def distance(v: Minor) -> int:
        return min(abs((v[0] - t[0]) * 100 + v[1] - t[1]) for t in targets) if targets else 0

    return min(candidates, key=lambda v: (distance(v), -v[0], -v[1]))
