"""`-T mode=game` end to end through Inspect: whole games against the reference players
and scripted models (with token usage, so nothing needs the network)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

from conftest import inspect_eval
from scorers.game import PLAYED_OUT, STOPPED
from tasks.tom import tom
from tom_eval.game.session import TurnRecord

GAME = {"mode": "game", "games": 3, "turns": 8, "ids": "7-24", "reps": 2}


def run(
    tmp_path: Path, model: Model | str, limits: dict[str, int] | None = None, **task_args: Any
) -> EvalLog:
    (log,) = inspect_eval(
        tom(**{**GAME, **task_args}),
        model=model,
        log_dir=str(tmp_path),
        display="none",
        **(limits or {}),
    )
    assert log.status == "success", log.error
    return log


def turn_records(log: EvalLog, sample: int = 0) -> list[TurnRecord]:
    store = (log.samples or [])[sample].store
    return [TurnRecord(**turn) for turn in store["GameLog:turns"]]


def test_the_oracle_ties_each_game_and_view_shows_a_span_per_turn(tmp_path: Path) -> None:
    log = run(tmp_path, "tom/oracle", response_format="free")
    assert len(log.samples or []) == 3
    for index, stored in enumerate(log.samples or []):
        sample = resolve_sample_attachments(stored)
        assert sample.scores is not None
        value = sample.scores["game_scorer"].value
        assert isinstance(value, dict)
        assert (value["tie"], value["margin"], value["optimal"]) == (1.0, 0.0, 1.0)
        records = turn_records(log, index)
        assert [record.owner for record in records] == ["A", "C", "B", "D"] * (len(records) // 4)
        spans = [
            event.name
            for event in sample.events
            if event.event == "span_begin" and event.name.startswith("turn ")
        ]
        owners = [f"{record.owner}'s" for record in records]
        assert spans == [
            f"turn {number}: {owner} turn" for number, owner in enumerate(owners, start=1)
        ]
        infos = [event for event in sample.events if event.event == "info"]
        assert len(infos) == len(records)
        assert "What A saw" in str(infos[0].data) and "TURN 1 OF 8" in str(infos[0].data)
    assert log.results is not None
    pooled = {score.name: score for score in log.results.scores}["game_scorer"]
    assert pooled.metrics["count"].value > 0
    assert pooled.metrics["balanced_accuracy"].value == 1.0


def echo_model(seen: list[list[ChatMessage]]) -> Model:
    """Passes, answers "nothing" and refuses every Ask, recording each call's input."""

    def reply(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        seen.append(list(messages))
        last = messages[-1].text
        text = (
            "Pass" if "It is your turn" in last else "refuse" if "asks you" in last else "nothing"
        )
        output = ModelOutput.from_content(model="mockllm/model", content=text)
        output.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return output

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


@pytest.mark.parametrize("limits", [{"token_limit": 15}, {"message_limit": 4}])
def test_a_game_a_sample_limit_stops_is_played_out_and_scored(
    tmp_path: Path, limits: dict[str, int]
) -> None:
    """The replies after the limit are empty (unreadable, played as Pass): the game has a
    winner to score, and the log the limit (it was a run error: "no winner")."""
    seen: list[list[ChatMessage]] = []
    log = run(tmp_path, echo_model(seen), limits, response_format="action", games=1)
    (sample,) = log.samples or []
    assert sample.limit is not None and sample.scores is not None
    assert len(seen) <= 2 and sample.store["GameLog:winner"] in ("blue", "red", "tie")
    a_turns = [record for record in turn_records(log) if record.owner == "A"]
    assert a_turns and a_turns[-1].action is None
    # Every reply after the limit names it, not the reader ("empty reply").
    (kind,) = limits
    stopped = f"no reply: the sample stopped at its {kind.removesuffix('_limit')} limit"
    assert str(a_turns[-1].action_problem).startswith(stopped)
    explanation = str(sample.scores["game_scorer"].explanation)
    assert explanation.startswith(PLAYED_OUT.split("{}")[0]), explanation
    assert f"its {kind.removesuffix('_limit')} limit at turn " in explanation


def test_a_game_a_time_limit_cancels_is_scored_as_it_stood(tmp_path: Path) -> None:
    """`--time-limit` cancels the sample inside a call, where the solver cannot play on: the
    turns done and the standing after them are scored (it was a run error: "no winner")."""
    slow = get_model("tom/oracle", latency=2.0)
    (log,) = inspect_eval(
        tom(mode="game", games=1, turns=8, ids="7-24", reps=2),
        model=slow,
        log_dir=str(tmp_path),
        display="none",
        time_limit=3,
    )
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    assert sample.limit is not None and sample.limit.type == "time"
    assert sample.scores is not None and sample.store["GameLog:winner"] == ""
    score = sample.scores["game_scorer"]
    assert str(score.explanation).startswith(STOPPED)
    value = score.value
    assert isinstance(value, dict)
    # The side ahead wins; before the first whole turn there is no result at all.
    assert value["win"] + value["tie"] + value["loss"] == (1.0 if value["turns"] else 0.0)


@pytest.mark.parametrize("history", ["none", "full", "actions"])
def test_history_modes_shape_the_conversation(tmp_path: Path, history: str) -> None:
    seen: list[list[ChatMessage]] = []
    log = run(tmp_path, echo_model(seen), response_format="action", history=history, games=1)
    records = turn_records(log)
    a_turns = [record.number for record in records if record.owner == "A"]
    assert seen, "A moved at least once"
    for call, messages in enumerate(seen):
        roles = [message.role for message in messages]
        assert roles[0] == "system" and roles[-1] == "user"
        headers = [m.text.count("\nTURN ") + m.text.startswith("TURN ") for m in messages]
        if history == "full":
            # One growing conversation: every earlier call's reply is still there.
            assert roles.count("assistant") == call
        else:
            # A new conversation each turn: one turn's story, at most one earlier reply
            # (an action before the answer of the same turn).
            assert sum(headers) == 1 and roles.count("assistant") <= 1
        earlier = "YOUR EARLIER ACTIONS" in messages[1].text
        first_turn = f"TURN {a_turns[0]} OF" in messages[1].text
        assert earlier == (history == "actions" and not first_turn and call > 0)
    scores = (log.samples or [])[0].scores
    assert scores is not None
    value = scores["game_scorer"].value
    assert isinstance(value, dict)
    assert value["valid"] == 1.0 and value["turns"] == len(records)
    refused = value["reply_refused_to_opponent"]
    assert math.isnan(refused) or refused == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"mode": "games"}, "mode must be one of trial, game"),
        ({"history": "some"}, "history must be one of none, full, actions"),
        ({"turns": 6}, "turns must be a positive multiple of 4"),
        ({"games": 0}, "games must be a whole number of 1 or more, not '0'"),
        ({"games": 10**20}, "games must be a whole number of 1 or more, below 2..63, not"),
        ({"turns": 0}, "turns must be a whole number of 4 or more, not '0'"),
        ({"reps": 0}, "reps must be a whole number of 1 or more, not '0'"),
        ({"reps": 10**20}, "reps must be a whole number of 1 or more, below 2..63, not"),
        ({"games": 10**9}, "games must be at most 100,000"),
        ({"turns": "abc"}, "turns must be a whole number of 4 or more, not 'abc'"),
        ({"reps": "two"}, "reps must be a whole number of 1 or more, not 'two'"),
    ],
)
def test_bad_game_parameters_give_one_line_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError, match=message):
        tom(**{**GAME, **args})


def test_fooled_counts_lies_told_and_lies_replied() -> None:
    """A repeats D's lie in reply to A's own Ask, and answers otherwise after C's Tell: both
    are lies A heard (fooled 1/2); a teammate's word, or a "lie" that is A's own belief, is
    none."""
    from scorers.game import _answers_and_replies

    def turn(number: int, owner: str, **changes: Any) -> TurnRecord:
        base = {"answerer": "A", "question": "basket", "truth": "ball", "self_belief": "pear"}
        return TurnRecord(number=number, owner=owner, key=f"s{number}", **(base | changes))

    records = [
        turn(1, "A", executed="Ask(D, basket)", reply="apple", answer="apple"),
        turn(2, "C", told_self="plum", answer="ball"),
        turn(3, "B", told_self="plum", answer="plum"),  # a teammate's word
        turn(4, "D", told_self="pear", answer="pear"),  # A's own belief
        turn(5, "A", executed="Ask(D, box)", reply="apple", answer="apple"),  # another box
    ]
    assert _answers_and_replies(records)["fooled"] == 0.5
    # An honest opponent's mistaken belief is no lie: the turn is not counted.
    honest = turn(6, "A", executed="Ask(C, basket)", reply="plum", answer="plum", lie_to_self=False)
    assert _answers_and_replies([*records, honest])["fooled"] == 0.5
    lied = turn(7, "A", executed="Ask(C, basket)", reply="plum", answer="plum", lie_to_self=True)
    assert _answers_and_replies([*records, lied])["fooled"] == pytest.approx(2 / 3)


def test_a_game_records_whether_a_heard_a_liar(tmp_path: Path) -> None:
    """The session marks what A heard from a player who lies to it (the lineup's
    dishonest opponents), and from an honest one, such as the neutral player N."""
    args: dict[str, Any] = {**GAME, "games": 4, "turns": 16, "lineup": "N=neutral"}
    (log,) = inspect_eval(
        tom(**args),
        model="tom/random",
        display="none",
        log_dir=str(tmp_path),
    )
    heard = [
        (turn["owner"], turn["executed"], turn["lie_to_self"])
        for sample in log.samples or []
        for turn in sample.store["GameLog:turns"]
        if turn["lie_to_self"] is not None
    ]
    for owner, executed, lie in heard:
        speaker = owner if owner != "A" else executed[4]  # Ask(X, ...)
        assert lie == (speaker == "D"), (owner, executed, lie)
    assert {lie for _, _, lie in heard} == {True, False}


def test_the_pooled_a_turn_metrics_count_every_epoch(tmp_path: Path) -> None:
    """Inspect's reducers keep the first epoch's score metadata; the game's keeps every
    epoch's A turns, so the log's pooled metrics are over all of them."""
    from inspect_ai import Epochs

    args: dict[str, Any] = dict(GAME)
    (log,) = inspect_eval(
        tom(**args),
        model="tom/random",
        epochs=Epochs(2),  # the CLI's --epochs 2: the task's reducer stays
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.eval.config.epochs_reducer == ["game_mean"]
    a_turns = [turn for sample in log.samples or [] for turn in sample.store["GameLog:turns"]]
    assert log.results is not None
    (pooled,) = [score for score in log.results.scores if "count" in score.metrics]
    played = [turn for turn in a_turns if turn["owner"] == "A"]
    assert pooled.metrics["count"].value == len(played)
    assert len({sample.epoch for sample in log.samples or []}) == 2
