"""The Inspect solver that plays one turn of the game with the model as player A.

The model reads the rules, the story and the question and acts; the action runs
against the simulated characters (`game.Turn`); an Ask's reply is shown to the model;
when A is the answerer the model is asked the question in a second turn, otherwise the
simulated answerer answers from its belief. Everything lands in a `GameRecord` (the
sample's store), and spans and info events show it at a glance in Inspect View.
"""

from __future__ import annotations

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as
from pydantic import Field

from tom_eval.decisions import PASS
from tom_eval.game import Lineup, Turn
from tom_eval.oracle import solve
from tom_eval.parsing import ResponseFormat, parse_action, parse_answer
from tom_eval.prompts import (
    SYSTEM_PROMPT,
    action_prompt,
    answer_prompt,
    choice_options,
    reply_text,
)
from tom_eval.rules import Rules
from tom_eval.scenario_file import read_story_fields
from tom_eval.world import SELF


class GameRecord(StoreModel):
    """What happened in the turn: read by the scorer, shown in Inspect View."""

    response_format: str = ""
    options: list[str] = Field(default_factory=list)
    raw_action: str = ""
    action: str | None = None
    """The parsed action in canonical form (`Action.from_text` reads it back), or None when
    the reply could not be read."""
    action_problem: str | None = None
    executed: str = "Pass"
    """What the game ran: the parsed action, or Pass for an unreadable reply."""
    reply: str | None = None
    answerer: str = ""
    raw_answer: str | None = None
    answer: str | None = None
    answer_problem: str | None = None
    answer_correct: bool = False
    blue: float = 0.0
    red: float = 0.0


@solver
def play_turn(
    response_format: ResponseFormat, lineup: Lineup, rules: Rules, seed: int = 0
) -> Solver:
    """`seed` (the task's) and the epoch shuffle the options, so epochs average out any
    preference for a position."""

    async def solve_turn(state: TaskState, generate: Generate) -> TaskState:
        record = store_as(GameRecord)
        scenario = read_story_fields(state.metadata["story"], str(state.sample_id))
        solution = solve(scenario, rules, with_neutral=lineup.has_neutral)
        turn = Turn(solution, lineup, rules, seed=str(state.sample_id))
        observation = solution.observation
        options = (
            choice_options(
                observation,
                solution.assessment.self_belief,
                lineup.players[1:],
                f"{seed}:{state.sample_id}:{state.epoch}",
            )
            if response_format == "choice"
            else []
        )
        prompt = action_prompt(observation, lineup, rules, response_format, options)
        state.messages = [ChatMessageSystem(content=SYSTEM_PROMPT), ChatMessageUser(content=prompt)]
        record.response_format, record.options = response_format, [str(o) for o in options]
        record.answerer = scenario.answerer

        async with span("action"):
            state = await generate(state)
            record.raw_action = state.output.completion
            parsed = parse_action(
                record.raw_action,
                response_format,
                options,
                players=lineup.players[1:],
                containers=scenario.containers,
            )
            action = parsed.action or PASS
            turn = turn.apply_action(action)
            record.action = None if parsed.action is None else str(parsed.action)
            record.action_problem, record.executed = parsed.problem, str(action)
            transcript().info(
                f"**Reply** {_quote(record.raw_action)}  \n"
                f"**Action** {record.action or 'unreadable'}"
                + (f" ({parsed.problem}; played as Pass)" if parsed.problem else "")
                + f"  \n**Engine's optimal action** {solution.decision.optimal}"
            )
            told = [] if turn.reply is None else [reply_text(action, turn.reply)]
            record.reply = turn.reply

        async with span("answer"):
            if scenario.answerer == SELF:
                # The reply and the question go in one message: some providers refuse two
                # user messages in a row.
                question = answer_prompt(scenario.question, response_format)
                state.messages.append(ChatMessageUser(content="\n\n".join([*told, question])))
                state = await generate(state)
                record.raw_answer = state.output.completion
                answered = parse_answer(record.raw_answer, response_format)
                record.answer_problem = answered.problem
                turn = turn.apply_answer(answered.contents)
            else:
                if told:
                    state.messages.append(ChatMessageUser(content=told[0]))
                turn = turn.answer_by_simulation()
            points = turn.returns()
            record.answer, record.answer_correct = turn.answer, turn.answer_correct
            record.blue, record.red = points["blue"], points["red"]
            transcript().info(
                f"**{scenario.answerer} answers** {turn.answer or 'nothing readable'} "
                f"({'right' if turn.answer_correct else 'wrong'}; the {scenario.question} "
                f"holds {solution.truth or 'nothing'})  \n"
                f"**Points** Blue {points['blue']:+g}, Red {points['red']:+g}"
            )
        return state

    return solve_turn


def _quote(text: str, limit: int = 120) -> str:
    """A reply shown on one line in the transcript."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")
