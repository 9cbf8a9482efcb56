"""The offline reviewer on the development set of real artifacts: predicted vs awarded badges.

    python benchmarks/real_artifacts.py [--dev ../shared/real] [--root /tmp/real] [--out /tmp/real-out]
                                        [--sandbox auto] [--only ID,ID] [--jobs 1] [--paper pdf|md]
                                        [--compare OLD.json] [--rescore OLD.json] [--smoke]

Reviews every artifact of `dev.tsv` that is materialized under ROOT/<id> (see ../shared/real/README.md:
`fetch` + `materialize.py`) with the offline agent and the chosen sandbox. The paper is the real PDF where the
development set has one (`pdfs/<id>.pdf`, what a user gives), else the stand-in (`papers/<id>.md`); `--paper md`
uses the stand-ins throughout.

The measure (../shared/real/README.md) is exact agreement on the badge ladder none < Available < Functional <
Reusable, where an award of Results Reproduced stands for Functional (reproduction presupposes a working
artifact); an over-award is a prediction above the award's rung. Whether the review also says Results Reproduced
is scored apart, as a second figure. Every figure is given for the whole pool, for the rows built on, and for the
validation split (every third row of dev.tsv in file order), with the over-awards of each.

One row per artifact — split, awarded badges, the award's rung, the predicted rung (+R when the review says
Results Reproduced), match, D1–D5, evidence level, highest intervention, time. Reports stay in OUT/<id>/; the rows
are also written to OUT/results.json, and `--compare OLD.json` adds the rung an earlier run predicted.
`--smoke`: the same pipeline on a one-row development set made of the bundled example (checks that the benchmark
works, not a figure).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DEV = HERE.parent.parent / "shared" / "real"
EXAMPLE = HERE.parent / "examples" / "wordfreq"
LADDER = ("none", "available", "functional", "reusable")
VALIDATION_EVERY = 3
CAREFUL = HERE / "careful_here.tsv"
"""The second reference: what a careful reviewer following ArtifactGuide reaches on this machine (audits/<id>.md),
one rung or a range low..high where reuse cannot be settled by the artifact's own material."""


def careful_labels(path: Path = CAREFUL) -> dict[str, tuple[str, str]]:
    """id -> (lowest, highest) careful-here rung."""
    if not path.is_file():
        return {}
    out = {}
    for row in csv.DictReader(open(path, encoding="utf-8"), delimiter="\t"):
        low, _, high = row["careful_here"].partition("..")
        out[row["id"]] = (low, high or low)
    return out


def within(predicted: str, label: tuple[str, str] | None) -> bool:
    return label is not None and predicted in LADDER and \
        LADDER.index(label[0]) <= LADDER.index(predicted) <= LADDER.index(label[1])


def rung(awarded: str) -> str:
    """The ladder position of a set of awarded badges: the highest rung, Results Reproduced standing for Functional."""
    names = {b.strip().lower() for b in awarded.replace(";", ",").split(",") if b.strip()}
    names = {"functional" if b == "reproduced" else b for b in names}
    return max((b for b in names if b in LADDER), key=LADDER.index, default="none")


def awards_reproduced(awarded: str) -> bool:
    return "reproduced" in {b.strip().lower() for b in awarded.split(",")}


def over_award(awarded_rung: str, predicted_rung: str) -> bool:
    return predicted_rung in LADDER and LADDER.index(predicted_rung) > LADDER.index(awarded_rung)


def smoke_dev(folder: Path) -> tuple[Path, Path]:
    """(dev folder, artifact root): a development set of one row, the bundled example (its results reproduce)."""
    dev, root = folder / "dev", folder / "root"
    (dev / "papers").mkdir(parents=True)
    root.mkdir()
    (dev / "papers" / "wordfreq.md").write_bytes((EXAMPLE / "paper.md").read_bytes())
    (root / "wordfreq").symlink_to(EXAMPLE / "artifact", target_is_directory=True)
    (dev / "dev.tsv").write_text("id\tawarded_badges\ttop_badge\nwordfreq\tavailable,reusable,reproduced\treproduced\n",
                                 encoding="utf-8")
    return dev, root


def paper_of(dev: Path, ident: str, kind: str) -> Path:
    pdf = dev / "pdfs" / f"{ident}.pdf"
    return pdf if kind == "pdf" and pdf.is_file() else dev / "papers" / f"{ident}.md"


def review(row: dict, args) -> dict:
    paper = paper_of(Path(args.dev), row["id"], args.paper)
    artifact, out = Path(args.root) / row["id"], Path(args.out) / row["id"]
    if out.exists():
        subprocess.run(["rm", "-rf", str(out)], check=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    awarded = row.get("awarded_badges") or row.get("top_badge") or "none"
    base = {"id": row["id"], "split": row["split"], "awarded": awarded, "rung": rung(awarded),
            "awarded_reproduced": awards_reproduced(awarded), "paper": paper.name,
            "careful": "..".join(dict.fromkeys(row["careful"])) if row.get("careful") else ""}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(paper), str(artifact),
                           "--out", str(out), "--agent", "heuristic", "--sandbox", args.sandbox, "--json"],
                          capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        return {**base, "predicted": "error", "reproduced": False, "seconds": seconds,
                "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:160]}
    report = json.loads(proc.stdout)
    return {**base, "predicted": report["badge"], "reproduced": bool(report["badges"].get("reproduced")),
            "seconds": seconds, "dims": " ".join(d["score"] or "-" for d in report["dimensions"].values()),
            "level": report["evidence_level"],
            "max_i": max((i["level"] for i in report["interventions"]), default="I0")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", default=str(DEFAULT_DEV), help="folder with dev.tsv, papers/ and pdfs/")
    parser.add_argument("--root", default="/tmp/real", help="folder with the materialized artifacts, one per id")
    parser.add_argument("--out", default="/tmp/real-out", help="where the reviews are written")
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--only", default="", help="comma-separated ids")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--paper", choices=("pdf", "md"), default="pdf",
                        help="pdf: the real paper where the set has one, else the stand-in; md: the stand-ins")
    parser.add_argument("--compare", default="", help="results.json of an earlier run: its predictions beside")
    parser.add_argument("--rescore", default="", help="results.json of an earlier run: score it again, review nothing")
    parser.add_argument("--smoke", action="store_true", help="review the bundled example as a one-row set (a check)")
    args = parser.parse_args()
    if args.smoke:
        with tempfile.TemporaryDirectory(prefix="real-artifacts-smoke-") as tmp:
            dev, root = smoke_dev(Path(tmp))
            args.dev, args.root, args.out, args.only = str(dev), str(root), str(Path(tmp) / "out"), ""
            results = run(args)
        if any(r.get("error") for r in results):
            raise SystemExit("a review of the smoke set failed")
        return
    run(args)


def rows_of(dev: Path) -> list[dict]:
    """dev.tsv's rows in file order, each with its split: every third row is validation ("v"), the rest built on."""
    rows = list(csv.DictReader(open(dev / "dev.tsv", encoding="utf-8"), delimiter="\t"))
    labels = careful_labels()
    for n, row in enumerate(rows, start=1):
        row["split"] = "v" if n % VALIDATION_EVERY == 0 else ""
        row["careful"] = labels.get(row["id"], ())
    return rows


def figures(results: list[dict]) -> dict:
    """Ladder agreement, over-awards and Reproduced agreement of a set of rows."""
    scored = [r for r in results if r["predicted"] != "error"]
    careful = [r for r in scored if r.get("careful")]
    return {"n": len(results), "exact": sum(r["predicted"] == r["rung"] for r in scored),
            "careful_n": len([r for r in results if r.get("careful")]),
            "careful_exact": sum(within(r["predicted"], _range(r["careful"])) for r in careful),
            "careful_over": [r["id"] for r in careful if r["predicted"] in LADDER
                             and LADDER.index(r["predicted"]) > LADDER.index(_range(r["careful"])[1])],
            "over": [r["id"] for r in scored if over_award(r["rung"], r["predicted"])],
            "errors": [r["id"] for r in results if r["predicted"] == "error"],
            "reproduced_agree": sum(r["reproduced"] == r["awarded_reproduced"] for r in scored),
            "reproduced_awarded": sum(r["awarded_reproduced"] for r in results),
            "reproduced_hit": sum(r["reproduced"] and r["awarded_reproduced"] for r in scored),
            "reproduced_over": [r["id"] for r in scored if r["reproduced"] and not r["awarded_reproduced"]]}


def _range(text: str) -> tuple[str, str]:
    low, _, high = text.partition("..")
    return low, high or low


def _line(name: str, f: dict) -> str:
    return (f"{name}: {f['exact']}/{f['n']} exact on the ladder, {len(f['over'])} over-awarded"
            + (f" ({', '.join(f['over'])})" if f["over"] else "")
            + (f"; careful-here {f['careful_exact']}/{f['careful_n']}, {len(f['careful_over'])} above it"
               + (f" ({', '.join(f['careful_over'])})" if f["careful_over"] else "") if f.get("careful_n") else "")
            + f"; Results Reproduced {f['reproduced_hit']} of {f['reproduced_awarded']} awards said, "
            f"{len(f['reproduced_over'])} said without an award"
            + (f" ({', '.join(f['reproduced_over'])})" if f["reproduced_over"] else "")
            + f", agreement {f['reproduced_agree']}/{f['n']}"
            + (f"; {len(f['errors'])} errors ({', '.join(f['errors'])})" if f["errors"] else ""))


def run(args) -> list[dict]:
    only = {x for x in args.only.split(",") if x}
    rows = [r for r in rows_of(Path(args.dev))
            if (Path(args.root) / r["id"]).is_dir() and (not only or r["id"] in only)]
    if not rows:
        sys.exit(f"no materialized artifact under {args.root} (see {args.dev}/README.md)")
    if args.rescore:  # the rows of an earlier run, scored again against today's labels
        kept = {r["id"]: r for r in json.loads(Path(args.rescore).read_text(encoding="utf-8"))["rows"]}
        results = [{**kept[r["id"]], "split": r["split"], "careful": "..".join(dict.fromkeys(r["careful"]))}
                   for r in rows if r["id"] in kept]
    else:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda r: review(r, args), rows))
    earlier = {}
    if args.compare and Path(args.compare).is_file():
        earlier = {r["id"]: r for r in json.loads(Path(args.compare).read_text(encoding="utf-8"))["rows"]}
    print(f"{'artifact':<16} {'v':<2} {'awarded':<36} {'rung':<11} {'careful here':<22} {'before':<13} "
          f"{'predicted':<13} {'ok':<3} {'here':<4} {'D1 D2 D3 D4 D5':<15} {'E':<3} {'I':<3} {'time':>7}")
    for r in results:
        ok = "✓" if r["predicted"] == r["rung"] else ("✗↑" if over_award(r["rung"], r["predicted"]) else "✗")
        label = _range(r["careful"]) if r.get("careful") else None
        here = "" if label is None else "✓" if within(r["predicted"], label) else \
            "✗↑" if r["predicted"] in LADDER and LADDER.index(r["predicted"]) > LADDER.index(label[1]) else "✗"
        pred = r["predicted"] + ("+R" if r.get("reproduced") else "")
        old = earlier.get(r["id"])
        before = (old["predicted"] + ("+R" if old.get("reproduced") else "")) if old else ""
        print(f"{r['id']:<16} {r['split']:<2} {r['awarded']:<36} {r['rung']:<11} {r.get('careful', ''):<22} "
              f"{before:<13} {pred:<13} {ok:<3} {here:<4} {r.get('dims', ''):<15} {r.get('level', ''):<3} "
              f"{r.get('max_i', ''):<3} {r['seconds']:>6.0f}s" + (f"  {r['error']}" if r.get("error") else ""))
    built = [r for r in results if not r["split"]]
    held = [r for r in results if r["split"]]
    summary = {"pool": figures(results), "built_on": figures(built), "validation": figures(held)}
    print()
    print(_line("pool", summary["pool"]))
    print(_line("built on", summary["built_on"]))
    print(_line("validation", summary["validation"]))
    times = [r["seconds"] for r in results]
    print(f"review time median {statistics.median(times):.0f}s, slowest {max(times):.0f}s; total {sum(times):.0f}s")
    if args.rescore:
        return results
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "results.json").write_text(json.dumps({"rows": results, "summary": summary}, indent=1),
                                                 encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
