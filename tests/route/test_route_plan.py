"""The route planned from the documentation (no command runs): documented cost and order, commands named in prose,
where to stand, prerequisites in prose, documented reductions, routes that need a host last."""
from __future__ import annotations

from artifactcopilot.discovery import DirectoryView, discover

from .shapes import route_of, script, write_tree

RUNTIME_README = """# Sketch experiments

## Runtimes

| Result | Script | Approx. time |
|---|---|---|
| Figure 2 | `fig_2.py` | ~1 sec |
| Figure 3 | `fig_3a.py`, `fig_3b.py` | ~30 min each |
| Table 2 | `table_2.py` | ~1 sec |
| Table 6 | `table_6.py` | ~1 hour |

## Run all experiments (Quick) — Recommended

```
bash run_all.sh
```

## Single results

To reproduce any result, simply replace `fig_3a.py` with the desired script from the `reproduction` folder
(e.g. `fig_2.py`, `table_2.py`):

```
cd reproduction
python fig_3a.py
```
"""
SCRIPTS = {f"reproduction/{name}.py": script(name) for name in ("fig_2", "fig_3a", "fig_3b", "table_2", "table_6")}
RUN_ALL = "cd reproduction\nfor f in *.py; do python $f; done\n"


def test_a_runtime_table_puts_the_cheap_paper_tied_scripts_first_and_a_run_all_driver_last(tmp_path):
    root = write_tree(tmp_path / "a", {"README.md": RUNTIME_README, "run_all.sh": RUN_ALL, **SCRIPTS})
    route = route_of(root)
    order = [leg.cmd for leg in route.legs]
    assert order[:2] == ["python fig_2.py", "python table_2.py"], order
    first = route.legs[0]
    assert first.cwd == "reproduction" and first.objects == ["Figure 2"] and first.cost_s == 1.0
    assert "~1 sec" in first.cost_text
    run_all = next(leg for leg in route.legs if leg.cmd == "bash run_all.sh")
    assert run_all is route.legs[-1]
    assert not run_all.quick and run_all.cost_s is not None and run_all.cost_s >= 3600
    assert "called quick by its section" in run_all.why
    assert set(run_all.objects) == {"Figure 2", "Figure 3", "Table 2", "Table 6"}
    fig3 = [leg for leg in route.legs if "fig_3" in leg.cmd]
    assert [leg.cost_s for leg in fig3] == [1800.0, 1800.0]


def test_a_runtime_table_of_setup_steps_does_not_reorder_the_paper_tied_commands(tmp_path):
    readme = """# Tool

| Step | Time |
|---|---|
| `pip install -r requirements.txt` | ~2 min |
| download the models | ~10 min |

## Reproduce Table 2

```
python table_2.py
```

## Other

```
python helper.py
```
"""
    root = write_tree(tmp_path / "b", {"README.md": readme, "table_2.py": script("t2"), "helper.py": script("h")})
    route = route_of(root)
    assert [leg.cmd for leg in route.legs] == ["python table_2.py", "python helper.py"]
    assert all(leg.cost_s is None for leg in route.legs)


def test_a_pattern_sentence_becomes_one_command_per_named_script_and_a_missing_file_none(tmp_path):
    root = write_tree(tmp_path / "a", {"README.md": RUNTIME_README, "run_all.sh": RUN_ALL, **SCRIPTS,
                                       "reproduction/common.py": "X = 1\n",
                                       "reproduction/fig_2.py": "import common\nprint('fig_2')\n"})
    found = discover(DirectoryView(root))
    commands = {s.cmd for s in found.steps}
    assert {"python fig_2.py", "python table_2.py", "python fig_3b.py", "python table_6.py"} <= commands
    assert "python common.py" not in commands  # a module the scripts import is a library, not an entry
    made = next(s for s in found.steps if s.cmd == "python table_2.py")
    assert made.cwd == "reproduction" and "replaced by `table_2.py`" in made.notes[-1]

    missing = RUNTIME_README.replace("(e.g. `fig_2.py`, `table_2.py`)", "(e.g. `fig_9.py`)").replace(
        "the desired script from the `reproduction` folder", "`fig_9.py`")
    root = write_tree(tmp_path / "b", {"README.md": missing, **SCRIPTS})
    assert not any("fig_9" in s.cmd for s in discover(DirectoryView(root)).steps)


def test_a_list_of_scripts_one_per_figure_is_a_plan_and_matlab_runs_under_octave(tmp_path):
    readme = """# Privacy mechanisms

The figures of the paper:

- `fig2.m`: Figure 2 (error per mechanism)
- `fig3.m`: Figure 3 (variance)
- `helpers.m`: shared plotting code
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "matlab/fig2.m": "disp(1)\n", "matlab/fig3.m": "disp(2)\n",
                                       "matlab/helpers.m": "function h()\nend\n"})
    route = route_of(root)
    assert [(leg.cmd, leg.cwd, leg.objects) for leg in route.legs] == [
        ("octave --no-gui --quiet fig2.m", "matlab", ["Figure 2"]),
        ("octave --no-gui --quiet fig3.m", "matlab", ["Figure 3"])]


def test_where_to_stand_comes_from_the_prose_and_from_the_script_that_enters_its_argument(tmp_path):
    readme = """# Benchmark

## Running

Navigate to the benchmark directory `cd benchmark/` and run:

```
python evaluate.py
```

## Attacks

1. Install the requirements.
2. Build the tool.
3. `cd attacks`
4. Run `python attack.py --all`.

## Tasks

```
bash run_task.sh task1
```
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "benchmark/evaluate.py": script("e"),
                                       "evaluate.py": script("root"), "attacks/attack.py": script("a"),
                                       "run_task.sh": "cd $1/\npython solve.py\n",
                                       "benchmark/task1/solve.py": script("s")})
    steps = {s.cmd: s for s in discover(DirectoryView(root)).steps}
    assert steps["python evaluate.py"].cwd == "benchmark"
    assert steps["python attack.py --all"].cwd == "attacks"
    task = next(s for s in steps.values() if "run_task.sh" in s.cmd)
    assert task.cwd == "benchmark" and task.inner == "bash ../run_task.sh task1", task
    assert "only at benchmark/task1" in task.notes[-1]


def test_a_cd_into_a_missing_folder_does_not_move_the_commands_after_it(tmp_path):
    readme = """# Tool

Navigate to the benchmark directory `cd benchmark/` and run:

```
python evaluate.py
```
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "evaluate.py": script("e")})
    step = next(s for s in discover(DirectoryView(root)).steps if s.cmd == "python evaluate.py")
    assert step.cwd == "."


def test_prerequisites_in_prose_unzip_start_a_service_and_edit_a_value(tmp_path):
    readme = """# Measurement study

## Setup

Unzip the data first.

Start the servers with `./start_servers.sh` before running the experiments (they listen on port 8765).

Before running, edit `DATA_ROOT` in `paths.py` to point to the `data` folder:

```bash
DATA_ROOT = "/home/alice/data"
```

## Experiments

```
python demo.py
```
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "start_servers.sh": "python3 -m http.server 8765\n",
                                       "paths.py": 'DATA_ROOT = "/home/alice/data"\n', "demo.py": script("demo"),
                                       "data/benchmark.zip": "PK"})
    found = discover(DirectoryView(root))
    assert not any("DATA_ROOT" in s.cmd for s in found.steps)  # a value to edit is never run as a command
    unzip = [s for s in found.steps if s.kind == "data"]
    assert [(s.cmd, s.cwd) for s in unzip] == [("unzip -o benchmark.zip", "data")]
    route = route_of(root)
    leg = route.legs[0]
    kinds = {p.kind: p for p in leg.prerequisites}
    assert kinds["service"].command == "bash start_servers.sh" and kinds["service"].ready == "port 8765"
    edit = kinds["edit"]
    assert (edit.file, edit.name, edit.value) == ("paths.py", "DATA_ROOT", "data")


def test_an_edit_the_prose_names_without_a_value_keeps_no_value(tmp_path):
    readme = """# Tool

Adapt `base_path` in `config.py` before you run `python compare.py`.
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "config.py": "base_path = '/tmp/x'\n",
                                       "compare.py": script("c")})
    route = route_of(root)
    edit = next(p for p in route.prerequisites if p.kind == "edit")
    assert (edit.file, edit.name, edit.value) == ("config.py", "base_path", "")


def test_documented_reductions_options_to_add_and_a_value_to_lower(tmp_path):
    readme = """# Simulations

## Run

```
python simulate.py
```

For a quick check, add `--copies 1 --small`. Set `trials` lower in `settings.py` for a faster run.
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "simulate.py": script("s"),
                                       "settings.py": "trials = 100000\n"})
    leg = route_of(root).legs[0]
    assert [(r.command, r.name) for r in leg.reductions] == [("--copies 1 --small", ""), ("", "trials")]
    assert leg.reductions[1].file == "settings.py"


def test_a_command_that_clones_from_a_host_comes_after_the_offline_ones(tmp_path):
    readme = """# Analyser

## Experiment (Table 2)

```
python run_experiment.py
```

## Tests

```
python -m pytest tests
```
"""
    clone = "import subprocess\nsubprocess.run(['git', 'clone', 'https://github.com/example/project.git'])\n"
    root = write_tree(tmp_path / "a", {"README.md": readme, "run_experiment.py": clone,
                                       "tests/test_core.py": "def test_x():\n    assert True\n"})
    route = route_of(root)
    assert [leg.cmd for leg in route.legs] == ["python -m pytest tests", "python run_experiment.py"]
    assert route.legs[1].hosts == ["github.com"] and "not reachable offline" in route.legs[1].why

    offline = root / "run_experiment.py"
    offline.write_text("print('table 2')\n", encoding="utf-8")
    assert [leg.cmd for leg in route_of(root).legs][0] == "python run_experiment.py"


def test_a_remark_in_parentheses_after_a_command_is_not_part_of_it(tmp_path):
    readme = """# Audits

```bash
python experiment_1.py
python experiment_2.py (depend on files generated by experiment_1.py)
python plot.py --title "(a) results"
```
"""
    root = write_tree(tmp_path / "a", {"README.md": readme, "experiment_1.py": script("1"),
                                       "experiment_2.py": script("2"), "plot.py": script("p")})
    steps = {s.cmd: s for s in discover(DirectoryView(root)).steps}
    assert "python experiment_2.py" in steps, list(steps)
    assert "depend on files generated" in steps["python experiment_2.py"].notes[-1]
    assert 'python plot.py --title "(a) results"' in steps  # quoted parentheses are the command's own


def test_a_script_runs_where_its_own_relative_paths_resolve(tmp_path):
    readme = "# Personas\n\nThe pipeline:\n\n```\ncd scripts\nbash run.sh\n```\n"
    run = 'source "ipp/constants.sh"\npython ipp/steps/step_1.py\nRscript ipp/steps/step_2.R out/\n'
    root = write_tree(tmp_path / "a", {"README.md": readme, "scripts/run.sh": run, "ipp/constants.sh": "X=1\n",
                                       "ipp/steps/step_1.py": script("1"), "ipp/steps/step_2.R": "print(2)\n"})
    step = next(s for s in discover(DirectoryView(root)).steps if "run.sh" in s.cmd)
    assert (step.cwd, step.inner) == (".", "bash scripts/run.sh"), step
    assert "resolve from ./, not from scripts/" in step.notes[-1]

    local = 'python steps/helper.py\npython steps/other.py\n'
    root = write_tree(tmp_path / "b", {"README.md": readme, "scripts/run.sh": local,
                                       "scripts/steps/helper.py": script("h"), "scripts/steps/other.py": script("o")})
    step = next(s for s in discover(DirectoryView(root)).steps if "run.sh" in s.cmd)
    assert (step.cwd, step.inner) == ("scripts", "bash run.sh")  # its paths resolve where the docs run it


def test_a_script_named_with_its_path_in_prose_runs_as_named(tmp_path):
    readme = "# Personas\n\nRun `./scripts/run.sh`\n"
    root = write_tree(tmp_path / "a", {"README.md": readme, "scripts/run.sh": "echo ok\n"})
    steps = [s for s in discover(DirectoryView(root)).steps if s.kind == "workflow"]
    assert [(s.cwd, s.cmd) for s in steps] == [(".", "./scripts/run.sh")]
