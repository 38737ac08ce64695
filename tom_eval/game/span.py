"""A model's span on a load ladder: how much story it can track before its theory of mind
breaks, as a level with an interval. Inspect-free.

The ladder plays the same base stories at several load levels (0, 2, 4, ... extra events).
For each expected-action class (Pass, Ask Teammate, Tell Teammate) a logistic curve is fitted
to the trials' success on the level, P(optimal) = 1 / (1 + exp(-(a + b x))) with
x = log2(1 + level), since the levels double; the balanced curve is the mean of the class
curves, as balanced accuracy is the mean of the class shares. The span is the level at which
the balanced curve has fallen halfway from its level-0 value to chance (1/3, what any
constant policy scores):

* `span`: that level, when the curve reaches it within the ladder;
* beyond the ladder: the curve stays above the halfway mark up to the ladder's top;
* no span: at level 0 the measured balanced accuracy is not above chance (its 95% interval
  reaches 1/3), so there is nothing to lose.

The interval is a percentile bootstrap over base stories (every level of a base story drawn
together, since its trials share a story; stories drawn within their expected-action class,
so every draw has every class), with the same fit in every draw. A run with no span has no
interval either.
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

CHANCE = 1 / 3
"""Balanced accuracy of any constant policy (always pass, always ask)."""
RIDGE = 0.01
"""A small penalty on both coefficients: a class right (or wrong) at every level would
otherwise push them to infinity."""
BOOTSTRAP = 400
"""Resamples of base stories for the interval."""


@dataclass(frozen=True)
class Trial:
    story: str
    """The base story: trials of one story at all levels are resampled together."""
    expected: str
    """The expected-action class (Pass, Ask Teammate, Tell Teammate)."""
    level: float
    success: float
    """1 when the action was optimal (an epoch mean may lie between)."""


Status = Literal["within", "beyond", "none"]


@dataclass(frozen=True)
class Span:
    status: Status
    """Within the ladder, beyond it, or none (at chance from the start)."""
    level: float
    """The span (NaN unless within the ladder)."""
    low: float
    high: float
    """The 95% interval's ends; `high` is inf when draws go beyond the ladder, and both are
    NaN when no draw has a span."""
    start: float
    """The balanced curve at level 0."""
    top: float
    """The ladder's highest level."""


def x_of(levels: np.ndarray) -> np.ndarray:
    """The covariate: levels double along the ladder."""
    return np.asarray(np.log2(1 + np.asarray(levels, dtype=float)), dtype=float)


def fit_class(levels: Sequence[float], successes: Sequence[float]) -> tuple[float, float]:
    """Intercept and slope of a ridge-penalised logistic regression of success on
    log2(1 + level), by Newton's method (a success may be fractional: an epoch mean)."""
    x = np.column_stack([np.ones(len(levels)), x_of(np.asarray(levels, dtype=float))])
    y = np.asarray(successes, dtype=float)
    beta = np.zeros(2)
    for _ in range(50):
        p = 1 / (1 + np.exp(-(x @ beta)))
        gradient = x.T @ (y - p) - RIDGE * beta
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + RIDGE * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-9:
            break
    return float(beta[0]), float(beta[1])


def balanced_curve(trials: Iterable[Trial], levels: np.ndarray) -> np.ndarray:
    """The mean over expected-action classes of each class's fitted curve at `levels`."""
    by_class: dict[str, list[Trial]] = defaultdict(list)
    for trial in trials:
        by_class[trial.expected].append(trial)
    curves = []
    for members in by_class.values():
        a, b = fit_class([t.level for t in members], [t.success for t in members])
        curves.append(1 / (1 + np.exp(-(a + b * x_of(levels)))))
    return np.asarray(np.mean(curves, axis=0), dtype=float)


def point_span(trials: Sequence[Trial], top: float) -> tuple[Status, float, float]:
    """(status, span, level-0 value) of one set of trials; `top` is the ladder's highest
    level. The crossing is found on a fine grid of levels, then interpolated."""
    grid = np.concatenate([[0.0], np.geomspace(0.01, top, 2000)]) if top > 0 else np.zeros(1)
    curve = balanced_curve(trials, grid)
    start = float(curve[0])
    _, low, _, _ = level_shares(trial for trial in trials if trial.level == 0).get(
        0.0, (math.nan, math.nan, math.nan, 0)
    )
    if not low > CHANCE:
        return "none", math.nan, start
    mark = (start + CHANCE) / 2
    below = np.nonzero(curve <= mark)[0]
    if len(below) == 0:
        return "beyond", math.nan, start
    index = int(below[0])
    if index == 0:  # the fit starts at or below chance, though level 0 as measured does not
        return "within", 0.0, start
    # Linear interpolation between the grid points around the crossing.
    left, right = curve[index - 1], curve[index]
    share = (left - mark) / (left - right) if left != right else 0.0
    return "within", float(grid[index - 1] + share * (grid[index] - grid[index - 1])), start


def span(trials: Sequence[Trial], seed: int = 0, draws: int = BOOTSTRAP) -> Span:
    """The span of `trials` with its bootstrap interval over base stories."""
    if not trials:
        return Span("none", math.nan, math.nan, math.nan, math.nan, math.nan)
    top = max(trial.level for trial in trials)
    status, level, start = point_span(trials, top)
    if status == "none":
        return Span(status, level, math.nan, math.nan, start, top)
    # Stories are resampled within their expected-action class, so that every draw keeps
    # every class the balanced curve averages over.
    by_class: dict[str, dict[str, list[Trial]]] = defaultdict(lambda: defaultdict(list))
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
        kind, value, _ = point_span(resample, top)
        if kind != "none":
            spans.append(value if kind == "within" else math.inf)
    if not spans:
        return Span(status, level, math.nan, math.nan, start, top)
    # Nearest ranks, not interpolation: a draw beyond the ladder is infinite.
    low = np.percentile(spans, 2.5, method="lower")
    high = np.percentile(spans, 97.5, method="higher")
    return Span(status, level, float(low), float(high), start, top)


def level_shares(trials: Iterable[Trial]) -> dict[float, tuple[float, float, float, int]]:
    """Each level's balanced accuracy as measured (not fitted), with its 95% interval and
    its number of trials."""
    cells: dict[float, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for trial in trials:
        cells[trial.level][trial.expected].append(trial.success)
    return {
        level: (*balanced(list(classes.values())), sum(map(len, classes.values())))
        for level, classes in sorted(cells.items())
    }
