"""Facts stated across all documents: Python versions, system tools, environment variables, and the ten D1
checklist signals (entry, goal, setup, workflow, io, mapping, structure, dependencies, resources, limits)."""
from __future__ import annotations

import re

import tomllib

from . import text as tx
from .classify import HEAD_SETUP
from .model import EnvVar, Step
from .view import ArtifactView, FileIndex, safe_read

PY_VERSION = re.compile(r"\bpython\s*(?:\|\s*)?(?:[23](?=\s*\())?\s*\(?\s*(?:version\s*[:=]?\s*|v)?"
                        r"(>=|≥|>|<=|==|~=|\^|=)?\s*"
                        r"([23]\.\d{1,2}(?:\.\d+)?)(\+|\s+(?:or|and)\s+(?:above|higher|newer|later|greater|up))?"
                        r"(?:\s+\(?or\s+([23]\.\d{1,2})\)?)?", re.IGNORECASE)
TOOLS = [
    ("gnuplot", r"\bgnuplot\b"), ("latex", r"\b(latex|texlive|tex live|pdflatex|xelatex|latexmk|miktex|cm-super)\b"),
    ("java", r"\b(java|jdk|jre|openjdk)\b(?!script)"), ("R", r"\bRscript\b|\bR\s+(\(?version|>=|\d\.\d)|\bCRAN\b"),
    ("graphviz", r"\bgraphviz\b"), ("ffmpeg", r"\bffmpeg\b"), ("gcc", r"\b(gcc|g\+\+|clang|build-essential)\b"),
    ("cmake", r"\bcmake\b"), ("node", r"\b(node\.?js|nodejs|npm)\b"), ("docker", r"\bdocker(-compose)?\b"),
    ("singularity", r"\b(singularity|apptainer)\b"), ("cuda", r"\bcuda\b"), ("mysql", r"\bmysql\b"),
    ("postgresql", r"\bpostgres(ql)?\b"), ("matlab", r"\bmatlab\b"), ("octave", r"\boctave\b"),
    ("julia", r"\bjulia\b"), ("git", r"^\s*[-*\d.]*\s*git\s*$|\bgit\s*(>=|\d)"),
    ("conda", r"\b(conda|miniconda|anaconda|mamba)\b"), ("poetry", r"\bpoetry\b"), ("uv", r"(?<![\w-])uv(?![\w-])"),
    ("jupyter", r"\b(jupyter|jupyterlab)\b"),
]
REQUIRE_CONTEXT = re.compile(r"\b(require[sd]?|requirements?|install(ed|ation)?|need(s|ed)?|depends on|"
                             r"prerequisites?|must have|make sure you have|tested (on|with)|version\s+\d|>=)\b",
                             re.IGNORECASE)
GOAL_HEAD = re.compile(r"overview|about|introduction|description|purpose|summary|abstract|what is|goal|motivation",
                       re.IGNORECASE)
STRUCTURE_HEAD = re.compile(r"structure|layout|organi[sz]ation|contents|directory|files|repository", re.IGNORECASE)
LIMITS = re.compile(r"limitation|troubleshoot|known (issue|problem|limitation)|caveat|failure|not supported|faq|"
                    r"pitfall|common (problem|error)", re.IGNORECASE)
RESOURCES = re.compile(r"\b\d+(\.\d+)?\s*(GB|MB|GiB|MiB|cores?|CPUs?|GPUs?|minutes?|mins?|hours?|seconds?|sec)\b|"
                       r"\b(RAM|GPU|disk space|memory)\b", re.IGNORECASE)
INPUT_WORDS = re.compile(r"\b(input|inputs|dataset|data set|data file|reads|csv)\b", re.IGNORECASE)
OUTPUT_WORDS = re.compile(r"\b(output|outputs|prints|writes|produces|generates|saved to|written to)\b", re.IGNORECASE)
# A tool's usage text names its input: a synopsis with a FILE/DIRECTORY/PATH argument, "files to be analysed".
TOOL_INPUT = re.compile(r"(?im)^\s*usage:\s.*(?:\b[A-Z_]*(?:FILE|DIR|DIRECTORY|PATH|INPUT)S?[A-Z_]*\b|"
                        r"<[^<>\n]*(?:file|dir|path|input)[^<>\n]*>)|\b(?:files?|director(?:y|ies)|binar(?:y|ies)|"
                        r"projects?|traces?|programs?|packages?)\s+(?:to be|that will be)\s+analy[sz]ed\b")
DEPS_WORDS = re.compile(r"\b(python\s*[23](\.\d+)*\+?|requirements\.txt|standard library|"
                        r"no (third-party|external) (dependencies|packages)|version\s+\d|java\s*\d+|"
                        r"node(\.js)?\s*\d+|gcc|docker)\b", re.IGNORECASE)
NO_SETUP = re.compile(r"no (installation|setup|install) (is )?(needed|required)|standard library only|"
                      r"only the (python )?standard library|no (third-party|external) (dependencies|packages)|"
                      r"does not require installing", re.IGNORECASE)


def python_versions(texts: list[str], view: ArtifactView, index: FileIndex, notes: list[str]) -> list[str]:
    found: list[str] = []
    for text in texts:
        for match in PY_VERSION.finditer(text):
            op, version, plus, other = match.groups()
            op = ">=" if plus or op == "≥" else ("" if op in (None, "=") else op)
            found.append(f"{op}{version}")
            if other:
                found.append(other)
    for rel in ("pyproject.toml", ".python-version", "setup.py", "runtime.txt"):
        if index.is_file(rel):
            found += _file_versions(rel, safe_read(view, rel, 500_000) or "", notes)
    return list(dict.fromkeys(found))


def _file_versions(rel: str, text: str, notes: list[str]) -> list[str]:
    if rel == ".python-version":
        return [ln.strip() for ln in text.splitlines() if re.fullmatch(r"[23](\.\d+){0,2}", ln.strip())][:3]
    if rel == "setup.py":
        return re.findall(r"python_requires\s*=\s*[\"']([^\"']+)[\"']", text)[:1]
    if rel == "runtime.txt":
        return re.findall(r"python-([23]\.\d+(?:\.\d+)?)", text)[:1]
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        notes.append(f"{rel}: not valid TOML ({str(exc)[:80]})")
        return []
    project = table if isinstance(table := data.get("project"), dict) else {}
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    deps = poetry.get("dependencies", {}) if isinstance(poetry, dict) else {}
    values = [project.get("requires-python"), deps.get("python") if isinstance(deps, dict) else None]
    return [str(v).replace(" ", "") for v in values if isinstance(v, str) and v.strip()]


def system_tools(sections: list[tuple[str, str]], steps: list[Step]) -> list[str]:
    """Tools named as requirements: in setup sections, requirement sentences, install commands and step programs."""
    corpus: list[str] = []
    for title, body in sections:
        short = HEAD_SETUP.search(title)
        corpus += [s for s in tx.sentences(body) if REQUIRE_CONTEXT.search(s) or short and len(s.split()) <= 6]
    corpus += [s.inner for s in steps if s.documented and s.kind in ("install", "plot", "workflow", "test")]
    text = "\n".join(corpus)
    hits = []
    for name, rx in TOOLS:
        match = re.search(rx, text, re.MULTILINE | (0 if name in ("R", "uv") else re.IGNORECASE))
        if match:
            hits.append((match.start(), name))
    return [name for _, name in sorted(hits)]


ASSIGN_IN_PROSE = re.compile(r"`(?:export\s+)?([A-Z][A-Z0-9_]{2,})=([^\s`'\"$]+)`")


def env_vars(steps: list[Step], doc_texts: list[tuple[str, str]]) -> list[EnvVar]:
    out: dict[str, EnvVar] = {}
    for step in steps:
        for name, value in step.env.items():
            var = out.setdefault(name, EnvVar(name, [], step.source))
            if value not in var.values:
                var.values.append(value)
    for path, text in doc_texts:
        for n, line in enumerate(text.splitlines(), 1):
            for name, value in ASSIGN_IN_PROSE.findall(line):  # "set `DATA_DIR=data`", "(`export RUNS=1`)"
                var = out.setdefault(name, EnvVar(name, [], f"{path}:{n}"))
                if value not in var.values:
                    var.values.append(value)
            if not re.search(r"environment(al)?\s+variables?|\benv(ironment)?\s+var", line, re.IGNORECASE):
                continue
            for name in re.findall(r"`\$?([A-Z][A-Z0-9_]{1,})`|\$([A-Z][A-Z0-9_]{1,})\b", line):
                name = name[0] or name[1]
                out.setdefault(name, EnvVar(name, [], f"{path}:{n}"))
    return list(out.values())


def signals(sections: list[tuple[str, str]], steps: list[Step], has_dep_file: bool) -> dict[str, bool]:
    full = "\n".join(f"{t}\n{b}" for t, b in sections)
    titles = " | ".join(t for t, _ in sections)
    first_para = next((b.strip() for _, b in sections if b.strip()), "")
    has_tree = any(ch in full for ch in ("├", "└")) or bool(re.search(r"(?m)^\s*[-*]\s+`[^`]+/?`\s*[-:–—]", full))
    documented = [s for s in steps if s.documented]
    return {
        "entry": len(full.split()) >= 30,
        "goal": bool(GOAL_HEAD.search(titles)) or len(first_para.split()) >= 10,
        "setup": any(s.kind == "install" for s in documented) or any(
            HEAD_SETUP.search(t) and len(b.split()) >= 5 for t, b in sections) or bool(NO_SETUP.search(full)),
        "workflow": any(s.kind in ("workflow", "plot", "test") for s in documented),
        "io": bool((INPUT_WORDS.search(full) or TOOL_INPUT.search(full)) and OUTPUT_WORDS.search(full)),
        "mapping": bool(tx.refs(full)) or bool(re.search(r"\b(claim|result)s? (in|of|from) the paper\b", full,
                                                         re.IGNORECASE)),
        "structure": bool(STRUCTURE_HEAD.search(titles)) or has_tree,
        "dependencies": has_dep_file or bool(DEPS_WORDS.search(full)),
        "resources": bool(RESOURCES.search(full)),
        "limits": bool(LIMITS.search(full)),
    }
