"""The static reader's model of a script: ordered steps, each with where its output values come from.

Every language reader (shell, Python, R, Makefile, notebook) turns a script into `Step`s. A step is
one command or one output statement (print, write, savefig); its `sources` say where the values it
outputs come from: a file (displayed as stored, derived by aggregation, or consumed as an input by a
program), numbers written in the script, the paper, a computation, or an earlier step. `flow.py`
follows these sources back from the script's outputs to decide copy / last-mile / full.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .paths import Role

SourceKind = Literal["file", "literal", "compute", "paper", "step", "unknown"]
Use = Literal["display", "derive", "input", "template"]


class Source(BaseModel):
    """Where the values a step outputs come from."""

    kind: SourceKind
    ref: str = Field("", description="file: the path; compute: the program or function; step: the step index; "
                                      "paper: the paper file or library.")
    use: Use = Field("display", description="display: values shown as stored (cat, print of a loaded table, copy); "
                                            "derive: aggregated or computed over; input: consumed by a program; "
                                            "template: the masked table a format tool fills (gives no values).")
    how: str = Field("", description="What in the script makes this source, e.g. `cat`, `pd.read_pickle`, `np.mean`.")
    numbers: int = Field(0, description="literal: how many numbers the script writes out.")
    irregular: int = Field(0, description="literal: how many of them look like measured values (0.433, 83.27), not "
                                          "parameters (0.5, 100).")
    table: bool = Field(False, description="literal: the numbers form a table (rows of numeric cells).")
    role: Role = Field("unknown", description="compute: what the program's name or code says it does.")
    ops: list[str] = Field(default_factory=list, description="file, derived: the operations that derived values from "
                                                             "it (`mean`, `groupby`, `arithmetic`, `round`, `total`).")


class Step(BaseModel):
    """One command or output statement of the script, in execution order."""

    index: int = 0
    line: int = 0
    text: str = Field("", description="The statement or command as written (shortened).")
    lang: str = "shell"
    sources: list[Source] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list, description="Paths the step declares it writes.")
    stdout: bool = Field(False, description="The step's output reaches the script's stdout.")
    implicit_writes: bool = Field(False, description="A program run that may write files it does not name.")
    container: str = Field("", description="The container the step runs in (docker run/exec), empty on the host.")
    isolated: bool = Field(False, description="It runs in a container the script started without a bind mount: the "
                                              "files it writes stay inside that container.")
    appends: bool = Field(False, description="The step adds to the file it writes (`>> f`) rather than starting it.")
    tolerant: bool = Field(False, description="The step's failure is ignored (`|| true`, `timeout`).")
    neutral: bool = Field(False, description="The step moves no values (mkdir, pip install, cd).")
    cwd: str = ""
    program: str | None = None
    role: Role = "unknown"
    expanded: bool = Field(False, description="The program's own code (from the artifact) was read in place.")
    where: str | None = Field(None, description="The artifact file the step is in (None: the script itself).")


class Reading(BaseModel):
    """What the static reader found in one script."""

    language: str = "shell"
    steps: list[Step] = Field(default_factory=list)
    paper: list[str] = Field(
        default_factory=list, description="Why the script reads the paper (tools, libraries, files).")
    notes: list[str] = Field(default_factory=list, description="Parse problems and fallbacks, for the reasons.")
    parsed: bool = Field(True, description="False when the script could not be parsed at all.")
    programs: list[str] = Field(default_factory=list, description="Artifact programs read in place.")

    def add(self, step: Step) -> Step:
        step.index = len(self.steps)
        self.steps.append(step)
        return step
