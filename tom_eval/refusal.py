"""Inspect's one-line refusal (a PrerequisiteError), heard under every display.

Inspect prints an uncaught PrerequisiteError, without a traceback, through its rich console,
which `--display none` silences: the run exits 1 having said nothing. So the first refusal
also wraps the process's exception hook: under that display, the hook writes the line to
standard error before Inspect's own hook runs. With `--json` Inspect prints the line itself
and raises a SilentException instead, which the wrapper leaves alone, so nothing is said twice.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.util import display_type


def refused(message: str) -> PrerequisiteError:
    """The exception that stops a run with `message` as its one line, whatever the display."""
    if not isinstance(sys.excepthook, _SaidUnderNoDisplay):
        sys.excepthook = _SaidUnderNoDisplay(sys.excepthook)
    return PrerequisiteError(message)


class _SaidUnderNoDisplay:
    """An exception hook that writes a PrerequisiteError to standard error under
    `--display none`, then hands every exception to the hook it wraps."""

    def __init__(self, wrapped: Callable[..., object]) -> None:
        self.wrapped = wrapped

    def __call__(
        self,
        kind: type[BaseException],
        exception: BaseException,
        traceback: TracebackType | None,
    ) -> None:
        if isinstance(exception, PrerequisiteError) and display_type() == "none":
            print(f"\n{exception.message}\n", file=sys.stderr, flush=True)
        self.wrapped(kind, exception, traceback)
