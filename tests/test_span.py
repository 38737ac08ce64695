"""The span fit on synthetic trials whose curve is known."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tom_eval.game.span import CHANCE, Trial, level_shares, point_span, span

LEVELS = (0, 2, 4, 8, 16, 32)
CLASSES = ("Pass", "Ask Teammate", "Tell Teammate")


def trials(curve: dict[str, tuple[float, float]], stories: int, seed: int = 1) -> list[Trial]:
    """Bernoulli trials of `stories` base stories a class, at every level, with success
    P = 1 / (1 + exp(-(a + b log2(1 + level)))) for each class's (a, b)."""
    draw = random.Random(seed)
    made = []
    for expected, (a, b) in curve.items():
        for story in range(stories):
            for level in LEVELS:
                p = 1 / (1 + math.exp(-(a + b * math.log2(1 + level))))
                made.append(Trial(f"{expected}-{story}", expected, level, float(draw.random() < p)))
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
        point_span(trials({name: (3.0, slope) for name in CLASSES}, stories=120), 32)[1]
        for slope in (-2.0, -1.0, -0.6)
    ]
    assert spans == sorted(spans)


def test_classes_are_balanced_not_pooled() -> None:
    """Two classes that stay perfect and one that breaks: the balanced curve falls a third
    of the way, so it never reaches the halfway mark."""
    curve = {"Pass": (6.0, 0.0), "Ask Teammate": (6.0, 0.0), "Tell Teammate": (3.0, -2.0)}
    status, _, start = point_span(trials(curve, stories=100), 32)
    assert status == "beyond" and start > 0.9


def test_no_fall_is_beyond_the_ladder_and_chance_has_no_span() -> None:
    steady = span(trials({name: (3.0, 0.0) for name in CLASSES}, stories=60), draws=50)
    assert steady.status == "beyond" and math.isnan(steady.level)
    at_chance = span(
        [
            Trial(f"s{i}", CLASSES[i % 3], level, float(i % 3 == 0))
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


def test_a_fit_that_starts_at_chance_has_a_span_of_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """Level 0 measured well above chance, the fitted curve already at it: the span is 0,
    not an interpolation towards the curve's far end."""
    from tom_eval.game import span as module

    monkeypatch.setattr(module, "balanced_curve", lambda trials, levels: 0.3 - levels / 1000)
    perfect = [Trial(f"s{i}", CLASSES[i % 3], 0, 1.0) for i in range(30)]
    assert point_span(perfect, 32) == ("within", 0.0, 0.3)
