"""What one documented command reads and writes, and the URLs it fetches: the edges of the step graph.

Read from the command line the way a reviewer reads it: a download's target (`wget -O/-P`, `curl -o/-O`,
`git clone URL DIR`, `gdown -O`, `zenodo_get -o`, `kaggle … -p`, `huggingface-cli download --local-dir`), an
unpack's archive and destination (`unzip -d`, `tar -C`, `gunzip`), a copy or move, a folder made, and the files a
script is given as arguments; for a script the command runs, the data files its text names (`open("data/x.csv")`,
`pd.read_csv(…)`, written ones when opened for writing or saved). Paths are relative to the artifact root.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from ..shell import pipelines, split_env, words
from .classify import classify
from .view import join, norm

URL = re.compile(r"^(?:https?|ftp)://\S+$", re.I)
DATA_EXT = re.compile(r"\.(csv|tsv|json|jsonl|txt|dat|npy|npz|pkl|pickle|parquet|feather|h5|hdf5|xlsx?|zip|tar|gz|tgz|"
                      r"xz|bz2|arff|mat|sqlite|db|xml|yaml|yml|pt|pth|bin|ckpt)$", re.I)
LITERAL = re.compile(r"""(?P<q>['"])(?P<path>[\w.\-/]{1,200}\.[A-Za-z][\w]{0,7})(?P=q)""")
WRITE_CONTEXT = re.compile(r"""(open\([^)]*['"][wa]b?\+?['"]|to_csv|to_json|to_parquet|savefig|savez?|dump|"""
                           r"""write_text|write_bytes|to_excel|>\s*$)""")
SCRIPT_EXT = (".py", ".sh", ".R", ".r", ".jl", ".pl", ".rb", ".js")
OUTPUT_FLAGS = ("-o", "--output", "--out", "--output-file", "--outfile", "--output-dir", "--out-dir", "--save",
                "--save-dir", "--results", "--result-dir")


@dataclass
class StepIO:
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    """Files or folders the command makes (a folder: everything under it)."""
    folders: list[str] = field(default_factory=list)
    """Empty folders it makes (`mkdir`): it makes none of the files later put in them."""
    urls: list[str] = field(default_factory=list)
    makes_unknown: bool = False
    """It writes files whose names the command line does not give (a download script, `zenodo_get` to cwd)."""


def _url_name(url: str) -> str:
    path = unquote(urlsplit(url).path).rstrip("/")
    return posixpath.basename(path) or urlsplit(url).hostname or "download"


def _opt(argv: list[str], *names: str) -> str | None:
    """The value of the first option of `names` ("-O x", "--output=x", "-Ox" for one-letter options)."""
    for i, word in enumerate(argv):
        for name in names:
            if word == name and i + 1 < len(argv):
                return argv[i + 1]
            if name.startswith("--") and word.startswith(name + "="):
                return word.split("=", 1)[1]
            if len(name) == 2 and word.startswith(name) and len(word) > 2 and not word.startswith("--"):
                return word[2:]
    return None


def _positional(argv: list[str], takes_value: tuple[str, ...] = ()) -> list[str]:
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in takes_value
        else:
            out.append(word)
    return out


def _download(argv: list[str], cwd: str, io: StepIO) -> None:
    prog = posixpath.basename(argv[0])
    urls = [w for w in argv if URL.match(w)]
    io.urls += urls
    rel = lambda p: join(cwd, p)  # noqa: E731
    if prog == "wget":
        target = _opt(argv, "-O", "--output-document")
        folder = _opt(argv, "-P", "--directory-prefix")
        io.writes += [rel(target)] if target and target != "-" else [
            rel(join(folder or ".", _url_name(u))) for u in urls]
        if (listing := _opt(argv, "-i", "--input-file")):
            io.reads.append(rel(listing))
            io.makes_unknown = True
    elif prog == "curl":
        target = _opt(argv, "-o", "--output")
        folder = _opt(argv, "--output-dir") or "."
        if target:
            io.writes.append(rel(join(folder, target)))
        elif any(w in ("-O", "--remote-name", "--remote-name-all") or re.match(r"^-[A-Za-z]*O[A-Za-z]*$", w)
                 for w in argv):
            io.writes += [rel(join(folder, _url_name(u))) for u in urls]
    elif prog == "git" and len(argv) > 1 and argv[1] == "clone":
        args = _positional(argv[2:], ("-b", "--branch", "--depth", "-o", "--origin", "-c", "--config"))
        if args:
            io.urls.append(args[0])
            io.writes.append(rel(args[1] if len(args) > 1 else _url_name(args[0]).removesuffix(".git")))
    elif prog in ("gdown", "zenodo_get", "kaggle", "huggingface-cli", "hf"):
        target = (_opt(argv, "-O", "--output") if prog == "gdown" else _opt(argv, "-o", "--output-dir")
                  if prog == "zenodo_get" else _opt(argv, "-p", "--path") if prog == "kaggle"
                  else _opt(argv, "--local-dir"))
        io.urls += urls or [w for w in _positional(argv[1:], ("-O", "-o", "-p", "-d", "-c", "--local-dir", "--output"))
                            if w not in ("download", "datasets", "competitions")][:1]
        if prog == "kaggle" and (name := _opt(argv, "-d", "--dataset", "-c", "--competition")):
            io.urls[-1:] = [f"https://www.kaggle.com/{'competitions/' if '/' not in name else 'datasets/'}{name}"]
        if target:
            io.writes.append(rel(target))
        else:
            io.makes_unknown = True
    elif prog in ("docker", "podman", "singularity", "apptainer") and len(argv) > 2 and argv[1] == "pull":
        image = (_positional(argv[2:])[-1:] or [""])[0]
        registry = image.split("/", 1)[0]
        named = "/" in image and ("." in registry or ":" in registry or registry == "localhost")
        io.urls.append(image if "://" in image else f"docker://{image if named else 'docker.io/' + image}")
    else:  # a download script, dvc, aws, rsync: what it writes is in its own text
        io.makes_unknown = True


def _unpack(argv: list[str], cwd: str, io: StepIO) -> bool:
    prog = posixpath.basename(argv[0])
    rel = lambda p: join(cwd, p)  # noqa: E731
    if prog == "unzip":
        args = _positional(argv[1:], ("-d", "-x"))
        if args:
            io.reads.append(rel(args[0]))
            io.writes.append(rel(_opt(argv, "-d") or "."))
        return True
    if prog == "tar" and any(re.match(r"^-?[A-Za-z]*x", w) or w == "--extract" for w in argv[1:2] + argv[1:]):
        archive = _opt(argv, "-f", "--file") or next((w for w in argv[1:] if re.search(r"\.(tar|tgz|gz|xz|bz2)$", w)),
                                                       None)
        if archive is None and len(argv) > 2 and re.match(r"^-?[A-Za-z]*f$", argv[1]):
            archive = argv[2]
        if archive:
            io.reads.append(rel(archive))
        io.writes.append(rel(_opt(argv, "-C", "--directory") or "."))
        return True
    if prog in ("gunzip", "unxz", "bunzip2") or prog in ("gzip", "xz", "bzip2") and "-d" in argv:
        for arg in _positional(argv[1:]):
            io.reads.append(rel(arg))
            io.writes.append(rel(re.sub(r"\.(gz|xz|bz2)$", "", arg)))
        return True
    return False


def _script_files(script_text: str) -> tuple[list[str], list[str]]:
    """(read, written) data files a script's text names as string literals."""
    reads: list[str] = []
    writes: list[str] = []
    for line in script_text.splitlines()[:5000]:
        for match in LITERAL.finditer(line):
            path = match.group("path")
            if not DATA_EXT.search(path) or path.startswith("/"):
                continue
            (writes if WRITE_CONTEXT.search(line[:match.start()]) else reads).append(norm(path))
    return list(dict.fromkeys(reads)), list(dict.fromkeys(writes))


def step_io(inner: str, kind: str, cwd: str = ".", read=None) -> StepIO:
    """Reads, writes and URLs of one documented command (`inner`: without runner prefix), run in `cwd`; `read(rel)`
    gives the text of an artifact file (to read a script the command runs), or None."""
    io = StepIO()
    parts = [p for p in pipelines(inner.strip()) if p.strip()]
    for part in parts:
        argv = words(split_env(part)[1])
        if not argv:
            continue
        prog = posixpath.basename(argv[0])
        if prog == "cd" and len(argv) > 1:
            cwd = join(cwd, argv[1])
            continue
        part_kind = classify(split_env(part)[1]) if len(parts) > 1 else kind
        scripted = prog in ("bash", "sh", "python", "python3") or argv[0].endswith(SCRIPT_EXT)
        if part_kind == "download" and not scripted:
            _download(argv, cwd, io)
            continue
        if _unpack(argv, cwd, io):
            continue
        if prog == "mkdir":
            io.folders += [join(cwd, a) for a in _positional(argv[1:])]
            continue
        if prog in ("cp", "mv") and len(_positional(argv[1:])) >= 2:
            args = _positional(argv[1:])
            io.reads += [join(cwd, a) for a in args[:-1]]
            io.writes.append(join(cwd, args[-1]))
            continue
        _program(argv, cwd, io, read)
        if part_kind == "download":
            io.makes_unknown = True
    io.reads = [p for p in dict.fromkeys(io.reads) if p not in io.writes]
    io.writes = list(dict.fromkeys(io.writes))
    return io


def _program(argv: list[str], cwd: str, io: StepIO, read) -> None:
    """A script run with its interpreter (or directly): the script, the file arguments, the files its text names."""
    script = next((w for w in argv[:3] if w.endswith(SCRIPT_EXT)), None)
    for i, word in enumerate(argv[1:], 1):
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if value.startswith("-") or "$" in value or "://" in value or value.startswith(("/", "~")):
            continue
        if ("/" in value or DATA_EXT.search(value) or value.endswith(SCRIPT_EXT)) and re.search(r"\.\w{1,8}$", value):
            (io.writes if argv[i - 1] in OUTPUT_FLAGS or word.startswith(OUTPUT_FLAGS) else io.reads).append(
                join(cwd, value))
    if script and read is not None:
        text = read(join(cwd, script))
        if text:
            r, w = _script_files(text)  # a script's relative paths are relative to where it runs
            io.reads += [join(cwd, p) for p in r]
            io.writes += [join(cwd, p) for p in w]
