"""D4: the output file the documentation describes in words, checked on the file a valid run wrote.

The documentation's sentences that describe an output by its shape ("a CSV file, same shape as the input with one
additional column holding the cluster index") are held against the file a documented command wrote or rewrote: the
file its output option names (`-o out.csv`), or the file the description names. The input the command read (its
input option, else an artifact file among its arguments) gives the rows and columns to compare with. A match is
documented-output evidence (weak mapping, WA at most); the words alone, or a file the run did not write, never count.
"""
from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import PurePosixPath

from ... import shell as sh
from ...claims.described import Description, read_descriptions
from ...claims.describedcheck import check_described
from ...models import EvidenceLevel
from ...tools import PhaseTools

_OUT_FLAG = re.compile(r"^--?(?:o|out|outfile|outpath|out[-_][\w-]+|[\w-]*output[\w-]*|save|dest)$", re.I)
_IN_FLAG = re.compile(r"^--?(?:i|in|infile|inpath|in[-_][\w-]+|[\w-]*input[\w-]*|data)$", re.I)
_CODE = (".py", ".sh", ".r", ".jl", ".m", ".js", ".java", ".jar", ".pl", ".rb")
MAX_BYTES = 30_000_000
MAX_RUNS = 6


def _options(words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(output option values, input option values, positional words) of a command line."""
    outs: list[str] = []
    ins: list[str] = []
    pos: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        flag, eq, value = word.partition("=")
        target = outs if _OUT_FLAG.match(flag) else ins if _IN_FLAG.match(flag) else None
        if target is not None and eq:
            target.append(value)
        elif target is not None and i + 1 < len(words):
            target.append(words[i + 1])
            i += 1
        elif not word.startswith("-"):
            pos.append(word)
        i += 1
    return outs, ins, pos


def _rel(base: str, word: str) -> str:
    return f"{base}{word}".removeprefix("./").replace("/./", "/")


def _files(run: dict, desc: Description, files: set[str]) -> tuple[str | None, str | None]:
    """The file the run wrote that the description is about, and the input it read (artifact-relative)."""
    try:
        words = sh.split(run.get("script") or "")
    except ValueError:
        return None, None
    written = list(dict.fromkeys((run.get("files_created") or []) + (run.get("files_modified") or [])))
    base = "" if run.get("cwd", ".") in ("", ".") else run["cwd"].rstrip("/") + "/"
    outs, ins, pos = _options(words[1:])
    named = [_rel(base, w) for w in outs] + [_rel(base, w) for w in pos if _rel(base, w) in written]
    if desc.file:  # a description that names its file is about that file only
        named = [w for w in named + written if fnmatch(w, desc.file) or fnmatch(w.rsplit("/", 1)[-1], desc.file)]
    output = next((w for w in named if w in written), None)
    inputs = [_rel(base, w) for w in ins] + [_rel(base, w) for w in pos
                                             if not w.lower().endswith(_CODE) and _rel(base, w) in files]
    source = next((w for w in inputs if w != output and w in files), None)
    if output is None and source and not desc.file:  # no output named: the one file the run named after its input
        stem = PurePosixPath(source).stem
        after = [w for w in written if len(stem) >= 3 and stem in PurePosixPath(w).name and not w.endswith(_CODE)]
        output = after[0] if len(after) == 1 else None
    return output, source


def _fits(desc: Description, output: str) -> bool:
    ext = output.lower().rsplit(".", 1)[-1] if "." in output else ""
    return not desc.format or ext not in ("csv", "tsv", "json") or ext == desc.format or (
        desc.format == "csv" and ext == "tsv")


def _nearest(desc: Description, steps: list[dict]) -> str | None:
    """The source (`README.md:31`) of the documented command nearest to the description in its file: the command
    a stated count describes (shapes relative to the input hold for every run of the tool). None when the file
    documents no command (or the description's line is unknown)."""
    at = [(abs(int(line) - desc.line), src) for st in steps
          for src in [str(st.get("source") or "")] for file, _, line in [src.rpartition(":")]
          if file == desc.source and line.isdigit()]
    return min(at)[1] if at and desc.line else None


def described_outputs(tools: PhaseTools, docs: list[str], runs: list[dict],
                      steps: list[dict] | None = None) -> tuple[list[dict], list[str]]:
    """Each documented output description checked on the file a valid run of the command it describes wrote:
    (results, evidence ids)."""
    descs = [d for path in docs[:4] if not str(path).startswith("paper:")
             for d in read_descriptions(path, tools.read_file(path, 200_000) or "")]
    if not descs:
        return [], []
    files = set(tools.list_files())
    results: list[dict] = []
    evidence: list[str] = []
    for run in runs[:MAX_RUNS]:
        for desc in descs:
            near = _nearest(desc, steps or []) if desc.lines else None
            if near is not None and run.get("source") != near:
                continue  # a count of lines is about the one command it follows, on its inputs
            output, input_rel = _files(run, desc, files)
            if output is None or not _fits(desc, output):
                continue
            text = tools.read_output(output, MAX_BYTES) or ""
            input_text = tools.read_file(input_rel, MAX_BYTES) if input_rel else None
            truncated = len(text) >= MAX_BYTES or bool(input_text and len(input_text) >= MAX_BYTES)
            check = check_described(desc, output, text, input_rel or "", input_text, truncated)
            record = {"check": "output described in the documentation", "command": run["cmd"],
                      "description": desc.to_dict(), "run": run.get("evidence"), **check.to_dict()}
            ev = tools.record_evidence("comparison", "described-output", record,
                                       f"`{run['cmd'][:60]}` wrote {output}; described shape: {check.verdict}",
                                       EvidenceLevel.E2 if check.verdict == "match" else EvidenceLevel.E1)
            evidence.append(ev.id)
            results.append({"command": run["cmd"], "output": output, "verdict": check.verdict,
                            "reason": check.reason, "sentence": desc.sentence,
                            "line": check.line(run["cmd"]) if check.verdict == "match" else
                            f"`{run['cmd'][:60]}` wrote {output}, not as described ({check.reason})"})
            break
    return results, evidence


__all__ = ["described_outputs"]
