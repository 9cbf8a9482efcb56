"""The artifact's temporary directory in both backends: on disk, executable (a build that loads a module it just
put under /tmp works), sized by the review's disk budget (a command that fills it is stopped, the limit named as
the review's), and a command that stays within it is untouched."""
from __future__ import annotations

import pytest

from artifactcopilot.sandbox import bwrap
from artifactcopilot.sandbox.base import Limits


def review_limits(notes):
    from artifactcopilot.sandbox.tmpspace import review_limits as named

    return named(notes)

# A module compiled for the interpreter, copied under /tmp and imported from there: what a build does when it loads a
# Cython-built helper from its isolated build environment. A noexec /tmp fails it with "failed to map segment".
LOAD_FROM_TMP = r"""
set -e
grep ' /tmp ' /proc/mounts || true
so=$(python3 -c 'import _json; print(_json.__file__)')
d=$(mktemp -d)
cp "$so" "$d/_copied_json.so"
python3 - "$d/_copied_json.so" <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.ExtensionFileLoader("_json", sys.argv[1])
module = importlib.util.module_from_spec(importlib.util.spec_from_file_location("_json", sys.argv[1], loader=loader))
loader.exec_module(module)
print("loaded from", sys.argv[1])
PY
"""
FILL = "dd if=/dev/zero of=/tmp/fill bs=1M count={mb} status=none; sleep 8; echo wrote"


def _docker(tmp_path, **limits):
    from artifactcopilot.sandbox.docker import DockerSandbox
    from artifactcopilot.sandbox.image import DEFAULT_IMAGE, EngineUnavailable, connect, image_present

    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine can run here: {exc}")
    if not image_present(client, DEFAULT_IMAGE):
        pytest.skip(f"base image {DEFAULT_IMAGE} missing")
    return DockerSandbox(tmp_path / "scratch", Limits(timeout_s=60, **limits), client=client)


def _local(tmp_path, **limits):
    from artifactcopilot.sandbox.local import LocalSandbox

    if bwrap.probe() is not None:
        pytest.skip(f"no local sandbox here: {bwrap.probe()}")
    return LocalSandbox(tmp_path / "scratch", Limits(timeout_s=60, **limits))


BACKENDS = {"docker": _docker, "local": _local}


@pytest.fixture(params=sorted(BACKENDS))
def session_of(request, tmp_path):
    opened = []

    def _open(**limits):
        art = tmp_path / "art"
        art.mkdir(exist_ok=True)
        (art / "README.md").write_text("# a\n")
        sandbox = BACKENDS[request.param](tmp_path, **limits)
        opened.append(sandbox)
        return sandbox, sandbox.start(art)

    yield _open
    for sandbox in opened:
        sandbox.close()


def test_a_module_put_under_tmp_can_be_loaded(session_of):
    _, session = session_of()
    res = session.run(LOAD_FROM_TMP)
    text = res.stdout_full.decode() + res.stderr_full.decode()
    assert res.record.exit_code == 0, text
    assert "loaded from /tmp/" in text and "failed to map segment" not in text
    assert "noexec" not in next((ln for ln in text.splitlines() if " /tmp " in ln), "")
    assert session.run("echo $TMPDIR").stdout_full.decode().strip() == "/tmp"


def test_filling_tmp_past_the_disk_budget_is_stopped_as_the_reviews_limit(session_of):
    sandbox, session = session_of(tmp_mb=24)
    res = session.run(FILL.format(mb=48))
    notes = res.record.limits_hit
    assert any(n.startswith("disk budget 24 MB for temporary files exceeded") for n in notes), notes
    assert review_limits(notes) and res.record.exit_code is None
    assert "disk budget of 24 MB" in sandbox.enforcement().describe()
    # what the stopped command left is cleared: the next command is not stopped by it
    after = session.run("du -sm /tmp | cut -f1")
    assert after.record.exit_code == 0 and int(after.stdout_full.decode().split()[0]) < 24


def test_a_command_within_the_disk_budget_is_untouched(session_of):
    _, session = session_of(tmp_mb=64)
    res = session.run(FILL.format(mb=8))
    assert res.record.exit_code == 0 and "wrote" in res.stdout_full.decode()
    assert not review_limits(res.record.limits_hit), res.record.limits_hit


def test_no_space_and_noexec_in_a_commands_output_name_the_reviews_limit():
    from artifactcopilot.sandbox.tmpspace import space_notes

    notes = space_notes(b"OSError: [Errno 28] No space left on device: '/tmp/pip-unpack-1/tensorflow.whl'", 512, 90)
    assert notes and notes[0].startswith("disk space ran out") and "512 MB" in notes[0] and "90 MB" in notes[0]
    notes = space_notes(b"ImportError: /tmp/pip-build-env-x/lib/_x.so: failed to map segment from shared object", 512)
    assert notes and notes[0].startswith("exec refused") and review_limits(notes) == notes
    assert space_notes(b"ERROR: No matching distribution found for numpy==99.0", 512) == []
