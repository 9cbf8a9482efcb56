"""Result types of documentation discovery: documents, documented steps, notebooks, outputs, badges, reuse.

Every type is a dataclass with `to_dict()` giving JSON-serialisable data in a stable order (field order,
lists in documentation order).
"""
from __future__ import annotations

from dataclasses import Field, asdict, dataclass, field
from typing import Any, ClassVar


class _Dict:
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # every subclass is a dataclass

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class DocFile(_Dict):
    """One document a reviewer reads, in reading order."""

    path: str
    """Path relative to the artifact root, or "paper:<title>" for the paper's artifact appendix."""
    role: str
    """readme | artifact | install | reproduce | requirements | status | subreadme | docs | appendix."""
    order: int
    """1-based position in reading order."""
    words: int
    """Words of text read (0 when the file could not be read)."""
    linked_from: str | None = None
    """The document that links to it, when it was reached through a link."""
    note: str | None = None
    """Why the text was not read or only partly read."""


@dataclass
class DocSection(_Dict):
    """A heading of a document, in reading order."""

    level: int
    title: str
    source: str
    """"<doc path>:<line>" of the heading."""
    words: int = 0
    """Words of text under the heading, up to the next heading."""


@dataclass
class Placeholder(_Dict):
    """An argument of a documented command that stands for a value the user must supply."""

    token: str
    """The placeholder as written, e.g. "<path>", "$trace_file_path", "project_folder"."""
    index: int
    """Index of the token in the step's `inner` command (shell words)."""
    fill: str | None = None
    """A value taken from the documentation's own examples or from the artifact, else None."""
    reason: str = ""
    """Where the fill came from, or why nothing fits."""
    resolved: bool = False
    """True when `fill` is a concrete value (an existing file for path-like placeholders)."""
    written: dict[str, str] = field(default_factory=dict)
    """Files a reviewer writes before the run when `fill` is an input made for the purpose (path from the artifact
    root -> text); empty when the fill is the documentation's or the artifact's own."""


@dataclass
class Step(_Dict):
    """One documented (or conventionally implied) command, in documentation order."""

    cmd: str
    """The logical line as documented: continuations joined, prompt markers removed."""
    inner: str
    """The command without runner prefix (uv run, poetry run, pipenv run, conda run -n X, sudo) and env prefix."""
    runner: str | None
    """uv | poetry | pipenv | conda | sudo | None."""
    kind: str
    """install | data | download | workflow | test | plot | env | trivial."""
    source: str
    """"<doc path>:<line>" (or "Makefile:<line>", "<script>:1", "<notebook>:1")."""
    section: str
    """Nearest heading above the command."""
    cwd: str = "."
    """Folder relative to the artifact root the command runs in."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables exported earlier in the block or set inline before the command."""
    order: int = 0
    """1-based position among all steps."""
    block: int = 0
    """Number of the code block (or prose passage) the command came from; steps of one block share it."""
    origin: str = "fence"
    """fence | inline | prose | table | makefile | script | notebook."""
    mentions: list[str] = field(default_factory=list)
    """Paper objects named near the command, e.g. "Table 5", "Figure 4"."""
    quick: bool = False
    """Documented as quick / reduced / demo, or sets a documented reduce knob (RUNS=1)."""
    long: bool = False
    """Documented as taking hours or days."""
    duration_hint_s: float | None = None
    """A duration the documentation states for this command, in seconds."""
    placeholders: list[Placeholder] = field(default_factory=list)
    """Arguments that are placeholders rather than values."""
    notebook: str | None = None
    """Path of the notebook the step executes, if any."""
    documented: bool = True
    """False for steps implied by a Makefile target, driver script or notebook the docs do not name."""
    interactive: bool = False
    """The command waits for a user (jupyter notebook, docker run -it, a REPL)."""
    reuse: bool = False
    """The command sits in a reuse section (own data, customisation, API use)."""
    optional: bool = False
    """Documented as optional or conditional ("If you want to ...", "Optionally", an OPTIONAL section)."""
    sources: list[str] = field(default_factory=list)
    """Other places documenting the same command."""
    notes: list[str] = field(default_factory=list)
    """What discovery adjusted or could not settle (cwd not found, script found elsewhere, ...)."""
    outputs: list[str] = field(default_factory=list)
    """Files the documentation states this command writes (a step table's Output column), from the artifact root."""

    @property
    def runnable(self) -> bool:
        """False when a placeholder has no concrete fill."""
        return all(p.resolved for p in self.placeholders)

    def to_dict(self) -> dict:
        return {**asdict(self), "runnable": self.runnable}


@dataclass
class Notebook(_Dict):
    """A Jupyter notebook of the artifact."""

    path: str
    cells: int = 0
    code_cells: int = 0
    stored_outputs: int = 0
    """Code cells that carry saved outputs."""
    documented: bool = False
    """Named in the docs, or inside a folder the docs describe as holding the analysis or figures."""
    mentions: list[str] = field(default_factory=list)
    """Paper objects named in its markdown cells or next to its name in the docs."""
    language: str | None = None
    note: str | None = None
    """Why the notebook could not be read."""


@dataclass
class ExpectedOutput(_Dict):
    """What the documentation says a command prints or writes."""

    step_order: int
    text: str
    source: str


@dataclass
class DocumentedOutput(_Dict):
    """A file, folder or glob the documentation says the workflow produces."""

    path: str
    mentions: list[str]
    source: str


@dataclass
class DocCost(_Dict):
    """What the documentation says running something costs (a runtime table's row, a list item, a line)."""

    seconds: float
    """The duration stated, in seconds (the upper bound of a range)."""
    text: str
    """The duration as written ("~30 min each", "<1 sec")."""
    source: str
    objects: list[str] = field(default_factory=list)
    """Paper objects named with it ("Figure 3", "Table 6", "RQ2")."""
    files: list[str] = field(default_factory=list)
    """Artifact files named with it (the scripts the cost is for), from the artifact root."""
    each: bool = False
    """Stated per item ("each", "per dataset")."""


@dataclass
class Prerequisite(_Dict):
    """What the documentation says must happen before a command: unpack an archive, start a service and wait until
    it is ready, edit a value in a file, set a variable."""

    kind: str
    """unpack | service | edit | env | reduce (a documented way to run smaller: options to add, a value to lower)."""
    text: str
    """The documentation's words."""
    source: str
    command: str = ""
    """unpack/service: the command that does it (a service's start command runs in the background)."""
    cwd: str = "."
    file: str = ""
    """edit: the file; unpack: the archive."""
    name: str = ""
    """edit/env: the variable."""
    value: str = ""
    """edit/env: the value the documentation gives (or the folder it names)."""
    ready: str = ""
    """service: what shows it is up ("port 8080", "socket /tmp/x.sock", "file run/ready"), "" when nothing says."""
    section: str = ""
    """The heading it sits under: it precedes the commands documented after it there (or all later ones when it sits
    in a setup section)."""
    applies_to: list[int] = field(default_factory=list)
    """The steps (orders) it precedes, once the route is planned."""

    def describe(self) -> str:
        if self.kind == "edit":
            return f"edit {self.name} in {self.file} to {self.value!r}" if self.value else f"edit {self.name} in " \
                f"{self.file} (no value given)"
        if self.kind == "service":
            return f"start `{self.command}` in the background" + (f", wait for {self.ready}" if self.ready else "")
        if self.kind == "env":
            return f"set {self.name}={self.value}"
        if self.kind == "reduce":
            return f"run with `{self.command}`" if self.command else \
                f"a smaller {self.name} in {self.file or 'the script that sets it'}"
        return f"`{self.command}`"


@dataclass
class BadgeRequest(_Dict):
    """Badges the authors applied for (available, functional, reusable, reproduced)."""

    badges: list[str]
    source: str
    text: str = ""
    """The sentence or lines stating the request."""


@dataclass
class OptionDoc(_Dict):
    """A documented option of the artifact's program."""

    flag: str
    line: str
    source: str
    aliases: list[str] = field(default_factory=list)
    """Other spellings on the same line ("-o" for "--output")."""


@dataclass
class ApiExample(_Dict):
    """A code example in the docs that uses the artifact's own package or modules."""

    source: str
    modules: list[str]
    code: str


@dataclass
class InputFormat(_Dict):
    """A documented input format and the example inputs it points at."""

    title: str
    source: str
    examples: list[str] = field(default_factory=list)


@dataclass
class ReuseHints(_Dict):
    sections: list[str] = field(default_factory=list)
    """Titles of reuse sections ("Notes on Reusability", "Using your own data", ...)."""
    unused_options: list[OptionDoc] = field(default_factory=list)
    """Documented options that no documented step uses."""
    config_files: list[str] = field(default_factory=list)
    """Configuration files the docs name (existing in the artifact)."""
    api_examples: list[ApiExample] = field(default_factory=list)
    input_formats: list[InputFormat] = field(default_factory=list)
    parameters: list[str] = field(default_factory=list)
    """Names the documentation gives as a script's tunable parameters ("parameter(s): x0 (starting point), x")."""


@dataclass
class MakeTarget(_Dict):
    name: str
    path: str
    """The Makefile holding the target."""
    line: int
    recipe: list[str] = field(default_factory=list)
    phony: bool = False
    documented: bool = False


@dataclass
class DriverScript(_Dict):
    path: str
    documented: bool = False
    needs_args: bool = False
    """The script reads positional arguments ($1, $@) without defaults."""


@dataclass
class EnvVar(_Dict):
    name: str
    values: list[str]
    source: str


@dataclass
class Discovery(_Dict):
    """Everything the documentation of an artifact says, as an AE reviewer reads it."""

    docs: list[DocFile] = field(default_factory=list)
    sections: list[DocSection] = field(default_factory=list)
    """The headings of every document read, in reading order."""
    steps: list[Step] = field(default_factory=list)
    notebooks: list[Notebook] = field(default_factory=list)
    make_targets: list[MakeTarget] = field(default_factory=list)
    driver_scripts: list[DriverScript] = field(default_factory=list)
    expected_outputs: list[ExpectedOutput] = field(default_factory=list)
    costs: list[DocCost] = field(default_factory=list)
    """Durations the documentation states for scripts and paper objects (runtime tables, script lists)."""
    prerequisites: list[Prerequisite] = field(default_factory=list)
    """What the prose says must happen before commands: start a service, edit a value in a file."""
    documented_outputs: list[DocumentedOutput] = field(default_factory=list)
    env_vars: list[EnvVar] = field(default_factory=list)
    paper_refs: list[str] = field(default_factory=list)
    long_run_warning: bool = False
    python_versions: list[str] = field(default_factory=list)
    system_tools: list[str] = field(default_factory=list)
    requested_badges: BadgeRequest | None = None
    reuse: ReuseHints = field(default_factory=ReuseHints)
    signals: dict[str, bool] = field(default_factory=dict)
    """The ten D1 checklist signals computed over all documents together."""
    notes: list[str] = field(default_factory=list)

    def steps_of(self, kind: str) -> list[Step]:
        return [s for s in self.steps if s.kind == kind]

    def to_dict(self) -> dict:
        data = asdict(self)
        for step, out in zip(self.steps, data["steps"]):
            out["runnable"] = step.runnable
        return data
