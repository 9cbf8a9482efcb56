"""The model-server check tells a busy server from a down one, against real sockets on 127.0.0.1: a server that
accepts the connection and answers slowly is waited for (bounded, and said), a refused port or a name that does not
resolve fails at once in one line. Before, both gave up after the probe's 5 s ("cannot reach the LLM endpoint …
ReadTimeout") — a loaded machine's local llama.cpp server was taken for a dead one."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_support import CarefulReviewer, FakeOpenAI

from artifactcopilot.llm.endpoint import LLMUnavailable, check_endpoint
from artifactcopilot.llm.settings import LLMSettings

ROOT = Path(__file__).resolve().parents[2]
PAPER, ARTIFACT = ROOT / "examples" / "wordfreq" / "paper.md", ROOT / "examples" / "wordfreq" / "artifact"


def _settings(url: str, probe: float, wait: float) -> LLMSettings:
    return LLMSettings(base_url=url, api_key="k", probe_timeout_s=probe, probe_wait_s=wait)


def _refused_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_that_answers_slowly_is_busy_and_waited_for(tmp_path):
    heard: list[str] = []
    with FakeOpenAI(CarefulReviewer(), models_delay=1.5) as server:
        check = check_endpoint(_settings(server.url, probe=0.3, wait=20), on_wait=heard.append)
    assert check.busy and 1.5 <= check.seconds < 10
    assert len(heard) == 1 and "accepted the connection but has not answered in 0.3 s: busy, not down" in heard[0]
    assert "waiting for it up to 20 s" in heard[0]


def test_a_busy_server_is_waited_for_only_up_to_the_bound():
    heard: list[str] = []
    started = time.monotonic()
    with FakeOpenAI(CarefulReviewer(), models_delay=30) as server:
        with pytest.raises(LLMUnavailable) as err:
            check_endpoint(_settings(server.url, probe=0.3, wait=1.5), on_wait=heard.append)
    took = time.monotonic() - started
    assert 1.5 <= took < 6, took
    assert str(err.value).startswith(f"the LLM endpoint {server.url} accepted the connection but did not answer "
                                     "within 2 s: busy, not down")
    assert "COPILOT_LLM_PROBE_WAIT_S" in err.value.hint and heard


def test_a_server_that_answers_at_once_is_neither_busy_nor_waited_for():
    heard: list[str] = []
    with FakeOpenAI(CarefulReviewer()) as server:
        check = check_endpoint(_settings(server.url, probe=5, wait=60), on_wait=heard.append)
    assert not check.busy and check.seconds < 5 and not heard


@pytest.mark.parametrize("url", [f"http://127.0.0.1:{_refused_port()}/v1", "http://no-such-host.invalid/v1"])
def test_a_down_server_fails_at_once_in_one_line(url):
    heard: list[str] = []
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as err:
        check_endpoint(_settings(url, probe=5, wait=120), on_wait=heard.append)
    assert time.monotonic() - started < 5  # not the busy wait: refused / not resolved is down
    assert str(err.value).startswith(f"cannot reach the LLM endpoint {url} (ConnectError: ")
    assert "\n" not in str(err.value) and not heard


def _review(out: Path, url: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COPILOT_LLM_"))}
    environ.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="test-key", COPILOT_LLM_BACKOFF_S="0.01", **env)
    return subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(PAPER), str(ARTIFACT),
                           "--out", str(out), "--agent", "llm", "--model", "gpt-4o-mini", "--sandbox", "local",
                           "--json"], capture_output=True, text=True, env=environ, timeout=300, cwd=ROOT, check=False)


def test_a_review_waits_for_a_busy_model_server_and_its_report_says_so(tmp_path):
    with FakeOpenAI(CarefulReviewer(), models_delay=1.0) as server:
        proc = _review(tmp_path / "run", server.url, COPILOT_LLM_PROBE_TIMEOUT="0.3", COPILOT_LLM_PROBE_WAIT_S="60")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["agent"] == "llm" and report["cost"]["llm_calls"] > 0
    busy = [f["message"] for f in report["flags"] if f["code"] == "llm-endpoint-busy"]
    assert len(busy) == 1 and "busy, not down" in busy[0] and "waits up to 60 s" in busy[0]


def test_a_review_against_a_server_busy_past_the_bound_stops_in_one_line(tmp_path):
    with FakeOpenAI(CarefulReviewer(), models_delay=30) as server:
        proc = _review(tmp_path / "run", server.url, COPILOT_LLM_PROBE_TIMEOUT="0.3", COPILOT_LLM_PROBE_WAIT_S="1")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the LLM endpoint ") and "busy, not down" in lines[0]
    assert "Traceback" not in proc.stderr
