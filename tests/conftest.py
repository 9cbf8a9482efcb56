"""Shared fixtures: the adjudicated corpus and a helper that runs a real review."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
EXAMPLES = ROOT / "examples"


def corpus_cases() -> list[Path]:
    cases = sorted(p for p in CORPUS.iterdir() if (p / "expected.yaml").exists())
    cases += sorted(p for p in EXAMPLES.iterdir() if (p / "expected.yaml").exists())
    return cases


def load_case(case: Path) -> tuple[dict, Path, str]:
    expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    artifact = case / expected.get("artifact", "artifact")
    return expected, case / "paper.md", str(artifact)


@pytest.fixture
def review(tmp_path):
    """Run a real offline review; returns (report, run_dir)."""
    from artifactcopilot.review import ReviewRequest, run_review

    def _run(paper, artifact, timeout: float = 60.0, name: str = "run", agent=None, sandbox=None,
             sandbox_name: str | None = None, **kw):
        out = tmp_path / name
        # a backend by name (ReviewRequest.sandbox), e.g. pinned so a report does not depend on the machine
        if sandbox_name:
            kw["sandbox"] = sandbox_name
        report, _ = run_review(
            ReviewRequest(paper=Path(paper), artifact=str(artifact), out=out, timeout_s=timeout, **kw),
            agent=agent, sandbox=sandbox)
        return report, out

    return _run
