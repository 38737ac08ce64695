"""Player A's side of a full game (`-T mode=game`), Inspect-free.

A `GameSession` runs the game (`full_game.Game`) and turns every moment at which the
live player A must move into a `Request`: the user message to send and whether it starts
a new conversation. The caller (the Inspect solver, or a test or benchmark driving a
reference player directly) gets the model's text and hands it back with `receive`.
Everything A perceives comes from the observer of each turn's story, from what was
said to A, and from the public results; the history mode decides how much of the past
stays in the conversation:

* `none`: each turn on which A must move starts a new conversation (rules, score, story);
* `full`: one conversation for the whole game: every turn's story, what A was told and
  did, and every public result, including turns on which A did not move;
* `actions`: like `none`, plus a list of A's own earlier actions.

Within one turn the conversation always continues (an action, then the answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.full_game import Game, TurnPlan
from tom_eval.game.parsing import ResponseFormat, parse_action, parse_answer, parse_reply
from tom_eval.game.prompts import (
    GameLength,
    action_request,
    answer_prompt,
    choice_options,
    earlier_actions_text,
    reply_request,
    reply_text,
    result_text,
    rules_text,
    scenario_text,
    told_text,
    turn_header,
)
from tom_eval.game.rules import Rules
from tom_eval.game.turn import Lineup, Turn
from tom_eval.game.world import NOTHING, SELF

HistoryMode = Literal["none", "full", "actions"]
HISTORY_MODES: tuple[HistoryMode, ...] = ("none", "full", "actions")
RequestKind = Literal["action", "reply", "answer"]
ReplyKind = Literal["truthful", "lie", "refused", "unreadable"]


@dataclass(frozen=True, slots=True)
class Request:
    kind: RequestKind
    text: str
    fresh: bool
    """Start a new conversation (system prompt, then this message) instead of continuing."""


A_TURN_KEYS = ("optimal", "lies_okay", "valid", "regret", "lie_to_opponent", "format_ok")
"""The trial score keys (`scorers.tom.score_value`) of each turn A plays in a game: the
game's scorer averages them and `tom-eval report` pools them over every game."""


@dataclass
class TurnRecord:
    """One turn as it happened: for the log, the scorer and the report."""

    number: int
    owner: str
    key: str
    """The designed story played on this turn."""
    answerer: str
    question: str
    truth: str
    self_belief: str
    """What A believes the question container holds (A's observer)."""
    options: list[str] = field(default_factory=list)
    raw_action: str | None = None
    """A's reply on its own turn."""
    action: str | None = None
    """The owner's action in canonical form; None when A's reply could not be read."""
    action_problem: str | None = None
    executed: str = "Pass"
    reply: str | None = None
    """What the player asked on this turn replied (None: nobody was asked, or A refused)."""
    told_self: str | None = None
    """What the owner told A about the question container."""
    lie_to_self: bool | None = None
    """Whether what A heard on this turn (the reply to its Ask, or a Tell to it) came from a
    player who lies to A (None: A heard nothing, or a log from before this field)."""
    raw_reply_to_ask: str | None = None
    """A's reply when the owner asked A."""
    reply_to_ask: str | None = None
    reply_to_ask_kind: ReplyKind | None = None
    """Truthful (A's own belief), lie, refused, or unreadable."""
    reply_to_ask_problem: str | None = None
    raw_answer: str | None = None
    answer: str | None = None
    answer_problem: str | None = None
    answer_correct: bool = False
    blue: float = 0.0
    """Points this turn."""
    red: float = 0.0
    score_blue: float = 0.0
    """Score after this turn."""
    score_red: float = 0.0
    seen: list[str] = field(default_factory=list)
    """Everything A perceived on this turn, in order."""
    slips: list[str] = field(default_factory=list)
    """Format slips read past in A's replies (`free` replies without their tagged line)."""


class GameSession:
    """One game as player A lives it: `start_turn`, then `request`/`receive` until
    `request` returns None, then `end_turn`; repeat until `over`."""

    def __init__(
        self,
        plan: tuple[TurnPlan, ...],
        lineup: Lineup,
        rules: Rules,
        response_format: ResponseFormat,
        history: HistoryMode,
        seed: str,
    ) -> None:
        self.game = Game(plan, lineup, rules, seed)
        self.response_format: ResponseFormat = response_format
        self.history: HistoryMode = history
        self.records: list[TurnRecord] = []
        length = GameLength(len(plan), self.game.winning_score)
        self.rules_text = rules_text(lineup, rules, game=length)
        self._turn: Turn | None = None
        self._options: list[Action] = []
        self._unsent: list[str] = []
        """What A perceived and has not been sent yet (kept across turns in `full` mode)."""
        self._conversation_started = False
        self._earlier_actions: list[tuple[int, str]] = []

    @property
    def over(self) -> bool:
        return self.game.is_terminal()

    @property
    def record(self) -> TurnRecord:
        return self.records[-1]

    def start_turn(self) -> TurnRecord:
        """Begin the next turn (a simulated owner acts at once)."""
        plan = self.game.next_plan
        turn = self.game.start_turn()
        solution = turn.solution
        record = TurnRecord(
            number=plan.number,
            owner=plan.owner,
            key=plan.key,
            answerer=turn.scenario.answerer,
            question=turn.scenario.question,
            truth=solution.truth or NOTHING,
            self_belief=solution.assessment.self_belief or NOTHING,
        )
        self.records.append(record)
        if self.history != "full":
            self._unsent.clear()
            self._conversation_started = False
        self._turn = turn
        header = turn_header(plan.number, len(self.game.plan), plan.owner, self.game.scores)
        self._perceive(f"{header}\n\n{scenario_text(solution.observation)}")
        if plan.owner == SELF:
            self._options = self._choice_options(turn)
            record.options = [str(option) for option in self._options]
        else:
            self._note_simulated_action(turn)
        return record

    def request(self) -> Request | None:
        """What A must respond to next in this turn; None when the rest is simulated."""
        turn = self._current
        record = self.record
        if turn.phase == "action":
            return self._request("action", action_request(self.response_format, self._options))
        if turn.phase == "reply":
            request = reply_request(record.owner, record.question, self.response_format)
            return self._request("reply", request)
        if turn.phase == "answer" and turn.scenario.answerer == SELF:
            return self._request("answer", answer_prompt(record.question, self.response_format))
        return None

    def receive(self, completion: str, stopped: str | None = None) -> None:
        """The model's text for the last request; `stopped` is the problem recorded in
        place of the reader's when a limit stopped the reply (the text is then empty)."""
        turn, record = self._current, self.record
        if turn.phase == "action":
            parsed = parse_action(
                completion,
                self.response_format,
                self._options,
                players=self.game.lineup.others,
                containers=turn.scenario.containers,
            )
            action = parsed.action or PASS
            record.raw_action, record.action_problem = completion, stopped or parsed.problem
            record.slips += [parsed.slip] if parsed.slip else []
            record.action = None if parsed.action is None else str(parsed.action)
            record.executed = str(action)
            self._earlier_actions.append(
                (record.number, record.action or "an unreadable reply, played as Pass")
            )
            turn = turn.apply_action(action)
            if turn.reply is not None and action.kind == "ask":
                record.reply = turn.reply
                record.lie_to_self = self.game.lineup.lies_to(str(action.player), SELF)
                self._perceive(reply_text(action, turn.reply))
        elif turn.phase == "reply":
            asked = turn.action.container if turn.action is not None else None
            replied = parse_reply(completion, self.response_format, asked)
            record.raw_reply_to_ask, record.reply_to_ask = completion, replied.contents
            record.reply_to_ask_problem = stopped or replied.problem
            record.reply_to_ask_kind = _reply_kind(replied.contents, replied.refused, record)
            turn = turn.apply_reply(replied.contents)
        else:
            answered = parse_answer(completion, self.response_format, turn.scenario.question)
            record.raw_answer, record.answer_problem = completion, stopped or answered.problem
            record.slips += [answered.slip] if answered.slip else []
            turn = turn.apply_answer(answered.contents)
        self._turn = turn

    def end_turn(self) -> TurnRecord:
        """Finish the turn (a simulated answerer answers) and score it."""
        turn, record = self._current, self.record
        if turn.phase == "answer":
            turn = turn.answer_by_simulation()
        self.game = self.game.after(turn)
        points = turn.returns()
        record.answer, record.answer_correct = turn.answer, turn.answer_correct
        record.blue, record.red = points["blue"], points["red"]
        record.score_blue, record.score_red = self.game.scores["blue"], self.game.scores["red"]
        self._perceive(
            result_text(record.number, record.answerer, turn.answer, turn.answer_correct, points)
        )
        self._turn = None
        return record

    @property
    def _current(self) -> Turn:
        if self._turn is None:
            raise ValueError("no turn in progress: call start_turn first")
        return self._turn

    def _perceive(self, text: str) -> None:
        self.record.seen.append(text)
        self._unsent.append(text)

    def _request(self, kind: RequestKind, text: str) -> Request:
        """The next message: what A perceived since the last one, then `text`. A new
        conversation opens with the rules (and, in `actions` mode, A's earlier actions)."""
        fresh = not self._conversation_started
        parts = [self.rules_text] if fresh else []
        if fresh and self.history == "actions" and self._earlier_actions:
            parts.append(earlier_actions_text(self._earlier_actions))
        parts += [*self._unsent, text]
        self.record.seen.append(text)
        self._unsent.clear()
        self._conversation_started = True
        return Request(kind, "\n\n".join(parts), fresh)

    def _choice_options(self, turn: Turn) -> list[Action]:
        if self.response_format != "choice":
            return []
        return choice_options(
            turn.solution.observation,
            turn.solution.assessment.self_belief,
            self.game.lineup.others,
            f"{self.game.seed}:turn{self.record.number}",
        )

    def _note_simulated_action(self, turn: Turn) -> None:
        record, action = self.record, turn.action
        assert action is not None, "a simulated owner has acted when its turn starts"
        record.action = record.executed = str(action)
        record.reply = turn.reply
        if turn.told_self is not None and action.container is not None:
            record.told_self = turn.told_self
            record.lie_to_self = self.game.lineup.lies_to(record.owner, SELF)
            self._perceive(told_text(record.owner, action.container, turn.told_self))


def _reply_kind(contents: str | None, refused: bool, record: TurnRecord) -> ReplyKind:
    if contents is None:
        return "refused" if refused else "unreadable"
    return "truthful" if contents == record.self_belief else "lie"
