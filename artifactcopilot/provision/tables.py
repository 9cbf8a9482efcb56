"""Data tables shipped with the planner (data/*.json) and name normalisation helpers."""
from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from .pyversions import Minor, parse_minor


@cache
def table(name: str) -> dict:
    """Load data/<name>.json (keys starting with "_" are comments)."""
    text = resources.files(__package__).joinpath("data").joinpath(f"{name}.json").read_text(encoding="utf-8")
    return {k: v for k, v in json.loads(text).items() if not k.startswith("_")}


def normalize(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower().strip()


def wheel_ceiling(name: str, version: str) -> Minor | None:
    """Newest Python with wheels for `name==version`, when the release series is in data/wheels.json."""
    series = table("wheels").get(normalize(name))
    match = re.match(r"(\d+)\.(\d+)", version or "")
    if not series or not match:
        return None
    key = f"{int(match.group(1))}.{int(match.group(2))}"
    return parse_minor(series[key]) if key in series else None


def tool_entry(tool: str) -> dict | None:
    """data/tools.json entry for a system tool name (case-insensitive, version suffix ignored: "java 11")."""
    key = tool.strip().lower()
    tools = table("tools")
    if key in tools:
        return tools[key]
    base = re.split(r"[\s>=<(]", key)[0]
    return tools.get(base)


WHEEL_ONLY = frozenset({"tensorflow", "tensorflow-gpu", "torch"})
"""Distributions PyPI publishes as wheels only: a pin whose wheels stop below every Python here cannot be installed."""


def series_below(name: str, bound: str, inclusive: bool) -> str | None:
    """The newest release series in data/wheels.json under an upper bound (`tensorflow<2` -> 1.15)."""
    series = table("wheels").get(normalize(name)) or {}
    limit = _key(bound)
    fits = [s for s in series if (_key(s) <= limit if inclusive else _key(s) < limit)]
    return max(fits, key=_key) if fits and limit else None


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:2]) or (0,)


def renamed(name: str) -> str | None:
    """The distribution to install for a retired or wrong PyPI name (sklearn -> scikit-learn), else None."""
    return table("renames").get(normalize(name))


def series_for_python(name: str, version: str, python: Minor) -> str | None:
    """The oldest release series after `version`'s in data/wheels.json that publishes wheels for `python`
    (numpy 1.16.5 on Python 3.9 -> "1.19"): the nearest release a pin can be relaxed to; None when none is known."""
    series = table("wheels").get(normalize(name)) or {}
    pinned = _key(version)
    later = [s for s, top in series.items() if _key(s) > pinned[:2] and (parse_minor(top) or (0, 0)) >= python]
    return min(later, key=_key) if later else None
