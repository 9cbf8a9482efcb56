"""README.md stays short and true: at most 150 lines, opening with the two set-up commands; every relative link in it
and in docs/*.md leads to a file that exists (and to a heading that exists, when it names one); every `copilot`
command it shows in a code block is a command of the command line, and every long option shown for a command is one
that command's --help lists (or an environment variable the documentation names)."""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CLI_DOC = DOCS / "cli.md"
MAX_LINES = 150
SETUP = ["bash scripts/review-example.sh", "bash .ci/run"]

FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
COPILOT = re.compile(r"(?:^|(?<=[\s$(`]))copilot(?=\s)")
OTHER_PROGRAM = re.compile(r"\s(?:\|(?=\s+[A-Za-z])|&&|;|\s#)")
"""Where the text of a `copilot` command ends: a pipe into another program, `&&`, `;`, a shell comment."""

CLI_SECTIONS = {"review": [["review"]], "Agents": [["review"]], "Sandboxes": [["review"], ["doctor"]],
                "batch": [["batch"]], "repro and judge": [["repro"], ["judge", "table"], ["judge", "method"]],
                "paper": [["paper"]]}
"""docs/cli.md's sections and the commands whose options their prose names; any other section: every command."""
OTHER_OPTIONS = {"--execute", "--inplace"}
"""Options of other programs that docs/cli.md's prose quotes bare: nbconvert's, in what the method judge reads."""


# ---- reading Markdown

def fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """Every fenced code block: (its language, its lines)."""
    blocks: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    lang = ""
    for line in text.splitlines():
        match = FENCE.match(line)
        if match and current is None:
            current, lang = [], match.group(2)
        elif match and current is not None and not match.group(2):
            blocks.append((lang, current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def prose(text: str) -> str:
    """The text outside fenced code blocks (each fenced line blanked, so that line numbers stay)."""
    out, inside = [], False
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence and (not inside or not fence.group(2)):  # an opening fence, or a closing one (no language)
            inside = not inside
            out.append("")
        else:
            out.append("" if inside else line)
    return "\n".join(out)


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, its prose) for each `#`/`##` section of a page's prose."""
    out: list[tuple[str, str]] = []
    title, body = "", list[str]()
    for line in prose(text).splitlines():
        if re.match(r"^#{1,2} ", line):
            out.append((title, "\n".join(body)))
            title, body = line.lstrip("#").strip(), []
        else:
            body.append(line)
    return out + [(title, "\n".join(body))]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in prose(page.read_text(encoding="utf-8")).splitlines()
            if re.match(r"^#{1,6} ", line)}


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


# ---- the command line

@functools.cache
def help_text(path: tuple[str, ...]) -> tuple[int, str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", *path, "--help"], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


def listed(path: tuple[str, ...], heading: str) -> list[str]:
    """The first column of a --help section ("Options:", "Commands:")."""
    _, text = help_text(path)
    out, inside = [], False
    for line in text.splitlines():
        if line.strip() == heading and not line.startswith(" "):
            inside = True
        elif inside and not line.strip():
            break  # the section ends at the first blank line (the examples and notes follow)
        elif inside and line.startswith("  ") and not line.startswith(" " * 6):  # not a wrapped description
            out.append(re.split(r"\s{2,}", line.strip())[0])
    return out


def options_of(path: tuple[str, ...]) -> set[str]:
    return {o for entry in listed(path, "Options:") for o in OPTION.findall(entry)}


def commands_of(path: tuple[str, ...]) -> set[str]:
    return {entry.split()[0] for entry in listed(path, "Commands:")}


def command_path(words: list[str]) -> tuple[str, ...]:
    """The (sub)command a `copilot` command line names: `judge method SCRIPT` -> ("judge", "method"). A word where a
    command must stand that is none (`copilot reveiw`, `copilot judge tabel`) is kept, so that its --help fails."""
    path: tuple[str, ...] = ()
    for word in words:
        commands = commands_of(path)
        if not commands or word.startswith("-"):
            break
        path += (word,)
        if word not in commands:
            break
    return path


def logical_lines(lines: list[str]) -> list[str]:
    """A code block's commands: `\\` continuations joined, and a synopsis's indented `[--option …]` lines joined to
    the command above them."""
    out: list[str] = []
    joining = False
    for line in lines:
        continues = out and (joining or (re.match(r"^\s+[\[-]", line) and "copilot" not in line))
        if continues:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
        joining = line.rstrip().endswith("\\")
        if joining:
            out[-1] = out[-1].rstrip().removesuffix("\\")
    return out


def copilot_commands(text: str) -> list[tuple[str, str]]:
    """Every `copilot …` command a page shows: (where, its text) — from its fenced blocks (one logical line may hold
    several, as a synopsis does) and from inline code spans that start with `copilot `."""
    found = []
    for lang, lines in fenced_blocks(text):
        for line in logical_lines(lines):
            starts = [m.end() for m in COPILOT.finditer(line)]
            for n, start in enumerate(starts):
                end = starts[n + 1] - len("copilot") if n + 1 < len(starts) else len(line)
                found.append((f"```{lang} block", line[start:end]))
    for match in CODE_SPAN.finditer(prose(text)):
        span = " ".join(match.group(2).split())
        if span.startswith("copilot "):
            found.append(("inline code", span[len("copilot"):]))
    return [(where, OTHER_PROGRAM.split(" " + cmd, maxsplit=1)[0]) for where, cmd in found]


def documented_env_vars() -> set[str]:
    return {v for page in pages() for v in ENV_VAR.findall(page.read_text(encoding="utf-8"))}


def known_option(option: str, paths: list[tuple[str, ...]], env_vars: set[str]) -> bool:
    """The option is one of these commands' options, or an environment variable the documentation names stands for
    it (`--context-tokens` and `COPILOT_LLM_CONTEXT_TOKENS`)."""
    if any(option in options_of(path) for path in paths):
        return True
    as_env = option[2:].upper().replace("-", "_")
    return any(v.startswith(("ARTIFACTCOPILOT_", "COPILOT_")) and v.endswith("_" + as_env) for v in env_vars)


# ---- the tests

def test_readme_is_short_and_opens_with_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES, f"README.md has {len(text.splitlines())} lines (at most {MAX_LINES})"
    lang, lines = fenced_blocks(text)[0]
    assert lang == "bash", "the first code block of README.md is the set-up, in bash"
    commands = [line.split(" #", 1)[0].strip() for line in lines if line.strip()]
    assert commands == SETUP, f"the first code block should hold exactly {SETUP}, not {commands}"
    assert all(" # " in line for line in lines if line.strip()), "each set-up command says what it does"
    for path in ("scripts/review-example.sh", ".ci/run"):
        assert (ROOT / path).is_file(), f"{path} is missing"
    opening = [p for p in text[:text.index("```")].split("\n\n") if p.strip() and not p.startswith("#")]
    assert len(opening) <= 2, "the set-up commands come right after one short paragraph on the product"


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_existing_files(page):
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading '{anchor}' in {dest.name}")
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"


def test_every_copilot_command_in_the_readme_runs():
    shown = {command_path(cmd.split()) for _, cmd in copilot_commands(README.read_text(encoding="utf-8"))}
    assert {("review",), ("batch",)} <= shown, "README.md shows the main commands"
    for path in sorted(shown):
        code, out = help_text(path)
        assert code == 0, f"copilot {' '.join(path)} --help exited {code}: {out[-500:]}"


@pytest.mark.parametrize("page", [README, CLI_DOC], ids=lambda p: str(p.relative_to(ROOT)))
def test_options_shown_for_a_command_are_its_options(page):
    text = page.read_text(encoding="utf-8")
    env_vars = documented_env_vars()
    unknown = []
    for where, cmd in copilot_commands(text):
        path = command_path(cmd.split())
        for option in OPTION.findall(cmd):
            if not known_option(option, [path], env_vars):
                unknown.append(f"`copilot {' '.join(path)}` ({where}): {option}")
    everything = [()] + sorted({(c,) for c in commands_of(())} | {("judge", c) for c in commands_of(("judge",))})
    for title, body in sections(text):
        paths = [tuple(p) for p in CLI_SECTIONS.get(title, [])] if page == CLI_DOC else []
        for match in CODE_SPAN.finditer(body):
            span = " ".join(match.group(2).split())
            if not span.startswith("--"):
                continue  # a command of its own (`copilot …` above, or another program's)
            for option in OPTION.findall(span):
                if option not in OTHER_OPTIONS and not known_option(option, paths or everything, env_vars):
                    unknown.append(f"section '{title}': `{span}`: {option}")
    assert not unknown, f"{page.relative_to(ROOT)} names options the command line does not have: {unknown}"
