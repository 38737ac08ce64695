"""The one interface between `tom-eval report` and a task: a task's section reads the rows
of its own logs and writes its tables, charts and markdown. The report knows no task; the
command line hands it the sections (`cli.SECTIONS`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pandas as pd


@dataclass
class Context:
    """What every section writes with: the report's folder and options, and the warnings
    shown at the top of report.md."""

    out: Path
    examples: int = 5
    """Failed examples to show in full."""
    quiet: bool = True
    """No progress bars while reading samples."""
    warnings: list[str] = field(default_factory=list)


class Section(Protocol):
    tasks: tuple[str, ...]
    """The task names whose logs it reads, as Inspect records them (`tom`, `tom_eval/tom`)."""

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        """The section's markdown lines, its CSVs and PNGs written into `context.out`.
        `evals` holds its tasks' logs (`report.logs.read_evals` rows), never empty."""
        ...
