"""Scoring KNP, knowledge-sensitive next-action prediction (Yang et al. 2026).

Binary choice (`knp_scorer`): the letter is read from the reply's "Answer:" line, with
fallbacks (`tom_eval/knowledge/parsing.py`). Score.value holds `accuracy` (chose the action
without the knowledge the character cannot have; the headline, with its standard error,
Wilson interval and per genre), `knowledge_leak` (chose the action that uses that
knowledge), `invalid` (no letter could be read; counted wrong and not a leak) and
`without_knowledge` (the choice, NaN when invalid), which `order_consistency` reads when
both option orders are played.

Open-ended (`knp_judge_scorer`): the model's predicted action is judged by the `grader`
model role with the seed's Table 10 prompt. True is right, False a knowledge leak, NA
(related to neither action) is left out of accuracy and leak, as in the paper, and counted
in `na`; a judge reply that is none of the three is counted in `invalid`. A reply without
a predicted action (no words) is not judged: it is counted in `no_answer`, wrong and not a
leak, as an unreadable letter is in the binary format.
"""

from __future__ import annotations

import math

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import (
    Metric,
    Score,
    Scorer,
    Target,
    mean,
    scorer,
)
from inspect_ai.solver import TaskState

from tom_eval.intervals import wilson_interval
from tom_eval.knowledge.dataset import KnpMetadata
from tom_eval.knowledge.metrics import headline, order_consistency
from tom_eval.knowledge.parsing import (
    JudgeVerdict,
    choice_letter,
    judge_verdict,
    open_answer,
    words,
)
from tom_eval.knowledge.prompts import judge_prompt
from tom_eval.refusal import logged_as, refuse_other_tasks, refused


def knp_metrics(both_orders: bool) -> dict[str, list[Metric]]:
    metrics: dict[str, list[Metric]] = {
        "accuracy": headline(),
        "knowledge_leak": [mean(), wilson_interval()],
        "invalid": [mean()],
    }
    if both_orders:
        metrics["without_knowledge"] = [order_consistency()]
    return metrics


def choice_value(letter: str | None, right: str) -> dict[str, float]:
    return {
        "accuracy": float(letter == right),
        "knowledge_leak": float(letter not in (None, right)),
        "invalid": float(letter is None),
        "without_knowledge": math.nan if letter is None else float(letter == right),
    }


@scorer(metrics=[knp_metrics(both_orders=False)])
def knp_scorer() -> Scorer:
    """The chosen letter against the right one (the action without the knowledge)."""

    async def score(state: TaskState, target: Target) -> Score:
        needed = ("correct_letter", "options")
        refuse_other_tasks(state.metadata, state.sample_id, needed, "tasks/knp.py", "knp_scorer")
        choice = logged_as(
            KnpMetadata, state.metadata, state.sample_id, "the metadata", others=True
        )
        right, options = choice.correct_letter, choice.options
        if right not in options:  # only a log edited by hand, scored again
            raise refused(
                f"sample {state.sample_id}: the right letter {right!r:.60} is none of the "
                f"options' ({', '.join(options)}); was the log edited?"
            )
        letter, method = choice_letter(state.output.completion, options)
        if letter is None:
            explanation = "no answer letter could be read: invalid"
        else:
            action = "without" if letter == right else "WITH"
            explanation = f"chose {letter} ({method}), the action {action} the knowledge"
        return Score(
            value=choice_value(letter, right),
            answer=letter or "",
            explanation=explanation,
            metadata={"method": method},
        )

    return score


JUDGE_CONFIG = GenerateConfig(temperature=0.0)


def judge_metrics() -> dict[str, list[Metric]]:
    return {
        "accuracy": headline(),
        "knowledge_leak": [mean()],
        "na": [mean()],
        "no_answer": [mean()],
        "invalid": [mean()],
    }


def judged_value(verdict: JudgeVerdict | None) -> dict[str, float]:
    judged = verdict in ("True", "False")
    return {
        "accuracy": float(verdict == "True") if judged else math.nan,
        "knowledge_leak": float(verdict == "False") if judged else math.nan,
        "na": float(verdict == "NA"),
        "no_answer": 0.0,
        "invalid": float(verdict is None),
    }


def unanswered_value() -> dict[str, float]:
    """A reply without a predicted action, not judged (a judge shown no action might say
    anything): the model's failure, so counted wrong, where the judge's (`invalid`) are
    left out."""
    return {"accuracy": 0.0, "knowledge_leak": 0.0, "na": 0.0, "no_answer": 1.0, "invalid": 0.0}


@scorer(metrics=[judge_metrics()])
def knp_judge_scorer() -> Scorer:
    """The predicted action judged by the `grader` role (the evaluated model itself when
    no `--model-role grader=...` is given; the paper's judge was GPT-5)."""

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        needed = ("story", "question", "answer_without_knowledge", "answer_with_knowledge")
        refuse_other_tasks(meta, state.sample_id, needed, "tasks/knp.py", "knp_judge_scorer")
        grader = get_model(role="grader")
        predicted = open_answer(state.output.completion)
        if not words(predicted):
            return Score(
                value=unanswered_value(),
                answer=predicted,
                explanation="no predicted action: not judged (counted in no_answer, wrong)",
                metadata={"verdict": None, "grader": str(grader)},
            )
        prompt = judge_prompt(
            meta["story"],
            meta["question"],
            predicted,
            meta["answer_without_knowledge"],
            meta["answer_with_knowledge"],
        )
        reply = await grader.generate(prompt, config=JUDGE_CONFIG)
        verdict = judge_verdict(reply.completion)
        return Score(
            value=judged_value(verdict),
            answer=predicted,
            explanation=f"judge ({grader}): {reply.completion.strip()}",
            metadata={"verdict": verdict, "grader": str(grader)},
        )

    return score
