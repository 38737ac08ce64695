"""Scoring the coherence test (Muchovej et al.): each sample carries its item's
distribution (in the score's metadata); the paper's evaluations are metrics over the whole
run, joining items by id (`tom_eval.coherence.metrics`).

Per sample, Score.value holds `reply_answers` (the reply at temperature 0, or the first
draw, gives an answer of the item: bad output is counted here), `read` (a distribution
was read) and `by_logprobs` (it was read from log-probabilities, not sampled). The run's
metrics:

* `bayesian`: `<domain>_<task>_r` and `_rho`, Pearson and Spearman between the direct
  inferences and the Bayesian inversion of the run's own action predictions;
* `validity`: `<domain>_<task>_validity`, the share of explicable inferences whose most
  likely mental state, fed to the run's forward model, produces the observed action;
* `cross_domain`: `<task>_cross_domain_r`, between isomorphic ContainerWorld and MovieWorld
  items;
* `rational`: `<domain>_<task>_rational_r`, agreement with the rational agent.
A value that cannot be computed (a task or domain not in the run, or no action predictions
to invert) is left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypeVar

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from tom_eval.coherence.metrics import (
    Answers,
    Correlation,
    bayesian_evaluation,
    cross_domain_consistency,
    rational_agreement,
    validity,
)
from tom_eval.coherence.rational import DEFAULT_COST, DEFAULT_TEMPERATURE
from tom_eval.coherence.solver import CoherenceRecord
from tom_eval.coherence.worlds import (
    DOMAINS,
    INFERENCE_TASKS,
    TASKS,
    Domain,
    InferenceTask,
    answers,
    find_item,
    items,
)

VALUES = ("reply_answers", "read", "by_logprobs")
AnyTask = TypeVar("AnyTask", bound=str)


def run_answers(scores: Sequence[SampleScore]) -> Answers:
    """The run's distributions by item id (items with none are left out)."""
    run: dict[str, dict[str, float]] = {}
    for sample_score in scores:
        metadata = sample_score.score.metadata or {}
        if metadata.get("distribution"):
            run[str(metadata["item_id"])] = dict(metadata["distribution"])
    return run


def _answered(run: Answers, tasks: Sequence[AnyTask]) -> list[tuple[Domain, AnyTask]]:
    """The (domain, task) pairs of `tasks` the run has items of, in the metrics' order."""
    present = {(item.domain, item.task) for item in map(find_item, run)}
    return [(domain, task) for domain in DOMAINS for task in tasks if (domain, task) in present]


def _finite(values: Mapping[str, float]) -> dict[str, float]:
    return {key: value for key, value in values.items() if not math.isnan(value)}


def _correlation(name: str, correlation: Correlation) -> dict[str, float]:
    return {f"{name}_r": correlation.pearson, f"{name}_rho": correlation.spearman}


def _task_prior(prior: dict[str, float] | None, task: InferenceTask) -> dict[str, float] | None:
    """The prior's weights for the task's answers; None (uniform) when it has none."""
    keys = {key for domain in DOMAINS for key in answers(items(domain, task)[0])}
    return {key: weight for key, weight in (prior or {}).items() if key in keys} or None


@metric
def bayesian(prior: dict[str, float] | None = None) -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        run = run_answers(scores)
        values: dict[str, float] = {}
        for domain, task in _answered(run, INFERENCE_TASKS):
            evaluation = bayesian_evaluation(run, domain, task, _task_prior(prior, task))
            values |= _correlation(f"{domain}_{task}", evaluation)
        return _finite(values)

    return compute


@metric(name="validity")
def validity_metric() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        run = run_answers(scores)
        return _finite(
            {
                f"{domain}_{task}_validity": validity(run, domain, task).share
                for domain, task in _answered(run, INFERENCE_TASKS)
            }
        )

    return compute


@metric
def cross_domain() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        run = run_answers(scores)
        return _finite(
            {
                f"{task}_cross_domain_r": cross_domain_consistency(run, task).pearson
                for task in TASKS
            }
        )

    return compute


@metric
def rational(cost: float = DEFAULT_COST, temperature: float = DEFAULT_TEMPERATURE) -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        run = run_answers(scores)
        return _finite(
            {
                f"{domain}_{task}_rational_r": rational_agreement(
                    run, domain, task, cost=cost, temperature=temperature
                ).pearson
                for domain, task in _answered(run, TASKS)
            }
        )

    return compute


def coherence_metrics(
    prior: dict[str, float] | None = None,
    cost: float = DEFAULT_COST,
    temperature: float = DEFAULT_TEMPERATURE,
) -> list[Metric | dict[str, list[Metric]]]:
    """The metrics with the task's prior and the rational agent's parameters."""
    return [
        {value: [mean()] for value in VALUES},
        bayesian(prior),
        validity_metric(),
        cross_domain(),
        rational(cost, temperature),
    ]


@scorer(metrics=coherence_metrics())
def coherence_scorer() -> Scorer:
    """Carries each item's distribution to the run's metrics."""

    async def score(state: TaskState, target: Target) -> Score:
        record = store_as(CoherenceRecord)
        distribution = record.distribution or {}
        ranked = sorted(distribution.items(), key=lambda pair: -pair[1])
        return Score(
            value={
                "reply_answers": float(record.reply_answer is not None),
                "read": float(bool(distribution)),
                "by_logprobs": float(record.estimator == "logprobs"),
            },
            answer=record.reply_answer or record.reply,
            explanation="; ".join(f"{answer}: {p:.3f}" for answer, p in ranked[:5])
            or "no distribution read",
            metadata={"item_id": state.metadata["item_id"]} | record.model_dump(),
        )

    return score
