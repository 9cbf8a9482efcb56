"""What the LLM agent sees of the paper: table values hidden in tables and prose, labels kept."""
from __future__ import annotations

from artifactcopilot.tables import parse_tables
from artifactcopilot.tables.render import hide_numbers, obfuscate

PAPER = """Table 2: Throughput (ops/s).

| n | fastsum | naive |
|---|---|---|
| 1000 | 412.5 | 130.2 |
| 10000 | 398.1 | 127.9 |

fastsum reaches 412.5 ops/s, about 3x the naive loop (Table 2); 4125 is a different number.
"""


def test_values_of_the_tables_are_hidden_wherever_they_appear():
    tables = parse_tables(PAPER)
    hidden = hide_numbers(PAPER, tables)
    for value in ("412.5", "130.2", "398.1", "127.9"):
        assert value not in hidden
    assert "reaches ???.? ops/s" in hidden and "| ???.? | ???.? |" in hidden
    assert "Table 2" in hidden and "4125 is a different number" in hidden and "3x" in hidden


def test_obfuscated_table_keeps_its_shape_and_labels():
    table = parse_tables(PAPER)[0]
    hidden = obfuscate(table)
    assert hidden.header == table.header and len(hidden.rows) == len(table.rows)
    assert all("?" in cell for row in hidden.rows for cell in row[1:])
    assert not any(ch.isdigit() for row in hidden.rows for cell in row[1:] for ch in cell)
