"""Scenario files: round trip, the reference's format, bad input, fuzzed input."""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REFERENCE_SCENARIOS, require_shared
from tom_eval.errors import InputError
from tom_eval.game.checking import check
from tom_eval.game.generation import generate
from tom_eval.game.scenario_file import (
    ScenarioRecord,
    read_scenario_file,
    read_scenarios,
    read_story_fields,
    story_fields,
    story_line,
    write_scenarios,
)
from tom_eval.game.spec import read_spec
from tom_eval.providers.human import story_digest


@pytest.fixture(scope="module")
def small_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [row for row in read_spec() if row.id in (12, 17, 23, 39)]
    path = tmp_path_factory.mktemp("scenarios") / "small.jsonl"
    write_scenarios(path, generate(rows, 2, 3))
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_round_trip_checks_clean(small_file: Path) -> None:
    records = read_scenarios(small_file)
    assert len(records) == 4 * 4 * 2
    assert [record.key for record in records][:3] == ["12-0A-r1", "12-0A-r2", "12-0B-r1"]
    findings = check(records)
    assert all(not finding.disagreements for finding in findings)


def test_a_tampered_file_disagrees(small_file: Path, tmp_path: Path) -> None:
    records = lines(small_file)
    records[0]["optimal_action"] = "Pass"
    records[1]["labels"]["teammate"] = "Believes False"
    records[2]["ect"] = 99
    findings = check(read_scenarios(write_lines(tmp_path / "tampered.jsonl", records)))
    kinds = {kind for finding in findings for kind, _ in finding.disagreements}
    # The tampered labels are no longer the story's, nor the spec row of the record's Id.
    assert kinds == {"optimal_action", "labels", "ect", "spec row"}


def test_the_reference_file_reads_and_agrees_with_the_engine() -> None:
    records = read_scenarios(require_shared(REFERENCE_SCENARIOS))
    assert len(records) == 1040
    findings = check(records)
    assert [finding.record.key for finding in findings if finding.disagreements] == []
    # The reference's "Unknown" teammates who sit in the room (docs/engine.md).
    in_room = Counter(
        finding.record.asked.id
        for finding in findings
        for kind, player in finding.notes
        if kind.startswith("Unknown player") and player == "B"
    )
    assert in_room[23] == 32 and in_room[10] == 21


def reference_like(**changes: Any) -> dict[str, Any]:
    scenario = {
        "id": "7",
        "extra": "0A",
        "rep": 1,
        "who_answers": "A",
        "question_container": "bag",
        "present_initially": ["A", "B", "C", "D"],
        "events": [
            {"event_type": "put", "character": "C", "container": "bag", "item": "ball"},
            {"event_type": "leave", "character": "D"},
        ],
        "ks_self": "Knows X",
        "ks_teammate": "Knows Truth",
        "ks_opponent": "Believes Truth",
        "correct_action": "Pass",
        "situation_event_count": 2,
        "epistemic_transitions": {"certainty": 1, "accuracy": 0, "total": 1},
    }
    scenario.update(changes)
    return {"chars": ["A", "C", "B", "D"], "scenarios": [scenario]}


def read_scenarios_from(data: Any) -> list[ScenarioRecord]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "file.json"
        path.write_text(json.dumps(data, indent=1))
        return read_scenarios(path)


def test_a_hand_written_reference_scenario_reads_and_checks() -> None:
    (record,) = read_scenarios_from(reference_like())
    assert record.key == "7-0A-r1" and record.asked.action == "Pass"
    (finding,) = check([record])
    assert finding.disagreements == []


@pytest.mark.parametrize(
    ("mark", "line_end"),
    [(b"\xef\xbb\xbf", b"\n"), (b"", b"\r\n"), (b"", b"\r"), (b"\xef\xbb\xbf", b"\r\n")],
)
def test_an_editors_byte_order_mark_and_line_ends_are_not_the_files(
    small_file: Path, tmp_path: Path, mark: bytes, line_end: bytes
) -> None:
    """Read as text files are (each line end a newline), with the digest of the bytes."""
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(mark + small_file.read_bytes().replace(b"\n", line_end))
    records, digest = read_scenario_file(edited)
    assert records == read_scenarios(edited) == read_scenarios(small_file)
    assert digest == hashlib.sha256(edited.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda r: r.pop("events"), "line 1 \\(scenario 12-0A-r1\\): missing 'events'"),
        (lambda r: r.update(extra="2C"), "unknown extra '2C'"),
        (
            lambda r: r["events"].insert(0, {"type": "fly", "actor": "B"}),
            "event 1: unknown type 'fly'",
        ),
        (
            lambda r: r["events"].insert(
                0, {"type": "put", "actor": "Q", "item": "ball", "container": "bag"}
            ),
            "unknown character 'Q'",
        ),
        (lambda r: r.update(present_initially=["A"]), "impossible story: . acts while absent"),
        (lambda r: r.update(rep="one"), "'rep' must be an integer"),
        # Read past before: not a file `tom-eval generate` wrote.
        (lambda r: r.update(seed="x"), "'seed' must be an integer, got 'x'"),
        # A log's columns are 64-bit: `tom-eval report` could not read the run.
        (lambda r: r.update(rep=10**20), r"'rep' must be an integer from -2\*\*63"),
        (lambda r: r["labels"].update(self="Guesses X"), "unknown self 'Guesses X'"),
    ],
)
def test_bad_records_fail_with_one_line(
    small_file: Path, tmp_path: Path, mutate: Any, problem: str
) -> None:
    records = lines(small_file)[:1]
    mutate(records[0])
    path = write_lines(tmp_path / "bad.jsonl", records)
    with pytest.raises(InputError, match=problem) as raised:
        read_scenarios(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty file"),
        ('{"key": "x"\n', "invalid JSON at line 2"),
        ('{"chars": [],\n "scenarios": [\n', "invalid JSON at line 3"),
        ('{"key": "a"}\nnot json\n', "line 1 \\(scenario a\\): missing"),
        ("[1, 2]\n", "line 1: expected an object, got list"),
    ],
)
def test_malformed_files_fail_with_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=problem):
        read_scenarios(path)


def test_duplicate_keys_are_rejected(small_file: Path, tmp_path: Path) -> None:
    records = lines(small_file)[:1] * 2
    with pytest.raises(InputError, match="scenario '12-0A-r1' appears twice"):
        read_scenarios(write_lines(tmp_path / "twice.jsonl", records))


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"id": "seven"}, "'id' must be a number"),
        ({"id": "\u00b2"}, "'id' must be a number"),  # a digit to str.isdigit, not to int
        (
            {"events": [{"event_type": "remove", "character": "C"}]},
            "remove events are not part of the game",
        ),
        ({"events": [{"event_type": "leave", "character": "N"}]}, "unknown character 'N'"),
        ({"ks_teammate": "Maybe"}, "unknown ks_teammate 'Maybe'"),
        ({"who_answers": "Z"}, "unknown who_answers 'Z'"),
    ],
)
def test_bad_reference_scenarios_fail_with_one_line(changes: dict[str, Any], problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        read_scenarios_from(reference_like(**changes))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


FUZZ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def read_or_reject(path: Path) -> list[ScenarioRecord] | None:
    """The records, or None when the file was rejected the one way allowed: an InputError of
    one line that names the file. Any other exception fails the test."""
    try:
        return read_scenarios(path)
    except InputError as error:
        assert str(path) in str(error) and "\n" not in str(error), error
        return None


@FUZZ
@given(value=json_values)
def test_arbitrary_json_is_rejected_cleanly(tmp_path: Path, value: Any) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_text(json.dumps(value))
    assert read_or_reject(path) is None


@FUZZ
@given(content=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_arbitrary_bytes_are_rejected_cleanly(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "fuzz.json"
    path.write_bytes(content)
    assert read_or_reject(path) is None


@FUZZ
@given(data=st.data())
def test_cut_and_spliced_files_are_rejected_cleanly(
    small_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    """A file cut short (a copy interrupted) or with text spliced in (a bad edit)."""
    text = small_file.read_text()
    cut = data.draw(st.integers(0, len(text) - 1))
    spliced = data.draw(st.text(max_size=6))
    path = tmp_path / "damaged.jsonl"
    path.write_text(text[:cut] + spliced + text[cut + data.draw(st.integers(0, 3)) :])
    records = read_or_reject(path)
    if records is not None:
        check(records)


@st.composite
def corrupted(draw: st.DrawFn, data: Any) -> Any:
    """`data` with one value somewhere inside it (at any depth) replaced, removed or added."""
    if not isinstance(data, dict | list) or not data or draw(st.integers(0, 3)) == 0:
        return draw(json_values)
    keys = sorted(data) if isinstance(data, dict) else list(range(len(data)))
    key = draw(st.sampled_from(keys))
    copy = dict(data) if isinstance(data, dict) else list(data)
    action = draw(st.sampled_from(("replace", "remove", "add")))
    if action == "remove":
        del copy[key]
    elif action == "add" and isinstance(copy, dict):
        copy[draw(st.text(max_size=8))] = draw(json_values)
    else:
        copy[key] = draw(corrupted(data[key]))
    return copy


@FUZZ
@given(data=st.data())
def test_corrupted_records_are_rejected_cleanly(
    small_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    record = data.draw(corrupted(lines(small_file)[0]))
    path = write_lines(tmp_path / "corrupt.jsonl", [record])
    records = read_or_reject(path)
    if records is not None:
        # A value that still reads is checkable: a wrong stored fact is a disagreement.
        check(records)


@FUZZ
@given(data=st.data())
def test_corrupted_reference_files_are_rejected_cleanly(
    tmp_path: Path, data: st.DataObject
) -> None:
    path = tmp_path / "corrupt.json"
    path.write_text(json.dumps(data.draw(corrupted(reference_like()))))
    records = read_or_reject(path)
    if records is not None:
        check(records)


def test_a_story_reads_the_same_as_one_line_of_json_or_an_object(small_file: Path) -> None:
    """Samples carry the story as one line of JSON; logs before tom 2-D carry an object.
    Both read to the same scenario, and the web study's digest of both is the same."""
    for record in read_scenarios(small_file):
        line, fields = story_line(record.scenario), story_fields(record.scenario)
        assert "\n" not in line and json.loads(line) == fields
        assert read_story_fields(line, record.key) == read_story_fields(fields, record.key)
        assert read_story_fields(line, record.key) == record.scenario
        assert story_digest(line) == story_digest(fields)
    with pytest.raises(InputError, match=r"^12-0A-r1: the story is not JSON \("):
        read_story_fields('{"containers": [', "12-0A-r1")


def test_a_story_that_is_not_json_is_digested_as_its_text() -> None:
    """A hand-edited sample's story still names one story in the web study, without a
    traceback."""
    assert story_digest("not JSON") == story_digest("not JSON")
    assert story_digest("not JSON") != story_digest("not JSON either")
    assert story_digest("not JSON") != story_digest('"not JSON"')
