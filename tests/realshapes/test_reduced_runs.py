"""Long experiments are run reduced, and a run cut by the budget is 'started, cut at N', not a failure."""
from __future__ import annotations

import base64

from artifactcopilot.discovery.reduce import find_reduction, reduced_value

from .shapes import write_artifact, write_paper

SIM_OPTION = """import argparse, time
parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--days", type=int, default=365, help="days to simulate")
args = parser.parse_args()
infected = 1
for day in range(1, args.days + 1):
    time.sleep({pause})
    infected += day % 7
    print(f"Day:{{day}} infected={{infected}}", flush=True)
print(f"total infected after {{args.days}} days: {{infected}}")
"""
SIM_CONSTANT = """import time
NUM_DAYS = 365
infected = 1
for day in range(1, NUM_DAYS + 1):
    time.sleep(0.2)
    infected += day % 7
    print(f"Day:{day} infected={infected}", flush=True)
print(f"total infected after {NUM_DAYS} days: {infected}")
"""


def _read(files):
    return lambda rel: files.get(rel)


def test_a_cli_option_that_sets_the_amount_of_work_is_set_to_a_reduced_value():
    red = find_reduction("python3 sim.py --days 365", ".", _read({"sim.py": SIM_OPTION.format(pause=0)}))
    assert red is not None and red.script == "python3 sim.py --days 36" and red.copy is None
    assert red.text == "RW5-reduced: option --days of sim.py set to 36 instead of 365"
    in_folder = find_reduction("python sim.py", "model", _read({"model/sim.py": SIM_OPTION.format(pause=0)}),
                               (90, 365))
    assert in_folder is not None and in_folder.script == "python sim.py --days 30"


def test_a_top_level_constant_is_reduced_in_a_copy_of_the_driver_never_in_the_file_itself():
    red = find_reduction("python3 sim.py", ".", _read({"sim.py": SIM_CONSTANT}))
    assert red is not None and red.copy == "sim_reduced.py" and red.script == "python3 sim_reduced.py"
    written = base64.b64decode(red.setup.split()[2]).decode()
    assert "NUM_DAYS = 36\n" in written and written.replace("NUM_DAYS = 36\n", "NUM_DAYS = 365\n") == SIM_CONSTANT


def test_a_literal_the_driver_passes_to_its_own_work_amount_parameter_is_reduced_in_a_copy():
    driver = ("def run_experiment(fn, epsilons, num_locations, num_runs):\n    return [fn(e) for e in epsilons]\n\n"
              "rows = run_experiment(abs, [2, 4], 100, 1000)\nprint(rows)\n")
    red = find_reduction("python ./reproduction/figure_4.py", ".", _read({"reproduction/figure_4.py": driver}))
    assert red is not None and red.script == "python ./reproduction/figure_4_reduced.py"
    assert red.where == "argument run_experiment(num_runs=…) of ./reproduction/figure_4.py" and red.reduced == 10
    written = base64.b64decode(red.setup.split()[2]).decode()
    assert "run_experiment(abs, [2, 4], 100, 10)\n" in written  # num_locations (not a work amount) unchanged


def test_a_repetition_loop_count_is_reduced_in_a_copy():
    driver = ("def trial():\n    return 1\n\ndef main():\n    total = 0\n    for _ in range(1000):\n"
              "        total += trial()\n")
    red = find_reduction("python3 sim.py", ".", _read({"sim.py": driver}))
    assert red is not None and red.reduced == 10 and red.where.startswith("loop repetitions")
    assert "for _ in range(10):" in base64.b64decode(red.setup.split()[2]).decode()


def test_a_work_amount_set_in_the_main_block_is_reduced_in_a_copy():
    driver = ("import sys\n\ndef audit(nb_trials, eps):\n    return nb_trials * eps\n\n"
              "if __name__ == '__main__':\n    lst_eps = [0.5, 1]\n    nb_trials = int(1e6)\n"
              "    print(audit(nb_trials, lst_eps[0]))\n")
    red = find_reduction("python experiment_1.py", ".", _read({"experiment_1.py": driver}))
    assert red is not None and (red.parameter, red.full, red.reduced) == ("nb_trials", 1_000_000, 10_000)
    repeated = "if __name__ == '__main__':\n    n_bins = 50\n    test_times = 50\n    print(n_bins, test_times)\n"
    times = find_reduction("python fig.py", ".", _read({"fig.py": repeated}))
    assert times is not None and (times.parameter, times.reduced) == ("test_times", 5)
    assert "    nb_trials = 10000\n" in base64.b64decode(red.setup.split()[2]).decode()


def test_a_terse_constant_whose_comment_says_what_it_counts_is_reduced():
    driver = ("import random\nRD = 100000000  # rounds of simulation\nEPS = 2\n"
              "print(sum(random.random() for _ in range(RD)))\n")
    red = find_reduction("python cst.py", ".", _read({"cst.py": driver}))
    assert red is not None and (red.parameter, red.reduced) == ("RD", 1_000_000)
    assert "RD = 1000000  # rounds" in base64.b64decode(red.setup.split()[2]).decode()


def test_knobs_that_do_not_set_the_amount_of_work_are_left_alone():
    batch = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--batch-size", type=int, default=512)\n'
    assert find_reduction("python3 train.py", ".", _read({"train.py": batch})) is None
    assert find_reduction("bash run.sh", ".", _read({"run.sh": "python3 sim.py"})) is None
    assert reduced_value(3650) == 36 and reduced_value(10**6) == 10**4 and reduced_value(365) == 36
    assert reduced_value(365, done=(30, 365)) == 10 and reduced_value(365, done=(6, 8)) == 36
    assert reduced_value(5) == 1


SIM_PAPER = """# Simulating a Year of an Epidemic

*Anonymous authors*

## Abstract

We simulate the spread of an epidemic day by day over a year; `sim.py` runs the simulation and Figure 2 shows
the number infected per day.
"""
README_LONG = ("# Epidemic simulation\n\nReproduce Figure 2 (the full simulation takes about 3 hours):\n\n"
               "```\npython3 sim.py\n```\n")
README = "# Epidemic simulation\n\nReproduce Figure 2:\n\n```\npython3 sim.py\n```\n"


def _d3(report):
    d3 = report.dimensions["D3"]
    return d3, {i.item: i for i in d3.checklist}


def test_a_long_documented_run_is_run_reduced_and_says_so(tmp_path, review):
    artifact = write_artifact(tmp_path / "a", README_LONG, {"sim.py": SIM_CONSTANT})
    report, _ = review(write_paper(tmp_path / "paper.md", SIM_PAPER), artifact, timeout=60, sandbox_name="local")
    d3, items = _d3(report)
    assert items["RW3"].status == "satisfied", items["RW3"].note
    assert items["RW5"].status == "satisfied" and "RW5-reduced: constant NUM_DAYS" in items["RW5"].note
    assert any(i.level == "I1" and i.rule == "reduced-run" for i in report.interventions)
    assert not any(i.level in ("I3", "I4") for i in report.interventions)
    assert (artifact / "sim.py").read_text() == SIM_CONSTANT


def test_a_run_cut_by_the_budget_is_rerun_reduced(tmp_path, review):
    artifact = write_artifact(tmp_path / "a", README, {"sim.py": SIM_OPTION.format(pause=0.1)})
    report, run_dir = review(write_paper(tmp_path / "paper.md", SIM_PAPER), artifact, timeout=10, sandbox_name="local")
    d3, items = _d3(report)
    assert items["RW3"].status == "satisfied", items["RW3"].note
    assert "option --days of sim.py" in items["RW5"].note
    cut = [p for p in (run_dir / "evidence").glob("D3-*sim*.log") if "# outcome: cut: Day" in p.read_text()]
    assert cut, "the first run is recorded as started and cut, with how far it got"
