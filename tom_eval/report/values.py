"""The values a report reads from its samples, checked before it reads them.

A log edited by hand, or written by another tool under a task's name, can hold a value of
the wrong type or range where the task writes a number, a name or a JSON object. Read as it
is, such a value ends in a traceback deep in a table, or worse, in a silently wrong figure
(an expected action the balanced accuracy has no class for). Checked here, it is one line
naming the log, the sample and the value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, NoReturn

import pandas as pd

from tom_eval.errors import InputError
from tom_eval.refusal import as_record


@dataclass(frozen=True)
class Kind:
    """What a value must be: a test, and its words for the error."""

    words: str
    accepts: Callable[[Any], bool]


def _missing(value: Any) -> bool:
    """Null in the log: None, or the NaN or NA a dataframe shows for it."""
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


# A metadata column that holds one value of another type is read as text throughout
# ("5" beside "abc"): a number written as text is the task's, the other the edit.
_INTEGER_TEXT = re.compile(r"[+-]?\d+")


def _integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        return _INTEGER_TEXT.fullmatch(value) is not None
    return isinstance(value, Integral) or (isinstance(value, float) and value.is_integer())


def _number(value: Any) -> bool:
    if isinstance(value, str):
        try:
            return math.isfinite(float(value))
        except ValueError:
            return False
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def parsed_object(value: Any) -> dict[str, Any] | None:
    """A JSON object column value (a dict, or its text) as a dict; None when it is none."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        return None
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


INTEGER = Kind("an integer", _integer)
TEXT = Kind("text", lambda value: isinstance(value, str))
JSON_OBJECT = Kind("a JSON object", lambda value: parsed_object(value) is not None)
OBJECTS = Kind(
    "a list of JSON objects",
    lambda value: isinstance(value, list) and all(isinstance(entry, dict) for entry in value),
)
NUMBER = Kind("a number or null", lambda value: _missing(value) or _number(value))


def between(low: float, high: float) -> Kind:
    """A score's number from `low` to `high`, or null: one past them (an edited regret of
    1e308) would be averaged into a figure as it is. (Score values keep their JSON types:
    a number written as text is not the task's.)"""
    return Kind(
        f"a number from {low:g} to {high:g} or null",
        lambda value: (
            _missing(value)
            or (_number(value) and not isinstance(value, str) and low <= value <= high)
        ),
    )


_FROM_0_TO_1 = between(0, 1)
SHARE = Kind(
    _FROM_0_TO_1.words,
    # A score's 0 or 1 may be read back as a bool: the same value.
    lambda value: isinstance(value, bool) or _FROM_0_TO_1.accepts(value),
)


def objects_with(fields: Mapping[str, Kind], words: str = "") -> Kind:
    """A list of JSON objects, each with `fields` of their kinds (a field left out is
    null); `words` name it (by default, by its fields)."""
    return Kind(
        words or f"a list of objects with {', '.join(fields)}",
        lambda value: (
            OBJECTS.accepts(value)
            and all(
                kind.accepts(entry.get(name)) for entry in value for name, kind in fields.items()
            )
        ),
    )


def required(kind: Kind) -> Kind:
    """`kind` without its null, for a value the task writes in every scored sample: a null
    or NaN there would take the sample out of that value's figures without a word."""
    return Kind(
        f"{kind.words.removesuffix(' or null')} (the task writes one in every scored sample)",
        lambda value: not _missing(value) and kind.accepts(value),
    )


def records_of(kind: type, words: str) -> Kind:
    """A list of dataclass `kind` records as a scorer logs them: each key of `kind` there,
    of its type, and no other (`refusal.as_record`, which the scorer's own check uses)."""
    return Kind(
        words,
        lambda value: (
            isinstance(value, list)
            and all(not isinstance(as_record(kind, entry), str) for entry in value)
        ),
    )


def one_of(names: Sequence[str]) -> Kind:
    """A name from `names`: another (a typo, a class the task never writes) would be
    counted nowhere, or alone."""
    return Kind(
        f"one of {', '.join(names)}", lambda value: isinstance(value, str) and value in names
    )


def optional(kind: Kind) -> Kind:
    """`kind`, or null where the task leaves the value out."""
    return Kind(f"{kind.words} or null", lambda value: _missing(value) or kind.accepts(value))


def refuse_wrong(
    frame: pd.DataFrame,
    evals: pd.DataFrame,
    what: str,
    values: Iterable[Any],
    kind: Kind,
    shown_as: Callable[[Any], Any] = lambda value: value,
) -> None:
    """An InputError naming the first of `frame`'s samples whose value (one of `values`, in
    the frame's order) `kind` does not accept, shown as `shown_as` gives it, and how many
    such samples there are. `frame` has `samples_df`'s columns `eval_id`, `id` and `epoch`;
    `evals` maps each `eval_id` to its `log`."""
    wrong = [(position, value) for position, value in enumerate(values) if not kind.accepts(value)]
    if wrong:
        problem = f"{what} is {_shown(shown_as(wrong[0][1]))}, not {kind.words}"
        _refuse_samples(frame, evals, [position for position, _ in wrong], problem)


def refuse_missing_keys(
    frame: pd.DataFrame,
    evals: pd.DataFrame,
    what: str,
    written: Iterable[Mapping[str, Any]],
    keys: Iterable[str],
) -> None:
    """An InputError naming the first of `frame`'s scored samples whose `written` (its score
    values or metadata, `what`, in the frame's order) lacks one of `keys`, which the task
    writes in every scored sample (null where a key does not apply): one taken out would be
    read as unscored, and the sample leave that key's figures without a word."""
    samples = list(written)
    for key in keys:
        lacking = [position for position, found in enumerate(samples) if found and key not in found]
        if lacking:
            problem = f"{what} '{key}' is missing (the task writes it in every scored sample)"
            _refuse_samples(frame, evals, lacking, problem)


def _refuse_samples(
    frame: pd.DataFrame, evals: pd.DataFrame, positions: list[int], problem: str
) -> NoReturn:
    """The InputError of `problem`, found in the samples at `positions` of `frame`: the
    first named with its log, the others counted."""
    row = frame.iloc[positions[0]]
    log = evals.set_index("eval_id").at[row["eval_id"], "log"]
    others = f" (and {len(positions) - 1} more sample(s))" if len(positions) > 1 else ""
    raise InputError(
        f"{log}: sample {row['id']}, epoch {row['epoch']}: {problem}{others}; was the log edited?"
    )


def _shown(value: Any) -> str:
    """The value in a line: as JSON where it can be, cut short."""
    if _missing(value):
        return "null"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
