"""Task parameters (`-T name=value`) read with one-line errors, for every task.

Inspect reads each value as YAML, so a parameter may arrive as another type than its
annotation says: `-T seed=x` as text, `-T levels=` as None, `-T genre=1` as a number,
`-T flag=maybe` as text. Each reader checks the type as well as the value, so a wrong
value is refused in one line instead of failing deep in a task, or being used as it came.
No parameter defaults to None (`NOT_GIVEN`), so an empty value is never taken for a default.
"""

from __future__ import annotations

import difflib
import inspect
import logging
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from tom_eval.errors import InputError
from tom_eval.json_fields import INT64_RANGE, finite_number, fits_int64, yaml_text
from tom_eval.refusal import refused

logger = logging.getLogger(__name__)

Choice = TypeVar("Choice", bound=str)
Given = TypeVar("Given")

NOT_GIVEN = ""
"""The default of every optional task parameter (a file or folder, a subset's size,
genres, a ladder) instead of None, which is what `-T name=` with nothing after it gives:
an unset shell variable in `-T sample=$N` or `-T data_dir=$DATA` must be refused, not
play every sample or download the data (`optional`)."""


@contextmanager
def task_arguments(task: str) -> Iterator[None]:
    """Reads a task's arguments: a value a reader refuses (an InputError) stops the task
    before it starts, in one line that names the task, without a traceback and with no log."""
    try:
        yield
    except InputError as error:
        raise refused(f"{task}: {error}") from None


SUITE_PARAMETERS: dict[str, tuple[str, ...]] = {
    "contents": ("false_belief",),
    "cost": ("coherence",),
    "data_dir": ("knp", "ikd"),
    "domain": ("coherence",),
    "estimator": ("false_belief", "coherence"),
    "extras": ("tom",),
    "floor": ("coherence",),
    "focus_on_knowledge": ("knp", "ikd"),
    "games": ("tom",),
    "genre": ("knp", "ikd"),
    "highlight": ("ikd",),
    "history": ("tom",),
    "ids": ("tom",),
    "item_file": ("false_belief",),
    "ladder": ("tom",),
    "levels": ("tom",),
    "lineup": ("tom",),
    "lose": ("tom",),
    "mode": ("tom",),
    "open_ended": ("knp",),
    "order": ("knp",),
    "perturbations": ("false_belief",),
    "prefix": ("false_belief",),
    "prior": ("coherence",),
    "reps": ("tom",),
    "response_format": ("tom",),
    "sample": ("tom", "false_belief", "coherence", "knp", "ikd"),
    "sample_seed": ("tom", "false_belief", "coherence", "knp", "ikd"),
    "samples": ("false_belief", "coherence"),
    "scenario_file": ("tom",),
    "seed": ("tom", "false_belief", "knp"),
    "sentence_by_sentence": ("false_belief",),
    "stories": ("ikd",),
    "structured": ("tom",),
    "task": ("coherence",),
    "temperature": ("coherence",),
    "transfer": ("false_belief",),
    "turns": ("tom",),
}
"""Every parameter of the suite's five tasks, and the tasks that take it (a test checks it
against their signatures)."""


def refuse_misspelt(task: str, unknown: Mapping[str, object], function: Callable[..., Any]) -> None:
    """Arguments the task `function` does not take, which Inspect hands over because each
    task takes `**unknown` (otherwise it only warns, and a misspelt `-T rep=1` plays every
    rep). A name close to one of the task's parameters is refused, naming it; another task's
    parameter is warned about, as Inspect does, since one command may run several tasks
    that take different arguments (`-T order=both` is knp's, not ikd's); a name no task of
    the suite takes (`-T format=free` for `response_format`) is refused with the task's
    parameters."""
    parameters = [
        name
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    for name in unknown:
        close = difflib.get_close_matches(name, parameters, n=1, cutoff=0.75)
        if close:
            raise InputError(f"no parameter '{name}' (did you mean {close[0]}?)")
        if name not in SUITE_PARAMETERS:
            raise InputError(f"no parameter '{name}' (it takes {', '.join(parameters)})")
        taken_by = ", ".join(SUITE_PARAMETERS[name])
        logger.warning(f"param '{name}' not used by task '{task}' (taken by {taken_by})")


MAX_DRAWS = 10_000
"""The most replies drawn at temperature 1 for one prompt or item (`samples`): they are
gathered at once, and ten times the 1,000 the papers drew is plenty (a typo with more zeros
ran the machine out of memory)."""


def _given(value: object) -> str:
    """A bad value as an error shows it: `-T name=` with nothing after it reaches the task
    as None, which is shown as such."""
    return "nothing (an empty -T value)" if value is None else f"'{yaml_text(value)}'"


def whole_number(
    name: str, value: object, minimum: int | None = None, maximum: int | None = None
) -> int:
    """A whole number, at least `minimum` and at most `maximum` when they are given."""
    if minimum is not None and maximum is not None:
        wanted = f"a whole number from {minimum} to {maximum:,}"
    elif minimum is not None:
        wanted = f"a whole number of {minimum} or more"
    else:
        wanted = "a whole number"
    out_of_range = isinstance(value, int) and (
        (minimum is not None and value < minimum) or (maximum is not None and value > maximum)
    )
    if isinstance(value, bool) or not isinstance(value, int) or out_of_range:
        raise InputError(f"{name} must be {wanted}, not {_given(value)}")
    # A log's task arguments are read back into 64-bit columns (`tom-eval report`).
    if not fits_int64(value):
        bounds = INT64_RANGE if minimum is None else f"{wanted}, below 2**63"
        raise InputError(f"{name} must be {bounds}, not {_given(value)}")
    return value


def real_number(name: str, value: object, wanted: str, accept: Callable[[float], bool]) -> float:
    """A finite number (`finite_number`) that `accept`s (`wanted` names those, for the
    error)."""
    number = finite_number(value)
    if number is None or not accept(number):
        raise InputError(f"{name} must be {wanted}, not {_given(value)}")
    return number


def flag(name: str, value: object) -> bool:
    """true or false (YAML's spellings of them, which Inspect has already read)."""
    if not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, not {_given(value)}")
    return value


def one_of(name: str, value: object, allowed: tuple[Choice, ...]) -> Choice:
    """One of `allowed`."""
    for choice in allowed:
        if value == choice:
            return choice
    raise InputError(f"{name} must be one of {', '.join(allowed)}, not {_given(value)}")


def split_names(given: object) -> list[str]:
    """Names separated by commas, or the list Inspect makes of them: distinct, in the order
    given, white space and empty parts dropped."""
    if given is None:
        return []
    parts = given if isinstance(given, list) else yaml_text(given).split(",")
    return list(dict.fromkeys(text for part in parts if (text := yaml_text(part).strip())))


def names(name: str, given: object, allowed: Collection[str], source: str = "") -> list[str]:
    """Names separated by commas (or the list Inspect makes of them), each in `allowed`,
    at least one; distinct, in the order given. `source` says what limits `allowed` when it
    is not the parameter itself (the genres of the data a user gave)."""
    wanted = split_names(given)
    unknown = [text for text in wanted if text not in allowed]
    listed = f"{source} ({', '.join(allowed)})" if source else ", ".join(allowed)
    if unknown:
        raise InputError(f"{name} must be among {listed}, not '{', '.join(unknown)}'")
    if not wanted:
        raise InputError(f"{name} names nothing (choose among {listed})")
    return wanted


def optional(name: str, value: Given) -> Given | None:
    """An optional parameter's value, None when it is left out (NOT_GIVEN). An empty `-T
    name=` (None) is refused: it is what an unset shell variable makes."""
    if value is None:
        raise InputError(
            f"{name} must have a value, not {_given(value)}: leave {name} out for its default"
        )
    return None if value == NOT_GIVEN else value


def file_name(name: str, value: object, kind: str = "file") -> str | None:
    """A file (or, by `kind`, folder) name, or None when the parameter is left out."""
    given = optional(name, value)
    if given is None:
        return None
    if isinstance(given, bool | int | float):
        # `-T scenario_file=123`: YAML reads it as a number (0123 as 83), so it cannot be
        # taken back as the name typed; a path YAML reads as text can.
        read_as = "boolean" if isinstance(given, bool) else "number"
        raise InputError(
            f"{name}: YAML reads the value as the {read_as} {_given(given)}, not a {kind} "
            f"name; write the name as a path (./NAME) or in quotes (\"'NAME'\")"
        )
    if not isinstance(given, str) or not given.strip():
        raise InputError(f"{name} must be a {kind} name, not {_given(given)}")
    return given
