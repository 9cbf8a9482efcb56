"""Docker Engine access, labels, the names of the base images, orphan lookup and `copilot doctor`'s rows.

No registry is assumed reachable: the base images (one per Debian suite, hence per Python version) are
built locally by sandbox/baseimage.py. Everything a review creates carries LABEL so that `copilot doctor`
can find what a crashed review left behind.
"""
from __future__ import annotations

import os
import re
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import CopilotError

BASE_REPOSITORY = "artifactcopilot/base"
"""Base images are BASE_REPOSITORY:<Debian suite> (built by sandbox/baseimage.py)."""
DEFAULT_SUITE = "bookworm"
DEFAULT_IMAGE = f"{BASE_REPOSITORY}:{DEFAULT_SUITE}"
LABEL = "io.artifactcopilot"
"""Set to '1' on every container and image this tool creates."""
ROLE = "io.artifactcopilot.role"
"""base (kept), session or judge (containers), artifact (images built from an artifact's Dockerfile)."""
OWNER = "io.artifactcopilot.owner"
"""host:pid of the review process; a resource whose owner is gone is an orphan."""
DEFAULT_MIRROR = "http://deb.debian.org/debian"


class EngineUnavailable(CopilotError):
    """The Docker Engine cannot be reached (not installed, not running, or no permission)."""


def base_image_name(suite: str) -> str:
    return f"{BASE_REPOSITORY}:{suite}"


def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def labels(role: str, review: str = "") -> dict[str, str]:
    out = {LABEL: "1", ROLE: role, OWNER: owner_id()}
    if review:
        out["io.artifactcopilot.review"] = review
    return out


def connect(timeout: float = 10.0):
    """A client for the engine named by DOCKER_HOST (default: the local socket), or EngineUnavailable."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError:  # pragma: no cover - docker is a declared dependency
        raise EngineUnavailable("the docker Python package is not installed", "pip install docker") from None
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
        return client
    except (DockerException, OSError) as exc:
        reason = str(exc).split("\n")[0][:160]
        raise EngineUnavailable(f"Docker engine not reachable ({reason})",
                                "start dockerd (see .ci/setup-docker.sh) or use --sandbox local") from None


def engine_reachable() -> bool:
    try:
        connect(timeout=5).close()
        return True
    except EngineUnavailable:
        return False


def image_present(client, name: str) -> bool:
    from docker.errors import ImageNotFound

    try:
        client.images.get(name)
        return True
    except ImageNotFound:
        return False


def debian_mirror() -> str:
    """The Debian mirror apt already uses here (a registry this machine reaches), else the default."""
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        match = re.search(r"^(?:URIs:|deb)\s+(?:\[[^\]]*\]\s+)?(https?://\S+/debian)/?\s*$", text, re.MULTILINE)
        if match:
            return match.group(1)
    return DEFAULT_MIRROR


@dataclass
class Orphan:
    kind: str  # container | image
    id: str
    name: str
    owner: str


def _owner_alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another machine's review: not ours to judge
    try:
        os.kill(int(pid), 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def orphans(client) -> list[Orphan]:
    """Labelled containers and artifact images whose review process is gone, and base images a rebuild replaced
    (untagged) while a container still used them."""
    found = []
    # sparse: no inspect per container, which would race with reviews removing theirs meanwhile
    for c in client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}=1"}):
        owner = (c.attrs.get("Labels") or {}).get(OWNER, "")
        if not _owner_alive(owner):
            name = (c.attrs.get("Names") or ["/" + c.short_id])[0].lstrip("/")
            found.append(Orphan("container", c.short_id, name, owner))
    for img in client.images.list(filters={"label": f"{LABEL}=1"}):
        owner = img.labels.get(OWNER, "")
        replaced = img.labels.get(ROLE) == "base" and not img.tags
        if replaced or img.labels.get(ROLE) != "base" and not _owner_alive(owner):
            found.append(Orphan("image", img.short_id, ",".join(img.tags) or f"{img.short_id} (replaced base image)",
                                owner))
    return found


def remove_orphans(client, found: list[Orphan]) -> int:
    from docker.errors import APIError, NotFound

    removed = 0
    for orphan in sorted(found, key=lambda o: o.kind):  # containers first, then their images
        try:
            if orphan.kind == "container":
                client.containers.get(orphan.id).remove(force=True)
            else:
                client.images.remove(orphan.id, force=True)
            removed += 1
        except (NotFound, APIError):
            pass
    return removed


def doctor_rows(image: str, clean: bool = False, build_base: bool = False) -> list[tuple[str, str, str]]:
    """`copilot doctor` rows for the Docker backend: engine, base images per suite, leftovers of earlier reviews.

    `image` is the image reviews start from (the default suite's base image unless --image names another);
    build_base builds it when it is a base image that is missing or outdated."""
    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        return [("docker engine", "FAIL", f"{exc} — {exc.hint}")]
    version = client.version()
    engine = (f"{version.get('Version', '?')} (API {version.get('ApiVersion', '?')}), "
              f"cgroup v{client.info().get('CgroupVersion', '?')}")
    rows = [("docker engine", "ok", engine)]
    if build_base:
        rows += build_rows(client, [image])
    rows += image_rows(client, image)
    found = orphans(client)
    if found and clean:
        removed = remove_orphans(client, found)
        return rows + [("orphaned resources", "ok", f"removed {removed} of {len(found)}")]
    rows.append(("orphaned resources", "FAIL" if found else "ok",
                 f"{len(found)} left by reviews that are gone — remove with `copilot doctor --clean`" if found
                 else "none"))
    return rows + [(f"  orphan {o.kind}", "FAIL", o.name + (f" (review process {o.owner})" if o.owner else ""))
                   for o in found[:20]]


def build_rows(client, images: list[str], log: Callable[[str], None] | None = None) -> list[tuple[str, str, str]]:
    """Build each base image that is missing or outdated; one doctor row each. Progress goes to `log`
    (default: standard error, since a build takes minutes)."""
    log = log or (lambda line: print(f"build: {line}", file=sys.stderr, flush=True))
    from .baseimage import build_base_image, inspect_base

    rows = []
    for name in images:
        suite = name.rpartition(":")[2] if name.startswith(f"{BASE_REPOSITORY}:") else ""
        if not suite:
            rows.append((f"build {name}", "FAIL", "not a base image: only artifactcopilot/base:<suite> is built here"))
            continue
        status = inspect_base(client, suite)
        if status.present and status.current:
            rows.append((f"build {suite}", "ok", "already present"))
            continue
        try:
            built = build_base_image(client, name, suite=suite, log=log)
            rows.append((f"build {suite}", "ok", f"built now in {built.seconds:.0f} s ({built.size_mb} MB)"))
        except Exception as exc:  # noqa: BLE001 - reported as a failed check
            rows.append((f"build {suite}", "FAIL", str(exc).splitlines()[0][:200]))
    return rows


def image_rows(client, image: str) -> list[tuple[str, str, str]]:
    """The image reviews start from (FAIL when missing), then every suite's base image (warn when missing)."""
    from .baseimage import SUITES, image_python, inspect_base

    rows = []
    if not image.startswith(f"{BASE_REPOSITORY}:"):
        present = image_present(client, image)
        python, codename = image_python(client, image) if present else ("", "")
        rows.append(("image", "ok" if present else "FAIL", f"{image}: Python {python or 'none'} ({codename or '?'})"
                     if present else f"{image} missing — docker pull or build it, or drop --image"))
    default = image.rpartition(":")[2] if image.startswith(f"{BASE_REPOSITORY}:") else ""
    for suite in dict.fromkeys([*([default] if default else []), *SUITES]):
        status = inspect_base(client, suite)
        level = "ok" if status.present and status.current else "FAIL" if suite == default and not status.present \
            else "warn"
        rows.append((f"base image {suite}", level, status.describe()))
    return rows
