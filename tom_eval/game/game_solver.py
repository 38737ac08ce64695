"""The Inspect solver of the full game (`-T mode=game`): the model plays A for a whole game.

`session.GameSession` runs the game and says when A must move and what A is shown; this
solver only sends those messages to the model, as the history mode says (a new
conversation, or the same one continued), and returns its text. Each turn is a span in
Inspect View, closed by an info event with whose turn it was, what A saw, what happened
and the score; the turns land in the sample's store (`GameLog`) for the scorer.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as
from pydantic import Field

from tom_eval.game.full_game import TurnPlan, schedule
from tom_eval.game.parsing import ResponseFormat
from tom_eval.game.prompts import SYSTEM_PROMPT
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import read_story_fields
from tom_eval.game.session import GameSession, HistoryMode, TurnRecord
from tom_eval.game.turn import Lineup
from tom_eval.game.world import SELF


class GameLog(StoreModel):
    """The game as it was played: every turn's `session.TurnRecord`, and the end."""

    turns: list[dict[str, Any]] = Field(default_factory=list)
    blue: float = 0.0
    red: float = 0.0
    winner: str = ""
    winning_score: int = 0


def game_plan(metadata: dict[str, Any], sample_id: str) -> tuple[TurnPlan, ...]:
    """The turns of the game a Sample describes (see `dataset.game_dataset`)."""
    stories = [
        (entry["key"], read_story_fields(entry["story"], f"{sample_id} {entry['key']}"))
        for entry in metadata["stories"]
    ]
    return schedule(stories, int(metadata["turns"]))


@solver
def play_game(
    response_format: ResponseFormat,
    lineup: Lineup,
    rules: Rules,
    history: HistoryMode,
    seed: int = 0,
) -> Solver:
    """`seed` (the task's) and the epoch seed the options' order and the liars' choices."""

    async def solve_game(state: TaskState, generate: Generate) -> TaskState:
        session = GameSession(
            game_plan(state.metadata, str(state.sample_id)),
            lineup,
            rules,
            response_format,
            history,
            seed=f"{seed}:{state.sample_id}:{state.epoch}",
        )
        log = store_as(GameLog)
        log.winning_score = session.game.winning_score
        while not session.over:
            record = session.start_turn()
            whose = "A's" if record.owner == SELF else f"{record.owner}'s"
            async with span(f"turn {record.number}: {whose} turn"):
                while (request := session.request()) is not None:
                    message = ChatMessageUser(content=request.text)
                    if request.fresh:
                        state.messages = [ChatMessageSystem(content=SYSTEM_PROMPT), message]
                    else:
                        state.messages.append(message)
                    state = await generate(state)
                    session.receive(state.output.completion)
                record = session.end_turn()
                transcript().info(_summary(record))
            log.turns = [*log.turns, asdict(record)]
        log.blue, log.red = session.game.scores["blue"], session.game.scores["red"]
        log.winner = session.game.winner
        return state

    return solve_game


def _summary(record: TurnRecord) -> str:
    """The turn at a glance in Inspect View."""
    lines = [f"**Turn {record.number}**, {record.owner} acts; {record.answerer} answers."]
    if record.owner == SELF:
        lines.append(
            f"**A's action** {record.action or 'unreadable, played as Pass'}"
            + (f" ({record.action_problem})" if record.action_problem else "")
        )
    else:
        lines.append(f"**{record.owner}'s action** {record.executed} (simulated)")
    if record.reply_to_ask_kind is not None:
        lines.append(f"**A's reply to {record.owner}** {record.reply_to_ask_kind}")
    lines.append(
        f"**Answer** {record.answer or 'nothing readable'} "
        f"({'right' if record.answer_correct else 'wrong'}; it holds {record.truth})"
    )
    lines.append(
        f"**Points** Blue {record.blue:+g}, Red {record.red:+g}; "
        f"**score** Blue {record.score_blue:g}, Red {record.score_red:g}"
    )
    seen = "\n\n".join(record.seen)
    lines.append(f"**What A saw**\n\n```text\n{seen}\n```")
    return "  \n".join(lines)
