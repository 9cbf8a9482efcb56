"""Crash points for crash-safety tests.

`crash_point("commit:D2")` kills this process with SIGKILL when ARTIFACTCOPILOT_CRASH_AT names that
point — exactly what a power cut or the OOM killer does — so tests can prove that a review resumes
from any of these moments without losing or duplicating evidence. Unset, it does nothing.
"""
from __future__ import annotations

import os
import signal

ENV = "ARTIFACTCOPILOT_CRASH_AT"


def crash_point(name: str) -> None:
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
