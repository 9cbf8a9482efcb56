"""Running tools: setup steps, probes, the workflow, transfer cases, provenance reruns, image builds.

Every command goes through `_run`: the action is classified and, beyond I0, logged *before* it runs;
the sandbox runs it; the full output is persisted as a command log (sandbox/commandlog.py) and its
record as JSON; limits it hit and network it used become report flags.
"""
from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolScopeError
from ..interventions import Action
from ..models import CommandRecord, Evidence, Flag, Intervention
from ..sandbox.base import VENV, RunResult, Session, offers_suites
from ..sandbox.commandlog import format_log
from ..sandbox.outcome import RunOutcome, judge_run
from . import display
from .committed import compare_regenerated, set_aside_committed
from .context import ReviewContext
from .recording import log_intervention
from .writes import artifact_wrote


@dataclass
class CommandResult:
    record: CommandRecord
    evidence: Evidence
    intervention: Intervention | None = None
    figures: list[str] = field(default_factory=list)
    """Evidence ids of the figures the command showed (PNG files kept in the run directory)."""
    outcome: RunOutcome | None = None
    """What the run's output and the files it wrote show (exit 0 is not success); None for setup steps."""


def command_name(script: str) -> str:
    last = script.strip().splitlines()[-1] if script.strip() else "command"
    return re.sub(r"[^A-Za-z0-9]+", "-", last)[:40] + ".log"


def ensure_session(ctx: ReviewContext, phase: str) -> Session:
    """The review's long-lived session; a resumed review replays D2's recorded setup into a fresh one."""
    if ctx.session is None:
        ctx.session = ctx.take_started() or ctx.sandbox.start(ctx.artifact_root())  # begun past the gate, or now
        _replay_setup(ctx, ctx.session, phase)
    return ctx.session


def _replay_setup(ctx: ReviewContext, session: Session, phase: str) -> None:
    """Re-apply the setup steps committed phases recorded (facts["replay"], in phase order) so a resumed review's
    fresh sandbox has the same environment (working memory, not evidence)."""
    packets = ctx.store.packets()
    steps = [step for p, packet in packets.items() if p != phase for step in packet.facts.get("replay", [])]
    for step in steps:
        if step.get("venv"):
            ctx.venv_ready = True
        if "suite" in step:  # the review ran on another Debian suite's base image
            if offers_suites(session):
                res, line = session.use_suite(step["suite"]), f"use suite {step['suite']}"
            else:
                continue
        elif "build" in step:  # the artifact's own container: later phases ran inside it
            if "build_image" not in session.capabilities:
                continue
            res, line = (session.build_image(step["build"], timeout=ctx.options.timeout_s),
                         f"docker build {step['build']}")
        else:
            res = session.run(step["script"], timeout=ctx.options.timeout_s, env=step.get("env"),
                              network=step.get("network", False), cwd=step.get("cwd", "."))
            line = step["script"]
        ctx.store.write_working("D2", "replay.log", f"$ {line}\n# exit {res.record.exit_code}\n", append=True)


def raise_run_flags(ctx: ReviewContext, record: CommandRecord, phase: str) -> None:
    """A limit the command hit, or the network it was given, is a flag a reader sees without opening logs."""
    backend, shown = ctx.sandbox.name, record.cmd.splitlines()[-1][:80] if record.cmd else ""
    for note in record.limits_hit:
        ctx.flags.add(Flag(severity="low", code="sandbox-limit", message=f"{backend}: `{shown}`: {note}", phase=phase))
    if record.network:
        ctx.flags.add(Flag(severity="info", code="network-enabled", message=f"{backend}: network enabled for `{shown}`",
                           phase=phase))


FIX_KINDS = ("path_fix", "command_fix", "env", "version", "install", "wait", "prepare", "reduce", "network")
NOTEBOOK_OUT = ".copilot/notebooks"
"""Executed copies of notebooks, inside the artifact copy (the notebook itself is never rewritten)."""
# The runner's source is sent as is; its long lines are split across adjacent literals, not in the sent text.
NOTEBOOK_RUNNER = ("""import sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
source, target, folder = sys.argv[1:4]
nb = nbformat.read(source, as_version=4)
def saved(**_):  # the cells done so far are kept when the time limit cuts the run
    nbformat.write(nb, target)
client = NotebookClient(nb, timeout=None, kernel_name="python3", allow_errors=False, """
                   """resources={"metadata": {"path": folder}})
if client.has_trait("on_cell_executed"):
    client.on_cell_executed = saved
status = 0
try:
    client.execute()
except CellExecutionError as exc:
    status = 1
    print(str(exc)[-4000:], file=sys.stderr)
finally:
    nbformat.write(nb, target)
errors = sum(1 for c in nb.cells if c.get("cell_type") == "code" for o in c.get("outputs", []) """
                   """if o.get("output_type") == "error")
outputs = sum(1 for c in nb.cells if c.get("cell_type") == "code" and c.get("outputs"))
print(f"executed {source}: {len([c for c in nb.cells if c.get('cell_type') == 'code'])} code cells, """
                   """{outputs} with output, {errors} errors -> {target}")
sys.exit(status)
""")


def invocation_of(action: Action, kind: str) -> str:
    """How the review came to run a command, as its log records it (the verifier grounds claims on it)."""
    if kind == "probe":
        return "probe"
    if action.documented:
        return "documented"
    return "fix" if action.kind in FIX_KINDS else "undocumented"


class Running:
    def __init__(self, ctx: ReviewContext, phase: str):
        self.ctx, self.phase = ctx, phase

    def _tell(self, event: str, detail: str) -> None:
        if self.ctx.progress is not None:
            self.ctx.progress(self.phase, event, detail)

    def _output_listener(self):
        """The latest complete output line, passed to the progress callback at most a few times a second."""
        if self.ctx.progress is None:
            return None
        state = {"last": 0.0, "buffer": b""}

        def listen(chunk: bytes) -> None:
            state["buffer"] = (state["buffer"] + chunk)[-4096:]
            now = time.monotonic()
            lines = [ln for ln in state["buffer"].decode("utf-8", "replace").splitlines() if ln.strip()]
            if lines and now - state["last"] > 0.25:
                state["last"] = now
                self._tell("output", lines[-1][:200])
        return listen

    def _session(self) -> Session:
        session = ensure_session(self.ctx, self.phase)
        session.set_phase(self.phase)  # per-phase wall budgets live in the session
        return session

    def _persist(self, kind: str, script: str, result: RunResult, note: str = "", with_record: bool = True,
                 name: str | None = None, outcome: str | None = None, invocation: str = "",
                 judged: RunOutcome | None = None) -> Evidence:
        rec = result.record
        status = outcome or (judged.line(rec.exit_code) if judged else None) or \
            ("timed out" if rec.timed_out else f"exit {rec.exit_code}")
        summary = f"{script.splitlines()[-1][:120] if script.strip() else script} -> {status}"
        if note:
            summary = f"{note} -> {status}"
        ev = self.ctx.store.add(self.phase, kind, name or command_name(script),
                                format_log(script, rec, result.stdout_full, result.stderr_full, note, invocation,
                                           judged.header() if judged else ""),
                                summary)
        if with_record:
            self.ctx.store.add_json(self.phase, "command-record", "record", rec.model_dump(mode="json"),
                                    f"record of {ev.id}")
        raise_run_flags(self.ctx, rec, self.phase)
        return ev

    def _run(self, script: str, action: Action, purpose: str, kind: str = "command", env: dict[str, str] | None = None,
             network: bool = False, timeout: float | None = None, cwd: str = ".", shown: bool = True,
             notebook: str | None = None) -> CommandResult:
        cls = self.ctx.classifier.classify(action)
        intervention = None
        if cls.level.rank > 0:  # logged before it runs, so success cannot soften it later
            intervention = log_intervention(self.ctx, self.phase, action, purpose)
        session = self._session()
        network = network and not self.ctx.options.offline  # --offline: no step gets network
        started = time.monotonic()
        self._tell("command", script.strip().splitlines()[-1] if script.strip() else script)
        committed = set_aside_committed(self.ctx.root) if kind == "command" else None
        result = self._execute(session, script, env, network, timeout, cwd, shown, notebook)
        self.ctx.command_seconds += time.monotonic() - started
        judged = None if kind == "setup" else judge_run(session.root, result)
        self._tell("command-done", judged.line(result.record.exit_code) if judged else
                   "timed out" if result.record.timed_out else f"exit {result.record.exit_code}")
        ev = self._persist(kind, script, result, invocation=invocation_of(action, kind), judged=judged)
        compare_regenerated(self.ctx, self.phase, committed, session.root, result.record, ev.id)
        if not action.documented or kind == "probe":  # a probe checks; it must not change the artifact
            own = bool(notebook) or artifact_wrote(script, session.root, cwd, self.ctx.documented_workflow)
            intervention = self._effects(result.record, script, ev.id, own, action) or intervention
        return CommandResult(result.record, ev, intervention, self._keep_figures(session.root, result.record, ev.id),
                             judged)

    def _keep_figures(self, root: Path, record: CommandRecord, ev_id: str) -> list[str]:
        """Copy the figures a command showed into the evidence, so the report can show what was drawn."""
        kept = []
        for rel in record.figures_shown[:display.KEEP]:
            data = display.read_figure(root, rel)
            if data:
                kept.append(self.ctx.store.add(self.phase, "figure", f"{ev_id}-{rel.rsplit('/', 1)[-1]}", data,
                                               f"figure shown by {ev_id} ({rel})").id)
        return kept

    def _execute(self, session: Session, script: str, env: dict[str, str] | None, network: bool,
                 timeout: float | None, cwd: str, shown: bool, notebook: str | None = None) -> RunResult:
        """Run with the headless display (tools/display.py) unless `shown` is off, and list the figures the command
        showed; a command that replaced PYTHONPATH so the display cannot load runs once more with plain Agg."""
        run = f"{self.phase}-{sum(1 for _ in (session.root / display.FOLDER).glob('*')) + 1}"
        envs = [display.display_env(session.root, run, self.ctx.run_env(env))] if shown else []
        for run_env in [*envs, self.ctx.run_env(env)]:
            result = session.run(script, timeout=timeout or self.ctx.options.timeout_s, env=run_env,
                                 network=network, cwd=cwd, on_output=self._output_listener())
            stderr = result.stderr_full.decode(errors="replace")
            if not shown or result.record.ok or not display.backend_missing(stderr):
                break
        result.record.figures_shown = display.shown_figures(session.root, run) if shown else (
            display.notebook_figures(session.root, notebook, run) if notebook else [])
        return result

    def _effects(self, record: CommandRecord, script: str, ev_id: str, own: bool,
                 action: Action | None = None) -> Intervention | None:
        """What an undocumented command did to the artifact's own files classifies it, whatever it was declared as:
        a changed or deleted code file is an edit of core code (I4), a changed configuration file I3 — unless the
        changes are the artifact's own program at work (`own`, tools/writes.py): what the artifact's command does
        when it runs is never the review's intervention (the command log lists the files all the same). The file an
        edit action names as its target (a documented value set, a documented knob lowered) was classified with
        the action before it ran, by the rule for that action."""
        if own:
            return None
        worst = None
        declared = action.target if action is not None and action.kind != "run" else None
        for path in record.files_modified + record.files_deleted:
            target = self.ctx.classifier.edit_of(path)
            if target is None or path == declared:
                continue
            verb = "deleted" if path in record.files_deleted else "modified"
            entry = log_intervention(self.ctx, self.phase,
                                     Action("edit", f"{script.strip()[:200]} ({verb} {path})", target=path),
                                     f"the command {verb} the artifact's "
                                     f"{'code' if target == 'core' else 'configuration'} file {path}", [ev_id])
            worst = entry if worst is None or entry.level > worst.level else worst
        return worst

    def run_setup(self, script: str, action: Action, purpose: str, env: dict[str, str] | None = None,
                  network: bool = True, cwd: str = ".", timeout: float | None = None) -> CommandResult:
        last = script.strip().splitlines()[-1].strip() if script.strip() else ""
        if last in self.ctx.documented_workflow:
            raise ToolScopeError(f"setup may not run the representative workflow ('{last}')")
        return self._run(script, action, purpose, kind="setup", env=env, network=network, cwd=cwd, timeout=timeout)

    def probe(self, script: str, purpose: str, cwd: str = ".", timeout: float = 120) -> CommandResult:
        return self._run(script, Action("run", script, documented=True), purpose, kind="probe", cwd=cwd,
                         timeout=min(120, timeout))

    def run_workflow(self, script: str, action: Action, purpose: str, env: dict[str, str] | None = None,
                     cwd: str = ".", timeout: float | None = None, network: bool = False) -> CommandResult:
        return self._run(script, action, purpose, env=env, cwd=cwd, timeout=timeout, network=network)

    def run_transfer(self, script: str, action: Action, purpose: str, env: dict[str, str] | None = None,
                     cwd: str = ".", timeout: float | None = None) -> CommandResult:
        return self._run(script, action, purpose, kind="transfer", env=env, cwd=cwd, timeout=timeout)

    def run_notebook(self, notebook: str, action: Action, purpose: str, timeout: float | None = None,
                     kind: str = "command") -> tuple[CommandResult, str]:
        """Execute a notebook headless (nbclient, in the notebook's folder) into a copy under `.copilot/`;
        returns the run and the executed copy's path (relative to the artifact root). Needs the notebook tooling
        in the review's venv (see provision.notebook_tooling)."""
        executed = f"{NOTEBOOK_OUT}/{notebook}"
        folder = notebook.rsplit("/", 1)[0] if "/" in notebook else "."
        script = (f"mkdir -p {shlex.quote(executed.rsplit('/', 1)[0])} && {VENV}/bin/python - "
                  f"{shlex.quote(notebook)} {shlex.quote(executed)} {shlex.quote(folder)} <<'PY'\n{NOTEBOOK_RUNNER}PY")
        # the kernel keeps its own backend (its %matplotlib inline, ipykernel's default): the review's headless
        # setting is withdrawn for it, and the figures it showed are read from the executed copy
        return self._run(script, action, purpose, kind=kind, timeout=timeout, shown=False, env={"MPLBACKEND": ""},
                         notebook=executed), executed

    def verify_provenance(self, script: str, withheld: str, env: dict[str, str] | None = None,
                          timeout: float | None = None) -> tuple[CommandRecord, str, Evidence]:
        """Rerun `script` in a fresh copy of the artifact without `withheld`, to see whether output depends on it."""
        fresh = self.ctx.sandbox.fresh(self.ctx.artifact_root())
        try:
            target = fresh.root / withheld
            if target.exists():
                target.unlink()
            started = time.monotonic()
            result = fresh.run(script, timeout=timeout or self.ctx.options.timeout_s, env=env)
            self.ctx.command_seconds += time.monotonic() - started
            judged = judge_run(fresh.root, result)
        finally:
            fresh.close()
        ev = self._persist("provenance", script, result, note=f"provenance rerun without {withheld}", with_record=False,
                           judged=judged)
        return result.record, result.stdout_full.decode("utf-8", "replace"), ev

    def use_suite(self, suite: str, action: Action, purpose: str) -> CommandResult | None:
        """Move the review's container to the base image of another Debian suite (its Python), before anything is
        installed; None when the sandbox has no such images (then the nearest interpreter stays, flagged)."""
        session = self._session()
        if not offers_suites(session):
            return None
        cls = self.ctx.classifier.classify(action)
        intervention = log_intervention(self.ctx, self.phase, action, purpose) if cls.level.rank > 0 else None
        result = session.use_suite(suite)
        ev = self._persist("setup", result.record.cmd, result, name="base-image.log",
                           outcome=("already in use" if result.stdout_full.startswith(b"already running")
                                    else "switched") if result.record.ok else "not switched")
        return CommandResult(result.record, ev, intervention)

    def build_image(self, dockerfile: str, action: Action, purpose: str,
                    timeout: float | None = None) -> CommandResult | None:
        """Build the artifact's Dockerfile in the sandbox's engine; later commands run in that image.
        None when the sandbox has no container engine. A failed build is evidence, not an error."""
        session = self._session()
        if "build_image" not in session.capabilities:
            return None
        cls = self.ctx.classifier.classify(action)
        intervention = log_intervention(self.ctx, self.phase, action, purpose) if cls.level.rank > 0 else None
        started = time.monotonic()
        result = session.build_image(dockerfile, timeout=timeout or self.ctx.options.timeout_s)
        self.ctx.command_seconds += time.monotonic() - started
        rec = result.record
        outcome = "timed out" if rec.timed_out else ("built" if rec.ok else "build failed")
        ev = self._persist("setup", rec.cmd, result, name="docker-build.log", outcome=outcome)
        return CommandResult(rec, ev, intervention)
