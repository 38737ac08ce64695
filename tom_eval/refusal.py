"""Inspect's one-line refusal (a PrerequisiteError), heard under every display.

Inspect prints an uncaught PrerequisiteError, without a traceback, through rich's global
console, which `--display none` quiets: the run exits 1 having said nothing. So the first
refusal also wraps the process's exception hook: when that console is quiet, the hook writes
the line to standard error before Inspect's own hook runs. The test is the console itself,
not the display type: `eval-set` sets the type to none before `eval` quiets the console, and
a refusal in between is printed by Inspect. With `--json` Inspect prints the line itself and
raises a SilentException instead, which the wrapper leaves alone, so nothing is said twice.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType

import rich
from inspect_ai._util.error import PrerequisiteError


def refused(message: str) -> PrerequisiteError:
    """The exception that stops a run with `message` as its one line, whatever the display
    (the first call wraps `sys.excepthook`, for the quiet console)."""
    if not isinstance(sys.excepthook, _SaidWhenQuiet):
        sys.excepthook = _SaidWhenQuiet(sys.excepthook)
    return PrerequisiteError(message)


def refuse_other_tasks(
    metadata: Mapping[str, object],
    sample_id: object,
    needed: Sequence[str],
    task: str,
    scorer: str,
) -> None:
    """Refuse, in one line, a sample of another task: `inspect score` of another task's log
    with `scorer` would otherwise end in a KeyError deep in it. `needed`: the metadata the
    scorer reads, which samples of `task` (a task file) carry."""
    if not set(needed).issubset(metadata):
        listed = ", ".join(needed[:-1]) + " and " + needed[-1] if len(needed) > 1 else needed[0]
        raise refused(
            f"sample {sample_id}: not a sample of {task} (no {listed} in its metadata): "
            f"{scorer} scores the logs of {task}"
        )


class _SaidWhenQuiet:
    """An exception hook that writes a PrerequisiteError to standard error when rich's
    console is quiet (`--display none`), then hands every exception to the hook it wraps."""

    def __init__(self, wrapped: Callable[..., object]) -> None:
        self.wrapped = wrapped

    def __call__(
        self,
        kind: type[BaseException],
        exception: BaseException,
        traceback: TracebackType | None,
    ) -> None:
        if isinstance(exception, PrerequisiteError) and rich.get_console().quiet:
            print(f"\n{exception.message}\n", file=sys.stderr, flush=True)
        self.wrapped(kind, exception, traceback)
