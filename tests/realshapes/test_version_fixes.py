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


MPL_STYLE = ('  File "/work/artifact/theo_tradeoff.py", line 9, in <module>\n    plt.style.use("seaborn")\n'
             '  File "/opt/copilot/venv/lib/python3.11/site-packages/matplotlib/style/core.py", line 139, in use\n'
             "    raise OSError(\nOSError: 'seaborn' is not a valid package style, path of style file, URL of style "
             "file, or library style name (library styles are listed in `style.available`)\n")


@pytest.mark.parametrize("message, dist", [
    (MPL_STYLE, "matplotlib"),
    ("  File \"run.py\", line 2, in <module>\n    from sklearn.externals import joblib\n"
     "ImportError: cannot import name 'joblib' from 'sklearn.externals' (/opt/copilot/venv/lib/python3.11/"
     "site-packages/sklearn/externals/__init__.py)\n", "scikit-learn"),
    ('  File "/opt/copilot/venv/lib/python3.11/site-packages/pandas/core/frame.py", line 12, in append\n'
     "TypeError: DataFrame.to_csv() got an unexpected keyword argument 'line_terminator'\n", "pandas"),
])
def test_a_library_raising_on_a_name_its_release_no_longer_has_gets_the_series_before(message, dist):
    """A traceback raised inside a library about a name it no longer knows: the release series before the installed
    one, read in the sandbox (`<major.minor` of what is installed), as a version choice (I1)."""
    fix = diagnose(_failed(message), "python theo_tradeoff.py", ["theo_tradeoff.py", "run.py"], {}, {},
                   EnvPlan(python=None))
    assert fix is not None and fix.network and fix.script == "python theo_tradeoff.py"
    assert f'm.version("{dist}")' in fix.setup and f'{dist}"<$series"' in fix.setup, fix.setup
    assert default_classifier().classify(fix.action).level.value == "I1"
    assert f"fails inside {dist}" in fix.purpose and "release series before it" in fix.purpose


@pytest.mark.parametrize("message", [
    # a library error about the artifact's own data, not a removed name
    '  File "/opt/copilot/venv/lib/python3.11/site-packages/matplotlib/axes/_base.py", line 494, in _plot_args\n'
    "ValueError: x and y must have same first dimension, but have shapes (10,) and (9,)\n",
    # the artifact's own module lacks the name
    "AttributeError: module 'simulation_lib' has no attribute 'run_all'\n",
    # raised by the artifact's code after the library returned
    '  File "/opt/copilot/venv/lib/python3.11/site-packages/pandas/io/parsers.py", line 3, in read_csv\n'
    '  File "/work/artifact/run.py", line 8, in <module>\n'
    "KeyError: 'column is not a valid name'\n",
])
def test_errors_that_are_not_a_removed_library_name_get_no_older_release(message):
    files = ["run.py", "simulation_lib.py"]
    fix = diagnose(_failed(message), "python run.py", files, {}, {}, EnvPlan(python=None))
    assert fix is None or "series before" not in fix.purpose, fix
