"""Docker Engine access, labels, the locally built base image and orphan lookup.

No registry is assumed reachable: the base image is a Debian minbase root file system made by
`debootstrap` and imported with `docker import`. Everything a review creates carries LABEL so that
`copilot doctor` can find what a crashed review left behind.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import CopilotError

DEFAULT_IMAGE = "artifactcopilot/base:bookworm"
LABEL = "io.artifactcopilot"
"""Set to '1' on every container and image this tool creates."""
ROLE = "io.artifactcopilot.role"
"""base (kept), session or judge (containers), artifact (images built from an artifact's Dockerfile)."""
OWNER = "io.artifactcopilot.owner"
"""host:pid of the review process; a resource whose owner is gone is an orphan."""
DEFAULT_MIRROR = "http://deb.debian.org/debian"


class EngineUnavailable(CopilotError):
    """The Docker Engine cannot be reached (not installed, not running, or no permission)."""


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
        match = re.search(r"^(?:URIs:|deb)\s+(?:\[[^\]]*\]\s+)?(https?://\S+/debian)/?\s*$", text, re.M)
        if match:
            return match.group(1)
    return DEFAULT_MIRROR


def build_base_image(client, name: str = DEFAULT_IMAGE, suite: str = "bookworm", mirror: str | None = None,
                     log=print) -> None:
    """debootstrap a minbase Debian with python3 and import it as `name` (about a minute)."""
    if not shutil.which("debootstrap"):
        raise CopilotError("debootstrap is not installed", "apt-get install debootstrap")
    repository, _, tag = name.rpartition(":") if ":" in name.rsplit("/", 1)[-1] else (name, "", "latest")
    with tempfile.TemporaryDirectory(prefix="copilot-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        log(f"debootstrap {suite} from {mirror or debian_mirror()} (minbase + python3)")
        proc = subprocess.run(["debootstrap", "--variant=minbase", "--include=python3", suite, str(rootfs),
                               mirror or debian_mirror()], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CopilotError(f"debootstrap failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        changes = ['CMD ["/bin/bash"]', "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   f"LABEL {LABEL}=1 {ROLE}=base"]
        client.api.import_image_from_stream(tar.stdout, repository=repository, tag=tag, changes=changes)
        tar.wait()
    log(f"imported {name}")


def ensure_base_image(client, name: str = DEFAULT_IMAGE, log=print) -> bool:
    """Build the base image when it is missing. Returns True when it was built now."""
    if image_present(client, name):
        return False
    build_base_image(client, name, log=log)
    return True


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
    """Labelled containers and artifact images whose review process is gone."""
    found = []
    # sparse: no inspect per container, which would race with reviews removing theirs meanwhile
    for c in client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}=1"}):
        owner = (c.attrs.get("Labels") or {}).get(OWNER, "")
        if not _owner_alive(owner):
            name = (c.attrs.get("Names") or ["/" + c.short_id])[0].lstrip("/")
            found.append(Orphan("container", c.short_id, name, owner))
    for img in client.images.list(filters={"label": f"{LABEL}=1"}):
        owner = img.labels.get(OWNER, "")
        if img.labels.get(ROLE) != "base" and not _owner_alive(owner):
            found.append(Orphan("image", img.short_id, ",".join(img.tags) or img.short_id, owner))
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
    """`copilot doctor` rows for the Docker backend: engine, base image, leftovers of earlier reviews."""
    try:
        client = connect(timeout=5)
    except EngineUnavailable as exc:
        return [("docker engine", "FAIL", f"{exc} — {exc.hint}")]
    version = client.version()
    rows = [("docker engine", "ok", f"{version.get('Version', '?')} (API {version.get('ApiVersion', '?')}), "
                                    f"cgroup v{client.info().get('CgroupVersion', '?')}")]
    if build_base:
        try:
            built = ensure_base_image(client, image, log=lambda line: None)
            rows.append(("base image build", "ok", "built now" if built else "already present"))
        except Exception as exc:  # noqa: BLE001 - reported as a failed check
            rows.append(("base image build", "FAIL", str(exc).splitlines()[0][:160]))
    present = image_present(client, image)
    rows.append(("base image", "ok" if present else "FAIL",
                 image if present else f"{image} missing — run `copilot doctor --build-base` (debootstrap + docker import)"))
    found = orphans(client)
    if found and clean:
        removed = remove_orphans(client, found)
        return rows + [("orphaned resources", "ok", f"removed {removed} of {len(found)}")]
    rows.append(("orphaned resources", "FAIL" if found else "ok",
                 f"{len(found)} left by reviews that are gone — remove with `copilot doctor --clean`" if found else "none"))
    return rows + [(f"  orphan {o.kind}", "FAIL", f"{o.name} (review process {o.owner})") for o in found[:20]]
