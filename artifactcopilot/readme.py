"""Read an artifact's entry document the way an AE reviewer does: sections, commands, mappings.

Commands come from fenced code blocks (and `$ ` prompts); each is classified as setup, workflow,
reuse or env by its own text and by the section it sits in. Paper objects ("Table 2") named near a
command are attached to it so D3 can prefer the command that reproduces a paper result.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from markdown_it import MarkdownIt

MAX_PARSE_CHARS = 1_000_000  # a 5 MB README is read, but only its first MB is parsed

SHELL_INFOS = {"bash", "sh", "shell", "console", "zsh", "shell-session", "sh-session", "cmd", "terminal"}
PLAIN_INFOS = {"", "text", "txt", "none", "plain"}  # unlabeled blocks hold commands or file listings
PROGRAM = re.compile(r"^\s*(\$\s+)?(sudo\s+)?(python[0-9.]*|pip[0-9]*|bash|sh|zsh|make|cmake|java|javac|node|npm|npx|"
                     r"yarn|Rscript|R|julia|cargo|go|mvn|gradle|\./\S+|\S+\.(sh|py)\b|docker(-compose)?|conda|mamba|"
                     r"pytest|jupyter|cd|export|source|git|wget|curl|tar|unzip|gcc|g\+\+|clang|perl|ruby|dotnet|uv|"
                     r"poetry|tox|nox|ant|sbt|stack|cabal|swift|php|lua|matlab|octave)(\s|$)")
SETUP_CMD = re.compile(r"^\s*(sudo\s+)?(pip3?\s+install|python3?\s+-m\s+(pip\s+install|venv)"
                       r"|conda\s+(env\s+create|create|install)"
                       r"|mamba\s|apt(-get)?\s+install|npm\s+(install|ci)|yarn(\s+install)?\s*$|make\s+(install|setup|deps)"
                       r"|python3?\s+setup\.py|docker\s+(build|pull)|docker-compose\s+build|source\s+\S*activate|poetry\s+install"
                       r"|uv\s+(sync|pip)|virtualenv\s|\.?/?(setup|install)\.sh|bash\s+\S*(setup|install)\S*\.sh|cargo\s+build|mvn\s+(install|package))")
NON_COMMAND = re.compile(r"^\s*(#|//|$)")
ENV_ASSIGN = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
CD = re.compile(r"^\s*cd\s+(\S+)\s*$")
TRIVIAL = re.compile(r"^\s*(ls|pwd|echo|cat\s+README|git\s+clone|cd|which|mkdir|tree|head|less|more|true|clear)\b"
                     r"|(--help|-h|--version)\s*$")
PAPER_REF = re.compile(r"\b(Table|Tab\.|Figure|Fig\.|Section|Sec\.|Listing)\s*([0-9]+[a-z]?)", re.I)
QUICK = re.compile(r"\b(quick|reduced|small(er)?|subset|smoke|toy|fast|mini|sample|short|demo mode|--quick|--fast|"
                   r"--small)\b", re.I)
LONG = re.compile(r"\b(\d+(\.\d+)?\s*(hours?|hrs?|days?)|overnight|several hours|a day)\b", re.I)
HEADING_KIND = [
    ("reuse", re.compile(r"own data|your own|reuse|re-use|extend|custom|adapt|new (data|input|dataset)|other data|"
                         r"configur|api|library use|transfer", re.I)),
    ("setup", re.compile(r"install|setup|set up|set-up|requirement|environment|dependenc|prerequisite|build", re.I)),
    ("workflow", re.compile(r"usage|run|reproduc|experiment|evaluat|quick ?start|getting started|results?|replicat|"
                            r"example|demo|benchmark|how to", re.I)),
]
GOAL_HEAD = re.compile(r"overview|about|introduction|description|purpose|summary|abstract|what is|goal|motivation",
                       re.I)
STRUCTURE_HEAD = re.compile(r"structure|layout|organi[sz]ation|contents|directory|files|repository", re.I)
LIMITS = re.compile(r"limitation|troubleshoot|known (issue|problem|limitation)|caveat|failure|not supported|faq|"
                    r"pitfall|common (problem|error)", re.I)
RESOURCES = re.compile(r"\b\d+(\.\d+)?\s*(GB|MB|GiB|MiB|cores?|CPUs?|GPUs?|minutes?|mins?|hours?|seconds?|sec)\b|"
                       r"\b(RAM|GPU|disk space|memory)\b", re.I)
INPUT_WORDS = re.compile(r"\b(input|inputs|dataset|data set|data file|reads|csv)\b", re.I)
OUTPUT_WORDS = re.compile(r"\b(output|outputs|prints|writes|produces|generates|saved to|written to)\b", re.I)
DEPS_WORDS = re.compile(r"\b(python\s*[23](\.\d+)*\+?|requirements\.txt|standard library|"
                        r"no (third-party|external) (dependencies|packages)|version\s+\d|java\s*\d+|"
                        r"node(\.js)?\s*\d+|gcc|docker)\b", re.I)
ENV_MENTION = re.compile(r"\b([A-Z][A-Z0-9_]{2,})=([^\s`'\"]+)")
TREE_LINE = re.compile(r"^\s*(?:[│┃║¦├└┣┗╠╚]|[+\\`][-─—]{2,}|\|(?!.*\|\s*$))")
"""A line of a drawn directory tree (`├── main.py`, `│   └── x`, `|   run.sh`, `+---data`, `\\---src`, `` `-- x``):
no shell command starts with a pipe or a box-drawing character. A Markdown table row (`| a | b |`) is not one."""
NO_SETUP = re.compile(r"no (installation|setup|install) (is )?(needed|required)|standard library only|"
                      r"only the (python )?standard library|no (third-party|external) (dependencies|packages)", re.I)


@dataclass
class DocCommand:
    cmd: str
    section: str
    kind: str  # setup | workflow | reuse | env | trivial
    mentions: list[str] = field(default_factory=list)
    quick: bool = False
    prefix: list[str] = field(default_factory=list)  # `cd`/`export` lines earlier in the same block
    block: int = 0

    def script(self) -> str:
        return "\n".join(self.prefix + [self.cmd])


@dataclass
class Section:
    level: int
    title: str
    text: str = ""


@dataclass
class ReadmeAnalysis:
    path: str
    words: int
    truncated: bool
    sections: list[Section]
    commands: list[DocCommand]
    env_vars: dict[str, str]
    paper_refs: list[str]
    signals: dict[str, bool]
    long_run_warning: bool
    reuse_sections: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def of_kind(self, kind: str) -> list[DocCommand]:
        return [c for c in self.commands if c.kind == kind]


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _refs(text: str) -> list[str]:
    out = []
    for word, num in PAPER_REF.findall(text):
        norm = {"tab.": "Table", "fig.": "Figure", "sec.": "Section"}.get(word.lower(), word.capitalize())
        ref = f"{norm} {num}"
        if ref not in out:
            out.append(ref)
    return out


def _section_kind(title: str) -> str | None:
    for kind, pattern in HEADING_KIND:
        if pattern.search(title):
            return kind
    return None


def _logical_lines(code: str) -> list[str]:
    lines, buf = [], ""
    for raw in code.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("$ "):
            line = line.lstrip()[2:]
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        lines.append((buf + line).strip())
        buf = ""
    if buf:
        lines.append(buf.strip())
    return lines


def analyze_readme(text: str, path: str = "README.md", has_dependency_file: bool = False) -> ReadmeAnalysis:
    truncated = len(text) > MAX_PARSE_CHARS
    text = text[:MAX_PARSE_CHARS]
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    sections: list[Section] = [Section(0, "")]
    commands: list[DocCommand] = []
    env: dict[str, str] = {}
    context = ""  # prose since the previous code block, for mentions of paper objects
    block = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            title = tokens[i + 1].content.strip()
            sections.append(Section(int(tok.tag[1]), title))
            context = ""
            i += 3
            continue
        if tok.type in ("fence", "code_block"):
            info = (tok.info or "").strip().split()[0].lower() if tok.info else ""
            sections[-1].text += "\n" + tok.content
            if is_tree_listing(tok.content):
                pass  # a drawn directory tree, whatever the block's language label says
            elif info in SHELL_INFOS or (info in PLAIN_INFOS and _looks_like_commands(tok.content)):
                block += 1
                commands += _block_commands(tok.content, sections, context, block, env)
            context = ""
        elif tok.type == "inline":
            sections[-1].text += "\n" + tok.content
            context += " " + tok.content
        i += 1
    full = "\n".join(s.title + "\n" + s.text for s in sections)
    for name, value in ENV_MENTION.findall(full):  # "set DATA_DIR=data" in prose counts as documented
        env.setdefault(name, value)
    signals = _signals(sections, commands, full, has_dependency_file)
    return ReadmeAnalysis(path=path, words=len(full.split()), truncated=truncated, sections=sections,
                          commands=commands, env_vars=env, paper_refs=_refs(full), signals=signals,
                          long_run_warning=bool(LONG.search(full)),
                          reuse_sections=[s.title for s in sections if _section_kind(s.title) == "reuse"])


def is_tree_listing(code: str) -> bool:
    """A code block that draws a directory tree: at least two tree lines, and at least 40% of its lines."""
    lines = [ln for ln in code.splitlines() if ln.strip()]
    tree = sum(1 for ln in lines if TREE_LINE.match(ln))
    return tree >= 2 and tree >= 0.4 * len(lines)


def _looks_like_commands(code: str) -> bool:
    lines = [ln for ln in _logical_lines(code) if not NON_COMMAND.match(ln)]
    return bool(lines) and all(PROGRAM.match(ln) for ln in lines)


def _block_commands(code: str, sections: list[Section], context: str, block: int, env: dict) -> list[DocCommand]:
    out: list[DocCommand] = []
    prefix: list[str] = []
    heading_kind = None
    titles = []
    for sec in reversed(sections):  # nearest heading with a recognisable kind, e.g. "### Table 2" under "## Reproduce"
        titles.append(sec.title)
        heading_kind = heading_kind or _section_kind(sec.title)
        if heading_kind:
            break
    title = sections[-1].title
    mentions = _refs(" ".join(titles) + " " + context)
    for line in _logical_lines(code):
        if NON_COMMAND.match(line) or TREE_LINE.match(line):
            continue
        env_match = ENV_ASSIGN.match(line)
        if env_match:
            env[env_match.group(1)] = env_match.group(2).strip().strip("'\"")
            prefix.append(line)
            continue
        if CD.match(line):
            prefix.append(line)
            continue
        if SETUP_CMD.match(line):
            kind = "setup"
        elif TRIVIAL.search(line):
            kind = "trivial"
        else:
            kind = (heading_kind if heading_kind in ("reuse", "workflow")
                    else ("workflow" if heading_kind != "setup" else "setup"))
        out.append(DocCommand(cmd=line, section=title, kind=kind,
                              mentions=mentions + [m for m in _refs(line) if m not in mentions],
                              quick=bool(QUICK.search(line) or QUICK.search(context)),
                              prefix=list(prefix), block=block))
    return out


def _signals(sections: list[Section], commands: list[DocCommand], full: str, has_dep_file: bool) -> dict[str, bool]:
    titles = " | ".join(s.title for s in sections)
    first_para = next((s.text.strip() for s in sections if s.text.strip()), "")
    has_tree = any(ch in full for ch in ("├", "└")) or bool(re.search(r"(?m)^\s*[-*]\s+`[^`]+/?`\s*[-:–—]", full))
    return {
        "entry": len(full.split()) >= 30,
        "goal": bool(GOAL_HEAD.search(titles)) or len(first_para.split()) >= 10,
        "setup": any(c.kind == "setup" for c in commands)
                 or any(_section_kind(s.title) == "setup" and len(s.text.split()) >= 5 for s in sections)
                 or bool(NO_SETUP.search(full)),
        "workflow": any(c.kind in ("workflow", "reuse") for c in commands),
        "io": bool(INPUT_WORDS.search(full) and OUTPUT_WORDS.search(full)),
        "mapping": bool(_refs(full)) or bool(re.search(r"\b(claim|result)s? (in|of|from) the paper\b", full, re.I)),
        "structure": bool(STRUCTURE_HEAD.search(titles)) or has_tree,
        "dependencies": has_dep_file or bool(DEPS_WORDS.search(full)),
        "resources": bool(RESOURCES.search(full)),
        "limits": bool(LIMITS.search(full)),
    }
