"""Scoring IKD, implausible knowledge detection (Yang et al. 2026).

The reply's "Conclusion" (Yes: a logic error) classifies the story; the sentences it quotes
under "Logical Error" localise the error. Score.value keys, each a mean over the stories it
applies to (NaN elsewhere, which the metrics skip):
* `classification` (full set; the headline, with standard error, Wilson interval and per
  genre), `classification_original` (the seed's "Pos Cls") and `classification_error`
  ("Neg Cls");
* `localisation` (full set, "Full Loc") and `localisation_error` ("Neg Loc"), as the
  seed's section 3.2 defines them: an original story scores 1 when called consistent; an
  erroneous story scores the word-level IoU of the quote with the gold span when called
  inconsistent, else 0. An erroneous story without a gold span is left out of both;
* `iou_detected`: the mean IoU over the erroneous stories called inconsistent (ours);
* `called_error`: the share of stories called inconsistent (the paper's judgment bias);
* `invalid`: the share of replies with no readable conclusion (counted wrong, and
  localised as not detected).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import (
    Metric,
    Score,
    Scorer,
    Target,
    accuracy,
    mean,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from tom_eval.intervals import wilson_interval
from tom_eval.knowledge.dataset import IkdMetadata
from tom_eval.knowledge.metrics import headline
from tom_eval.knowledge.parsing import Verdict, read_verdict, word_iou
from tom_eval.refusal import logged_as, refuse_other_tasks, refused

NAN = math.nan


def ikd_metrics() -> dict[str, list[Metric]]:
    return {
        "classification": headline(),
        "classification_original": [accuracy(), wilson_interval()],
        "classification_error": [accuracy(), wilson_interval()],
        "localisation": [mean(), stderr()],
        "localisation_error": [mean(), stderr()],
        "iou_detected": [mean()],
        "called_error": [mean()],
        "invalid": [mean()],
    }


def ikd_value(verdict: Verdict, erroneous: bool, gold: str) -> dict[str, float]:
    correct = float(verdict.error_found is not None and verdict.error_found == erroneous)
    detected = erroneous and verdict.error_found is True
    iou = word_iou(gold, verdict.quote) if detected else 0.0
    localisation = correct if not erroneous else iou if gold else NAN
    return {
        "classification": correct,
        "classification_original": NAN if erroneous else correct,
        "classification_error": correct if erroneous else NAN,
        "localisation": localisation,
        "localisation_error": localisation if erroneous else NAN,
        "iou_detected": iou if detected and gold else NAN,
        "called_error": float(verdict.error_found is True),
        "invalid": float(verdict.error_found is None),
    }


def _explanation(verdict: Verdict, erroneous: bool, gold: str, iou: float) -> str:
    said = {True: "Yes (a logic error)", False: "No (consistent)", None: "no conclusion"}
    truth = "an erroneous story" if erroneous else "an original story"
    lines = [f"{said[verdict.error_found]} for {truth} (read from {verdict.method})"]
    if erroneous and verdict.error_found:
        lines.append(f"quoted: {verdict.quote or '(nothing)'}")
        lines.append(
            f"word IoU with the gold span: {iou:.2f}"
            if gold
            else "the story has no gold span: left out of localisation"
        )
    return "\n".join(lines)


@scorer(metrics=[ikd_metrics()])
def ikd_scorer() -> Scorer:
    """The conclusion against the story's kind; the quote against the gold error span."""

    async def score(state: TaskState, target: Target) -> Score:
        refuse_other_tasks(state.metadata, state.sample_id, ("kind",), "tasks/ikd.py", "ikd_scorer")
        story = logged_as(IkdMetadata, state.metadata, state.sample_id, "the metadata", others=True)
        if story.kind == "error" and "gold" not in state.metadata:  # it would leave localisation
            raise refused(
                f"sample {state.sample_id}: an erroneous story's metadata has no 'gold'; was "
                "the log edited?"
            )
        verdict = read_verdict(state.output.completion)
        erroneous, gold = story.kind == "error", story.gold
        value = ikd_value(verdict, erroneous, gold)
        return Score(
            value=value,
            answer={True: "Yes", False: "No", None: ""}[verdict.error_found],
            explanation=_explanation(verdict, erroneous, gold, value["iou_detected"]),
            metadata={"quote": verdict.quote, "method": verdict.method},
        )

    return score
