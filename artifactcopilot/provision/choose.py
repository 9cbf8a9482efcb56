"""Choose the interpreter for the review's virtual environment.

Hard requests (requires-python, python_requires, Poetry's python, uv.lock, Pipfile, a conda python pin, and
version ranges in the docs) must hold; among the versions that satisfy them, an exact version the artifact asks
for (.python-version, a documented `python3.10 -m venv`, "tested with 3.9") wins; then the newest Python for
which every pinned compiled package publishes wheels; then the sandbox's default python3. When nothing
satisfies the hard requests, the nearest version is used and the drift is reported.
"""
from __future__ import annotations

from collections.abc import Callable

from .model import PythonChoice
from .pyversions import UNIVERSE, Minor, PySpec, fmt, nearest, parse_minor, parse_spec

DEFAULT_PYTHON: Minor = (3, 11)
"""Debian stable's python3 (the base image suite), used when nothing asks for a version."""


def _hard(requests: list[tuple[str, str]], notes: list[str]) -> list[tuple[PySpec, str]]:
    specs: list[tuple[PySpec, str]] = []
    for text, source in requests:
        spec = parse_spec(text)
        if spec is None:
            notes.append(f"cannot read the Python request {text!r} ({source}); ignored")
        elif all(s.text != spec.text or src != source for s, src in specs):
            specs.append((spec, source))
    while len(specs) > 1 and not any(all(s.contains(v) for s, _ in specs) for v in UNIVERSE):
        dropped = next(((s, src) for s, src in reversed(specs) if src.startswith("documentation")), specs[-1])
        specs.remove(dropped)
        notes.append(f"the Python request {dropped[0].text} ({dropped[1]}) contradicts the others; ignored")
    return specs


def _describe(specs: list[tuple[PySpec, str]]) -> tuple[str | None, str | None]:
    texts = list(dict.fromkeys(s.text for s, _ in specs))
    sources = list(dict.fromkeys(src for _, src in specs))
    return (" and ".join(texts), ", ".join(sources)) if specs else (None, None)


def choose_python(interpreters: dict[str, str], requests: list[tuple[str, str]],
                  preferences: list[tuple[str, str, int]], ceilings: list[tuple[Minor, str]], *,
                  suite_ok: Callable[[str], bool] | None = None) -> tuple[PythonChoice | None, list[str]]:
    notes: list[str] = []
    avail = {v: cmd for key, cmd in interpreters.items() if (v := parse_minor(key)) and v[0] >= 3}
    if not avail:
        return None, ["no Python 3 interpreter is available in the sandbox: no virtual environment can be made"]
    specs = _hard(requests, notes)
    wanted, source = _describe(specs)
    prefs = [(v, src, rank) for text, src, rank in sorted(preferences, key=lambda p: p[2])
             if (v := parse_minor(text)) and v[0] >= 3]
    reasons: list[str] = []
    sat = sorted(v for v in avail if all(s.contains(v) for s, _ in specs))
    drift = None
    if not sat:
        targets = [u for u in UNIVERSE if all(s.contains(u) for s, _ in specs)]
        chosen = nearest(sorted(avail), targets)
        drift = f"wants {wanted} ({source}); nearest available {fmt(chosen)}"
    else:
        chosen = _within(sat, avail, prefs, ceilings, suite_ok, reasons, notes)
    if not specs and (firm := [p for p in prefs if p[2] < 3]):
        wanted, source = fmt(firm[0][0]), firm[0][1]
        if chosen != firm[0][0]:
            drift = f"wants {wanted} ({source}); nearest available {fmt(chosen)}"
    elif specs:
        reasons.insert(0, f"{fmt(chosen)} {'satisfies' if not drift else 'is nearest to'} {wanted} ({source})")
    for version, src, rank in prefs:
        if rank == 0 and version != chosen and version not in avail:
            notes.append(f"{src} asks for Python {fmt(version)}, which the sandbox does not offer; using "
                         f"{fmt(chosen)}" + (f" (within {wanted})" if specs and not drift else ""))
    over = [f"{src} (up to {fmt(ceiling)})" for ceiling, src in ceilings if chosen > ceiling]
    if over:
        notes.append(f"pinned packages without wheels for Python {fmt(chosen)}, pip may have to build them from "
                     f"source: {', '.join(over)}")
    if drift:
        notes.append(f"Python version drift: {drift}")
    return PythonChoice(wanted=wanted, source=source, chosen=fmt(chosen), interpreter=avail[chosen], drift=drift,
                        reasons=reasons), notes


def _within(sat: list[Minor], avail: dict[Minor, str], prefs: list[tuple[Minor, str, int]],
            ceilings: list[tuple[Minor, str]], suite_ok: Callable[[str], bool] | None,
            reasons: list[str], notes: list[str]) -> Minor:
    for version, src, _ in prefs:
        if version in sat:
            reasons.append(f"{fmt(version)} asked for by {src}")
            return version
    pool = sat
    if ceilings:
        ceiling, src = min(ceilings)
        below = [v for v in pool if v <= ceiling]
        if below and below != pool:
            pool = below
            reasons.append(f"at most {fmt(ceiling)}: {src} publishes wheels up to it")
        elif not below:  # none is old enough: the oldest on offer is the nearest
            pool = [min(pool)]
            reasons.append(f"nearest to {fmt(ceiling)} or older, which {src} needs for its wheels")
    if suite_ok is not None:
        fitting = [v for v in pool if suite_ok(avail[v])]
        if fitting and fitting != pool:
            pool = fitting
            reasons.append("a Debian suite that packages every system tool the docs require")
    if prefs and len(pool) > 1:
        chosen = nearest(pool, [prefs[0][0]])
        reasons.append(f"closest to {fmt(prefs[0][0])} ({prefs[0][1]})")
        return chosen
    if len(pool) == 1:
        reasons.append("the only available version that fits" if len(avail) > 1 else "the only Python available")
        return pool[0]
    default = [v for v in pool if avail[v] in ("python3", "/usr/bin/python3")]
    chosen = default[0] if default else nearest(pool, [DEFAULT_PYTHON])
    reasons.append("the sandbox's default Python (nothing asks for a version)" if default else
                   f"closest to the default {fmt(DEFAULT_PYTHON)} (nothing asks for a version)")
    return chosen


# The Python release most research code of a year was written for (the newest stable one that year).
_ERA = {2017: "3.6", 2018: "3.7", 2019: "3.7", 2020: "3.8", 2021: "3.9", 2022: "3.10", 2023: "3.11", 2024: "3.12"}


def contemporary_python(year: int | None) -> tuple[str, str] | None:
    """(version, reason) of the Python contemporary with a paper of `year`, or None when the year is unknown."""
    if year is None or year < 2015:
        return None
    version = _ERA.get(year, "3.13" if year > 2024 else "3.6")
    return version, f"the Python contemporary with the paper ({year})"
