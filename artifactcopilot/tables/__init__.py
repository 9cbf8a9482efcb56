"""Tables in papers and in artifact output: parse, normalise, compare, obfuscate.

The paper's table is the *expected* result; whatever the artifact prints or writes is the
*produced* one. A produced number matches when it rounds (half away from zero) to the expected
cell's printed precision: papers print rounded values, programs print raw ones.
"""
from .compare import (
           CellResult,
           Comparison,
           best_match,
           compare_tables,
           json_table,
           kv_anywhere,
           match_value,
)
from .model import Table
from .numbers import ParsedNumber, parse_number
from .render import obfuscate, render_markdown, reveal
from .text import parse_tables

__all__ = ["CellResult", "Comparison", "ParsedNumber", "Table", "best_match", "compare_tables", "json_table",
           "kv_anywhere", "match_value", "obfuscate", "parse_number", "parse_tables", "render_markdown", "reveal"]
