"""The batch manifest: CSV or JSON Lines, one artifact per row, checked against
schemas/batch-manifest.schema.json plus the checks a schema cannot express (duplicate ids, missing files).

Relative `paper` and `artifact` paths are read from the manifest's own folder (not the current directory),
so a manifest can be moved together with its papers and artifacts. Every problem is reported with its line
number, all at once, one problem per line."""
from __future__ import annotations

import csv
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, create_model

from ..errors import UsageError
from ..models import BadgeName, ScoreName
from ..phases import registry
from ..resources import data_dir

RESERVED_IDS = {"summary.json", "summary.md", "index.html", "batch.json"}
MAX_REPORTED = 20


class _Row(BaseModel):
    """One artifact of a batch (a CSV row or a JSON Lines object). Relative paths are relative to the manifest."""

    model_config = ConfigDict(extra="forbid", title="BatchManifestRow")
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$",
                    description="Unique artifact id; also the folder name of its review in the batch directory.")
    paper: str = Field(min_length=1, description="The paper: PDF, Markdown, LaTeX or text (path).")
    artifact: str = Field(min_length=1, description="The artifact: local directory or archive (must exist), or a URL.")
    human_badge: BadgeName | None = Field(None, description="Adjudicated badge, when known.")
    timeout: float | None = Field(None, gt=0, description="Time limit for one artifact command of this review (s); "
                                                         "overrides --timeout.")

    @property
    def human_dimensions(self) -> dict[str, str | None]:
        return {d: getattr(self, f"human_{d}", None) for d in registry().dimensions}


def _human_columns() -> dict[str, Any]:
    """One optional `human_<dimension>` column per dimension of the rubric."""
    return {f"human_{p.id}": (ScoreName | None, Field(None, description=f"Adjudicated {p.id} {p.name.lower()} score."))
            for p in registry().phases if p.kind == "dimension"}


ManifestRow = create_model("ManifestRow", __base__=_Row, __doc__=_Row.__doc__, **_human_columns())


class ManifestError(UsageError):
    """The manifest cannot be used as it is; the message lists every line at fault."""


def manifest_schema() -> dict:
    schema = ManifestRow.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://artifactcopilot.dev/schemas/batch-manifest.schema.json"
    return schema


def render_manifest_schema() -> str:
    return json.dumps(manifest_schema(), indent=2, sort_keys=True) + "\n"


@cache
def _validator() -> jsonschema.Draft202012Validator:
    path = data_dir("schemas") / "batch-manifest.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8")) if path.exists() else manifest_schema()
    return jsonschema.Draft202012Validator(schema)


def _normalise(raw: dict) -> dict:
    """CSV cells are text: drop empty cells, accept 'Functional' and 'wa', read timeouts as numbers."""
    row = {}
    for key, value in raw.items():
        key = (key or "").strip()
        if isinstance(value, str):
            value = value.strip()
        if value in ("", None) or key == "":
            continue
        if key == "human_badge" and isinstance(value, str):
            value = value.lower()
        elif key.startswith("human_D") and isinstance(value, str):
            value = value.upper()
        elif key == "timeout" and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                pass  # the schema reports it with the line number
        row[key] = value
    return row


def _read_rows(path: Path) -> list[tuple[int, dict | str]]:
    """(line number, row) pairs; a row is a dict, or an error message for an unreadable line."""
    text = path.read_text(encoding="utf-8-sig")
    rows: list[tuple[int, dict | str]] = []
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                rows.append((number, f"not valid JSON ({exc.msg})"))
                continue
            rows.append((number, value if isinstance(value, dict) else "expected a JSON object"))
        return rows
    lines = [ln for ln in text.splitlines(keepends=True)]
    reader = csv.reader(lines)
    header: list[str] | None = None
    for cells in reader:
        number = reader.line_num
        if not cells or all(not c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [c.strip() for c in cells]
            continue
        if len(cells) > len(header):
            rows.append((number, f"{len(cells)} cells but the header has {len(header)} columns"))
            continue
        rows.append((number, dict(zip(header, cells))))
    if header is None:
        raise ManifestError(f"{path}: no header line", "the first line must name the columns, e.g. id,paper,artifact")
    return rows


def _resolve(base: Path, value: str) -> str:
    if "://" in value:
        return value
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (base / path).resolve())


def _problems(path: Path, errors: list[str], relative_missing: bool) -> str:
    """The message: a head line, then one indented line per problem (at most MAX_REPORTED)."""
    lines = [f"manifest {path} has {len(errors)} problem(s):"] + [f"  {e}" for e in errors[:MAX_REPORTED]]
    if len(errors) > MAX_REPORTED:
        lines.append(f"  … and {len(errors) - MAX_REPORTED} more")
    if relative_missing:
        lines.append(f"  (relative paths are read from the manifest's folder, {path.resolve().parent})")
    return "\n".join(lines)


def load_manifest(path: Path) -> list[ManifestRow]:
    """Read and check the manifest; raise ManifestError naming every faulty line."""
    path = Path(path)
    if not path.is_file():
        raise ManifestError(f"manifest {path} not found", "give a CSV or JSON Lines file with id,paper,artifact")
    try:
        raw_rows = _read_rows(path)
    except UnicodeDecodeError:
        raise ManifestError(f"manifest {path} is not UTF-8 text", "save it as UTF-8 CSV or JSON Lines") from None
    errors: list[str] = []
    rows: list[ManifestRow] = []
    first_line: dict[str, int] = {}
    relative_missing = False
    for number, raw in raw_rows:
        if isinstance(raw, str):
            errors.append(f"line {number}: {raw}")
            continue
        row = _normalise(raw)
        problems = sorted(_validator().iter_errors(row), key=lambda e: list(e.path))
        for problem in problems:
            where = ".".join(str(p) for p in problem.path) or "row"
            if problem.validator == "additionalProperties":
                errors.append(f"line {number}: unknown column(s) {problem.message.split('(')[-1].rstrip(')')}")
            elif where == "human_badge":
                errors.append(f"line {number}: unknown badge '{row[where]}' (use {', '.join(registry().tiers)})")
            elif where.startswith("human_D"):
                errors.append(f"line {number}: {where}: unknown score '{row[where]}' (use R, WR, WA, A)")
            else:
                errors.append(f"line {number}: {where}: {problem.message}")
        if problems:
            continue
        entry = ManifestRow(**row)
        if entry.id in RESERVED_IDS:
            errors.append(f"line {number}: id '{entry.id}' is reserved for batch outputs")
            continue
        if entry.id in first_line:
            errors.append(f"line {number}: duplicate id '{entry.id}' (first on line {first_line[entry.id]})")
            continue
        first_line[entry.id] = number
        given = (entry.paper, entry.artifact)
        entry.paper = _resolve(path.parent, entry.paper)
        entry.artifact = _resolve(path.parent, entry.artifact)
        if not Path(entry.paper).is_file():
            errors.append(f"line {number}: paper {entry.paper} not found")
            relative_missing |= not Path(given[0]).expanduser().is_absolute()
        if "://" not in entry.artifact and not Path(entry.artifact).exists():
            errors.append(f"line {number}: artifact {entry.artifact} not found "
                          "(to review an unreachable artifact as such, give it as a file:// URL)")
            relative_missing |= not Path(given[1]).expanduser().is_absolute()
        rows.append(entry)
    if errors:
        raise ManifestError(_problems(path, errors, relative_missing), "fix the manifest and run again")
    if not rows:
        raise ManifestError(f"{path}: no artifacts listed", "add one row per artifact: id,paper,artifact")
    return rows
