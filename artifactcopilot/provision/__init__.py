"""Environment provisioning planner: from an artifact's files and documented install steps to the steps a
careful reviewer runs in the sandbox (a virtual environment per review, the documented installs translated to
it, lock files replayed with pip, undocumented installs marked as interventions).

Everything here is pure: no subprocess, no network, no writes. Executing the plan is the sandbox's job.
"""
from __future__ import annotations

from .choose import DEFAULT_PYTHON, choose_python
from .failures import (
    NOT_PACKAGED,
    command_not_found,
    fix_for_missing_command,
    fix_for_missing_module,
    install_blocker,
    missing_module,
    module_to_distribution,
    notebook_tooling,
    program_not_found,
)
from .model import VENV, EnvPlan, InstallStep, ProvisionStep, PythonChoice
from .planner import plan_environment

__all__ = [
    "DEFAULT_PYTHON", "NOT_PACKAGED", "VENV", "EnvPlan", "InstallStep", "ProvisionStep", "PythonChoice",
    "choose_python", "command_not_found", "fix_for_missing_command", "fix_for_missing_module", "install_blocker",
    "missing_module",
    "module_to_distribution", "notebook_tooling", "plan_environment", "program_not_found",
]
