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

import dataclasses
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache
from types import TracebackType
from typing import Any, TypeVar, cast, get_type_hints

import rich
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.util import StoreModel, store, store_as
from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

Logged = TypeVar("Logged")
Stored = TypeVar("Stored", bound=StoreModel)


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


def logged_as(
    kind: type[Logged], values: object, sample_id: object, what: str, others: bool = False
) -> Logged:
    """A dataclass `kind` read back from `values` that a log holds, for a scorer run again by
    `inspect score`: a log edited by hand (a key taken out or added, a value of another type:
    "false" as text is not false) is refused in one line naming the sample, `what` was read
    ("the logged turn 3") and the value, not a traceback deep in the scorer. `others`: keys
    the dataclass lacks are let be (the scorer reads some of a record's keys)."""
    read = as_record(kind, values, others)
    if isinstance(read, str):
        raise refused(f"sample {sample_id}: {what}{read}; was the log edited?")
    return read


def as_record(kind: type[Logged], values: object, others: bool = False) -> Logged | str:
    """`values` read back as a dataclass `kind` (`logged_as`), or the words for what keeps
    them from being one, to follow the name of what was read: " has no 'turns'", "'s
    'blue' is '7': input should be a valid number". A ValueError from the dataclass's own
    checks (`__post_init__`) is such words too. The report reads the score metadata the
    scorers write through it, so a scorer and the report hold a record to one layout."""
    if not isinstance(values, dict):
        return f" is {values!r:.60}, not a record"
    hints = _hints(cast(Hashable, kind))
    known = {field.name: field for field in dataclasses.fields(kind)}  # type: ignore[arg-type]
    added = [key for key in values if key not in known]
    if added and not others:
        return f" has '{added[0]}', which the task does not write"
    for name, field in known.items():
        if name in values:
            try:
                _adapter(hints[name]).validate_python(values[name], strict=True)
            except ValidationError as error:
                return "'s " + _problem(name, error.errors()[0])
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            return f" has no '{name}'"
    try:
        return kind(**{name: value for name, value in values.items() if name in known})
    except ValueError as error:
        return f"'s {error}"


def logged_store(model: type[Stored], sample_id: object) -> Stored:
    """The sample's `model` from its store, each field there and of its type, strictly
    ("7" is no number): the solver wrote them all (`store_as` writes every field), but a
    log edited by hand and scored again can hold anything, and the store is read field by
    field, as it is."""
    held = store()
    what = f"sample {sample_id}: the logged {model.__name__}"
    for name, field in model.model_fields.items():
        if name in ("store", "instance"):
            continue
        key = f"{model.__name__}:{name}"
        if key not in held:
            raise refused(f"{what} has no '{name}'; was the log edited?")
        try:
            _adapter(cast(Hashable, field.annotation)).validate_python(held.get(key), strict=True)
        except ValidationError as error:
            problem = _problem(name, error.errors()[0])
            raise refused(f"{what}'s {problem}; was the log edited?") from None
    return store_as(model)


@cache
def _hints(kind: Hashable) -> dict[str, Any]:
    """A dataclass's field types, read once: reading them is most of a check's time."""
    return get_type_hints(kind)


@cache
def _adapter(annotation: Hashable) -> TypeAdapter[Any]:
    return TypeAdapter(cast(Any, annotation))


def _problem(name: str, error: ErrorDetails) -> str:
    """ "'seen[0]' is 1: input should be a valid string", of a field `name` whose value
    failed validation with `error` (its place within the value in `loc`)."""
    place = name + "".join(
        f'["{part}"]' if isinstance(part, str) else f"[{part}]" for part in error["loc"]
    )
    message = error["msg"]
    return f"'{place}' is {error['input']!r:.60}: {message[:1].lower()}{message[1:]}"


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
