"""report.md: each task's section over its own logs, warnings first."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tom_eval.errors import InputError
from tom_eval.files import write_atomically
from tom_eval.report.logs import read_evals
from tom_eval.report.section import Context, Section
from tom_eval.report.tables import make_folder


def write_report(
    paths: Sequence[Path],
    sections: Sequence[Section],
    out: Path,
    examples: int = 5,
    quiet: bool = True,
) -> tuple[Path, list[str]]:
    """Everything `tom-eval report` writes: the path of report.md, and the warnings it
    shows. Logs of tasks no section reads, and runs with no scored sample, are left out
    with a warning."""
    evals, warnings = read_evals(paths, quiet)
    known = {task for section in sections for task in section.tasks}
    other = ~evals["task_name"].isin(known)
    for log, task in zip(evals.loc[other, "log"], evals.loc[other, "task_name"], strict=True):
        warnings.append(f"{log}: not a tom-eval log (task {task}); skipped")
    if other.all():
        skipped = f" ({'; '.join(warnings)})" if warnings else ""
        logs = ", ".join(str(path) for path in paths)
        raise InputError(f"{logs}: no tom-eval run with scored samples{skipped}")
    make_folder(out)
    context = Context(out, examples, quiet, warnings)
    body = []
    for section in sections:
        mine = evals[evals["task_name"].isin(section.tasks)].copy()
        if not mine.empty:
            body += section.write(mine, context)
    warned = [f"> warning: {warning}" for warning in context.warnings]
    lines = ["# tom-eval report", "", *warned, *([""] if warned else []), *body]
    path = out / "report.md"
    write_atomically(path, "\n".join(lines))
    return path, context.warnings
