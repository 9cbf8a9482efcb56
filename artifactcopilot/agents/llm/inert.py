"""Artifact and paper text as inert data in the model's conversation: wrapped so the prompt can say what it is."""
from __future__ import annotations

DATA_OPEN, DATA_CLOSE = "<artifact-data>", "</artifact-data>"


def data(text: str) -> str:
    """Artifact text as inert data; a closing tag inside it cannot end the block early."""
    return f"{DATA_OPEN}\n{text.replace(DATA_CLOSE, '</artifact-data >')}\n{DATA_CLOSE}"
