"""Base images on a real engine: what each suite's image has, pip and apt with network, the interpreters a
sandbox offers, switching a review to another suite, /dev/shm, the CA bundle, a JVM under the memory limit."""
from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docker_support import engine, need_debian_mirror, need_pypi, need_suite, open_session

from artifactcopilot.sandbox.base import CA_BUNDLE
from artifactcopilot.sandbox.baseimage import SUITES, inspect_base
from artifactcopilot.sandbox.image import DEFAULT_IMAGE, base_image_name

pytestmark = pytest.mark.docker


@pytest.fixture
def opened():
    sandboxes: list = []
    yield sandboxes
    for sandbox in sandboxes:
        sandbox.close()


@pytest.fixture(scope="module")
def client():
    return engine()


@pytest.mark.parametrize("suite", list(SUITES))
def test_each_suite_image_has_python_pip_venv_and_build_tools(suite, client, tmp_path, opened):
    image = need_suite(client, suite)
    assert inspect_base(client, suite).current, f"{image} was built by an older recipe: rebuild it"
    _, session = open_session(client, image, tmp_path, opened)
    res = session.run("python3 --version && python3 -m venv /tmp/v && /tmp/v/bin/python -m pip --version"
                      " && python3 -c 'import sysconfig, os; assert os.path.exists(sysconfig.get_paths()[\"include\"]"
                      " + \"/Python.h\")' && gcc --version && g++ --version && make --version && git --version"
                      " && curl --version && wget --version && unzip -v && xz --version && bzip2 --help"
                      " && ps --version && test -s /etc/ssl/certs/ca-certificates.crt")
    assert res.record.ok, res.record.stderr
    assert re.match(rf"Python {re.escape(SUITES[suite])}\.\d+", res.record.stdout), res.record.stdout
    # no docs
    assert not session.run("find /usr/share/doc /usr/share/man -type f ! -name copyright | head -1").record.stdout


@pytest.mark.parametrize("suite", list(SUITES))
def test_pip_installs_from_the_index_in_every_suite(suite, client, tmp_path, opened):
    image = need_suite(client, suite)
    need_pypi()
    _, session = open_session(client, image, tmp_path, opened)
    install = session.run("python3 -m venv /opt/copilot/venv && /opt/copilot/venv/bin/python -m pip install six",
                          network=True)
    assert install.record.ok and install.record.network, install.record.stderr[-2000:]
    used = session.run("/opt/copilot/venv/bin/python -c 'import six; print(six.__version__)'").record
    assert used.ok and re.fullmatch(r"\d+\.\d+\.\d+\s*", used.stdout) and not used.network


@pytest.mark.slow
def test_apt_installs_a_system_package_with_network(client, tmp_path, opened):
    need_debian_mirror("bookworm")
    _, session = open_session(client, need_suite(client, "bookworm"), tmp_path, opened)
    res = session.run("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
                      "gnuplot-nox && gnuplot --version", network=True)
    assert res.record.ok, res.record.stderr[-2000:]
    assert "gnuplot 5" in res.stdout_full.decode()  # the record keeps only the head of a long output
    plot = session.run("gnuplot -e 'set terminal dumb; plot sin(x)' | head -3")  # no network needed to use it
    assert plot.record.ok and plot.record.stdout.strip()


@pytest.mark.slow
def test_a_jvm_starts_under_the_memory_limit_and_apt_can_regenerate_the_ca_bundle(client, tmp_path, opened):
    need_debian_mirror("bookworm")
    _, session = open_session(client, need_suite(client, "bookworm"), tmp_path, opened, memory_mb=2048)
    install = session.run("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
                          "--no-install-recommends default-jre-headless", network=True)  # runs update-ca-certificates
    assert install.record.ok, install.record.stderr[-2000:]
    java = session.run("java -XX:+PrintFlagsFinal -version 2>&1 | grep -E 'MaxHeapSize|openjdk version'").record
    assert java.ok and "openjdk version" in java.stdout
    heap = int(re.search(r"MaxHeapSize\s*=\s*(\d+)", java.stdout).group(1))
    assert heap <= 2048 << 20  # sized from the container's limit, and it started


def test_the_host_ca_bundle_is_a_copy_that_apt_can_regenerate(client, tmp_path, opened):
    if not Path(CA_BUNDLE).is_file():
        pytest.skip(f"the host has no CA bundle at {CA_BUNDLE}")
    _, session = open_session(client, DEFAULT_IMAGE, tmp_path, opened)
    digest = hashlib.sha256(Path(CA_BUNDLE).read_bytes()).hexdigest()
    seen = session.run(f"sha256sum {CA_BUNDLE}; grep {CA_BUNDLE} /proc/mounts || echo not-mounted").record
    assert seen.stdout.split()[0] == digest and "not-mounted" in seen.stdout
    regenerated = session.run(f"update-ca-certificates >/dev/null 2>&1 && sha256sum {CA_BUNDLE}").record
    assert regenerated.ok, regenerated.stderr
    last = Path(CA_BUNDLE).read_text().strip().split("-----BEGIN CERTIFICATE-----")[-1].split("-----END")[0]
    kept = session.run(f"grep -c '{last.strip().splitlines()[-1]}' {CA_BUNDLE}").record
    assert kept.ok and int(kept.stdout) >= 1  # the host's authorities survive a regeneration
    assert Path(CA_BUNDLE).read_text().count("BEGIN CERTIFICATE") > 0  # the host's file is untouched


def test_dev_shm_is_large_enough_for_multiprocessing(client, tmp_path, opened):
    _, session = open_session(client, DEFAULT_IMAGE, tmp_path, opened)
    script = ("from multiprocessing import Pool, shared_memory\n"
              "shm = shared_memory.SharedMemory(create=True, size=200 << 20)\n"
              "shm.buf[:] = b'x' * len(shm.buf)\n"  # more than Docker's default 64 MB /dev/shm
              "with Pool(2) as pool: print(sum(pool.map(abs, range(-5, 5))))\n"
              "shm.close(); shm.unlink()\n")
    (session.root / "mp.py").write_text(script)
    res = session.run("python3 mp.py && df -m /dev/shm | tail -1").record
    assert res.ok, res.stderr
    assert res.stdout.splitlines()[0] == "25" and int(res.stdout.splitlines()[1].split()[1]) >= 512


def test_interpreters_offer_each_base_image_present(client, tmp_path, opened):
    need_suite(client, "bookworm")
    sandbox, _ = open_session(client, DEFAULT_IMAGE, tmp_path, opened)
    offered = sandbox.interpreters()
    present = {python: suite for suite, python in SUITES.items() if inspect_base(client, suite).present}
    assert offered == present and offered["3.11"] == "bookworm"


def _custom_image(client, tag: str, fake_python: str | None) -> None:
    """An image derived from the base one whose python3 reports `fake_python` (None: it has no python3)."""
    import io

    run = ("rm -f /usr/bin/python3*" if fake_python is None else
           f"printf '#!/bin/sh\\necho python3={fake_python}\\n' > /usr/local/bin/python3"
           " && chmod +x /usr/local/bin/python3")
    dockerfile = f"FROM {DEFAULT_IMAGE}\nRUN {run}\n"
    list(client.api.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True, decode=True))


@pytest.mark.parametrize("fake_python", ["3.7.9", None], ids=["own-python", "no-python"])
def test_a_custom_image_offers_only_its_own_python(fake_python, client, tmp_path, opened):
    need_suite(client, "bookworm")
    tag = f"copilot-test/custom-{tmp_path.name.lower()}:latest"
    _custom_image(client, tag, fake_python)
    try:
        sandbox, session = open_session(client, tag, tmp_path, opened)
        assert sandbox.interpreters() == ({"3.7": "bookworm"} if fake_python else {})
        stay = session.use_suite("bookworm")
        assert stay.record.ok == bool(fake_python) and session.image == tag
        other = session.use_suite("trixie").record
        assert other.exit_code == 1 and f"runs in {tag}" in other.stderr and session.image == tag
        assert session.run("echo still here").record.ok
    finally:
        for sandbox in opened:
            sandbox.close()
        opened.clear()
        client.images.remove(tag, force=True)


def test_use_suite_recreates_the_container_and_keeps_the_artifact(client, tmp_path, opened):
    need_suite(client, "bookworm")
    target = need_suite(client, "trixie")
    sandbox, session = open_session(client, DEFAULT_IMAGE, tmp_path, opened)
    assert "suites" in session.capabilities
    session.run("echo kept > step.txt")
    old = session.container.id
    switched = session.use_suite("trixie")
    assert switched.record.ok and "Python 3.13" in switched.record.stdout, switched.record.stderr
    assert session.container.id != old and session.image == target == sandbox.image
    assert not client.containers.list(all=True, filters={"id": old})  # the old container is gone
    res = session.run("cat step.txt && python3 --version").record
    assert res.stdout.splitlines()[0] == "kept" and res.stdout.splitlines()[1].startswith("Python 3.13")
    judge = sandbox.fresh(tmp_path / "art")
    assert judge.run("python3 --version").record.stdout.startswith("Python 3.13")  # judges use the same image
    assert f"image {target}" in sandbox.enforcement().describe()
    assert session.use_suite("trixie").record.stdout.startswith("already running")


def test_use_suite_refuses_a_missing_or_malformed_suite_without_raising(client, tmp_path, opened):
    need_suite(client, "bookworm")
    _, session = open_session(client, DEFAULT_IMAGE, tmp_path, opened)
    session.run("echo kept > step.txt")
    missing = session.use_suite("nosuchsuite").record
    assert missing.exit_code == 1 and "not present" in missing.stderr
    assert "copilot doctor --build-base --suite nosuchsuite" in missing.stderr
    malformed = session.use_suite("Bad Suite; rm -rf /").record
    assert malformed.exit_code == 1 and "not a Debian suite" in malformed.stderr
    assert session.image == DEFAULT_IMAGE and session.run("cat step.txt").record.stdout.strip() == "kept"


def test_an_outdated_base_image_is_reported_and_suites_are_listed(client):
    need_suite(client, "bookworm")
    import io

    suite = "zzoldrecipe"
    tag = base_image_name(suite)
    dockerfile = f"FROM {DEFAULT_IMAGE}\nLABEL io.artifactcopilot.recipe=older io.artifactcopilot.suite={suite}\n"
    list(client.api.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, decode=True))
    try:
        status = inspect_base(client, suite)
        assert status.present and not status.current and "older recipe" in status.describe()
    finally:
        client.images.remove(tag, force=True)
    env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "doctor"],
                         capture_output=True, text=True, check=False, env=env, timeout=60).stdout
    for suite in SUITES:
        assert re.search(rf"base image {suite}\s*│\s*(ok|warn)", out), out
    built = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "doctor", "--build-base",
                            "--suite", "bookworm", "--suite", "Not A Suite"],
                           capture_output=True, text=True, check=False, env=env, timeout=60)
    assert re.search(r"build Not A Suite\s*│\s*FAIL", built.stdout) and built.returncode == 1, built.stdout
    alone = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "doctor", "--suite", "trixie"],
                           capture_output=True, text=True, check=False, env=env, timeout=60)
    assert alone.returncode == 2 and "--build-base" in alone.stderr
