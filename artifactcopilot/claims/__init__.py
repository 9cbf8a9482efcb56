"""Claim checks beyond paper tables: documented outputs, notebooks, figures, stated numbers, table roles.

Pure comparison functions that D4 (claim support) calls. Each returns a JSON-serialisable record
(`to_dict()`) with a verdict that is never positive by default: when there is nothing comparable,
the verdict is "not_established" and the reason says why. None of them raises on bad input.
"""
from ._base import Record, Verdict
from .claimtypes import ClaimMatch, ClaimNumber
from .expected import NearMiss, OutputMatch, match_expected_output
from .figures import DocumentedOutputResult, FigureCheck, FileCheck, check_figure, match_documented_outputs
from .notebooks import (
    CellDifference,
    CellError,
    CellFailure,
    NotebookCell,
    NotebookComparison,
    NotebookOutputs,
    compare_notebook_runs,
    stored_outputs,
)
from .numbers import claim_numbers, find_claim_numbers
from .roles import TableRole, table_role

__all__ = [
    "CellDifference", "CellError", "CellFailure", "ClaimMatch", "ClaimNumber", "DocumentedOutputResult", "FigureCheck",
    "FileCheck", "NearMiss", "NotebookCell", "NotebookComparison", "NotebookOutputs", "OutputMatch", "Record",
    "TableRole", "Verdict", "check_figure", "claim_numbers", "compare_notebook_runs", "find_claim_numbers",
    "match_documented_outputs", "match_expected_output", "stored_outputs", "table_role",
]
