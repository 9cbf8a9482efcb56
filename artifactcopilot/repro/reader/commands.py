"""One simple command (argv, redirections) as a step: what it reads, writes and outputs, and how.

Wrappers (docker run/exec, docker compose run, conda/poetry/uv run, timeout, env, sudo, xargs) are
looked through to the command they run. Interpreters and notebooks are handed to `programs.py`,
which reads the code they run (inline code always, artifact files when there is an artifact).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ... import shell as sh
from . import tools as T
from .context import Context
from .model import Source, Step
from .paths import is_pathlike, normalize, path_kind, role_of


@dataclass
class Call:
    """A simple command as the shell would run it."""

    argv: list[str]
    cwd: str = ""
    line: int = 0
    text: str = ""
    lang: str = "shell"
    stdin: list[Source] = field(default_factory=list)
    """What arrives on stdin from a pipe."""
    stdin_file: str | None = None
    stdin_text: str | None = None
    """Here-document or here-string text."""
    out_file: str | None = None
    stdout: bool = True
    """The command's stdout reaches the script's stdout (not piped, captured or discarded)."""
    tolerant: bool = False
    where: str | None = None
    """The artifact file the command is in (None: the submitted script)."""
    container: str = ""
    """The container the command runs in (docker run/exec), empty on the host."""
    mounted: bool | None = None
    """Whether that container sees host folders (a bind mount); None when the script does not show how it started."""


def _step(call: Call, **kw) -> Step:
    text = call.text or " ".join(call.argv)
    return Step(line=call.line, text=text[:200], lang=call.lang, cwd=call.cwd, tolerant=call.tolerant, where=call.where,
                container=call.container, isolated=call.mounted is False, **kw)


def emit(ctx: Context, call: Call, step: Step) -> list[int]:
    """Add a step with the call's stdout/stdin wiring; returns the indices whose output is the call's output."""
    if call.out_file:
        target = normalize(call.out_file, call.cwd)
        if path_kind(target) == "device":
            step.stdout = False
        else:
            step.writes.append(target)
            step.stdout = False
    else:
        step.stdout = call.stdout and not step.neutral
    ctx.reading.add(step)
    return [step.index]


def silent(ctx: Context, step: Step) -> list[int]:
    """Add a step whose output goes only to the files it writes."""
    step.stdout = False
    ctx.reading.add(step)
    return []


def _unwrap(argv: list[str], call: Call) -> list[str] | None:
    """The wrapped command of a wrapper invocation, or None when `argv` is not a wrapper."""
    prog = T.base(argv[0])
    if prog in T.SIMPLE_WRAPPERS or prog in ("timeout", "gtimeout"):
        if prog in ("timeout", "gtimeout"):
            call.tolerant = True
        rest = _skip_opts(argv[1:], T.VALUE_OPTS.get(prog, set()))
        if prog in ("timeout", "gtimeout", "taskset") and rest:
            rest = rest[1:]  # the duration / the CPU mask
        if prog == "hyperfine" and rest:
            return _words_of(rest[0])
        return rest
    if prog == "env":
        rest = _skip_opts(argv[1:], {"-u", "--unset", "-C", "--chdir", "-S"})
        while rest and re.match(r"^\w+=", rest[0]):
            rest = rest[1:]
        return rest
    if prog in T.RUNNER_WRAPPERS:
        subs = T.RUNNER_WRAPPERS[prog]
        rest = argv[1:]
        if prog == "nix-shell":
            i = rest.index("--run") if "--run" in rest else -1
            return _words_of(rest[i + 1]) if 0 <= i < len(rest) - 1 else []
        if subs and (not rest or rest[0] not in subs):
            return None
        return _skip_opts(rest[1:] if subs else rest, T.VALUE_OPTS.get(prog, set()) | {"-c", "--command"})
    if prog in ("docker", "podman", "nerdctl", "docker-compose", "podman-compose"):
        return _container(argv, call)
    if prog in ("singularity", "apptainer"):
        rest = argv[1:]
        if rest and rest[0] in ("exec", "run"):
            rest = _skip_opts(rest[1:], T.VALUE_OPTS["singularity"])
            return rest[1:] if rest else []
        return None
    if prog in ("srun", "mpirun", "mpiexec", "xargs", "parallel"):
        return _skip_opts(argv[1:], T.VALUE_OPTS.get(prog, set()))
    return None


def _container(argv: list[str], call: Call) -> list[str] | None:
    """docker run IMAGE CMD / docker exec NAME CMD / docker compose run SERVICE CMD -> CMD (with -w as the folder)."""
    rest = argv[1:]
    if T.base(argv[0]) in ("docker", "podman", "nerdctl") and rest[:1] == ["compose"]:
        rest = rest[1:]
    rest = _skip_opts(rest, {"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory"})
    if rest[:1] == ["logs"]:  # what the container's own program printed (its entry point, or the services)
        names = [a for a in rest[1:] if not a.startswith("-")]
        compose = "compose" in argv[1:2] or T.base(argv[0]).endswith("compose")
        if names and not compose:
            call.container = names[0]
        return ["docker-compose-up" if compose else "image-entrypoint"]
    if not rest or rest[0] not in ("run", "exec"):
        return [] if rest and rest[0] in ("build", "pull", "load", "start", "stop", "rm", "kill", "down",
                                          "create", "tag", "push", "images", "ps", "network", "volume") else \
            (["docker-compose-up"] if not _detached(rest) else []) if rest and rest[0] == "up" else None
    opts = rest[1:]
    entry: list[str] = []
    i, name, mounted = 0, "", False
    while i < len(opts) and opts[i].startswith("-"):
        opt, _, val = opts[i].partition("=")
        takes = opt in T.VALUE_OPTS["docker"] and not val
        value = opts[i + 1] if takes and i + 1 < len(opts) else val
        if opt in ("-w", "--workdir"):
            call.cwd = value
        elif opt == "--entrypoint":
            entry = _words_of(value)
        elif opt == "--name":
            name = value
        elif opt in ("-v", "--volume", "--mount") or opt.startswith("-v"):
            mounted = True
        i += 2 if takes else 1
    command = entry + opts[i + 1:]  # opts[i] is the image / container / service
    if not command and rest[0] == "run" and i < len(opts) and not _detached(rest):
        command = ["image-entrypoint"]  # the image's own command, in the foreground
    if rest[0] == "exec" and i < len(opts):
        call.container, call.mounted = opts[i], None
    elif rest[0] == "run" and T.base(argv[0]) in ("docker", "podman", "nerdctl") and i < len(opts):
        call.container, call.mounted = name or opts[i], mounted
    return command


def _detached(rest: list[str]) -> bool:
    return any(a in ("-d", "--detach") or re.fullmatch(r"-[a-ce-z]*d[a-z]*", a) for a in rest[1:])


def _skip_opts(args: list[str], valued: set[str]) -> list[str]:
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return args[i + 1:]
        i += 2 if args[i] in valued else 1
    return args[i:]


def _words_of(text: str) -> list[str]:

    try:
        return sh.split(text)
    except ValueError:
        return text.split()


def _unwrapped(ctx: Context, call: Call, argv: list[str]) -> list[str] | None:
    """The command wrappers run (`sudo docker exec c timeout 60 python ...` -> python ...); None when they run
    nothing that moves values (a neutral step is added)."""
    for _ in range(6):
        inner = _unwrap(argv, call)
        if inner is None:
            break
        if call.container and call.mounted is not None:
            ctx.mounts.setdefault(call.container, call.mounted)
        if not inner:
            ctx.reading.add(_step(call, neutral=True, program=argv[0]))
            return None
        argv = inner
        if call.container:  # what the script showed of how that container started
            call.mounted = ctx.mounts.get(call.container) if call.mounted is None else call.mounted
        while argv and re.match(r"^[A-Za-z_]\w*=", argv[0]):
            argv = argv[1:]
        if not argv:
            return None
    return argv


def command(ctx: Context, call: Call) -> tuple[list[int], str]:
    """Read one simple command; returns (indices of the steps that make its output, the folder after it)."""
    argv = [a for a in call.argv if a is not None]
    while argv and re.match(r"^[A-Za-z_]\w*=", argv[0]):
        name, _, value = argv[0].partition("=")
        if len(argv) == 1:
            ctx.shell_vars[name] = value
        argv = argv[1:]
    if not argv:
        return [], call.cwd
    from .toolsteps import container_copy, framework

    if T.base(argv[0]) in ("docker", "podman", "nerdctl") and argv[1:2] == ["cp"]:
        return container_copy(ctx, call, argv), call.cwd
    unwrapped = _unwrapped(ctx, call, argv)
    if unwrapped is None:
        return [], call.cwd
    argv = unwrapped
    call.argv = argv
    prog = T.base(argv[0])
    if prog in T.FRAMEWORK_TOOLS and argv[1:2] and argv[1] in T.FRAMEWORK_TOOLS[prog]:
        return framework(ctx, call, prog, T.FRAMEWORK_TOOLS[prog][argv[1]]), call.cwd
    if prog in ("cd", "pushd"):
        target = next((a for a in argv[1:] if not a.startswith("-")), "")
        return [], ("" if target in ("", "~", "/") else normalize(target, call.cwd))
    from .toolsteps import _copy, _display, _echo, _fetch, _paper, _unpack

    if prog in ("echo", "printf"):
        return _echo(ctx, call), call.cwd
    from .programs import program  # interpreters, notebooks, make, artifact programs

    handled = program(ctx, call, prog)
    if handled is not None:
        return handled, call.cwd
    if prog in ("ls", "find") and (call.out_file or not call.stdout):
        from .toolsteps import listing

        return listing(ctx, call, prog), call.cwd
    if prog in T.NEUTRAL:
        ctx.reading.add(_step(call, neutral=True, program=prog))
        return [], call.cwd
    if prog in T.PAPER:
        return _paper(ctx, call, prog), call.cwd
    if prog in T.SQL_CLIENTS:
        from .toolsteps import sql_query

        return sql_query(ctx, call, prog), call.cwd
    if prog in T.DISPLAY or prog == "tee":
        return _display(ctx, call, prog), call.cwd
    if prog in T.COPY:
        return _copy(ctx, call, prog), call.cwd
    if prog in T.UNPACK:
        return _unpack(ctx, call, prog), call.cwd
    if prog in T.FETCH:
        return _fetch(ctx, call, prog), call.cwd
    return compute(ctx, call, argv[0], argv[1:]), call.cwd


def compute(ctx: Context, call: Call, program: str, args: list[str], role: str | None = None) -> list[int]:
    """A program run: its name's role, the files it is given (inputs) and the files it is told to write."""
    reads, writes = _program_paths(ctx, call, args)
    already = bool(call.cwd) and program.startswith(call.cwd.rstrip("/") + "/")  # named from the root already
    name = normalize(program, "" if already else call.cwd) if "/" in program else program
    role = role or role_of(program)
    if role == "unknown" and "/" not in program and call.cwd and path_kind(program) == "code":
        role = role_of(normalize(program, call.cwd))  # `cd analysis && Rscript RQ3.R`: its folder's word
    if role == "aggregate":  # `--results-dir results/raw` is what a summary step reads
        moved = [w for w in writes if _input_like(args, w)]
        reads += moved
        writes = [w for w in writes if w not in moved]
    sources = [Source(kind="compute", ref=name, role=role, how="runs " + name)]
    sources += [Source(kind="file", ref=p, use="input", how=f"argument of {name}") for p in reads]
    sources += [s.model_copy(update={"use": "input"}) for s in call.stdin]
    if call.stdin_file:
        sources.append(Source(kind="file", ref=normalize(call.stdin_file, call.cwd), use="input",
                              how=f"stdin of {name}"))
    step = _step(call, sources=sources, writes=writes, program=name, role=role, implicit_writes=not writes)
    return emit(ctx, call, step)


def _input_like(args: list[str], path: str) -> bool:
    for i, a in enumerate(args):
        opt, eq, val = a.partition("=")
        value = val if eq else (args[i + 1] if i + 1 < len(args) else "")
        if value and path.endswith(value.strip("./").rstrip("/")) and T.INPUT_LIKE_OUTPUT_OPTS.match(opt):
            return True
    return False


def _program_paths(ctx: Context, call: Call, args: list[str]) -> tuple[list[str], list[str]]:
    from .toolsteps import named_folder

    reads: list[str] = []
    writes: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        opt, eq, val = a.partition("=")
        if a.startswith("-") and T.OUTPUT_OPTS.match(opt):
            value = val if eq else (args[i + 1] if i + 1 < len(args) else "")
            if value and not value.startswith("-"):
                path = normalize(value, call.cwd)
                kept = bool(call.out_file) or not call.stdout or bool(ctx.exists(path))
                (reads if kept and T.FORMAT_NAMED_OPTS.match(opt) else writes).append(path)
            i += 1 if eq else 2
            continue
        if a.startswith("-"):
            if eq and is_pathlike(val):
                reads.append(normalize(val, call.cwd))
            i += 1
            continue
        if (is_pathlike(a) or ctx.exists(normalize(a, call.cwd)) or named_folder(a)
                or _written(ctx, normalize(a, call.cwd))):
            reads.append(normalize(a, call.cwd))
        i += 1
    return reads, writes


def _written(ctx: Context, path: str) -> bool:
    """An earlier step declared it writes `path` (`--out sim` makes a later bare `sim` a folder)."""
    return bool(path) and any(path == w or w.startswith(path + "/") for s in ctx.reading.steps for w in s.writes)
