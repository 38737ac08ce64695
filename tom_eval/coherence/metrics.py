"""The paper's evaluations, as pure functions over a run's answers: for each item id, a
distribution over the item's answers (actions for AP, mental states for DI, BI and BDI).
A run's answers to the AP items are its forward model, so one mapping serves every metric.
A distribution that omits one of its item's answers gives it probability 0; items missing
from the run, or whose forward items are missing, are left out and not counted.

Correlations are NaN when undefined: fewer than two pairs, or a constant side (a model that
gives every pair the same probability has no correlation with anything).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import fsum
from typing import Any, TypeVar

from tom_eval.coherence.rational import (
    DEFAULT_COST,
    DEFAULT_TEMPERATURE,
    Unexplained,
    infer,
    rational_answers,
)
from tom_eval.coherence.worlds import (
    DOMAINS,
    INFERENCE_TASKS,
    TASKS,
    Domain,
    InferenceTask,
    Item,
    Task,
    answers,
    counterpart,
    counterpart_answer,
    find_item,
    forward_item,
    items,
)

Answers = Mapping[str, Mapping[str, float]]
"""A run's distributions over answers, keyed by item id."""
AnyTask = TypeVar("AnyTask", bound=str)

TIE_TOLERANCE = 1e-9
"""Probabilities closer than this count as equal (for the most likely answer and action)."""


@dataclass(frozen=True, slots=True)
class Correlation:
    pearson: float
    spearman: float
    items: int
    """Items joined."""
    pairs: int
    """Item x answer pairs correlated."""


@dataclass(frozen=True, slots=True)
class Validity:
    """The validity evaluation of one task. An item is explicable when at least one of its
    mental states, fed to the forward model, makes the observed action a most likely action;
    on the others no inference can be valid, so `share` leaves them out."""

    valid: float
    """Valid items, a tie among most likely inferences counting the share of them valid."""
    explicable: int
    items: int

    @property
    def share(self) -> float:
        return self.valid / self.explicable if self.explicable else math.nan


# --------------------------------------------------------------------------- statistics


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, tied values sharing the average of their ranks. Values within
    `TIE_TOLERANCE` of the smallest of a run tie: probabilities read through different
    arithmetic (a product of token probabilities, an inversion) differ in their last bits,
    which must not order them."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while (
            end + 1 < len(order) and values[order[end + 1]] - values[order[start]] <= TIE_TOLERANCE
        ):
            end += 1
        for position in range(start, end + 1):
            result[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return result


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson's r; NaN for fewer than two pairs or a constant side. Raises ValueError
    for sequences of different lengths or a value that is not finite."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} values against {len(ys)}")
    if not all(math.isfinite(value) for value in (*xs, *ys)):
        raise ValueError("a value to correlate is not finite")
    # Exact comparison: a constant side must give NaN, not the noise of its rounding.
    if len(xs) < 2 or len(set(xs)) == 1 or len(set(ys)) == 1:
        return math.nan
    mean_x, mean_y = fsum(xs) / len(xs), fsum(ys) / len(ys)
    dx = [x - mean_x for x in xs]
    dy = [y - mean_y for y in ys]
    covariance = fsum(a * b for a, b in zip(dx, dy, strict=True))
    spread = math.sqrt(fsum(a * a for a in dx) * fsum(b * b for b in dy))
    return max(-1.0, min(1.0, covariance / spread))


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the average ranks (so ties are handled)."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} values against {len(ys)}")
    return pearson(ranks(xs), ranks(ys))


def _correlation(pairs: Sequence[tuple[float, float]], joined: int) -> Correlation:
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    return Correlation(pearson(xs, ys), spearman(xs, ys), joined, len(pairs))


# ---------------------------------------------------------------------------- evaluations


def _has_forward_items(item: Item, run: Answers) -> bool:
    return all(forward_item(item, answer).item_id in run for answer in answers(item))


def bayesian_evaluation(
    run: Answers, domain: Domain, task: InferenceTask, prior: Mapping[str, float] | None = None
) -> Correlation:
    """The "Bayesian" evaluation: r between the run's direct inferences and the Bayesian
    inversion of its own forward model (the run's AP answers), over every item x answer
    pair of the task. Items whose action the forward model cannot produce at all (the
    inversion is undefined) are left out."""
    pairs: list[tuple[float, float]] = []
    joined = 0
    for item in items(domain, task):
        if item.item_id not in run or not _has_forward_items(item, run):
            continue
        try:
            inversion = infer(item, run, prior)
        except Unexplained:
            continue
        direct = run[item.item_id]
        pairs += [(direct.get(answer, 0.0), inversion[answer]) for answer in answers(item)]
        joined += 1
    return _correlation(pairs, joined)


def produces(prediction: Mapping[str, float], action: str) -> bool:
    """Whether `action` is a most likely action of a forward prediction (a tie counts)."""
    others = [probability for other, probability in prediction.items() if other != action]
    return prediction.get(action, 0.0) >= max(others, default=0.0) - TIE_TOLERANCE


def validity(run: Answers, domain: Domain, task: InferenceTask) -> Validity:
    """The "validity" evaluation: the share of explicable items (see `Validity`) whose most
    likely inferred mental state, fed back to the run's forward model, makes the observed
    action a most likely action. When several mental states tie as most likely, the item
    counts the share of them that do (the expected score of breaking the tie at random)."""
    valid, explicable, joined = 0.0, 0, 0
    for item in items(domain, task):
        if item.item_id not in run or not _has_forward_items(item, run):
            continue
        joined += 1
        assert item.action is not None
        valid_answer = {
            answer: produces(run[forward_item(item, answer).item_id], item.action)
            for answer in answers(item)
        }
        if not any(valid_answer.values()):
            continue
        explicable += 1
        inference = run[item.item_id]
        top = max(inference.get(answer, 0.0) for answer in answers(item))
        tied = [a for a in answers(item) if inference.get(a, 0.0) >= top - TIE_TOLERANCE]
        valid += sum(valid_answer[answer] for answer in tied) / len(tied)
    return Validity(valid, explicable, joined)


def cross_domain_consistency(run: Answers, task: Task) -> Correlation:
    """r between the run's distributions on isomorphic ContainerWorld and MovieWorld items,
    answer by answer, over the task's items answered in both domains."""
    pairs: list[tuple[float, float]] = []
    joined = 0
    for item in items("container", task):
        twin = counterpart(item)
        if item.item_id not in run or twin.item_id not in run:
            continue
        container, movie = run[item.item_id], run[twin.item_id]
        pairs += [
            (container.get(answer, 0.0), movie.get(counterpart_answer(item, answer), 0.0))
            for answer in answers(item)
        ]
        joined += 1
    return _correlation(pairs, joined)


def rational_agreement(
    run: Answers,
    domain: Domain,
    task: Task,
    *,
    cost: float = DEFAULT_COST,
    temperature: float = DEFAULT_TEMPERATURE,
) -> Correlation:
    """r between the run's answers and the rational agent's (`rational.rational_answers`):
    its forward model for AP, its uniform-prior inversion for the inference tasks."""
    reference = rational_answers(domain, cost=cost, temperature=temperature)
    pairs: list[tuple[float, float]] = []
    joined = 0
    for item in items(domain, task):
        if item.item_id not in run:
            continue
        answered = run[item.item_id]
        expected = reference[item.item_id]
        pairs += [(answered.get(answer, 0.0), expected[answer]) for answer in answers(item)]
        joined += 1
    return _correlation(pairs, joined)


# ------------------------------------------------------------------ a run's metric values
# What the scorer's metrics report (scorers/coherence.py) and `tom-eval report` recomputes
# over the samples of a run's logs: one function each, so the two never disagree. A value
# that cannot be computed (a task or domain not in the run, no action predictions to
# invert) is left out.


def run_answers(metadata: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """A run's distributions by item id, from its samples' score metadata (`item_id` and
    `distribution`): an item's first (of several epochs), and items with none left out."""
    answers: dict[str, dict[str, float]] = {}
    for entry in metadata:
        if entry.get("distribution"):
            answers.setdefault(str(entry["item_id"]), dict(entry["distribution"]))
    return answers


def answered(run: Answers, tasks: Sequence[AnyTask]) -> list[tuple[Domain, AnyTask]]:
    """The (domain, task) pairs of `tasks` the run has items of, in the metrics' order."""
    present = {(item.domain, item.task) for item in map(find_item, run)}
    return [(domain, task) for domain in DOMAINS for task in tasks if (domain, task) in present]


def _finite(values: Mapping[str, float]) -> dict[str, float]:
    return {key: value for key, value in values.items() if not math.isnan(value)}


def _task_prior(
    prior: Mapping[str, float] | None, domain: Domain, task: InferenceTask
) -> dict[str, float] | None:
    """The prior's weights for the task's answers in the domain; None (uniform) when it has
    none there (a prior may weigh one domain's BI answers and not the other's)."""
    keys = set(answers(items(domain, task)[0]))
    return {key: weight for key, weight in (prior or {}).items() if key in keys} or None


def bayesian_values(run: Answers, prior: Mapping[str, float] | None) -> dict[str, float]:
    """`<domain>_<task>_r` and `_rho` of the Bayesian evaluation."""
    values: dict[str, float] = {}
    for domain, task in answered(run, INFERENCE_TASKS):
        evaluation = bayesian_evaluation(run, domain, task, _task_prior(prior, domain, task))
        name = f"{domain}_{task}"
        values |= {f"{name}_r": evaluation.pearson, f"{name}_rho": evaluation.spearman}
    return _finite(values)


def validity_values(run: Answers) -> dict[str, float]:
    """`<domain>_<task>_validity`: the validity evaluation's share."""
    return _finite(
        {
            f"{domain}_{task}_validity": validity(run, domain, task).share
            for domain, task in answered(run, INFERENCE_TASKS)
        }
    )


def cross_domain_values(run: Answers) -> dict[str, float]:
    """`<task>_cross_domain_r`."""
    return _finite(
        {f"{task}_cross_domain_r": cross_domain_consistency(run, task).pearson for task in TASKS}
    )


def rational_values(run: Answers, cost: float, temperature: float) -> dict[str, float]:
    """`<domain>_<task>_rational_r`: agreement with the rational agent."""
    return _finite(
        {
            f"{domain}_{task}_rational_r": rational_agreement(
                run, domain, task, cost=cost, temperature=temperature
            ).pearson
            for domain, task in answered(run, TASKS)
        }
    )
