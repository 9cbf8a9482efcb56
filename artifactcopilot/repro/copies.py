"""Checked-in files the table was copied from: files holding the table (text, notebook outputs, binary results)
that the run read without regenerating them, or without which a rerun no longer yields the table."""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..tables import Table
from . import binary
from .provenance import RunProvenance
from .reader.paths import holds_results, path_kind
from .signals import Signal
from .static import CODE_SUFFIXES, TEXT_SUFFIXES, StaticFindings, contains_table, readable_text

if TYPE_CHECKING:
    from .method import MethodVerdict

README = re.compile(r"(^|/)readme[^/]*$", re.IGNORECASE)
Rerun = Callable[[str], "list[tuple[str, str]] | None"]


def holds(target: Table, path: Path) -> bool:
    if path.suffix.lower() in binary.BINARY_SUFFIXES:
        return binary.holds(target, binary.numbers(path))
    return contains_table(target, readable_text(path, 300_000))


def copy_sources(verdict: MethodVerdict, artifact: Path, target: Table, static: StaticFindings,
                 prov: RunProvenance | None, rerun: Rerun | None, files: list[str]) -> None:
    """Checked-in files holding the table that the run (or the script) took it from."""
    traced = bool(prov and prov.method == "strace" and prov.exit_code == 0)  # a failed run's trace is incomplete
    read_first = prov.read_first if prov is not None and traced else []
    named = list(dict.fromkeys(static.referenced + static.displayed + static.stored_inputs))
    if traced and prov is not None:
        candidates = [f for f in files if f in read_first or f in prov.written]
    elif prov is not None:  # ran without a trace: what the script names first, then every other file but READMEs
        candidates = named + [f for f in files if f not in named and not README.search(f)]
    else:
        candidates = named
    for rel in candidates[:400]:
        low = rel.lower()
        if low.endswith(CODE_SUFFIXES) or not low.endswith(TEXT_SUFFIXES + binary.BINARY_SUFFIXES):
            continue
        if low.endswith(".ipynb") and static.executes_notebook:
            continue
        if not holds(target, artifact / rel):
            if traced and rel in read_first and _unreadable(artifact / rel) and rerun is not None:
                _unreadable_source(verdict, rel, target, static, rerun)
            continue
        if traced and rel not in read_first:
            verdict.regenerated.append(rel)  # written by this run before anything read it (Artisan Fig. 10)
            continue
        verified = False
        if rerun is not None and len(verdict.copy_sources) + len(verdict.regenerated) < 3:
            outputs = rerun(rel)  # None: the rerun could not be made (budget, infrastructure)
            if outputs is not None and any(contains_table(target, text) for _, text in outputs):
                verdict.regenerated.append(rel)
                verdict.reasons.append(f"a rerun without {rel} still produces the table")
                verdict.signals.append(Signal(source="rerun", finding="full",
                                              detail=f"without {rel}: table still produced"))
                continue
            if outputs is not None:
                verified = True
                verdict.reasons.append(f"a rerun without {rel} no longer produces the table")
                verdict.signals.append(Signal(source="rerun", finding="copy", detail=f"without {rel}: no table"))
        shown = rel in static.displayed or (rel in static.stored_inputs and low.endswith(binary.BINARY_SUFFIXES))
        if not (verified or shown or (traced and rel in read_first)):
            continue  # no evidence that the run took the table from this file
        if rel in static.stored_inputs and not shown and not verified and path_kind(rel) == "results" and \
                not low.endswith(binary.BINARY_SUFFIXES):
            continue  # aggregated from a file that also holds the table: not shown as is
        verdict.copy_sources.append(rel)


def _unreadable(path: Path) -> bool:
    return path.suffix.lower() in binary.BINARY_SUFFIXES and binary.numbers(path) is None and holds_results(path.name)


def _unreadable_source(verdict: MethodVerdict, rel: str, target: Table, static: StaticFindings, rerun: Rerun) -> None:
    """A stored results file whose format cannot be read here (.parquet, .h5 without their libraries): a rerun
    without it tells whether the table depends on it; the script's reading tells whether it is shown or computed on."""
    outputs = rerun(rel)
    if outputs is None or any(contains_table(target, text) for _, text in outputs):
        return
    verdict.signals.append(Signal(source="rerun", finding="copy" if rel in static.displayed else "last_mile",
                                  detail=f"without {rel}: no table"))
    if rel in static.displayed:
        verdict.reasons.append(f"a rerun without {rel} no longer produces the table, and the script shows it as stored")
        verdict.copy_sources.append(rel)
