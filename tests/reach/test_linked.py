"""Which links a README gives as the place its code or data lives (acquire/linked.py), and how a submodule's
address is fetched."""
from __future__ import annotations

from artifactcopilot.acquire.linked import https_url, is_plain_git, linked_repositories, submodules


def test_links_the_readme_gives_as_where_the_code_or_data_lives():
    readme = (
        "# Tool\n\nThe implementation is available at https://github.com/lab/tool; place it in `tool/`.\n\n"
        "We published a separate version including the full dataset on Zenodo: "
        "[![DOI](https://zenodo.org/badge/DOI/10.5281/zenodo.123.svg)](https://doi.org/10.5281/zenodo.123).\n\n"
        "Our paper is at https://doi.org/10.1145/1234.5678 and builds on https://github.com/other/lib.\n\n"
        "```bash\ngit clone https://github.com/lab/data.git\n```\nThe data is available at "
        "https://github.com/lab/data.\n")
    assert linked_repositories(readme, "https://github.com/lab/artifact") == [
        ("https://github.com/lab/tool", "tool"), ("https://doi.org/10.5281/zenodo.123", "10.5281-zenodo.123")]


def test_the_artifact_itself_is_not_a_linked_repository():
    readme = "The code is available at https://github.com/lab/artifact.\n"
    assert linked_repositories(readme, "https://github.com/lab/artifact/tree/main") == []


def test_submodules_are_fetched_over_https(tmp_path):
    (tmp_path / ".gitmodules").write_text('[submodule "a"]\n\tpath = a\n\turl = git@github.com:lab/a.git\n'
                                          '[submodule "b"]\n\tpath = b\n\turl = https://git.lab.example/b.git\n'
                                          '[submodule "c"]\n\tpath = ../outside\n\turl = https://x.example/c.git\n')
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "kept.txt").write_text("already here\n")
    assert submodules(tmp_path) == [("a", "git@github.com:lab/a.git")]
    assert https_url("git@github.com:lab/a.git") == "https://github.com/lab/a.git"
    assert not is_plain_git("https://github.com/lab/a.git")  # GitHub's API
    assert is_plain_git("https://git.lab.example/b.git")  # git's own HTTP protocol
