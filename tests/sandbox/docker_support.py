"""Helpers of the Docker sandbox tests: an engine with a suite's base image, sessions that are always closed,
and quick probes from the host of whether the package registries the network tests need can be reached."""
from __future__ import annotations

import os
import urllib.error
import urllib.request
from functools import cache
from pathlib import Path

import pytest

from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.image import EngineUnavailable, base_image_name, connect, debian_mirror, image_present


@cache
def _client():
    try:
        return connect(timeout=5), ""
    except EngineUnavailable as exc:
        return None, f"no Docker engine can run here: {exc}"


def engine():
    client, why = _client()
    if client is None:
        pytest.skip(why)
    return client


def need_suite(client, suite: str) -> str:
    """The suite's base image, or skip saying how to build it."""
    name = base_image_name(suite)
    if not image_present(client, name):
        pytest.skip(f"base image {name} missing (bash .ci/setup-docker.sh or "
                    f"`copilot doctor --build-base --suite {suite}` builds it)")
    return name


@cache
def _reachable(url: str) -> str:
    """'' when a HEAD request to url answers within a few seconds (any HTTP status), else why not."""
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=5).close()
        return ""
    except urllib.error.HTTPError:
        return ""
    except (OSError, ValueError) as exc:
        return f"{url} is not reachable from this machine ({exc})"


def need_pypi() -> None:
    index = os.environ.get("PIP_INDEX_URL", "")
    url = (index.rstrip("/") + "/six/") if index.startswith(("http://", "https://")) else "https://pypi.org/simple/six/"
    if why := _reachable(url):
        pytest.skip(f"no network to the package index: {why}")


def need_debian_mirror(suite: str) -> None:
    if why := _reachable(f"{debian_mirror()}/dists/{suite}/Release"):
        pytest.skip(f"no network to the Debian mirror: {why}")


def open_session(client, image: str, tmp_path: Path, opened: list, **limits):
    """A session over a one-file artifact in `image`; appended to `opened` so the test's fixture closes it."""
    from artifactcopilot.sandbox.docker import DockerSandbox

    art = tmp_path / "art"
    art.mkdir(exist_ok=True)
    (art / "run.py").write_text("print('ok')\n")
    settings = {"timeout_s": 300, "memory_mb": 1024, "max_processes": 256, "stall_s": None, **limits}
    sandbox = DockerSandbox(tmp_path / "scratch", Limits(**settings), image=image, client=client)
    opened.append(sandbox)
    return sandbox, sandbox.start(art)
