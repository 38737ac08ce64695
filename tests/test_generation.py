"""The generator never emits a scenario the engine rejects."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tom_eval.errors import InputError
from tom_eval.game.checking import check
from tom_eval.game.dataset import scenario_records, shipped_records
from tom_eval.game.epistemics import OTHER_LABELS, SELF_LABELS
from tom_eval.game.generation import generate, generate_group, in_processes
from tom_eval.game.narration import narrate
from tom_eval.game.oracle import Solution
from tom_eval.game.scenario_file import read_scenarios, write_scenarios
from tom_eval.game.spec import ANSWERERS, EXTRAS, SPEC_ACTIONS, SpecRow, read_spec
from tom_eval.game.validation import extra_group_violations, generator_violations
from tom_eval.game.world import Enter, Leave

ROWS = [row for row in read_spec() if row.extra == "0A"]


def is_subsequence(short: tuple[object, ...], long: tuple[object, ...]) -> bool:
    remaining = iter(long)
    return all(any(item == other for other in remaining) for item in short)


def assert_sound_group(row: SpecRow, group: dict[str, Solution]) -> None:
    assert sorted(group) == sorted(EXTRAS)
    for solution in group.values():
        assert generator_violations(row, solution) == []
        # The story A reads is the opening line plus one sentence per perceived event.
        assert (
            len(narrate(solution.observation).splitlines())
            == 1 + solution.assessment.visible_events
        )
    assert extra_group_violations(group) == []
    base = group["0A"]
    for extra in ("0B", "1A", "1B"):
        loaded = group[extra]
        # All four Extras grow from one base story, by inserting events A perceives.
        assert is_subsequence(base.scenario.events, loaded.scenario.events)
        assert (loaded.scenario.question, loaded.scenario.answerer) == (
            base.scenario.question,
            base.scenario.answerer,
        )
        added = len(loaded.scenario.events) - len(base.scenario.events)
        assert loaded.assessment.visible_events - base.assessment.visible_events == added
        assert loaded.truth == base.truth
        assert loaded.decision.optimal == base.decision.optimal


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    row=st.sampled_from(ROWS),
    rep=st.integers(min_value=1, max_value=10_000),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_every_generated_group_satisfies_its_spec(row: SpecRow, rep: int, seed: int) -> None:
    assert_sound_group(row, generate_group(row, rep, seed))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    row=st.builds(
        SpecRow,
        st.just(1),
        st.just("0A"),
        st.sampled_from(ANSWERERS),
        st.sampled_from(SELF_LABELS),
        st.sampled_from(OTHER_LABELS),
        st.sampled_from(OTHER_LABELS),
        st.sampled_from(SPEC_ACTIONS),
    ),
    rep=st.integers(min_value=1, max_value=100),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_a_users_spec_row_gets_sound_scenarios_or_a_clear_refusal(
    row: SpecRow, rep: int, seed: int
) -> None:
    """`tom-eval generate --spec` takes any combination of labels and action; most have no
    story (e.g. a Self who knows, asking a teammate), and those must be refused, never
    answered with a scenario that breaks them."""
    try:
        group = generate_group(row, rep, seed)
    except InputError as error:
        assert "Id 1" in str(error) and "\n" not in str(error)
        return
    assert_sound_group(row, group)


@settings(max_examples=15, deadline=None)
@given(
    ids=st.sets(st.sampled_from(sorted({row.id for row in ROWS})), min_size=1, max_size=3),
    extras=st.sets(st.sampled_from(EXTRAS), min_size=1),
    reps=st.integers(min_value=1, max_value=2),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_generated_files_check_clean(ids: set[int], extras: set[str], reps: int, seed: int) -> None:
    """The file a user gets, read back, passes `tom-eval check` with no disagreement."""
    rows = [row for row in read_spec() if row.id in ids and row.extra in extras]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenarios.jsonl"
        write_scenarios(path, generate(rows, reps, seed, workers=1))
        findings = check(read_scenarios(path))
    assert len(findings) == len(rows) * reps
    assert [finding.disagreements for finding in findings] == [[]] * len(findings)


def test_files_do_not_depend_on_the_number_of_processes(tmp_path: Path) -> None:
    rows = [row for row in read_spec() if row.id in (10, 17, 27, 39)]
    files = []
    for workers in (1, 3):
        path = tmp_path / f"{workers}.jsonl"
        write_scenarios(path, generate(rows, 2, 11, workers=workers))
        files.append(path.read_bytes())
    assert files[0] == files[1]


def _squared(job: int) -> int:
    if job == 13:
        raise InputError("job 13 fails")
    return job * job


def _squared_text(job: int) -> str:
    return str(_squared(job))


def _from_text(_: int, text: str) -> int:
    return int(text)


def test_work_in_processes_comes_back_in_order_and_a_failure_is_raised() -> None:
    jobs = [n for n in range(40) if n != 13]
    assert in_processes(jobs, 2, _squared, _squared_text, _from_text) == [n * n for n in jobs]
    assert in_processes(jobs, 1, _squared, _squared_text, _from_text) == [n * n for n in jobs]
    with pytest.raises(InputError, match="job 13 fails"):
        in_processes([*jobs, 13, *jobs], 2, _squared, _squared_text, _from_text)


@settings(max_examples=8, deadline=None)
@given(
    ids=st.sets(st.sampled_from(sorted({row.id for row in ROWS})), min_size=1, max_size=2),
    extras=st.sets(st.sampled_from(EXTRAS), min_size=1),
    reps=st.integers(min_value=1, max_value=10),
)
def test_the_shipped_scenarios_are_what_the_generator_makes(
    ids: set[int], extras: set[str], reps: int
) -> None:
    """Any choice of Ids, Extras and up to 10 reps reads, from the shipped file, exactly the
    scenarios the generator makes for it (tests/test_cli.py compares the whole file)."""
    rows = [row for row in read_spec() if row.id in ids and row.extra in extras]
    shipped = shipped_records(rows, reps, 0)
    assert shipped is not None
    generated = generate(rows, reps, 0, workers=1)
    assert [(r.key, r.asked, r.rep, r.scenario) for r in shipped] == [
        (item.key, item.row, item.rep, item.solution.scenario) for item in generated
    ]


def test_other_seeds_more_reps_and_edited_rows_are_generated() -> None:
    (row,) = [row for row in read_spec() if row.id == 12 and row.extra == "0A"]
    assert shipped_records([row], 10, 0) is not None
    edited = SpecRow(row.id, row.extra, row.answerer, row.self_label, "Unknown", "Unknown", "Ask")
    for rows, reps, seed in (([row], 10, 1), ([row], 11, 0), ([edited], 1, 0)):
        assert shipped_records(rows, reps, seed) is None


def test_more_reps_than_shipped_are_the_shipped_ones_and_generated_ones() -> None:
    """reps=12 reads reps 1-10 from the shipped file and generates 11 and 12: the same
    scenarios, in the same order, as generating all 12."""
    rows = [row for row in read_spec() if row.id in (12, 30) and row.extra in ("0A", "1B")]
    records, _ = scenario_records("12,30", "0A,1B", 12, 0, None)
    generated = generate(rows, 12, 0)
    assert [(r.key, r.asked, r.scenario) for r in records] == [
        (item.key, item.row, item.solution.scenario) for item in generated
    ]
    later = generate(rows, 12, 0, workers=1, first_rep=11)
    assert [item.key for item in later] == [item.key for item in generated if item.rep > 10]


def test_the_same_arguments_give_the_same_scenarios() -> None:
    rows = [row for row in read_spec() if row.id in (10, 17, 27)]
    first, second = generate(rows, 2, 7), generate(rows, 2, 7)
    assert [item.solution.scenario for item in first] == [item.solution.scenario for item in second]
    other_seed = generate(rows, 2, 8)
    assert [item.solution.scenario for item in first] != [
        item.solution.scenario for item in other_seed
    ]


def test_unknown_players_are_outside_and_a_has_seen_the_container() -> None:
    for row in ROWS:
        group = generate_group(row, 1, 0)
        for solution in group.values():
            assessment = solution.assessment
            assert solution.truth is not None and assessment.self_belief is not None
            for player, label in assessment.labels.items():
                if label == "Unknown":
                    assert player not in assessment.present


def test_generated_events_are_leaves_enters_puts_and_moves_only() -> None:
    group = generate_group(ROWS[11], 3, 5)
    kinds = {
        type(event).__name__ for solution in group.values() for event in solution.scenario.events
    }
    assert kinds <= {"Put", "Move", "Leave", "Enter"}
    assert any(isinstance(event, (Leave, Enter)) for event in group["0A"].scenario.events)
