"""Which tables carry a paper's results, from the paper's own words: the sentences that cite a table (as
`TABLE II` in IEEE papers, `Table 3` elsewhere) and present it as what the paper found."""
from __future__ import annotations

from artifactcopilot.claims import table_role
from artifactcopilot.tables import Table

COUNTS = Table(label="Table II", caption="Link target types in the sample",
               header=["type", "common", "rare"], rows=[["license", "208", "1"], ["homepage", "55", "28"],
                                                        ["specification", "21", "32"]])


def test_table_cited_in_capitals_as_the_results_is_a_results_table():
    text = ("We sampled 1,146 links. As shown in TABLE II, our results differ by stratum: licenses dominate the "
            "common links. Section 4 discusses why.")
    role = table_role(COUNTS, text)
    assert role.role == "results", role.reason
    assert "cited as the results (citing text)" in role.results_signals


def test_a_mention_that_does_not_present_results_does_not_make_it_one():
    role = table_role(COUNTS, "Table II lists the link types we coded by hand.")
    assert role.role != "results"
    assert not any("cited as the results" in s for s in role.results_signals)


def test_another_tables_citation_is_not_this_tables():
    role = table_role(COUNTS, "TABLE III shows our results for each stratum.")
    assert not any("cited as the results" in s for s in role.results_signals)
