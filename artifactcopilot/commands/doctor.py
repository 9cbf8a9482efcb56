"""`copilot doctor`: can this machine run reviews in a sandbox, and did an earlier review leave anything behind?"""
from __future__ import annotations

import os
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

OK, WARN, FAIL = "ok", "warn", "FAIL"


def _checks(image: str, clean: bool, build_base: bool) -> list[tuple[str, str, str]]:
    from ..sandbox.image import EngineUnavailable, connect, ensure_base_image, image_present, orphans, remove_orphans
    from ..sandbox.local import _mount_ns_works, _unshare_works

    rows: list[tuple[str, str, str]] = []
    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        rows.append(("docker engine", FAIL, f"{exc} — {exc.hint}"))
        client = None
    if client is not None:
        version = client.version()
        rows.append(("docker engine", OK, f"{version.get('Version', '?')} (API {version.get('ApiVersion', '?')}), "
                                          f"cgroup v{client.info().get('CgroupVersion', '?')}"))
        if build_base:
            try:
                built = ensure_base_image(client, image, log=lambda line: None)
                rows.append(("base image build", OK, "built now" if built else "already present"))
            except Exception as exc:  # noqa: BLE001 - reported as a failed check
                rows.append(("base image build", FAIL, str(exc).splitlines()[0][:160]))
        present = image_present(client, image)
        rows.append(("base image", OK if present else FAIL,
                     image if present else f"{image} missing — run `copilot doctor --build-base` (debootstrap + docker import)"))
        found = orphans(client)
        if found and clean:
            removed = remove_orphans(client, found)
            rows.append(("orphaned resources", OK, f"removed {removed} of {len(found)}"))
        else:
            rows.append(("orphaned resources", FAIL if found else OK,
                         f"{len(found)} left by reviews that are gone — remove with `copilot doctor --clean`" if found else "none"))
            rows += [(f"  orphan {o.kind}", FAIL, f"{o.name} (review process {o.owner})") for o in found[:20]]
    net = _unshare_works()
    rows.append(("local: network namespace", OK if net else WARN,
                 "unshare -n works: artifact commands run without network" if net else "unshare -n refused: local commands keep the network"))
    ro = os.geteuid() == 0 and _mount_ns_works()
    rows.append(("local: read-only host", OK if ro else WARN,
                 "private mount namespace: only the artifact copy is writable" if ro
                 else "needs root and unshare --mount: commands can write outside the artifact copy"))
    return rows


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        image: Annotated[Optional[str], typer.Option(help="Base image to check (default: the built-in Debian base).")] = None,
        clean: Annotated[bool, typer.Option("--clean", help="Remove containers and images left by reviews that are gone.")] = False,
        build_base: Annotated[bool, typer.Option("--build-base", help="Build the base image when it is missing (needs debootstrap).")] = False,
    ) -> None:
        """Check the sandbox backends: Docker engine, base image, leftovers of earlier reviews, local isolation."""
        from ..cli import fail
        from ..sandbox.image import DEFAULT_IMAGE

        try:
            rows = _checks(image or DEFAULT_IMAGE, clean, build_base)
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
