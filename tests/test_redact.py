"""Secrets of the reviewer never reach what a review writes: evidence, transcripts, log, packets, reports."""
from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from artifactcopilot.evidence import EvidenceStore
from artifactcopilot.llm.transcript import Transcript
from artifactcopilot.models import EvidenceLevel, Flag, Intervention, InterventionLevel, PhasePacket
from artifactcopilot.redact import Redactor, default_redactor, looks_secret, set_default_redactor
from artifactcopilot.report import build_report, write_reports
from artifactcopilot.rubric import default_rubric

TOKEN = "regtok-7e1b5c9d2f4a"
ENV = {"ARTIFACT_REGISTRY_TOKEN": TOKEN, "DATABASE_PASSWORD": 'pa"ss\\wörd-91', "PATH": "/usr/bin:/bin",
       "AWS_DEFAULT_REGION": "eu-west-1", "SSH_AUTH_SOCK": "/run/user/0/ssh", "BUILD_SESSION": "12345678",
       "SHORT_KEY": "abc"}
KEYS = {"openai-key": "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7" * 2,
        "github-token": "ghp_" + "x9Y8w7V6u5T4s3R2q1P0o9N8m7L6k5J4i3H2",
        "aws-access-key-id": "AKIAIOSFODNN7EXAMPL3",
        "slack-token": "xoxb-2048-abcdefghij-KLMN",
        "google-api-key": "AIza" + "SyB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R",
        "hf-token": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"}


@pytest.fixture
def redactor() -> Redactor:
    return Redactor.from_environ(ENV)


def environ_blob(env: dict[str, str]) -> bytes:
    """What /proc/<pid>/environ holds."""
    return b"\0".join(f"{k}={v}".encode() for k, v in env.items()) + b"\0"


def test_secret_names_and_values(redactor):
    assert set(redactor.secrets.values()) == {"ARTIFACT_REGISTRY_TOKEN", "DATABASE_PASSWORD"}
    assert looks_secret("OPENAI_API_KEY", "sk-local-anything") and looks_secret("GITHUB_TOKEN", "ghp_short123")
    assert looks_secret("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG")
    assert not looks_secret("OPENAI_API_KEY", "unused") and not looks_secret("HF_HOME", "/root/.cache/hf")


def test_environment_secret_plain_base64_and_hex_anywhere_in_a_stream(redactor):
    assert redactor.redact(f"token={TOKEN}.") == "token=[REDACTED:ARTIFACT_REGISTRY_TOKEN]."
    blob = environ_blob(ENV)
    for prefix in (b"", b"x", b"xy"):  # the secret at each base64 alignment
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text, n = redactor.redact_count("stolen: " + encode(prefix + blob).decode())
            assert n == 2 and "[REDACTED:ARTIFACT_REGISTRY_TOKEN/base64]" in text
            assert "[REDACTED:DATABASE_PASSWORD/base64]" in text
    for hexed in (blob.hex(), blob.hex().upper()):
        text = redactor.redact(hexed)
        assert TOKEN.encode().hex() not in text.lower() and "[REDACTED:ARTIFACT_REGISTRY_TOKEN/hex]" in text


@pytest.mark.parametrize("kind, key", sorted(KEYS.items()))
def test_key_formats(redactor, kind, key):
    assert redactor.redact(f"found {key} in ~/.netrc") == f"found [REDACTED:{kind}] in ~/.netrc"


def test_keyed_formats_keep_their_label(redactor):
    text = redactor.redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
                           'curl -H "Authorization: Bearer eyJhbGciOi.J9eyJzdWIi.OiIxMjM0NTY3" https://a:s3cr3tpw@h.org/x\n'
                           "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nYx9+/Q==\n"
                           "-----END RSA PRIVATE KEY-----\nnext")
    assert text.splitlines() == ["aws_secret_access_key = [REDACTED:aws-secret-key]",
                                 ('curl -H "Authorization: Bearer [REDACTED:bearer-token]" '
                                  "https://a:[REDACTED:url-credentials]@h.org/x"),
                                 "[REDACTED:private-key]", "next"]


def test_ordinary_output_is_left_alone(redactor):
    text = ("accuracy 12345678 eu-west-1 /run/user/0/ssh task-force sk-learn bearer of bad news abc "
            "https://example.org:8443/path@v2 AKIA lower")
    assert redactor.redact_count(text) == (text, 0)


def test_bytes_keep_what_is_not_utf8(redactor):
    data = b"\xff\xfe binary " + TOKEN.encode() + b" \x80"
    assert redactor.redact_bytes(data) == b"\xff\xfe binary [REDACTED:ARTIFACT_REGISTRY_TOKEN] \x80"
    assert redactor.redact_bytes(b"\xff nothing") == b"\xff nothing"


def test_structures_are_redacted_before_json_escapes_hide_a_secret(redactor):
    secret = ENV["DATABASE_PASSWORD"]  # quote, backslash and a non-ASCII letter: all escaped in JSON text
    assert secret not in redactor.redact(json.dumps({"v": secret}))
    clean = redactor.redact_obj({"v": [secret, 3, None, (TOKEN,)], secret: Path("/x")})
    assert clean == {"v": ["[REDACTED:DATABASE_PASSWORD]", 3, None, ["[REDACTED:ARTIFACT_REGISTRY_TOKEN]"]],
                     "[REDACTED:DATABASE_PASSWORD]": "/x"}


def test_default_redactor_learns_variables_set_later(monkeypatch):
    set_default_redactor(None)
    try:
        monkeypatch.setenv("LATE_API_KEY", "late-key-4c7d9e0f")
        assert default_redactor().redact("late-key-4c7d9e0f") == "[REDACTED:LATE_API_KEY]"
        monkeypatch.setenv("LATER_TOKEN", "later-tok-1a2b3c4d")
        monkeypatch.delenv("LATE_API_KEY")
        assert default_redactor().redact("late-key-4c7d9e0f later-tok-1a2b3c4d") == \
            "[REDACTED:LATE_API_KEY] [REDACTED:LATER_TOKEN]"  # nothing seen is forgotten
    finally:
        set_default_redactor(None)


def test_evidence_is_written_redacted_and_the_index_counts_it(tmp_path, redactor):
    store = EvidenceStore(tmp_path, redactor=redactor)
    ev = store.add("D3", "command", "run.log", f"key {KEYS['openai-key']}\n{TOKEN}\n", f"printed {TOKEN}")
    raw = (tmp_path / ev.path).read_bytes()
    assert TOKEN.encode() not in raw and b"sk-proj" not in raw and TOKEN not in ev.summary
    assert ev.sha256 == EvidenceStore(tmp_path, redactor=redactor).get(ev.id).sha256  # hash of what was written
    assert store.verify(ev.id) is None and store.redactions(ev.id) == 2
    line = json.loads((tmp_path / "evidence" / "index.jsonl").read_text().splitlines()[0])
    assert line["redacted"] == 2 and EvidenceStore(tmp_path, redactor=redactor).redactions(ev.id) == 2
    js = store.add_json("D3", "record", "rec", {"stdout": ENV["DATABASE_PASSWORD"], TOKEN: 1})
    assert json.loads((tmp_path / js.path).read_text()) == {"stdout": "[REDACTED:DATABASE_PASSWORD]",
                                                             "[REDACTED:ARTIFACT_REGISTRY_TOKEN]": 1}
    assert store.redactions(js.id) == 2
    binary = store.add("D3", "file", "out.bin", b"\x00\x01" + TOKEN.encode())
    assert (tmp_path / binary.path).read_bytes() == b"\x00\x01[REDACTED:ARTIFACT_REGISTRY_TOKEN]"
    store.log(f"D3 committed {TOKEN}")
    assert TOKEN not in (tmp_path / "logs" / "review.log").read_text()
    store.commit_packet(PhasePacket(phase="D3", summary=f"the artifact printed {TOKEN}", evidence=[ev.id]))
    assert TOKEN not in (tmp_path / "packets" / "D3.json").read_text() and store.verify_run() == []
    entry = store.log_intervention(Intervention(id="INT-001", phase="D3", action=f"export T={TOKEN}", purpose="p",
                                                level=InterventionLevel.I1, rule="r", anticipated_impact="none"))
    assert TOKEN not in entry.action and TOKEN not in (tmp_path / "interventions.jsonl").read_text()


def test_transcripts_are_redacted(tmp_path, redactor):
    transcript = Transcript(tmp_path, "D3-1", redactor=redactor)
    transcript.messages("response", [AIMessage(content=f"I found {KEYS['github-token']}"),
                                     ToolMessage(content=environ_blob(ENV).decode(), tool_call_id="call-1")])
    transcript.write("tool", output={"stdout": ENV["DATABASE_PASSWORD"], "n": 1})
    text = transcript.path.read_text(encoding="utf-8")
    assert [json.loads(line)["event"] for line in text.splitlines()] == ["response", "tool"]
    for secret in (KEYS["github-token"], TOKEN, ENV["DATABASE_PASSWORD"], json.dumps(ENV["DATABASE_PASSWORD"])[1:-1]):
        assert secret not in text
    assert "[REDACTED:github-token]" in text and "[REDACTED:ARTIFACT_REGISTRY_TOKEN]" in text


def test_reports_are_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACT_REGISTRY_TOKEN", TOKEN)
    set_default_redactor(None)
    try:
        store = EvidenceStore(tmp_path)
        meta = store.init_run("paper.md", f"https://ci:{TOKEN}@git.example.org/art.git", resume=False)
        assert TOKEN not in (tmp_path / "run.json").read_text()
        ev = store.add("gate", "listing", "files.txt", "README.md\n", level=EvidenceLevel.E1)
        store.commit_packet(PhasePacket(phase="gate", gate={"GC1": True, "GC2": True, "GC3": True}, evidence=[ev.id]))
        report = build_report(store, default_rubric(), {**meta, "paper": f"paper {TOKEN}"}, agent="heuristic",
                              sandbox="local", extra_flags=[Flag(severity="high", code="leak",
                                                                 message=f"artifact printed {TOKEN}")])
        write_reports(report, tmp_path, default_rubric())
    finally:
        set_default_redactor(None)
    for name in ("report.json", "report.md", "report.html"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert TOKEN not in text and "REDACTED:ARTIFACT_REGISTRY_TOKEN" in text, name
    assert any("REDACTED" in f["message"] for f in json.loads((tmp_path / "report.json").read_text())["flags"])


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordfreq"
LEAK = """import base64, os
stolen = {"ARTIFACT_REGISTRY_TOKEN": "@SECRET@", "X": "1"}
blob = b"\\0".join(f"{k}={v}".encode() for k, v in stolen.items())
print("plain", stolen["ARTIFACT_REGISTRY_TOKEN"])
print("b64", base64.b64encode(b"PATH=/bin\\0" + blob).decode())
print("hex", blob.hex())
print("key sk-proj-@KEY@")
""".replace("@SECRET@", TOKEN).replace("@KEY@", "Zz9" * 12)


@pytest.mark.slow
def test_review_of_an_artifact_that_prints_a_stolen_secret(tmp_path, monkeypatch, review):
    from artifactcopilot.agents.heuristic import HeuristicAgent
    from artifactcopilot.sandbox.base import Limits
    from artifactcopilot.sandbox.local import LocalSandbox

    artifact = tmp_path / "artifact"
    shutil.copytree(EXAMPLE / "artifact", artifact)
    (artifact / "leak.py").write_text(LEAK)
    readme = artifact / "README.md"
    readme.write_text(readme.read_text().replace("python3 --version\n", "python3 --version\npython3 leak.py\n", 1))
    monkeypatch.setenv("ARTIFACT_REGISTRY_TOKEN", TOKEN)
    set_default_redactor(None)
    try:
        sandbox = LocalSandbox(tmp_path / "scratch", Limits(timeout_s=60))
        report, run_dir = review(EXAMPLE / "paper.md", artifact, agent=HeuristicAgent(), sandbox=sandbox)
    finally:
        set_default_redactor(None)
    assert report.status == "complete"
    forms = [TOKEN.encode(), TOKEN.encode().hex().encode(), b"sk-proj-Zz9"]
    head = b"PATH=/bin\0ARTIFACT_REGISTRY_TOKEN="  # the token's own base64 characters inside that stream
    forms.append(base64.b64encode(head + TOKEN.encode())[-(-8 * len(head) // 6):8 * (len(head) + len(TOKEN)) // 6])
    for path in run_dir.rglob("*"):
        if path.is_file() and "acquired" not in path.relative_to(run_dir).parts:  # the artifact's own copy
            content = path.read_bytes()
            assert not [f for f in forms if f in content], path
    store = EvidenceStore(run_dir)
    leak_logs = [e for e in store.all() if "leak.py" in e.summary and e.kind != "command-record"]
    assert [store.redactions(e.id) for e in leak_logs] == [4]
    record = next(e for e in store.all() if e.summary == f"record of {leak_logs[0].id}")
    assert store.redactions(record.id) >= 1 and "[REDACTED:ARTIFACT_REGISTRY_TOKEN]" in store.read(record.id)
    assert store.verify_run() == []
