"""Why a fetch failed, in words, from what the usual programs print (sandbox/networds.py); and which runs failed for
want of network (a run that downloads at run time)."""
from __future__ import annotations

import pytest

from artifactcopilot.sandbox.networds import fetch_error, final_url, wants_network

CASES = [
    ("wget: unable to resolve host address 'zenodo.org'", "host unreachable"),
    ("curl: (6) Could not resolve host: drive.google.com", "host unreachable"),
    ("urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>", "host unreachable"),
    ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x.org', port=443): Max retries exceeded with url:"
     " /a (Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] Connection refused'))",
     "host unreachable"),
    ("fatal: unable to access 'https://gitlab.lab.example/x.git/': Could not resolve host: gitlab.lab.example",
     "host unreachable"),
    ("Proxy request sent, awaiting response... 502 Bad Gateway\n2026-01-01 ERROR 502: Bad Gateway.",
     "host unreachable"),
    ("HTTP request sent, awaiting response... 404 Not Found\n2026-01-01 ERROR 404: Not Found.", "not found (404)"),
    ("curl: (22) The requested URL returned error: 401", "login or token required"),
    ("OSError: Could not find kaggle.json. Make sure it's located in /root/.kaggle.", "login or token required"),
    ("huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo", "login or token required"),
    ("Access denied with the following error:\n Too many users have viewed or downloaded this file recently.",
     "quota or rate limit reached"),
    ("ERROR 429: Too Many Requests.", "quota or rate limit reached"),
]


@pytest.mark.parametrize(("output", "words"), CASES, ids=[w + str(i) for i, (_, w) in enumerate(CASES)])
def test_the_error_of_a_failed_fetch_in_words(output, words):
    assert fetch_error(output).words == words


def test_a_host_whose_name_reads_like_an_error_says_nothing_by_its_name():
    out = "--2026-01-01--  http://data.gone.example/404/latency.csv\nERROR 502: Bad Gateway."
    assert fetch_error(out).words == "host unreachable"


def test_time_and_size_caps_are_named():
    assert fetch_error("", timed_out=True, limits=["timeout after 600s"]).words.startswith("too slow")
    assert fetch_error("", limits=["file size limit 1024 MB"]).words.startswith("too large")


def test_runs_that_failed_for_want_of_network():
    assert wants_network("urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>")
    assert wants_network("pip._vendor.urllib3.exceptions.NewConnectionError: Failed to establish a new connection")
    assert not wants_network("FileNotFoundError: [Errno 2] No such file or directory: 'data/latency.csv'")
    assert not wants_network("KeyError: 'connection'")


def test_the_final_url_follows_the_redirects_the_output_shows():
    out = "HTTP request sent, awaiting response... 302 Found\nLocation: https://cdn.example/f.csv [following]\n"
    assert final_url("http://x.example/f.csv", out) == "https://cdn.example/f.csv"
    assert final_url("http://x.example/f.csv", "") == "http://x.example/f.csv"
