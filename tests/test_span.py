"""The span on synthetic trials whose curve is known."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable

import numpy as np
import pytest

from tom_eval.game.span import LadderTrial, level_shares, point_span, span

LEVELS = (0, 2, 4, 8, 16, 32)
CLASSES = ("Pass", "Ask Teammate", "Tell Teammate")
CHANCE = 1 / 3
"""What a constant policy scores over the three classes."""


def trials(curve: dict[str, tuple[float, float]], stories: int, seed: int = 1) -> list[LadderTrial]:
    """Bernoulli trials of `stories` base stories a class, at every level, with success
    P = 1 / (1 + exp(-(a + b log2(1 + level)))) for each class's (a, b)."""
    draw = random.Random(seed)
    made = []
    for expected, (a, b) in curve.items():
        for story in range(stories):
            for level in LEVELS:
                p = 1 / (1 + math.exp(-(a + b * math.log2(1 + level))))
                made.append(
                    LadderTrial(f"{expected}-{story}", expected, level, float(draw.random() < p))
                )
    return made


def true_span(a: float, b: float) -> float:
    """Where 1 / (1 + exp(-(a + b x))) falls halfway from its value at 0 to 1/3."""
    start = 1 / (1 + math.exp(-a))
    mark = (start + CHANCE) / 2
    x = (math.log(mark / (1 - mark)) - a) / b
    return 2**x - 1


def test_the_span_of_a_known_curve_is_recovered_with_an_interval_around_it() -> None:
    a, b = 3.0, -1.0
    expected = true_span(a, b)
    assert expected == pytest.approx(4.32, abs=0.01)
    found = span(trials({name: (a, b) for name in CLASSES}, stories=150))
    assert found.status == "within"
    assert found.level == pytest.approx(expected, rel=0.15)
    assert found.low < expected < found.high
    assert found.start == pytest.approx(1 / (1 + math.exp(-a)), abs=0.03)


def test_a_steeper_fall_gives_a_shorter_span() -> None:
    spans = [
        point_span(trials({name: (3.0, slope) for name in CLASSES}, stories=120))[1]
        for slope in (-2.0, -1.0, -0.6)
    ]
    assert spans == sorted(spans)


def test_classes_are_balanced_not_pooled() -> None:
    """Two classes that stay perfect and one that breaks: the balanced curve falls a third
    of the way, so it never reaches the halfway mark."""
    curve = {"Pass": (6.0, 0.0), "Ask Teammate": (6.0, 0.0), "Tell Teammate": (3.0, -2.0)}
    status, _, start, _ = point_span(trials(curve, stories=100))
    assert status == "beyond" and start > 0.9


def test_no_fall_is_beyond_the_ladder_and_chance_has_no_span() -> None:
    steady = span(trials({name: (3.0, 0.0) for name in CLASSES}, stories=60), draws=50)
    assert steady.status == "beyond" and math.isnan(steady.level)
    at_chance = span(
        [
            LadderTrial(f"s{i}", CLASSES[i % 3], level, float(i % 3 == 0))
            for i in range(90)
            for level in LEVELS
        ],
        draws=20,
    )
    assert at_chance.status == "none"
    assert span([]).status == "none"


def test_measured_shares_per_level_carry_intervals_and_counts() -> None:
    made = trials({name: (3.0, -1.0) for name in CLASSES}, stories=40)
    shares = level_shares(made)
    assert list(shares) == list(LEVELS)
    for value, low, high, count in shares.values():
        assert low <= value <= high and count == 3 * 40
    # The measured level-0 share is near the curve's value at 0.
    assert shares[0][0] == pytest.approx(1 / (1 + np.exp(-3.0)), abs=0.06)


def steps(shares: dict[float, dict[str, float]], stories: int = 20) -> list[LadderTrial]:
    """Trials whose share optimal at each level and class is exactly as given."""
    return [
        LadderTrial(f"{expected}-{story}", expected, level, float(story < share * stories))
        for level, classes in shares.items()
        for expected, share in classes.items()
        for story in range(stories)
    ]


def test_levels_at_the_floor_do_not_move_the_span() -> None:
    """A player that levels off above chance (as a bounded memory does): the span is where
    its measured curve crosses the mark, however many levels at the floor follow."""
    fall = {0.0: 1.0, 2.0: 0.8, 4.0: 0.55}
    floor = {8.0: 0.55, 16.0: 0.55, 32.0: 0.55, 64.0: 0.55}
    shares = {level: dict.fromkeys(CLASSES, value) for level, value in (fall | floor).items()}
    spans = {
        top: point_span(steps({level: c for level, c in shares.items() if level <= top}))
        for top in (4.0, 16.0, 64.0)
    }
    # The mark is (1 + 1/3) / 2 = 2/3, crossed a third of the way from x = log2(3) to log2(5).
    x = math.log2(3) + (0.8 - 2 / 3) / (0.8 - 0.55) * (math.log2(5) - math.log2(3))
    for top, (status, level, start, reached) in spans.items():
        assert (status, start, reached) == ("within", 1.0, top)
        assert level == pytest.approx(2**x - 1)


def test_noise_cannot_make_the_curve_climb_back() -> None:
    """A level that scores above the one below it is pooled with it: the curve falls
    through the mark once, at the pooled levels' mean."""
    shares = {0.0: 1.0, 2.0: 0.6, 4.0: 0.7, 8.0: 0.2}
    status, level, _, _ = point_span(
        steps({k: dict.fromkeys(CLASSES, v) for k, v in shares.items()})
    )
    # Levels 2 and 4 pool to 0.65, below the mark 2/3: the crossing lies between 0 and 2.
    x = (1.0 - 2 / 3) / (1.0 - 0.65) * math.log2(3)
    assert status == "within" and level == pytest.approx(2**x - 1)


def test_chance_is_a_constant_policys_over_the_classes_played() -> None:
    """With one expected action, always choosing it is perfect: there is no span to find;
    with two, chance is 1/2."""
    one = steps({level: {"Pass": 1.0} for level in (0.0, 2.0, 4.0)})
    assert span(one, draws=10).status == "none"
    both = ("Pass", "Ask Teammate")
    two = steps({0.0: dict.fromkeys(both, 1.0), 2.0: dict.fromkeys(both, 0.7)})
    # 0.7 is below (1 + 1/2) / 2 = 0.75, though above the three classes' mark of 2/3.
    assert point_span(two)[0] == "within"


def test_a_level_without_every_class_is_left_out() -> None:
    """A stopped ladder: only Pass reached level 8, where it is perfect. Its balanced
    accuracy there would be Pass's alone, so the ladder's top is level 4."""
    shares = {level: dict.fromkeys(CLASSES, 0.9) for level in (0.0, 2.0, 4.0)}
    stopped = steps(shares | {8.0: {"Pass": 1.0}})
    status, _, _, top = point_span(stopped)
    assert (status, top) == ("beyond", 4.0)
    assert list(level_shares(stopped)) == [0.0, 2.0, 4.0]  # nor in the log or the report
    # Only Pass climbed at all: no level above 0 to lose anything on.
    alone = steps({0.0: dict.fromkeys(CLASSES, 0.9), 2.0: {"Pass": 1.0}})
    assert point_span(alone)[0] == "none" and span(alone, draws=10).top == 0.0


def test_a_level_above_the_crossing_that_scores_higher_is_pooled_with_it() -> None:
    """The curve may not climb back: a later level above the crossing level's share is
    pooled with it, which can lift the pooled value above the mark."""
    fall = {0.0: 1.0, 2.0: 0.8, 4.0: 0.6}
    alone = point_span(steps({k: dict.fromkeys(CLASSES, v) for k, v in fall.items()}))
    assert alone[0] == "within"
    recovered = fall | {8.0: 0.75}
    pooled = point_span(steps({k: dict.fromkeys(CLASSES, v) for k, v in recovered.items()}))
    assert pooled[0] == "beyond"  # 4 and 8 pool to 0.675, above the mark of 2/3


def test_the_report_says_why_a_ladder_has_no_span() -> None:
    from tom_eval.game.report import _span_text

    row: dict[Hashable, object] = {
        "status": "none",
        "span": math.nan,
        "low": math.nan,
        "high": math.nan,
        "classes": 3,
    }
    assert _span_text(row | {"top": 0.0}) == "none (no level above 0 holds every expected action)"
    assert _span_text(row | {"top": 32.0}) == (
        "none (level 0 is not clearly above chance: its 95% interval reaches 1/3)"
    )
    # A perfect player on Pass stories alone (`--limit 30` plays Id 1's) is not at chance.
    assert _span_text(row | {"top": 32.0, "classes": 1}) == (
        "none (one expected action only: -T sample=N plays all three)"
    )
