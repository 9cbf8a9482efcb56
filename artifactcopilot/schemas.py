"""JSON Schemas generated from the review's models, and the shipped ones (`schemas/*.json`, which must equal what
this produces). The batch schemas render themselves beside their models; `copilot schema` lists them all."""
from __future__ import annotations

import json
from functools import cache

import jsonschema
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


@cache
def schema_for(name: str) -> dict:
    """The shipped schema file (what users validate against)."""
    path = data_dir("schemas") / f"{name}.schema.json"
    if not path.exists():
        return generate(name)
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def validator_for(name: str) -> jsonschema.Draft202012Validator:
    """A validator of the shipped schema, built once per process (its references resolved on first use)."""
    return jsonschema.Draft202012Validator(schema_for(name))
