"""What the documentation names is what the review installs: a requirement file the README names (any case of its
name) even when its other instructions use conda; a retired PyPI name in it replaced by the distribution it stands
for (I1, said); the documented Python version where an image has it, the nearest otherwise (said); a JDK of the
documented major version (the nearest the suite packages, said)."""
from __future__ import annotations

from artifactcopilot.provision import InstallStep, plan_environment

SUITES = {"3.9": "bullseye", "3.11": "bookworm", "3.13": "trixie"}
ENVIRONMENT = """name: counter
channels: [defaults]
dependencies:
  - python=3.9
  - _libgcc_mutex=0.1=main
  - ca-certificates=2021.1.19=h06a4308_0
  - numpy=1.19.2=py39h89c1606_0
  - libgfortran-ng=7.3.0=hdf63c60_0
"""
README = """# Counter

Create the environment with `conda env create -f environment.yml`, or install the packages listed in
REQUIREMENTS.txt into any Python 3.9 environment.
"""


def _plan(files: dict[str, str], documented: list[str], readme: str, **kw):
    from artifactcopilot.provision.docfiles import named_requirement_files

    texts = {**files, "README.md": readme}
    named = named_requirement_files(list(texts), [readme])
    return plan_environment(list(texts), texts.get, [InstallStep(cmd=c) for c in documented], SUITES,
                            container=True, doc_files=named, doc_texts=[readme], **kw)


def test_the_requirement_file_the_readme_names_is_installed_instead_of_a_conda_translation():
    plan = _plan({"environment.yml": ENVIRONMENT, "REQUIREMENTS.txt": "numpy\nscipy\n"},
                 ["conda env create -f environment.yml"], README)
    scripts = "\n".join(s.script for s in plan.steps)
    assert "-r REQUIREMENTS.txt" in scripts
    assert "libgfortran" not in scripts and "_libgcc_mutex" not in scripts  # the conda export is not translated
    assert any("not translated to PyPI" in n and "REQUIREMENTS.txt" in n for n in plan.notes), plan.notes
    step = next(s for s in plan.steps if "-r REQUIREMENTS.txt" in s.script)
    assert step.action == "install" and "the requirement file the documentation names" in step.purpose


def test_without_a_named_file_the_conda_environment_is_translated():
    plan = _plan({"environment.yml": ENVIRONMENT, "requirements-dev.txt": "pytest\n"},
                 ["conda env create -f environment.yml"], "# Counter\n\n`conda env create -f environment.yml`\n")
    scripts = "\n".join(s.script for s in plan.steps)
    assert "numpy==1.19.2" in scripts and "requirements-dev.txt" not in scripts


def test_a_retired_pypi_name_in_a_requirement_file_is_installed_under_its_current_name():
    plan = _plan({"requirements.txt": "numpy\nsklearn\n"}, ["pip install -r requirements.txt"],
                 "# Counter\n\n`pip install -r requirements.txt`\n")
    step = next(s for s in plan.steps if "numpy" in s.script or "requirements" in s.script)
    assert "scikit-learn" in step.script and "\nsklearn\n" not in step.script
    assert step.action == "install"  # a dependency choice (I1), not a changed command
    assert "uses the current PyPI name scikit-learn for sklearn" in step.purpose
    unrenamed = _plan({"requirements.txt": "numpy\nscikit-learn\n"}, ["pip install -r requirements.txt"], "# C\n")
    step = next(s for s in unrenamed.steps if "requirements" in s.script)
    assert step.action == "run" and "renamed" not in step.script


def _discovered_python(readme: str) -> list[str]:
    from artifactcopilot.discovery import discover

    class View:
        files = ["README.md", "main.py"]

        def read(self, rel, max_bytes=2_000_000):
            return {"README.md": readme, "main.py": "print(1)\n"}.get(rel)

    return discover(View(), "").python_versions


def test_the_documented_python_version_is_used_where_an_image_has_it_and_the_nearest_is_said():
    found = _discovered_python("# Counter\n\nPython version: 3.9\n\n```\npython main.py\n```\n")
    assert found == ["3.9"], found
    plan = _plan({"main.py": "print(1)\n", "requirements.txt": "numpy\n"}, [], "", doc_python=found)
    assert plan.python.chosen == "3.9" and plan.python.interpreter == "bullseye" and not plan.python.drift
    found = _discovered_python("# Counter\n\n| Python | 3.10 |\n\n```\npython main.py\n```\n")
    plan = _plan({"main.py": "print(1)\n", "requirements.txt": "numpy\n"}, [], "", doc_python=found)
    assert plan.python.drift and "wants 3.10" in plan.python.drift and "nearest available" in plan.python.drift


def test_a_jdk_of_the_documented_major_version_or_the_nearest_the_suite_packages():
    readme = "# Counter\n\nRequires Java 11 (OpenJDK).\n"
    bullseye = _plan({"Main.java": "class Main {}\n"}, [], readme, doc_tools=["java"], doc_python=["3.9"])
    assert any("openjdk-11-jdk-headless" in s.script for s in bullseye.steps)
    bookworm = _plan({"Main.java": "class Main {}\n"}, [], readme, doc_tools=["java"], doc_python=["3.11"])
    assert any("openjdk-17-jdk-headless" in s.script for s in bookworm.steps)
    assert any("asks for Java 11" in n and "the nearest, 17" in n for n in bookworm.notes), bookworm.notes
    plain = _plan({"Main.java": "class Main {}\n"}, [], "# Counter\n\nRequires Java.\n", doc_tools=["java"])
    assert any("default-jre-headless" in s.script for s in plain.steps)
