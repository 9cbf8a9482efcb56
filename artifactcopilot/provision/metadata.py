"""What an artifact's packaging files declare: name, Python request, console scripts, dependencies.

pyproject.toml is read with tomllib, setup.py with `ast` (never executed), setup.cfg with configparser.
"""
from __future__ import annotations

import ast
import configparser
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import tomllib

from .pyversions import poetry_constraint

Reader = Callable[[str], str | None]


@dataclass
class Project:
    """Packaging metadata of one folder (the artifact root unless said otherwise)."""

    dir: str = "."
    name: str | None = None
    installable: bool = False
    """pip can build it: a setup.py, or a pyproject.toml with a [build-system]."""
    python_requests: list[tuple[str, str]] = field(default_factory=list)
    """(specifier text, source) — requires-python, python_requires, Poetry's python dependency."""
    classifier_versions: list[str] = field(default_factory=list)
    console_scripts: dict[str, str] = field(default_factory=dict)
    dependencies: list[str] = field(default_factory=list)
    """Declared runtime requirements (PEP 508 strings; Poetry tables converted)."""
    packages: list[str] = field(default_factory=list)
    """Top-level import packages found in the folder (or its src/)."""
    poetry: bool = False
    package_mode: bool = True
    notes: list[str] = field(default_factory=list)


def _join(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"


def read_project(files: list[str], read: Reader, folder: str = ".") -> Project:
    project = Project(dir=folder)
    present = set(files)
    if _join(folder, "pyproject.toml") in present:
        _pyproject(project, read(_join(folder, "pyproject.toml")), _join(folder, "pyproject.toml"))
    if _join(folder, "setup.cfg") in present:
        _setup_cfg(project, read(_join(folder, "setup.cfg")), _join(folder, "setup.cfg"))
    if _join(folder, "setup.py") in present:
        project.installable = True
        _setup_py(project, read(_join(folder, "setup.py")), _join(folder, "setup.py"))
    prefix = "" if folder in ("", ".") else folder + "/"
    for rel in files:
        rest = rel[len(prefix):] if rel.startswith(prefix) else None
        if rest is None:
            continue
        parts = rest.split("/")
        if len(parts) == 2 and parts[1] == "__init__.py" or len(parts) == 3 and parts[0] == "src" and \
                parts[2] == "__init__.py":
            pkg = parts[-2]
            if pkg not in project.packages:
                project.packages.append(pkg)
    return project


def _pyproject(project: Project, text: str | None, path: str) -> None:
    if text is None:
        project.notes.append(f"{path} could not be read")
        return
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeError) as exc:
        project.notes.append(f"{path} is not valid TOML ({str(exc)[:80]}); its metadata is ignored")
        return
    meta = _dict(data.get("project"))
    poetry = (data.get("tool") or {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    poetry = poetry if isinstance(poetry, dict) else None
    project.installable = project.installable or isinstance(data.get("build-system"), dict)
    project.name = _str(meta.get("name")) or (_str(poetry.get("name")) if poetry else None) or project.name
    if spec := _str(meta.get("requires-python")):
        project.python_requests.append((spec, f"{path} requires-python"))
    project.classifier_versions += _classifier_versions(meta.get("classifiers"))
    project.dependencies += [d for d in _list(meta.get("dependencies")) if isinstance(d, str)]
    for name, target in _dict(meta.get("scripts")).items():
        if isinstance(target, str):
            project.console_scripts[name] = target
    if poetry is not None:
        _poetry(project, poetry, path)


def _poetry(project: Project, poetry: dict, path: str) -> None:
    project.poetry = True
    project.package_mode = poetry.get("package-mode", True) is not False
    project.classifier_versions += _classifier_versions(poetry.get("classifiers"))
    for name, value in _dict(poetry.get("dependencies")).items():
        if name.lower() == "python":
            if spec := _str(value) or (_str(value.get("version")) if isinstance(value, dict) else None):
                project.python_requests.append((spec, f"{path} [tool.poetry.dependencies] python"))
            continue
        if isinstance(value, dict) and value.get("optional"):
            continue
        project.dependencies.append(poetry_requirement(name, value))
    for name, target in _dict(poetry.get("scripts")).items():
        ref = target if isinstance(target, str) else _str(_dict(target).get("reference"))
        if ref:
            project.console_scripts[name] = ref


def poetry_requirement(name: str, value: object) -> str:
    """A [tool.poetry.dependencies] entry as a PEP 508 string (git sources as direct references)."""
    if isinstance(value, dict):
        if git := _str(value.get("git")):
            ref = _str(value.get("rev")) or _str(value.get("tag")) or _str(value.get("branch"))
            return f"{name} @ git+{git}{'@' + ref if ref else ''}"
        if url := _str(value.get("url")):
            return f"{name} @ {url}"
        if local := _str(value.get("path")):
            return f"{name} @ {local}"
        value = value.get("version", "*")
    return name if not isinstance(value, str) or value.strip() in ("", "*") else f"{name}{_pep440(value)}"


def _pep440(constraint: str) -> str:
    parts = [poetry_constraint(p) for p in constraint.split(",")]
    return "" if any(p is None for p in parts) else ",".join(p for p in parts if p)


def _setup_cfg(project: Project, text: str | None, path: str) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text or "")
    except (configparser.Error, UnicodeError) as exc:
        project.notes.append(f"{path} is not a valid INI file ({str(exc)[:80]}); its metadata is ignored")
        return
    if parser.has_option("metadata", "name"):
        project.name = project.name or parser.get("metadata", "name").strip() or None
    if parser.has_option("metadata", "classifiers"):
        project.classifier_versions += _classifier_versions(parser.get("metadata", "classifiers").splitlines())
    if parser.has_option("options", "python_requires"):
        project.python_requests.append((parser.get("options", "python_requires").strip(), f"{path} python_requires"))
    if parser.has_option("options", "install_requires"):
        project.dependencies += [ln.strip() for ln in parser.get("options", "install_requires").splitlines()
                                 if ln.strip()]
    if parser.has_option("options.entry_points", "console_scripts"):
        _entry_lines(project, parser.get("options.entry_points", "console_scripts").splitlines())


def _setup_py(project: Project, text: str | None, path: str) -> None:
    try:
        tree = ast.parse(text or "")
    except (SyntaxError, ValueError) as exc:
        project.notes.append(f"{path} cannot be parsed ({type(exc).__name__}); its metadata is not read")
        return
    constants: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callee(node.func) == "setup":
            kwargs = {kw.arg: _literal(kw.value, constants) for kw in node.keywords if kw.arg}
            _apply_setup_kwargs(project, kwargs, path)


def _apply_setup_kwargs(project: Project, kwargs: dict, path: str) -> None:
    if isinstance(kwargs.get("name"), str):
        project.name = project.name or kwargs["name"]
    if isinstance(kwargs.get("python_requires"), str):
        project.python_requests.append((kwargs["python_requires"], f"{path} python_requires"))
    project.classifier_versions += _classifier_versions(kwargs.get("classifiers"))
    project.dependencies += [d for d in _list(kwargs.get("install_requires")) if isinstance(d, str)]
    entry = kwargs.get("entry_points")
    if isinstance(entry, dict):
        scripts = entry.get("console_scripts")
        _entry_lines(project, [scripts] if isinstance(scripts, str) else _list(scripts))
    elif isinstance(entry, str):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(entry)
            if parser.has_section("console_scripts"):
                _entry_lines(project, [f"{k} = {v}" for k, v in parser.items("console_scripts")])
        except configparser.Error:
            project.notes.append(f"{path}: entry_points text is not valid INI")


def _entry_lines(project: Project, lines: list) -> None:
    for line in lines:
        if isinstance(line, str) and "=" in line:
            name, _, target = line.partition("=")
            target = target.split("[")[0].strip()
            if name.strip() and re.fullmatch(r"[\w.]+(:[\w.]+)?", target):
                project.console_scripts[name.strip()] = target


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _literal(node: ast.expr, constants: dict[str, object], depth: int = 0) -> object:
    """A value setup() receives, as far as it is literal: constants, lists, dicts, names bound to literals and
    `+` of lists/strings. Anything computed at run time is None (setup.py is never executed)."""
    if depth > 20:
        return None
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_literal(e, constants, depth + 1) for e in node.elts]
        return [i for i in items if i is not None]
    if isinstance(node, ast.Dict):
        return {_literal(k, constants, depth + 1): _literal(v, constants, depth + 1)
                for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, constants, depth + 1), _literal(node.right, constants, depth + 1)
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    return None


def _classifier_versions(classifiers: object) -> list[str]:
    out = []
    for item in _list(classifiers):
        if isinstance(item, str) and (m := re.fullmatch(r"\s*Programming Language :: Python :: (\d+\.\d+)\s*", item)):
            out.append(m.group(1))
    return out


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _list(value: object) -> list:
    return list(value) if isinstance(value, (list, tuple)) else []


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}
