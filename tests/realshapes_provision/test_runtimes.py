"""Other languages from Debian: R with the r-cran-* packages a script loads, and MATLAB scripts under GNU Octave with
the octave-* package that provides the toolbox functions they call (a compatibility change, I3, stated). A library
or a function Debian does not package is still named as missing."""
from __future__ import annotations

from .support import INTRO, item, need_docker, write_artifact, write_paper

R_README = "# Table counter\n\n" + INTRO + """
The clustering step is written in R.

## Reproduce Table 1

```
Rscript count.R
```
"""
R_SCRIPT = """library({library})
x <- c(12, 7, 9, 13)
invisible(pam(matrix(c(1, 2, 3, 10, 11, 12), ncol = 1), 2))
cat("errors found per project:", x, "\\n")
"""
M_README = "# Table counter\n\n" + INTRO + """
## Reproduce Table 1

```
matlab -batch "run_table1"
```
"""
M_SCRIPT = """% Table 1: errors per project, with a bootstrap of the mean
counts = [12 7 9 13];
draws = normrnd(0, 1, 1, 4);
fprintf('errors found per project: %d %d %d %d\\n', counts);
fprintf('bootstrap draws: %d\\n', numel(draws));
"""


def test_r_scripts_get_the_debian_packages_of_the_libraries_they_load(tmp_path, review):
    need_docker(mirror=True)
    art = write_artifact(tmp_path / "a", {"README.md": R_README, "count.R": R_SCRIPT.format(library="cluster")})
    report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=900, sandbox_name="docker",
                          max_minutes=40)
    assert any("r-cran-cluster" in i.action for i in report.interventions), [i.action for i in report.interventions]
    rw3 = item(report, "D3", "RW3")
    assert rw3.status == "satisfied", rw3.note


def test_a_library_debian_does_not_package_is_named_as_missing(tmp_path, review):
    need_docker(mirror=True)
    art = write_artifact(tmp_path / "a", {"README.md": R_README,
                                          "count.R": R_SCRIPT.format(library="tablecountnotonCRAN")})
    report, run = review(write_paper(tmp_path / "paper.md"), art, timeout=900, sandbox_name="docker",
                          max_minutes=40)
    assert item(report, "D3", "RW3").status != "satisfied"
    text = "\n".join(p.read_text(errors="replace") for p in (run / "evidence").glob("*.log"))
    assert "r-cran-tablecountnotoncran: not packaged in this Debian suite" in text


def test_matlab_scripts_run_under_octave_with_the_toolbox_package_they_need(tmp_path, review):
    need_docker(mirror=True)
    art = write_artifact(tmp_path / "a", {"README.md": M_README, "run_table1.m": M_SCRIPT})
    report, _ = review(write_paper(tmp_path / "paper.md"), art, timeout=900, sandbox_name="docker",
                          max_minutes=40)
    ported = [i for i in report.interventions if i.action.lstrip().startswith("octave")]
    assert ported and ported[0].level == "I3", [(i.level, i.action) for i in report.interventions]
    assert "pkg load statistics" in ported[0].action and "octave-statistics for normrnd" in ported[0].purpose
    rw3 = item(report, "D3", "RW3")
    assert rw3.status == "satisfied", rw3.note


def test_functions_the_artifact_defines_itself_need_no_octave_package():
    from artifactcopilot.provision.runtimes import matlab_command, octave_packages

    files = {"main.m": "x = normrnd(0,1); y = butter(3, 0.2); z = kmeans(x, 2);\n",
             "kmeans.m": "function idx = kmeans(x, k)\nidx = ones(size(x));\nend\n"}
    needs = octave_packages(list(files), files.get)
    assert needs == {"statistics": ["normrnd"], "signal": ["butter"]}
    assert matlab_command('matlab -nodisplay -r "main; exit"') == ("main; exit", "matlab -r")
    assert matlab_command("python main.py") is None
