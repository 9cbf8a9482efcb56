"""From the script's outputs back to where their values come from: copy, last-mile, full or undetermined.

Rules (Artisan §2.5.2, read the way an AE reviewer reads a script):
- copy: an output shows stored results as they are (cat/cp/head/print of a checked-in results file,
  csv/json/txt or binary: .pkl .npy .parquet ...), a notebook's stored outputs, the paper (any PDF tool
  or library), or a table of numbers written in the script;
- last-mile: an output is computed (aggregated, parsed, plotted) from stored intermediate results
  that no step of the script produced;
- full: the outputs come from programs or code that run the experiment (training, benchmark,
  simulation, the artifact's own code over its input data), possibly through files those steps wrote;
- undetermined: nothing the script shows runs the experiment or reads anything (an opaque
  `./run.sh` without the artifact, a program whose name says it displays results).
The least trusted finding over all outputs wins. A file a later step reads is the output of the
step that declared it (`--out f`, `> f`, `tee f`); with the artifact, a file it does not hold must
have been made by an earlier program; without it, by the last earlier program that writes files it
does not name (Artisan Fig. 10), unless that program's failure is ignored.
"""
from __future__ import annotations

import re
from fnmatch import fnmatch

from .covers import covers as _covers
from .covers import experiment_options
from .covers import parameters as _parameters
from .inputs import InputKinds, input_mark, unpacked_results
from .literals import strong, weak
from .marks import Confidence, Mark, weak_enough
from .marks import loc as _loc
from .marks import member as _member
from .marks import spread_literals as _spread_literals
from .model import Reading, Source, Step
from .own import own_output
from .paths import holds_results, path_kind, words
from .tools import CONTAINER_ENTRIES, MODEL_PACKAGES, STATISTICS, UNPACK
from .trace import traces
from .verdict import FlowMethod, FlowVerdict

_RANK: dict[Confidence, int] = {"low": 0, "medium": 1, "high": 2}
_METHODS: tuple[tuple[str, FlowMethod], ...] = (("copy", "copy"), ("last", "last_mile"), ("full", "full"),
                                                 ("weak", "copy"))


class _Flow:
    def __init__(self, reading: Reading, files: list[str] | None, kinds: InputKinds | None = None):
        self.steps = reading.steps
        self.kinds = kinds or InputKinds()
        self.files = set(files) if files is not None else None
        self.dirs = {"/".join(f.split("/")[:i]) for f in self.files or () for i in range(1, f.count("/") + 1)}
        self.memo: dict[tuple[int, str], list[Mark]] = {}
        self.filled = any(src.use == "template" for st in self.steps for src in st.sources)
        """A format tool fills a masked table: what reaches it are exactly the values the table needs."""

    # ---- where a read path comes from
    def exists(self, path: str) -> bool | None:
        if self.files is None:
            return None
        p = path[2:] if path.startswith("./") else path.rstrip("/")
        if p in self.files or p in self.dirs:
            return True
        if any(p + ext in self.files for ext in (".gz", ".bz2", ".xz", ".zst", ".zip")):
            return True  # shipped compressed, unpacked before use
        if any(ch in p for ch in "*?["):
            return any(fnmatch(f, p) or fnmatch(d, p) for f in self.files for d in (f,))
        if p.startswith("/"):
            parts = p.strip("/").split("/")
            return any("/".join(parts[i:]) in self.files or "/".join(parts[i:]) in self.dirs for i in range(len(parts)))
        return False

    def shipped(self, path: str) -> bool:
        """The file comes with the artifact (with the artifact's files: it is among them; without: nothing made it)."""
        known = self.exists(path)
        if known is None and any(_covers(w, path) for s in self.steps for w in s.writes):
            return False  # the script writes it itself
        return known if known is not None else not any(s.implicit_writes and not s.neutral for s in self.steps)

    def producer(self, path: str, before: int) -> tuple[Step | None, bool]:
        """(the step that made `path` before step `before`, whether the link is only presumed)."""
        unpacked: Step | None = None
        for step in reversed(self.steps[:before]):
            if any(_covers(w, path) for w in step.writes):
                if step.program not in UNPACK or any(w == path for w in step.writes):
                    return step, False
                unpacked = step  # a folder unpacked: a program run since may have rewritten what it holds
                break
        if path_kind(path) in ("paper", "doc", "code", "notebook", "config", "device") or "://" in path:
            return unpacked, False
        known = self.exists(path)
        if known:
            return None, False
        reader = self.steps[before] if before < len(self.steps) else None
        since = self.steps[unpacked.index if unpacked else 0:before]
        candidates = [s for s in since if s.implicit_writes and not s.tolerant and not s.neutral
                      and any(src.kind == "compute" and src.role != "display" for src in s.sources)
                      and not (s.isolated and (reader is None or reader.container != s.container))]
        if candidates:  # a program in a container without a bind mount writes nothing the host can read
            return candidates[-1], True
        return unpacked, False

    def writers(self, last: Step, path: str) -> list[Step]:
        """Every step whose output is in `path` when `last` wrote it last: the appends (`>> f`) before it back to the
        write that started the file, and all the writes of one piece of inline code (its prints to `> f`)."""
        out = [last]
        for step in reversed(self.steps[:last.index]):
            if not any(_covers(w, path) for w in step.writes):
                continue
            prev = out[-1]
            name = re.escape(path.rsplit("/", 1)[-1])
            appends = prev.appends or (prev.lang == "shell" and re.search(r">>\s*\S*" + name, prev.text))
            if not appends and not (prev.lang != "shell" and step.lang == prev.lang and step.where == prev.where):
                break
            out.append(step)
        return out

    # ---- what a step's output is made of
    def marks(self, step: Step, use: str = "display", depth: int = 0) -> list[Mark]:
        key = (step.index, use)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = []  # cycle guard
        out: list[Mark] = []
        if depth > 40:
            return out
        mixed = any(src.kind != "literal" for src in step.sources)
        for src in step.sources:
            found = self.source(step, src, use, depth)
            out += [m for m in found if not (mixed and m.kind == "weak")]  # numbers beside data are parameters
        compute = [s for s in step.sources if s.kind == "compute"]
        if compute and not any(m.kind in ("full", "last", "copy") for m in out):
            out += self.program_only(step, compute)
        out = [m._replace(via=(step.index,) + m.via) if step.index not in m.via else m for m in out]
        self.memo[key] = out
        return out

    def source(self, step: Step, src: Source, use: str, depth: int) -> list[Mark]:
        eff = src.use if use == "display" else ("derive" if src.use == "display" else src.use)
        if src.kind == "literal":
            if strong(src):
                return [Mark("copy", "high", f"{src.how}: a table of {src.numbers} numbers written in the script "
                                             f"({_loc(step)})", "literal")]
            return [Mark("weak", "low", f"{src.how}: numbers written in the script ({_loc(step)})",
                         f"literal:{src.numbers}:{src.irregular}")] if weak(src) or src.numbers else []
        if src.kind == "paper":
            return [Mark("copy", "high", f"takes the values from the paper ({src.how or src.ref})", src.ref or "paper")]
        if src.kind == "compute" or src.use == "template":
            return []  # judged with the step's inputs (program_only); a masked template gives no values
        if src.kind == "step":
            try:
                other = self.steps[int(src.ref)]
            except (ValueError, IndexError):
                return []
            return self.marks(other, eff, depth + 1)
        if src.kind == "unknown":
            return [Mark("opaque", "low", f"{_loc(step)}: {src.how or 'an output the reader cannot follow'}")]
        return self.file(step, src, eff, depth)

    def file(self, step: Step, src: Source, use: str, depth: int) -> list[Mark]:
        path = src.ref
        if path.startswith("?"):
            return [Mark("opaque", "low", f"{_loc(step)}: {src.how} reads a file the script does not name")]
        if path.startswith("database:"):
            return self.database(step, src, use, path)
        made_by, presumed = self.producer(path, step.index)
        unpacked = made_by is not None and not presumed and made_by.program in UNPACK
        if made_by is not None:
            inner = [m for w in self.writers(made_by, path) for m in self.marks(w, use, depth + 1)]
            if presumed:
                inner = [m._replace(confidence="low") if m.kind in ("full", "last") else m for m in inner]
            if not unpacked:
                return inner
            # a file of an archive the script unpacked: shipped as the archive holds it
            shipped = self.stored(step, src, use, path, True)
            return [m._replace(reason=f"{m.reason} (unpacked by {made_by.program}, {_loc(made_by)})")
                    for m in shipped] or inner
        return self.stored(step, src, use, path)

    def stored(self, step: Step, src: Source, use: str, path: str, unpacked: bool = False) -> list[Mark]:
        """Values of a file no step of the script computed: shipped, unpacked from a shipped archive, or not known."""
        kind = path_kind(path)
        held = self.exists(path) or unpacked
        conf: Confidence = "high" if held else "medium"
        if kind not in ("code", "paper", "doc", "notebook", "device", "config") and "://" not in path and \
                not path.startswith("?") and (held or self.files is None):  # (no earlier step made it)
            decided = input_mark(self.kinds.of(path), step, src, use, path)  # the input's kind: raw, stored, final
            if decided is not None:
                return [decided]
        if "://" in path:
            kind = path_kind(path.split("://", 1)[1].split("?")[0])
        if holds_results(path) or kind == "doc":
            what = "notebook's stored outputs" if kind == "notebook" else "stored results" if kind != "doc" else \
                "documentation"
            if use == "display":
                return [Mark("copy", conf, f"{_loc(step)}: {src.how} shows the {what} in {path} as they are", path)]
            if use == "input" and step.role == "experiment":
                return [Mark("full", "low", f"{_loc(step)}: {step.program} takes {path} as its input", path)]
            return [Mark("last", conf, f"{_loc(step)}: {step.program or src.how} computes from the {what} in {path}",
                         path)]
        if kind == "paper":
            return [Mark("copy", "high", f"{_loc(step)}: {src.how} reads the paper {path}", path)]
        if (kind in ("data", "unknown", "archive", "model", "config") and use == "derive"
                and step.lang in ("python", "r")):
            runs = any(c.kind == "compute" and not c.ref.startswith("loop ") for c in step.sources) or \
                bool(STATISTICS.search(step.text))
            if step.where is None and not runs and (unpacked or self.shipped(path)):  # own arithmetic, shipped data
                return [Mark("last", "medium", f"{_loc(step)}: the script's own code computes from the shipped data "
                                               f"{path}", path)]
            return [Mark("full", "medium", f"{_loc(step)}: computes from the input data {path}", path)]
        if use == "derive" and step.lang == "shell" and step.role == "display" and kind in ("data", "unknown") and \
                not re.search(r"://|[*?\[]", path) and (unpacked or self.shipped(path)):  # awk sums, wc -l, jq length
            return [Mark("last", "medium", f"{_loc(step)}: {src.how} computes from the shipped data {path}", path)]
        # the table's values, as a shipped file stores them
        if use == "display" and kind in ("data", "unknown") and (self.filled or _member(path)) and \
                not src.how.endswith("(the files it lists)") and \
                not re.search(r"://|[*?\[]", path) and (unpacked or self.shipped(path)):
            return [Mark("copy", "medium", f"{_loc(step)}: {src.how} shows the values stored in {path} as they are",
                         path)]
        return []

    def database(self, step: Step, src: Source, use: str, path: str) -> list[Mark]:
        """Values a query takes from a database: aggregated (last-mile) or shown as stored (copy, unless a program
        run before may have filled it)."""
        name = path.split(":", 1)[1]
        if use != "display":
            return [Mark("last", "medium", f"{_loc(step)}: {src.how} aggregates what the database {name} stores", path)]
        filled = [s for s in self.steps[:step.index] if s.implicit_writes and not s.neutral and not s.tolerant
                  and any(c.kind == "compute" and c.role == "experiment" for c in s.sources)]
        if filled:
            return self.marks(filled[-1], "derive")
        return [Mark("copy", "medium", f"{_loc(step)}: {src.how} shows the rows the database {name} stores", path)]

    def program_only(self, step: Step, compute: list[Source]) -> list[Mark]:
        """A program run whose named inputs settle nothing: its role decides."""
        order = {"experiment": 0, "unknown": 1, "aggregate": 2, "display": 3}
        src = min(compute, key=lambda s: order.get(s.role, 1))
        name = src.ref
        conf: Confidence = "medium" if step.expanded or step.lang != "shell" else "low"
        if src.role == "display":
            return [Mark("opaque", "low", f"{_loc(step)}: {name} is not in reach and its name says it shows results",
                         name)]
        if src.role == "aggregate":
            if any(s.kind == "file" and self.producer(s.ref, step.index)[0] is not None for s in step.sources):
                return []  # it summarises what an earlier step made: that step's marks decide
            made = [s for s in self.steps[:step.index] if s.implicit_writes and not s.tolerant and not s.neutral
                    and any(c.kind == "compute" and c.role in ("experiment", "unknown") for c in s.sources)]
            if made:
                return self.marks(made[-1], "derive")
            configured = experiment_options(step.text, name)
            if configured:  # an analysis told which model, data set, seeds to run: the experiment itself
                return [Mark("full", "low", f"{_loc(step)}: {name} is given the parameters of a computation "
                                            f"({', '.join(configured[:4])})", name)]
            models = next((s for s in self.steps[:step.index] if s.neutral and MODEL_PACKAGES.search(s.text)), None)
            if models is not None:  # (an empirical study's experiment: Artisan Fig. 10)
                return [Mark("full", "low", f"{_loc(step)}: {name} fits the study's statistical models (their "
                                            f"packages are installed at {_loc(models)})", name)]
            return [Mark("last", "low", f"{_loc(step)}: {name} summarises results it does not name, and no "
                                        "experiment runs before it", name)]
        unpacked = unpacked_results(self.steps[:step.index], self.kinds) if src.role == "unknown" and \
            not step.expanded else None
        if unpacked is not None:  # what it can compute from is what the script just unpacked
            return [Mark("last", "low", f"{_loc(step)}: {name} runs on the stored results the script unpacked from "
                                        f"{unpacked[1]} ({_loc(unpacked[0])}), and nothing before it runs the "
                                        "experiment", unpacked[1])]
        if src.role == "unknown" and not step.expanded and step.lang == "shell" and \
                not any(s.kind in ("file", "step") for s in step.sources) and not _parameters(step.text, name):
            built = self.built(step)
            if built is not None:  # the script compiled the artifact's code, then runs what it built
                return [Mark("full", "low", f"{_loc(step)}: runs {name}, after building the artifact's code "
                                            f"({_loc(built)})", name)]
            if step.container or name in CONTAINER_ENTRIES:  # the artifact's own program, where the artifact runs
                place = f"the container {step.container}" if step.container else "the artifact's containers"
                return [Mark("full", "low", f"{_loc(step)}: the values are the output of {name}, run in {place}",
                             name)]
            where = "without the artifact" if self.files is None else "from the artifact's files"
            return [Mark("opaque", "low", f"{_loc(step)}: runs {name}, but what it computes cannot be seen {where}",
                         name)]
        return [Mark("full", conf, f"{_loc(step)}: {src.how or 'runs ' + name}", name)]

    def built(self, step: Step) -> Step | None:
        """The step before `step` that compiles the artifact's code (`./compile`, `make`, `cargo build`)."""
        for s in reversed(self.steps[:step.index]):
            for c in s.sources:
                ws = set(words(c.ref.rsplit("/", 1)[-1])) if c.kind == "compute" and not s.tolerant else set()
                if ws & {"compile", "build"} or c.ref in ("make", "make all"):
                    return s
        return None

    # ---- the script's outputs
    def outputs(self) -> list[Step]:
        read_later: set[int] = set()
        for j, step in enumerate(self.steps):
            for src in step.sources:
                if src.kind == "step" and src.ref.isdigit():
                    read_later.add(int(src.ref))
                elif src.kind == "file":
                    made, _ = self.producer(src.ref, j)
                    if made is not None:
                        read_later.add(made.index)
        filled = [s for s in self.steps if any(src.use == "template" for src in s.sources)]
        if filled:  # a format tool fills the paper's masked table: its values are the ones the table needs
            return filled
        outs = [s for s in self.steps if not s.neutral and (s.stdout or (s.writes and s.index not in read_later))
                and not (s.writes and all(path_kind(w) == "code" for w in s.writes) and not s.stdout)]
        return outs or [s for s in self.steps if not s.neutral]


def classify(reading: Reading, files: list[str] | None = None, kinds: InputKinds | None = None) -> FlowVerdict:
    """The static verdict on a read script (files: the artifact's files, None without an artifact; kinds: what the
    artifact's documentation says its input files hold)."""
    flow = _Flow(reading, files, kinds)
    outs = flow.outputs()
    marks = [m for step in outs for m in flow.marks(step)]
    marks += _spread_literals(marks)
    verdict = FlowVerdict(method="undetermined", outputs=[s.index for s in outs])
    verdict.paper = any(m.kind == "copy" and m.confidence == "high" and "paper" in m.reason for m in marks)
    verdict.literal = any(m.ref == "literal" and m.kind == "copy" for m in marks)
    marks = [m for m in marks if m.kind != "weak" or weak_enough(m)]
    copied = [m for m in marks if m.kind == "copy" and m.ref not in ("literal", "paper")]
    verdict.derived_final = list(dict.fromkeys(m.ref for m in copied if "final numbers" in m.reason))
    verdict.displayed = list(dict.fromkeys(m.ref for m in copied if m.ref not in verdict.derived_final))
    verdict.stored_inputs = list(dict.fromkeys(m.ref for m in marks if m.kind == "last" and "/" in m.ref or
                                               (m.kind == "last" and "." in m.ref)))
    verdict.experiments = list(dict.fromkeys(m.ref for m in marks if m.kind == "full" and m.ref))
    computes = any(src.kind in ("compute", "file", "step") for st in reading.steps for src in st.sources)
    opaque = [m for m in marks if m.kind == "opaque"]
    for kind, method in _METHODS:
        chosen = [m for m in marks if m.kind == kind and (kind != "weak" or not computes)]
        if chosen and method in ("last_mile", "full") and opaque:
            break  # a needed value whose source cannot be seen: the table is no better than undetermined
        if chosen:
            verdict.method = method
            verdict.confidence = max((m.confidence for m in chosen), key=_RANK.__getitem__) if kind != "weak" else "low"
            verdict.reasons = list(dict.fromkeys(m.reason for m in chosen))[:6]
            if kind == "weak":
                verdict.reasons.append("nothing in the script computes anything")
            verdict.flows = traces(reading.steps, chosen, {kind})
            break
    whole = reading.parsed and not any("does not parse" in n or "stopped" in n for n in reading.notes)
    own = own_output(reading.steps, outs) if verdict.method == "undetermined" and whole else None
    if own is not None:  # nothing of the artifact ran or was read: the values are the script's own
        verdict.method, verdict.confidence, verdict.literal = "copy", own.confidence, True
        verdict.reasons = [own.reason]
        verdict.flows = traces(reading.steps, [own], {"copy"})
    if verdict.method == "undetermined":
        verdict.flows = traces(reading.steps, opaque, {"opaque"})
        unseen = list(dict.fromkeys(m.reason for m in opaque))
        verdict.reasons = unseen[:4] or ["nothing the script runs or reads shows the experiment or a results file"
                                         if reading.steps else "the script does nothing that can be followed"]
    if not reading.parsed:
        verdict.reasons.append("the script could not be parsed: " + "; ".join(reading.notes[:2]))
    return verdict
