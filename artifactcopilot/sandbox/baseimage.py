"""The locally built base images: one Debian release per Python version a review can offer.

No registry is assumed reachable. An image is built in two stages: `debootstrap --variant=minbase` makes
a root file system that `docker import` turns into an image, then a `docker build` on top of it installs
with apt what a reviewer's machine has for Python research artifacts (python3 with pip, venv and headers,
compilers, git, curl/wget, archive tools). Each image is labelled with its Debian suite, its Python version
and the recipe it was built from, so an image an older recipe built is rebuilt, not trusted.
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import CopilotError
from .image import (
    BASE_REPOSITORY,
    DEFAULT_IMAGE,
    DEFAULT_SUITE,
    LABEL,
    ROLE,
    base_image_name,
    debian_mirror,
    image_present,
    labels,
)

SUITES: dict[str, str] = {"bookworm": "3.11", "trixie": "3.13", "bullseye": "3.9"}
"""Debian suites a base image is built from -> the python3 minor version the suite ships."""
PACKAGES = ("python3", "python3-venv", "python3-pip", "python3-dev", "build-essential", "ca-certificates", "git",
            "curl", "wget", "unzip", "xz-utils", "bzip2", "procps")
"""What the image adds to minbase: a Python research artifact's usual needs on a reviewer's machine."""
SUITE_LABEL = "io.artifactcopilot.suite"
PYTHON_LABEL = "io.artifactcopilot.python"
"""Full version of the image's python3, e.g. 3.11.2."""
RECIPE_LABEL = "io.artifactcopilot.recipe"
NODOC = ("path-exclude=/usr/share/doc/*\npath-include=/usr/share/doc/*/copyright\npath-exclude=/usr/share/man/*\n"
         "path-exclude=/usr/share/info/*\npath-exclude=/usr/share/locale/*\npath-include=/usr/share/locale/locale.alias\n")
"""dpkg filter of the image: no documentation, now or in what a review installs later (copyright files kept)."""
INSTALL = """FROM {rootfs}
RUN echo force-unsafe-io > /etc/dpkg/dpkg.cfg.d/zz-build-unsafe-io \\
 && apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends {packages} \\
 && apt-get clean && rm -rf /var/lib/apt/lists/* /etc/dpkg/dpkg.cfg.d/zz-build-unsafe-io \\
 && python3 -c "import platform, venv, ensurepip; print('python3=' + platform.python_version())"
"""
RECIPE = hashlib.sha256("\n".join((" ".join(PACKAGES), NODOC, INSTALL)).encode()).hexdigest()[:12]
"""Identifies how an image was built; an image with another recipe is outdated."""
MEMORY_SCRATCH_MB = 1024
"""Free memory-backed space (/dev/shm) above which debootstrap runs there: dpkg's many small writes are far
faster in memory than on a slow disk, and the root file system is under 300 MB."""


@dataclass
class BaseImage:
    """What `copilot doctor` and a sandbox know of one suite's base image."""

    suite: str
    name: str
    present: bool = False
    current: bool = False
    """Built by this recipe (an outdated image may lack pip, venv or compilers)."""
    python: str = ""
    """Full version of its python3 (from its label), empty when unknown."""
    size_mb: int = 0

    def describe(self) -> str:
        if not self.present:
            return f"{self.name} missing — build it with `copilot doctor --build-base --suite {self.suite}`"
        state = "" if self.current else " — built by an older recipe: rebuild with " \
            f"`copilot doctor --build-base --suite {self.suite}`"
        return f"{self.name}: Python {self.python or SUITES.get(self.suite, '?')}, {self.size_mb} MB{state}"


@dataclass
class BuildResult:
    """One base image built now."""

    name: str
    suite: str
    python: str
    seconds: float
    size_mb: int


def inspect_base(client, suite: str) -> BaseImage:
    from docker.errors import ImageNotFound

    name = base_image_name(suite)
    try:
        image = client.images.get(name)
    except ImageNotFound:
        return BaseImage(suite, name)
    tags = image.labels or {}
    return BaseImage(suite, name, present=True, current=tags.get(RECIPE_LABEL) == RECIPE,
                     python=tags.get(PYTHON_LABEL, ""), size_mb=round((image.attrs.get("Size") or 0) / 2**20))


def valid_suite(suite: str) -> bool:
    """A Debian codename (also what goes into an image tag): lower-case letters, digits, dashes."""
    return bool(re.fullmatch(r"[a-z][a-z0-9-]{1,30}", suite or ""))


def _scratch() -> str | None:
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return None
    return "/dev/shm" if st.f_bavail * st.f_frsize >= MEMORY_SCRATCH_MB << 20 and os.access("/dev/shm", os.W_OK) \
        else None


def _prune(rootfs: Path) -> None:
    """Drop what a container never needs (package lists, caches, documentation) and keep it out of later installs."""
    for sub in ("var/lib/apt/lists", "var/cache/apt", "usr/share/doc", "usr/share/man", "usr/share/info",
                "usr/share/locale"):
        for dirpath, _, filenames in os.walk(rootfs / sub):
            for name in filenames:  # directories stay: some maintainer scripts expect e.g. /usr/share/man/man1
                path = Path(dirpath) / name
                if name not in ("copyright", "locale.alias", "lock") or path.is_symlink():
                    path.unlink(missing_ok=True)
    (rootfs / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True, exist_ok=True)
    (rootfs / "etc/dpkg/dpkg.cfg.d/01-nodoc").write_text(NODOC)


def _rootfs_image(client, suite: str, mirror: str, tag: str, log: Callable[[str], None]) -> None:
    """Stage 1: debootstrap a minbase root file system and import it as `tag`."""
    with tempfile.TemporaryDirectory(prefix="copilot-rootfs-", dir=_scratch()) as tmp:
        rootfs = Path(tmp) / "rootfs"
        log(f"debootstrap --variant=minbase {suite} from {mirror}")
        try:
            proc = subprocess.run(["debootstrap", "--variant=minbase", suite, str(rootfs), mirror],
                                  capture_output=True, text=True, timeout=3600, check=False)
        except subprocess.TimeoutExpired:
            raise CopilotError(f"debootstrap {suite} did not finish within an hour") from None
        if proc.returncode != 0:
            last = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise CopilotError(f"debootstrap {suite} failed: {' | '.join(last)}",
                               "check the Debian mirror (deb.debian.org) is reachable and the suite exists")
        _prune(rootfs)
        repository, _, name = tag.rpartition(":")
        tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        changes = ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 'CMD ["/bin/bash"]',
                   " ".join(["LABEL"] + [f"{k}={v}" for k, v in labels("build").items()])]
        try:
            client.api.import_image_from_stream(tar.stdout, repository=repository, tag=name, changes=changes)
        finally:
            if tar.stdout is not None:  # always, with stdout=PIPE
                tar.stdout.close()
            tar.wait()


def _docker_build(client, dockerfile: str, tag: str, build_labels: dict[str, str], log) -> list[str]:
    """Build `dockerfile` (no context) as `tag`; its output lines, or CopilotError with the failing lines."""
    from docker.errors import APIError

    lines: list[str] = []
    try:
        for chunk in client.api.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True,
                                      decode=True, labels=build_labels, timeout=None):
            text = chunk.get("stream") or chunk.get("status") or ""
            lines += text.splitlines()
            if "error" in chunk:
                tail = " | ".join(line for line in lines[-4:] if line.strip())
                raise CopilotError(f"building {tag} failed: {chunk['error'].strip()} ({tail})",
                                   "check that containers reach the Debian mirror (bridge network)")
    except (APIError, OSError) as exc:
        raise CopilotError(f"building {tag} failed: {str(exc).splitlines()[0][:200]}") from None
    return lines


def build_base_image(client, name: str | None = None, suite: str = DEFAULT_SUITE, mirror: str | None = None,
                     log: Callable[[str], None] = print) -> BuildResult:
    """Build the base image of a Debian suite (a few minutes): debootstrap + import, then apt in a docker build."""
    if not valid_suite(suite):
        raise CopilotError(f"'{suite}' is not a Debian suite name", f"use one of {', '.join(SUITES)}")
    if not shutil.which("debootstrap"):
        raise CopilotError("debootstrap is not installed", "apt-get install debootstrap")
    name = name or base_image_name(suite)
    start, stage = time.monotonic(), f"{BASE_REPOSITORY}-stage:{suite}-{os.getpid()}"
    old = _image_id(client, name)
    try:
        _rootfs_image(client, suite, mirror or debian_mirror(), f"{stage}-rootfs", log)
        log(f"installing {' '.join(PACKAGES)}")
        out = _docker_build(client, INSTALL.format(rootfs=f"{stage}-rootfs", packages=" ".join(PACKAGES)),
                            f"{stage}-install", labels("build"), log)
        python = next((line.split("=", 1)[1].strip() for line in out if line.startswith("python3=")), "")
        final = {LABEL: "1", ROLE: "base", SUITE_LABEL: suite, PYTHON_LABEL: python, RECIPE_LABEL: RECIPE}
        _docker_build(client, f"FROM {stage}-install\n", name, final, log)
    finally:
        for tag in (f"{stage}-install", f"{stage}-rootfs"):  # untags; the layers stay under the final image
            _remove(client, tag)
    if old and old != _image_id(client, name):
        _remove(client, old)  # the outdated image, unless a container still uses it
    size = round((client.images.get(name).attrs.get("Size") or 0) / 2**20)
    result = BuildResult(name, suite, python, round(time.monotonic() - start, 1), size)
    log(f"built {name}: Python {python or '?'}, {size} MB in {result.seconds:.0f} s")
    return result


def _image_id(client, name: str) -> str:
    from docker.errors import ImageNotFound

    try:
        return client.images.get(name).id
    except ImageNotFound:
        return ""


def _remove(client, ref: str) -> None:
    from docker.errors import APIError, ImageNotFound

    try:
        client.images.remove(ref, noprune=False)
    except (APIError, ImageNotFound):
        pass


def ensure_base_image(client, name: str = DEFAULT_IMAGE, log: Callable[[str], None] = print) -> bool:
    """Build `name` (a suite's base image) when it is missing or outdated. Returns True when it was built now.
    Another image name is only checked for presence: it is not ours to build."""
    suite = name.rpartition(":")[2] if name.startswith(f"{BASE_REPOSITORY}:") else None
    if suite is None:
        if not image_present(client, name):
            raise CopilotError(f"image {name} is not present", "docker pull or build it, or use the built-in base")
        return False
    status = inspect_base(client, suite)
    if status.present and status.current:
        return False
    build_base_image(client, name, suite=suite, log=log)
    return True


PROBE = ('. /etc/os-release 2>/dev/null; echo "codename=${VERSION_CODENAME:-}"; '
         'python3 -c "import platform; print(\'python3=\' + platform.python_version())" 2>/dev/null; true')


def image_python(client, image: str) -> tuple[str, str]:
    """(full python3 version, Debian/Ubuntu codename) of an image: from its labels when it is a base image we
    built (an image derived from one inherits the labels, not necessarily the python3), else by running it once
    without network; empty strings for what it does not have or when it cannot run."""
    from docker.errors import DockerException

    try:
        tags = client.images.get(image).labels or {}
    except DockerException:
        return "", ""
    if image.startswith(f"{BASE_REPOSITORY}:") and tags.get(PYTHON_LABEL) and tags.get(SUITE_LABEL):
        return tags[PYTHON_LABEL], tags[SUITE_LABEL]
    try:
        out = client.containers.run(image, ["-c", PROBE], entrypoint=["sh"], remove=True, network_mode="none",
                                    labels=labels("probe"), stdout=True, stderr=False, mem_limit="256m")
    except (DockerException, OSError):
        return "", ""
    found = dict(line.split("=", 1) for line in out.decode("utf-8", "replace").splitlines() if "=" in line)
    return found.get("python3", "").strip(), found.get("codename", "").strip()


def minor(version: str) -> str:
    """'3.11.2' -> '3.11' ('' when it is not a version)."""
    match = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{match.group(1)}.{match.group(2)}" if match else ""


class SuiteImages:
    """The images a sandbox can run a review in, by suite: every base image present, or only a custom image."""

    def __init__(self, client, custom: str | None = None):
        self.client, self.custom = client, custom
        """custom: the image --image named when it is not a base image (its suite: its codename, else its name)."""
        self._offered: dict[str, tuple[str, str]] | None = None

    def offered(self) -> dict[str, tuple[str, str]]:
        """Suite -> (image, full python3 version)."""
        if self._offered is None:
            offered: dict[str, tuple[str, str]] = {}
            if self.custom:
                python, codename = image_python(self.client, self.custom)
                if python:
                    offered[codename or self.custom] = (self.custom, python)
            else:
                for suite, python in SUITES.items():
                    if image_present(self.client, name := base_image_name(suite)):
                        offered[suite] = (name, image_python(self.client, name)[0] or python)
            self._offered = offered
        return self._offered

    def interpreters(self) -> dict[str, str]:
        """Python major.minor -> suite (the first suite offering a version wins)."""
        out: dict[str, str] = {}
        for suite, (_, python) in self.offered().items():
            out.setdefault(minor(python) or python, suite)
        return out

    def image_for(self, suite: str) -> tuple[str | None, str]:
        """The image of `suite`, or None and why it cannot be used."""
        if suite not in self.offered() and not self.custom and valid_suite(suite) \
                and image_present(self.client, base_image_name(suite)):
            self._offered = None  # built since the sandbox looked
        if suite in self.offered():
            return self.offered()[suite][0], ""
        if self.custom:
            return None, (f"this review runs in {self.custom}, which offers only "
                          f"{', '.join(self.offered()) or 'no Python 3'}; Debian {suite} is not available")
        if not valid_suite(suite):
            return None, f"'{suite}' is not a Debian suite"
        return None, (f"the base image {base_image_name(suite)} is not present — build it with "
                      f"`copilot doctor --build-base --suite {suite}`")
