"""`copilot doctor`: can this machine run reviews in a sandbox, and did an earlier review leave anything behind?"""
from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

OK, WARN, FAIL = "ok", "warn", "FAIL"


def _checks(image: str | None, clean: bool, build_base: bool) -> list[tuple[str, str, str]]:
    """Every registered sandbox backend's rows."""
    from ..sandbox.registry import BACKENDS, SandboxOptions, backend

    options = SandboxOptions(image=image)
    return [row for name in BACKENDS for row in backend(name).doctor(options, clean=clean, build_base=build_base)]


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        image: Annotated[Optional[str], typer.Option(help="Base image to check (default: the built-in Debian base).")] = None,
        clean: Annotated[bool, typer.Option("--clean", help="Remove containers and images left by reviews that are gone.")] = False,
        build_base: Annotated[bool, typer.Option("--build-base", help="Build the base image when it is missing (needs debootstrap).")] = False,
    ) -> None:
        """Check the sandbox backends: Docker engine, base image, leftovers of earlier reviews, local isolation."""
        from ..cli import fail

        try:
            rows = _checks(image, clean, build_base)
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
