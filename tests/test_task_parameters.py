"""Any `-T name=value` reaches tasks/tom.py as YAML makes it (text, a number, a truth
value, nothing, a list or a mapping): the task is built, or refused in one line."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from inspect_ai._util.config import parse_cli_args
from inspect_ai._util.error import PrerequisiteError

from tasks.tom import tom
from tom_eval.cli import main
from tom_eval.game.dataset import SCENARIO_DIGEST
from tom_eval.knowledge.source import CACHE_VARIABLE, URL_VARIABLE
from tom_eval.task_args import NOT_GIVEN, SUITE_PARAMETERS

TASKS = ("tom", "false_belief", "coherence", "knp", "ikd")
SMALL = {"ids": "12", "extras": "0A", "reps": 1}
"""Valid and cheap: the parameter under test is the only thing that can go wrong."""
SMALL_GAME = {"mode": "game", "games": 1, "turns": 4, "reps": 2}
"""Added when the parameter under test is one of whole games (trial mode refuses them)."""


def small(name: str, value: Any) -> dict[str, Any]:
    game = name in ("games", "turns", "history") or (name, value) == ("mode", "game")
    return {**SMALL, **(SMALL_GAME if game else {}), name: value}


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


@settings(max_examples=300, deadline=None)  # each builds the task, in about 40 ms
@given(name=st.sampled_from([*SMALL, "games", "turns", "seed", "scenario_file",
                             "response_format", "lineup", "lose", "mode", "history"]),
       value=yaml_values)  # fmt: skip
@example(name="lineup", value=None)
@example(name="lineup", value=3)
@example(name="lineup", value="B\nC=neutral")
@example(name="scenario_file", value={"a": 1})
@example(name="lose", value="maybe")
@example(name="extras", value=[])
def test_any_parameter_value_builds_the_task_or_fails_in_one_line(name: str, value: Any) -> None:
    try:
        tom(**small(name, value))
    except PrerequisiteError as error:
        assert str(error).startswith("tom: ") and "\n" not in str(error), error


def test_a_file_in_the_home_folder_of_no_user_is_one_line() -> None:
    # Path.expanduser raised RuntimeError: "Could not determine home directory."
    with pytest.raises(PrerequisiteError) as raised:
        tom(scenario_file="~nobody-of-this-name/x.jsonl")
    assert raised.value.message == "tom: ~nobody-of-this-name/x.jsonl: no such user's home folder"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"lineup": 3}, "lineup: expected changes such as D=honest_opponent, not '3'"),
        # YAML reads -T lineup=on, ids=true or reps=yes as True: shown as true, not True.
        ({"lineup": True}, "lineup: expected changes such as D=honest_opponent, not 'true'"),
        ({"ids": True}, r"ids: cannot read 'true' \(use all"),
        ({"reps": True}, "reps must be a whole number of 1 or more, not 'true'$"),
        ({"lineup": None}, "lineup must have a value, not nothing"),
        ({"scenario_file": ["a", "b"]}, "scenario_file must be a file name, not"),
        # -T scenario_file=123: YAML's number, which may not be the name typed (0123 is 83).
        (
            {"scenario_file": 123},
            r"scenario_file: YAML reads the value as the number '123', not a file name; write "
            r"the name as a path \(\./NAME\) or in quotes",
        ),
        # -T extras=[0A,~]: YAML's null is shown as YAML writes it, not as Python's NONE.
        ({"extras": ["0A", None]}, r"unknown Extra 'null' \(allowed"),
        ({"extras": "0A,2c"}, r"unknown Extra '2c' \(allowed"),
        ({"lose": "maybe"}, "lose must be true or false, not 'maybe'"),
        ({"extras": []}, "extras: none given"),
        ({"extras": None}, "extras: none given"),
        ({"levels": None}, "levels names no level"),
        ({"levels": []}, "levels names no level"),
        ({"levels": 1.5}, "levels must be whole numbers from 0, not '1.5'"),
        ({"games": 3}, "games, turns and history are for whole games: add -T mode=game"),
        ({"history": "full"}, "games, turns and history are for whole games"),
        # Out of range in trial mode, the missing mode is what is wrong.
        ({"turns": 3}, "games, turns and history are for whole games: add -T mode=game"),
        ({"turns": 3, "mode": "game"}, "turns must be a whole number of 4 or more"),
        ({"reps": "x"}, "reps must be a whole number of 1 or more, not 'x'"),
        ({"ids": "12-"}, r"ids: cannot read '12-'"),
        ({"lineup": "D=honest_opponent,D=dishonest_opponent"}, "lineup: D is given twice"),
        # A log's arguments are read back into 64-bit columns by `tom-eval report`.
        (
            {"seed": 10**20},
            r"seed must be from -2\*\*63 to 2\*\*63 - 1, not '100000000000000000000'",
        ),
        ({"sample_seed": 2**63}, r"sample_seed must be from -2\*\*63 to 2\*\*63 - 1"),
    ],
)
def test_values_of_the_wrong_kind_are_named(args: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError, match=message):
        tom(**{**SMALL, **args})


def test_a_scenario_whose_claim_is_not_its_ids_row_is_refused(tmp_path: Path) -> None:
    """The scorer trusts a record's claim: Id 12's relabelled Id 7 would be scored as Id 7."""
    out = tmp_path / "s.jsonl"
    assert (
        main(["generate", "--ids", "12", "--extras", "0A", "--reps", "1", "--out", str(out)]) == 0
    )
    record = json.loads(out.read_text()) | {"id": 7, "key": "7-0A-r1"}
    out.write_text(json.dumps(record) + "\n")
    with pytest.raises(PrerequisiteError, match=r"scenario 7-0A-r1: the file claims answerer"):
        tom(scenario_file=str(out))


@pytest.mark.parametrize(
    ("task", "misspelt", "meant"),
    [
        ("tom", "rep", "reps"),
        ("false_belief", "content", "contents"),
        ("coherence", "temprature", "temperature"),
        ("knp", "sampel", "sample"),
        ("ikd", "storys", "stories"),
    ],
)
def test_a_misspelt_parameter_is_refused_naming_the_one_meant(
    task: str, misspelt: str, meant: str
) -> None:
    """Inspect would only warn, and the run would play every rep or every item."""
    build = getattr(importlib.import_module(f"tasks.{task}"), task)
    with pytest.raises(PrerequisiteError) as refusal:
        build(**{misspelt: 1})
    assert str(refusal.value) == f"{task}: no parameter '{misspelt}' (did you mean {meant}?)"


def test_another_tasks_parameter_is_warned_about_as_inspect_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One command may run several tasks with one set of -T arguments."""
    task = tom(ids="12", extras="0A", reps=1, order="both")
    assert len(task.dataset) == 1
    assert "param 'order' not used by task 'tom' (taken by knp)" in caplog.text


@pytest.mark.parametrize(
    ("task", "name"), [("tom", "idz"), ("tom", "format"), ("ikd", "story"), ("knp", "limit")]
)
def test_a_name_no_task_of_the_suite_takes_is_refused_with_the_tasks_parameters(
    task: str, name: str
) -> None:
    """Not close enough to guess, and no other task's: the run would play its defaults."""
    function = getattr(importlib.import_module(f"tasks.{task}"), task)
    with pytest.raises(PrerequisiteError) as refusal:
        function(**{name: 1})
    parameters = [
        p for p in inspect.signature(inspect.unwrap(function)).parameters if p != "unknown"
    ]
    assert str(refusal.value) == f"{task}: no parameter '{name}' (it takes {', '.join(parameters)})"


def test_the_suites_parameters_are_its_tasks() -> None:
    taken: dict[str, tuple[str, ...]] = {}
    for task in TASKS:
        function = inspect.unwrap(getattr(importlib.import_module(f"tasks.{task}"), task))
        for name in set(inspect.signature(function).parameters) - {"unknown"}:
            taken[name] = (*taken.get(name, ()), task)
    assert taken == SUITE_PARAMETERS


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"scenario_file": "scenarios/default.jsonl", "reps": 1}, "reps is for generated"),
        ({"ladder": "events", "extras": "0B"}, "a ladder plays each Id's base story"),
        ({"sample_seed": 4}, "sample_seed is for a subset: add -T sample=N"),
    ],
)
def test_an_argument_the_run_would_ignore_is_refused(
    arguments: dict[str, Any], message: str
) -> None:
    """Played as if it were not given, it would still name the run in the report."""
    with pytest.raises(PrerequisiteError, match=message):
        tom(**arguments)


@pytest.mark.parametrize("task", TASKS[1:])
def test_a_subset_seed_without_a_subset_is_refused_by_every_task(task: str) -> None:
    function = getattr(importlib.import_module(f"tasks.{task}"), task)
    with pytest.raises(PrerequisiteError, match=f"{task}: sample_seed is for a subset"):
        function(sample_seed=3)


def test_no_parameter_defaults_to_what_an_empty_value_gives() -> None:
    """Inspect reads `-T sample=` (an unset shell variable: `-T sample=$N`) as None: were
    None a default, the run would silently play every sample or download the data."""
    assert parse_cli_args(["sample="]) == {"sample": None}
    for task in TASKS:
        function = inspect.unwrap(getattr(importlib.import_module(f"tasks.{task}"), task))
        defaults = [p.default for p in inspect.signature(function).parameters.values()]
        assert None not in defaults, task


@pytest.mark.parametrize(
    ("task", "name"),
    [
        (task, name)
        for task in TASKS
        for name, parameter in inspect.signature(
            inspect.unwrap(getattr(importlib.import_module(f"tasks.{task}"), task))
        ).parameters.items()
        if parameter.default == NOT_GIVEN
    ],
)
def test_an_empty_value_of_an_optional_parameter_is_refused(
    task: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before anything is read: the knowledge tasks' data is neither in the cache nor at
    the address they would download it from."""
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setenv(URL_VARIABLE, (tmp_path / "nowhere").as_uri())
    function = getattr(importlib.import_module(f"tasks.{task}"), task)
    message = f"{task}: {name} must have a value, not nothing \\(an empty -T value\\)"
    with pytest.raises(PrerequisiteError, match=message):
        function(**{name: None})


def test_a_piped_scenario_file_is_read_once_and_its_digest_is_its_content(
    tmp_path: Path,
) -> None:
    """`-T scenario_file=<(...)`: the digest was taken by reading the pipe again, which gave
    nothing, so every piped file had one digest (that of no bytes)."""
    path = tmp_path / "s.jsonl"
    assert (
        main(["generate", "--ids", "12", "--extras", "0A", "--reps", "1", "--out", str(path)]) == 0
    )
    content = path.read_bytes()
    read, write = os.pipe()

    def write_all() -> None:
        with os.fdopen(write, "wb") as pipe:
            pipe.write(content)

    writer = threading.Thread(target=write_all)
    writer.start()
    try:
        task = tom(scenario_file=f"/dev/fd/{read}")
    finally:
        writer.join()
        os.close(read)
    assert len(task.dataset) == 1
    assert task.metadata == {SCENARIO_DIGEST: hashlib.sha256(content).hexdigest()}


def test_a_scenario_file_without_the_ids_asked_for_says_so_as_they_were_typed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    assert (
        main(["generate", "--ids", "12", "--extras", "0A", "--reps", "1", "--out", str(path)]) == 0
    )
    # Inspect hands `-T ids=1,2` over as a list.
    with pytest.raises(PrerequisiteError) as raised:
        tom(scenario_file=str(path), ids=["1", "2"], extras="0A")
    assert raised.value.message == (
        f"tom: {path}: no scenario matches ids=1,2 extras=0A (it holds Id 12 and Extras 0A)"
    )


def test_a_scenario_file_lacking_some_ids_or_extras_asked_for_names_them(
    tmp_path: Path,
) -> None:
    """A run labelled `ids=12,13` must have played both: a file without 13 is refused, where
    it played Id 12 alone. The defaults (all Ids, all four Extras) take what the file holds."""
    path = tmp_path / "s.jsonl"
    arguments = ["--ids", "12,14-15", "--extras", "0A,1B", "--reps", "1", "--out", str(path)]
    assert main(["generate", *arguments]) == 0
    held = "it holds Ids 12, 14-15 and Extras 0A,1B"
    for ids, extras, missing in (
        ("12,13", "0A,0B,1A,1B", "Id 13"),
        ("12", "0A,0B,1B", "Extra 0B"),
        ("11-12", "1A,1B", "Id 11, Extra 1A"),
    ):
        with pytest.raises(PrerequisiteError) as raised:
            tom(scenario_file=str(path), ids=ids, extras=extras)
        message = str(raised.value.message)
        assert message.startswith(f"tom: {path}: no scenario of {missing} (ids={ids} ")
        assert message.endswith(f"; {held})")
    assert len(tom(scenario_file=str(path)).dataset) == 6
    assert len(tom(scenario_file=str(path), ids="14-15", extras="1B").dataset) == 2
