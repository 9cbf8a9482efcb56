"""A test suite's run is judged by its runner's own summary, on whichever stream the runner writes it: unittest
prints everything ("Ran 3 tests … OK") to stderr and nothing to stdout; `pytest -q` drops the ===== rule."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from artifactcopilot.claims.testsuite import read_test_summary
from artifactcopilot.sandbox.outcome import judge

PASSING = """import unittest


class T(unittest.TestCase):
    def test_a(self):
        self.assertEqual(1 + 1, 2)

    def test_b(self):
        self.assertTrue("x")

    def test_c(self):
        self.assertIn(3, [1, 2, 3])
"""
FAILING = PASSING.replace("self.assertIn(3, [1, 2, 3])", "self.assertIn(4, [1, 2, 3])")


def _run(tmp_path: Path, source: str, *argv: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_things.py").write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          check=False)


def test_a_passing_unittest_run_writes_only_to_stderr_and_is_valid(tmp_path):
    done = _run(tmp_path, PASSING, "-m", "unittest", "-v")
    assert done.returncode == 0 and not done.stdout.strip() and "Ran 3 tests" in done.stderr
    outcome = judge(done.returncode, False, done.stdout, done.stderr)
    assert outcome.verdict == "valid", outcome.reasons
    assert "Ran 3 tests; OK" in outcome.reasons[0]
    summary = read_test_summary(done.stdout, done.stderr, done.returncode)
    assert (summary.verdict, summary.runner, summary.passed) == ("passed", "unittest", 3)


def test_a_failing_unittest_run_is_not_valid_and_names_the_failures(tmp_path):
    done = _run(tmp_path, FAILING, "-m", "unittest")
    outcome = judge(done.returncode, False, done.stdout, done.stderr)
    assert outcome.verdict == "failed"
    assert read_test_summary(done.stdout, done.stderr, done.returncode).failed == 1
    # a wrapper that swallows the exit status does not turn reported failures into a valid run
    swallowed = judge(0, False, done.stdout, done.stderr)
    assert swallowed.verdict == "invalid" and "failures=1" in swallowed.reasons[0]


def test_pytest_quiet_summary_without_the_rule_is_read(tmp_path):
    done = _run(tmp_path, PASSING.replace("import unittest", "import unittest  # noqa"), "-m", "pytest", "-q",
                "-p", "no:cacheprovider", "test_things.py")
    assert done.returncode == 0 and "3 passed in" in done.stdout and "=====" not in done.stdout
    summary = read_test_summary(done.stdout, done.stderr, done.returncode)
    assert (summary.verdict, summary.runner, summary.passed) == ("passed", "pytest", 3)
    failed = _run(tmp_path, FAILING, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_things.py")
    summary = read_test_summary(failed.stdout, failed.stderr, failed.returncode)
    assert (summary.verdict, summary.failed, summary.passed) == ("failed", 1, 2)


def test_test_lines_in_prose_are_not_a_runner_summary():
    assert judge(0, False, "", "all tests passed\n").verdict == "invalid"  # stderr chatter, nothing on stdout
    assert read_test_summary("we ran 3 passed experiments in 2 days").verdict == "not_established"


def test_a_traceback_after_a_passing_suite_is_still_a_failure_of_the_run():
    stderr = ("...\n" + "-" * 70 + "\nRan 3 tests in 0.001s\n\nOK\n"
              "Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\nKeyError: 'x'\n")
    assert judge(0, False, "", stderr).verdict == "invalid"


def test_a_hand_written_runners_own_count_is_its_summary():
    assert read_test_summary("Running 12 tests\n12/12 tests passed\n").verdict == "passed"
    assert read_test_summary("11/12 tests passed\n").verdict == "failed"
    assert read_test_summary("Passed: 9, Failed: 0\n").verdict == "passed"
    assert read_test_summary("passed=9 failed=2\n").verdict == "failed"


def test_a_run_all_tests_script_is_a_test_command():
    from artifactcopilot.discovery.classify import TEST
    assert TEST.match("python run_all_tests.py") and TEST.match("python3 tests/run_all_tests.py")
    assert TEST.match("python test_parser.py") and not TEST.match("python latest.py")
