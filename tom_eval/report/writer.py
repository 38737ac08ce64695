"""report.md: each task's section over its own logs, warnings first.

A report written into the folder of an earlier one replaces it: the files the earlier
report wrote and this one does not (another task's CSV, say) are removed, so the folder
never mixes two reports. The folder's `.report-files` lists what the last report wrote;
nothing else in the folder is touched. A report is written in a hidden folder inside it and
moved in only when whole, so one that fails part-way changes nothing; one stopped while
moving in lists both reports' files, which the next report clears.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from tom_eval.errors import InputError
from tom_eval.files import FULL_OR_CLOSED, file_to_write, write_atomically
from tom_eval.report.logs import damage_named, nothing_to_read, read_evals
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
        raise nothing_to_read(paths, "no tom-eval run with scored samples", warnings)
    made = [folder for folder in (out, *out.parents) if not folder.exists()]
    try:
        make_folder(out)
        # Checked before anything is written: a report stopped half-way would mix two.
        blocked = sorted(entry.name for entry in out.iterdir() if _may_write(entry))
        if blocked:
            raise InputError(f"{out / blocked[0]}: is not a file, where a report may write one")
        # Written aside, then moved in: a section that refuses or fails leaves the folder as
        # it was (an earlier report whole, or no folder), never half a report.
        staging = Path(tempfile.mkdtemp(prefix=".report-", dir=out))
        context = Context(staging, examples, quiet, warnings)
        try:
            with damage_named(evals["log"]):
                _write_sections(evals, sections, context)
            _move_in(staging, out)
        except OSError as error:
            if error.errno not in FULL_OR_CLOSED:
                raise
            # A chart or table that cannot be written (PIL's and pandas' own errors).
            raise InputError(f"{out}: cannot write the report ({error.strerror})") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    finally:
        _remove_empty(made)
    return out / "report.md", context.warnings


def _remove_empty(made: list[Path]) -> None:
    """The folders this report created (`--out` and the parents it lacked, deepest first)
    removed where they are empty, as after a refusal. One that could not be made (a name
    too long) does not stop its parents' removal; a folder with a report in it is kept,
    and so its parents, since they hold it."""
    for folder in made:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _write_sections(evals: pd.DataFrame, sections: Sequence[Section], context: Context) -> None:
    """report.md and every section's files, into `context.out`."""
    body = []
    for section in sections:
        mine = evals[evals["task_name"].isin(section.tasks)].copy()
        if not mine.empty:
            body += section.write(mine, context)
    warned = [f"> warning: {warning}" for warning in context.warnings]
    lines = ["# tom-eval report", "", *warned, *([""] if warned else []), *body]
    write_atomically(context.out / "report.md", "\n".join(lines))


def _move_in(staging: Path, out: Path) -> None:
    """The report written in `staging` moved into `out`, in place of the earlier one: the
    files the earlier report wrote and this one did not are removed, and only those."""
    earlier = _written_before(out)
    written = sorted(file.name for file in staging.iterdir())
    # Listed before the first move, with the earlier report's files: stopped while moving
    # in (Ctrl-C), the folder mixes two reports, and the next one removes all of the files
    # it does not write.
    _list_files(out, sorted(set(earlier) | set(written)))
    for name in written:
        # Through a symbolic link, as a report always wrote (the file it names is replaced).
        shutil.move(staging / name, file_to_write(out / name))
    for name in sorted(set(earlier) - set(written)):
        stale = out / name
        # Only what a report writes: an Inspect log written beside it while it ran is kept.
        if stale.suffix in REPORT_SUFFIXES and stale.is_file():
            stale.unlink(missing_ok=True)
    _list_files(out, written)


def _list_files(out: Path, names: list[str]) -> None:
    """`.report-files`: the files a report in `out` wrote, which the next one may remove."""
    write_atomically(out / FILES, "".join(f"{name}\n" for name in names))


REPORT_SUFFIXES = (".md", ".csv", ".png")
"""The kinds of file a report writes; no other is ever removed."""
FILES = ".report-files"
"""The files the last report wrote into its folder, one name a line."""


def _may_write(entry: Path) -> bool:
    """An entry of the folder in the way of a file the report may write (report.md, a CSV,
    a chart): a folder, say."""
    return entry.suffix in REPORT_SUFFIXES and not entry.is_file()


def _written_before(out: Path) -> list[str]:
    """What the folder's earlier report wrote (names only: nothing outside the folder)."""
    try:
        names = (out / FILES).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [name for name in names if name and Path(name).name == name and name != FILES]
