"""`-T sample=N` on every task: a balanced, seeded subset (tom_eval/sampling.py), and what
each task balances it over; and no interval for an empty set."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from inspect_ai import Task
from inspect_ai._util.error import PrerequisiteError
from knowledge_support import FIXTURES, metrics

from conftest import inspect_eval, printed_under_hash_seeds
from tasks.coherence import coherence
from tasks.false_belief import false_belief
from tasks.ikd import ikd
from tasks.knp import knp
from tasks.tom import tom
from tom_eval.coherence.worlds import answers, forward_item, items
from tom_eval.errors import InputError
from tom_eval.sampling import balanced_subset, quotas

# ------------------------------------------------------------------------------ the core


def test_a_stratum_with_few_units_gives_them_all_and_the_rest_is_shared() -> None:
    draw = random.Random(0)
    assert quotas({"a": 1, "b": 10, "c": 10}, 11, draw) == [("a", 1), ("b", 5), ("c", 5)]
    assert quotas({"a": 2, "b": 2}, 10, draw) == [("a", 2), ("b", 2)]
    remainder = dict(quotas({"a": 5, "b": 5, "c": 5}, 4, draw))
    assert sorted(remainder.values()) == [1, 1, 2]


def test_the_first_level_is_balanced_before_the_second() -> None:
    """IKD-like: 500 originals and 500 erroneous stories in five genres; 20 give ten of
    each kind, two per genre."""
    units = [(kind, genre) for kind in ("original", "error") for genre in "ABCDE" * 100]
    chosen = balanced_subset(units, 20, lambda unit: unit, seed=0)
    assert Counter(chosen) == {
        (kind, genre): 2 for kind in ("original", "error") for genre in "ABCDE"
    }
    assert balanced_subset(units, 20, lambda unit: unit, seed=0) == chosen
    assert balanced_subset(units, None, lambda unit: unit, seed=0) == units
    for size in (1000, 5000):
        with pytest.raises(InputError, match=f"sample {size:,} is not fewer than the 1,000"):
            balanced_subset(units, size, lambda unit: unit, seed=0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=60),
    st.integers(min_value=1, max_value=59),
    st.integers(min_value=0, max_value=3),
)
def test_a_subset_is_as_even_as_the_strata_allow(strata: list[str], size: int, seed: int) -> None:
    units = list(enumerate(strata))
    assume(size < len(units))  # else refused (above)
    chosen = balanced_subset(units, size, lambda unit: (unit[1],), seed)
    assert len(chosen) == size
    assert chosen == sorted(set(chosen)) and set(chosen) <= set(units)
    have, given = Counter(strata), Counter(name for _, name in chosen)
    for name in have:
        for other in have:
            # A stratum more than one unit short of another has given all it has.
            assert given[name] >= given[other] - 1 or given[name] == have[name]


def test_the_subset_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "from tom_eval.sampling import balanced_subset\n"
        "units = [(k, g, n) for k in 'xy' for g in 'abc' for n in range(30)]\n"
        "print(balanced_subset(units, 17, lambda u: u[:2], seed=4))"
    )
    assert len(printed_under_hash_seeds(code, ("1", "2", "3"))) == 1


# ------------------------------------------------------------------------------ each task


def strata(task: Task) -> dict[str, int]:
    assert task.metadata is not None
    counts: dict[str, int] = task.metadata["strata"]
    return counts


def test_the_game_is_balanced_over_expected_actions_then_extras() -> None:
    task = tom(sample=24, sample_seed=1)
    assert len(task.dataset) == 24
    actions = Counter(str((s.metadata or {})["expected_action"]) for s in task.dataset)
    assert actions == {"Pass": 8, "Ask Teammate": 8, "Tell Teammate": 8}
    assert set(strata(task).values()) == {2}
    assert [s.id for s in tom(sample=24, sample_seed=1).dataset] == [s.id for s in task.dataset]
    assert [s.id for s in tom(sample=24, sample_seed=2).dataset] != [s.id for s in task.dataset]
    assert len(tom(mode="game", games=5, turns=4, sample=2).dataset) == 2


def test_false_belief_is_balanced_over_the_families() -> None:
    task = false_belief(sample=6)
    assert Counter(str((s.metadata or {})["family"]) for s in task.dataset) == {
        "contents": 3,
        "transfer": 3,
    }


def test_a_small_knowledge_run_covers_every_condition() -> None:
    """`--limit 2` would give IKD two originals and KNP two fantasy items."""
    stories = ikd(data_dir=str(FIXTURES), sample=2).dataset
    assert sorted(str((s.metadata or {})["kind"]) for s in stories) == ["error", "original"]
    items = knp(data_dir=str(FIXTURES), sample=4).dataset
    assert sorted(s.target for s in items) == ["A", "A", "B", "B"]
    for letter in "AB":
        # Within each letter, two genres: the second level is balanced inside the first.
        assert len({(s.metadata or {})["genre"] for s in items if s.target == letter}) == 2
    both = knp(data_dir=str(FIXTURES), sample=3, order="both").dataset
    assert len(both) == 6 and len({(s.metadata or {})["item"] for s in both}) == 3


def test_a_coherence_subset_keeps_what_its_metrics_join() -> None:
    """Each chosen configuration in both domains (cross-domain pairs), and each chosen
    inference with the action predictions its inversion needs."""
    task = coherence(task="AP,BI", sample=4)
    ids = {str(s.id) for s in task.dataset}
    inferences = [s for s in task.dataset if (s.metadata or {})["task"] == "BI"]
    assert len({str((s.metadata or {})["counterpart"]) for s in task.dataset} - ids) == 0
    assert inferences
    for sample in inferences:
        domain = (sample.metadata or {})["domain"]
        [item] = [i for i in items(domain, "BI") if i.item_id == sample.id]
        assert {forward_item(item, answer).item_id for answer in answers(item)} <= ids
    assert task.metadata is not None and task.metadata["forward_items_added"] > 0
    assert strata(task) == {"AP": 2, "BI": 2}


@pytest.mark.parametrize("make", [tom, false_belief, coherence, knp, ikd])
@pytest.mark.parametrize("value", [0, -3, "ten", 2.5, True])
def test_a_bad_sample_is_one_line(make: Any, value: object) -> None:
    arguments: dict[str, Any] = {"sample": value}
    if make in (knp, ikd):
        arguments["data_dir"] = str(FIXTURES)
    with pytest.raises(PrerequisiteError, match="sample must be a whole number of 1 or more"):
        make(**arguments)


# --------------------------------------------------------------------------- intervals


def test_an_empty_set_has_no_interval(tmp_path: Path) -> None:
    """Only original stories: the error metrics have no sample, so no interval either
    (Inspect's own ci_wilson says [0, 0])."""
    (log,) = inspect_eval(
        ikd(data_dir=str(FIXTURES), stories="original"),
        model="tom/gold",
        log_dir=str(tmp_path),
        display="none",
    )
    error = metrics(log, "classification_error")
    assert math.isnan(error["accuracy"])
    assert math.isnan(error["tom_eval/ci_wilson_lower"])
    assert math.isnan(error["tom_eval/ci_wilson_upper"])
    original = metrics(log, "classification_original")
    assert original["accuracy"] == 1.0 and original["tom_eval/ci_wilson_upper"] == 1.0


@pytest.mark.parametrize(
    ("task", "arguments", "counted"),
    [
        (tom, {"ids": "7", "reps": 1}, "4 samples"),
        (tom, {"ids": "7", "reps": 2, "ladder": "events", "levels": "0,2"}, "2 base stories"),
        (tom, {"mode": "game", "games": 2, "turns": 4}, "2 games"),
        (false_belief, {}, "40 tasks"),
        (coherence, {"task": "BDI", "domain": "container"}, "18 items per domain"),
        (knp, {"data_dir": str(FIXTURES), "order": "both"}, "6 items"),  # 12 samples
        (ikd, {"data_dir": str(FIXTURES)}, "7 stories"),
    ],
)
def test_a_subset_as_large_as_the_run_is_refused_in_one_line(
    task: Any, arguments: dict[str, Any], counted: str
) -> None:
    """It would play every sample, as the run without it does, but be named apart. The
    limit is in what the subset draws (a ladder's base stories, KNP's items), and named."""
    size = int(counted.split()[0])
    message = f"sample {size} is not fewer than the {counted} this run draws from"
    with pytest.raises(PrerequisiteError, match=message):
        task(**arguments, sample=size)
    assert len(task(**arguments, sample=size - 1).dataset) > 0


def test_a_coherence_subset_whose_action_predictions_complete_the_run_is_refused() -> None:
    """Each chosen inference brings the action predictions it needs, so a subset of 35
    items per domain already plays every item of AP and BDI."""
    with pytest.raises(PrerequisiteError, match="sample 35 plays every item of this run"):
        coherence(task="AP,BDI", sample=35)
    assert len(coherence(task="AP,BDI", sample=5).dataset) < len(coherence(task="AP,BDI").dataset)
