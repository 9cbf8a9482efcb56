"""Every script in benchmarks/ runs in its smoke mode, so a refactor that breaks a benchmark fails the suite.

The contract each `benchmarks/*.py` keeps: `python benchmarks/NAME.py --smoke`, run from the repository root,
measures what the benchmark measures end to end at tiny sizes with one repetition (real reviews, real
sandboxes, no figures faked), prints its lines and exits 0; it exits non-zero when what it measured failed (a
review that errored, a command that did not run); it needs nothing outside the repository (no network, no
materialized real artifacts: a smoke mode makes its own tiny input); and it ends in a few seconds, so that all
smoke runs together stay well under a minute on a loaded 2-core machine. A script without `--smoke` fails here.
The smoke runs start together (they mostly wait on sandboxes and disks) and each test checks its own.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
LIMIT_S = 120  # a hung benchmark fails instead of stopping the suite; the usual run is a few seconds


@pytest.fixture(scope="module")
def started(request) -> Iterator[dict[Path, subprocess.Popen[str]]]:
    """The smoke runs of the benchmarks this session selected, all started at once."""
    chosen = {item.callspec.params["script"] for item in request.session.items
              if item.module is request.module and "script" in getattr(getattr(item, "callspec", None), "params", {})}
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}  # offline, as CI runs
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    procs = {script: subprocess.Popen([sys.executable, str(script), "--smoke"], cwd=ROOT, env=env, text=True,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for script in BENCHMARKS if script in chosen}
    yield procs
    for proc in procs.values():
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def smoke(proc: subprocess.Popen[str], script: Path) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"benchmarks/{script.name} --smoke did not finish within {LIMIT_S}s")
    return proc.returncode, out, err


def test_the_benchmarks_are_found():
    names = {p.name for p in BENCHMARKS}
    assert {"review_overhead.py", "sandbox_overhead.py", "batch_scaling.py", "real_artifacts.py"} <= names


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_smoke_mode_runs(script: Path, started):
    code, out, err = smoke(started[script], script)
    if code == 2 and "--smoke" in err and "unrecognized arguments" in err:
        pytest.fail(f"benchmarks/{script.name} has no --smoke mode: every benchmark takes --smoke "
                    "(tiny sizes, one repetition, exit 0 when it works; see tests/test_benchmarks.py)")
    assert code == 0, (f"benchmarks/{script.name} --smoke exited {code}\n"
                       f"--- stdout\n{out[-3000:]}\n--- stderr\n{err[-3000:]}")
    assert out.strip(), f"benchmarks/{script.name} --smoke printed nothing"
    assert "Traceback" not in err, err[-3000:]


def _real_artifacts():
    import importlib.util
    spec = importlib.util.spec_from_file_location("real_artifacts_bench", ROOT / "benchmarks" / "real_artifacts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_real_artifacts_scores_on_the_badge_ladder():
    """A Results Reproduced award stands for Functional on the ladder; Reproduced is scored apart."""
    bench = _real_artifacts()
    assert bench.rung("reproduced") == "functional"
    assert bench.rung("available,functional,reproduced") == "functional"
    assert bench.rung("reusable,reproduced") == "reusable"
    assert bench.rung("available,reusable") == "reusable"
    assert bench.rung("none") == "none" and bench.rung("") == "none"
    assert bench.over_award("available", "functional") and not bench.over_award("functional", "functional")
    assert not bench.over_award("reusable", "available")
    rows = [{"id": "a", "rung": "functional", "predicted": "functional", "reproduced": False,
             "awarded_reproduced": True},
            {"id": "b", "rung": "available", "predicted": "functional", "reproduced": True,
             "awarded_reproduced": False},
            {"id": "c", "rung": "none", "predicted": "error", "reproduced": False, "awarded_reproduced": False}]
    f = bench.figures(rows)
    assert (f["exact"], f["over"], f["errors"]) == (1, ["b"], ["c"])
    assert (f["reproduced_awarded"], f["reproduced_hit"], f["reproduced_over"]) == (1, 0, ["b"])


def test_real_artifacts_splits_every_third_row(tmp_path):
    bench = _real_artifacts()
    (tmp_path / "dev.tsv").write_text("id\tawarded_badges\n" + "".join(f"r{i}\tavailable\n" for i in range(1, 8)),
                                      encoding="utf-8")
    assert [r["id"] for r in bench.rows_of(tmp_path) if r["split"] == "v"] == ["r3", "r6"]
