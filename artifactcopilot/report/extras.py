"""What the report shows beyond report.json's fields, read back from the run directory's committed evidence:
why the artifact could not be acquired, the confidence findings, the reproduced tables, D3's failing command."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..models import Report
from .acquisition import AcquisitionFailure, acquisition_failure
from .confidence import Confidence, assess
from .reading import Reader, run_dir_reader
from .results import FailedRun, TableResult, failed_run, reproduced_tables


@dataclass
class ReportExtras:
    acquisition: AcquisitionFailure | None = None
    confidence: Confidence | None = None
    tables: list[TableResult] = field(default_factory=list)
    failed: FailedRun | None = None


def extras_for(report: Report, run_dir: Path | None = None, read: Reader | None = None) -> ReportExtras:
    """Everything the renderers add from evidence; with neither a run directory nor a reader, only the confidence
    findings that report.json alone supports."""
    if read is None and run_dir is not None:
        read = run_dir_reader(report, run_dir)
    if read is None:
        return ReportExtras(confidence=assess(report, run_dir))
    return ReportExtras(acquisition=acquisition_failure(report, read), confidence=assess(report, run_dir, read),
                        tables=reproduced_tables(report, read), failed=failed_run(report, read))
