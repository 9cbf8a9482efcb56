"""D4's use of regenerated committed files: a documented run that rewrote a result file the authors committed,
with values equal to the committed version at printed precision, produced what the artifact says it produces —
documented-output evidence (weak mapping; never a paper table by itself). The committed file was not read for
the result, it was regenerated; a mismatch is recorded cell by cell (flag `regenerated-differs`)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields

from ...tools import PhaseTools
from ...tools.committed import regenerated_for
from .claimsources import Checks


@dataclass
class RegeneratedChecks(Checks):
    """The checks beyond tables, plus the committed files the runs regenerated to the same values."""

    regenerated: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)

    @property
    def documented_output(self) -> list[str]:
        return super().documented_output + self.regenerated


def with_regenerated(tools: PhaseTools, runs: list[dict], checks: Checks) -> Checks:
    """`checks` with the committed files the valid runs regenerated (matches count as documented output)."""
    found = regenerated_for(tools.store, {r["evidence"] for r in runs if r.get("evidence")})
    if not found:
        return checks
    out = RegeneratedChecks(**{f.name: getattr(checks, f.name) for f in fields(Checks)})
    for ev_id, comp in found:
        if comp.counted:
            out.regenerated.append(comp.line())
        elif comp.verdict == "mismatch":
            out.differing.append(comp.line())
        if ev_id not in out.evidence:
            out.evidence.append(ev_id)
    return out


__all__ = ["RegeneratedChecks", "with_regenerated"]
