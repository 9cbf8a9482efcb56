"""schemas/*.json are generated from the models; a drift fails here
(regenerate with `copilot schema --write schemas`)."""
from __future__ import annotations

import json

import pytest

from artifactcopilot.commands.schema import render
from artifactcopilot.resources import data_dir
from artifactcopilot.schemas import MODELS


@pytest.mark.parametrize("name", sorted(MODELS))
def test_schema_file_matches_models(name):
    shipped = (data_dir("schemas") / f"{name}.schema.json").read_text(encoding="utf-8")
    assert shipped == render(name), f"schemas/{name}.schema.json is stale: run `copilot schema --write schemas`"


def test_report_schema_requires_contract_fields():
    schema = json.loads(render("report"))
    for field in ("badge", "badges", "gate", "dimensions", "evidence_level", "interventions", "derivation",
                  "flags", "confidence", "cost", "timing"):
        assert field in schema["properties"]
    assert schema["properties"]["badge"]["enum"] == ["none", "available", "functional", "reusable"]
