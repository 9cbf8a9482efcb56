"""Classify a documented command (by its inner command, refined by the section heading) into a step kind.

Kinds: install | data | download | workflow | test | plot | env | trivial.
"""
from __future__ import annotations

import re

from ..shell import split_env

_I = re.IGNORECASE
INSTALL = re.compile(
    r"^(pip\d?(\.\d+)?\s+install|python[\d.]*\s+-m\s+(pip\s+install|venv|virtualenv|ensurepip)|pipx\s+(install|ensurepath)"
    r"|poetry\s+(install|add|lock|env\s+use|shell)|pipenv\s+(install|sync|shell)|uv\s+(sync|pip\s+install|pip\s+sync|add|venv|"
    r"python\s+install|tool\s+install|lock)|pdm\s+install|hatch\s+env|pixi\s+install"
    r"|(conda|mamba|micromamba)\s+(env\s+(create|update)|create|install|activate|init)|conda-env\s+create"
    r"|(apt|apt-get|yum|dnf|brew|port|pacman|apk|choco|winget)\s+(-\S+\s+)*(install|update|upgrade|-S)\b"
    r"|virtualenv\b|source\s+\S*activate\b|\.\s+\S*activate\b|\S*setup\.py\s+(install|develop|build|build_ext)"
    r"|python[\d.]*\s+\S*setup\.py\s+(install|develop|build|build_ext)|(npm|pnpm)\s+(install|ci|i)\b|yarn(\s+install)?\s*$"
    r"|make\s+(install|setup|deps|dependencies|env|venv|build|requirements)\b|(\S*/)?(install|setup)[\w\-.]*\.sh\b"
    r"|(bash|sh)\s+(\S*/)?(install|setup)[\w\-.]*\.sh\b|docker\s+(build|image\s+build)|docker-compose\s+build"
    r"|docker\s+compose\s+build|cmake\s|R\s+-e\s+.*install|Rscript\s+-e\s+.*install|cargo\s+(build|install)|mvn\s+(install|package)"
    r"|gradle\s+build|npm\s+run\s+build|go\s+(build|install|mod\s+download)|julia\s+-e\s+.*(Pkg\.add|instantiate))", _I)
TEST = re.compile(r"^(pytest|py\.test|python[\d.]*\s+-m\s+(pytest|unittest)|make\s+\S*(test|check)\S*|tox|nox|"
                  r"(npm|yarn|pnpm)\s+(run\s+)?test|(uv\s+)?pip\d?\s+check|cargo\s+test|go\s+test|mvn\s+test|"
                  r"gradle\s+test|ctest|python[\d.]*\s+(\S*/)?(\w+_)?tests?(_\w+)?\.py)\b", _I)
DOWNLOAD = re.compile(r"^(wget|curl|git\s+(clone|lfs\s+pull|submodule\s+update)|gdown|kaggle|"
                      r"huggingface-cli\s+download|hf\s+download|aws\s+s3\s+(cp|sync)|gsutil\s+cp|zenodo_get|"
                      r"docker\s+pull|singularity\s+pull|apptainer\s+pull|svn\s+(checkout|co)|scp|rsync|"
                      r"dvc\s+pull|((bash|sh|python[\d.]*)\s+)?(\S*/)?((download|fetch)[\w\-.]*|get[_-]?(data|datasets?|models?|weights)[\w\-.]*)"
                      r"\.(sh|py))\b", _I)
DATA = re.compile(r"^(gunzip|gzip\s+-\w*d\w*|unzip|tar\s+(-?\w*x\w*|--extract)|xz\s+-\w*d\w*|unxz|bunzip2|"
                  r"bzip2\s+-\w*d\w*|7z\s+x|7za\s+x|unrar|zstd\s+-\w*d\w*|unzstd|docker\s+cp|cat\s+[^|]*>\s*\S+|"
                  r"(\S*/)?(extract|unpack|prepare_data|unzip)[\w\-.]*\.(sh|py))\b", _I)
PLOT_CMD = re.compile(r"^(gnuplot|pdflatex|latexmk|xelatex|dot\s+-T)\b", _I)
PLOT_WORDS = re.compile(r"^(plot\w*|figures?|figs?|graphs?|draw\w*|charts?|visuali[sz]\w*|fig\d+\w*|figure\d+\w*)$", _I)


class _PlotName:
    """Matches a script or notebook name whose words say it draws plots ("plot_mean.py", "Recall_Graph.ipynb")."""

    @staticmethod
    def search(name: str) -> bool:
        stem = re.sub(r"\.\w+$", "", name.rsplit("/", 1)[-1])
        tokens = re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", stem)
        return any(PLOT_WORDS.match(t) for t in tokens if t)


PLOT_NAME = _PlotName()
ENV = re.compile(r"^(export\s+\w+|set\s+\w+=|setx?\s|source\s+(?!\S*activate)\S+|\.\s+(?!\S*activate)\S+\.(sh|env)|"
                 r"unset\s|ulimit\s|conda\s+config|git\s+config|[A-Za-z_]\w*=\S*\s*$)", _I)
TRIVIAL = re.compile(r"^(ls|pwd|echo|cat\s+\S*readme\S*|cd|clear|tree|which|whoami|head|less|more|true|date|"
                     r"nvidia-smi|docker\s+(ps|images|stop|rm)|docker-compose\s+(stop|down|ps|logs)|"
                     r"exit|history)(\s|$)", _I)
HELP = re.compile(r"^\S+(\s+\S+\.(py|sh|jl|R))?\s+(--help|-h|--version|-V|help)\s*$", _I)
HEAD_SETUP = re.compile(r"install|setup|set up|set-up|requirement|environment|dependenc|prerequisite|build", _I)
HEAD_DATA = re.compile(r"\b(extract|unpack|unzip|decompress|uncompress|data(set)?s?\b|download)", _I)
HEAD_PLOT = re.compile(r"\b(plot(s|ting)?|draw(ing)?|charts?|visuali[sz])", _I)
HEAD_TEST = re.compile(r"\b(test(s|ing)?|check(ing)? the (environment|installation)|verify)\b", _I)
HEAD_REUSE = re.compile(r"own data|your own|reus|re-use|extend|customi[sz]|adapt|new (data|input|dataset)|other data|"
                        r"configur|(^|\s)api(\s+(usage|reference|docs|documentation|examples?|guide))?\s*$|library use|"
                        r"transfer", _I)


def _subcommand(inner: str) -> str:
    """The command that does the work in `find … -exec X`, `… | xargs X`, `for …; do X; done`, `time X`."""
    text = inner.strip()
    match = re.search(r"-exec(dir)?\s+(.+?)(\s+\{\}.*)?(\\;|\+|;)?\s*$", text)
    if text.startswith("find ") and match:
        return match.group(2)
    match = re.search(r"\|\s*xargs\s+(-\S+\s+)*(.+)$", text)
    if match:
        return match.group(2)
    match = re.match(r"^(for|while)\b.*?;\s*do\s+(.+?);?\s*done\b", text)
    if match:
        return match.group(2)
    match = re.match(r"^(time|nohup|env)\s+(.+)$", text)
    if match:
        return _subcommand(split_env(match.group(2))[1])
    return text


def classify(inner: str, heading: str = "", data_section: bool = False) -> str:
    """Kind of a command given its inner text (no runner/env prefix) and the nearest meaningful heading."""
    text = _subcommand(inner)
    kind = _by_text(text)
    if kind == "workflow":
        if re.match(r"^mkdir\b", text) and (data_section or HEAD_DATA.search(heading)):
            return "data"
        if re.match(r"^(mkdir|cp|mv|rm|ln|chmod|touch)\b", text):
            return "env" if HEAD_SETUP.search(heading) else "workflow"
        if HEAD_PLOT.search(heading) and not re.search(r"\b(figure|table)s?\s+\d", heading, re.IGNORECASE):
            return "plot"
        if HEAD_TEST.search(heading) and not re.search(r"experiment|reproduc", heading, re.IGNORECASE):
            return "test"
        if HEAD_SETUP.search(heading) and not re.search(r"experiment|run|reproduc|usage|result", heading,
                                                        re.IGNORECASE):
            return "install"
        if re.search(r"\b(extract(ing)?|unpack(ing)?|decompress(ing)?)\b.*\bdata|\bdata\b.*\b(extract|unpack)", heading,
                     re.IGNORECASE):
            return "data"
    return kind


def _by_text(text: str) -> str:
    if HELP.match(text) or TRIVIAL.match(text):
        return "trivial"
    for kind, rx in (("install", INSTALL), ("test", TEST), ("download", DOWNLOAD), ("data", DATA), ("env", ENV)):
        if rx.match(text):
            return kind
    if PLOT_CMD.match(text):
        return "plot"
    target = _script_word(text)
    if target and PLOT_NAME.search(target):
        return "plot"
    return "workflow"


def _script_word(text: str) -> str:
    """The script or notebook a command runs, or its make target."""
    parts = text.split()
    for part in parts[:6]:
        if re.search(r"\.(py|sh|ipynb|R|r|jl|gnuplot|gp|m)$", part):
            return part.rsplit("/", 1)[-1]
    if parts and parts[0] == "make" and len(parts) > 1:
        return parts[1]
    return ""


def is_interactive(inner: str) -> bool:
    text = inner.strip()
    return bool(re.match(r"^(jupyter\s+(notebook|lab)|jupyter-lab|ipython\s*$|python[\d.]*\s*$|R\s*$|"
                         r"docker\s+(run|exec|start)\s+.*-\w*[it]\w*\b|docker-compose\s+up(?!.*(-d|--detach))|"
                         r"streamlit\s+run|poetry\s+shell|pipenv\s+shell)", text))
