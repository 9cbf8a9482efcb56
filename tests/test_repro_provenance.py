"""Run provenance: which artifact files a run read and wrote, in order, and its CPU time."""
from __future__ import annotations

import shutil

import pytest

from artifactcopilot.repro.provenance import parse_trace, traced_run
from artifactcopilot.sandbox.local import LocalSandbox

TRACE = """\
101 execve("/usr/bin/bash", ["bash", "-c", "python3 run.py"], 0x7ffd /* 9 vars */) = 0
101 openat(AT_FDCWD</art>, "/usr/lib/libc.so.6", O_RDONLY|O_CLOEXEC) = 3</usr/lib/libc.so.6>
102 execve("/usr/bin/python3", ["python3", "run.py"], 0x55 /* 9 vars */) = 0
102 openat(AT_FDCWD</art>, "run.py", O_RDONLY|O_CLOEXEC) = 3</art/run.py>
102 openat(AT_FDCWD</art>, "data/in.csv", O_RDONLY) = 3</art/data/in.csv>
102 openat(AT_FDCWD</art>, "out/t.md", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 4</art/out/t.md>
102 openat(AT_FDCWD</art>, "missing.txt", O_RDONLY) = -1 ENOENT (No such file or directory)
102 openat(AT_FDCWD</art>, "data", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 5</art/data>
102 renameat2(AT_FDCWD</art>, "out/t.tmp", AT_FDCWD</art>, "out/final.md", RENAME_NOREPLACE) = 0
103 execve("/usr/bin/nosuch", ["nosuch"], 0x55 /* 9 vars */) = -1 ENOENT (No such file or directory)
"""


def test_parse_trace_keeps_artifact_files_in_order():
    events, execs = parse_trace(TRACE, "/art")
    assert events == [("run.py", "read"), ("data/in.csv", "read"), ("out/t.md", "write"), ("out/final.md", "write")]
    assert [argv[0] for argv in execs] == ["bash", "python3"]


@pytest.mark.parametrize("use_strace", [None, False], ids=["strace", "snapshot"])
def test_traced_run_tells_regenerated_from_checked_in(tmp_path, use_strace):
    if use_strace is None and not shutil.which("strace"):
        pytest.skip("strace is not installed (.ci/setup-strace.sh installs it)")
    art = tmp_path / "art"
    (art / "results").mkdir(parents=True)
    (art / "results" / "table.md").write_text("| a | 1 |\n")
    (art / "input.csv").write_text("x\n1\n")
    session = LocalSandbox(tmp_path / "scratch").start(art)
    try:
        script = ("cat input.csv > /dev/null\n"
                  "python3 -c \"open('results/table.md','w').write('| a | 2 |')\"\ncat results/table.md\n")
        result, prov = traced_run(session, script, use_strace=use_strace)
    finally:
        session.close()
    assert result.record.exit_code == 0 and prov.exit_code == 0
    assert "results/table.md" in prov.written and prov.cpu_s is not None
    assert not any(p.startswith(".repro-trace") for p in result.record.files_created + prov.written)
    assert prov.method == ("snapshot" if use_strace is False else "strace")
    if prov.method == "strace":
        assert prov.read_first == ["input.csv"]
        assert prov.read_after_write == ["results/table.md"]
        assert {"cat", "python3"} <= set(prov.programs)
    else:
        assert use_strace is False and prov.read_first == []


def test_split_syscalls_from_concurrent_processes_are_seen():
    """`strace -f` splits a syscall another process interrupts; the open must still count."""
    from artifactcopilot.repro.provenance import parse_trace

    trace = ('321   execve("/usr/bin/grep", ["grep", "^| ", "README.md"], 0x0 /* 3 vars */) = 0\n'
             '321   openat(AT_FDCWD</art>, "README.md", O_RDONLY <unfinished ...>\n'
             '322   openat(AT_FDCWD</art>, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</art/out.txt>\n'
             '321   <... openat resumed>)             = 3</art/README.md>\n')
    events, execs = parse_trace(trace, "/art")
    assert events == [("out.txt", "write"), ("README.md", "read")]
    assert execs == [["grep", "^| ", "README.md"]]
