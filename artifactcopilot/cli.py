"""`copilot` command line. Domain errors become one line on stderr and an exit code:
0 review completed (whatever the badge), 1 internal/infrastructure error, 2 usage error."""
from __future__ import annotations

import re
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from . import __version__
from .errors import CopilotError

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="ArtifactCopilot: rubric-guided, evidence-backed artifact evaluation.")
err = Console(stderr=True, highlight=False)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"copilot {__version__}")
        raise typer.Exit()


@app.callback()
def root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")] = False) -> None:
    """ArtifactCopilot: rubric-guided, evidence-backed artifact evaluation."""


def fail(exc: BaseException, log_hint: str = "") -> typer.Exit:
    if isinstance(exc, CopilotError):
        hint = f" — {exc.hint}" if exc.hint else ""
        sys.stderr.write(f"error: {exc}{hint}\n")  # one line, never wrapped: scripts grep it
        return typer.Exit(exc.exit_code)
    sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}{log_hint}\n")
    return typer.Exit(1)


def _log_traceback(out: Path, exc: BaseException) -> str:
    """Keep the traceback for maintainers in the run's log; the user sees one line."""
    import traceback

    if isinstance(exc, CopilotError) or not (out / "logs").is_dir():
        return ""
    with open(out / "logs" / "review.log", "a", encoding="utf-8") as fh:
        fh.write("".join(traceback.format_exception(exc)))
    return f" (details in {out / 'logs' / 'review.log'})"


ARTIFACT_HOSTS = re.compile(r"(github\.com/[^/\s]+/[^/\s]+|zenodo\.org/(records?|doi)|10\.5281/zenodo|figshare\.com|10\.6084/m9\.figshare"
                            r"|gitlab\.com/|bitbucket\.org/|softwareheritage\.org|\.(zip|tar\.gz|tgz|tar\.xz)$)", re.I)


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


@app.command()
def review(
    paper: Annotated[Path, typer.Argument(help="The paper: PDF, Markdown, LaTeX or text.")],
    artifact: Annotated[Optional[str], typer.Argument(
        help="The artifact: local directory or archive, file:// URL, GitHub/Zenodo/Figshare link, DOI, "
             "or HTTP(S) archive URL. Omitted: the artifact link the paper gives.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Run directory (default: reports/<artifact>-<time>).")] = None,
    agent: Annotated[str, typer.Option(help="Review agent: auto, llm or heuristic.")] = "auto",
    sandbox: Annotated[str, typer.Option(help="Sandbox: auto, docker or local.")] = "auto",
    timeout: Annotated[float, typer.Option(help="Time limit for one artifact command, in seconds.")] = 1800.0,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Step limit per phase for an LLM agent.")] = 30,
    max_cost: Annotated[float, typer.Option("--max-cost", help="Cost limit per review in USD for an LLM agent.")] = 1.0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the review already in --out.")] = False,
    model: Annotated[Optional[str], typer.Option(help="LLM model name (OpenAI-compatible endpoint from OPENAI_BASE_URL).")] = None,
    cache_dir: Annotated[Optional[Path], typer.Option("--cache-dir", help="Download cache for remote artifacts.")] = None,
    image: Annotated[Optional[str], typer.Option(help="Base image for the Docker sandbox.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print report.json to stdout; no progress display.")] = False,
) -> None:
    """Review ARTIFACT against PAPER and write report.json, report.md and report.html."""
    from .review import ReviewRequest, run_review

    if timeout <= 0 or max_steps <= 0 or max_cost < 0:
        raise fail(CopilotError("--timeout and --max-steps must be positive, --max-cost not negative")) from None
    if artifact is None:
        try:
            artifact = artifact_link_from_paper(paper)
        except CopilotError as exc:
            raise fail(exc) from None
        if not as_json:
            err.print(f"artifact: using the link the paper gives, {artifact}", markup=False, highlight=False)
    out = out or _default_out(artifact)
    quiet = as_json or not err.is_terminal

    def progress(phase: str, event: str, detail: str) -> None:
        if quiet:
            return
        from .phases import registry

        title = registry().title(phase)
        if event == "committed":
            err.print(f"[green]✓[/] {title}" + (f"  [bold]{detail}[/]" if detail else ""))
        elif event == "rejected":
            err.print(f"[yellow]↻[/] {title}: packet rejected, revising ({detail[:100]})")
        elif event == "start" and phase != "report":
            err.print(f"[dim]… {title}[/]")

    request = ReviewRequest(paper=paper, artifact=artifact, out=out, agent=agent, sandbox=sandbox, timeout_s=timeout,
                            resume=resume, model=model, max_steps=max_steps, max_cost=max_cost, cache_dir=cache_dir, image=image)
    try:
        # Started from a script in the background, the review inherits an ignored SIGINT: Ctrl-C and kill -INT still stop it.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        report, paths = run_review(request, progress=progress)
    except KeyboardInterrupt:
        sys.stderr.write(f"interrupted; partial results are in {out}\n")
        raise typer.Exit(130) from None
    except Exception as exc:  # noqa: BLE001 - the CLI boundary turns everything into one line
        raise fail(exc, _log_traceback(out, exc)) from None
    if as_json:
        typer.echo(paths["json"].read_text(encoding="utf-8"))
        return
    badges = [b for b in ("available", "functional", "reusable", "reproduced") if report.badges.get(b)]
    typer.echo(f"badge: {report.badge}" + (f" ({', '.join(badges)})" if badges else "") + f"  confidence: {report.confidence:.2f}")
    typer.echo(f"report: {paths['md']}  (also {paths['html'].name}, {paths['json'].name})")


@app.command()
def schema(
    name: Annotated[str, typer.Argument(help="report, packet, evidence, intervention, batch-manifest or batch-summary.")] = "report",
    write: Annotated[Optional[Path], typer.Option("--write", help="Write every schema into this folder instead.")] = None,
) -> None:
    """Print a JSON Schema generated from the models (or write them all)."""
    from .schemas import names, render, write_all

    if write is not None:
        write.mkdir(parents=True, exist_ok=True)
        for path in write_all(write):
            typer.echo(str(path))
        return
    if name not in names():
        from .errors import UsageError

        raise fail(UsageError(f"unknown schema '{name}'", f"choose one of {', '.join(names())}"))
    typer.echo(render(name), nl=False)


EXTENSIONS = ("batch", "repro", "judge", "doctor")


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
