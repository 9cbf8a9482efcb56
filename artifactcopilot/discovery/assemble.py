"""Put the steps of all documents together: documentation order, notebooks at the place the docs name them,
conventional Makefile targets, undocumented driver scripts, duplicates merged, facts from lines that name a script."""
from __future__ import annotations

import posixpath
import re

from ..shell import words
from . import text as tx
from .classify import PLOT_NAME, classify
from .cwd import primary_file
from .extract import RawStep
from .makefile import conventional, default_target, script_cwd
from .model import DriverScript, MakeTarget, Notebook, Placeholder, Step
from .notebooks import DocLine
from .prose import script_command
from .variants import Variant, apply_variant
from .view import ArtifactView, FileIndex, join, safe_read

LABEL = re.compile(r"^((?:experiment|main result|result|step|part|task|claim|figure|table|rq)\s*[\w.]*\d[\w.]*)"
                   r"\s*[:.\-–]",
                   re.IGNORECASE)


def with_variants(raws: list[RawStep], variants: list[Variant]) -> list[RawStep]:
    """The documented steps, and after each command a pattern names ("replace `fig_3a.py` with …") the same command
    with each alternative the pattern allows, in the pattern command's folder."""
    out: list[RawStep] = []
    for raw in raws:
        out.append(raw)
        step = raw.step
        if step.kind not in ("workflow", "plot"):
            continue
        for n, variant in enumerate(v for v in variants if v.pattern):
            for k, alternative in enumerate(variant.alternatives):
                inner = apply_variant(step.inner, variant, alternative, step.cwd)
                if inner is None:
                    continue
                cmd = step.cmd.replace(step.inner, inner, 1) if step.inner in step.cmd else inner
                made = Step(cmd=cmd, inner=inner, runner=step.runner, kind=step.kind, source=variant.source,
                            section=step.section, cwd=step.cwd, env=dict(step.env), block=step.block, origin="prose",
                            mentions=[], documented=True,
                            notes=[f"the documented pattern `{step.cmd}` with `{variant.pattern}` replaced by "
                                   f"`{posixpath.basename(alternative)}` ({variant.source}: "
                                   f"\"{variant.sentence[:160]}\")"])
                out.append(RawStep(made, (raw.pos[0], raw.pos[1], raw.pos[2] * 1000 + n * 100 + k + 1)))
    return out


def dedupe_key(step: Step) -> tuple:
    if step.notebook:
        return ("notebook", step.notebook)
    parts = words(step.inner)
    if parts and re.fullmatch(r"python[\d.]*|bash|sh", parts[0]) and len(parts) > 1 and not parts[1].startswith("-"):
        parts = parts[1:]
    if parts and parts[0].startswith("./"):
        parts[0] = parts[0][2:]
    return (step.cwd, " ".join(parts), tuple(sorted(step.env.items())))


def merge_duplicates(raws: list[RawStep]) -> tuple[list[RawStep], dict[int, RawStep]]:
    """Keep the first of identical steps; remember the other sources. Returns kept steps and id(dropped) -> kept."""
    kept: dict[tuple, RawStep] = {}
    redirect: dict[int, RawStep] = {}
    for raw in raws:
        key = dedupe_key(raw.step)
        first = kept.get(key)
        if first is None:
            kept[key] = raw
            continue
        first.step.sources.append(raw.step.source)
        first.step.mentions = tx.merge(first.step.mentions, raw.step.mentions)
        first.step.duration_hint_s = first.step.duration_hint_s or raw.step.duration_hint_s
        first.step.long = first.step.long or raw.step.long
        redirect[id(raw)] = first
    return list(kept.values()), redirect


def line_facts(steps: list[Step], lines: list[DocLine]) -> None:
    """Mentions and durations from doc lines that name a step's script or its section label ("Experiment 1: ...")."""
    seen_sections: set[tuple[str, str]] = set()
    for step in steps:
        keys = [posixpath.basename(primary_file(step.inner) or "")]
        label = LABEL.match(step.section or "")
        first_in_section = (step.source.rsplit(":", 1)[0], step.section) not in seen_sections
        if step.kind == "workflow":
            seen_sections.add((step.source.rsplit(":", 1)[0], step.section))
        for key in filter(None, keys + [label.group(1) if label else ""]):
            rx = re.compile(rf"(?<![\w\-]){re.escape(key)}(?![\w\-])", re.IGNORECASE)
            for dl in lines:
                if len(dl.text) > 400 or not rx.search(dl.text) or dl.source == step.source:
                    continue
                step.mentions = tx.merge(step.mentions, tx.refs(dl.text))
                hint = tx.duration_s(dl.text)
                by_label = label is not None and key == label.group(1)
                if hint and step.duration_hint_s is None and (not by_label or (step.kind == "workflow"
                                                                               and first_in_section)):
                    step.duration_hint_s = hint
                    step.long = step.long or hint >= 3600


def make_steps(targets: list[MakeTarget], documented: list[Step]) -> list[Step]:
    for target in targets:
        folder = posixpath.dirname(target.path) or "."
        default = default_target(targets, target.path)
        for step in documented:
            parts = words(step.inner)
            if parts[:1] != ["make"] or step.cwd != folder:
                continue
            named = [p for p in parts[1:] if not p.startswith("-") and "=" not in p]
            if target.name in named or not named and default is target:
                target.documented = True
    out = []
    for target in targets:
        if not target.documented and posixpath.dirname(target.path) == "" and conventional(target):
            cmd = f"make {target.name}"
            out.append(Step(cmd=cmd, inner=cmd, runner=None, kind=classify(cmd), source=f"{target.path}:{target.line}",
                            section="", cwd=".", origin="makefile", documented=False))
    return out


def driver_steps(drivers: list[DriverScript], documented: list[Step], view: ArtifactView,
                 index: FileIndex) -> list[Step]:
    ran = {join(s.cwd, f.removeprefix("./")) for s in documented for f in [primary_file(s.inner)] if f}
    out = []
    for driver in drivers:
        if driver.path in ran:
            driver.documented = True
            continue
        text = safe_read(view, driver.path, 200_000) or ""
        cwd = script_cwd(text, driver.path, index)
        target = posixpath.basename(driver.path) if cwd != "." else driver.path
        cmd = f"bash {target}"
        step = Step(cmd=cmd, inner=cmd, runner=None, kind=classify(cmd), source=f"{driver.path}:1", section="",
                    cwd=cwd, origin="script", documented=False)
        if driver.needs_args:
            step.placeholders.append(Placeholder("$1", len(words(cmd)), None,
                                                 "the script reads positional arguments ($1) and no default is set"))
        out.append(step)
    return out


def notebook_step(nb: Notebook, source: str, python: str) -> Step:
    folder = posixpath.dirname(nb.path) or "."
    cmd = script_command(nb.path, python)
    kind = "plot" if PLOT_NAME.search(posixpath.basename(nb.path)) else "workflow"
    return Step(cmd=cmd, inner=cmd, runner=None, kind=kind, source=source, section="", cwd=folder, origin="notebook",
                mentions=list(nb.mentions), notebook=nb.path, documented=nb.documented)
