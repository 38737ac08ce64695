"""A model's span on a load ladder: how much story it can track before its theory of mind
breaks, as a level with an interval. Inspect-free.

The ladder plays the same base stories at several load levels (0, 2, 4, ... extra events).
At each level the balanced accuracy is measured (the mean over the expected-action classes,
Pass, Ask Teammate and Tell Teammate, of each class's share optimal); the curve is those
values made non-increasing (the pool-adjacent-violators fit, each level weighted by its
trials, so noise cannot make the curve climb back), read between levels by linear
interpolation on x = log2(1 + level), since the levels double. The span is the level at
which that curve has fallen **halfway from its level-0 value to chance** (1/k for the k
classes the ladder plays: what any constant policy scores, 1/3 with all three):

* `span`: that level, when the curve reaches it within the ladder;
* beyond the ladder: the curve stays above the halfway mark up to the ladder's top;
* no span: at level 0 the measured balanced accuracy is not above chance (its 95% interval
  reaches it), so there is nothing to lose; or no level above 0 holds every class.

No curve shape is assumed: a model that levels off above chance (a bounded player keeps
most Pass scenarios whatever it forgot) has the span its measured curve shows, and levels
added above the crossing move it only by scoring above the level where the curve crossed
(which pools them with it: a curve that climbs back is read as noise, and a floor that
wavers around the halfway mark leaves the span uncertain). A level where one of level 0's
classes has no trial (a stopped ladder's upper rungs) is left out, since its balanced
accuracy would be over other classes; the ladder's top is then the highest level with every
class.

The interval is a percentile bootstrap over base stories (every level of a base story drawn
together, since its trials share a story; stories drawn within their expected-action class,
so every draw has every class), with the same estimate in every draw; a draw whose level 0
is not above chance has no span and is left out. A run with no span has no interval either.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from tom_eval.report.stats import balanced

BOOTSTRAP = 400
"""Resamples of base stories for the interval."""


@dataclass(frozen=True)
class LadderTrial:
    """One base story played at one level of a ladder (not `trial.Trial`, the conversation
    of one turn)."""

    story: str
    """The base story: trials of one story at all levels are resampled together."""
    expected: str
    """The expected-action class (Pass, Ask Teammate, Tell Teammate)."""
    level: float
    success: float
    """1 when the action was optimal (an epoch mean may lie between)."""


SpanStatus = Literal["within", "beyond", "none"]


@dataclass(frozen=True)
class Span:
    status: SpanStatus
    """Within the ladder, beyond it, or none (at chance from the start)."""
    level: float
    """The span (NaN unless within the ladder)."""
    low: float
    high: float
    """The 95% interval's ends; `high` is inf when draws go beyond the ladder, and both are
    NaN when no draw has a span."""
    start: float
    """The curve at level 0."""
    top: float
    """The ladder's highest level with every class."""


def non_increasing(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The weighted least-squares non-increasing fit of `values` (pool adjacent violators):
    a level that scores above the one below it is pooled with it."""
    blocks: list[tuple[float, float, int]] = []  # (value, weight, levels pooled)
    for value, weight in zip(values, weights, strict=True):
        blocks.append((value, weight, 1))
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            (upper, upper_weight, upper_count), (lower, lower_weight, lower_count) = (
                blocks.pop(-2),
                blocks.pop(),
            )
            pooled = upper_weight + lower_weight
            mean = (upper * upper_weight + lower * lower_weight) / pooled
            blocks.append((mean, pooled, upper_count + lower_count))
    return [value for value, _, count in blocks for _ in range(count)]


def curve(trials: Sequence[LadderTrial]) -> tuple[list[float], list[float], float]:
    """(levels, the non-increasing balanced curve at them, chance) over the levels where
    every class of level 0 has a trial (`level_shares`)."""
    shares = level_shares(trials)
    levels = sorted(shares)
    values = non_increasing(
        [shares[level][0] for level in levels], [shares[level][3] for level in levels]
    )
    classes = {trial.expected for trial in trials if trial.level == 0}
    return levels, values, 1 / len(classes) if classes else math.nan


def point_span(trials: Sequence[LadderTrial]) -> tuple[SpanStatus, float, float, float]:
    """(status, span, level-0 value, top level) of one set of trials."""
    levels, values, chance = curve(trials)
    if not levels or levels[0] != 0:
        return "none", math.nan, math.nan, max(levels, default=math.nan)
    start, top = values[0], levels[-1]
    _, low, _, _ = level_shares(trial for trial in trials if trial.level == 0)[0.0]
    # Nothing to lose, or no level above 0 with every class to lose it on (a stopped ladder).
    if not low > chance or top == 0:
        return "none", math.nan, start, top
    mark = (start + chance) / 2
    for index in range(1, len(levels)):
        if values[index] <= mark:
            left, right = values[index - 1], values[index]
            x_left, x_right = math.log2(1 + levels[index - 1]), math.log2(1 + levels[index])
            x = x_left + (left - mark) / (left - right) * (x_right - x_left)
            return "within", 2**x - 1, start, top
    return "beyond", math.nan, start, top


def span(trials: Sequence[LadderTrial], seed: int = 0, draws: int = BOOTSTRAP) -> Span:
    """The span of `trials` with its bootstrap interval over base stories."""
    if not trials:
        return Span("none", math.nan, math.nan, math.nan, math.nan, math.nan)
    status, level, start, top = point_span(trials)
    if status == "none":
        return Span(status, level, math.nan, math.nan, start, top)
    # Stories are resampled within their expected-action class, so that every draw keeps
    # every class the balanced curve averages over.
    by_class: dict[str, dict[str, list[LadderTrial]]] = defaultdict(lambda: defaultdict(list))
    for trial in trials:
        by_class[trial.expected][trial.story].append(trial)
    rng = random.Random(f"span:{seed}")
    spans = []
    for _ in range(draws):
        resample = [
            trial
            for stories in by_class.values()
            for name in rng.choices(sorted(stories), k=len(stories))
            for trial in stories[name]
        ]
        kind, value, _, _ = point_span(resample)
        if kind != "none":
            spans.append(value if kind == "within" else math.inf)
    if not spans:
        return Span(status, level, math.nan, math.nan, start, top)
    # Nearest ranks, not interpolation: a draw beyond the ladder is infinite.
    low = np.percentile(spans, 2.5, method="lower")
    high = np.percentile(spans, 97.5, method="higher")
    return Span(status, level, float(low), float(high), start, top)


def level_shares(trials: Iterable[LadderTrial]) -> dict[float, tuple[float, float, float, int]]:
    """Each level's balanced accuracy as measured (before it is made non-increasing), with
    its 95% interval and its number of trials, at the levels where every class of level 0
    has a trial: elsewhere (a stopped ladder's upper rungs) it would be over other classes,
    so those levels are left out of the curve, the log's metrics and the report alike."""
    cells: dict[float, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for trial in trials:
        cells[trial.level][trial.expected].append(trial.success)
    wanted = set(cells.get(0.0, {}))
    return {
        level: (*balanced(list(classes.values())), sum(map(len, classes.values())))
        for level, classes in sorted(cells.items())
        if set(classes) >= wanted
    }
