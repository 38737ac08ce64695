"""The decision engine: what every action of A is guaranteed to be worth (docs/engine.md).

A knows only what `epistemics.assess` says it knows. For each legal action the engine
takes the worst case over everything A cannot tell (whether an unsure player is right,
whether an opponent lies) of the Blue-minus-Red point change: action cost plus
answer points. The optimal action has the highest guaranteed value, ties broken by
lower cost and then by a fixed action order, so the choice is deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from tom_eval.game.epistemics import Assessment
from tom_eval.game.rules import (
    ACTION_COST,
    SEED_RULES,
    Rules,
    adopts_tell,
    always_truthful_to,
    answer_points,
)
from tom_eval.game.world import ITEMS, NOTHING, SELF

ActionKind = Literal["pass", "ask", "tell"]


@dataclass(frozen=True, slots=True)
class Action:
    kind: ActionKind
    player: str | None = None
    container: str | None = None
    contents: str | None = None
    """For a Tell: an item, NOTHING, or whatever else a reply told (`is_legal`)."""

    @property
    def cost(self) -> float:
        return 0.0 if self.kind == "pass" else ACTION_COST

    def __str__(self) -> str:
        if self.kind == "pass":
            return "Pass"
        if self.kind == "ask":
            return f"Ask({self.player}, {self.container})"
        return f"Tell({self.player}, {self.container}, {self.contents})"

    @staticmethod
    def from_text(text: str) -> Action:
        """The inverse of `str(action)` for canonical text; raises ValueError otherwise.
        (Model replies go through `parsing`, which is lenient; this is not.)"""
        if text == "Pass":
            return PASS
        match = _CANONICAL.fullmatch(text)
        if match is None:
            raise ValueError(f"not a canonical action: {text!r}")
        if match[1] == "Ask" and match[4] is None:
            return Action("ask", match[2], match[3])
        if match[1] == "Tell" and match[4] is not None:
            return Action("tell", match[2], match[3], match[4])
        raise ValueError(f"not a canonical action: {text!r}")


PASS = Action("pass")
_CANONICAL = re.compile(r"(Ask|Tell)\(([A-Z]), (\w+)(?:, (.+))?\)")


@dataclass(frozen=True, slots=True)
class Situation:
    """Everything the decision depends on: A's assessment, the question and the rules."""

    assessment: Assessment
    question: str
    answerer: str
    players: tuple[str, ...]
    """The other players A may address."""
    containers: tuple[str, ...]
    rules: Rules = SEED_RULES


def legal_actions(situation: Situation) -> tuple[Action, ...]:
    """Pass, Ask anyone about any container, Tell anyone anything about any container."""
    return _action_table(situation.players, situation.containers)[0]


def is_legal(situation: Situation, action: Action) -> bool:
    """Whether A may take `action`: one of `legal_actions`, or a Tell of contents that are
    not one of the game's items to a player about a container of the game. The engine
    chooses among Tells of the game's items, but a reply may tell anything, and the parser
    keeps such a Tell ("Tell(B, bag, pear)"): it is played and valued as any Tell of what A
    does not believe (`guaranteed_value`), a model's output to score, not an error."""
    if action.kind == "tell" and action.contents is not None:
        action = Action("tell", action.player, action.container, NOTHING)
    return action in _action_table(situation.players, situation.containers)[1]


@lru_cache(maxsize=64)
def _action_table(
    players: tuple[str, ...], containers: tuple[str, ...]
) -> tuple[tuple[Action, ...], dict[Action, int]]:
    """The legal actions in their fixed tie-break order, and each action's index."""
    actions = [PASS]
    actions += [Action("ask", player, container) for player in players for container in containers]
    actions += [
        Action("tell", player, container, item)
        for player in players
        for container in containers
        for item in (*ITEMS, NOTHING)
    ]
    return tuple(actions), {action: index for index, action in enumerate(actions)}


def _certainly_right(situation: Situation, player: str) -> bool:
    return situation.assessment.statuses[player] == "true"


def _knows(situation: Situation, player: str) -> bool:
    """A is sure the player saw the latest change and is in the room: it ignores a Tell."""
    return situation.assessment.knows_for_sure(player)


def guaranteed_value(situation: Situation, action: Action) -> float:
    """Worst-case Blue-minus-Red point change of `action` under A's uncertainty."""
    assessment = situation.assessment
    answerer = situation.answerer
    about_question = action.container == situation.question
    if answerer == SELF:
        # A answers with whichever source it can be sure of, if any.
        correct = _certainly_right(situation, SELF) or (
            action.kind == "ask"
            and about_question
            and action.player is not None
            and always_truthful_to(action.player, SELF)
            and _certainly_right(situation, action.player)
        )
    elif (
        action.kind == "tell"
        and about_question
        and action.player == answerer
        and adopts_tell(answerer, SELF, hearer_knows=False)
    ):
        told = None if action.contents == NOTHING else action.contents
        # A hearer who knows ignores the Tell and answers right; any other hearer adopts
        # it, which is right for certain only when A knows the truth and tells it.
        correct = _knows(situation, answerer) or (
            _certainly_right(situation, SELF) and told == assessment.self_belief
        )
    else:
        correct = _worst_case_correct(situation, answerer)
    return answer_points(answerer, correct, situation.rules) - action.cost


def _worst_case_correct(situation: Situation, answerer: str) -> bool:
    """The answerer reports its own belief; for Blue the worst case is wrong, for Red right."""
    status = situation.assessment.statuses[answerer]
    if status == "unsure":
        return answer_points(answerer, True, situation.rules) < 0
    return status == "true"


@dataclass(frozen=True, slots=True)
class Decision:
    optimal: Action
    margin: float
    """Guaranteed value of the optimal action minus that of the best other action."""
    values: dict[str, float]
    """Guaranteed value of each action class (see `action_classes`)."""


def decide(situation: Situation) -> Decision:
    """The engine's choice for A in `situation`: the action of highest guaranteed value
    (ties to the cheaper, then the earlier legal action), its margin and every action
    class's value (docs/engine.md). Remembered by what it depends on (`_DECIDED`)."""
    assessment = situation.assessment
    key = (
        tuple(assessment.statuses.items()),
        assessment.self_belief,
        assessment.saw_latest & assessment.present,
        situation.question,
        situation.answerer,
        situation.players,
        situation.containers,
        situation.rules,
    )
    decided = _DECIDED.get(key)
    if decided is None:
        if len(_DECIDED) >= DECISIONS_KEPT:
            _DECIDED.clear()
        decided = _DECIDED[key] = _decided(situation)
    optimal, margin, classes = decided
    return Decision(optimal, margin, dict(classes))


DECISIONS_KEPT = 4096
"""How many distinct decisions `decide` remembers (about 1 kB each)."""
_DECIDED: dict[tuple[object, ...], tuple[Action, float, tuple[tuple[str, float], ...]]] = {}
"""A bounded memo of `_decided`, keyed on everything a decision depends on: A's statuses, A's
belief, who A is sure knows, the question, the answerer, the line-up and the rules. The
generator and the checker decide tens of thousands of stories that differ only in what the
decision ignores (the events, the ECT count) and share a few hundred distinct decisions, so
each is made once per process. Emptied when full, so it stays bounded."""


def _decided(situation: Situation) -> tuple[Action, float, tuple[tuple[str, float], ...]]:
    """The optimal action, its margin and the action classes' values."""
    actions = legal_actions(situation)
    values = _values(situation, actions)
    # Highest value first, then lower cost; `actions` is already in tie-break order.
    best = max(range(len(actions)), key=lambda i: (values[i], -actions[i].cost, -i))
    runner_up = max(value for i, value in enumerate(values) if i != best)
    classes = tuple(action_classes(situation, values).items())
    return actions[best], values[best] - runner_up, classes


def _values(situation: Situation, actions: tuple[Action, ...]) -> list[float]:
    """`guaranteed_value` of each action; actions about another container cannot change
    any answer, so all of one kind share a value and it is computed once."""
    question = situation.question
    cache: dict[tuple[str, str | None, str | None], float] = {}
    values = []
    for action in actions:
        if action.container == question or action.kind == "pass":
            values.append(guaranteed_value(situation, action))
            continue
        kind = (action.kind, None, None)
        if kind not in cache:
            cache[kind] = guaranteed_value(situation, action)
        values.append(cache[kind])
    return values


def action_classes(situation: Situation, values: list[float]) -> dict[str, float]:
    """Values of the action classes worth recording: every action on the question container
    with A's own belief, one representative of telling anything else, and the best action
    about another container. `values` is aligned with `legal_actions(situation)`."""
    actions, index = _action_table(situation.players, situation.containers)
    question = situation.question
    belief = situation.assessment.self_belief or NOTHING
    other = next(item for item in (*ITEMS, NOTHING) if item != belief)
    classes = {"Pass": values[index[PASS]]}
    for player in situation.players:
        ask = Action("ask", player, question)
        classes[str(ask)] = values[index[ask]]
    for player in situation.players:
        for told, name in ((belief, belief), (other, "other")):
            tell = Action("tell", player, question, told)
            classes[f"Tell({player}, {question}, {name})"] = values[index[tell]]
    classes["other container"] = max(
        value
        for action, value in zip(actions, values, strict=True)
        if action.container not in (None, question)
    )
    return classes
