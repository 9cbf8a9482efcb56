"""Fill placeholders from the documentation's own examples, then from sample inputs the artifact ships.

A placeholder at flag F (or positional slot P) of program X takes the value another documented command of X
passes at F (or P). A path-like placeholder with no concrete example takes the sample file the docs point to
("A sample trace is provided in input directory") or a file in examples/, sample*/, input/ of the right kind —
in their per-case sub-folders too (examples/nordic_ble/…), the one named by a value the command passes (`-v
nordic_ble`) first, never a README or the expected output beside an input (x.json beside x.bin). A placeholder that
names code to analyse (`my_code_repo`) with nothing of that kind shipped takes a small project written for the
purpose (inputs.py), which the run writes first.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ..shell import words
from .inputs import code_sample, names_code
from .model import Placeholder, Step
from .placeholders import GENERIC, _group_words, _pieces, usage_name
from .view import FileIndex, join

INTERPRETERS = re.compile(r"^(python[\d.]*|bash|sh|zsh|Rscript|julia|node|perl|ruby|java)$")
SAMPLE_DIRS = re.compile(r"(^|/)(examples?|samples?|sample[_\-]?\w*|inputs?|test[_\-]?data|demo|toy[_\-]?\w*|"
                         r"data)$", re.IGNORECASE)
SUBCOMMAND_PROGRAMS = {"docker", "docker-compose", "git", "conda", "mamba", "pip", "pip3", "uv", "poetry", "pipenv",
                       "npm", "yarn", "kubectl", "cargo", "go", "dotnet", "jupyter", "singularity", "apptainer", "aws",
                       "gcloud"}
DIR_WORDS = {"dir", "dirs", "directory", "folder", "repo", "repository", "project", "proj", "root", "package", "pkg"}
PATH_WORDS = DIR_WORDS | {"path", "paths", "file", "files", "filename", "fname", "input", "inputs", "trace", "data"}


DOC_FILE = re.compile(r"^(readme|license|licence|changelog|contributing|copying|notice)\b|\.(md|rst|html?|pdf)$|"
                      r"^\.", re.IGNORECASE)
OUTPUT_EXT = {".json", ".txt", ".out", ".log", ".csv", ".tsv", ".expected", ".res", ".yaml", ".yml", ".xml"}


@dataclass
class Slot:
    key: str
    flag: str | None
    position: int | None
    variadic: bool = False


@dataclass
class SamplePointer:
    path: str
    text: str
    source: str


def _layout(inner: str) -> tuple[str, list[str], dict[int, Slot]]:
    parts = _group_words(words(inner))
    if not parts:
        return "", parts, {}
    k = 0
    if INTERPRETERS.match(parts[0]):
        k = 1
        while k < len(parts) - 1 and parts[k].startswith("-"):
            k += 1
            if parts[k - 1] == "-m":
                break
    key = posixpath.basename(parts[min(k, len(parts) - 1)]) if parts else ""
    if k == 0 and len(parts) > 1 and re.fullmatch(r"[a-z][a-z\-]*", parts[1]) and not INTERPRETERS.match(parts[0]) \
            and parts[0] in SUBCOMMAND_PROGRAMS:
        k, key = 1, f"{parts[0]} {parts[1]}"
    slots: dict[int, Slot] = {}
    position, flag = 0, None
    for i in range(k + 1, len(parts)):
        word = parts[i]
        if not word:
            continue
        if word.startswith("-") and not re.fullmatch(r"-[\d.]+", word):
            flag = word.split("=", 1)[0]
            if "=" in word:
                slots[i] = Slot(key, flag, None)
                flag = None
            continue
        if flag:
            slots[i] = Slot(key, flag, None)
            flag = None
        else:
            variadic = "..." in word or bool(re.fullmatch(r"[\[<{]\w+s[\]>}]", word))
            slots[i] = Slot(key, None, position, variadic=variadic)
            position += 1
    return key, parts, slots


def _value_at(step: Step, slot: Slot) -> tuple[str | None, bool]:
    """The value a step passes at a slot, and whether that value is itself a placeholder there (None: unusable)."""
    key, parts, slots = _layout(step.inner)
    if key != slot.key:
        return None, False
    marked = {p.index for p in step.placeholders}
    unusable = {p.index for p in step.placeholders if not re.match(r"(generic|the documentation)", p.reason)}
    for i, other in slots.items():
        if slot.flag and other.flag == slot.flag or slot.position is not None and other.position == slot.position:
            value = parts[i].split("=", 1)[1] if parts[i].startswith("-") and "=" in parts[i] else parts[i]
            if slot.variadic and slot.position is not None:  # a variadic slot is positional
                rest = [j for j, s in slots.items() if s.position is not None and s.position >= slot.position]
                value = " ".join(parts[j] for j in sorted(rest))
                return value, any(j in marked for j in rest)
            return (None, False) if i in unusable else (value, i in marked)
    return None, False


def fill_all(steps: list[Step], index: FileIndex, samples: list[SamplePointer]) -> None:
    for step in steps:
        if not step.placeholders:
            continue
        _, _, slots = _layout(step.inner)
        for ph in step.placeholders:
            _fill_one(step, ph, slots.get(ph.index), steps, index, samples)


def _fill_one(step: Step, ph: Placeholder, slot: Slot | None, steps: list[Step], index: FileIndex,
              samples: list[SamplePointer]) -> None:
    example = None
    if slot:
        for donor in steps:
            if donor is step or not donor.documented:
                continue
            value, is_placeholder = _value_at(donor, slot)
            if not value or usage_name(value) or value.startswith(("$(", "`")):
                continue
            if not is_placeholder:
                ph.resolved = _concrete(value, donor.cwd, index, _path_like(ph.token, slot))
                ph.fill = _relative(join(donor.cwd, value), step.cwd) if ph.resolved and donor.cwd != step.cwd and \
                    index.exists(join(donor.cwd, value)) else value
                ph.reason = f"value documented in {donor.source}" + ("" if ph.resolved else f"; {value} is not in the "
                                                                                              "artifact")
                return
            example = example or (value, donor.source)
    hint = " ".join([ph.token, example[0] if example else "", slot.flag or "" if slot else ""])
    found = _from_artifact(hint, index, samples, _context(step, ph)) if _path_like(hint, slot) else None
    if found:
        ph.fill, ph.resolved, ph.reason = _relative(found[0], step.cwd), True, found[1]
    elif (made := _written_input(ph, example, slot, index)) is not None:
        folder, ph.written = made
        ph.fill, ph.resolved = _relative(folder, step.cwd), True
        ph.reason = (f"names code to analyse and the artifact ships none: a small Python project written for the "
                     f"purpose ({folder}/)")
    elif example:
        ph.fill, ph.resolved = example[0], False
        ph.reason = f"documented example in {example[1]} is itself a placeholder ({example[0]} is not in the artifact)"
    else:
        ph.reason = f"{ph.reason}; no documented example or sample input fits"


def _written_input(ph: Placeholder, example: tuple[str, str] | None, slot: Slot | None,
                   index: FileIndex) -> tuple[str, dict[str, str]] | None:
    """A project written for the purpose, for a placeholder of a program's argument that names code to analyse."""
    hint = " ".join([ph.token, example[0] if example else ""])
    pieces = [re.sub(r"^(my|your)(?=[a-z]{3,})", "", p) for p in _pieces(hint.replace(" ", "/"))]
    if slot is None or slot.key in SUBCOMMAND_PROGRAMS or slot.key.split()[0] in SUBCOMMAND_PROGRAMS \
            or not names_code(pieces, ph.token):
        return None
    return code_sample(index)


def _relative(path: str, cwd: str) -> str:
    return path if cwd in ("", ".") else posixpath.relpath(path, cwd)


def _concrete(value: str, cwd: str, index: FileIndex, path_wanted: bool = False) -> bool:
    looks_path = "/" in value or re.search(r"\.[A-Za-z]{1,5}$", value) and not re.fullmatch(r"[\d.]+", value)
    if not looks_path and not path_wanted:
        return True
    rel = value.strip("'\"")
    return index.exists(join(cwd, rel)) or index.exists(rel) or bool(index.named(posixpath.basename(rel)))


def _path_like(hint: str, slot: Slot | None) -> bool:
    pieces = set(_pieces(hint.replace(" ", "/")))
    mine = re.search(r"(^|\s)(my|your)[_\-]?[a-z]{3,}", hint, re.IGNORECASE)
    return bool(pieces & PATH_WORDS) or "/" in hint or bool(re.search(r"\.\w{2,5}\b", hint)) or bool(mine)


def _topic(hint: str) -> tuple[list[str], str | None, bool]:
    pieces = _pieces(hint.replace(" ", "/"))
    ext = next((m.group(1).lower() for m in re.finditer(r"\.([A-Za-z][\w]{1,4})\b", hint)), None)
    pieces = [re.sub(r"^(my|your)(?=[a-z]{3,})", "", p) for p in pieces]
    topic = [p for p in pieces if p not in GENERIC and len(p) >= 3 and not p.startswith("-")]
    topic = [re.sub(r"(file|folder|dir|path|name)$", "", p) or p for p in topic]
    topic = [t[:-1] if len(t) > 4 and t.endswith("s") and not t.endswith("ss") else t for t in topic]
    wants_dir = bool(set(pieces) & DIR_WORDS) and not ext
    return [t for t in topic if len(t) >= 3], ext, wants_dir


def _folder_rank(folder: str) -> tuple[int, int, str]:
    name = folder.rsplit("/", 1)[-1].lower()
    kind = 2 if name == "data" else 1 if name.startswith("test") else 0
    return kind, folder.count("/"), folder


def _context(step: Step, ph: Placeholder) -> list[str]:
    """The other values the command passes (`-v nordic_ble`), lower-cased: they say which sample fits."""
    key, parts, slots = _layout(step.inner)
    values = [parts[i].split("=", 1)[-1] for i in slots if i != ph.index and parts[i]]
    marked = {p.token for p in step.placeholders}
    return [v.lower() for v in values if len(v) >= 3 and v not in marked and not re.fullmatch(r"[\d.]+", v)]


def _is_doc(path: str) -> bool:
    return bool(DOC_FILE.search(posixpath.basename(path)))


def _expected_output(path: str, files: list[str]) -> bool:
    """A result file beside an input of the same name (`x.json` beside `x.bin`): the example's expected output."""
    stem, ext = posixpath.splitext(path)
    return ext.lower() in OUTPUT_EXT and any(posixpath.splitext(f)[0] == stem and posixpath.splitext(f)[1].lower()
                                             not in OUTPUT_EXT and not _is_doc(f) for f in files if f != path)


def _rank(files: list[str], context: list[str]) -> list[str]:
    """Sample inputs best first: named by a value the command passes, then not an expected output, then shallow."""
    def key(path: str) -> tuple[int, bool, int, str]:
        stem = posixpath.splitext(posixpath.basename(path))[0].lower()
        named = 0 if stem in context else 1 if any(c in path.lower() for c in context) else 2
        return named, _expected_output(path, files), path.count("/"), path
    return sorted((f for f in files if not _is_doc(f)), key=key)


def _under(folder: str, index: FileIndex) -> list[str]:
    """Files in a sample folder, or in its sub-folders (one per case: examples/nordic_ble/…) when it has none."""
    direct = index.files_in(folder)
    if [f for f in direct if not _is_doc(f)]:
        return direct
    prefix = "" if folder == "." else folder + "/"
    return [f for f in index.files if f.startswith(prefix) and f.count("/") - prefix.count("/") <= 2]


def _from_artifact(hint: str, index: FileIndex, samples: list[SamplePointer],
                   context: list[str] | None = None) -> tuple[str, str] | None:
    topic, ext, wants_dir = _topic(hint)
    pointed = [(s.path, f"sample input the docs point to ({s.source})") for s in samples]
    if wants_dir:
        pointed = [(p if index.is_dir(p) else posixpath.dirname(p) or ".", why) for p, why in pointed]
    folders = sorted((d for d in index.dirs if SAMPLE_DIRS.search(d) and d.count("/") <= 2), key=_folder_rank)
    for path, why in pointed + [(d, f"{d}/ in the artifact") for d in folders]:
        if wants_dir:
            if path != "." and index.is_dir(path):
                return path, why
            continue
        files = [path] if index.is_file(path) else sorted(_under(path, index))
        files = _rank([f for f in files if not ext or f.lower().endswith("." + ext)], context or [])
        ranked = [f for f in files if any(t in posixpath.basename(f).lower() for t in topic)] if topic else files
        if ranked:
            return ranked[0], why
    for t in topic:
        hits = [f for f in index.files if len(t) >= 4 and t in posixpath.basename(f).lower()
                and (not ext or f.endswith("." + ext))]
        if hits and not wants_dir:
            best = min(hits, key=lambda f: (f.count("/"),
                                            not re.search(r"default|example|sample", f, re.IGNORECASE), f))
            return best, f"artifact file named like {t!r}"
    return None
