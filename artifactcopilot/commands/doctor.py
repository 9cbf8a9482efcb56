"""`copilot doctor`: can this machine run reviews in a sandbox, and did an earlier review leave anything behind?"""
from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

OK, WARN, FAIL = "ok", "warn", "FAIL"


def _checks(image: str | None, clean: bool, build_base: bool, suites: list[str]) -> list[tuple[str, str, str]]:
    """Every registered sandbox backend's rows; with suites, the Docker base images of those suites are built
    first (instead of the image reviews start from)."""
    from ..sandbox.registry import BACKENDS, SandboxOptions, backend

    rows = _build_suites(suites) if build_base and suites else []
    options = SandboxOptions(image=image)
    build = build_base and not suites
    return rows + [row for name in BACKENDS for row in backend(name).doctor(options, clean=clean, build_base=build)]


def _build_suites(suites: list[str]) -> list[tuple[str, str, str]]:
    """Build the Docker base image of each suite ('all': every suite reviews can be offered) when missing or
    outdated."""
    from ..sandbox.baseimage import SUITES, valid_suite
    from ..sandbox.image import EngineUnavailable, base_image_name, build_rows, connect

    wanted = list(dict.fromkeys(s for name in suites for s in (SUITES if name == "all" else [name])))
    bad = [s for s in wanted if not valid_suite(s)]
    if bad:
        return [(f"build {s}", FAIL, f"'{s}' is not a Debian suite (known: {', '.join(SUITES)}, or all)") for s in bad]
    try:
        client = connect(timeout=30)
    except EngineUnavailable as exc:
        return [("build base images", FAIL, f"{exc} — {exc.hint}")]
    return build_rows(client, [base_image_name(s) for s in wanted])


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        image: Annotated[str | None, typer.Option(
            help="Base image to check (default: the built-in Debian base).")] = None,
        clean: Annotated[bool, typer.Option(
            "--clean", help="Remove containers and images left by reviews that are gone.")] = False,
        build_base: Annotated[bool, typer.Option(
            "--build-base", help="Build the Docker base image when it is missing or outdated (needs debootstrap; "
            "a few minutes per image).")] = False,
        suite: Annotated[list[str] | None, typer.Option(
            "--suite", metavar="SUITE", help="With --build-base: the Debian suite(s) to build "
            "(bookworm: Python 3.11, trixie: 3.13, bullseye: 3.9, or all); "
            "default: the image reviews start from.")] = None,
    ) -> None:
        """Check the sandbox backends: Docker engine, base images, leftovers of earlier reviews, local isolation."""
        from ..console import fail

        if suite and not build_base:
            raise typer.BadParameter("--suite only says which base images --build-base builds", param_hint="--suite")
        try:
            rows = _checks(image, clean, build_base, list(suite or []))
        except Exception as exc:  # noqa: BLE001 - one line, never a traceback
            raise fail(exc) from None
        table = Table(title="copilot doctor", show_lines=False)
        for column in ("check", "status", "detail"):
            table.add_column(column, overflow="fold")
        for name, status, detail in rows:
            style = {"ok": "green", "warn": "yellow"}.get(status, "red bold")
            table.add_row(name, f"[{style}]{status}[/]", detail)
        Console(width=max(120, Console().width), highlight=False).print(table)
        failed = [name for name, status, _ in rows if status == FAIL and not name.startswith(" ")]
        if failed:
            typer.echo(f"doctor: {len(failed)} check(s) failed: {', '.join(failed)}", err=True)
            raise typer.Exit(1)
