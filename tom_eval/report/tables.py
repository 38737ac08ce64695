"""Tables in the report: markdown for report.md, CSV beside it, and the report's folder."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from tom_eval.errors import InputError
from tom_eval.files import writable_folder


def make_folder(out: Path) -> None:
    """The report's folder, refused in one line when it is a file or cannot be written."""
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: is a file; --out names a folder for the report")
    writable_folder(out)


def interval(value: float, low: float, high: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f} [{low:.3f}, {high:.3f}]"


def intervals(table: pd.DataFrame, name: str) -> list[str]:
    """`name` with its `name_low` and `name_high` columns, as one text per row."""
    return [interval(*row) for row in table[[name, f"{name}_low", f"{name}_high"]].to_numpy()]


def cell(value: Any) -> str:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.3f}"
    return str(value).replace("|", "\\|")


def markdown(frame: pd.DataFrame) -> str:
    """A markdown table (pandas' own needs the tabulate package)."""
    if frame.empty:
        return "(none)"
    header = "| " + " | ".join(str(column) for column in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = [
        "| " + " | ".join(cell(value) for value in row) + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *body])


def csv(frame: pd.DataFrame, path: Path) -> None:
    """The table as CSV, without whole stories (they are in the logs)."""
    frame.drop(columns=[c for c in frame.columns if c == "story"], errors="ignore").to_csv(
        path, index=False
    )


SHOWN_CHARACTERS = 2000
"""The most of a reply report.md shows (a run's log holds it whole)."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def code_block(text: str, limit: int = SHOWN_CHARACTERS) -> list[str]:
    """`text` as a markdown code block, as a reader needs it: control characters shown as
    their Unicode pictures, such as ␀ (a NUL made report.md a binary file to grep; an
    escape such as \\x00 could not be told from a reply that wrote it), cut after `limit`
    characters with how many more there were (said after the block), and fenced by more
    backticks than it holds in a row (a reply's own ``` would end the block)."""
    shown = _CONTROL.sub(lambda found: _picture(found.group()), text[:limit])
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * max(3, longest + 1)
    cut = [f"(cut here: {len(text) - limit:,} more characters in the log)"]
    return [fence, shown, fence, *(cut if len(text) > limit else [])]


def _picture(control: str) -> str:
    """The Unicode control picture of a control character (U+2400 to U+2421)."""
    code = ord(control)
    return chr(0x2400 + code) if code < 0x20 else "\u2421"
