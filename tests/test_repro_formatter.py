"""The format tool: fills an obfuscated table from execution output without ever seeing its values."""
from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from artifactcopilot.repro.formatter import fill_heuristic, fill_with_model, format_table
from artifactcopilot.tables import best_match, obfuscate, parse_tables, render_markdown

PAPER = parse_tables("""
Table 2: Results

| Model | Accuracy (%) | F1 | Params |
|---|---|---|---|
| ResNet | 91.3 | 0.85 | 25,557,032 |
| VGG | 88.0 | -0.12 | 138,357,544 |
""")[0]
HIDDEN = obfuscate(PAPER)


def test_fills_from_csv_at_the_printed_precision():
    out = "model,accuracy,f1,params\nvgg,0.88004,-0.1249,138357544\nresnet,0.91349,0.8471,25557032\n"
    filled = fill_heuristic(HIDDEN, out)
    assert filled.rows[0][1:] == ["91.3", "0.85", "25,557,032"]
    assert filled.rows[1][1:] == ["88.0", "-0.12", "138,357,544"]
    assert best_match(PAPER, render_markdown(filled)).success


def test_fills_from_log_lines_and_leaves_unreported_cells_hidden():
    log = "epoch 9 done\n[eval] ResNet  accuracy 91.27  f1 0.851  params 25557032\nsaved checkpoint\n"
    filled = fill_heuristic(HIDDEN, log)
    assert filled.rows[0][1:] == ["91.3", "0.85", "25,557,032"]
    assert filled.rows[1] == HIDDEN.rows[1]  # VGG never reported: stays ?


def test_nothing_to_fill_returns_the_hidden_table():
    assert fill_heuristic(HIDDEN, "no numbers here\n").rows == HIDDEN.rows


def test_model_answers_are_cached_by_input_hash(tmp_path):
    answer = ("| Model | Accuracy (%) | F1 | Params |\n|---|---|---|---|\n"
              "| ResNet | 91.3 | 0.85 | 25,557,032 |\n| VGG | 88.0 | -0.12 | 138,357,544 |")
    model = FakeListChatModel(responses=[answer, "| Model | x |\n|---|---|\n| ResNet | 1 |"])
    first, cached = fill_with_model(HIDDEN, "opaque log", model, tmp_path)
    again, cached_again = fill_with_model(HIDDEN, "opaque log", model, tmp_path)
    assert not cached and cached_again and first.rows == again.rows
    assert best_match(PAPER, render_markdown(first)).success
    assert len(list(tmp_path.iterdir())) == 1


def test_format_table_asks_the_model_only_for_what_the_heuristic_missed(tmp_path):
    model = FakeListChatModel(responses=["not a table"])
    csv = "model,accuracy,f1,params\nresnet,91.3,0.85,25557032\nvgg,88.0,-0.12,138357544\n"
    assert best_match(PAPER, render_markdown(format_table(HIDDEN, csv, model, tmp_path))).success
    assert not list(tmp_path.iterdir())  # the heuristic filled everything: no model call
    assert format_table(HIDDEN, "opaque", model, tmp_path).rows == HIDDEN.rows  # unusable answer: still hidden
