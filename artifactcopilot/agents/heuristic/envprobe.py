"""D2's importable state: do the packages the documented install declares import in the review's environment?

`python --version` answering is no evaluable state: an environment is evaluable when the install it documents
reached a state where the packages it declares are installed and import (and its entry points resolve, which
env.py checks). The probe runs in the review's virtual environment, one line of JSON per distribution: installed
or not, and for an installed one whether its top-level module imports (the error when not). A probe cut short by
its time limit establishes what it got to, and says the rest was not checked.
"""
from __future__ import annotations

import json
import shlex

from ...provision import VENV, EnvPlan
from ...tools import PhaseTools

MAX_PROBED = 80
PROBE = r'''
import json, sys
try:
    import importlib.metadata as md
except ImportError:
    md = None

def tops(dist):
    text = dist.read_text("top_level.txt") or ""
    names = [t for t in text.split() if t and not t.startswith("_")]
    if names:
        return names
    found = set()
    for f in dist.files or []:
        parts = str(f).split("/")
        if parts[0].endswith((".dist-info", ".egg-info", ".data", ".pth")) or parts[0] in ("..", "bin"):
            continue
        if len(parts) == 1 and parts[0].endswith(".py"):
            found.add(parts[0][:-3])
        elif len(parts) > 1 and parts[1] == "__init__.py":
            found.add(parts[0])
    return sorted(n for n in found if not n.startswith("_"))

for name in sys.argv[1:]:
    if md is None:
        print(json.dumps({"name": name, "status": "unknown", "detail": "no importlib.metadata"}), flush=True)
        continue
    try:
        dist = md.distribution(name)
    except Exception:
        print(json.dumps({"name": name, "status": "missing"}), flush=True)
        continue
    modules = tops(dist)
    key = name.lower().replace("-", "_").replace(".", "_")
    modules.sort(key=lambda m: m.lower() != key)
    if not modules:
        print(json.dumps({"name": name, "status": "ok", "detail": "installed (no module to import)"}), flush=True)
        continue
    try:
        __import__(modules[0])
        print(json.dumps({"name": name, "status": "ok", "detail": modules[0]}), flush=True)
    except BaseException as exc:
        said = str(exc).splitlines()[0][:160] if str(exc) else ""
        print(json.dumps({"name": name, "status": "error", "detail": "%s: %s" % (type(exc).__name__, said)}),
              flush=True)
'''


def probe_imports(tools: PhaseTools, plan: EnvPlan) -> dict:
    """{"evidence": id or None, "checked": n, "missing": [names], "broken": ["name (error)"], "unchecked": n}."""
    out: dict = {"evidence": None, "checked": 0, "missing": [], "broken": [], "unchecked": 0}
    names = list(dict.fromkeys(plan.installs))[:MAX_PROBED]
    if not names or not tools.ctx.venv_ready:
        return out
    script = f"{VENV}/bin/python - {' '.join(shlex.quote(n) for n in names)} <<'PY'\n{PROBE}PY"
    res = tools.probe(script, "do the packages the install declares import (the environment's evaluable state)")
    out["evidence"] = res.evidence.id
    seen = set()
    for line in res.record.stdout.splitlines() + _more(tools, res):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict) or row.get("name") in seen:
            continue
        seen.add(row.get("name"))
        out["checked"] += 1
        if row.get("status") == "missing":
            out["missing"].append(str(row["name"]))
        elif row.get("status") == "error":
            out["broken"].append(f"{row['name']} ({row.get('detail', '')})")
    out["unchecked"] = len(names) - len(seen)
    return out


def _more(tools: PhaseTools, res) -> list[str]:
    """Lines of the probe's output past the record's head (the persisted log has them all)."""
    try:
        body = tools.store.read(res.evidence.id)
    except Exception:  # noqa: BLE001 - the head is what there is
        return []
    return body.split("----- stdout -----", 1)[-1].split("----- stderr -----", 1)[0].splitlines()


def import_problems(found: dict) -> list[str]:
    """What keeps the environment from an importable state, in words (empty when it reached one)."""
    problems = []
    if found["missing"]:
        problems.append(f"declared packages not installed: {', '.join(found['missing'][:6])}"
                        + (f" and {len(found['missing']) - 6} more" if len(found["missing"]) > 6 else ""))
    if found["broken"]:
        problems.append(f"declared packages that do not import: {'; '.join(found['broken'][:3])}"
                        + (f" and {len(found['broken']) - 3} more" if len(found["broken"]) > 3 else ""))
    return problems
