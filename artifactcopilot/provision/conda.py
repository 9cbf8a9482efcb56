"""conda environment files and `conda create/install` package lists translated to pip requirements.

A reviewer without conda installs the `pip:` subset as written and the conda packages that exist on PyPI
under the same (or a known) name, pinned to the conda version; the interpreter, compilers and system
libraries are not pip packages and are only noted (system tools become apt packages in a container).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from .tables import normalize, table


@dataclass
class CondaEnv:
    lines: list[str] = field(default_factory=list)
    """pip requirement lines (the pip: subset first, as written, then the mapped conda packages)."""
    pip_lines: list[str] = field(default_factory=list)
    mapped: list[str] = field(default_factory=list)
    """conda packages installed from PyPI by name ("numpy==1.24.3")."""
    unmapped: list[str] = field(default_factory=list)
    """conda packages with no PyPI equivalent (noted)."""
    apt: list[str] = field(default_factory=list)
    python: str | None = None
    """The python version the environment pins ("3.8"), if any."""
    pins: list[tuple[str, str]] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    name: str | None = None
    notes: list[str] = field(default_factory=list)
    ok: bool = True


_SYSTEM_LIB = re.compile(r"^lib(gcc|stdcxx|gfortran|blas|cblas|lapack|openblas|ffi|uuid|zlib|png|jpeg|tiff|xml2|xslt|"
                         r"curl|ssh2|iconv|sodium|edit|nghttp2|gomp|std|glib|xcb|x11|hdf5|netcdf|boost|protobuf|cu|nv|"
                         r"npp|webp|deflate|lzma|zstd|sqlite|mamba|arrow|pq|mysql|uv|ev|event|llvm|clang|gd|freetype|"
                         r"brotli|lapacke|mklml|opencv|torch|magma|abseil|grpc|re2|thrift|utf8proc|snappy)")
"""conda packages of system libraries (C/C++ runtime, BLAS, codecs), which pip does not provide."""
_SPEC = re.compile(r"^(?:(?P<channel>[\w.-]+)::)?(?P<name>[A-Za-z0-9_.\-]+)\s*(?P<rest>.*)$")


def parse_environment(text: str | None, path: str = "environment.yml") -> CondaEnv:
    """Read an environment.yml (never raises; a broken file yields ok=False and a note)."""
    env = CondaEnv()
    try:
        data = yaml.safe_load(text or "")
    except yaml.YAMLError as exc:
        env.ok = False
        env.notes.append(f"{path} is not valid YAML ({str(exc).splitlines()[0][:80]}); it cannot be installed from")
        return env
    if not isinstance(data, dict) or not isinstance(data.get("dependencies"), list):
        env.ok = False
        env.notes.append(f"{path} has no dependencies list")
        return env
    env.name = data.get("name") if isinstance(data.get("name"), str) else None
    env.channels = [c for c in data.get("channels") or [] if isinstance(c, str)]
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    for dep in data["dependencies"]:
        if isinstance(dep, dict) and isinstance(dep.get("pip"), list):
            env.pip_lines += [_pip_line(str(x), folder) for x in dep["pip"] if isinstance(x, (str, int, float))]
            env.pins += [(m.group(1), m.group(2)) for x in dep["pip"]
                         if (m := re.fullmatch(r"\s*([A-Za-z0-9][\w.\-]*)\s*==\s*(\d+(?:\.\d+)+)\s*", str(x)))]
        elif isinstance(dep, (str, int, float)):
            add_conda_package(env, str(dep))
    env.lines = env.pip_lines + env.lines
    return env


def _pip_line(line: str, folder: str) -> str:
    """pip: entries are relative to the environment file's folder; make file references root-relative."""
    line = line.strip()
    match = re.match(r"^(-r|--requirement|-e|--editable|-c)\s+(\S+)$", line)
    if match and folder and not re.match(r"^[a-z+]+://|^/", match.group(2)):
        return f"{match.group(1)} {folder}/{match.group(2)}"
    return line


def add_conda_package(env: CondaEnv, spec: str) -> None:
    """Map one conda match spec ("numpy=1.24.3=py39h…", "conda-forge::scipy>=1.10", "r-base") to PyPI."""
    match = _SPEC.match(spec.strip())
    if not match:
        env.unmapped.append(spec)
        return
    name, rest = match.group("name"), match.group("rest").strip()
    version, pip_spec = _version(rest)
    data = table("conda")
    lowered = name.lower()
    if lowered == "python":
        env.python = version or (rest.lstrip("=") or None)
        return
    if lowered in ("pip", "setuptools", "wheel"):
        return  # every virtual environment has them
    if lowered in data["apt"]:
        env.apt += [p for p in data["apt"][lowered] if p not in env.apt]
        env.unmapped.append(spec)
        return
    if lowered in data["conda_only"] or _SYSTEM_LIB.match(lowered) or lowered.startswith(("_", data["r_prefix"])) \
            or match.group("channel") in ("bioconda", "nvidia", "r"):
        env.unmapped.append(spec)
        return
    pypi = data["rename"].get(lowered, name)
    env.lines.append(f"{pypi}{pip_spec}")
    env.mapped.append(f"{name} -> {pypi}{pip_spec}" if normalize(pypi) != normalize(name) else f"{pypi}{pip_spec}")
    if version and re.fullmatch(r"\d+(\.\d+)+", version):
        env.pins.append((pypi, version))


def _version(rest: str) -> tuple[str | None, str]:
    """conda version part -> (exact version or None, pip specifier)."""
    rest = rest.strip()
    if not rest:
        return None, ""
    if rest.startswith(("==", ">=", "<=", "!=", ">", "<", "~=")):
        exact = rest[2:].split(",")[0] if rest.startswith("==") else None
        return exact, rest.split("=py")[0] if "=py" in rest else rest.split(" ")[0]
    version = re.split(r"[=\s]", rest.lstrip("="))[0]  # drop a build string ("=py39h…")
    if not version:
        return None, ""
    if version.endswith("*"):
        return None, f"=={version}"
    if re.fullmatch(r"\d+(\.\d+)?", version) and version.count(".") < 2:
        return version, f"=={version}.*"  # conda "=1.24" means any 1.24.x
    return version, f"=={version}"
