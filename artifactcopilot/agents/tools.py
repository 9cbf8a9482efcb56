"""Review tools shared by every agent, and the per-phase scope that limits them.

`Tools` holds the review context (store, sandbox session, paper, artifact). `ScopedTools` exposes
only the tools a phase skill lists; calling any other is a ToolScopeError. Every command goes
through `_run`, which classifies the action, logs an intervention *before* running when it is
beyond I0, and persists the full output as evidence.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..acquire.download import Acquisition, acquire
from ..acquire.entry import locate_entry
from ..acquire.paper import Paper, distinctive_terms
from ..errors import ToolScopeError
from ..evidence import EvidenceStore
from ..interventions import Action, Classifier, default_classifier
from ..models import CommandRecord, Evidence, EvidenceLevel, Intervention
from ..readme import ReadmeAnalysis, analyze_readme, decode
from ..tables import Comparison, Table, best_match
from ..sandbox.base import Sandbox, Session

MAX_READ = 2_000_000
DEPENDENCY_FILES = re.compile(r"(^|/)(requirements[^/]*\.txt|pyproject\.toml|setup\.py|setup\.cfg|environment[^/]*\.ya?ml|Pipfile(\.lock)?|poetry\.lock|"
                              r"Dockerfile[^/]*|docker-compose[^/]*\.ya?ml|package\.json|package-lock\.json|Cargo\.toml|pom\.xml|build\.gradle|"
                              r"renv\.lock|DESCRIPTION|go\.mod|Makefile|(setup|install)\.sh|conda[^/]*\.ya?ml|uv\.lock)$", re.I)


@dataclass
class ReviewOptions:
    """Settings of one review that agents and tools read."""

    timeout_s: float = 1800.0
    """Per-command time limit for artifact commands."""
    max_attempts: int = 3
    """Packet submissions per phase before the checker commits a downgraded packet."""
    stability_rerun_max_s: float = 120.0
    """Rerun a workflow to check stability only when its first run took less than this."""


@dataclass
class CommandResult:
    record: CommandRecord
    evidence: Evidence
    intervention: Intervention | None = None


@dataclass
class Tools:
    store: EvidenceStore
    paper: Paper
    source: str
    sandbox: Sandbox
    options: ReviewOptions = field(default_factory=ReviewOptions)
    classifier: Classifier = field(default_factory=default_classifier)
    acquisition: Acquisition | None = None
    session: Session | None = None
    command_seconds: float = 0.0
    documented_workflow: set[str] = field(default_factory=set)
    phase: str = "gate"
    """The phase now running; every evidence record is tagged with it (see ScopedTools)."""
    cache_dir: Path | None = None
    """Download cache for remote artifacts (None: env ARTIFACTCOPILOT_CACHE_DIR, else the user cache dir)."""

    @property
    def root(self) -> Path | None:
        return self.acquisition.root if self.acquisition and self.acquisition.ok else None

    # ---- gate ------------------------------------------------------------------------------
    def acquire_artifact(self) -> tuple[Acquisition, Evidence]:
        if self.acquisition is None:
            self.acquisition = acquire(self.source, self.store.root / "acquired", cache_dir=self.cache_dir)
        acq = self.acquisition
        summary = (f"acquired {acq.kind} with {len(acq.files)} files" if acq.ok else f"acquisition failed: {acq.error}")
        return acq, self.store.add_json(self.phase, "acquisition", "acquisition", acq.to_dict(), summary, EvidenceLevel.E1)

    def restore_acquisition(self) -> None:
        """On resume after the gate was committed: acquire again (cached or local) without new evidence."""
        if self.acquisition is None:
            self.acquisition = acquire(self.source, self.store.root / "acquired", cache_dir=self.cache_dir)

    def list_files(self) -> list[str]:
        return list(self.acquisition.files) if self.acquisition else []

    def locate_entry(self) -> str | None:
        return locate_entry(self.root, self.list_files()) if self.root else None

    def read_file(self, rel: str, max_bytes: int = MAX_READ) -> str | None:
        """Text of an artifact file (pristine copy); None when outside the artifact or unreadable."""
        return self._read(self.root, rel, max_bytes)

    def read_output(self, rel: str, max_bytes: int = MAX_READ) -> str | None:
        """Text of a file in the sandbox copy (where runs write their outputs)."""
        return self._read(self.session.root if self.session else None, rel, max_bytes)

    @staticmethod
    def _read(base: Path | None, rel: str, max_bytes: int) -> str | None:
        if base is None:
            return None
        path = (base / rel).resolve()
        if not (base.resolve() in path.parents) or not path.is_file():
            return None
        try:
            with open(path, "rb") as fh:
                return decode(fh.read(max_bytes))
        except OSError:
            return None

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
        paper_terms = distinctive_terms(self.paper.text, limit=80)
        artifact_terms = distinctive_terms(artifact_text, limit=400)
        shared = sorted(paper_terms & artifact_terms)
        return {"paper_terms": sorted(paper_terms), "shared_terms": shared, "shared_count": len(shared)}

    # ---- D1 ---------------------------------------------------------------------------------
    def dependency_files(self) -> list[str]:
        return [f for f in self.list_files() if DEPENDENCY_FILES.search(f) and f.count("/") <= 2]

    def parse_readme(self, entry: str) -> tuple[ReadmeAnalysis, Evidence]:
        text = self.read_file(entry, 6_000_000) or ""
        analysis = analyze_readme(text, entry, has_dependency_file=bool(self.dependency_files()))
        ev = self.store.add_json(self.phase, "readme", "readme-analysis", analysis.to_dict(),
                                 f"{entry}: {analysis.words} words, {len(analysis.commands)} commands, "
                                 f"paper refs {', '.join(analysis.paper_refs) or 'none'}", EvidenceLevel.E1)
        return analysis, ev

    # ---- commands ---------------------------------------------------------------------------
    def ensure_session(self) -> Session:
        if self.session is None:
            self.session = self.sandbox.start(self.root)
            self._replay_setup()
        return self.session

    def _replay_setup(self) -> None:
        """A resumed review starts a fresh sandbox after D2 was committed: re-apply D2's recorded
        setup steps so later phases see the same environment. Logged as working memory, not evidence."""
        d2 = self.store.packets().get("D2") if self.phase != "D2" else None
        for step in (d2.facts.get("replay", []) if d2 else []):
            build = getattr(self.session, "build_image", None)
            if "build" in step:  # the artifact's own container: later phases ran inside it
                if build is None:
                    continue
                res = build(step["build"], timeout=self.options.timeout_s)
                line = f"docker build {step['build']}"
            else:
                res = self.session.run(step["script"], timeout=self.options.timeout_s, env=step.get("env"),
                                       network=step.get("network", False))
                line = step["script"]
            with open(self.store.working("D2") / "replay.log", "a", encoding="utf-8") as fh:
                fh.write(f"$ {line}\n# exit {res.record.exit_code}\n")

    def record_intervention(self, phase: str, action: Action, purpose: str, evidence: list[str] | None = None) -> Intervention:
        cls = self.classifier.classify(action)
        for earlier in self.store.interventions():  # the same fix applied again is one ledger entry, not two
            if earlier.action == (action.command or str(action.target)) and earlier.level == cls.level:
                return earlier
        entry = Intervention(id=self.store.next_intervention_id(), phase=phase, action=action.command or str(action.target),
                             purpose=purpose, level=cls.level, rule=cls.rule, anticipated_impact=cls.impact,
                             evidence=evidence or [])
        return self.store.log_intervention(entry)

    def _run(self, phase: str, script: str, action: Action, purpose: str, kind: str = "command",
             env: dict[str, str] | None = None, network: bool = False, timeout: float | None = None) -> CommandResult:
        cls = self.classifier.classify(action)
        intervention = None
        if cls.level.rank > 0:  # logged before it runs, so success cannot soften it later
            intervention = self.record_intervention(phase, action, purpose)
        session = self.ensure_session()
        if hasattr(session, "set_phase"):  # per-phase wall budgets live in the session
            session.set_phase(phase)
        started = time.monotonic()
        result = session.run(script, timeout=timeout or self.options.timeout_s, env=env, network=network)
        self.command_seconds += time.monotonic() - started
        rec = result.record
        log = (f"$ {script}\n# cwd: {rec.cwd}  exit: {rec.exit_code}  duration: {rec.duration_s}s  timed_out: {rec.timed_out}\n"
               f"# network: {'on' if network else 'off'}  limits hit: {', '.join(rec.limits_hit) or 'none'}\n"
               f"# files created: {', '.join(rec.files_created[:50]) or 'none'}\n"
               f"# files modified: {', '.join(rec.files_modified[:50]) or 'none'}\n"
               f"----- stdout -----\n{result.stdout_full.decode('utf-8', 'replace')}\n"
               f"----- stderr -----\n{result.stderr_full.decode('utf-8', 'replace')}\n")
        status = "timed out" if rec.timed_out else f"exit {rec.exit_code}"
        ev = self.store.add(phase, kind, _cmd_name(script), log, f"{script.splitlines()[-1][:120]} -> {status}")
        self.store.add_json(phase, "command-record", "record", rec.model_dump(mode="json"), f"record of {ev.id}")
        return CommandResult(rec, ev, intervention)

    def run_setup(self, script: str, action: Action, purpose: str, env: dict[str, str] | None = None,
                  network: bool = True) -> CommandResult:
        last = script.strip().splitlines()[-1].strip() if script.strip() else ""
        if last in self.documented_workflow:
            raise ToolScopeError(f"D2 may not run the representative workflow ('{last}')")
        return self._run(self.phase, script, action, purpose, kind="setup", env=env, network=network)

    def probe(self, script: str, purpose: str) -> CommandResult:
        return self._run(self.phase, script, Action("run", script, documented=True), purpose, kind="probe")

    def run_workflow(self, script: str, action: Action, purpose: str, env: dict[str, str] | None = None) -> CommandResult:
        return self._run(self.phase, script, action, purpose, env=env)

    def run_transfer(self, script: str, action: Action, purpose: str, env: dict[str, str] | None = None) -> CommandResult:
        return self._run(self.phase, script, action, purpose, kind="transfer", env=env)

    def verify_provenance(self, script: str, withheld: str, env: dict[str, str] | None = None) -> tuple[CommandRecord, str, Evidence]:
        """Rerun `script` in a fresh copy of the artifact without `withheld`, to see whether output depends on it."""
        fresh = getattr(self.sandbox, "fresh", self.sandbox.start)(self.root)  # a clean judge container where there are containers
        try:
            target = fresh.root / withheld
            if target.exists():
                target.unlink()
            started = time.monotonic()
            result = fresh.run(script, timeout=self.options.timeout_s, env=env)
            self.command_seconds += time.monotonic() - started
        finally:
            fresh.close()
        out = result.stdout_full.decode("utf-8", "replace")
        ev = self.store.add(self.phase, "provenance", _cmd_name(script),
                            f"$ {script}\n# rerun in a fresh copy without {withheld}\n# exit: {result.record.exit_code}\n"
                            f"----- stdout -----\n{out}\n----- stderr -----\n{result.stderr_full.decode('utf-8', 'replace')}\n",
                            f"provenance rerun without {withheld} -> exit {result.record.exit_code}")
        return result.record, out, ev

    # ---- container environment (D2) -----------------------------------------------------------
    def build_image(self, dockerfile: str, action: Action, purpose: str) -> CommandResult | None:
        """Build the artifact's Dockerfile in the sandbox's engine; later commands run in that image.
        None when the sandbox has no container engine. A failed build is evidence, not an error."""
        session = self.ensure_session()
        build = getattr(session, "build_image", None)
        if build is None:
            return None
        intervention = self.record_intervention(self.phase, action, purpose) if self.classifier.classify(action).level.rank > 0 else None
        started = time.monotonic()
        result = build(dockerfile, timeout=self.options.timeout_s)
        self.command_seconds += time.monotonic() - started
        rec = result.record
        status = "timed out" if rec.timed_out else ("built" if rec.ok else "build failed")
        ev = self.store.add(self.phase, "setup", "docker-build.log",
                            f"$ {rec.cmd}\n# exit: {rec.exit_code}  duration: {rec.duration_s}s  timed_out: {rec.timed_out}\n"
                            f"----- build log -----\n{result.stdout_full.decode('utf-8', 'replace')}\n----- error -----\n{rec.stderr}\n",
                            f"{rec.cmd} -> {status}")
        self.store.add_json(self.phase, "command-record", "record", rec.model_dump(mode="json"), f"record of {ev.id}")
        return CommandResult(rec, ev, intervention)

    # ---- D4 ----------------------------------------------------------------------------------
    def paper_tables(self) -> list[Table]:
        return list(self.paper.tables)

    def compare_table(self, expected: Table, text: str) -> Comparison | None:
        return best_match(expected, text)

    # ---- evidence ------------------------------------------------------------------------------
    def record_evidence(self, phase: str, kind: str, name: str, data: Any, summary: str = "",
                        level: EvidenceLevel = EvidenceLevel.E0) -> Evidence:
        if isinstance(data, (dict, list)):
            return self.store.add_json(phase, kind, name, data, summary, level)
        return self.store.add(phase, kind, name, data if isinstance(data, (str, bytes)) else json.dumps(data), summary, level)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


def _cmd_name(script: str) -> str:
    last = script.strip().splitlines()[-1] if script.strip() else "command"
    return re.sub(r"[^A-Za-z0-9]+", "-", last)[:40] + ".log"


class ScopedTools:
    """The view of `Tools` a phase gets: only the names in its skill's Tool Scope."""

    ALWAYS = {"root", "acquisition", "paper", "options", "store", "session", "documented_workflow", "list_files_cached"}

    def __init__(self, tools: Tools, phase: str, scope: tuple[str, ...]):
        self._tools, self._phase, self._scope = tools, phase, set(scope)
        tools.phase = phase

    def __getattr__(self, name: str):
        if name in self.ALWAYS:
            return getattr(self._tools, name)
        if name in ("read_output", "dependency_files") and "read_file" in self._scope:
            return getattr(self._tools, name)
        if name not in self._scope:
            raise ToolScopeError(f"phase {self._phase} may not call '{name}' (not in its Tool Scope)")
        return getattr(self._tools, name)
