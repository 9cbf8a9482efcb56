"""What D4 compares: the outputs of D3's runs, and the checks beyond paper tables.

Only output this review produced counts: each valid run's stdout and the text files it created or changed,
and the executed copy of each notebook. Beyond paper tables, the run is held against what the documentation
says it produces: the output a README shows for a command, the files (figures, results) it names, the outputs
a notebook has stored — and against the numbers the paper states in its text.
"""
from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field

from ... import shell as sh
from ...claims.paperobjects import named_objects, paper_objects
from ...claims.roles import descriptive_name
from ...claims.shipped import compare_shipped, expected_siblings
from ...claims.testsuite import read_test_summary
from ...claims.toolpaper import tool_claims
from ...models import EvidenceLevel
from ...sandbox.commandlog import parse_log
from ...tools import PhaseTools
from .claimsdescribed import described_outputs

TEXT_OUTPUT = (".txt", ".csv", ".tsv", ".md", ".json", ".log", ".tex", ".out", ".dat", ".yaml", ".yml", ".html")

FIGURE_FILES = (".pdf", ".png", ".svg", ".jpg", ".jpeg", ".eps")
# Written files that are not text, whatever is in them: a run's output is read by what it holds, not its name,
# and these never hold a table a reader could see.
BINARY_OUTPUT = FIGURE_FILES + (".pkl", ".pickle", ".npy", ".npz", ".pt", ".pth", ".ckpt", ".h5", ".hdf5", ".bin",
                                ".zip", ".gz", ".tgz", ".bz2", ".xz", ".tar", ".7z", ".so", ".o", ".pyc", ".class",
                                ".jar", ".whl", ".db", ".sqlite", ".parquet", ".feather", ".xlsx", ".ipynb", ".gif",
                                ".tif", ".tiff", ".bmp", ".mp4", ".wav", ".onnx", ".joblib", ".model", ".arrow")


@dataclass
class Checks:
    """The results of the checks beyond tables, with the evidence ids that record them."""

    expected: list[dict] = field(default_factory=list)
    notebooks: list[dict] = field(default_factory=list)
    plots: list[dict] = field(default_factory=list)
    documented: list[dict] = field(default_factory=list)
    numbers_found: list[dict] = field(default_factory=list)
    numbers_stated: int = 0
    evidence: list[str] = field(default_factory=list)
    tool: dict = field(default_factory=dict)
    tests: list[dict] = field(default_factory=list)
    examples: list[dict] = field(default_factory=list)
    """Documented commands that ran validly on inputs the artifact ships (`tool -f examples/sample.json`)."""
    described: list[dict] = field(default_factory=list)

    @property
    def capability(self) -> list[str]:
        """On a paper whose claims are what a tool does: the tool's documented examples that gave their documented
        output, and its own test suites that passed (weak mapping for D4, never a reproduced result)."""
        if not self.tool.get("tool"):
            return []
        return (self.documented_output
                + [f"`{e['command']}` ran validly on the shipped {', '.join(e['inputs'][:3])}" for e in self.examples]
                + [f"`{t['command']}`: {t['reason']}" for t in self.tests if t["verdict"] == "passed"])

    @property
    def documented_output(self) -> list[str]:
        """What the runs produced that the documentation says they should (one line each)."""
        out = [f"documented output of `{e['command']}` matched" for e in self.expected if e["verdict"] == "match"]
        out += [f"{n['notebook']}: stored outputs reproduced" for n in self.notebooks
                if n["verdict"] == "match" and not n["descriptive"]]
        out += [f"{d['documented']} produced" for d in self.documented
                if d["verdict"] == "produced" and not d.get("figure")]
        out += [d["line"] for d in self.described if d["verdict"] == "match"]
        return out

    @property
    def figures(self) -> list[str]:
        """Documented figure files the runs wrote, and notebooks the documentation ties to paper figures that ran
        without an error and showed figures or wrote figure files."""
        out = [f"{d['documented']} ({', '.join(d['objects'])})" for d in self.documented
               if d["verdict"] == "produced" and d.get("figure") and d["objects"]]
        out += [f"{n['notebook']}: {n['figures_displayed']} figures shown or written"
                f"{' (' + ', '.join(n['figure_files']) + ')' if n.get('figure_files') else ''}"
                f" for {', '.join(n['figure_refs'])}"
                for n in self.notebooks if n.get("figures_displayed") and n.get("figure_refs")]
        return out + [f"`{p['command']}`: {len(p['figures'])} figure{'s' if len(p['figures']) != 1 else ''} shown or "
                      f"written ({', '.join(p['figures'][:4])}) for {', '.join(p['figure_refs'])}" for p in self.plots]

    @property
    def peripheral(self) -> list[str]:
        """Reproduced outputs that describe the inputs (demographics, data-set statistics): weak mapping only."""
        return [f"{n['notebook']}: stored outputs reproduced (describes the inputs)" for n in self.notebooks
                if n["verdict"] == "match" and n["descriptive"]]

    @property
    def partial(self) -> bool:
        return any(e["verdict"] == "partial" for e in self.expected + self.notebooks) or \
            any(d["verdict"] in ("produced", "partial") for d in self.documented)


def run_sources(tools: PhaseTools, run: dict) -> list[tuple[str, str]]:
    """(name, text) of one run's outputs: stdout, text files it wrote, the text outputs of an executed notebook."""
    log = parse_log(tools.store.read(run["evidence"])) if run.get("evidence") else None
    sources = [(f"stdout of `{run['cmd']}`", log.stdout if log else "")]
    for rel in (run.get("files_created") or []) + (run.get("files_modified") or []):
        if rel.lower().endswith(TEXT_OUTPUT) or (not rel.lower().endswith(BINARY_OUTPUT)
                                                 and not rel.startswith(".copilot/")):
            text = tools.read_output(rel, 1_000_000)
            if text and (rel.lower().endswith(TEXT_OUTPUT) or _reads_as_text(text)):
                sources.append((rel, text))
    if run.get("executed"):
        sources.append((run["executed"], notebook_text(tools.read_output(run["executed"], 20_000_000) or "")))
    return sources


def _reads_as_text(text: str) -> bool:
    """A file without a text extension that is text all the same (`table2_result`, `out.res`): no NUL, few
    undecodable bytes."""
    head = text[:20_000]
    return "\x00" not in head and head.count("\ufffd") <= len(head) // 100


def notebook_text(nb_json: str) -> str:
    """The text outputs of a notebook's code cells (stream, text/plain, markdown/latex results)."""
    try:
        cells = json.loads(nb_json).get("cells", [])
    except (ValueError, AttributeError):
        return ""
    parts = []
    for cell in cells:
        for out in cell.get("outputs", []) if isinstance(cell, dict) else []:
            data = out.get("data", {}) if isinstance(out, dict) else {}
            for value in (out.get("text"), data.get("text/plain"), data.get("text/markdown"), data.get("text/latex")):
                if value:
                    parts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(parts)


def beyond_tables(tools: PhaseTools, d1_facts: dict, runs: list[dict], all_text: str) -> Checks:
    checks = Checks()
    by_order = {r["step_order"]: r for r in runs if r.get("step_order")}
    for exp in d1_facts.get("expected_outputs", []):
        run = by_order.get(exp["step_order"])
        if run is None:
            continue
        match, ev = _expected_output(tools, run, exp)
        checks.expected.append({"command": run["cmd"], "verdict": match.verdict, "source": exp["source"]})
        checks.evidence.append(ev.id)
    _shipped(tools, runs, checks)
    for run in runs:
        if run.get("executed") and run.get("notebook"):
            stored = tools.read_file(run["notebook"], 20_000_000) or ""
            executed = tools.read_output(run["executed"], 20_000_000) or ""
            result, ev = tools.compare_notebook(run["notebook"], stored, executed)
            refs = [m for nb in d1_facts.get("notebooks", []) if nb.get("path") == run["notebook"]
                    for m in nb.get("mentions", []) if m.lower().startswith(("figure", "fig."))]
            drawn = figure_files(run)  # a notebook run that raised has no valid run here
            checks.notebooks.append({"notebook": run["notebook"], "verdict": result.verdict,
                                     "descriptive": descriptive_name(run["notebook"].rsplit("/", 1)[-1]),
                                     "figures_displayed": result.figures_displayed + len(drawn),
                                     "figure_files": drawn[:6], "figure_refs": refs})
            checks.evidence.append(ev.id)
    paper = tools.ctx.paper
    figures = {o for o in paper_objects([], paper.figures, paper.text) if o.startswith("Figure")}
    checks.plots = [p for run in runs if not run.get("notebook") and (p := plotted(run, figures))]
    documented = [(d["path"], d.get("mentions", [])) for d in d1_facts.get("documented_outputs", [])]
    written = sorted({f for r in runs for f in (r.get("files_created") or []) + (r.get("files_modified") or [])})
    results, ev = tools.check_documented_outputs(documented, written)
    if ev is not None:
        checks.documented = [{**r.to_dict(), "figure": _is_figure(r.to_dict())} for r in results]
        checks.evidence.append(ev.id)
    checks.described, described_evs = described_outputs(tools, d1_facts.get("docs") or [], runs,
                                                        d1_facts.get("steps") or [])
    checks.evidence += described_evs
    tool_checks(tools, d1_facts, runs, checks)
    stated, found, ev = tools.find_paper_numbers(all_text)
    checks.numbers_stated, checks.numbers_found = len(stated), [m.to_dict() for m in found]
    checks.evidence.append(ev.id)
    return checks


def _expected_output(tools: PhaseTools, run: dict, exp: dict):
    """The documented output of a command against its stdout, else against a text file it wrote (a README that
    shows "the output may look like this" for the file the command saves)."""
    sources = run_sources(tools, run)
    match, ev = tools.check_expected_output(run["cmd"], exp["text"], sources[0][1], exp["source"])
    for name, text in sources[1:4]:
        if match.verdict == "match" or run.get("executed") == name:
            break
        again, ev2 = tools.check_expected_output(f"{run['cmd']} ({name})", exp["text"], text, exp["source"])
        if again.verdict == "match":
            match, ev = again, ev2
    return match, ev


def _shipped(tools: PhaseTools, runs: list[dict], checks: Checks) -> None:
    """Documented commands run on an example input that ships its expected output beside it."""
    files = tools.list_files()
    for run in runs:
        try:
            words = sh.split(run.get("script") or "")
        except ValueError:
            continue
        written = set((run.get("files_created") or []) + (run.get("files_modified") or []))
        base = "" if run.get("cwd", ".") in ("", ".") else run["cwd"].rstrip("/") + "/"
        inputs = [f"{base}{w}".removeprefix("./") for w in words[1:] if not w.startswith("-")]
        for expected in [e for rel in inputs for e in expected_siblings(rel, files)
                         if e not in written and e not in inputs][:2]:
            want = tools.read_file(expected, 2_000_000) or ""
            results = [(name, compare_shipped(want, text)) for name, text in run_sources(tools, run)[:4] if text]
            if not results:
                continue
            rank = {"match": 3, "partial": 2, "mismatch": 1, "not_established": 0}
            name, best = max(results, key=lambda r: (rank[r[1].verdict], r[1].lines_matched))
            ev = tools.record_evidence("comparison", "shipped-expected-output",
                                       {"check": "expected output shipped beside the example input",
                                        "command": run["cmd"], "expected_file": expected, "produced": name,
                                        **best.to_dict()},
                                       f"`{run['cmd'][:60]}` against the shipped {expected}: {best.verdict}",
                                       EvidenceLevel.E2 if best.verdict == "match" else EvidenceLevel.E1)
            checks.expected.append({"command": run["cmd"], "verdict": best.verdict, "source": expected})
            checks.evidence.append(ev.id)


def tool_checks(tools: PhaseTools, d1_facts: dict, runs: list[dict], checks: Checks) -> None:
    """Whether the paper's claims are what a tool does (paper text, then the documentation's usage and output
    description), and what the tool's own test runs reported."""
    docs = "\n".join(tools.read_file(path, 200_000) or "" for path in (d1_facts.get("docs") or [])[:4]
                     if not str(path).startswith("paper:"))
    paper = tools.ctx.paper
    checks.tool = tool_claims(paper.abstract, paper.text, docs).to_dict()
    files = set(tools.list_files())
    for run in runs:
        if run.get("kind") in ("workflow", "plot") and run.get("documented", True) and not run.get("notebook"):
            inputs = shipped_inputs(run, files)
            if inputs:
                checks.examples.append({"command": run["cmd"], "inputs": inputs, "evidence": run.get("evidence")})
        if run.get("kind") != "test" or not run.get("evidence"):
            continue
        log = parse_log(tools.store.read(run["evidence"]))
        summary = read_test_summary(log.stdout, log.stderr, log.exit_code)
        checks.tests.append({"command": run["cmd"], "evidence": run["evidence"], **summary.to_dict()})


def shipped_inputs(run: dict, files: set[str]) -> list[str]:
    """The artifact's own files and folders a command is given as input (not its program, not what it wrote)."""
    try:
        words = sh.split(run.get("script") or run.get("cmd") or "")
    except ValueError:
        return []
    program = named_program(words)
    written = set((run.get("files_created") or []) + (run.get("files_modified") or []))
    base = "" if run.get("cwd", ".") in ("", ".") else run["cwd"].rstrip("/") + "/"
    found = []
    for word in words[1:]:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if not value or value.startswith("-") or value == program or "/" not in value and "." not in value:
            continue
        rel = posixpath.normpath(base + value).removeprefix("./")
        folder = rel.rstrip("/") + "/"
        if rel in written:
            continue
        if rel in files or any(f.startswith(folder) for f in files):
            found.append(value)
    return list(dict.fromkeys(found))


def named_program(words: list[str]) -> str:
    """The program file a command line runs (`python3 tool.py …` -> `tool.py`), else ''."""
    for word in words[:3]:
        if re.search(r"\.(py|sh|R|r|jl|pl|rb|js)$", word):
            return word
    return ""


def _is_figure(result: dict) -> bool:
    return any(c.get("role") == "figure" and c.get("valid") for c in result.get("checks") or [])


FIGURE_REF = re.compile(r"^fig(?:ure)?\.?\s*(\d+)", re.IGNORECASE)
SCRIPT_FIGURE = re.compile(r"(?:^|[^a-z])fig(?:ure)?[_\-\s]?(\d+)", re.IGNORECASE)


def plotted(run: dict, paper_figures: set[str] | None = None) -> dict | None:
    """A documented command (not a notebook) that the documentation ties to paper figures and that, in a valid
    run, showed figures or wrote figure files: what it drew and for which figures. A script named after one of
    those figures (`figure_5.py` under "Figures 4, 5, 6, 7") is tied to that figure alone. A program named after
    a figure the paper has (`reproduction/fig_7a.py`, Figure 7 in `paper_figures`) is tied to it with no
    documentation around it."""
    drawn = list(run.get("figures_shown") or []) + figure_files(run)
    refs = [m for m in run.get("mentions") or [] if FIGURE_REF.match(m)]
    if not refs and paper_figures:
        refs = [o for o in named_objects(run.get("script") or run.get("cmd") or "") if o in paper_figures]
    if not drawn or not refs:
        return None
    named = SCRIPT_FIGURE.search((run.get("script") or run.get("cmd") or "").rsplit("/", 1)[-1])
    own = [m for m in refs if named and (n := FIGURE_REF.match(m)) and n.group(1) == named.group(1)]
    return {"command": run.get("cmd") or run.get("script"), "figures": drawn[:6], "figure_refs": own or refs,
            "evidence": [e for e in [run.get("evidence"), *(run.get("figure_evidence") or [])] if e]}


def figure_files(run: dict) -> list[str]:
    """Figure files (PDF, PNG, SVG, ...) a run created or changed in the artifact."""
    return [f for f in (run.get("files_created") or []) + (run.get("files_modified") or [])
            if f.lower().endswith(FIGURE_FILES)]
