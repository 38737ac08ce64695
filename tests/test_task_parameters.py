"""Any `-T name=value` reaches tasks/tom.py as YAML makes it (text, a number, a truth
value, nothing, a list or a mapping): the task is built, or refused in one line."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from inspect_ai._util.error import PrerequisiteError

from tasks.tom import tom

SMALL = {"ids": "12", "extras": "0A", "reps": 1, "games": 1, "turns": 4}
"""Valid and cheap: the parameter under test is the only thing that can go wrong."""

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 40)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(("all", "mastery", "0A,1B", "7-9", "D=neutral", "N=neutral", "game"))
)
yaml_values = (
    scalars | st.lists(scalars, max_size=3) | st.dictionaries(scalars, scalars, max_size=2)
)


@settings(max_examples=600, deadline=None)
@given(name=st.sampled_from([*SMALL, "seed", "scenario_file", "response_format", "lineup",
                             "lose", "mode", "history"]), value=yaml_values)  # fmt: skip
@example(name="lineup", value=None)
@example(name="lineup", value=3)
@example(name="lineup", value="B\nC=neutral")
@example(name="scenario_file", value={"a": 1})
@example(name="lose", value="maybe")
@example(name="extras", value=[])
def test_any_parameter_value_builds_the_task_or_fails_in_one_line(name: str, value: Any) -> None:
    try:
        tom(**{**SMALL, name: value})
    except PrerequisiteError as error:
        assert str(error).startswith("tom: ") and "\n" not in str(error), error


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"lineup": 3}, "lineup: expected changes such as D=honest_opponent, not 3"),
        ({"scenario_file": ["a", "b"]}, "scenario_file must be a file name, not"),
        ({"lose": "maybe"}, "lose must be true or false, not 'maybe'"),
        ({"extras": []}, "extras: none given"),
    ],
)
def test_values_of_the_wrong_kind_are_named(args: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError, match=message):
        tom(**{**SMALL, **args})
