"""Scoring the false-belief battery (Kosinski, PNAS 2024).

A task is solved only if every prompt of its eight standard stories (16 prompts) is right.
Score.value holds numbers only: `solved` (the headline), `prompts` (share of the 16 right),
`on_key` (share of the 16 whose first word names one of the two key words: a model's reply
off key is scored wrong and counted here, never dropped), the share right per condition,
per prompt type (`reality`, `belief`) and for the original and reversed stories, and per
perturbation when the perturbed split is on. A key that does
not apply to a task (a transfer condition for a contents task) is NaN, which the metrics
skip, so each mean is over the tasks that have it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, grouped, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from tom_eval.false_belief.items import ALL_CONDITIONS, ALL_PERTURBATIONS, PROMPT_KINDS
from tom_eval.false_belief.parsing import on_key
from tom_eval.false_belief.solver import FalseBeliefRecord, PromptOutcome, StepOutcome
from tom_eval.refusal import logged_as, logged_store, refuse_other_tasks

VERSIONS = ("original", "reversed")


@metric(name="family")
def by_family() -> Metric:
    return grouped(mean(), "family", all=False)


def _metrics() -> dict[str, list[Metric]]:
    shares = (*ALL_CONDITIONS, *PROMPT_KINDS, *VERSIONS, *ALL_PERTURBATIONS)
    return {"solved": [mean(), stderr(), by_family()], "prompts": [mean(), by_family()]} | {
        key: [mean()] for key in ("on_key", *shares)
    }


def score_value(outcomes: Sequence[PromptOutcome]) -> dict[str, float]:
    standard = [outcome for outcome in outcomes if not outcome.perturbed]
    value = {
        "solved": float(bool(standard) and all(outcome.correct for outcome in standard)),
        "prompts": _share(standard),
        "on_key": _share(standard, lambda o: on_key(o.first_word, o.expected, o.wrong)),
    }
    for condition in ALL_CONDITIONS:
        value[condition] = _share([o for o in standard if o.condition == condition])
    for kind in PROMPT_KINDS:
        value[kind] = _share([o for o in standard if o.kind == kind])
    for version in VERSIONS:
        value[version] = _share([o for o in standard if o.reversed == (version == "reversed")])
    for perturbation in ALL_PERTURBATIONS:
        value[perturbation] = _share([o for o in outcomes if o.condition == perturbation])
    return value


def _share(
    outcomes: Sequence[PromptOutcome],
    counted: Callable[[PromptOutcome], bool] = lambda outcome: outcome.correct,
) -> float:
    """The share of `outcomes` that are `counted` (right, by default); NaN for none."""
    if not outcomes:
        return math.nan
    return sum(1 for outcome in outcomes if counted(outcome)) / len(outcomes)


def _outcomes(
    records: list[dict[str, Any]], kind: type[PromptOutcome], sample_id: object, what: str
) -> list[PromptOutcome]:
    """The outcomes of the logged prompts: the solver's, or, when a log edited by hand is
    scored again, refused in one line (`PromptOutcome`)."""
    return [
        logged_as(kind, record, sample_id, f"the logged {what} {number}", others=True)
        for number, record in enumerate(records, start=1)
    ]


def _line(outcome: PromptOutcome) -> str:
    story = outcome.condition + (" (reversed)" if outcome.reversed else "")
    said = outcome.first_word or "(no word)"
    expected = outcome.expected or f"not {outcome.wrong}"
    mark = "right" if outcome.correct else "WRONG"
    probability = (
        f", P(right key) {outcome.p_right:.2f} by {outcome.estimator}"
        if outcome.p_right is not None
        else ""
    )
    return f"{story}, {outcome.kind}: {said} (expected {expected}; {mark}{probability})"


@scorer(metrics=[_metrics()])
def false_belief_scorer() -> Scorer:
    """Scores each prompt's first word (or key-word probability) against its answer."""

    async def score(state: TaskState, target: Target) -> Score:
        needed = ("family", "key_words", "prompts")
        refuse_other_tasks(
            state.metadata, state.sample_id, needed, "tasks/false_belief.py", "false_belief_scorer"
        )
        record = logged_store(FalseBeliefRecord, state.sample_id)
        outcomes = _outcomes(record.completions, PromptOutcome, state.sample_id, "prompt")
        steps = _outcomes(record.steps, StepOutcome, state.sample_id, "sentence-step prompt")
        estimators = sorted({outcome.estimator for outcome in outcomes + steps})
        return Score(
            value=score_value(outcomes),
            answer=" ".join(str(outcome.first_word) for outcome in outcomes),
            explanation="\n".join(_line(outcome) for outcome in outcomes),
            # Every prompt's outcome travels with the score, where `tom-eval report` reads it.
            metadata={
                "estimators": estimators,
                "prompts": [asdict(outcome) for outcome in outcomes],
                "steps": [asdict(step) for step in steps],
            },
        )

    return score
