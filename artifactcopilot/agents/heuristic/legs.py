"""D3 on the route: the documented commands in the route's order, the prose's prerequisites done first (a value edited
as the documentation asks, a service started in the background and waited for), a command whose documented cost
does not fit what is left of the phase skipped or run reduced, and the output a command wrote before its time limit
kept as partial evidence."""
from __future__ import annotations

import json
import posixpath
import re
import shlex

from ...discovery import Prerequisite, Step
from ...discovery.reduce import MIN_FULL, reduced_value
from ...interventions import Action
from ...route import Leg, Route
from ...tools import CommandResult, PhaseTools

SERVICE_WAIT_S = 60
"""How long a documented service may take to come up before the command runs anyway (the wait is logged)."""
SERVICE_GRACE_S = 5
"""The wait for a service whose documentation names neither a port, a socket nor a file."""
PARTIAL_EXT = (".pdf", ".png", ".svg", ".jpg", ".jpeg", ".eps", ".csv", ".tsv", ".json", ".txt", ".tex", ".dat",
               ".out", ".res", ".pkl", ".npy", ".html", ".xlsx")


def route_of(d1_facts: dict) -> Route:
    return Route.from_dict(d1_facts.get("route"))


def in_route_order(steps: list[Step], route: Route) -> list[Step]:
    """The chosen steps in the route's order (a step the route does not rank keeps its place after those it does)."""
    rank = {leg.step: leg.rank for leg in route.legs}
    return sorted(steps, key=lambda s: (rank.get(s.order, 10**6), s.order))


def over_budget(leg: Leg | None, left: float, reducible: bool = False) -> str | None:
    """Why a command is not started: its documented cost is more than twice what is left of the phase and neither
    the documentation nor the review (`reducible`: its driver has a work-amount knob) can make it smaller."""
    if leg is None or leg.cost_s is None or leg.cost_s <= 2 * max(left, 1.0) or leg.quick or leg.reductions \
            or reducible:
        return None
    return (f"skipped: {leg.cost_words()} is beyond the {left:.0f} s left of the phase"
            + (f" (it would cover {', '.join(leg.objects[:4])})" if leg.objects else ""))


def apply_edits(tools: PhaseTools, route: Route, done: set[str]) -> list[dict]:
    """The edits the documentation asks for, made once before the first command they precede (I2, with the value);
    an edit with no value given is left as it is and said."""
    out = []
    for pre in route.prerequisites:
        if pre.kind != "edit" or not pre.applies_to or _key(pre) in done:
            continue
        done.add(_key(pre))
        if not pre.value:
            out.append({"edit": pre.describe(), "source": pre.source, "ok": None,
                        "note": "not made: the documentation gives no value; the file is run as shipped"})
            continue
        script = _edit_script(pre)
        res = tools.run_setup(script, Action("edit", f"set {pre.name} = {pre.value} in {pre.file}", documented=True,
                                             target=pre.file),
                              f"an edit the documentation asks for ({pre.source}: \"{pre.text[:160]}\")",
                              network=False, timeout=60)
        out.append({"edit": pre.describe(), "source": pre.source, "ok": res.record.ok, "evidence": res.evidence.id,
                    "note": (res.record.stdout or res.record.stderr).strip()[-200:]})
    return out


def documented_reduction(tools: PhaseTools, leg: Leg | None, script: str, share: float | None,
                         own: str | None = None) -> tuple[str, str] | None:
    """The documentation's own smaller setting of a command whose full run has no stated cost or one beyond its
    share of the phase: (the command to run, the RW5 text). Options the docs give are added to the command; a value
    the docs say to lower in a file (or in the command's own script or notebook, `own`) is lowered there first
    (logged, I1)."""
    if leg is None or not leg.reductions or leg.quick or "\n" in script:
        return None
    if leg.cost_s is not None and share is not None and leg.cost_s <= share:
        return None  # the full run fits: run it
    for pre in leg.reductions:
        if pre.command:
            return f"{script} {pre.command}", (f"RW5-reduced: the documentation's smaller setting `{pre.command}` "
                                               f"({pre.source})")
        lowered = _lower(tools, pre, pre.file or own or "")
        if lowered:
            return script, lowered
    return None


LOWER_PROGRAM = r"""import json, re, sys
path, name, value = sys.argv[1:4]
rx = re.compile(r"^(\s*" + re.escape(name) + r"\s*[:=]\s*)(int\()?([\d_.eE+]+)", re.M)
text = open(path, encoding="utf-8", errors="replace").read()
if path.endswith(".ipynb"):
    nb = json.loads(text)
    done = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            source = "".join(cell.get("source", []))
            new, n = rx.subn(lambda m: m.group(1) + (m.group(2) or "") + value, source, count=1)
            if n:
                cell["source"], done = new.splitlines(keepends=True), done + n
                break
    if not done:
        print(f"{name} is not set in {path}"); sys.exit(3)
    open(path, "w", encoding="utf-8").write(json.dumps(nb, indent=1))
else:
    new, n = rx.subn(lambda m: m.group(1) + (m.group(2) or "") + value, text, count=1)
    if not n:
        print(f"{name} is not set in {path}"); sys.exit(3)
    open(path, "w", encoding="utf-8").write(new)
print(f"{path}: {name} = {value}")
"""


def _full_value(text: str, name: str, notebook: bool) -> int | None:
    """The whole number a script (or a notebook's code) sets `name` to, e.g. `RD = 100000000` or `int(1e6)`."""
    if notebook:
        try:
            text = "\n".join("".join(c.get("source", [])) for c in json.loads(text).get("cells", [])
                             if c.get("cell_type") == "code")
        except (ValueError, AttributeError):
            return None
    match = re.search(rf"^\s*{re.escape(name)}\s*[:=]\s*(?:int\()?([\d_.eE+]+)", text, re.MULTILINE)
    try:
        value = float(match.group(1).replace("_", "")) if match else None
    except ValueError:
        return None
    return int(value) if value is not None and value.is_integer() else None


def _lower(tools: PhaseTools, pre: Prerequisite, path: str) -> str | None:
    full = _full_value(tools.read_file(path, 5_000_000) or "", pre.name, path.endswith(".ipynb")) if path else None
    if full is None or full < MIN_FULL:
        return None
    value = reduced_value(full)
    script = (f"python3 - {shlex.quote(path)} {shlex.quote(pre.name)} {value} <<'PY'\n{LOWER_PROGRAM}PY")
    res = tools.run_setup(script, Action("reduce", f"set {pre.name} = {value} in {path}", target=path),
                          f"the documentation's way to run smaller ({pre.source}: \"{pre.text[:160]}\")",
                          network=False, timeout=60)
    if not res.record.ok:
        return None
    return (f"RW5-reduced: {pre.name} in {path} set to {value} instead of {full}, as the documentation offers "
            f"({pre.source})")


def _key(pre: Prerequisite) -> str:
    return f"{pre.kind}:{pre.file}:{pre.name}:{pre.command}"


EDIT_PROGRAM = r"""import re, sys
path, name, value = sys.argv[1:4]
text = open(path, encoding="utf-8", errors="replace").read()
quoted = value if re.fullmatch(r"[-+]?[\d.eE]+|True|False|None|true|false|null|['\"\[{(].*", value) else repr(value)
pattern = re.compile(r"^(\s*" + re.escape(name) + r"\s*)([:=])(\s*)(.*?)(\s*(#.*)?)$", re.M)
match = pattern.search(text)
if not match:
    print(f"{name} is not assigned in {path}: nothing edited"); sys.exit(3)
old = match.group(4)
text = text[:match.start(4)] + quoted + text[match.end(4):]
open(path, "w", encoding="utf-8").write(text)
print(f"{path}: {name} {old} -> {quoted}")
"""


def _edit_script(pre: Prerequisite) -> str:
    return (f"python3 - {shlex.quote(pre.file)} {shlex.quote(pre.name)} {shlex.quote(pre.value)} <<'PY'\n"
            f"{EDIT_PROGRAM}PY")


def with_services(script: str, cwd: str, leg: Leg | None) -> tuple[str, str]:
    """The command with the services the documentation starts before it: each started in the background (its output
    kept under .copilot/) and waited for — until its port answers, its socket or file exists (at most
    SERVICE_WAIT_S), or SERVICE_GRACE_S when nothing says what shows it is up. ("", "") when there is none."""
    services = [p for p in (leg.prerequisites if leg else []) if p.kind == "service"]
    if not services:
        return script, ""
    lines, notes = [], []
    for n, pre in enumerate(services, 1):
        rel = posixpath.relpath(pre.cwd or ".", cwd or ".")
        log = posixpath.join(posixpath.relpath(".", cwd or ".") if cwd not in ("", ".") else ".",
                             f".copilot/service-{n}.log")
        start = pre.command if rel == "." else f"cd {shlex.quote(rel)} && {pre.command}"
        lines.append(f"mkdir -p {shlex.quote(posixpath.dirname(log))}; ( {start} ) > {shlex.quote(log)} 2>&1 &")
        lines.append(_wait(pre.ready))
        notes.append(f"`{pre.command}` started in the background first"
                     + (f", waited for {pre.ready} (at most {SERVICE_WAIT_S} s)" if pre.ready
                        else f", then {SERVICE_GRACE_S} s (the documentation names nothing that shows it is up)")
                     + f" ({pre.source})")
    return "\n".join(lines + [script]), "; ".join(notes)


def _wait(ready: str) -> str:
    kind, _, what = ready.partition(" ")
    if kind == "port" and what.isdigit():
        check = f"(exec 3<>/dev/tcp/127.0.0.1/{what}) 2>/dev/null"
    elif kind == "socket":
        check = f"[ -S {shlex.quote(what)} ]"
    elif kind == "file":
        check = f"[ -e {shlex.quote(what)} ]"
    else:
        return f"sleep {SERVICE_GRACE_S}"
    return f"for _ in $(seq 1 {SERVICE_WAIT_S}); do {check} && break; sleep 1; done"


def partial_files(res: CommandResult) -> list[str]:
    """The result files a run killed by its time limit wrote before it (non-empty, of a kind that holds results)."""
    rec = res.record
    if not rec.timed_out:
        return []
    return [f for f in rec.files_created + rec.files_modified
            if f.lower().endswith(PARTIAL_EXT) and not f.startswith(".copilot/") and not re.search(r"(^|/)\.", f)]


def completed_cells(text: str | None) -> list[str]:
    """For a notebook cut by its time limit: what its executed copy shows done ("3 of 9 code cells completed, 2 with
    figures"), as one line, when at least one code cell completed and none failed; else []."""
    try:
        cells = [c for c in json.loads(text or "{}").get("cells", []) if c.get("cell_type") == "code"]
    except (ValueError, AttributeError):
        return []
    done = [c for c in cells if c.get("execution_count") is not None]
    failed = any(o.get("output_type") == "error" for c in done for o in c.get("outputs", []))
    if not done or failed or not any(c.get("outputs") for c in done):
        return []
    figures = sum(any("image/png" in (o.get("data") or {}) for o in c.get("outputs", [])) for c in done)
    return [f"{len(done)} of {len(cells)} code cells completed" + (f", {figures} with figures" if figures else "")]
