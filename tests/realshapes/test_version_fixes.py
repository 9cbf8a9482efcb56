"""Version fixes a reviewer makes when a run fails for the release installed rather than for the artifact: code
written for NumPy 1 under NumPy 2 gets the last NumPy 1 release; a pip solver whose bundled licence expired gets its
newest release. Each is a logged version choice (I1), then the same command again."""
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


def test_a_pip_solver_whose_bundled_licence_expired_gets_its_newest_release():
    message = ('  File "src/gurobipy/env.pxi", line 108, in gurobipy._core.Env.__init__\n'
               "gurobipy._exception.GurobiError: License expired 2026-11-23\n")
    fix = diagnose(_failed(message), "python reproduction/figure_12.py", [], {}, {}, EnvPlan(python=None))
    assert fix is not None and fix.network and "--upgrade gurobipy" in fix.setup
    assert default_classifier().classify(fix.action).level.value == "I1"
    assert "licence bundled with the installed gurobipy has expired" in fix.purpose
    other = "ValueError: the dataset licence must be accepted before download\n"
    assert diagnose(_failed(other), "python x.py", [], {}, {}, EnvPlan(python=None)) is None
