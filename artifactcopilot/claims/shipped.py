"""Expected output the artifact ships beside an example input: `examples/x.bin` with `examples/x.json`.

Tools often come with example inputs and the output the authors got on each, in the same folder and under the same
name (`case.cnf` / `case.out`, `sample.bin` / `sample.json`, `t1.py` / `t1.expected`). A documented command run on
the example is held against that file: JSON against JSON leaf by leaf (every key and value the expected file has,
wherever the produced JSON has it), anything else line by line as a README's documented output is.
"""
from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from .expected import OutputMatch, match_expected_output

EXPECTED_SUFFIXES = (".json", ".out", ".expected", ".txt", ".csv", ".tsv", ".log", ".yaml", ".yml", ".ans", ".res")
LONG = 10


def expected_siblings(input_rel: str, files: list[str]) -> list[str]:
    """Files beside an example input that hold its expected output (same folder, same name, another suffix,
    or the name with `expected`/`output` around it)."""
    path = PurePosixPath(input_rel)
    folder, stem = str(path.parent), path.stem.lower()
    names = {stem, f"{stem}.expected", f"{stem}_expected", f"{stem}-expected", f"expected_{stem}", f"{stem}_output",
             f"{stem}.out", f"{stem}_out"}
    out = []
    for rel in files:
        p = PurePosixPath(rel)
        if rel == input_rel or str(p.parent) != folder or p.suffix.lower() not in EXPECTED_SUFFIXES:
            continue
        if p.stem.lower() in names and p.suffix.lower() != path.suffix.lower():
            out.append(rel)
    return sorted(out)


def _leaves(data: Any, key: str = "") -> list[tuple[str, str]]:
    if isinstance(data, dict):
        return [leaf for k, v in data.items() for leaf in _leaves(v, str(k))]
    if isinstance(data, list):
        return [leaf for v in data for leaf in _leaves(v, key)]
    return [(key, json.dumps(data, sort_keys=True))]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
        if start > 0:  # JSON after a log line or two
            try:
                return json.loads(text[start:])
            except ValueError:
                return None
        return None


def compare_shipped(expected: str, produced: str) -> OutputMatch:
    """The shipped expected output against what the run produced; never raises."""
    try:
        want, got = _json(expected), _json(produced)
        if want is None or got is None or not isinstance(want, (dict, list)):
            return match_expected_output(expected, produced)
        leaves = _leaves(want)
        have: dict[str, set[str]] = {}
        for k, v in _leaves(got):
            have.setdefault(k, set()).add(v)
        missing = [f"{k}: {v}" for k, v in leaves if v not in have.get(k, set())]
        matched = len(leaves) - len(missing)
        full = matched == len(leaves) or (len(leaves) >= LONG and matched >= 0.9 * len(leaves))
        verdict = "match" if leaves and full else "partial" if matched else "mismatch"
        return OutputMatch(verdict=verdict if leaves else "not_established", lines_total=len(leaves),
                           lines_matched=matched, missing=missing[:5],
                           reason=f"{matched} of {len(leaves)} keys and values of the expected JSON produced")
    except (ValueError, TypeError, RecursionError) as exc:
        return OutputMatch(verdict="not_established", reason=f"comparison failed: {type(exc).__name__}: {exc}")
