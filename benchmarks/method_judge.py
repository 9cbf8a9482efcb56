"""Method judge accuracy on the repository's labelled reproduction scripts, per mode.

    python benchmarks/method_judge.py [--modes alone,artifact,run] [--workers 4] [--scripts PATH] [--json]
    python benchmarks/method_judge.py --jsonl FILE [--every 3] [--json]

Modes: `alone` — the script judged statically without its artifact or the expected table (as a committee
member gets a script handed in); `artifact` — statically, with the artifact's file list and the expected
table; `run` — run in a fresh local sandbox copy of the artifact (strace provenance where it works), with
reruns without checked-in files. For each mode: accuracy over full / last-mile / copy, how many copies
were accepted (judged full or last-mile: the number that must stay 0), how many scripts were left
undetermined, the confusion matrix and the time taken.

`--jsonl FILE` scores scripts labelled elsewhere, one JSON object a line (`id`, `expected`: full, lastmile or
last_mile, copy; `script`), statically and alone. `--every N` splits it: every N-th line (N, 2N, ...) is held
out and only its aggregate score is printed (no per-script verdicts), the other lines are scored in full, and the
whole set is printed as an aggregate. Without `--every`, every script's verdict is printed: never on a set with a
held-out part.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from artifactcopilot.acquire.paper import load_paper
from artifactcopilot.repro.judges import execute, judge_method
from artifactcopilot.sandbox.base import Limits
from artifactcopilot.sandbox.local import LocalSandbox

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "fixtures" / "repro" / "scripts.yaml"
LABELS = ("full", "last_mile", "copy")
PREDICTED = LABELS + ("undetermined",)


def _case(scripts: Path, entry: dict):
    case = (scripts.parent / entry["case"]).resolve()
    table = next(t for t in load_paper(case / "paper.md").tables if t.label == "Table 2")
    return case / "artifact", table


def judge(scripts: Path, entry: dict, mode: str, sandboxes: threading.local, scratch: Path) -> str:
    artifact, table = _case(scripts, entry)
    if mode == "alone":
        return judge_method(entry["script"], None).method
    if mode == "artifact":
        return judge_method(entry["script"], artifact, table).method
    if not hasattr(sandboxes, "sandbox"):
        sandboxes.sandbox = LocalSandbox(scratch / f"s{threading.get_ident()}", Limits(timeout_s=120))
    sandbox = sandboxes.sandbox
    run = execute(entry["script"], artifact, sandbox, 120)

    def rerun(withheld: str):
        return execute(entry["script"], artifact, sandbox, 120, withheld=withheld).outputs

    return judge_method(entry["script"], artifact, table, run, rerun).method


def measure(scripts: Path, entries: list[dict], mode: str, workers: int) -> dict:
    started = time.monotonic()
    local = threading.local()
    with tempfile.TemporaryDirectory(prefix="method-judge-") as scratch, \
            ThreadPoolExecutor(workers if mode == "run" else 1) as pool:
        predicted = list(pool.map(lambda e: judge(scripts, e, mode, local, Path(scratch)), entries))
    confusion = Counter(zip((e["label"] for e in entries), predicted))
    right = sum(n for (a, p), n in confusion.items() if a == p)
    copies = sum(n for (a, p), n in confusion.items() if a == "copy" and p in ("full", "last_mile"))
    wrong = [{"note": e["note"], "case": e["case"], "label": e["label"], "judged": p}
             for e, p in zip(entries, predicted) if p != e["label"]]
    return {"mode": mode, "scripts": len(entries), "right": right, "accuracy": round(right / len(entries), 4),
            "copies_accepted": copies, "undetermined": sum(p == "undetermined" for p in predicted),
            "seconds": round(time.monotonic() - started, 1),
            "confusion": {a: {p: confusion[(a, p)] for p in PREDICTED} for a in LABELS}, "wrong": wrong}


def render(result: dict) -> str:
    lines = [(f"{result['mode']:>8}: {result['right']}/{result['scripts']} right ({result['accuracy']:.1%}), "
             f"copies accepted {result['copies_accepted']}, undetermined {result['undetermined']}, "
             f"{result['seconds']}s"),
             "          actual \\ judged " + "".join(f"{p:>14}" for p in PREDICTED)]
    for a in LABELS:
        lines.append(f"          {a:>15} " + "".join(f"{result['confusion'][a][p]:>14}" for p in PREDICTED))
    lines += [f"          wrong: [{w['case']}] {w['note']}: {w['label']} -> {w['judged']}" for w in result["wrong"]]
    return "\n".join(lines)


def _label(expected: str) -> str:
    return {"lastmile": "last_mile", "last-mile": "last_mile"}.get(expected, expected)


def measure_jsonl(rows: list[dict], name: str, show_wrong: bool) -> dict:
    """Static verdicts (script alone) on labelled JSONL rows."""
    started = time.monotonic()
    entries = [{"label": _label(r["expected"]), "note": r.get("id", f"line {i + 1}"), "case": name}
               for i, r in enumerate(rows)]
    predicted = [judge_method(r["script"], None).method for r in rows]
    confusion = Counter(zip((e["label"] for e in entries), predicted))
    right = sum(n for (a, p), n in confusion.items() if a == p)
    wrong = [{"note": e["note"], "case": name, "label": e["label"], "judged": p}
             for e, p in zip(entries, predicted) if p != e["label"]] if show_wrong else []
    return {"mode": name, "scripts": len(rows), "right": right,
            "accuracy": round(right / len(rows), 4) if rows else 0.0,
            "copies_accepted": sum(n for (a, p), n in confusion.items() if a == "copy" and p in ("full", "last_mile")),
            "undetermined": sum(p == "undetermined" for p in predicted),
            "seconds": round(time.monotonic() - started, 1),
            "confusion": {a: {p: confusion[(a, p)] for p in PREDICTED} for a in LABELS}, "wrong": wrong}


def main_jsonl(path: Path, every: int, as_json: bool) -> None:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [json.loads(line) for line in lines]
    if every > 1:  # the whole set is shown as an aggregate too: its per-script verdicts would reveal the held-out
        parts = [("tuned", [r for i, r in enumerate(rows, 1) if i % every], True),
                 ("held-out", [r for i, r in enumerate(rows, 1) if not i % every], False),
                 ("all", rows, False)]
    else:
        parts = [("all", rows, True)]
    results = [measure_jsonl(part, name, show) for name, part, show in parts if part]
    if as_json:
        print(json.dumps(results, indent=2))
        return
    print(f"{len(rows)} labelled scripts from {path.name}")
    for result in results:
        print(render(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="alone,artifact,run")
    parser.add_argument("--workers", type=int, default=4, help="parallel runs in the `run` mode")
    parser.add_argument("--scripts", type=Path, default=SCRIPTS, help="labelled scripts (YAML, as in tests/fixtures)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--jsonl", type=Path, help="score labelled scripts from a JSONL file (id, expected, script)")
    parser.add_argument("--every", type=int, default=0,
                        help="with --jsonl: hold out every N-th line and print only its aggregate score")
    parser.add_argument("--smoke", action="store_true",
                        help="one script per label, static and with the artifact; fails when a copy is accepted")
    args = parser.parse_args()
    if args.jsonl is not None:
        main_jsonl(args.jsonl, args.every, args.json)
        return
    entries = yaml.safe_load(args.scripts.read_text(encoding="utf-8"))
    if args.smoke:
        entries = [next(e for e in entries if e["label"] == label) for label in LABELS]
        args.modes = "alone,artifact"
    counts = Counter(e["label"] for e in entries)
    if not args.json:
        print(f"{len(entries)} labelled scripts: " + ", ".join(f"{counts[label]} {label}" for label in LABELS))
    results = []
    for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
        if mode not in ("alone", "artifact", "run"):
            parser.error(f"unknown mode {mode!r}: use alone, artifact or run")
        results.append(measure(args.scripts, entries, mode, args.workers))
        if not args.json:
            print(render(results[-1]))
    if args.json:
        print(json.dumps(results, indent=2))
    if any(r["copies_accepted"] for r in results):
        sys.exit("a copied result was accepted")


if __name__ == "__main__":
    main()
