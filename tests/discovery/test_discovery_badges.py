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
