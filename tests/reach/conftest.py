"""The stand-in web (standin.py) as a fixture: the made-up hosts of shapes.py answered on 127.0.0.1, named to the
review as the host's proxy (http_proxy) and as its GitHub API (ARTIFACTCOPILOT_GITHUB_URL); nothing else is
reachable through it."""
from __future__ import annotations

import pytest

from .shapes import serve
from .standin import StandIn


@pytest.fixture
def web(tmp_path, monkeypatch):
    with StandIn() as stand_in:
        serve(stand_in, tmp_path / "hosts")
        for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
            monkeypatch.setenv(name, stand_in.base)
        for name in ("no_proxy", "NO_PROXY"):
            monkeypatch.setenv(name, "127.0.0.1,localhost")
        monkeypatch.setenv("ARTIFACTCOPILOT_GITHUB_URL", stand_in.base)
        monkeypatch.setenv("ARTIFACTCOPILOT_CACHE_DIR", str(tmp_path / "cache"))
        yield stand_in


def need_backend(name: str) -> None:
    """Skip, saying why, when this machine cannot run the sandbox `name`."""
    from artifactcopilot.sandbox.registry import SandboxOptions, backend

    problem = backend(name).check(SandboxOptions())
    if problem:
        pytest.skip(f"{name} sandbox unavailable: {problem}")
