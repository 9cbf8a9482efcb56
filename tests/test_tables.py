"""repro.tables: number parsing, table extraction from any text, comparison, obfuscation."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from artifactcopilot.tables import (
    Table,
    best_match,
    compare_tables,
    match_value,
    obfuscate,
    parse_number,
    parse_tables,
    render_markdown,
    reveal,
)

PAIRS = yaml.safe_load((Path(__file__).parent / "fixtures" / "tables" / "pairs.yaml").read_text(encoding="utf-8"))


def _success(pair: dict) -> bool:
    expected = parse_tables(pair["expected"])
    assert expected, f"expected table did not parse: {pair['note']}"
    result = best_match(expected[0], pair["produced"])
    return bool(result and result.success)


# ---------------------------------------------------------------------------------- labelled corpus

@pytest.mark.parametrize("pair", PAIRS, ids=[p["note"] for p in PAIRS])
def test_corpus_pair(pair):
    assert _success(pair) == pair["should_match"], pair["note"]


def test_corpus_accuracy_and_coverage():
    outcomes = [_success(p) == p["should_match"] for p in PAIRS]
    accuracy = sum(outcomes) / len(outcomes)
    print(f"\ntable-matching corpus: {sum(outcomes)}/{len(outcomes)} correct ({accuracy:.1%}), "
          f"{sum(not p['should_match'] for p in PAIRS)} near misses")
    assert len(PAIRS) >= 40
    assert sum(not p["should_match"] for p in PAIRS) >= 10
    assert accuracy == 1.0


# ---------------------------------------------------------------------------------- parse_number

@pytest.mark.parametrize("text, value, decimals, percent", [
    ("0.91", 0.91, 2, False),
    ("1,234.5", 1234.5, 1, False),
    ("45.2%", 45.2, 1, True),
    ("45.2\\%", 45.2, 1, True),
    ("1.2e-3", 0.0012, 4, False),
    ("1.2E+03", 1200.0, 0, False),
    ("0.91 ± 0.02", 0.91, 2, False),
    ("$0.91 \\pm 0.02$", 0.91, 2, False),
    ("−3.1", -3.1, 1, False),
    ("**0.93**", 0.93, 2, False),
    ("\\textbf{0.93}", 0.93, 2, False),
    ("0.93*", 0.93, 2, False),
    ("0.93†", 0.93, 2, False),
    ("$0.93$", 0.93, 2, False),
    ("~5", 5.0, 0, False),
    ("≈0.5", 0.5, 1, False),
    ("3.2x", 3.2, 1, False),
    ("76.1 (0.3)", 76.1, 1, False),
    (" 12 ", 12.0, 0, False),
])
def test_parse_number(text, value, decimals, percent):
    parsed = parse_number(text)
    assert parsed is not None
    assert parsed.value == pytest.approx(value)
    assert (parsed.decimals, parsed.percent) == (decimals, percent)


@pytest.mark.parametrize("text", ["n/a", "ResNet", "-", "", "—", "ResNet-50", "1.2.3", "0.91 0.85", "top-1"])
def test_parse_number_rejects_text(text):
    assert parse_number(text) is None


# ---------------------------------------------------------------------------------- match_value

def test_rounding_is_half_away_from_zero():
    assert match_value("0.13", "0.125")
    assert match_value("0.13", 0.125)
    assert not match_value("0.13", "0.124")
    assert match_value("-0.13", "-0.125")
    assert match_value("0.92", "0.915") and not match_value("0.91", "0.915")
    assert not match_value("0.92", 0.914)


def test_percent_forms():
    for produced in (45.2, "45.2%", 0.452, "45.24"):
        assert match_value("45.2%", produced), produced
    assert not match_value("0.45%", 45.2)
    assert not match_value("45.2", "0.45%")


def test_text_cells_compare_loosely():
    assert match_value("ResNet 50", "  resnet   50 ")
    assert not match_value("ResNet", "VGG")
    assert not match_value("0.91", "n/a")


@given(st.integers(min_value=-10**7, max_value=10**7), st.integers(min_value=0, max_value=4))
def test_printed_value_matches_itself(units, decimals):
    text = f"{units / 10**decimals:.{decimals}f}"
    parsed = parse_number(text)
    assert parsed is not None and parsed.decimals == decimals
    assert match_value(text, float(text)) and match_value(text, text)


# ---------------------------------------------------------------------------------- parse_tables

def test_markdown_table_with_bold_caption():
    text = ("Intro.\n\n**Table 2.** Accuracy on CIFAR-10.\n\n"
            "| Model | Acc |\n|:--|--:|\n| A | 0.91 |\n| **B** | **0.93** |\n")
    [t] = parse_tables(text)
    assert (t.label, t.caption) == ("Table 2", "Accuracy on CIFAR-10.")
    assert t.header == ["Model", "Acc"] and t.rows == [["A", "0.91"], ["B", "0.93"]]
    assert t.numeric_cells() == [(0, 1), (1, 1)]


def test_latex_tabular_with_caption_label_and_multicolumn():
    text = r"""
\begin{table*}[t]
\caption{Table 5: Results (\%).}\label{tab:res}
\begin{tabular}{l|cc}
\hline
Model & \multicolumn{2}{c}{Score} \\ \cline{2-3}
 & A & B \\ \hline
Base & 1.5 & \textbf{2.0} \\
Ours & \underline{3.25} & 4 \\ % a comment & 9
\hline
\end{tabular}
\end{table*}"""
    [t] = parse_tables(text)
    assert (t.label, t.caption, t.ref) == ("Table 5", "Table 5: Results (%).", "tab:res")
    assert t.header == ["Model", "Score A", "Score B"]
    assert t.rows == [["Base", "1.5", "2.0"], ["Ours", "3.25", "4"]]


def test_latex_caption_without_number_gives_no_label():
    [t] = parse_tables(r"\begin{table}\caption{Speed.}\begin{tabular}{ll}a & 1 \\ b & 2 \\\end{tabular}\end{table}")
    assert t.label is None and t.caption == "Speed."


def test_csv_tsv_aligned_and_key_value_blocks_in_one_log():
    log = ("starting run\n\nmodel,acc\nA,0.5\nB,0.6\n\nmodel\tf1\nA\t0.7\nB\t0.8\n\n"
           "model    loss\nA        1.25\nB        1.50\n\naccuracy: 0.91\nloss: 0.2\n")
    tables = parse_tables(log)
    assert [t.header for t in tables] == [["model", "acc"], ["model", "f1"], ["model", "loss"], ["key", "value"]]
    assert tables[2].rows == [["A", "1.25"], ["B", "1.50"]]
    assert tables[3].rows == [["accuracy", "0.91"], ["loss", "0.2"]]


def test_aligned_table_with_blank_corner_cell():
    [t] = parse_tables("           top-1    top-5\nresnet      76.1     92.9\nvit         81.3     95.6\n")
    assert t.header == ["", "top-1", "top-5"]
    assert t.rows[1] == ["vit", "81.3", "95.6"]


def test_caption_below_table():
    [t] = parse_tables("| a | 1 |\n|---|---|\n| b | 2 |\n\nTable 7: Below.\n")
    assert (t.label, t.caption) == ("Table 7", "Below.")


def test_prose_produces_no_tables():
    prose = (
        "Deep learning has transformed vision, speech, and language.\n"
        "In 2019, we trained 3 models, each for 90 epochs, on 8 GPUs.\n"
        "The values were 3, 4, and 5.\nWe used 2, 3, or 4 GPUs.\n"
        "We thank A. Smith for comments.  This work was funded by grant 12345.\n"
        "Note: results may vary.\nWarning: this is slow.\n"
        "Table 1 shows that our method is better than the baseline by 3%.\n"
        "cat results.txt | grep acc | sort\nls -l | wc -l\n"
    )
    assert parse_tables(prose) == []


# ---------------------------------------------------------------------------------- comparison

EXPECTED = Table(label="Table 1", header=["Model", "Acc", "F1"],
                 rows=[["ResNet", "0.91", "0.85"], ["VGG", "0.88", "n/a"]])


def test_compare_kinds():
    produced = Table(header=["model", "acc", "f1"], rows=[["resnet", "0.9149", "0.86"], ["vgg", "0.89", "0.1"]])
    result = compare_tables(EXPECTED, produced)
    assert (result.expected_label, result.total, result.matched) == ("Table 1", 3, 1)
    kinds = {(c.row, c.column): c.kind for c in result.cells}
    assert kinds == {("ResNet", "Acc"): "match", ("ResNet", "F1"): "rounding", ("VGG", "Acc"): "rounding"}
    assert result.ratio == pytest.approx(1 / 3) and not result.success


def test_compare_missing_and_different():
    produced = Table(header=["model", "acc"], rows=[["resnet", "0.5"]])
    result = compare_tables(EXPECTED, produced)
    assert [c.kind for c in result.cells] == ["different", "missing", "missing"]
    assert result.cells[1].produced is None


def test_compare_transposed():
    produced = Table(header=["metric", "VGG", "ResNet"], rows=[["F1", "-", "0.85"], ["Acc", "0.88", "0.91"]])
    assert compare_tables(EXPECTED, produced).success


def test_best_match_none_when_nothing_comparable():
    assert best_match(EXPECTED, "All done. Nothing to report.") is None
    assert best_match(Table(header=["a", "b"], rows=[["x", "y"]]), "x y") is None


# ---------------------------------------------------------------------------------- feedback

def test_obfuscate_hides_digits_keeps_labels():
    hidden = obfuscate(EXPECTED)
    assert hidden.header == EXPECTED.header and [r[0] for r in hidden.rows] == ["ResNet", "VGG"]
    assert hidden.rows == [["ResNet", "?.??", "?.??"], ["VGG", "?.??", "n/a"]]
    for r, c in EXPECTED.numeric_cells():
        assert not re.search(r"\d", hidden.rows[r][c])
    assert EXPECTED.rows[0][1] == "0.91"  # original untouched


def test_reveal_shows_only_matched_cells():
    result = best_match(EXPECTED, "ResNet  0.9101  0.79\nVGG  0.8799  0.2\n")
    shown = reveal(EXPECTED, result)
    assert shown.rows == [["ResNet", "0.91", "?.??"], ["VGG", "0.88", "n/a"]]


def test_render_markdown_round_trips():
    text = render_markdown(Table(label="Table 3", caption="Scores.", header=["Model", "Acc"],
                                 rows=[["A|B", "0.5"], ["C", "0.75"]]))
    assert text.splitlines()[0] == "**Table 3.** Scores."
    [t] = parse_tables(text)
    assert (t.label, t.caption, t.header) == ("Table 3", "Scores.", ["Model", "Acc"])
    assert t.rows == [["A|B", "0.5"], ["C", "0.75"]]
