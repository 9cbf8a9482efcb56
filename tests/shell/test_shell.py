"""The shell package: one reading of command text for discovery, the verifier and the reproduction reader."""
from __future__ import annotations

from artifactcopilot import shell as sh


def test_a_statement_is_incomplete_until_its_loop_conditional_chain_quote_or_here_document_closes():
    assert sh.incomplete("for f in data/*.csv; do")
    assert not sh.incomplete("for f in data/*.csv; do\n  python run.py $f\ndone")
    assert sh.incomplete("if [ -d out ]; then\n  rm -r out")
    assert sh.incomplete("python train.py &&")
    assert sh.incomplete("python -c \"print(1)")
    assert sh.incomplete("cat > cfg.yaml <<'EOF'\nepochs: 3")
    assert not sh.incomplete("cat > cfg.yaml <<'EOF'\nepochs: 3\nEOF")
    assert not sh.incomplete("python run.py --n 3 | tee log.txt")
    assert not sh.incomplete("| a | b |")  # a table row is no open pipeline


def test_simple_commands_come_with_the_compound_commands_around_them():
    found = sh.simple_commands("for d in a b; do\n  python run.py \"$d\" > out/$d.txt\ndone && echo $(date)\n"
                               "RUNS=1 python x.py\n")
    assert [c.words for c in found] == [["python", "run.py", "$d"], ["echo", "$(date)"], ["date"],
                                        ["RUNS=1", "python", "x.py"]]
    assert found[0].within == ["&&", "for loop"] and found[3].within == []


def test_here_document_bodies_are_no_commands_and_a_rejected_script_falls_back_to_the_tokenizer():
    found = sh.simple_commands("python - <<'EOF'\nimport os\nos.remove('x')\nEOF\nbash run.sh\n")
    assert [c.words[0] for c in found] == ["python", "bash"]
    rejected = sh.simple_commands("case $x in a) echo a;; esac; python z.py")  # bashlex reads no `case`
    assert ["python", "z.py"] in [c.words for c in rejected]


def test_compound_kinds_and_for_loop_items():
    assert sh.compound("for f in a b; do\n  echo $f\ndone") == "for loop"
    assert sh.compound("while read -r l; do\n  echo $l\ndone < list.txt") == "while loop"
    assert sh.compound("if true; then\n  echo\nfi") == "if … fi"
    assert sh.compound("make &&\n  make test") == "&&"
    assert sh.compound("cat > x <<EOF\na\nEOF") == "here-document"
    assert sh.compound("cd src && make") is None and sh.compound("python x.py") is None
    loop = sh.for_loop("for d in cora citeseer 'pub med'; do\n  python run.py --data $d\ndone")
    assert loop is not None and loop.name == "d" and loop.items == ["cora", "citeseer", "pub med"]
    assert sh.for_loop("for f in data/*.csv; do\n  echo $f\ndone") is None  # a glob is counted at run time


def test_words_and_split():
    assert sh.words('python run.py --name "a b" --when $(date +%s)') == ["python", "run.py", "--name", "a b",
                                                                          "--when", "$(date +%s)"]
    assert sh.words('echo "unclosed') == ["echo", '"unclosed']  # broken quoting: the words as written
    try:
        sh.split('echo "unclosed')
    except ValueError:
        pass
    else:
        raise AssertionError("split reports broken quoting")
    assert sh.split_env("RUNS=1 SEED='3' python x.py") == ({"RUNS": "1", "SEED": "3"}, "python x.py")
    assert sh.split_runner("conda run -n env python x.py") == ("conda", "python x.py")
    assert sh.program_words(["time", "uv", "run", "--with", "numpy", "python", "x.py"]) == ["python", "x.py"]
    assert sh.tokens("a && b; c | d", operators="|&;") == ["a", "&&", "b", ";", "c", "|", "d"]


def test_a_simple_command_carries_its_prefixes_redirections_and_here_document():
    run, cat = sh.simple_commands("RUNS=1 uv run python x.py > out.txt\ncat > cfg.yaml <<'EOF'\nlr: 0.1\nEOF\n")
    assert run.env == {"RUNS": "1"} and run.runner == "uv" and run.argv == ["python", "x.py"]
    assert run.redirects == [(">", "out.txt")] and run.heredoc is None
    assert cat.argv == ["cat"] and (">", "cfg.yaml") in cat.redirects and cat.heredoc == "lr: 0.1"
