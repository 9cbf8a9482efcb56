"""Code written for NumPy 1 failing under NumPy 2 (an old artifact with `numpy` unpinned): the mechanical fix is the
NumPy its authors had, installed as a logged version choice (I1), then the same command again."""
from __future__ import annotations

import pytest

from artifactcopilot.agents.heuristic.fixes import diagnose
from artifactcopilot.interventions import default_classifier
from artifactcopilot.models import CommandRecord
from artifactcopilot.provision import EnvPlan


def _failed(stderr: str) -> CommandRecord:
    return CommandRecord(cmd="python start.py -f examples/fw.bin", exit_code=1, duration_s=2.0,
                         stderr="Traceback (most recent call last):\n  File \"start.py\", line 3\n" + stderr)


@pytest.mark.parametrize("message", [
    "OverflowError: Python integer 4294967295 out of bounds for int32",
    "AttributeError: module 'numpy' has no attribute 'float_'. Did you mean: 'float16'?",
    "AttributeError: `np.NaN` was removed ... module 'numpy' has no attribute 'NaN'",
    "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.0 as it may crash.",
])
def test_a_numpy_2_failure_installs_numpy_1_and_runs_again(message):
    fix = diagnose(_failed(message), "python start.py -f examples/fw.bin", [], {}, {}, EnvPlan(python=None))
    assert fix is not None and fix.network
    assert "numpy<2" in fix.setup and fix.script == "python start.py -f examples/fw.bin"
    assert default_classifier().classify(fix.action).level.value == "I1"
    assert "fails under NumPy 2" in fix.purpose


def test_other_overflows_and_attribute_errors_are_not_numpy_2():
    for message in ("OverflowError: math range error", "AttributeError: module 'numpy' has no attribute 'foo'"):
        assert diagnose(_failed(message), "python start.py", [], {}, {}, EnvPlan(python=None)) is None
