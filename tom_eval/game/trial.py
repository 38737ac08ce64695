"""One trial (a single turn of the game) as a conversation: the messages player A reads
and what each of its replies does.

The Inspect solver (`solver.play_turn`) and the web study (`study.app`) both drive this
one class, so a person in the browser reads exactly the text a model reads, and the same
reply is parsed, played and scored the same way. It knows nothing of Inspect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.oracle import Solution, shared_solution
from tom_eval.game.parsing import (
    ParsedAction,
    ParsedAnswer,
    ResponseFormat,
    parse_action,
    parse_answer,
)
from tom_eval.game.prompts import (
    action_prompt,
    action_schema,
    answer_prompt,
    answer_schema,
    answer_values,
    choice_options,
    reply_text,
)
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import read_story_fields
from tom_eval.game.turn import Lineup, Turn
from tom_eval.game.world import SELF


def trial_seed(task_seed: int, sample_id: str | int, epoch: int) -> str:
    """What seeds a trial's random choices (the order of the choice options, the item a
    liar names): the task's seed, the sample and the epoch, so epochs average out a
    preference for a position and vary the lies A hears."""
    return f"{task_seed}:{sample_id}:{epoch}"


@dataclass(frozen=True, slots=True)
class Trial:
    """A's turn from the first prompt to the answer. Immutable: each reply returns the next
    state. Phases: `action` (A must act), `answer` (A must answer the question), `done`."""

    solution: Solution
    lineup: Lineup
    rules: Rules
    response_format: ResponseFormat
    options: tuple[Action, ...]
    turn: Turn
    raw_action: str | None = None
    parsed_action: ParsedAction | None = None
    raw_answer: str | None = None
    parsed_answer: ParsedAnswer | None = None

    @classmethod
    def start(
        cls,
        story: str | Mapping[str, Any],
        key: str,
        lineup: Lineup,
        rules: Rules,
        response_format: ResponseFormat,
        seed: str,
    ) -> Trial:
        """The trial of a sample's stored story; `seed` is `trial_seed(...)`."""
        scenario = read_story_fields(story, key)
        solution = shared_solution(scenario, rules, lineup.has_neutral)
        options = (
            choice_options(
                solution.observation, solution.assessment.self_belief, lineup.others, seed
            )
            if response_format == "choice"
            else []
        )
        turn = Turn(solution, lineup, rules, seed=seed)
        return cls(solution, lineup, rules, response_format, tuple(options), turn)

    @property
    def phase(self) -> str:
        if self.parsed_action is None:
            return "action"
        return "answer" if self.needs_answer and self.parsed_answer is None else "done"

    @property
    def needs_answer(self) -> bool:
        """A answers the question itself (otherwise a simulated player does)."""
        return self.solution.scenario.answerer == SELF

    @property
    def action_prompt(self) -> str:
        return action_prompt(
            self.solution.observation,
            self.lineup,
            self.rules,
            self.response_format,
            self.options,
        )

    @property
    def executed(self) -> Action:
        """What the game ran: the parsed action, or Pass for an unreadable reply."""
        parsed = self.parsed_action
        return parsed.action if parsed is not None and parsed.action is not None else PASS

    @property
    def told(self) -> str | None:
        """The reply to A's Ask, as A reads it; None without an Ask."""
        reply = self.turn.reply
        return None if reply is None else reply_text(self.executed, reply)

    @property
    def action_schema(self) -> dict[str, Any]:
        """The JSON schema of a structured reply to the action prompt."""
        return action_schema(
            self.response_format,
            self.options,
            self.lineup.others,
            self.solution.scenario.containers,
        )

    @property
    def answer_schema(self) -> dict[str, Any]:
        """The JSON schema of a structured answer: an item A saw or was told, or nothing."""
        answers = answer_values(self.solution.observation, self.turn.reply)
        return answer_schema(self.response_format, answers)

    @property
    def answer_prompt(self) -> str:
        """The second message when A answers: the reply to its Ask (if any) and the
        question in one message, since some providers refuse two user messages in a row."""
        question = answer_prompt(self.solution.scenario.question, self.response_format)
        return "\n\n".join(text for text in (self.told, question) if text)

    def act(self, raw: str) -> Trial:
        """A's reply to the action prompt, parsed and played; when someone else answers,
        the simulated answerer answers at once and the trial is done."""
        scenario = self.solution.scenario
        parsed = parse_action(
            raw,
            self.response_format,
            self.options,
            players=self.lineup.others,
            containers=scenario.containers,
        )
        turn = self.turn.apply_action(parsed.action or PASS)
        if not self.needs_answer:
            turn = turn.answer_by_simulation()
        return replace(self, raw_action=raw, parsed_action=parsed, turn=turn)

    def answer(self, raw: str) -> Trial:
        """A's reply to the question."""
        parsed = parse_answer(raw, self.response_format, self.solution.scenario.question)
        turn = self.turn.apply_answer(parsed.contents)
        return replace(self, raw_answer=raw, parsed_answer=parsed, turn=turn)
