"""Python interpreters a sandbox can offer an artifact: version -> how to run it."""
from __future__ import annotations

import re
import shutil
import subprocess

from .base import SAFE_PATH

_VERSION = re.compile(r"Python (\d+)\.(\d+)")


def host_pythons() -> dict[str, str]:
    """`python3.X` interpreters on the system PATH the sandbox exposes (version "3.X" -> command)."""
    found: dict[str, str] = {}
    for minor in range(6, 16):
        name = f"python3.{minor}"
        if shutil.which(name, path=SAFE_PATH):
            found[f"3.{minor}"] = name
    default = shutil.which("python3", path=SAFE_PATH)
    if default:
        try:
            out = subprocess.run([default, "--version"], capture_output=True, text=True, timeout=10)
            match = _VERSION.search(out.stdout + out.stderr)
            if match:
                found.setdefault(f"{match[1]}.{match[2]}", "python3")
        except (OSError, subprocess.SubprocessError):
            pass
    return dict(sorted(found.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("."))))
