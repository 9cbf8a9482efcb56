"""What a test run's output says: how many tests ran, passed, failed — read from the runner's own summary.

A test suite counts as passing only when its runner says so, on either stream: pytest's "N passed" with no failure
or error (with or without the ===== rule that `-q` drops), unittest's "Ran N tests" followed by "OK", go's and
cargo's "ok"/"test result: ok", a "N tests, 0 failures" line (JUnit, Maven, ctest, TAP). Exit 0 without such a
summary is "not_established", never "passed": a script named test that prints nothing about tests has not shown
that anything was tested.
"""
from __future__ import annotations

import re
from typing import Literal

from ._base import Record

_PYTEST = re.compile(r"(?m)^=+ (?P<body>.*\b(?:passed|failed|error|errors|skipped|xfailed|deselected)\b.*?) "
                     r"(?:in [\d.]+s(?: \([^)]*\))? )?=+\s*$")
_PYTEST_QUIET = re.compile(r"(?m)^(?P<body>\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected)"
                           r"(?:, \d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?))*) "
                           r"in [\d.]+s(?: \([^)]*\))?\s*$")
_PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)")
_UNITTEST_RAN = re.compile(r"(?m)^Ran (\d+) tests? in [\d.]+s")
_UNITTEST_OK = re.compile(r"(?m)^OK(?: \(.*\))?\s*$")
_UNITTEST_FAILED = re.compile(r"(?m)^FAILED \((?P<body>[^)]*)\)")
_CARGO = re.compile(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed")
_GENERIC = re.compile(r"(?i)\b(?:tests? run|tests?):?\s*(\d+),\s*failures?:?\s*(\d+)(?:,\s*errors?:?\s*(\d+))?")
_TAP = re.compile(r"(?m)^# (pass|fail)\s+(\d+)\s*$")
_ALL_PASSED = re.compile(r"(?i)\ball (\d+ )?tests? (?:passed|succeeded|ok)\b")
# A hand-written runner's own count: "12/12 tests passed", "Passed: 12, Failed: 0".
_OF_PASSED = re.compile(r"(?i)\b(\d+)\s*/\s*(\d+)\s+tests?\s+(?:passed|succeeded|ok)\b")
_PASSED_FAILED = re.compile(r"(?i)\bpass(?:ed|es)?\s*[:=]\s*(\d+)\s*[,;|]?\s*fail(?:ed|ures?|s)?\s*[:=]\s*(\d+)")


class TestSummary(Record):
    """The outcome a test runner reported."""

    verdict: Literal["passed", "failed", "not_established"]
    runner: str = ""
    passed: int = 0
    failed: int = 0
    reason: str = ""


def _pytest(text: str) -> TestSummary | None:
    lines = _PYTEST.findall(text) or _PYTEST_QUIET.findall(text)  # `pytest -q` drops the ===== rule
    if not lines:
        return None
    counts: dict[str, int] = {}
    for n, kind in _PYTEST_COUNT.findall(lines[-1]):
        counts[kind.rstrip("s") if kind.startswith("error") else kind] = int(n)
    failed = counts.get("failed", 0) + counts.get("error", 0)
    passed = counts.get("passed", 0)
    return TestSummary(verdict="passed" if passed and not failed else "failed", runner="pytest", passed=passed,
                       failed=failed, reason=lines[-1].strip())


def _unittest(text: str) -> TestSummary | None:
    ran = _UNITTEST_RAN.findall(text)
    if not ran:
        return None
    total = int(ran[-1])
    if (m := _UNITTEST_FAILED.search(text)) is not None:
        failed = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", m.group("body")))
        return TestSummary(verdict="failed", runner="unittest", passed=max(0, total - failed), failed=failed,
                           reason=f"Ran {total} tests; FAILED ({m.group('body')})")
    if _UNITTEST_OK.search(text) and total:
        return TestSummary(verdict="passed", runner="unittest", passed=total, reason=f"Ran {total} tests; OK")
    return None


def _others(text: str) -> TestSummary | None:
    if found := _CARGO.findall(text):
        passed, failed = sum(int(p) for _, p, _ in found), sum(int(f) for _, _, f in found)
        return TestSummary(verdict="passed" if passed and not failed else "failed", runner="cargo", passed=passed,
                           failed=failed, reason=f"test result: {passed} passed; {failed} failed")
    if found := _GENERIC.findall(text):
        total, failures, errors = found[-1]
        failed = int(failures) + int(errors or 0)
        return TestSummary(verdict="passed" if int(total) and not failed else "failed", runner="junit-style",
                           passed=max(0, int(total) - failed), failed=failed,
                           reason=f"tests {total}, failures {failures}, errors {errors or 0}")
    tap = {kind: int(n) for kind, n in _TAP.findall(text)}
    if tap:
        return TestSummary(verdict="passed" if tap.get("pass") and not tap.get("fail") else "failed", runner="tap",
                           passed=tap.get("pass", 0), failed=tap.get("fail", 0), reason=f"TAP: {tap}")
    if found := _OF_PASSED.findall(text):
        passed, total = int(found[-1][0]), int(found[-1][1])
        return TestSummary(verdict="passed" if total and passed == total else "failed", runner="summary line",
                           passed=passed, failed=max(0, total - passed), reason=f"{passed}/{total} tests passed")
    if found := _PASSED_FAILED.findall(text):
        passed, failed = int(found[-1][0]), int(found[-1][1])
        return TestSummary(verdict="passed" if passed and not failed else "failed", runner="summary line",
                           passed=passed, failed=failed, reason=f"passed {passed}, failed {failed}")
    if m := _ALL_PASSED.search(text):
        return TestSummary(verdict="passed", runner="summary line", passed=int((m.group(1) or "0").strip() or 0),
                           reason=m.group(0))
    return None


def read_test_summary(stdout: str, stderr: str = "", exit_code: int | None = 0) -> TestSummary:
    """The test runner's reported outcome; a non-zero exit is a failure whatever the output says. Never raises."""
    text = f"{stdout or ''}\n{stderr or ''}"
    try:
        summary = _pytest(text) or _unittest(text) or _others(text)
    except (ValueError, re.error) as exc:
        return TestSummary(verdict="not_established", reason=f"the output could not be read: {exc}")
    if summary is None:
        return TestSummary(verdict="not_established", reason="the output has no test runner's summary "
                           "(no passed/failed counts, no 'Ran N tests ... OK')")
    if exit_code not in (0, None) and summary.verdict == "passed":
        return summary.model_copy(update={"verdict": "failed", "reason": f"{summary.reason}; but exit {exit_code}"})
    return summary
