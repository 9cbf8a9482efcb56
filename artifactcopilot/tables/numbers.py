"""Numbers as papers print them: markup, thousands separators, %, ±, units, printed precision."""
from __future__ import annotations

import re

from pydantic import BaseModel, Field

FORMAT_CMD = re.compile(r"\\(?:textbf|textit|textsc|texttt|textrm|emph|underline|mathbf|mathrm|mathit|text|bm|"
                         r"boldsymbol|textsuperscript|mathbb|uline)\s*\{([^{}]*)\}")
_NUM = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# Units that do not change the value as printed (speedups, times, sizes). Multipliers (K, M) would, so no.
_UNIT = re.compile(r"(?<=[\d.])\s*(?:x|×|ms|s|sec|min|h|hrs?|[kmgt]i?b)$", re.I)


class ParsedNumber(BaseModel):
    value: float
    decimals: int = Field(description="Decimals as printed (mantissa decimals minus exponent for 1.2e-3).")
    percent: bool = False


def strip_markup(text: str) -> str:
    """Remove Markdown/LaTeX emphasis, math and footnote markers around a cell."""
    s = text.strip()
    for _ in range(3):  # nested \textbf{\underline{..}}
        s = FORMAT_CMD.sub(r"\1", s)
    s = (s.replace("\\%", "%").replace("\\pm", "±").replace("+/-", "±").replace("\\approx", "≈")
         .replace("\\dagger", "†").replace("\\ddagger", "‡").replace("\\,", "").replace("\\ ", " "))
    s = re.sub(r"[*_$`{}^]", "", s)
    return s.strip()


def parse_number(text: str) -> ParsedNumber | None:
    """The number a table cell states, or None for text ("n/a", "ResNet", "-", "")."""
    s = strip_markup(str(text)).replace("\u2212", "-").replace("\u2013", "-")
    s = s.split("±")[0].strip()
    if s.startswith("(") and s.endswith(")") and s.count("(") == 1:  # "(81.2%)": a share printed in parentheses
        s = s[1:-1].strip()
    s = re.sub(r"(?<=\S)\s*\([^()]*\)$", "", s)  # "76.1 (0.3)": trailing std in parentheses
    s = s.lstrip("~≈ ").rstrip("†‡§¶ ").strip()
    percent = s.endswith("%")
    s = _UNIT.sub("", s.rstrip("% ")) if s else s
    s = re.sub(r"(?<=\d)[\u2009\u202f\u00a0'](?=\d{3}\b)", "", s)  # thin-space thousands
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    if not _NUM.fullmatch(s):
        return None
    mantissa, _, exp = s.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    if exp:
        decimals = max(0, decimals - int(exp))
    value = float(s)
    if value != value or abs(value) == float("inf"):
        return None
    return ParsedNumber(value=value, decimals=min(decimals, 20), percent=percent)


# ---------------------------------------------------------------------------------- tables

