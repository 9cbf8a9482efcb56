"""claims.numbers: numbers a paper's prose states, and whether a run's output shows them."""
from __future__ import annotations

import json

import pytest

from artifactcopilot.claims import ClaimNumber, claim_numbers, find_claim_numbers
from artifactcopilot.tables import parse_tables

PAPER = """# LinkRot: Decay of Links in Comments

**Venue:** ICSE 2019
**Artifact:** https://example.org/linkrot

## Abstract

We study around 9.6 million links in source code comments of 25,925 repositories (2018 snapshot).
Our detector reaches 99.2% precision and 69.9% recall, and runs at 0.38 seconds per 1k LoC.
It was evaluated on 42M samples and is 3.5x faster than the baseline [12, 14].
Almost 10% of the links are dead (Section 4.2, Figure 3, Table 2).

## 1 Introduction

We used Python 3.8 and pandas 1.2.4 with epsilon = 0.5 and n = 150 participants in 2020.
Our contributions are (1) a study of 9,654,702 links and (2) a tool; p < 0.05 throughout.
The 80th percentile is reached on a 3x3 grid, with a 95% confidence interval.

Table 2: Link targets by type

| type | links | share |
|---|---|---|
| license | 1,204,311 | 12.5% |
| homepage | 980,002 | 10.2% |

## References

[12] A. Author. A tool with 77.7% accuracy. 2017.
"""


@pytest.fixture(scope="module")
def claims() -> list[ClaimNumber]:
    return claim_numbers(PAPER, parse_tables(PAPER))


def test_claim_numbers_of_an_abstract(claims):
    assert [(c.text, c.kind) for c in claims] == [
        ("9.6 million", "scaled"), ("25,925", "count"), ("99.2%", "percent"), ("69.9%", "percent"),
        ("0.38", "decimal"), ("42M", "scaled"), ("3.5x", "ratio"), ("10%", "percent"), ("9,654,702", "count"),
    ]


def test_claim_values_contexts_and_tables(claims):
    by = {c.text: c for c in claims}
    assert by["42M"].value == 42e6 and by["42M"].scale == 1e6 and by["42M"].mantissa == 42
    assert by["9.6 million"].value == pytest.approx(9.6e6) and by["9.6 million"].decimals == 1
    assert by["99.2%"].percent and by["99.2%"].decimals == 1
    assert by["99.2%"].context.startswith("Our detector reaches 99.2% precision")
    assert by["10%"].table is None  # 10.2% is in Table 2, 10% is not
    json.dumps([c.to_dict() for c in claims])


def test_excluded_numbers(claims):
    texts = {c.text for c in claims}
    for excluded in ("2018", "2019", "2020", "4.2", "3", "2", "12", "14", "3.8", "1.2", "0.5", "150", "1", "0.05",
                     "80", "95%", "1,204,311", "12.5%", "10.2%", "77.7%", "1k"):
        assert excluded not in texts, excluded


def test_table_label_for_prose_repeating_a_table():
    text = "Table 2: Shares\n\n| type | share |\n|---|---|\n| license | 12.5% |\n| other | 7.5% |\n\n" \
           "Licenses account for 12.5% of all links."
    [c] = claim_numbers(text, parse_tables(text))
    assert c.text == "12.5%" and c.table == "Table 2"


def test_latex_and_pdf_text_shapes():
    tex = r"""\section{Results} Our approach improves accuracy to 91.3\% \cite{x}, see Table~\ref{t}.
\begin{table}\begin{tabular}{lr} A & 0.913 \\ B & 0.871 \\ \end{tabular}\end{table}
2.1 Dataset We collected 1,123,393 commits.
Year 0 200000 400000 600000 800000 annotations per year"""
    assert [c.text for c in claim_numbers(tex, [])] == ["91.3%", "1,123,393"]


def test_bad_input_never_raises():
    assert claim_numbers("", []) == []
    assert claim_numbers(None, None) == []  # type: ignore[arg-type]
    assert isinstance(claim_numbers("9" * 100_000 + "% of everything.", []), list)


# ---------------------------------------------------------------------------------- found in output

def _found(claims, produced: str) -> dict[str, str | None]:
    return {m.claim.text: (m.via if m.found else None) for m in find_claim_numbers(claims, produced)}


def test_found_at_printed_precision(claims):
    out = ("Total links: 9,654,702\nprecision=99.21% recall=69.87%\nrepositories 25925\n"
           "processed 42,131,007 samples\nspeedup vs baseline: 3.52\nmean seconds per 1k LoC 0.3849\n")
    found = _found(claims, out)
    assert found["9,654,702"] == "same" and found["25,925"] == "same"
    assert found["99.2%"] == "same" and found["69.9%"] == "same"
    assert found["42M"] == "scaled" and found["3.5x"] == "same" and found["0.38"] == "same"
    assert found["9.6 million"] is None  # 9,654,702 rounds to 9.7 million
    assert found["10%"] is None


def test_not_found_when_numbers_differ(claims):
    found = _found(claims, "precision 98.7%\nrecall 0.70\nrepositories 25,926\n3.4x faster\n")
    assert found["99.2%"] is None and found["69.9%"] is None and found["25,925"] is None and found["3.5x"] is None


def test_percent_versus_fraction_trap():
    [rate] = claim_numbers("The classifier reaches 84.7% accuracy on the test set.", [])
    [plain] = claim_numbers("The mean score is 84.7 on the test set.", [])
    [corr] = claim_numbers("Annotations and errors show a 0.847 correlation overall.", [])
    assert rate.percent and not plain.percent
    assert _found([rate], "accuracy: 0.8472")["84.7%"] == "fraction"  # a rate: the fraction shows it
    assert _found([rate], "accuracy: 0.85")["84.7%"] is None  # not enough digits
    assert _found([plain], "score: 0.847")["84.7"] is None  # no %: 0.847 is not 84.7
    assert _found([corr], "correlation: 84.7%")["0.847"] is None  # nor is 84.7% a plain 0.847
    [share] = claim_numbers("A total of 12.5% links point to licenses.", [])
    assert _found([share], "licenses 0.1251")["12.5%"] is None  # neither a rate nor a percent line
    assert _found([share], "licenses (percent) 0.1251")["12.5%"] == "fraction"


def test_few_digits_need_a_shared_word():
    [c] = claim_numbers("Almost 10% of the links are dead.", [])
    assert _found([c], "epoch 10 loss 3.2")["10%"] is None
    [m] = find_claim_numbers([c], "dead links: 10.0%")
    assert m.found and m.produced == "10.0%" and "dead" in m.reason


def test_nothing_produced_is_never_found(claims):
    assert all(not m.found and m.reason for m in find_claim_numbers(claims, ""))
    assert all(not m.found for m in find_claim_numbers(claims, "no numbers here"))
    assert find_claim_numbers([], "1 2 3") == []
