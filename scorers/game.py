"""Scoring the full game (`-T mode=game`, docs/game.md per A turn, plus the race).

Each game's Score.value holds numbers only (NaN when a game gave no occasion):

* the race: win, tie, loss (1 or 0 for Blue), margin (Blue minus Red), turns played;
* A's own turns, averaged over the game: optimal, lies_okay, valid, regret and
  lie_to_opponent, exactly as one turn is scored in trial mode (`scorers.tom.score_value`);
* A's answers on any turn: answer_correct, answer_valid;
* A's replies when another player asked it: reply_truthful_to_teammate, and, to
  opponents, reply_lie_to_opponent and reply_refused_to_opponent (where strategic
  lying lives);
* fooled: among A's answers after an opponent told A something false (and other than
  what A believed), the share that repeat the lie.

Metrics: mean and interval of each; and, pooled over every A turn of every game (so a
short game weighs less), the trial-mode headline numbers: optimal, balanced accuracy over
the expected-action classes, and the mastery categories.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    Value,
    mean,
    metric,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from scorers.tom import balanced, key_mean_reducer, logged_action, score_value
from tom_eval.errors import InputError
from tom_eval.game.dataset import GameMetadata, GameStoryEntry
from tom_eval.game.decisions import Action
from tom_eval.game.full_game import TurnPlan, Winner
from tom_eval.game.mastery import mastery_scores
from tom_eval.game.oracle import solve
from tom_eval.game.rules import Rules, same_team
from tom_eval.game.session import A_TURN_KEYS, TurnRecord
from tom_eval.game.solver import GameLog, game_plan
from tom_eval.game.spec import read_mastery
from tom_eval.game.world import SELF
from tom_eval.intervals import wilson_interval
from tom_eval.refusal import logged_as, logged_store, refuse_other_tasks, refused


def _per_key_metrics() -> dict[str, list[Metric]]:
    rates = ("win", "tie", "loss", "answer_correct", "fooled")
    replies = ("reply_truthful_to_teammate", "reply_lie_to_opponent", "reply_refused_to_opponent")
    metrics: dict[str, list[Metric]] = {key: [mean(), wilson_interval()] for key in rates}
    metrics |= {key: [mean(), stderr()] for key in ("margin", "turns", *A_TURN_KEYS)}
    metrics |= {key: [mean()] for key in (*replies, "answer_valid")}
    return metrics


def _a_turns(sample: SampleScore) -> list[dict[str, Any]]:
    metadata = sample.score.metadata or {}
    return list(metadata.get("a_turns", []))


@metric
def a_turns() -> Metric:
    """Pooled over every A turn of every game: optimal rate, balanced accuracy over the
    expected-action classes (the trial-mode headline) and mean regret."""

    def compute(scores: list[SampleScore]) -> Value:
        turns = [turn for sample in scores for turn in _a_turns(sample)]
        if not turns:
            return {"count": 0}
        return {
            "count": len(turns),
            "optimal": sum(turn["optimal"] for turn in turns) / len(turns),
            "balanced_accuracy": balanced(
                (turn["expected_action"], turn["optimal"]) for turn in turns
            ),
            "regret": sum(turn["regret"] for turn in turns) / len(turns),
        }

    return compute


@metric(name="mastery")
def a_turn_mastery() -> Metric:
    """The mastery categories of scenarios/mastery.yaml over every A turn of every game."""
    categories = read_mastery()

    def compute(scores: list[SampleScore]) -> Value:
        turns = [turn for sample in scores for turn in _a_turns(sample)]
        return mastery_scores(
            categories,
            [(int(turn["id"]), {key: turn[key] for key in A_TURN_KEYS}) for turn in turns],
        )

    return compute


@scorer(metrics=[_per_key_metrics(), a_turns(), a_turn_mastery()])
def game_scorer() -> Scorer:
    """Scores a whole game: the race, and A's turns against the engine."""

    async def score(state: TaskState, target: Target) -> Score:
        if {"story", "lose", "neutral"}.issubset(state.metadata):
            raise refused(
                f"sample {state.sample_id}: a trial of tasks/tom.py, not a whole game: score "
                "it with scorers/tom.py@tom_scorer"
            )
        refuse_other_tasks(
            state.metadata,
            state.sample_id,
            ("stories", "lose", "neutral"),
            "tasks/tom.py -T mode=game",
            "game_scorer",
        )
        log = logged_store(GameLog, state.sample_id)
        # No winner: a limit that cancels the sample (`--time-limit`) stopped the game, which
        # is scored as it stood after its last whole turn.
        winner = log.winner or _leader(log)
        game = logged_as(GameMetadata, state.metadata, state.sample_id, "the metadata", others=True)
        plan, entries = _plan(state.metadata, game, state.sample_id)
        records = [
            _turn(turn, number, plan, state.sample_id)
            for number, turn in enumerate(log.turns, start=1)
        ]
        rules = Rules(lose=game.lose)
        turn_values: list[dict[str, Any]] = []
        for record in records:
            if record.owner != SELF:
                continue
            # A sits in the acting seat of the designed story on its own turns.
            story = plan[record.number - 1].designed
            solution = solve(story, rules, with_neutral=game.neutral)
            what = f"sample {state.sample_id}: the logged turn {record.number}'s action"
            chosen = logged_action(record.action, solution, what)
            entry = entries[record.key]
            turn_values.append(
                {
                    **score_value(solution, chosen, record, log.response_format),
                    "number": record.number,
                    "key": record.key,
                    "id": entry.id,
                    "extra": entry.extra,
                    "expected_action": entry.expected_action,
                }
            )
        value = {
            **_race(winner, log, len(records)),
            **{key: _mean([turn[key] for turn in turn_values]) for key in A_TURN_KEYS},
            **_answers_and_replies(records),
        }
        return Score(
            value=value,
            answer=winner or "no result",
            explanation=(
                ("" if log.winner else STOPPED)
                + (PLAYED_OUT.format(log.stopped_by) if log.stopped_by else "")
                + f"{winner or 'no result'} after {len(records)} turns: "
                + f"Blue {log.blue:g}, Red {log.red:g} "
                f"(winning score {log.winning_score}); A played {len(turn_values)} turns, "
                f"{sum(turn['optimal'] for turn in turn_values):g} optimally"
            ),
            metadata={"a_turns": turn_values},
        )

    return score


def _plan(
    metadata: dict[str, Any], game: GameMetadata, sample_id: object
) -> tuple[tuple[TurnPlan, ...], dict[str, GameStoryEntry]]:
    """The game's turns and its designed stories by key, as its metadata gives them; a log
    edited by hand, scored again, is refused in one line."""
    entries = {}
    for index, entry in enumerate(game.stories, start=1):
        read = logged_as(
            GameStoryEntry, entry, sample_id, f"the metadata's story {index}", others=True
        )
        entries[read.key] = read
    try:
        return game_plan(metadata, str(sample_id)), entries
    except InputError as error:  # it names the sample
        raise refused(f"sample {error}; was the log edited?") from None


def _turn(values: object, number: int, plan: tuple[TurnPlan, ...], sample_id: object) -> TurnRecord:
    """The logged turn `number` read back, refused in one line when a log edited by hand
    gives it another place in the game (number, owner, story) or an action that is not
    canonical."""
    record = logged_as(TurnRecord, values, sample_id, f"the logged turn {number}")
    what = f"sample {sample_id}: the logged turn {number}"
    if number > len(plan) or record.number != number:
        raise refused(
            f"{what} is numbered {record.number}, not {number}, in a game of {len(plan)} "
            "turns; was the log edited?"
        )
    planned = plan[number - 1]
    if (record.owner, record.key) != (planned.owner, planned.key):
        raise refused(
            f"{what} is {record.owner}'s on {record.key}, not {planned.owner}'s on "
            f"{planned.key}; was the log edited?"
        )
    try:
        Action.from_text(record.executed)
    except ValueError as error:
        raise refused(f"{what}'s executed action: {error}; was the log edited?") from None
    return record


@score_reducer(name="game_mean")
def game_mean_reducer() -> ScoreReducer:
    """A game's epochs reduced as `key_mean` reduces a turn's, with every epoch's A turns in
    the metadata: Inspect's reducers keep the first epoch's metadata alone, so the metrics
    pooled over A's turns would count the first epoch's turns only."""
    mean_of_keys = key_mean_reducer()

    def reduce(scores: list[Score]) -> Score:
        reduced = mean_of_keys(scores)
        if len(scores) == 1:
            return reduced
        turns = [turn for score in scores for turn in (score.metadata or {}).get("a_turns", [])]
        return reduced.model_copy(update={"metadata": {"a_turns": turns}})

    return reduce


STOPPED = "stopped before its end (a sample limit, or an error), scored as it stood: "
PLAYED_OUT = "A's replies stopped at {}; played out with them empty (A passing): "
"""A game a token or message limit stopped, which the solver plays out (`GameLog.stopped_by`)."""


def _leader(log: GameLog) -> Winner | Literal[""]:
    """The side ahead in a game stopped before its end; none before its first whole turn
    (win, tie and loss all 0, rather than a tie for a game that never began)."""
    if not log.turns:
        return ""
    return "blue" if log.blue > log.red else "red" if log.red > log.blue else "tie"


def _race(winner: Winner | Literal[""], log: GameLog, turns: int) -> dict[str, float]:
    return {
        "win": float(winner == "blue"),
        "tie": float(winner == "tie"),
        "loss": float(winner == "red"),
        "margin": log.blue - log.red,
        "turns": float(turns),
    }


def _answers_and_replies(records: list[TurnRecord]) -> dict[str, float]:
    answered = [record for record in records if record.answerer == SELF]
    to_teammate = [
        record.reply_to_ask_kind
        for record in records
        if record.reply_to_ask_kind is not None and same_team(record.owner, SELF)
    ]
    to_opponent = [
        record.reply_to_ask_kind
        for record in records
        if record.reply_to_ask_kind is not None and not same_team(record.owner, SELF)
    ]
    lied_to = [(record, lie) for record in answered if (lie := _lie_heard(record)) is not None]
    return {
        "answer_correct": _mean([float(record.answer_correct) for record in answered]),
        "answer_valid": _mean([float(record.answer_problem is None) for record in answered]),
        "reply_truthful_to_teammate": _share(to_teammate, "truthful"),
        "reply_lie_to_opponent": _share(to_opponent, "lie"),
        "reply_refused_to_opponent": _share(to_opponent, "refused"),
        "fooled": _mean([float(record.answer == lie) for record, lie in lied_to]),
    }


def _lie_heard(record: TurnRecord) -> str | None:
    """What an opponent falsely told A of the question container on this turn, if it did:
    a Tell to A, or its reply when A asked it. An honest player's mistaken belief is no lie;
    a lie that names A's own belief is left out: repeating it cannot be told apart from A's
    keeping its belief."""
    if record.lie_to_self is False:
        return None
    heard = None
    if record.told_self is not None and not same_team(record.owner, SELF):
        heard = record.told_self
    elif record.owner == SELF and record.reply is not None:
        asked = Action.from_text(record.executed)
        if asked.player is not None and not same_team(asked.player, SELF):
            heard = record.reply if asked.container == record.question else None
    if heard in (None, record.truth, record.self_belief):
        return None
    return heard


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _share(kinds: Sequence[str | None], kind: str) -> float:
    return _mean([float(item == kind) for item in kinds])
