"""Data model of an environment plan: documented install steps in, provisioning steps and facts out."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

VENV = "/opt/copilot/venv"
"""Where the review's virtual environment lives inside every sandbox."""
VENV_PYTHON = f"{VENV}/bin/python"
PIP = f"{VENV_PYTHON} -m pip"
WORK = "/opt/copilot/provision"
"""Folder inside the sandbox where generated requirement lists (lock translations) are written."""

STEP_KINDS = ("venv", "pip", "project", "lock", "apt", "documented")
STEP_ACTIONS = ("run", "install", "version", "command_fix")


@dataclass
class InstallStep:
    """A documented install command as documentation discovery reports it."""

    cmd: str
    """The logical command line as documented (prompt markers removed)."""
    inner: str = ""
    """The command without a runner prefix (`uv run`, `poetry run`, `conda run -n X`, `sudo`); empty = derive."""
    runner: str | None = None
    """uv | poetry | pipenv | conda | sudo | None."""
    cwd: str = "."
    """Folder relative to the artifact root the command runs in."""
    source: str = ""
    """Where it is documented, e.g. "README.md:21"."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables set for the command (exported earlier or prefixed inline)."""


@dataclass
class ProvisionStep:
    """One shell script the sandbox runs with `bash -c`, starting in the artifact root."""

    script: str
    purpose: str
    kind: str
    """venv | pip | project | lock | apt | documented."""
    network: bool
    """True when the step downloads (package index, GitHub, Debian mirror)."""
    documented: bool
    """True when the documentation asks for this step (no intervention to log); False = an intervention."""
    action: str
    """Intervention kind for the classifier: run (as documented; for the venv: an interpreter that satisfies what
    the artifact asks) | install (an undocumented dependency) | version (an interpreter that does not satisfy
    the request) | command_fix (a documented step rewritten to work here)."""
    source: str = ""
    """The documented step it comes from ("README.md:21"), or the file that declares what it installs."""
    required: bool = True
    """False when the review can go on without it (optional extras, tools for figures only)."""
    fallback: ProvisionStep | None = None
    """Run instead when this step fails: the same install with today's releases when this one resolves as of the
    artifact's date (provision/era.py)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment later commands need after this step (e.g. PATH with the virtual environment first; a value
    may refer to the variable's current value as `$PATH`)."""

    def to_dict(self) -> dict:
        out = asdict(self)
        if self.fallback is None:
            out.pop("fallback")
        return out


@dataclass
class PythonChoice:
    """The interpreter the review's virtual environment is created with, and why."""

    wanted: str | None
    """The version specifier the artifact asks for (">=3.12", "==3.8.*"), None when nothing asks."""
    source: str | None
    """Where `wanted` comes from: pyproject.toml requires-python, setup.py python_requires, docs, ..."""
    chosen: str
    """The version used ("3.11")."""
    interpreter: str
    """Command that runs it (local sandbox) or the Debian image suite that provides it (container)."""
    drift: str | None = None
    """Set when nothing available satisfies `wanted` and the nearest version is used."""
    reasons: list[str] = field(default_factory=list)
    """How the choice was made (preferences and bounds considered)."""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class EnvPlan:
    """What a careful reviewer would run to set up the artifact's environment."""

    python: PythonChoice | None
    steps: list[ProvisionStep] = field(default_factory=list)
    requirement_files: list[str] = field(default_factory=list)
    """Requirement files installed (documented or nearest to the workflow)."""
    skipped_requirement_files: list[tuple[str, str]] = field(default_factory=list)
    """Requirement files deliberately not installed, with the reason."""
    apt_packages: list[str] = field(default_factory=list)
    """Debian packages installed (container sandboxes only)."""
    console_scripts: dict[str, str] = field(default_factory=dict)
    """Console scripts the project declares: name -> "module:function"."""
    project_name: str | None = None
    project_dir: str | None = None
    """Folder (relative to the artifact root) of the installable project, when there is one."""
    container: bool = False
    notes: list[str] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)
    """What cannot be had here, read up front (a package with no wheel for any interpreter on offer)."""
    installs: list[str] = field(default_factory=list)
    """Distributions the plan's install steps install (probed for import once they ran: D2's evaluable state)."""
    declared: dict[str, str] = field(default_factory=dict)
    """Every distribution a dependency file of the artifact declares -> that file (provision/declared.py)."""
    era: dict[str, str] | None = None
    """The artifact's date {"date", "source"} that open dependencies are resolved as of (provision/era.py)."""
    octave: dict[str, list[str]] = field(default_factory=dict)
    """Octave Forge package -> toolbox functions the MATLAB code calls (provision/runtimes.py)."""
    r_libraries: list[str] = field(default_factory=list)
    """R packages the R scripts load (installed from Debian's r-cran-* in containers)."""
    activate: dict[str, str] = field(default_factory=lambda: {"VIRTUAL_ENV": VENV, "PATH": f"{VENV}/bin:$PATH"})
    """Environment the artifact's commands run with so that `python`, `pip` and console scripts are the venv's
    (`$PATH` stands for the sandbox's PATH)."""

    def to_dict(self) -> dict:
        return {
            "python": self.python.to_dict() if self.python else None,
            "steps": [s.to_dict() for s in self.steps],
            "requirement_files": list(self.requirement_files),
            "skipped_requirement_files": [[p, why] for p, why in self.skipped_requirement_files],
            "apt_packages": list(self.apt_packages),
            "console_scripts": dict(sorted(self.console_scripts.items())),
            "project_name": self.project_name,
            "project_dir": self.project_dir,
            "container": self.container,
            "notes": list(self.notes),
            "blockers": list(self.blockers),
            "installs": list(self.installs),
            "declared": dict(self.declared),
            "era": dict(self.era) if self.era else None,
            "octave": dict(self.octave),
            "r_libraries": list(self.r_libraries),
            "activate": dict(self.activate),
        }
