"""The offline reviewer on the development set of real artifacts: predicted vs awarded badges.

    python benchmarks/real_artifacts.py [--dev ../shared/real] [--root /tmp/real] [--out /tmp/real-out]
                                        [--sandbox auto] [--only ID,ID] [--jobs 1] [--smoke]

Reviews every artifact of `dev.tsv` that is materialized under ROOT/<id> (see ../shared/real/README.md:
`fetch` + `materialize.py`), with its stand-in paper, the offline agent and the chosen sandbox, then prints
one row per artifact — awarded (top) badge, predicted badge, match, D1–D5 scores, evidence level, time — and
the number of exact matches. A prediction matches when the top badge is the same ("reproduced" counts as the
top badge when the committee awarded Results Reproduced). Reports stay in OUT/<id>/ for reading. The last line
gives the median and the slowest review time. `--smoke`: the same pipeline on a one-row development set made of
the bundled example (checks that the benchmark works, not a figure).
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


def smoke_dev(folder: Path) -> tuple[Path, Path]:
    """(dev folder, artifact root): a development set of one row, the bundled example (its results reproduce)."""
    dev, root = folder / "dev", folder / "root"
    (dev / "papers").mkdir(parents=True)
    root.mkdir()
    (dev / "papers" / "wordfreq.md").write_bytes((EXAMPLE / "paper.md").read_bytes())
    (root / "wordfreq").symlink_to(EXAMPLE / "artifact", target_is_directory=True)
    (dev / "dev.tsv").write_text("id\ttop_badge\nwordfreq\treproduced\n", encoding="utf-8")
    return dev, root


def top_badge(report: dict) -> str:
    return "reproduced" if report["badges"].get("reproduced") else report["badge"]


def review(row: dict, args) -> dict:
    paper = Path(args.dev) / "papers" / f"{row['id']}.md"
    artifact, out = Path(args.root) / row["id"], Path(args.out) / row["id"]
    if out.exists():
        subprocess.run(["rm", "-rf", str(out)], check=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "artifactcopilot.cli", "review", str(paper), str(artifact),
                           "--out", str(out), "--agent", "heuristic", "--sandbox", args.sandbox, "--json"],
                          capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        return {"id": row["id"], "awarded": row["top_badge"], "predicted": "error", "seconds": seconds,
                "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:160]}
    report = json.loads(proc.stdout)
    return {"id": row["id"], "awarded": row["top_badge"], "predicted": top_badge(report), "seconds": seconds,
            "dims": " ".join(d["score"] or "-" for d in report["dimensions"].values()),
            "level": report["evidence_level"],
            "max_i": max((i["level"] for i in report["interventions"]), default="I0")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", default=str(DEFAULT_DEV), help="folder with dev.tsv and papers/")
    parser.add_argument("--root", default="/tmp/real", help="folder with the materialized artifacts, one per id")
    parser.add_argument("--out", default="/tmp/real-out", help="where the reviews are written")
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--only", default="", help="comma-separated ids")
    parser.add_argument("--jobs", type=int, default=1)
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


def run(args) -> list[dict]:
    rows = list(csv.DictReader(open(Path(args.dev) / "dev.tsv", encoding="utf-8"), delimiter="\t"))
    only = {x for x in args.only.split(",") if x}
    rows = [r for r in rows if (Path(args.root) / r["id"]).is_dir() and (not only or r["id"] in only)]
    if not rows:
        sys.exit(f"no materialized artifact under {args.root} (see {args.dev}/README.md)")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda r: review(r, args), rows))
    print(f"{'artifact':<16} {'awarded':<11} {'predicted':<11} {'ok':<3} "
          f"{'D1 D2 D3 D4 D5':<15} {'E':<3} {'I':<3} {'time':>7}")
    for r in results:
        ok = "✓" if r["awarded"] == r["predicted"] else "✗"
        print(f"{r['id']:<16} {r['awarded']:<11} {r['predicted']:<11} {ok:<3} "
              f"{r.get('dims', ''):<15} {r.get('level', ''):<3} "
              f"{r.get('max_i', ''):<3} {r['seconds']:>6.0f}s" + (f"  {r['error']}" if r.get("error") else ""))
    matches = sum(r["awarded"] == r["predicted"] for r in results)
    times = [r["seconds"] for r in results]
    print(f"\nexact match: {matches}/{len(results)}; review time median {statistics.median(times):.0f}s, "
          f"slowest {max(times):.0f}s; total {sum(times):.0f}s")
    return results


if __name__ == "__main__":
    main()
