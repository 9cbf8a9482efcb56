"""D1: a tool README whose usage synopsis names its input (FILE, DIRECTORY) and shows its output describes I/O."""
from __future__ import annotations


def test_a_tool_readme_usage_synopsis_describes_its_input_for_d1():
    from artifactcopilot.discovery.facts import signals

    usage = ("```\nusage: start.py [-h] (-d DIRECTORY | -f FILE) -M {s,f}\n```\n"
             "This would then produce the following output:\n```json\n{\"opt_id\": 34}\n```\n")
    assert signals([("How do I use it?", usage)], [], False)["io"]
    assert not signals([("How do I use it?", "Run it and it produces the following output.")], [], False)["io"]
