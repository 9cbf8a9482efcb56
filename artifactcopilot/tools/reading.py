"""Reading tools: acquire and list the artifact, read its files and the run's outputs, search, analyse docs."""
from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..acquire.download import Acquisition
from ..acquire.entry import locate_entry
from ..acquire.paper import distinctive_terms, paper_year
from ..claims.paperobjects import paper_objects
from ..discovery import Discovery, discover
from ..discovery.document import DocumentReading, read_document
from ..discovery.view import decode
from ..models import Evidence, EvidenceLevel
from ..provision import EnvPlan, InstallStep, plan_environment
from ..provision.choose import contemporary_python
from ..provision.docfiles import named_requirement_files
from ..provision.era import artifact_era
from ..route import Route, plan_route
from ..tables import Table
from .context import ReviewContext

MAX_READ = 2_000_000
NOTEBOOK_TOOLS = ("jupyter",)
"""Tools the docs name that the review does not install up front: notebooks run headless with nbclient."""
DEPENDENCY_FILES = re.compile(r"(^|/)(requirements[^/]*\.txt|pyproject\.toml|setup\.py|setup\.cfg|"
                              r"environment[^/]*\.ya?ml|Pipfile(\.lock)?|poetry\.lock|"
                              r"Dockerfile[^/]*|docker-compose[^/]*\.ya?ml|package\.json|package-lock\.json|"
                              r"Cargo\.toml|pom\.xml|build\.gradle|"
                              r"renv\.lock|DESCRIPTION|go\.mod|Makefile|(setup|install)\.sh|conda[^/]*\.ya?ml|uv\.lock)$",
                              re.I)


def read_text(base: Path | None, rel: str, max_bytes: int) -> str | None:
    """Text of a file under `base`; None when outside it, missing or unreadable."""
    if base is None:
        return None
    path = (base / rel).resolve()
    if base.resolve() not in path.parents or not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            return decode(fh.read(max_bytes))
    except OSError:
        return None


class Reading:
    def __init__(self, ctx: ReviewContext, phase: str):
        self.ctx, self.phase = ctx, phase

    def acquire_artifact(self) -> tuple[Acquisition, Evidence]:
        acq = self.ctx.acquire()
        summary = f"acquired {acq.kind} with {len(acq.files)} files" if acq.ok else f"acquisition failed: {acq.error}"
        return acq, self.ctx.store.add_json(self.phase, "acquisition", "acquisition", acq.to_dict(), summary,
                                            EvidenceLevel.E1)

    def list_files(self) -> list[str]:
        return self.ctx.files()

    def locate_entry(self) -> str | None:
        root = self.ctx.root
        return locate_entry(root, self.ctx.files()) if root else None

    def read_file(self, rel: str, max_bytes: int = MAX_READ) -> str | None:
        """Text of an artifact file (pristine copy); None when outside the artifact or unreadable."""
        return read_text(self.ctx.root, rel, max_bytes)

    def read_output(self, rel: str, max_bytes: int = MAX_READ) -> str | None:
        """Text of a file in the sandbox copy (where runs write their outputs)."""
        return read_text(self.ctx.session.root if self.ctx.session else None, rel, max_bytes)

    def grep(self, pattern: str, suffixes: tuple[str, ...] = ()) -> list[tuple[str, int, str]]:
        regex, hits = re.compile(pattern, re.I), []
        for rel in self.list_files():
            if suffixes and not rel.endswith(suffixes):
                continue
            text = self.read_file(rel, 200_000) or ""
            for n, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    hits.append((rel, n, line.strip()[:200]))
        return hits

    def paper_terms(self, artifact_text: str) -> dict[str, Any]:
        paper_terms = distinctive_terms(self.ctx.paper.text, limit=80)
        artifact_terms = distinctive_terms(artifact_text, limit=400)
        shared = sorted(paper_terms & artifact_terms)
        return {"paper_terms": sorted(paper_terms), "shared_terms": shared, "shared_count": len(shared)}

    def dependency_files(self) -> list[str]:
        return [f for f in self.list_files() if DEPENDENCY_FILES.search(f) and f.count("/") <= 2]

    def parse_readme(self, entry: str) -> tuple[DocumentReading, Evidence]:
        """One document as discovery reads it: its commands and sections, with the documentation's D1 facts
        (signals, paper references, variables); logged."""
        reading = read_document(discover(ArtifactFiles(self), self.ctx.paper.text), entry)
        ev = self.ctx.store.add_json(self.phase, "readme", "readme-analysis", reading.to_dict(),
                                     f"{reading.path}: {reading.words} words, {len(reading.commands)} commands, "
                                     f"paper refs {', '.join(reading.paper_refs) or 'none'}", EvidenceLevel.E1)
        return reading, ev

    def paper_tables(self) -> list[Table]:
        return list(self.ctx.paper.tables)

    def discover_docs(self) -> tuple[Discovery, Evidence]:
        """Every document a reviewer would open, the commands they give (fences, inline code, prose, Makefile
        targets, driver scripts, notebooks) classified and in documentation order; logged."""
        found = discover(ArtifactFiles(self), self.ctx.paper.text)
        kinds = {k: len(found.steps_of(k)) for k in ("install", "data", "download", "workflow", "test", "plot")}
        summary = (f"{len(found.docs)} documents, {len(found.steps)} commands ("
                   + ", ".join(f"{n} {k}" for k, n in kinds.items() if n) + f"), {len(found.notebooks)} notebooks")
        return found, self.ctx.store.add_json(self.phase, "docs", "docs-discovery", found.to_dict(), summary,
                                              EvidenceLevel.E1)

    def plan_route(self, found: Discovery) -> tuple[Route, Evidence]:
        """The documentation as a plan: the paper objects it ties to commands, each command's folder, prerequisites,
        documented cost and reductions, ranked cheapest paper-tied first; logged, nothing run."""
        paper = self.ctx.paper
        objects = paper_objects([t.label or "" for t in paper.tables], paper.figures, paper.text)
        route = plan_route(found, objects, read=lambda rel: self.read_file(rel, 300_000), files=self.list_files())
        costed = sum(leg.cost_s is not None for leg in route.legs)
        summary = (f"{len(route.legs)} commands ranked; {len(route.objects)} paper objects tied"
                   + (f" ({', '.join(route.objects[:6])})" if route.objects else "")
                   + f"; {costed} with a documented cost; {len(route.prerequisites)} prerequisites")
        return route, self.ctx.store.add_json(self.phase, "route", "route", route.to_dict(), summary, EvidenceLevel.E1)

    def plan_environment(self, found: Discovery, packages: Iterable[str] = ()) -> tuple[EnvPlan, Evidence]:
        """What a careful reviewer would run to set up the environment the docs describe; logged, nothing run."""
        documented = [InstallStep(cmd=s.cmd, inner=s.inner, runner=s.runner, cwd=s.cwd, source=s.source, env=s.env)
                      for s in found.steps if s.kind == "install"]
        entries = [t for s in found.steps if s.kind in ("workflow", "plot") for t in _entry_files(s.inner, s.cwd)]
        files, read = self.list_files(), (lambda rel: self.read_file(rel, 2_000_000))
        year = paper_year(self.ctx.paper.text)
        acquisition = self.ctx.acquisition
        date = artifact_era(files, read, root=self.ctx.root, paper_year=year,
                            resolution=acquisition.resolution if acquisition else ())
        docs = [getattr(d, "path", d) for d in getattr(found, "docs", [])]
        texts = [self.read_file(p, 1_000_000) or "" for p in docs if isinstance(p, str) and not p.startswith("paper:")]
        plan = plan_environment(files, read, documented,
                                self.ctx.sandbox.interpreters(), container="apt" in self.ctx.sandbox.capabilities,
                                workflow_entries=entries, doc_python=found.python_versions,
                                doc_tools=[t for t in found.system_tools if t not in NOTEBOOK_TOOLS],
                                doc_packages=list(packages), era=contemporary_python(date.date.year if date else year),
                                date=date, doc_files=named_requirement_files(files, texts), doc_texts=texts)
        chosen = plan.python.chosen if plan.python else "none"
        summary = f"python {chosen}; {len(plan.steps)} provisioning steps; {len(plan.notes)} notes"
        return plan, self.ctx.store.add_json(self.phase, "environment", "environment-plan", plan.to_dict(), summary,
                                             EvidenceLevel.E1)

    def detect_environment(self) -> tuple[list[str], dict[str, str], Evidence]:
        """The declared environment: dependency, container and setup files with their first lines; logged."""
        deps = self.dependency_files()
        heads = {f: (self.read_file(f, 4000) or "")[:1500] for f in deps[:10]}
        ev = self.ctx.store.add_json(self.phase, "environment", "environment",
                                     {"dependency_files": deps, "contents": heads},
                                     f"{len(deps)} dependency files", EvidenceLevel.E1)
        return deps, heads, ev

    def artifact_view(self) -> ArtifactFiles:
        """The artifact as discovery reads it (file list and text), without recording anything."""
        return ArtifactFiles(self)


class ArtifactFiles:
    """The artifact as discovery reads it."""

    def __init__(self, reading: Reading):
        self.files, self._reading = reading.list_files(), reading

    def read(self, rel: str, max_bytes: int = 2_000_000) -> str | None:
        return self._reading.read_file(rel, max_bytes)


def _entry_files(cmd: str, cwd: str) -> list[str]:
    """Artifact files a command runs (`python x.py`, `./run.sh`, `Rscript a.R`), relative to the root."""
    out = []
    for token in cmd.split():
        if re.search(r"\.(py|sh|R|r|jl|ipynb|pl|rb|js)$", token) and not token.startswith(("-", "$", "/")):
            path = token.removeprefix("./")
            out.append(path if cwd in ("", ".") else f"{cwd.rstrip('/')}/{path}")
    return out

