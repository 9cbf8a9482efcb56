"""`copilot schema`: every schema the product ships, generated from the models that define it.

The review's schemas come from `schemas.py`; the batch manifest and summary render themselves beside their
models in `batch/`. This registry sits above both, so neither floor imports the other.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from ..console import HelpCommand, fail


def _renderers() -> dict[str, Callable[[], str]]:
    from ..batch.manifest import render_manifest_schema
    from ..batch.summary_model import render_summary_schema
    from ..schemas import MODELS, generate

    def review_schema(name: str) -> Callable[[], str]:
        return lambda: json.dumps(generate(name), indent=2, sort_keys=True) + "\n"

    return {**{name: review_schema(name) for name in MODELS},
            "batch-manifest": render_manifest_schema, "batch-summary": render_summary_schema}


def names() -> list[str]:
    return list(_renderers())


def render(name: str) -> str:
    return _renderers()[name]()


def write_all(folder: Path) -> list[Path]:
    paths = []
    for name, renderer in _renderers().items():
        path = folder / f"{name}.schema.json"
        path.write_text(renderer(), encoding="utf-8")
        paths.append(path)
    return paths


def register(app: typer.Typer) -> None:
    @app.command(cls=HelpCommand)
    def schema(
        name: Annotated[str, typer.Argument(
            help="report, packet, evidence, intervention, batch-manifest or batch-summary.")] = "report",
        write: Annotated[Path | None, typer.Option("--write", metavar="DIR",
                                                   help="Write every schema into this folder instead.")] = None,
    ) -> None:
        """Print a JSON Schema generated from the models (or write them all)."""
        if write is not None:
            write.mkdir(parents=True, exist_ok=True)
            for path in write_all(write):
                typer.echo(str(path))
            return
        if name not in names():
            from ..errors import UsageError

            raise fail(UsageError(f"unknown schema '{name}'", f"choose one of {', '.join(names())}"))
        typer.echo(render(name), nl=False)
