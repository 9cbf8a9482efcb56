"""Steps of command-line tools: echo/printf (literal text), display tools (cat, head, sed, awk, jq ...), copies,
unpacking, downloads and PDF text extractors, with the files each reads and writes."""
from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import replace

from . import tools as T
from .commands import Call, _step, compute, emit, silent
from .context import Context
from .literals import text_source
from .model import Source
from .packed import DECODER_FILES, decodes, escaped, unescape, unpacked_text
from .paths import is_pathlike, normalize, path_kind, words


def _echo(ctx: Context, call: Call) -> list[int]:
    args = [a for a in call.argv[1:] if not re.fullmatch(r"-[neE]+", a)]
    text = " ".join(args)
    how = call.argv[0]
    if escaped(text):  # `printf '\x30\x2e\x34'`: the script's own characters, spelled as escapes
        text, how = unescape(text), f"{how} (characters written as escapes)"
    text = text.replace("\\n", "\n").replace("\\t", "\t")
    src = text_source(text, how)
    sources = ([src] if src else []) + [s.model_copy(update={"use": "display"}) for s in call.stdin]
    step = _step(call, sources=sources, neutral=not sources, program=call.argv[0])
    return emit(ctx, call, step)


def file_args(args: list[str], cwd: str, ctx: Context, valued: AbstractSet[str] = frozenset(),
              skip_first: bool = False) -> list[str]:
    """Words of `args` that name files or folders (options and their values skipped)."""
    out, i, first = [], 0, skip_first
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            opt, eq, val = a.partition("=")
            if opt in valued and not eq:
                i += 2
                continue
            if eq and is_pathlike(val):
                out.append(normalize(val, cwd))
            i += 1
            continue
        if first:
            first = False
        elif is_pathlike(a) or ctx.exists(normalize(a, cwd)) or named_folder(a):
            out.append(normalize(a, cwd))
        i += 1
    return out


def named_folder(word: str) -> bool:
    """A bare word that names a results or data folder (`runs`, `raw`, `benchmarkingset-rc2-results`)."""
    if not re.fullmatch(r"[\w.-]+", word) or len(word) < 3:
        return False
    kind = path_kind(word + "/x.csv")
    return kind == "results" or bool({"data", "dataset", "datasets", "inputs"} & set(words(word)))


def _display(ctx: Context, call: Call, prog: str) -> list[int]:
    valued = T.TOOL_VALUE_OPTS.get(prog, set()) | set(DECODER_FILES.get(prog, {}))
    program_first = prog in T.PROGRAM_FIRST and not any(a in ("-e", "-f") for a in call.argv[1:])
    paths = file_args(call.argv[1:], call.cwd, ctx, valued, skip_first=program_first)
    named = decoder_files(prog, call.argv, call.cwd)
    paths += named["in"]
    use = "derive" if T.derives(prog, call.argv) else "display"
    ops = T.derive_ops(prog, call.argv) if use == "derive" else []
    writes: list[str] = []
    if prog == "tee":
        writes, paths = paths, []
    if prog == "sed" and any(a.startswith("-i") for a in call.argv[1:]):
        writes = list(paths)
    writes += named["out"]
    sources = [Source(kind="file", ref=p, use=use, how=prog, ops=ops) for p in paths]
    if prog in ("cat", "tee") and call.stdin_text is not None:
        target = call.out_file if prog == "cat" else (paths[0] if paths else None)
        if target and path_kind(normalize(target, call.cwd)) == "code":
            ctx.written_code[normalize(target, call.cwd)] = call.stdin_text
    if not paths:
        sources = [s.model_copy(update={"use": use, "ops": ops} if use == "derive" else {}) for s in call.stdin]
        if call.stdin_text is not None and decodes(prog, call.argv):
            sources.append(unpacked_text(call.stdin_text, prog))
        elif call.stdin_text is not None:
            src = text_source(_without(call.stdin_text, ctx.given), f"{prog} of a here-document")
            sources += [src] if src else []
        if call.stdin_file:
            sources.append(Source(kind="file", ref=normalize(call.stdin_file, call.cwd), use=use, how=prog, ops=ops))
    if prog in ("pandoc",) and any(path_kind(p) == "paper" for p in paths):
        ctx.reading.paper.append(f"pandoc converts {', '.join(p for p in paths if path_kind(p) == 'paper')}")
        sources = [Source(kind="paper", ref=p, how=prog) for p in paths]
    step = _step(call, sources=sources, writes=writes, program=prog, role="display", neutral=not sources)
    return emit(ctx, call, step)


def _copy(ctx: Context, call: Call, prog: str) -> list[int]:
    paths = file_args(call.argv[1:], call.cwd, ctx, {"-t", "--target-directory", "-S", "--suffix", "bs", "-e"})
    if prog == "dd":
        paths = [normalize(a[3:], call.cwd) for a in call.argv[1:] if a.startswith(("if=", "of="))]
    if len(paths) < 2:
        return emit(ctx, call, _step(call, neutral=True, program=prog))
    sources = [Source(kind="file", ref=p, use="display", how=prog) for p in paths[:-1]]
    step = _step(call, sources=sources, writes=[paths[-1]], program=prog, role="display")
    return emit(ctx, call, step)


def _unpack(ctx: Context, call: Call, prog: str) -> list[int]:
    args = call.argv[1:]
    paths = file_args(args, call.cwd, ctx, {"-C", "-d", "--directory", "-o", "-f", "--file"})
    flagged = [normalize(args[i + 1], call.cwd) for i, a in enumerate(args[:-1]) if a in ("-f", "--file")]
    archives = flagged or [p for p in paths if path_kind(p) == "archive"]
    if prog in ("gzip", "bzip2", "xz", "zstd") and not any(a.startswith("-") and "d" in a for a in args):
        return emit(ctx, call, _step(call, neutral=True, program=prog))  # compressing, not unpacking
    dest = next((normalize(args[i + 1], call.cwd) for i, a in enumerate(args[:-1])
                 if a in ("-C", "-d", "--directory")), None)
    writes = []
    for a in archives:
        stem = re.sub(r"\.(tar\.gz|tar\.xz|tar\.bz2|tgz|zip|tar|gz|bz2|xz|7z|zst|rar)$", "", a, flags=re.IGNORECASE)
        writes.append(stem if dest is None else dest)
    if not archives and call.stdin:
        return emit(ctx, call, _step(call, sources=list(call.stdin), program=prog, role="display"))
    to_stdout = any(a in ("-c", "--stdout", "-p", "-O", "--to-stdout")
                    or (a.startswith("-") and "O" in a and prog == "tar") for a in args)
    members = _members(args, archives, call.cwd) if to_stdout else []
    sources = [Source(kind="file", ref=m, use="display", how=f"{prog} (archive member)") for m in members] or \
        [Source(kind="file", ref=a, use="display", how=f"{prog} (unpacked)") for a in archives]
    step = _step(call, sources=sources, writes=[] if to_stdout else writes, program=prog, role="display",
                 neutral=not sources)
    return emit(ctx, call, step) if to_stdout else silent(ctx, step)


def _fetch(ctx: Context, call: Call, prog: str) -> list[int]:
    urls = [a for a in call.argv[1:] if "://" in a or a.startswith(("s3:", "gs:", "doi:"))]
    args = call.argv[1:]
    out = next((normalize(args[i + 1], call.cwd) for i, a in enumerate(args[:-1])
                if a in ("-O", "-o", "--output", "--output-document")), None)
    if not urls:
        return emit(ctx, call, _step(call, neutral=True, program=prog))
    sources = [Source(kind="file", ref=u, use="display", how=f"{prog} (download)") for u in urls]
    writes = [out] if out and out != "-" else [normalize(u.rstrip("/").rsplit("/", 1)[-1].split("?")[0], call.cwd)
                                               for u in urls]
    to_stdout = out == "-" or (prog == "curl" and out is None and "-O" not in args)
    step = _step(call, sources=sources, writes=[] if to_stdout else writes, program=prog, role="display")
    return emit(ctx, call, step) if to_stdout else silent(ctx, step)


def _paper(ctx: Context, call: Call, prog: str) -> list[int]:
    paths = file_args(call.argv[1:], call.cwd, ctx, {"-f", "-l", "-enc", "-opw", "-upw", "-r", "-x", "-y", "-W", "-H"})
    inputs = [p for p in paths if path_kind(p) in ("paper", "results", "unknown", "data")][:1] or paths[:1]
    kind = path_kind(inputs[0]) if inputs else "unknown"
    if kind == "data" or (ctx.in_artifact_code and kind != "paper"):  # the artifact's own processing of PDF data
        return compute(ctx, call, prog, call.argv[1:])
    writes = [p for p in paths[1:] if p != "-" and path_kind(p) != "device"]
    if kind == "results":  # the artifact's results document (`Evaluation/results.pdf`), not the paper: its text
        src = Source(kind="file", ref=inputs[0], use="display", how=f"{prog} (text of a stored results document)")
        step = _step(call, sources=[src], writes=writes, program=prog, role="display")
        return emit(ctx, call, step) if not writes else silent(ctx, step)
    ctx.reading.paper.append(f"{prog} {' '.join(inputs)}".strip())
    step = _step(call, sources=[Source(kind="paper", ref=inputs[0] if inputs else "", how=prog)], writes=writes,
                 program=prog, role="display")
    return emit(ctx, call, step) if not writes else silent(ctx, step)


def framework(ctx: Context, call: Call, prog: str, what: str) -> list[int]:
    """A reproduction framework's subcommand: `format` shows the values of the execution output it is given in the
    masked template's layout; `get` downloads the artifact (code, data and whatever results it ships)."""
    name = f"{prog} {call.argv[1]}"
    if what != "format":
        return silent(ctx, _step(call, neutral=True, program=name))
    args = call.argv[2:]
    sources: list[Source] = []
    i = 0
    while i < len(args):
        opt, eq, val = args[i].partition("=")
        value = val if eq else (args[i + 1] if i + 1 < len(args) and args[i].startswith("-") else "")
        if args[i].startswith("-") and value:
            use = "template" if opt in T.FORMAT_TEMPLATE_OPTS else "display"
            sources.append(Source(kind="file", ref=normalize(value, call.cwd), use=use, how=name))
            i += 1 if eq else 2
            continue
        if not args[i].startswith("-") and is_pathlike(args[i]):
            sources.append(Source(kind="file", ref=normalize(args[i], call.cwd), use="display", how=name))
        i += 1
    sources += [s.model_copy(update={"use": "display"}) for s in call.stdin]
    if not any(s.use != "template" for s in sources):
        sources.append(Source(kind="unknown", how=f"{name} is given no execution output the reader can follow"))
    return emit(ctx, call, _step(call, sources=sources, program=name, role="display"))


def container_copy(ctx: Context, call: Call, argv: list[str]) -> list[int]:
    """`docker cp NAME:/in/container host/path` (or the other way): a copy between the two file systems."""
    words_ = [a for a in argv[2:] if not a.startswith("-")]
    paths = [a.split(":", 1)[1] if re.match(r"^[\w.-]+:/", a) else a for a in words_]
    if len(paths) < 2:
        return emit(ctx, call, _step(call, neutral=True, program="docker cp"))
    inside = re.match(r"^([\w.-]+):/", words_[0])
    if inside and not call.container:  # it reads in that container: what a program there wrote is there to read
        call = replace(call, container=inside.group(1))
    sources = [Source(kind="file", ref=normalize(p, call.cwd), use="display", how="docker cp") for p in paths[:-1]]
    step = _step(call, sources=sources, writes=[normalize(paths[-1], call.cwd)], program="docker cp", role="display")
    return silent(ctx, step)


def sql_query(ctx: Context, call: Call, prog: str) -> list[int]:
    """A query to a database server (`psql -d crates -c "SELECT status, COUNT(*) ..."`): its values are what the
    database stores, aggregated when the query counts, sums or averages."""
    args = call.argv[1:]
    db = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in T.SQL_DB_OPTS), None)
    db = db or next((a.split("=", 1)[1] for a in args if a.startswith("--dbname=")), None) or "?"
    use = "derive" if T.derives(prog, call.argv) or (call.stdin_text and T.derives("sqlite3", ["", call.stdin_text])) \
        else "display"
    sources = [Source(kind="file", ref=f"database:{db}", use=use, how=f"{prog} query")]
    return emit(ctx, call, _step(call, sources=sources, program=prog, role="display"))


def _members(args: list[str], archives: list[str], cwd: str) -> list[str]:
    """`unzip -p a.zip run/metrics.txt`, `tar -xOf a.tgz out/t3.csv`: the members printed, as paths inside the
    archive (`a.zip/run/metrics.txt`), so their names say what they hold."""
    if len(archives) != 1:
        return []
    words_ = [a for i, a in enumerate(args) if not a.startswith("-") and not (i and args[i - 1] in ("-f", "--file",
                                                                                                    "-C", "-d"))]
    names = [w for w in words_ if normalize(w, cwd) != archives[0] and not any(ch in w for ch in "*?[")]
    return [archives[0].rstrip("/") + "/" + w.lstrip("./") for w in names if is_pathlike(w)]


def _without(text: str, given: AbstractSet[str]) -> str:
    """The text without the numbers a masked template already shows (and without the template's masks)."""
    if not given:
        return text
    from .literals import NUMBER

    return NUMBER.sub(lambda m: " " if m.group(0).strip() in given else m.group(0), text)


def listing(ctx: Context, call: Call, prog: str) -> list[int]:
    """`ls dir | wc -l`, `find dir -name '*.json' | xargs cat`: the files of a folder, passed on to what counts them
    or shows them."""
    args = call.argv[1:]
    if prog == "find":
        folders = [a for a in args[:next((i for i, a in enumerate(args) if a.startswith(("-", "(", "!"))), len(args))]]
    else:
        folders = [a for a in args if not a.startswith("-")]
    paths = [normalize(a, call.cwd) for a in folders] or ([call.cwd] if call.cwd else [])
    sources = [Source(kind="file", ref=p, use="display", how=f"{prog} (the files it lists)") for p in paths
               if path_kind(p) in ("results", "data") and p.strip("/.")]  # not `find / -name x`: a search
    return emit(ctx, call, _step(call, sources=sources, program=prog, role="display", neutral=not sources))


def decoder_files(prog: str, argv: list[str], cwd: str) -> dict[str, list[str]]:
    """The files a decoder is told to read and write by options (`openssl base64 -d -in a -out b`, `uudecode -o b`)."""
    found: dict[str, list[str]] = {"in": [], "out": []}
    opts = DECODER_FILES.get(prog, {})
    for i, a in enumerate(argv[1:-1], 1):
        if a in opts:
            found[opts[a]].append(normalize(argv[i + 1], cwd))
    return found
