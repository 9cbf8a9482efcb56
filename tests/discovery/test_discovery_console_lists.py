"""What the docs say a command prints, given as a list after a lead-in ("The user should find the following
information in the console output:"), is that command's expected output."""
from __future__ import annotations

from .helpers import step


def test_a_listed_console_output_after_a_lead_in_is_the_commands_expected_output(run):
    found = run({"INSTALL.md": ("# Quick Installation Testing\n\n```\n./tool -input data/a.cnf -simplify 0\n```\n\n"
                                "By running the command above, the tool should generate a file. The user should find "
                                "the following information in the console output: \n"
                                "- Testcase set saved in `./a_testcase_set.txt`\n"
                                "- 2-tuple number of generated testcase set: 16212\n\n# Next\n\nMore prose.\n"),
                 "tool": "", "data/a.cnf": "p cnf 1 1\n1 0\n"})
    quick = step(found, "./tool -input")
    [expected] = [e for e in found.expected_outputs if e.step_order == quick.order]
    assert expected.text == ("Testcase set saved in ./a_testcase_set.txt\n"
                             "2-tuple number of generated testcase set: 16212")
    assert expected.source.startswith("INSTALL.md:")


def test_prose_after_a_command_without_a_lead_in_is_not_an_expected_output(run):
    found = run({"README.md": ("```\npython run.py\n```\n\nThis takes a while. The results are described in "
                               "the paper:\n\nSection 5 discusses them.\n"), "run.py": ""})
    assert found.expected_outputs == []
