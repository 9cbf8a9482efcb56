"""Other languages from Debian: GNU Octave for MATLAB scripts, a JDK of the documented major version, R with the
`r-cran-*` packages a script loads.

- MATLAB is not installable here; GNU Octave runs most MATLAB scripts. The toolbox functions a script calls that
  Octave has only in an Octave Forge package (data/octave.json: `normrnd` -> statistics) come from the Debian
  package `octave-<name>`, loaded with `pkg load <name>`. Running `matlab -batch main` as `octave --eval` with
  the packages loaded is a compatibility change (I3), stated with what was added.
- A JDK of the major version the documentation names ("Java 11", "JDK 1.8") when the suite packages it, else the
  nearest one it does, said.
- R scripts: the libraries they load (`library(cluster)`, `require("x")`) from Debian's `r-cran-<name>` packages.
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from .context import Context, apt_script
from .model import EnvPlan, ProvisionStep
from .tables import table

Reader = Callable[[str], str | None]
MAX_SCANNED = 200
CALL = re.compile(r"(?<![\w.])([A-Za-z]\w*)\s*\(")
DEFINED = re.compile(r"^\s*function\s+(?:\[[^\]]*\]\s*=\s*|\w+\s*=\s*)?(\w+)", re.MULTILINE)
COMMENT = re.compile(r"%[^\n]*")
R_LIBRARY = re.compile(r"\b(?:library|require|requireNamespace)\s*\(\s*['\"]?([A-Za-z][\w.]*)['\"]?")
R_COLONS = re.compile(r"\b([A-Za-z][\w.]*)::")
R_BASE = frozenset({"base", "stats", "utils", "methods", "graphics", "grDevices", "datasets", "tools", "parallel",
                    "grid", "splines", "stats4", "tcltk", "compiler"})
"""R's own packages (r-base-core ships them)."""
JAVA_VERSION = re.compile(r"\b(?:java|jdk|jre|openjdk)(?:\s*(?:se|version|v))?\s*(?:>=|≥)?\s*(1\.[5-8]|\d{1,2})\b"
                          r"(?!\.\d+\s*(?:GB|MB))", re.IGNORECASE)
JDKS = {"bullseye": (11, 17), "bookworm": (17,), "trixie": (21, 25)}
"""Major versions of the OpenJDK each Debian suite packages (openjdk-N-jdk-headless)."""


def octave_packages(files: list[str], read: Reader) -> dict[str, list[str]]:
    """Octave Forge package -> the toolbox functions the artifact's .m files call that it provides (functions the
    artifact defines itself excluded)."""
    sources = [f for f in files if f.endswith(".m")][:MAX_SCANNED]
    own = {f.rsplit("/", 1)[-1][:-2] for f in sources}
    calls: set[str] = set()
    for rel in sources:
        text = COMMENT.sub("", read(rel) or "")
        own |= set(DEFINED.findall(text))
        calls |= set(CALL.findall(text))
    out: dict[str, list[str]] = {}
    for package, functions in table("octave").items():
        used = sorted(f for f in functions if f in calls and f not in own)
        if used:
            out[package] = used
    return out


def matlab_command(script: str) -> tuple[str, str] | None:
    """(what MATLAB is asked to run, as Octave code; how it was named) for a `matlab ...` command or a bare .m
    script, else None."""
    try:
        words = shlex.split(script.strip().splitlines()[-1]) if script.strip() else []
    except ValueError:
        return None
    if not words:
        return None
    if words[0] == "matlab" or words[0].endswith("/matlab"):
        for flag in ("-batch", "-r"):
            if flag in words and words.index(flag) + 1 < len(words):
                return words[words.index(flag) + 1].strip(), f"matlab {flag}"
        scripts = [w for w in words[1:] if w.endswith(".m")]
        if scripts:
            return f"run('{scripts[0]}')", "matlab with a script"
        return None
    if len(words) == 1 and words[0].endswith(".m"):
        return f"run('{words[0]}')", "a MATLAB script"
    return None


def octave_script(code: str, packages: list[str]) -> str:
    """The Octave command that runs `code` headless, the needed packages loaded first."""
    loads = "".join(f"pkg load {p}; " for p in packages)
    body = code.rstrip().rstrip(";")
    if not re.search(r"\bexit\b|\bquit\b", body):
        body += "; exit"
    return f"octave --no-gui --no-window-system --quiet --eval {shlex.quote(loads + body)}"


def r_libraries(files: list[str], read: Reader) -> list[str]:
    """The R packages the artifact's R sources load, beyond R's own."""
    found: list[str] = []
    for rel in [f for f in files if f.endswith((".R", ".r", ".Rmd", ".Rscript"))][:MAX_SCANNED]:
        text = re.sub(r"#[^\n]*", "", read(rel) or "")
        found += R_LIBRARY.findall(text) + R_COLONS.findall(text)
    return [n for n in dict.fromkeys(found) if n not in R_BASE]


def r_debian(names: list[str]) -> list[str]:
    """Debian's names of R packages (r-cran-<lower case>)."""
    return [f"r-cran-{n.lower().replace('_', '-')}" for n in names]


def r_apt_script(names: list[str]) -> str:
    """Install R and each library's Debian package that exists (the others are named as not packaged)."""
    packages = " ".join(r_debian(names))
    return ("export DEBIAN_FRONTEND=noninteractive; apt-get update -qq || exit 1\n"
            f"have=''; for p in {packages}; do if apt-cache show \"$p\" >/dev/null 2>&1; then have=\"$have $p\"; "
            "else echo \"$p: not packaged in this Debian suite\" >&2; fi; done\n"
            "apt-get install -y --no-install-recommends r-base-core $have")


def java_major(texts: list[str]) -> int | None:
    """The Java major version the documentation names (JDK 1.8 -> 8), or None."""
    for text in texts:
        for match in JAVA_VERSION.finditer(text or ""):
            raw = match.group(1)
            major = int(raw.split(".")[1]) if raw.startswith("1.") else int(raw)
            if 5 <= major <= 30:
                return major
    return None


def jdk_for(major: int, suite: str) -> tuple[str, str | None]:
    """(the Debian JDK package, a note when it is not the documented version) for a suite's image."""
    offered = JDKS.get(suite) or JDKS["bookworm"]
    chosen = min(offered, key=lambda v: (abs(v - major), -v))
    note = None if chosen == major else (f"the documentation asks for Java {major}; Debian {suite or 'here'} packages "
                                         f"OpenJDK {', '.join(map(str, offered))}: the nearest, {chosen}, is used")
    return f"openjdk-{chosen}-jdk-headless", note


R_CALLS = re.compile(r"\bRscript\b|\bR\s+CMD\s+BATCH\b|\bR\s+(?:-f|--file)\b|\bR\s+--(?:no-save|vanilla)\b")
JAVA_TOOLS = ("java", "javac", "jdk", "jre")


def _r_needed(ctx: Context, doc_tools: list[str]) -> bool:
    """The artifact runs R: the documentation requires it, installs it, or a script or document calls Rscript."""
    if any(t.strip().lower() == "r" for t in doc_tools) or any(p.startswith("r-base") for p in ctx.apt_documented):
        return True
    texts = [f for f in ctx.files if f.endswith((".sh", ".md", ".py", ".txt", ".rst")) or f.endswith("Makefile")]
    return any(R_CALLS.search(ctx.read(f) or "") for f in texts[:MAX_SCANNED])


def runtime_steps(ctx: Context, plan: EnvPlan, doc_texts: list[str], doc_tools: list[str]) -> None:
    """R's libraries and the documented JDK as Debian steps (container sandboxes); the Octave packages the MATLAB
    code needs recorded for the run (a `matlab` command is run under Octave when it fails: agents/heuristic)."""
    plan.octave = octave_packages(ctx.files, ctx.read)
    libs = r_libraries(ctx.files, ctx.read)
    if libs and _r_needed(ctx, doc_tools):
        plan.r_libraries = libs
        if not ctx.container:
            ctx.note(f"the R scripts load {', '.join(libs)}: their Debian packages cannot be installed in the local "
                     "sandbox")
        else:
            plan.steps.append(ProvisionStep(
                script=r_apt_script(libs), purpose="R and the libraries the artifact's R scripts load, from Debian ("
                + ", ".join(f"{d} for library({n})" for n, d in zip(libs, r_debian(libs))) + ")", kind="apt",
                network=True, documented=False, action="install", required=False))
            plan.apt_packages += ["r-base-core", *r_debian(libs)]
            _drop_tool_step(plan, "r-base-core")
    major = java_major(doc_texts) if any(t.strip().lower() in JAVA_TOOLS for t in doc_tools) else None
    if major is None or not ctx.container:
        return
    package, note = jdk_for(major, plan.python.interpreter if plan.python else "")
    if note:
        ctx.note(note)
    replaced = False
    for step in plan.steps:
        if step.kind == "apt" and re.search(r"\bdefault-(?:jre|jdk)-headless\b", step.script):
            step.script = re.sub(r"\bdefault-(?:jre|jdk)-headless\b", package, step.script)
            step.purpose += f"; {package}: the Java {major} the documentation names" + (" (nearest)" if note else "")
            replaced = True
    if not replaced:
        plan.steps.append(ProvisionStep(script=apt_script([package]), purpose=f"{package}: the Java {major} the "
                                        "documentation names" + (f" ({note})" if note else ""), kind="apt",
                                        network=True, documented=True, action="install", source="documentation",
                                        required=False))
    plan.apt_packages = [package if re.fullmatch(r"default-(?:jre|jdk)-headless", p) else p for p in plan.apt_packages]


def _drop_tool_step(plan: EnvPlan, package: str) -> None:
    """The R step installs `package` itself: an undocumented tool step that installs only it is dropped (one apt run
    less); a documented apt step stays as the documentation gives it."""
    alone = apt_script([package])
    plan.steps = [s for s in plan.steps if not (s.kind == "apt" and s.script == alone and s.purpose.startswith(
        "system tools the documentation requires"))]
