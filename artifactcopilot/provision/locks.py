"""Lock files (poetry.lock, uv.lock, Pipfile.lock, Pipfile) as pip requirement lines.

Each reader returns a `Locked`: exact `name==version` lines (with environment markers), git/url sources as
pip direct references, and notes. The project's own entry is never part of the lines; the caller installs
the local project itself with `--no-deps`.
"""
from __future__ import annotations

import json
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import tomllib

from .tables import normalize


@dataclass
class Locked:
    lines: list[str] = field(default_factory=list)
    pins: list[tuple[str, str]] = field(default_factory=list)
    """(name, version) of every registry package, for the Python choice."""
    remote: list[str] = field(default_factory=list)
    """Packages fetched from git or a URL rather than the package index (need network to that host)."""
    notes: list[str] = field(default_factory=list)
    ok: bool = True
    """False when the lock file could not be read at all."""


def _load_toml(text: str | None, path: str, out: Locked) -> dict | None:
    try:
        return tomllib.loads(text or "")
    except (tomllib.TOMLDecodeError, UnicodeError) as exc:
        out.ok = False
        out.notes.append(f"{path} is not valid TOML ({str(exc)[:80]}); it cannot be installed from")
        return None


def _line(name: str, version: str, marker: str | None, out: Locked) -> None:
    out.pins.append((name, version))
    out.lines.append(f"{name}=={version}" + (f" ; {marker}" if marker else ""))


def _remote(name: str, ref: str, marker: str | None, out: Locked) -> None:
    out.remote.append(f"{name} ({ref})")
    out.lines.append(f"{name} @ {ref}" + (f" ; {marker}" if marker else ""))


def _poetry_closure(data: dict, pyproject: dict, extras: AbstractSet[str] | None) -> set[str] | None:
    """Names reachable from the project's main dependencies, for locks that do not record groups."""
    poetry = ((pyproject.get("tool") or {}).get("poetry") or {}) if isinstance(pyproject, dict) else {}
    roots = [n for n, v in (poetry.get("dependencies") or {}).items()
             if n.lower() != "python" and not (isinstance(v, dict) and v.get("optional"))]
    for extra, names in (poetry.get("extras") or {}).items():
        if extras is None or extra in extras:
            roots += list(names or [])
    roots += [re.split(r"[\s\[<>=!~;@(]", d)[0] for d in ((pyproject.get("project") or {}).get("dependencies") or [])
              if isinstance(d, str)]
    if not roots:
        return None
    deps = {normalize(p.get("name", "")): p.get("dependencies") or {} for p in data.get("package") or []
            if isinstance(p, dict)}
    seen: set[str] = set()
    todo = [normalize(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [normalize(d) for d in deps.get(name, {})]
    return seen


def poetry_lock(text: str | None, pyproject: dict, path: str = "poetry.lock", groups: AbstractSet[str] | None = None,
                extras: AbstractSet[str] | None = frozenset()) -> Locked:
    """Main-group packages of a poetry.lock (plus `groups`; optional packages only for requested `extras`,
    None = all extras)."""
    out = Locked()
    data = _load_toml(text, path, out)
    if data is None:
        return out
    wanted = {"main", *(groups or ())}
    packages = [p for p in data.get("package") or [] if isinstance(p, dict) and p.get("name")]
    grouped = any("groups" in p or "category" in p for p in packages)
    closure = None if grouped else _poetry_closure(data, pyproject, extras)
    if not grouped and closure is None:
        out.notes.append(f"{path} records no dependency groups and the project declares none: every locked "
                         "package is installed")
    optional_ok = _poetry_optional(pyproject, extras)
    for pkg in packages:
        name = pkg["name"]
        in_groups = set(pkg.get("groups") or [pkg.get("category", "main")])
        if grouped and not in_groups & wanted or closure is not None and normalize(name) not in closure:
            continue
        if pkg.get("optional") and normalize(name) not in optional_ok:
            continue
        marker = pkg.get("markers")
        if isinstance(marker, dict):
            marker = next((marker[g] for g in ("main", *sorted(wanted)) if g in marker), None)
        _poetry_package(pkg, marker if isinstance(marker, str) else None, path, out)
    return out


def _poetry_optional(pyproject: dict, extras: AbstractSet[str] | None) -> set[str]:
    poetry = ((pyproject.get("tool") or {}).get("poetry") or {}) if isinstance(pyproject, dict) else {}
    names: set[str] = set()
    for extra, members in (poetry.get("extras") or {}).items():
        if extras is None or extra in extras:
            names |= {normalize(m) for m in members or []}
    return names


def _poetry_package(pkg: dict, marker: str | None, path: str, out: Locked) -> None:
    name, version = pkg["name"], str(pkg.get("version", ""))
    source = _dict(pkg.get("source"))
    kind, url = source.get("type"), source.get("url")
    if kind == "git" and url:
        rev = source.get("resolved_reference") or source.get("reference")
        _remote(name, f"git+{url}{'@' + rev if rev else ''}", marker, out)
    elif kind == "url" and url:
        _remote(name, url, marker, out)
    elif kind in ("directory", "file") and url:
        base = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        out.lines.append(f"./{base}{url}".replace("/./", "/") + (f" ; {marker}" if marker else ""))
    else:
        if kind == "legacy" and url:
            out.notes.append(f"{name} comes from the package index {url}; it is installed from PyPI by name")
        _line(name, version, marker, out)


def uv_lock(text: str | None, path: str = "uv.lock", extras: AbstractSet[str] | None = frozenset(),
            groups: AbstractSet[str] | None = frozenset({"dev"})) -> Locked:
    """Packages `uv sync` installs from a uv.lock: the project's dependencies (+ extras, + dependency groups,
    dev by default; None = all), transitively; the project's own editable/virtual entry is skipped."""
    out = Locked()
    data = _load_toml(text, path, out)
    if data is None:
        return out
    packages = [p for p in data.get("package") or [] if isinstance(p, dict) and p.get("name")]
    by_name: dict[str, list[dict]] = {}
    for pkg in packages:
        by_name.setdefault(normalize(pkg["name"]), []).append(pkg)
    roots = [p for p in packages if set(_dict(p.get("source"))) & {"editable", "virtual"}
             and _dict(p.get("source")).get("editable", _dict(p.get("source")).get("virtual")) == "."]
    todo: list[tuple[str, tuple[str, ...], str | None]] = []
    for root in roots:
        todo += _uv_edges(root, extras, groups, None)
    if not roots:
        out.notes.append(f"{path} has no entry for the project itself: every locked package is installed")
        todo = [(n, (), None) for n in by_name]
    seen: set[tuple[str, tuple[str, ...], str | None]] = set()
    reached: dict[str, set[str | None]] = {}
    while todo:
        item = todo.pop()
        if item in seen:
            continue
        seen.add(item)
        name, want, cond = item
        reached.setdefault(name, set()).add(cond)
        for pkg in by_name.get(name, []):
            todo += _uv_edges(pkg, set(want), frozenset(), cond)
    root_ids = {id(r) for r in roots}
    for name in sorted(reached):
        conds = reached[name]
        when = None if None in conds else " or ".join(sorted(f"({c})" for c in conds if c))
        for pkg in by_name.get(name, []):
            if id(pkg) not in root_ids:
                _uv_package(pkg, len(by_name[name]) > 1, when if when and len(when) < 400 else None, out)
    return out


def _uv_edges(pkg: dict, extras: AbstractSet[str] | None, groups: AbstractSet[str] | None,
              cond: str | None) -> list[tuple[str, tuple[str, ...], str | None]]:
    """Dependencies of a uv.lock package, each with the environment condition under which it is needed."""
    deps = list(pkg.get("dependencies") or [])
    for extra, items in _dict(pkg.get("optional-dependencies")).items():
        if extras is None or extra in extras:
            deps += items or []
    for group, items in _dict(pkg.get("dev-dependencies")).items():
        if groups is None or group in groups:
            deps += items or []
    out = []
    for dep in deps:
        if isinstance(dep, dict) and dep.get("name"):
            marker = dep.get("marker") if isinstance(dep.get("marker"), str) else None
            both = f"({cond}) and ({marker})" if cond and marker else cond or marker
            out.append((normalize(dep["name"]), tuple(sorted(dep.get("extra") or [])),
                        both if both and len(both) < 300 else None))
    return out


def _uv_package(pkg: dict, forked: bool, when: str | None, out: Locked) -> None:
    source = _dict(pkg.get("source"))
    fork = " or ".join(f"({m})" for m in pkg.get("resolution-markers") or []) if forked else None
    marker = f"({fork}) and ({when})" if fork and when else fork or when
    name = pkg["name"]
    if git := source.get("git"):
        parts = urlsplit(git)
        rev = parts.fragment or dict(re.findall(r"(\w+)=([^&]+)", parts.query)).get("rev", "")
        base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        _remote(name, f"git+{base}{'@' + rev if rev else ''}", marker or None, out)
    elif url := source.get("url"):
        _remote(name, url, marker or None, out)
    elif local := source.get("path") or source.get("directory") or source.get("editable"):
        out.lines.append(f"./{local}".replace("/./", "/"))
    else:
        _line(name, str(pkg.get("version", "")), marker or None, out)


def pipfile_lock(text: str | None, path: str = "Pipfile.lock", dev: bool = False) -> Locked:
    """The "default" section of a Pipfile.lock (plus "develop" with `dev`)."""
    out = Locked()
    try:
        data = json.loads(text or "")
    except (json.JSONDecodeError, UnicodeError) as exc:
        out.ok = False
        out.notes.append(f"{path} is not valid JSON ({str(exc)[:80]}); it cannot be installed from")
        return out
    sections = ["default", "develop"] if dev else ["default"]
    for section in sections:
        for name, spec in _dict(_dict(data).get(section)).items():
            if isinstance(spec, dict):
                _pipfile_entry(name, spec, out)
    return out


def _pipfile_entry(name: str, spec: dict, out: Locked) -> None:
    marker = spec.get("markers") if isinstance(spec.get("markers"), str) else None
    extras = f"[{','.join(spec['extras'])}]" if isinstance(spec.get("extras"), list) and spec["extras"] else ""
    if git := spec.get("git"):
        ref = spec.get("ref") or ""
        _remote(name, f"git+{git}{'@' + ref if ref else ''}", marker, out)
    elif spec.get("path") is not None:
        if spec["path"] not in (".", "./"):
            out.lines.append(f"./{spec['path']}".replace("/./", "/"))
    elif file := spec.get("file"):
        _remote(name, file, marker, out)
    elif isinstance(spec.get("version"), str) and spec["version"].startswith("=="):
        out.pins.append((name, spec["version"][2:]))
        out.lines.append(f"{name}{extras}{spec['version']}" + (f" ; {marker}" if marker else ""))
    else:
        out.lines.append(f"{name}{extras}{spec.get('version') or ''}" + (f" ; {marker}" if marker else ""))


def pipfile(text: str | None, path: str = "Pipfile", dev: bool = False) -> Locked:
    """[packages] of a Pipfile (no lock): version ranges as written, resolved by pip."""
    out = Locked()
    data = _load_toml(text, path, out)
    if data is None:
        return out
    for section in (["packages", "dev-packages"] if dev else ["packages"]):
        for name, spec in _dict(data.get(section)).items():
            if isinstance(spec, str):
                out.lines.append(name if spec.strip() == "*" else f"{name}{spec.strip()}")
            elif isinstance(spec, dict):
                _pipfile_entry(name, spec, out)
    return out


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}
