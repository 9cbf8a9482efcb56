"""JSON Schemas generated from the models; `schemas/*.json` must equal what this produces."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from .models import Evidence, Intervention, PhasePacket, Report
from .resources import data_dir

MODELS: dict[str, type[BaseModel]] = {"report": Report, "packet": PhasePacket, "evidence": Evidence,
                                      "intervention": Intervention}


def generate(name: str) -> dict:
    schema = MODELS[name].model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://artifactcopilot.dev/schemas/{name}.schema.json"
    return schema


def _batch_renderers() -> dict:
    """Batch schemas render themselves (their models live with the batch code)."""
    from .batch.manifest import render_manifest_schema
    from .batch.summary_model import render_summary_schema

    return {"batch-manifest": render_manifest_schema, "batch-summary": render_summary_schema}


def names() -> list[str]:
    return list(MODELS) + list(_batch_renderers())


def render(name: str) -> str:
    if name in MODELS:
        return json.dumps(generate(name), indent=2, sort_keys=True) + "\n"
    return _batch_renderers()[name]()


def write_all(folder: Path) -> list[Path]:
    paths = []
    for name in names():
        path = folder / f"{name}.schema.json"
        path.write_text(render(name), encoding="utf-8")
        paths.append(path)
    return paths


@lru_cache(maxsize=None)
def schema_for(name: str) -> dict:
    """The shipped schema file (what users validate against)."""
    path = data_dir("schemas") / f"{name}.schema.json"
    if not path.exists():
        return generate(name)
    return json.loads(path.read_text(encoding="utf-8"))
