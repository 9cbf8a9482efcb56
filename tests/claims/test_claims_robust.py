"""Every claim check answers with a record, whatever text it is given."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from artifactcopilot.claims import (
    claim_numbers,
    compare_notebook_runs,
    find_claim_numbers,
    match_expected_output,
    stored_outputs,
    table_role,
)
from artifactcopilot.tables import Table

# Output-like text: digits, separators, percent signs, paths, prompts, escapes and odd unicode.
PIECES = list("0123456789.,%:/\\-+eE $>|[]()\n\r\t\x1b█…\u2212") + ["abc", "Table ", "np.float64(", "0x7f3a2b1c9d40"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=120).map("".join)


@settings(max_examples=60, deadline=None)
@given(TEXT, TEXT)
def test_expected_output_never_raises(doc, out):
    r = match_expected_output(doc, out)
    assert r.verdict in ("match", "partial", "mismatch", "not_established")
    assert r.lines_matched <= r.lines_total and r.numbers_matched <= r.numbers_total
    if r.verdict == "match":
        assert r.lines_total > 0  # never positive without something compared
    json.dumps(r.to_dict())


@settings(max_examples=60, deadline=None)
@given(TEXT, TEXT)
def test_claim_numbers_never_raise(paper, out):
    claims = claim_numbers(paper, [Table(header=["a", "b"], rows=[["x", paper[:8]]])])
    for m in find_claim_numbers(claims, out):
        assert not m.found or m.produced
        json.dumps(m.to_dict())


@settings(max_examples=40, deadline=None)
@given(TEXT)
def test_notebooks_and_roles_never_raise(text):
    assert stored_outputs(text).cells == [] or stored_outputs(text).error is None
    assert compare_notebook_runs(text, text).verdict == "not_established"
    assert table_role(Table(caption=text, header=[text[:20]], rows=[[text[:5], text[5:9]]]), text).role
