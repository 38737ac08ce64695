"""Scoring the Ask/Tell/Pass game (docs/game.md).

Each sample's Score.value holds numbers only, so epoch reducers average them correctly:
optimal, lies_okay, valid, regret, points, lie_to_opponent, and answer_correct (NaN,
i.e. unscored, when A was not the answerer). The engine (`tom_eval.game.oracle.solve`) decides
what is optimal and what each action is worth; nothing is looked up.

Metrics, the few a run shows at its end: balanced accuracy over the expected-action classes
(the headline: always-Pass scores about 81% plain accuracy but exactly 1/3 balanced), then
the mean of the keys people read first (`SHOWN_KEYS`). Every other figure (intervals, the
breakdowns by Id, Extra, answerer and expected action, the mastery categories, the
gratuitous-lie rate, the other keys) is computed from the samples by `tom-eval report`
(`tom_eval.game.analysis`), which costs the run nothing. Each metric reads the whole score
dict of every sample: a per-key metric dict would have Inspect deep-copy every sample's
score and metadata once per key, each time it updates the metrics during the run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, fields
from typing import Protocol

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    Value,
    metric,
    score_reducer,
    scorer,
)
from inspect_ai.solver import TaskState

from tom_eval.errors import InputError
from tom_eval.game.dataset import PlayedRules
from tom_eval.game.decisions import PASS, Action, guaranteed_value, is_legal
from tom_eval.game.oracle import Solution, shared_solution
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import read_story_fields
from tom_eval.game.solver import GameRecord, take_record
from tom_eval.game.span import LadderTrial, level_shares, span
from tom_eval.game.world import NOTHING, OPPONENTS, SELF
from tom_eval.refusal import logged_as, refuse_other_tasks, refused
from tom_eval.report.stats import balanced_point


class Played(Protocol):
    """What the scorer needs of a played turn (`solver.GameRecord`, or a full game's
    `TurnRecord`)."""

    @property
    def blue(self) -> float: ...
    @property
    def red(self) -> float: ...
    @property
    def answer_correct(self) -> bool: ...
    @property
    def answer_problem(self) -> str | None: ...
    @property
    def slips(self) -> list[str]: ...


def score_value(
    solution: Solution, chosen: Action | None, record: Played, response_format: str
) -> dict[str, float]:
    """The numbers of one sample. An unreadable reply is invalid and never optimal; its
    regret is that of the Pass the game played instead. The answer keys are NaN (unscored)
    when A was not the one asked; `format_ok` (every reply on its tagged line) is NaN
    outside the `free` format, which alone asks for tagged lines."""
    scenario = solution.scenario
    a_answers = scenario.answerer == SELF
    optimal = chosen == solution.decision.optimal
    lie = chosen is not None and is_lie_to_opponent_answerer(solution, chosen)
    best = guaranteed_value(solution.situation, solution.decision.optimal)
    return {
        "optimal": float(optimal),
        "lies_okay": float(optimal or lie),
        "valid": float(chosen is not None),
        "regret": best - guaranteed_value(solution.situation, chosen or PASS),
        "points": record.blue - record.red,
        "answer_correct": float(record.answer_correct) if a_answers else math.nan,
        "answer_valid": float(record.answer_problem is None) if a_answers else math.nan,
        "lie_to_opponent": float(lie),
        "format_ok": float(not record.slips) if response_format == "free" else math.nan,
    }


def logged_action(text: str | None, solution: Solution, what: str) -> Action | None:
    """The action a logged turn chose (None: the reply could not be read), refused in one
    line when a log edited by hand holds one that is not canonical or not legal in the
    turn's story (a player or container it lacks), which the engine cannot value; a Tell
    of an item the game lacks is legal (`is_legal`)."""
    if text is None:
        return None
    try:
        chosen = Action.from_text(text)
    except ValueError as error:
        raise refused(f"{what}: {error}; was the log edited?") from None
    if not is_legal(solution.situation, chosen):
        raise refused(f"{what} {text!r} is not one of the story's; was the log edited?")
    return chosen


def is_lie_to_opponent_answerer(solution: Solution, action: Action) -> bool:
    """A told the answering opponent, about the question container, something other than
    what A believes is there (the reference judged the told container instead)."""
    scenario = solution.scenario
    return (
        action.kind == "tell"
        and scenario.answerer in OPPONENTS
        and action.player == scenario.answerer
        and action.container == scenario.question
        and action.contents != (solution.assessment.self_belief or NOTHING)
    )


def _value(sample: SampleScore, key: str) -> float:
    value = sample.score.value
    assert isinstance(value, dict), "tom_scorer values are dicts"
    return float(value[key])


@metric
def balanced_accuracy() -> Metric:
    """Mean over expected-action classes (Pass, Ask Teammate, Tell Teammate) of the share
    of optimal actions in that class: a constant policy scores 1/3 whatever the mix, when
    all three are played (over the classes a run has otherwise: `tom-eval report` says so)."""

    def compute(scores: list[SampleScore]) -> Value:
        return balanced(
            (str((sample.sample_metadata or {})["expected_action"]), _value(sample, "optimal"))
            for sample in scores
        )

    return compute


def balanced(outcomes: Iterable[tuple[str, float]]) -> float:
    """Mean over classes of the mean outcome in each class ((class, outcome) pairs)."""
    by_class: dict[str, list[float]] = defaultdict(list)
    for expected, outcome in outcomes:
        by_class[expected].append(outcome)
    return balanced_point(list(by_class.values()))


SHOWN_KEYS = ("optimal", "lies_okay", "valid", "regret", "points", "answer_correct")
"""The score keys whose mean a run shows after the headline."""


def key_mean(key: str) -> Metric:
    """The mean of one score key over the samples that score it (NaN: unscored), registered
    under the key's name."""

    def key_mean_metric() -> Metric:
        def compute(scores: list[SampleScore]) -> Value:
            values = [value for sample in scores if not math.isnan(value := _value(sample, key))]
            return sum(values) / len(values) if values else math.nan

        return compute

    return metric(name=key)(key_mean_metric)()


def tom_metrics() -> list[Metric]:
    """The metrics of `tom_scorer`, the headline first (Inspect's headline is the first)."""
    return [balanced_accuracy(), *(key_mean(key) for key in SHOWN_KEYS)]


@metric(name="ladder")
def ladder_span() -> Metric:
    """A load ladder's curve and span (`tom_eval.game.span`): the measured balanced
    accuracy at each level with its 95% interval, and the span with its bootstrap interval
    over base stories (inf: beyond the ladder; NaN: no span, at chance from level 0)."""

    def compute(scores: list[SampleScore]) -> Value:
        trials = [ladder_trial(sample) for sample in scores]
        found = span(trials)
        values = {"span": found.level, "span_low": found.low, "span_high": found.high}
        if found.status == "beyond":
            values["span"] = math.inf
        for level, (share, low, high, _) in level_shares(trials).items():
            values.update({f"level_{level:g}": share, f"level_{level:g}_low": low})
            values[f"level_{level:g}_high"] = high
        return values

    return compute


def ladder_trial(sample: SampleScore) -> LadderTrial:
    metadata = sample.sample_metadata or {}
    return LadderTrial(
        str(metadata["base_story"]),
        str(metadata["expected_action"]),
        float(metadata["level"]),
        _value(sample, "optimal"),
    )


def ladder_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """The metrics of a load ladder's run: the scorer's, then its curve and span."""
    return [*tom_metrics(), ladder_span()]


@scorer(metrics=tom_metrics())
def tom_scorer() -> Scorer:
    """Scores A's action against the engine, and the turn's points."""

    async def score(state: TaskState, target: Target) -> Score:
        record = played_turn(state)
        # Only a log edited by hand, scored again, holds a story, a rule or an action the
        # task does not write.
        try:
            story = read_story_fields(state.metadata["story"], str(state.sample_id))
        except InputError as error:  # it names the sample
            raise refused(f"sample {error}; was the log edited?") from None
        played = logged_as(
            PlayedRules, state.metadata, state.sample_id, "the metadata", others=True
        )
        # The rules the turn was played under: they set what each action is worth.
        solution = shared_solution(story, Rules(lose=played.lose), played.neutral)
        what = f"sample {state.sample_id}: the logged turn's action"
        chosen = logged_action(record.action, solution, what)
        value = score_value(solution, chosen, record, record.response_format)
        return Score(
            value=value,
            answer=record.action or "invalid",
            explanation=_explanation(record, solution, value["regret"]),
            metadata=asdict(record),
        )

    return score


def _explanation(record: GameRecord, solution: Solution, regret: float) -> str:
    """The turn at a glance (Inspect View's Scoring tab): the action, the engine's, the
    answer and the points. Here rather than in an info event of the transcript, whose
    handling cost Inspect about 0.2 ms a sample (a run at zero latency takes 13 ms)."""
    truth, question = solution.truth or "nothing", solution.scenario.question
    return (
        f"**Action** {record.action or 'unreadable'}"
        + (f" ({record.action_problem}; played as Pass)" if record.action_problem else "")
        + f"  \n**Engine's optimal action** {solution.decision.optimal} (regret {regret:g})  \n"
        f"**{record.answerer} answers** {record.answer or 'nothing readable'} "
        f"({'right' if record.answer_correct else 'wrong'}; the {question} holds {truth})  \n"
        f"**Points** Blue {record.blue:+g}, Red {record.red:+g}"
    )


_GAME_FIELDS = ("story", "lose", "neutral")
"""The sample metadata the scorer reads besides the turn."""


def played_turn(state: TaskState) -> GameRecord:
    """The turn the solver just played, or, when a log is scored again (`inspect score
    --action append`), the turn as the log's earlier score recorded it."""
    record = take_record(state)
    if record is not None:
        return record
    if "stories" in state.metadata:
        raise refused(
            f"sample {state.sample_id}: a whole game of tasks/tom.py (-T mode=game): score "
            "it with scorers/game.py@game_scorer"
        )
    # KNP and IKD samples carry a story too: the rules tell the game's apart.
    refuse_other_tasks(state.metadata, state.sample_id, _GAME_FIELDS, "tasks/tom.py", "tom_scorer")
    logged = (state.scores or {}).get("tom_scorer")
    metadata = (logged.metadata if logged else None) or {}
    # A record of another shape is a log from before 2-C; one of a key or two more or less, edited.
    recorded = {field.name for field in fields(GameRecord)}
    if len(recorded & set(metadata)) < len(recorded) / 2:
        raise refused(
            f"sample {state.sample_id}: no played turn to score; score a log again with "
            "`inspect score --action append` (the turn is read from its earlier score, "
            "which tasks/tom.py logs from version 2-C)"
        )
    return logged_as(GameRecord, metadata, state.sample_id, "the logged turn")


@score_reducer(name="key_mean")
def key_mean_reducer() -> ScoreReducer:
    """The epochs of a sample reduced to the mean of each score key over the epochs that
    score it (NaN: unscored), as Inspect's `mean` does. Inspect's reduces every sample,
    each time it updates the metrics, with exact fractions (`statistics.mean`): on a run of
    one epoch that was a tenth of the harness's time. A single epoch passes unchanged."""

    def reduce(scores: list[Score]) -> Score:
        if len(scores) == 1:
            return scores[0]
        values = [score.value for score in scores if isinstance(score.value, dict)]
        means: dict[str, float] = {}
        for key in values[0] if values else ():
            scored = [float(v[key]) for v in values if not math.isnan(float(v[key]))]
            means[key] = sum(scored) / len(scored) if scored else math.nan
        first = scores[0]
        return Score(
            value=means or math.nan,
            answer=first.answer if len({s.answer for s in scores}) == 1 else None,
            explanation=first.explanation if len({s.explanation for s in scores}) == 1 else None,
            metadata=first.metadata,
        )

    return reduce
