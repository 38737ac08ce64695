"""The Inspect solvers of the game, with the model as player A.

`play_turn` (trial mode) plays one turn: the model reads the rules, the story and the
question and acts; the action runs against the simulated characters (`trial.Trial`, which
the web study drives too); an Ask's reply is shown to the model; when A is the answerer the
model is asked the question in a second turn, otherwise the simulated answerer answers from
its belief. What happened is a `GameRecord`, handed to the scorer in memory (`take_record`)
and logged once, in the score's metadata; the score's explanation shows the turn at a
glance in Inspect View.

`play_game` (`-T mode=game`) plays a whole game: `session.GameSession` runs it and says when
A must move and what A is shown; the solver only sends those messages to the model, as the
history mode says (a new conversation, or the same one continued), and returns its text.
Each turn is a span in Inspect View, closed by an info event with whose turn it was, what A
saw, what happened and the score; the turns land in the sample's store (`GameLog`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Literal
from weakref import WeakKeyDictionary

from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentText,
    GenerateConfigArgs,
    ResponseSchema,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema, LimitExceededError, StoreModel, span, store_as
from pydantic import Field

from tom_eval.errors import InputError
from tom_eval.game.full_game import TurnPlan, Winner, schedule
from tom_eval.game.parsing import ResponseFormat
from tom_eval.game.prompts import SYSTEM_PROMPT
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import read_story_fields
from tom_eval.game.session import GameSession, HistoryMode, TurnRecord
from tom_eval.game.trial import Trial, trial_seed
from tom_eval.game.turn import Lineup
from tom_eval.game.world import SELF


@dataclass(frozen=True)
class GameRecord:
    """What happened in the turn: read by the scorer, which logs it in the score's metadata."""

    response_format: ResponseFormat
    options: list[str]
    raw_action: str
    action: str | None
    """The parsed action in canonical form (`Action.from_text` reads it back), or None when
    the reply could not be read."""
    action_problem: str | None
    executed: str
    """What the game ran: the parsed action, or Pass for an unreadable reply."""
    reply: str | None
    answerer: str
    raw_answer: str | None
    answer: str | None
    answer_problem: str | None
    answer_correct: bool
    blue: float
    red: float
    slips: list[str]
    """Format slips read past (`free` replies without their ACTION:/ANSWER: line)."""


_UNSCORED: WeakKeyDictionary[TaskState, Callable[[], GameRecord]] = WeakKeyDictionary()
"""Turns played and not yet scored, by the sample's state, each as what makes its record
(made when the scorer takes it: the records kept in case a limit stops the sample are
rarely needed). The record goes from the solver to the scorer in memory: an Inspect store
would validate it on every write and read and log it three times (two store events and the
state event). Weak keys: the record of a sample that is never scored (`--no-score`, an
error) goes with its state."""


def take_record(state: TaskState) -> GameRecord | None:
    """The record of the turn `play_turn` played for this sample, once (it is removed); None
    for a sample no solver played in this process (a log scored again)."""
    made = _UNSCORED.pop(state, None)
    return made() if made else None


@solver
def play_turn(
    response_format: ResponseFormat,
    lineup: Lineup,
    rules: Rules,
    seed: int = 0,
    structured: bool = False,
) -> Solver:
    """`seed` (the task's) and the epoch seed the options' order and the liars' items
    (`trial.trial_seed`); with `structured`, each reply is asked for as JSON of the trial's
    schema (Inspect's `response_schema`, which providers such as OpenAI, Google, vLLM and
    llama.cpp enforce)."""

    async def solve_turn(state: TaskState, generate: Generate) -> TaskState:
        started = Trial.start(
            state.metadata["story"],
            str(state.sample_id),
            lineup,
            rules,
            response_format,
            trial_seed(seed, state.sample_id, state.epoch),
        )
        # Kept before each call: a limit Inspect enforces by cancelling the sample
        # (`--time-limit`, `--working-limit`) stops it inside the call, and the scorer then
        # scores the turn as far as it went.
        _UNSCORED[state] = partial(_before_action, started)
        prompt: list[ChatMessage] = [
            ChatMessageSystem(content=SYSTEM_PROMPT),
            ChatMessageUser(content=started.action_prompt),
        ]
        limit = _add(state, prompt, fresh=True)
        action_config = _schema(structured, "action", started.action_schema)
        state, raw_action, limit = await _reply(state, generate, action_config, limit)
        acted = started.act(raw_action)
        action_stopped = _stopped(limit) if limit else None
        raw_answer = answer_stopped = None
        if acted.needs_answer:
            _UNSCORED[state] = partial(
                _turn_record, acted, raw_action, action_stopped, "", CANCELLED
            )
            limit = limit or _add(state, [ChatMessageUser(content=acted.answer_prompt)])
            answer_config = _schema(structured, "answer", acted.answer_schema)
            state, raw_answer, limit = await _reply(state, generate, answer_config, limit)
            answer_stopped = _stopped(limit) if limit else None
        elif acted.told:
            limit = limit or _add(state, [ChatMessageUser(content=acted.told)])
        _UNSCORED[state] = partial(
            _turn_record, acted, raw_action, action_stopped, raw_answer, answer_stopped
        )
        if limit is not None:
            raise limit  # the turn is kept for the scorer; Inspect logs the sample's limit
        return state

    return solve_turn


CANCELLED = (
    "no reply: the sample stopped during the call (a limit such as --time-limit, or an error)"
)
"""A reply that a limit Inspect enforces by cancelling the sample never brought."""


def _before_action(started: Trial) -> GameRecord:
    """The turn of a sample stopped before A's action came."""
    return _turn_record(started.act(""), "", CANCELLED)


def _turn_record(
    acted: Trial,
    raw_action: str,
    action_stopped: str | None,
    raw_answer: str | None = None,
    answer_stopped: str | None = None,
) -> GameRecord:
    """The turn of `acted` (the trial after A's action) with A's answer, when A answers
    (`raw_answer`, empty if the sample stopped before it), and the limits that stopped
    either reply (`_stopped`, `CANCELLED`) as their problems."""
    parsed = acted.parsed_action
    assert parsed is not None
    trial, answer_problem, slips = acted, None, [slip for slip in (parsed.slip,) if slip]
    if acted.needs_answer:
        trial = acted.answer(raw_answer or "")
        assert trial.parsed_answer is not None
        answer_problem = answer_stopped or trial.parsed_answer.problem
        slips += [slip for slip in (trial.parsed_answer.slip,) if slip]
    turn = trial.turn
    points = turn.returns()
    return GameRecord(
        response_format=trial.response_format,
        options=[str(option) for option in trial.options],
        raw_action=raw_action,
        action=None if parsed.action is None else str(parsed.action),
        action_problem=action_stopped or parsed.problem,
        executed=str(trial.executed),
        reply=turn.reply,
        answerer=trial.solution.scenario.answerer,
        raw_answer=raw_answer if acted.needs_answer else None,
        answer=turn.answer,
        answer_problem=answer_problem,
        answer_correct=turn.answer_correct,
        blue=points["blue"],
        red=points["red"],
        slips=slips,
    )


def _add(
    state: TaskState, messages: list[ChatMessage], fresh: bool = False
) -> LimitExceededError | None:
    """Adds `messages` to the conversation (as a new one when `fresh`), or returns the
    message limit (`--message-limit`) that adding them passes: Inspect checks it on every
    change to the conversation, and the turn must still reach the scorer (`_reply`)."""
    try:
        if fresh:
            state.messages = messages
        else:
            state.messages.extend(messages)
    except LimitExceededError as stopped:
        return stopped
    return None


async def _reply(
    state: TaskState,
    generate: Generate,
    config: GenerateConfigArgs,
    limit: LimitExceededError | None,
) -> tuple[TaskState, str, LimitExceededError | None]:
    """The model's reply, and the sample limit (`--token-limit`, `--message-limit`,
    `--time-limit`, ...) that stopped the sample, if one did. A reply a limit stopped, and
    every reply after it, is empty: the turn is played and scored on as an unreadable
    reply, counted as the model's, rather than leaving the scorer no turn (a run error)."""
    if limit is not None:
        return state, "", limit
    try:
        state = _encodable(await generate(state, **config))
    except LimitExceededError as stopped:
        return state, "", stopped
    return state, state.output.completion, None


def _stopped(limit: LimitExceededError) -> str:
    return f"no reply: the sample stopped at its {limit.type} limit ({limit.message})"


def _schema(structured: bool, name: str, schema: dict[str, Any]) -> GenerateConfigArgs:
    """The generate arguments that ask for a structured reply, when asked for."""
    if not structured:
        return {}
    json_schema = JSONSchema.model_validate(schema)
    return {"response_schema": ResponseSchema(name=name, json_schema=json_schema)}


class GameLog(StoreModel):
    """The game as it was played: every turn's `session.TurnRecord`, and the end."""

    turns: list[dict[str, Any]] = Field(default_factory=list)
    blue: float = 0.0
    red: float = 0.0
    winner: Winner | Literal[""] = ""
    """Empty until the game ends, and in a game a limit that cancels the sample stopped."""
    winning_score: int = 0
    response_format: ResponseFormat | Literal[""] = ""
    stopped_by: str = ""
    """The limit that stopped A's replies, and at which turn ("its token limit at turn 3"),
    when the game was played out after it; empty otherwise."""


def game_plan(metadata: dict[str, Any], sample_id: str) -> tuple[TurnPlan, ...]:
    """The turns of the game a Sample describes (see `dataset.game_dataset`). An InputError
    (only a log edited by hand, scored again, holds one) names the sample first."""
    stories = [
        (entry["key"], read_story_fields(entry["story"], f"{sample_id} {entry['key']}"))
        for entry in metadata["stories"]
    ]
    try:
        return schedule(stories, int(metadata["turns"]))
    except InputError as error:
        raise InputError(f"{sample_id}: {error}") from None


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
        log.response_format = response_format
        limit: LimitExceededError | None = None
        while not session.over:
            record = session.start_turn()
            whose = "A's" if record.owner == SELF else f"{record.owner}'s"
            async with span(f"turn {record.number}: {whose} turn"):
                while (request := session.request()) is not None:
                    message = ChatMessageUser(content=request.text)
                    prompt: list[ChatMessage] = [message]
                    if request.fresh:
                        prompt.insert(0, ChatMessageSystem(content=SYSTEM_PROMPT))
                    limit = limit or _add(state, prompt, fresh=request.fresh)
                    state, reply, limit = await _reply(state, generate, {}, limit)
                    if limit is not None and not log.stopped_by:
                        log.stopped_by = f"its {limit.type} limit at turn {record.number}"
                    session.receive(reply, _stopped(limit) if limit else None)
                record = session.end_turn()
                transcript().info(_summary(record))
            # The standing after every turn: a game a cancelling limit stops is scored as
            # it stood (`scorers.game`).
            log.turns = [*log.turns, asdict(record)]
            log.blue, log.red = session.game.scores["blue"], session.game.scores["red"]
        log.winner = session.game.winner
        if limit is not None:
            raise limit  # the game is played out and kept; Inspect logs the sample's limit
        return state

    return solve_game


_SURROGATE = re.compile("[\ud800-\udfff]")
"""Half of a UTF-16 pair: in a Python string, always one without its other half."""


def _encodable(state: TaskState) -> TaskState:
    """The state with the model's last reply in the conversation made writable as UTF-8: a
    reply holding half of a UTF-16 pair (a lone surrogate) would otherwise fail the whole run
    when Inspect logs the next call, whose input holds the reply. Each such character
    becomes U+FFFD there; `state.output`, which is read and scored, keeps the reply as given."""
    last = state.messages[-1] if state.messages else None
    if isinstance(last, ChatMessageAssistant):
        if isinstance(last.content, str):
            last.content = _SURROGATE.sub("\ufffd", last.content)
        else:
            for part in last.content:
                if isinstance(part, ContentText):
                    part.text = _SURROGATE.sub("\ufffd", part.text)
    return state


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
