"""Prompt templates (prompts/*.md, data files) filled with str.format-style fields."""

from __future__ import annotations

from functools import cache

from ..resources import data_dir


@cache
def template(name: str) -> str:
    return (data_dir("prompts") / f"{name}.md").read_text(encoding="utf-8")


def render(name: str, **fields: str) -> str:
    text = template(name)
    for key, value in fields.items():  # plain replacement: artifact text may contain braces
        text = text.replace("{" + key + "}", str(value))
    return text
