"""Coherence of action prediction and mental-state inference (Muchovej, Lee, Royka and
Jara-Ettinger): `inspect eval tasks/coherence.py --model ...`.

Every configuration of ContainerWorld and MovieWorld, for action prediction (AP) and
desire (DI), belief (BI) and joint (BDI) inference, each answered as a distribution over
its answers; the paper's evaluations (Bayesian correlation with the inversion of the
model's own action predictions, validity, cross-domain consistency, agreement with a
rational agent) are metrics over the whole run. See docs/coherence.md.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from scorers.coherence import coherence_metrics, coherence_scorer
from tom_eval.coherence.dataset import coherence_dataset
from tom_eval.coherence.parsing import DEFAULT_FLOOR
from tom_eval.coherence.prior import PRIOR_DIGEST, read_prior
from tom_eval.coherence.rational import DEFAULT_COST, DEFAULT_TEMPERATURE
from tom_eval.coherence.solver import ESTIMATORS, infer_distribution
from tom_eval.coherence.worlds import DOMAINS, TASKS
from tom_eval.errors import InputError, user_path
from tom_eval.json_fields import content_digest
from tom_eval.progress import show_progress
from tom_eval.providers.base import refuse_unplayable
from tom_eval.sampling import subset_arguments
from tom_eval.task_args import (
    MAX_DRAWS,
    NOT_GIVEN,
    file_name,
    names,
    one_of,
    real_number,
    refuse_misspelt,
    task_arguments,
    whole_number,
)

Choice = TypeVar("Choice", bound=str)


@task
def coherence(
    domain: str | list[str] = "container,movie",
    task: str | list[str] = "AP,DI,BI,BDI",
    estimator: str = "logprobs",
    samples: int = 100,
    prior: str = NOT_GIVEN,
    cost: float = DEFAULT_COST,
    temperature: float = DEFAULT_TEMPERATURE,
    floor: float = DEFAULT_FLOOR,
    sample: int | str = NOT_GIVEN,
    sample_seed: int = 0,
    **unknown: Any,
) -> Task:
    """The coherence test.

    Args:
        domain: "container", "movie" or both (comma-separated).
        task: any of AP, DI, BI, BDI (comma-separated). The Bayesian and validity
            evaluations need AP in the same run: it is the model's own forward model.
        estimator: "logprobs" (every answer scored exactly from token log-probabilities,
            falling back to sampling where a provider gives none) or "sampling".
        samples: replies at temperature 1 per item when sampling.
        prior: a YAML file of prior weights over mental states for the Bayesian
            evaluation (format in tom_eval/coherence/prior.py); uniform by default.
        cost: the rational agent's cost of the far location (for the `rational` metric).
        temperature: the rational agent's softmax temperature (for the `rational` metric).
        floor: token paths less probable than this are not followed (logprobs).
        sample: play a subset: this many items per domain, balanced over the tasks, with
            the action predictions the chosen inferences need (default: every item).
        sample_seed: the seed of the subset (default 0).
    """
    refuse_unplayable("coherence")
    show_progress()
    with task_arguments("coherence"):
        refuse_misspelt("coherence", unknown, coherence)
        domains = _in_order(names("domain", domain, DOMAINS), DOMAINS)
        tasks = _in_order(names("task", task, TASKS), TASKS)
        chosen = one_of("estimator", estimator, ESTIMATORS)
        samples = whole_number("samples", samples, minimum=1, maximum=MAX_DRAWS)
        temperature = real_number("temperature", temperature, "a number above 0", lambda v: v > 0)
        floor = real_number(
            "floor", floor, "a probability above 0 and below 1", lambda v: 0 < v < 1
        )
        cost = real_number("cost", cost, "a number of 0 or more", lambda v: v >= 0)
        # The softmax reads utility gaps (at most 4 + cost) over the temperature.
        if not math.isfinite((4 + cost) / temperature):
            raise InputError(
                f"cost {cost:g} over temperature {temperature:g} is beyond a float: "
                "choose a smaller cost or a larger temperature"
            )
        size, subset_seed = subset_arguments(sample, sample_seed)
        prior_file = file_name("prior", prior)
        weights = read_prior(user_path(prior_file), domains, tasks) if prior_file else None
        dataset, subset = coherence_dataset(domains, tasks, size, subset_seed)
    return Task(
        dataset=dataset,
        solver=infer_distribution(chosen, samples, floor),
        scorer=coherence_scorer(),
        metrics=coherence_metrics(weights, cost, temperature),
        # Room for the whole JSON answer (local models default to short replies).
        config=GenerateConfig(temperature=0.0, max_tokens=200),
        version="1-B",
        metadata={"estimator": estimator}
        | subset
        | ({PRIOR_DIGEST: content_digest(sorted(weights.items()))} if weights else {}),
    )


def _in_order(chosen: list[str], allowed: tuple[Choice, ...]) -> list[Choice]:
    """The chosen names in the order of `allowed` (the order of the metrics)."""
    return [choice for choice in allowed if choice in chosen]
