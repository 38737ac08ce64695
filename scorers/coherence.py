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

from collections.abc import Sequence

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

from tom_eval.coherence.metrics import (
    Answers,
    bayesian_values,
    cross_domain_values,
    rational_values,
    run_answers,
    validity_values,
)
from tom_eval.coherence.rational import DEFAULT_COST, DEFAULT_TEMPERATURE
from tom_eval.coherence.solver import CoherenceRecord
from tom_eval.coherence.worlds import is_item_id, logged_answer_problem
from tom_eval.refusal import logged_store, refuse_other_tasks, refused

VALUES = ("reply_answers", "read", "by_logprobs")


def _run_answers(scores: Sequence[SampleScore]) -> Answers:
    return run_answers(sample_score.score.metadata or {} for sample_score in scores)


@metric
def bayesian(prior: dict[str, float] | None = None) -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return bayesian_values(_run_answers(scores), prior)

    return compute


@metric(name="validity")
def validity_metric() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return validity_values(_run_answers(scores))

    return compute


@metric
def cross_domain() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return cross_domain_values(_run_answers(scores))

    return compute


@metric
def rational(cost: float = DEFAULT_COST, temperature: float = DEFAULT_TEMPERATURE) -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return rational_values(_run_answers(scores), cost, temperature)

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
        refuse_other_tasks(
            state.metadata, state.sample_id, ("item_id",), "tasks/coherence.py", "coherence_scorer"
        )
        item_id = state.metadata["item_id"]
        if not is_item_id(item_id):  # only a log edited by hand, scored again
            raise refused(
                f"sample {state.sample_id}: 'item_id' is {item_id!r:.60}, the id of no item; "
                "was the log edited?"
            )
        record = logged_store(CoherenceRecord, state.sample_id)
        problem = logged_answer_problem(item_id, record.distribution or {}, record.reply_answer)
        if problem:
            raise refused(f"sample {state.sample_id}: {problem}; was the log edited?")
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
            metadata={"item_id": item_id} | record.model_dump(),
        )

    return score
