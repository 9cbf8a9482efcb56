"""Requested badges in the phrasings authors use; a badge-application document outranks README prose."""
from __future__ import annotations

import pytest

from artifactcopilot.discovery.badges import find_request, requested_badges


@pytest.mark.parametrize(("text", "role", "badges"), [
    ("Requested Badge(s):\n  - [x] **Available**\n  - [ ] **Functional**\n  - [x] **Reproduced**\n", "artifact",
     ["available", "reproduced"]),
    ("Requested Badge: **Reproduced, Functional and Available**\n", "artifact",
     ["available", "functional", "reproduced"]),
    ("# Artifact Badge\n\nWe are applying for Available badge based on the following reasons:\n", "status",
     ["available"]),
    ("ESEC/FSE Artifacts\n\nSubmission for Functional, Reusable, and Available Badges.\n", "status",
     ["available", "functional", "reusable"]),
    (('This artifact is applying towards the three badges "Evaluated-Functional", "Evaluated-Reusable", \n'
      'and "Available" for the following reasons:\n'), "status", ["available", "functional", "reusable"]),
    ("# Application for Badges\n\n## Available\n\nText.\n\n## Reusable\n\nMore text.\n", "status",
     ["available", "reusable"]),
    ("We request the Results Reproduced badge.\n", "artifact", ["reproduced"]),
])
def test_phrasings(text, role, badges):
    assert find_request(text, "X.md", role).badges == badges


def test_no_request_and_non_badge_mentions():
    assert find_request("# Tool\n\nThe data is available at Zenodo upon request.\n", "README.md", "readme") is None
    assert find_request("We did not request the reproduced badge.\n", "STATUS.md", "status") is None


def test_application_document_outranks_readme(run):
    found = run({"README.md": "- `STATUS.md` - application of an artifact badge of reusable\n",
                 "STATUS.md": "We are applying for Available badge.\n"})
    assert (found.requested_badges.badges, found.requested_badges.source) == (["available"], "STATUS.md:1")
    assert requested_badges([("README.md", "readme", "We apply for the reusable badge.")]).badges == ["reusable"]


STATUS_TWO_BULLETS = """# STATUS

## Badges: Available, Functional, and Reusable

- The code and data are archived with a DOI, so we apply for the Available badge.

- The scripts regenerate every table of the paper and are documented for reuse, so we apply for Functional and
  Reusable badges.
"""


def test_an_application_is_read_whole_the_union_of_its_statements():
    """Two bullets, each asking for part of the application: nothing is declined (the first alone said Available)."""
    request = find_request(STATUS_TWO_BULLETS, "STATUS.md", "status")
    assert request.badges == ["available", "functional", "reusable"]
    assert "3: ## Badges: Available, Functional, and Reusable" in request.text
    assert "we apply for Functional and" in request.text


def test_bullets_without_a_heading_are_united_too():
    text = ("- We apply for the Available badge: the repository is public.\n\n"
            "- We also apply for the Functional badge.\n")
    assert find_request(text, "STATUS.md", "status").badges == ["available", "functional"]


def test_a_statement_that_declines_stays_out_of_the_union():
    text = ("We apply for the Available badge.\n\n"
            "We do not apply for the Reusable badge, as the code is specific to our testbed.\n")
    assert find_request(text, "STATUS.md", "status").badges == ["available"]
