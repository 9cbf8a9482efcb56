"""How the method judge combines the static reading, the run, reruns and a model's opinion."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from artifactcopilot.repro.judges import RunEvidence
from artifactcopilot.repro.method import judge_method, parse_opinion
from artifactcopilot.repro.provenance import RunProvenance
from artifactcopilot.tables import parse_tables

FUZZ = Path(__file__).resolve().parent.parent / "fixtures" / "repro" / "fuzzbench"
TABLE_MD = ("| Fuzzer | Branches | Bugs | Crash rate (%) |\n|---|---|---|---|\n"
            "| afl | 1307.0 | 8.2 | 0.433 |\n| honggfuzz | 1398.4 | 5.6 | 0.300 |\n"
            "| libfuzzer | 1264.8 | 5.6 | 0.300 |\n")
TABLE = parse_tables(TABLE_MD)[0]


class Model:
    """A chat model that answers the method prompt with a fixed text and keeps the prompts it got."""

    def __init__(self, answer: str):
        self.answer, self.prompts = answer, []

    def invoke(self, prompt):
        self.prompts.append(str(prompt))
        return type("Reply", (), {"content": self.answer})()


def run(read_first=(), written=(), exit_code=0, outputs=TABLE_MD, method="strace") -> RunEvidence:
    prov = RunProvenance(method=method, exit_code=exit_code, read_first=list(read_first), written=list(written),
                         programs=["bash", "python3"], cpu_s=0.5)
    return RunEvidence(None, [("stdout", outputs)], prov)


def test_nothing_shown_is_undetermined_never_full():
    for script in ("./run_everything.sh\n", "bash go.sh\n", "python3 reproduce.py\n"):
        v = judge_method(script, None)
        assert (v.method, v.accepted, v.confidence) == ("undetermined", False, "low"), script
        assert v.reasons and v.signals[0].source == "static"


def test_full_is_only_accepted_with_something_shown():
    v = judge_method("python3 train.py --epochs 3 --out runs\npython3 summarize.py runs\n", None)
    assert v.method == "full" and v.accepted and any("train.py" in r for r in v.reasons)


def test_a_model_only_lowers_trust():
    script = "python3 campaign.py --out runs\npython3 summarize.py runs\n"
    assert judge_method(script, None, model=Model("copy\nit prints stored results")).method == "undetermined"
    assert judge_method(script, None, model=Model("undetermined: nothing runs")).method == "undetermined"
    assert judge_method(script, None, model=Model("last_mile: only the summary")).method == "last_mile"
    copied = judge_method("cat results/table2.md\n", None, model=Model("full: it runs the campaign"))
    assert copied.method == "copy" and not copied.accepted and copied.llm_opinion == "full"
    last = judge_method("python3 summarize.py results/raw\n", None, model=Model('{"method": "full", "reason": "ok"}'))
    assert last.method == "last_mile"


def test_the_model_never_sees_expected_values():
    model = Model("full")
    judge_method("python3 campaign.py --out runs && python3 summarize.py runs\n", FUZZ / "artifact", TABLE,
                 run(read_first=["campaign.py", "summarize.py"], written=["runs/afl-1.csv"]), model=model)
    prompt = model.prompts[0]
    assert prompt.startswith("Classify how") and "campaign.py" in prompt and "runs/afl-1.csv" in prompt
    assert not any(n in prompt for n in ("1307.0", "1398.4", "1264.8", "0.433"))


def test_an_unreachable_model_is_no_opinion():
    class Broken:
        def invoke(self, prompt):
            raise ConnectionError("down")

    v = judge_method("python3 campaign.py --out runs\npython3 summarize.py runs\n", None, model=Broken())
    assert v.method == "full" and v.llm_opinion is None


@pytest.mark.parametrize("answer, expected", [
    ("copy", ("copy", None)), ("Last-mile. It only parses logs.", ("last_mile", "It only parses logs")),
    ('{"method": "undetermined", "reason": "opaque"}', ("undetermined", "opaque")), ("I cannot tell", (None, None)),
    ("The script copies results", ("copy", None)), ("FULL: runs training", ("full", "runs training")),
])
def test_parse_opinion(answer, expected):
    method, reason = parse_opinion(answer)
    assert method == expected[0] and (expected[1] is None or reason == expected[1])


def test_a_run_that_regenerated_the_shown_file_refutes_the_static_copy():
    script = "python3 campaign.py\ncat results/table2.md\n"  # campaign.py writes no such file, the reader presumes
    static = judge_method(script, FUZZ / "artifact", TABLE)
    assert static.method == "copy"
    ran = judge_method(script, FUZZ / "artifact", TABLE, run(read_first=["campaign.py"],
                                                              written=["runs/afl-1.csv", "results/table2.md"]))
    assert ran.method == "full" and "results/table2.md" in ran.regenerated


def test_a_traced_read_of_the_table_file_is_a_copy_even_if_the_reader_saw_none():
    v = judge_method("python3 -c \"import runpy; runpy.run_path('show_results.py')\"\n", FUZZ / "artifact", TABLE,
                     run(read_first=["show_results.py", "results/table2.md"]))
    assert v.method == "copy" and v.copy_sources == ["results/table2.md"] and v.confidence == "high"


def test_a_binary_table_file_read_by_the_run_is_a_copy(tmp_path):
    art = tmp_path / "art"
    (art / "out").mkdir(parents=True)
    values = [1307.0, 8.2, 0.433, 1398.4, 5.6, 0.3, 1264.8, 5.6, 0.3]
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    (art / "out" / "summary.npy").write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
                                              + struct.pack("<9d", *values))
    (art / "show.py").write_text("import numpy as np\nprint(np.load('out/summary.npy'))\n")
    reruns = []

    def rerun(withheld):
        reruns.append(withheld)
        return [("stdout", "FileNotFoundError: out/summary.npy")]

    v = judge_method("python3 show.py\n", art, TABLE, run(read_first=["show.py", "out/summary.npy"]), rerun)
    assert v.method == "copy" and v.copy_sources == ["out/summary.npy"] and reruns == ["out/summary.npy"]


def test_a_failed_run_shows_nothing_and_proves_no_copy():
    v = judge_method("python3 summarize.py results/raw\n", FUZZ / "artifact", TABLE,
                     run(read_first=["summarize.py"], exit_code=1, outputs="Traceback ..."),
                     rerun=lambda withheld: pytest.fail("no rerun after a failed run"))
    assert v.method == "last_mile" and any("did not produce the table" in r for r in v.reasons)


def test_strace_decides_full_or_last_mile_when_the_reader_cannot():
    script = "python3 -c \"exec(open('drv.py').read())\"\n"
    full = judge_method(script, FUZZ / "artifact", TABLE, run(read_first=["drv.py"], written=["runs/a.csv"]))
    last = judge_method(script, FUZZ / "artifact", TABLE, run(read_first=["drv.py", "results/raw/afl-1.csv"]))
    assert (full.method, last.method) == ("full", "last_mile")
    assert full.confidence == "high" and any(s.source == "provenance" for s in full.signals)


def test_an_unreadable_binary_results_file_is_judged_by_a_rerun_and_the_reading(tmp_path):
    art = tmp_path / "art"
    (art / "results").mkdir(parents=True)
    (art / "results" / "table2.parquet").write_bytes(b"PAR1\x00\x01 not readable without pyarrow PAR1")
    files = ["results/table2.parquet"]

    def gone(withheld):
        return [("stdout", "FileNotFoundError")]

    shown = "python3 -c \"import pandas as pd; print(pd.read_parquet('results/table2.parquet').to_markdown())\"\n"
    traced = run(read_first=["results/table2.parquet"])
    v = judge_method(shown, art, TABLE, traced, gone, files=files)
    assert v.method == "copy" and v.copy_sources == ["results/table2.parquet"]
    summed = ("python3 -c \"import pandas as pd; "
              "print(pd.read_parquet('results/table2.parquet').groupby('fuzzer').mean())\"\n")
    v = judge_method(summed, art, TABLE, traced, gone, files=files)
    assert v.method == "last_mile" and not v.copy_sources
