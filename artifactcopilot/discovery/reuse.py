"""Reuse hints for D5: reuse sections, documented options no step uses, configuration files, API examples that use
the artifact's own modules, and input-format descriptions with the example inputs they point at."""
from __future__ import annotations

import posixpath
import re

from .classify import HEAD_REUSE
from .fill import SamplePointer
from .model import ApiExample, InputFormat, OptionDoc, ReuseHints, Step
from .notebooks import DocLine
from .view import ArtifactView, FileIndex, join, safe_read

OPTION_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*`?(--?[A-Za-z][\w-]*)`?"
                         r"(?:\s*(?:/|,|\|)\s*`?(--?[A-Za-z][\w-]*)`?)*"
                         r"(?:\s+[A-Z_]{2,}|\s+\{[^}]*\}|\s+<[^>]+>)?\s*(?::|-|–|\s{2,}|$)")
HELP_LINE = re.compile(r"^\s{1,8}(?:-[A-Za-z]\s*[A-Z_]*,\s*)?(--?[A-Za-z][\w-]*)(?:[ =][A-Z_{}\-,a-z]+)?"
                       r"(?:,\s*--?[\w-]+)?(?:\s{2,}\S|$)")
INPUT_FMT = re.compile(r"\b(input|file|data|trace|dataset)\s+(formats?|specification|layout|schema)\b|"
                       r"\bformat of (the )?(input|data|trace)|\busing your own data\b|\byour own (data|input)",
                       re.IGNORECASE)
CONFIG_NAME = re.compile(r"(config|conf|settings|params|hparams|hyperparam)[\w\-.]*\.(ya?ml|json|toml|ini|cfg|conf|py)$"
                         r"|\.(ya?ml|toml|ini|cfg|conf)$", re.IGNORECASE)
PACKAGING = re.compile(r"(^|/)(pyproject\.toml|setup\.cfg|environment[\w\-.]*\.ya?ml|conda[\w\-.]*\.ya?ml|"
                       r"docker-compose[\w\-.]*\.ya?ml|\.pre-commit[\w\-.]*|mkdocs\.ya?ml|\.readthedocs\.ya?ml|"
                       r"codecov\.ya?ml|\.travis\.ya?ml|tox\.ini|\.github/.*|poetry\.toml|\.ruff\.toml|ruff\.toml)$",
                       re.IGNORECASE)
BADGE_TITLE = re.compile(r"^\W*(available|functional|reusable|reproduced|badges?)\W*$", re.IGNORECASE)
IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w., ]+))", re.MULTILINE)


def documented_options(lines: list[DocLine]) -> list[OptionDoc]:
    out: dict[str, OptionDoc] = {}
    for dl in lines:
        text = dl.text.rstrip()
        match = OPTION_ITEM.match(text) or HELP_LINE.match(text)
        if not match or re.match(r"^\s*[-*+]\s+--\s", text):
            continue
        flags = [f for f in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text[:match.end()])
                 if f not in ("-h", "--help", "--version", "-V")]
        if not flags:
            continue
        main = next((f for f in flags if f.startswith("--")), flags[0])
        if main not in out:
            out[main] = OptionDoc(main, text.strip()[:200], dl.source, [f for f in flags if f != main])
    return list(out.values())


def unused_options(options: list[OptionDoc], steps: list[Step]) -> list[OptionDoc]:
    used = {w.split("=", 1)[0] for s in steps if s.documented for w in s.inner.split() if w.startswith("-")}
    return [o for o in options if o.flag not in used and not used & set(o.aliases)]


def config_files(lines: list[DocLine], index: FileIndex) -> list[str]:
    out: list[str] = []
    for dl in lines:
        folder = posixpath.dirname(dl.source.rsplit(":", 1)[0]) or "."
        for token in re.findall(r"(?<![\w\-./])[\w\-./]{1,255}\.(?:ya?ml|json|toml|ini|cfg|conf|py)\b", dl.text[:5000]):
            path = next((p for p in (join(folder, token), join(".", token)) if index.is_file(p)), None)
            if path and CONFIG_NAME.search(path) and not PACKAGING.search(path) and path not in out:
                out.append(path)
    return out


def own_modules(index: FileIndex) -> set[str]:
    names = set()
    for rel in index.files:
        parts = rel.split("/")
        if parts[-1] == "__init__.py" and len(parts) <= 4:
            names.add(parts[-2])
        elif rel.endswith(".py") and len(parts) <= 2:
            names.add(posixpath.splitext(parts[-1])[0])
    return names - {"setup", "conftest", "__init__", "__main__", "test", "tests"}


def _symbols(view: ArtifactView, index: FileIndex) -> dict[str, str]:
    """Top-level classes and functions defined in the artifact's Python files: name -> module stem."""
    out: dict[str, str] = {}
    for rel in [f for f in index.files if f.endswith(".py")][:400]:
        text = safe_read(view, rel, 300_000) or ""
        for name in re.findall(r"^(?:class|def)\s+([A-Za-z_]\w*)", text, re.MULTILINE):
            out.setdefault(name, posixpath.splitext(posixpath.basename(rel))[0])
    return out


def api_examples(examples: list[tuple[str, str, str, str]], index: FileIndex, view: ArtifactView) -> list[ApiExample]:
    modules = own_modules(index)
    symbols: dict[str, str] | None = None
    out = []
    for source, info, code, _section in examples:
        if info not in ("python", "py", "python3", "ipython", "pycon", ""):
            continue
        imported = {m.split(".")[0].strip() for a, b in IMPORT.findall(code) for m in (a or b).split(",") if m.strip()}
        used = sorted(imported & modules)
        if not used and not imported:
            symbols = _symbols(view, index) if symbols is None else symbols
            names = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code))
            used = sorted({symbols[n] for n in names if n in symbols})
        if used:
            out.append(ApiExample(source, used, code.strip()[:2000]))
    return out


def input_formats(sections: list[tuple[str, str, str]], index: FileIndex, samples: list[SamplePointer]
                  ) -> list[InputFormat]:
    """sections: (title, source, text); samples: pointers to sample inputs found in the docs."""
    out = []
    for title, source, text in sections:
        if not INPUT_FMT.search(title):
            continue
        doc = source.rsplit(":", 1)[0]
        folder = posixpath.dirname(doc) if not doc.startswith("paper:") else "."
        found = []
        for token in re.findall(r"(?<![\w\-./])[\w\-./]{1,255}\.\w{2,5}\b|(?<![\w\-./])[\w\-./]{1,255}/",
                                text[:50_000]):
            for path in (join(folder, token), join(".", token)):
                if index.is_file(path) and path not in found:
                    found.append(path)
        for sample in samples:
            if sample.source.rsplit(":", 1)[0] == doc and " ".join(sample.text.split()[:8]) in " ".join(text.split()):
                path = sample.path
                found += [f for f in ([path] if index.is_file(path) else index.files_in(path)) if f not in found]
        out.append(InputFormat(title, source, found[:20]))
    return out


PARAM_LEAD = re.compile(r"\b(?:tunable\s+)?(?:hyper-?)?param(?:eter)?s?(?:\(s\))?\s*:\s*(.+)$", re.IGNORECASE)
PARAM_NAME = re.compile(r"^[\s`*]*([A-Za-z_][A-Za-z0-9_]{0,30})[`*]*(?:\s*\(|\s*$|\s*=)")


def documented_parameters(lines: list[DocLine]) -> list[str]:
    """Names a line gives as parameters ("parameter(s): miu (bias), s (geometric scale)"), in documentation order."""
    out: list[str] = []
    for dl in lines:
        match = PARAM_LEAD.search(dl.text[:400])
        if match is None:
            continue
        for part in re.split(r",|\band\b", match.group(1)):
            name = PARAM_NAME.match(part)
            if name and name.group(1).lower() not in ("none", "the", "a", "an") and name.group(1) not in out:
                out.append(name.group(1))
    return out


def reuse_hints(titles: list[str], lines: list[DocLine], steps: list[Step], index: FileIndex, view: ArtifactView,
                examples: list, sections: list[tuple[str, str, str]], samples: list[SamplePointer]) -> ReuseHints:
    return ReuseHints(
        sections=list(dict.fromkeys(t for t in titles if (HEAD_REUSE.search(t) or INPUT_FMT.search(t))
                                    and not BADGE_TITLE.match(t))),
        unused_options=unused_options(documented_options(lines), steps),
        config_files=config_files(lines, index),
        api_examples=api_examples(examples, index, view),
        input_formats=input_formats(sections, index, samples),
        parameters=documented_parameters(lines),
    )
