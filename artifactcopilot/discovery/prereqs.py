"""What the prose says must happen before the documented commands run: start a service and wait until it is up, edit
a value in a file, and the documented way to make a run smaller ("set `trials` lower for a quick check").

    Start the servers with `./start_servers.sh` (they listen on port 8080) before running the experiments.
    Before running, edit `DATA_ROOT` in `paths.py` to point to the `data` folder.
    Run `compare.py` after adapting `base_path` to the results folder.

A sentence that assigns a value in a file is an edit a reviewer makes, never a shell command. Pure.
"""
from __future__ import annotations

import posixpath
import re

from ..shell import words
from . import text as tx
from .cmdlines import looks_like_command
from .model import Prerequisite
from .prose import ProseContext, find_dir, find_file, script_command

SERVICE = re.compile(r"\b(start|starting|launch|launching|run|running|boot|spin up|bring up|fire up)\b[^.]{0,60}?"
                     r"\b(servers?|services?|daemons?|database|backends?|brokers?|clusters?|workers?|api|"
                     r"emulators?|instances?)\b|\b(servers?|services?|daemons?)\b[^.]{0,40}\b(started|launched|running|"
                     r"up)\b", re.I)
EDIT = re.compile(r"\b(edit|editing|adapt|adapting|adjust|adjusting|change|changing|modify|modifying|update|updating|"
                  r"set|setting|point|configure|specify|replace)\b", re.I)
REDUCE = re.compile(r"\b(lower|smaller|fewer|reduce|reduc\w+|decrease|less|quick(er)?|faster|speed up|test(ing)?|"
                    r"small)\b", re.I)
NAME = re.compile(r"^[A-Za-z_][\w.]{0,60}$")
CONFIG_EXT = (".py", ".yaml", ".yml", ".json", ".cfg", ".ini", ".toml", ".sh", ".R", ".r", ".conf", ".txt", ".env",
              ".m", ".jl")
PORT = re.compile(r"\b(?:port\s*(?:number\s*)?:?\s*|(?:localhost|127\.0\.0\.1|0\.0\.0\.0):)(\d{2,5})\b", re.I)
SOCKET = re.compile(r"(?<![\w.])((?:/|\./)?[\w./\-]+\.sock)\b")
SCRIPT_PORT = re.compile(r"(?:--port[= ]|-p\s+|PORT\s*=\s*|port\s*=\s*|:)(\d{4,5})\b")
KNOB_WORD = re.compile(r"\b(?:parameter|variable|constant|value|setting)\s+([A-Z][A-Z0-9_]{1,40}|[a-z_]\w{1,40}_\w+)\b")
OPTIONS_ONLY = re.compile(r"^(?:--?[A-Za-z][\w\-]*(?:[= ](?!-)[^\s`]+)?\s*)+$")
ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][\w.\[\]'\"]*)\s*(?:=|:)\s*(.+?)\s*$")


def prose_prerequisites(paragraph: str, source: str, section: str, ctx: ProseContext, read) -> list[Prerequisite]:
    """The services to start, values to edit and documented reductions one paragraph states."""
    out: list[Prerequisite] = []
    for sentence in tx.sentences(paragraph) or [paragraph]:
        spans = re.findall(r"`([^`\n]{1,200})`", sentence)
        service = _service(sentence, spans, source, section, ctx, read)
        if service is not None:
            out.append(service)
            continue
        flags = [s for s in spans if OPTIONS_ONLY.match(s.strip())]
        if flags and (tx.is_quick(sentence) or REDUCE.search(sentence)):
            out.append(Prerequisite("reduce", sentence.strip()[:300], source, command=" ".join(flags),
                                    section=section))
            continue
        if not spans and REDUCE.search(sentence) and (knob := KNOB_WORD.search(sentence)):
            # "reduce the simulation rounds by changing the parameter RD": the scripts that set it, each its own
            out.append(Prerequisite("reduce", sentence.strip()[:300], source, name=knob.group(1), section=section))
            continue
        out += _edits(sentence, spans, source, section, ctx, read)
    return out


def _service(sentence: str, spans: list[str], source: str, section: str, ctx: ProseContext,
             read) -> Prerequisite | None:
    if not SERVICE.search(sentence):
        return None
    command, cwd = "", "."
    for span in spans:
        path = find_file(ctx, span) if re.search(r"\.(sh|py|bash|js)$", span) and " " not in span else None
        if path:
            command, cwd = script_command(path, ctx.python), posixpath.dirname(path) or "."
            break
        if looks_like_command(span, ctx.console_scripts):
            command = span.rstrip("& ").strip()
            cwd = ctx.doc_dir
            break
    if not command:
        return None
    return Prerequisite("service", sentence.strip()[:300], source, command=command, cwd=cwd,
                        ready=_readiness(sentence, command, cwd, read), section=section)


def _readiness(sentence: str, command: str, cwd: str, read) -> str:
    """What shows the service is up: a port or socket the docs name, else one its start script names."""
    if (m := PORT.search(sentence)) is not None:
        return f"port {m.group(1)}"
    if (m := SOCKET.search(sentence)) is not None:
        return f"socket {m.group(1)}"
    script = next((w for w in words(command)[1:2] + words(command)[:1] if re.search(r"\.(sh|py|bash|js)$", w)), None)
    text = (read(posixpath.normpath(posixpath.join(cwd, script))) or "") if script else ""
    if (m := SOCKET.search(text)) is not None:
        return f"socket {m.group(1)}"
    if (m := SCRIPT_PORT.search(text)) is not None:
        return f"port {m.group(1)}"
    return ""


def _edits(sentence: str, spans: list[str], source: str, section: str, ctx: ProseContext,
           read) -> list[Prerequisite]:
    verb = EDIT.search(sentence)
    if verb is None or not spans:
        return []
    files = [p for s in spans if " " not in s and posixpath.splitext(s)[1] in CONFIG_EXT and (p := find_file(ctx, s))]
    names = [s for s in spans if NAME.match(s) and posixpath.splitext(s)[1] not in CONFIG_EXT and not s.isdigit()
             and s.lower() not in ("true", "false", "none") and find_dir(ctx, s) is None and find_file(ctx, s) is None]
    assigned = [m for s in spans if (m := ASSIGNMENT.match(s)) and "=" in s]
    if assigned:  # `DATA_ROOT = "/data"` written in the sentence
        names = [m.group(1) for m in assigned]
    if not names:
        return []
    out = []
    for i, name in enumerate(dict.fromkeys(names)):
        path = files[0] if files else _defining_file(name, ctx, read)
        if path is None:
            continue
        value = assigned[i].group(2).strip() if i < len(assigned) else _value(sentence, spans, name, files, ctx)
        kind = "reduce" if REDUCE.search(sentence[verb.start():]) and not value else "edit"
        if kind == "edit" and not re.search(r"\b(edit|adapt|adjust|change|modify|update|set|point|configure|"
                                            r"specify|replace)\w*\b[^.]{0,80}" + re.escape(name), sentence, re.I):
            continue
        out.append(Prerequisite(kind, sentence.strip()[:300], source, file=path, name=name, value=value,
                                cwd=posixpath.dirname(path) or ".", section=section))
    return out


def _value(sentence: str, spans: list[str], name: str, files: list[str], ctx: ProseContext) -> str:
    """The value the sentence gives: a code span after "to"/"=", or the folder it names ("the results folder")."""
    after = sentence.split(name, 1)[-1]
    m = re.search(r"\b(?:to|=|as|with)\s+`([^`\n]{1,200})`", after)
    if m and m.group(1) not in files and m.group(1) != name:
        return m.group(1)
    m = re.search(r"\bto\s+(?:point\s+to\s+)?(?:the\s+)?`?([\w./\-]+)`?\s+(?:folder|directory|dir)\b", after, re.I)
    if m and (folder := find_dir(ctx, m.group(1))):
        return folder
    return ""


def _defining_file(name: str, ctx: ProseContext, read) -> str | None:
    """The one file of the artifact that assigns `name` at the start of a line (a config or constants file)."""
    rx = re.compile(rf"^\s*{re.escape(name)}\s*[:=]", re.MULTILINE)
    hits = []
    for path in ctx.index.files[:5000]:
        if posixpath.splitext(path)[1] in CONFIG_EXT and (text := read(path)) and rx.search(text):
            hits.append(path)
            if len(hits) > 1:
                return None
    return hits[0] if hits else None


def code_edits(code: str, before: str, source: str, section: str, ctx: ProseContext, read) -> list[Prerequisite]:
    """Assignments shown in a code block that the prose before it asks to make in a file (`DATA_ROOT = "…"` under
    "set the path in `paths.py`:"): edits, never commands."""
    spans = re.findall(r"`([^`\n]{1,200})`", before)
    if not EDIT.search(before):
        return []
    files = [p for s in spans if " " not in s and posixpath.splitext(s)[1] in CONFIG_EXT and (p := find_file(ctx, s))]
    out = []
    for line in code.splitlines():
        m = ASSIGNMENT.match(line)
        if not m or "=" not in line or line.lstrip().startswith(("export ", "#")):
            continue
        name = m.group(1)
        path = files[0] if files else _defining_file(name, ctx, read)
        value = m.group(2).strip().rstrip(";")
        current = re.search(rf"^\s*{re.escape(name)}\s*[:=]\s*(.+?)\s*$", read(path) or "", re.M) if path else None
        if current is not None and current.group(1).strip().rstrip(";") == value:
            continue  # the line as the file has it: it shows what to edit, not the value to set
        if path:
            out.append(Prerequisite("edit", f"{before.strip()[-200:]} {line.strip()}", source, file=path, name=name,
                                    value=value, cwd=posixpath.dirname(path) or ".", section=section))
    return out


def assignment_line(line: str) -> bool:
    """A line that assigns a value with spaces around `=` (`DATA_ROOT = "/data"`): code, never a shell command
    (the shell would run a program named DATA_ROOT)."""
    return bool(re.match(r"^\s*[A-Za-z_][\w.\[\]'\"]*\s+=\s+\S", line)) and not line.lstrip().startswith("export ")
