"""`copilot` command line. Domain errors become one line on stderr and an exit code:
0 review completed (whatever the badge), 1 internal/infrastructure error, 2 usage error.
Usage errors are found before the review machinery is imported, so they answer at once."""
from __future__ import annotations

import contextlib
import re
import signal
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .console import (
    HelpCommand,
    HelpGroup,
    ReviewArgs,
    check_args,
    check_artifact,
    check_out,
    err,
    fail,
    gate_notes,
    gate_outcome,
    read_report_json,
    resume_command,
)
from .errors import CopilotError

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, cls=HelpGroup,
                  context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110},
                  help="ArtifactCopilot: rubric-guided, evidence-backed artifact evaluation.",
                  epilog="Start with: copilot review PAPER ARTIFACT --out DIR (then open DIR/report.html). "
                         "Each command has its own -h with examples.")
def _version(value: bool) -> None:
    if value:
        typer.echo(f"copilot {__version__}")
        raise typer.Exit()


@app.callback()
def root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")] = False) -> None:
    """ArtifactCopilot: rubric-guided, evidence-backed artifact evaluation."""


def _log_traceback(out: Path, exc: BaseException) -> str:
    """Keep the traceback for maintainers in the run's log; the user sees one line."""
    import traceback

    if isinstance(exc, CopilotError) or not (out / "logs").is_dir():
        return ""
    with open(out / "logs" / "review.log", "a", encoding="utf-8") as fh:
        fh.write("".join(traceback.format_exception(exc)))
    return f" (details in {out / 'logs' / 'review.log'})"


ARTIFACT_HOSTS = re.compile(r"(github\.com/[^/\s]+/[^/\s]+|zenodo\.org/(records?|doi)|10\.5281/zenodo|figshare\.com"
                            r"|10\.6084/m9\.figshare|gitlab\.com/|bitbucket\.org/|softwareheritage\.org"
                            r"|\.(zip|tar\.gz|tgz|tar\.xz)$)", re.IGNORECASE)


def artifact_link_from_paper(paper: Path) -> str:
    """The first link in the paper that points at an artifact host or archive."""
    from .acquire.paper import load_paper
    from .errors import UsageError

    links = load_paper(paper).links
    for link in links:
        if ARTIFACT_HOSTS.search(link):
            return link if "://" in link else f"https://doi.org/{link}"
    raise UsageError(f"no ARTIFACT given and {paper} names no artifact link"
                     + (f" (links found: {', '.join(links[:3])})" if links else ""),
                     "pass the artifact location as the second argument")


def _default_out(artifact: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", Path(artifact.rstrip("/")).name or "artifact").strip("-")[:40] or "artifact"
    return Path("reports") / f"{slug}-{time.strftime('%Y%m%d-%H%M%S')}"


REVIEW_EPILOG = """Examples:

\b
  copilot review examples/wordfreq/paper.md examples/wordfreq/artifact --out reports/wordfreq
  copilot review paper.pdf https://zenodo.org/records/1234567 --sandbox docker
  copilot review paper.md                      (the artifact link the paper gives)
  copilot review paper.md ./artifact --out reports/x --force      (replace an earlier run)
  copilot review paper.md ./artifact --out reports/x --resume     (continue an interrupted run)

Exit codes: 0 the review completed, whatever the badge (also when a remote artifact cannot be fetched: the
gate fails and the console says why); 1 internal or infrastructure error; 2 usage error; 130/143
interrupted (the printed command resumes it)."""


@app.command(cls=HelpCommand, short_help="Review an artifact against its paper; write the evidence report.",
             epilog=REVIEW_EPILOG)
def review(
    paper: Annotated[Path, typer.Argument(help="The paper: PDF, Markdown, LaTeX or text.",
                                          show_default=False)],
    artifact: Annotated[str | None, typer.Argument(
        show_default=False,
        help="The artifact: local folder or archive, file:// URL, GitHub/Zenodo/Figshare link, DOI, or HTTP(S) "
             "archive URL. Omitted: the artifact link the paper gives.")] = None,
    out: Annotated[Path | None, typer.Option("--out", metavar="DIR",
                                             help="Run directory (default: reports/<artifact>-<time>).")] = None,
    agent: Annotated[str, typer.Option(metavar="auto|llm|heuristic", help="Review agent.")] = "auto",
    sandbox: Annotated[str, typer.Option(metavar="auto|docker|local", help="Where artifact commands run.")] = "auto",
    timeout: Annotated[float, typer.Option(metavar="SECONDS", help="Time limit for one artifact command.")] = 1800.0,
    max_steps: Annotated[int, typer.Option("--max-steps", metavar="N",
                                           help="Step limit per phase for an LLM agent.")] = 30,
    max_cost: Annotated[float, typer.Option("--max-cost", metavar="USD",
                                            help="Cost limit of the whole review for an LLM agent.")] = 1.0,
    max_minutes: Annotated[float | None, typer.Option(
        "--max-minutes", metavar="MINUTES", show_default=False,
        help="Wall-clock budget of the review's agent and artifact commands, shared out per phase; a phase that "
             "uses up its share commits what it has, flagged (default: 14).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the review already in --out.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace the review already in --out (only a run directory "
                                                        "is ever removed).")] = False,
    model: Annotated[str | None, typer.Option(metavar="NAME", help="LLM model name (OpenAI-compatible endpoint "
                                                                  "from OPENAI_BASE_URL).")] = None,
    context_tokens: Annotated[int | None, typer.Option(
        "--context-tokens", metavar="N", show_default=False,
        help="The LLM's context window in tokens (default: what a vLLM / llama.cpp / Ollama endpoint reports, or "
             "COPILOT_LLM_CONTEXT_TOKENS); prompts are fitted to it.")] = None,
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir", metavar="DIR",
                                                   help="Download cache for remote artifacts.")] = None,
    image: Annotated[str | None, typer.Option(metavar="IMAGE", help="Base image for the Docker sandbox.")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="No network for any step: documented downloads, clones "
                                                            "and installs are not run, nor linked repositories "
                                                            "fetched; a remote artifact comes only from the download "
                                                            "cache. The report says the review was offline.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q",
                                        help="Plain lines, one per phase, instead of the live view.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print only report.json to stdout; no progress.")] = False,
) -> None:
    """Review ARTIFACT against PAPER: an availability gate, then documentation, environment, execution, claims and
    reuse, each scored from evidence the review collects; the badge follows from the rubric's rules. Writes
    report.md, report.html and report.json (and the evidence) into the run directory."""
    args = ReviewArgs(paper=paper, artifact=artifact, out=out, agent=agent, sandbox=sandbox, timeout=timeout,
                      max_steps=max_steps, max_cost=max_cost, max_minutes=max_minutes, resume=resume, force=force,
                      model=model, cache_dir=cache_dir, image=image, context_tokens=context_tokens, offline=offline)
    try:
        check_args(args)
        if artifact is None:
            artifact = args.artifact = artifact_link_from_paper(paper)
            if not as_json:
                err.print(f"artifact: using the link the paper gives, {args.artifact}", markup=False)
        check_artifact(artifact)
        out = args.out = out or _default_out(artifact)
        check_out(out, resume, force)
    except CopilotError as exc:
        raise fail(exc) from None
    mode = "json" if as_json else "plain" if quiet or not err.is_terminal else "live"
    raise typer.Exit(_run_review(args, artifact, out, mode, quiet))


def _view(out: Path, mode: str, quiet: bool):
    """The progress view: live on a terminal, plain lines otherwise, nothing with --json."""
    from .live import LiveView, PhaseRow, PlainView, ReviewProgress
    from .phases import registry

    reg = registry()
    progress = ReviewProgress([PhaseRow(p.id, p.title) for p in reg.phases], gate_phase=reg.gate_phase,
                              gate_outcome=gate_outcome(out))
    if mode == "live":
        return LiveView(progress, err)
    return PlainView(progress, sys.stderr, quiet=quiet) if mode == "plain" else None


def _run_review(args: ReviewArgs, artifact: str, out: Path, mode: str, quiet: bool) -> int:
    """The review of the resolved `artifact` into the run directory `out` (`args` as given on the command line)."""
    view = _view(out, mode, quiet)
    try:
        with view or contextlib.nullcontext():
            from .review import ReviewInterrupted, ReviewRequest, run_review

            request = ReviewRequest(paper=args.paper, artifact=artifact, out=out, agent=args.agent,
                                    sandbox=args.sandbox, timeout_s=args.timeout, resume=args.resume, force=args.force,
                                    model=args.model, max_steps=args.max_steps, max_cost=args.max_cost,
                                    max_minutes=args.max_minutes, cache_dir=args.cache_dir, image=args.image,
                                    context_tokens=args.context_tokens, offline=args.offline)
            # Started from a script in the background, the review inherits an ignored SIGINT: Ctrl-C and kill -INT
            # still stop it.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            try:
                report, paths = run_review(request, progress=view.handle if view else None)
            except ReviewInterrupted as exc:
                exc.hint = "resume with: " + resume_command(args, out, read_report_json(out))
                raise
    except KeyboardInterrupt:  # before the review started: nothing to resume
        sys.stderr.write(f"interrupted; partial results, if any, are in {out}\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI boundary turns everything into one line
        raise fail(exc, _log_traceback(out, exc)) from None
    if mode == "json":
        typer.echo(paths["json"].read_text(encoding="utf-8"))
        return 0
    for line in outcome_lines(report, out, paths):
        typer.echo(line)
    return 0


def outcome_lines(report, out: Path, paths: dict[str, Path]) -> list[str]:
    """What a finished review prints: the badge and confidence, why the gate failed (if it did), the report."""
    from .report.acquisition import acquisition_failure
    from .report.reading import run_dir_reader

    badges = [b for b in report.badges if report.badges.get(b)]
    lines = [f"badge: {report.badge}" + (f" ({', '.join(badges)})" if badges else "")
             + f"  confidence: {report.confidence:.2f}  evidence: {report.evidence_level.value}"]
    failure = acquisition_failure(report, run_dir_reader(report, out))
    if failure is not None:
        lines.append(f"gate failed: the artifact could not be acquired ({failure.cause}): {failure.reason}")
        lines.append(f"what to do: {failure.advice}")
    elif report.gate and not all(g.passed for g in report.gate.values() if not g.agent_failure):
        lines.append("gate failed: " + "; ".join(gate_notes(out)))
    for f in report.agent_failures:  # a failure of the review, never a verdict on the artifact
        lines.append(f"{f.phase}: the agent failed ({f.reason}); " + (
            f"reviewed by the {f.fallback} reviewer instead (flagged)" if f.fallback else "not established"))
    if report.badges_not_established:
        lines.append(f"not a verdict: {', '.join(report.badges_not_established)} not established because the agent "
                     "failed; the badge is a lower bound")
    lines.append(f"report: {paths['md']}  (also {paths['html'].name}, {paths['json'].name})")
    return lines


EXTENSIONS = ("schema", "batch", "repro", "judge", "doctor", "paper")


def _register_extensions() -> None:
    """Attach sub-commands that live in artifactcopilot/commands/<name>.py (one module per command group)."""
    import importlib

    for name in EXTENSIONS:
        try:
            module = importlib.import_module(f"artifactcopilot.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"artifactcopilot.commands.{name}":
                continue  # that command group is not part of this build
            raise
        module.register(app)


_register_extensions()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
