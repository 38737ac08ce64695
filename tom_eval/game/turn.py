"""One turn of the Ask/Tell/Pass game, modelled as OpenSpiel models imperfect-information games.

`Turn` is an immutable state: `legal_actions()`, `apply_action()`, `apply_reply()` (when a
simulated actor asked A), `apply_answer()` (or `answer_by_simulation()` when someone else
answers), `is_terminal()` and `returns()`.
The simulated characters act by their type (docs/game.md): honest characters
answer an Ask with their belief; dishonest ones lie to the other team; a hearer adopts
a Tell only from its own teammate, and not when it knows better. What A perceives is the
observer's (`epistemics.observe`) plus the replies to A's own Asks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Literal

from tom_eval.errors import InputError
from tom_eval.game.decisions import PASS, Action, legal_actions
from tom_eval.game.epistemics import actual_minds, perceives
from tom_eval.game.oracle import Solution
from tom_eval.game.rules import SEED_RULES, Rules, adopts_tell, answer_score, same_team
from tom_eval.game.world import (
    ITEMS,
    NEUTRAL,
    NOTHING,
    OPPONENTS,
    SELF,
    TEAMMATE,
    TEAMS,
    Move,
    Put,
    Scenario,
)
from tom_eval.json_fields import yaml_text

_ROLE_TYPES = {
    SELF: ("live_player",),
    TEAMMATE: ("honest_teammate", "dishonest_teammate"),
    "C": ("honest_opponent", "dishonest_opponent"),
    "D": ("honest_opponent", "dishonest_opponent"),
    NEUTRAL: ("neutral",),
}


@dataclass(frozen=True, slots=True)
class Lineup:
    """Who plays which character type. A is always the live player."""

    types: tuple[tuple[str, str], ...] = (
        (SELF, "live_player"),
        (TEAMMATE, "dishonest_teammate"),
        ("C", "honest_opponent"),
        ("D", "dishonest_opponent"),
    )

    def type_of(self, player: str) -> str:
        return dict(self.types)[player]

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for player, _ in self.types)

    @property
    def others(self) -> tuple[str, ...]:
        """Everyone but A: the players A may address."""
        return tuple(player for player in self.players if player != SELF)

    @property
    def has_neutral(self) -> bool:
        return NEUTRAL in self.players

    def lies_to(self, speaker: str, hearer: str) -> bool:
        """Dishonest characters lie to the other team; nobody lies to its own team."""
        return self.type_of(speaker).startswith("dishonest") and not same_team(speaker, hearer)

    def __str__(self) -> str:
        return ",".join(f"{player}={kind}" for player, kind in self.types if player != SELF)


DEFAULT_LINEUP = Lineup()


def parse_lineup(text: str | list[str]) -> Lineup:
    """ "default", or changes to it like "B=honest_teammate,D=honest_opponent,N=neutral"
    (Inspect passes `-T lineup=B=...,N=...` as a list of the comma-separated parts)."""
    if isinstance(text, list):
        text = ",".join(yaml_text(part) for part in text)
    if not isinstance(text, str):
        raise InputError(
            f"lineup: expected changes such as D=honest_opponent, not '{yaml_text(text)}'"
        )
    types = dict(DEFAULT_LINEUP.types)
    if text.strip() not in ("", "default"):
        given: set[str] = set()
        for part in text.split(","):
            player, _, kind = (" ".join(piece.split()) for piece in part.partition("="))
            if player not in _ROLE_TYPES or player == SELF:
                raise InputError(f"lineup: unknown player '{player}' (use B, C, D or N)")
            if player in given:
                raise InputError(f"lineup: {player} is given twice")
            given.add(player)
            allowed = ", ".join(_ROLE_TYPES[player])
            if not kind:
                example = f"{player}={_ROLE_TYPES[player][0]}"
                raise InputError(f"lineup: {player} needs a type, as in {example} ({allowed})")
            if kind not in _ROLE_TYPES[player]:
                raise InputError(f"lineup: {player} cannot be '{kind}' (allowed: {allowed})")
            types[player] = kind
    order = (SELF, TEAMMATE, *OPPONENTS, NEUTRAL)
    return Lineup(tuple((player, types[player]) for player in order if player in types))


Phase = Literal["action", "reply", "answer", "done"]


@dataclass(frozen=True)
class Turn:
    """One player's turn on one scenario: the actor acts; if a simulated actor asked the
    live player A, A replies; the answerer answers; points are scored. The phase says who
    moves next. Moves of A come from outside (the model); everyone else is simulated here.
    """

    solution: Solution
    lineup: Lineup = DEFAULT_LINEUP
    rules: Rules = SEED_RULES
    seed: str = ""
    """Seeds the one random choice a character makes: which false item a liar names."""
    actor: str = SELF
    phase: Phase = "action"
    action: Action | None = None
    reply: str | None = None
    """What the asked player said (an item or NOTHING); None when nobody was asked or A
    refused."""
    told: dict[str, str] = field(default_factory=dict)
    """Beliefs about the question container that simulated players adopted from a Tell or
    a reply."""
    told_self: str | None = None
    """What a simulated actor told A about the question container (A decides what to make
    of it)."""
    answer: str | None = None

    @property
    def scenario(self) -> Scenario:
        return self.solution.scenario

    def legal_actions(self) -> tuple[Action, ...]:
        """A's actions on its own turn, from A's situation (the observer's). A simulated
        actor's action comes from its type (`full_game.simulated_action`), not from a list:
        none is offered then."""
        acting = self.phase == "action" and self.actor == SELF
        return legal_actions(self.solution.situation) if acting else ()

    def apply_action(self, action: Action) -> Turn:
        """The actor acts; an Ask gets its reply (A's comes later, through `apply_reply`),
        a Tell may change what the hearer believes."""
        if self.phase != "action":
            raise ValueError(f"no action in the {self.phase} phase")
        others = [player for player in self.lineup.players if player != self.actor]
        if action != PASS and action.player not in others:
            raise ValueError(f"{action} addresses a player who is not in the game")
        turn = replace(self, phase="answer", action=action)
        if action.kind == "ask" and action.player and action.container:
            if action.player == SELF:
                return replace(turn, phase="reply")
            return turn._heard(
                self.actor, action.player, self._reply(action.player, action.container)
            )
        if action.kind == "tell" and action.player == SELF and self.actor != SELF:
            return replace(turn, told_self=action.contents)
        if action.kind == "tell" and action.player and action.contents is not None:
            return turn._heard(action.player, self.actor, action.contents)
        return turn

    def apply_reply(self, contents: str | None) -> Turn:
        """A replies to the actor's Ask (None: A refused or gave no readable reply)."""
        if self.phase != "reply":
            raise ValueError("A replies only when a simulated actor asked A")
        return replace(self, phase="answer")._heard(self.actor, SELF, contents)

    def apply_answer(self, contents: str | None) -> Turn:
        """A answers the question (None: A gave no readable answer, which is wrong)."""
        if self.phase != "answer" or self.scenario.answerer != SELF:
            raise ValueError("A answers only in the answer phase of a question put to A")
        return replace(self, phase="done", answer=contents)

    def answer_by_simulation(self) -> Turn:
        """The simulated answerer reports what it believes (answerers never lie to the game)."""
        answerer = self.scenario.answerer
        if self.phase != "answer" or answerer == SELF:
            raise ValueError("only a simulated answerer answers by simulation")
        told = self.told.get(answerer)
        answer = told if told is not None else self._belief(answerer, self.scenario.question)
        return replace(self, phase="done", answer=answer)

    def is_terminal(self) -> bool:
        return self.phase == "done"

    @property
    def answer_correct(self) -> bool:
        return self.answer == (self.solution.truth or NOTHING)

    def returns(self) -> dict[str, float]:
        """Points each team won this turn: the action's cost to the actor's team, then the
        answer's points to the answerer's team."""
        if not self.is_terminal() or self.action is None:
            raise ValueError("returns are known only at the end of the turn")
        points = {"blue": 0.0, "red": 0.0}
        points[TEAMS[self.actor]] -= self.action.cost
        points[TEAMS[self.scenario.answerer]] += answer_score(self.answer_correct, self.rules)
        return points

    @property
    def margin(self) -> float:
        """Blue minus Red: the quantity the decision engine guarantees."""
        points = self.returns()
        return points["blue"] - points["red"]

    def _heard(self, hearer: str, speaker: str, contents: str | None) -> Turn:
        """`speaker` said `contents` to `hearer`: the turn with the reply recorded (when
        the hearer is the actor) and the hearer's belief changed if it trusts the speaker.
        A is live: what A makes of it is the model's business."""
        turn = replace(self, reply=contents) if hearer == self.actor else self
        action = self.action
        if contents is None or hearer == SELF or action is None:
            return turn
        if action.container != self.scenario.question:
            return turn
        knows = self._mind(hearer, self.scenario.question)[1]
        if adopts_tell(hearer, speaker, hearer_knows=knows):
            return replace(turn, told={**self.told, hearer: contents})
        return turn

    def _mind(self, player: str, container: str) -> tuple[str, bool]:
        """(belief, knows) of `player` about `container`; the neutral player is never in the
        room, so it believes every container is empty."""
        if player == NEUTRAL:
            return NOTHING, False
        _, minds = actual_minds(self.scenario, container)
        return minds[player].belief or NOTHING, minds[player].knows

    def _belief(self, player: str, container: str) -> str:
        return self._mind(player, container)[0]

    def _reply(self, asked: str, container: str) -> str:
        belief = self._belief(asked, container)
        if not self.lineup.lies_to(asked, self.actor):
            return belief
        return liars_item(self.scenario, asked, belief, f"lie:{self.seed}:{asked}:{container}")


def liars_item(scenario: Scenario, liar: str, belief: str, seed: str) -> str:
    """A lie: something the liar believes is NOT there, so it is never the truth as the
    liar sees it (the reference's fixed first-differing item could be): an item the liar
    and A both saw, else "nothing", else any item. An item A never saw would reveal unseen
    events to A."""
    seen = sorted(
        {
            event.item
            for room, event in zip(scenario.rooms, scenario.events, strict=False)
            if isinstance(event, (Put, Move))
            and perceives(liar, room, event)
            and perceives(SELF, room, event)
        }
        - {belief}
    )
    candidates = seen or ([NOTHING] if belief != NOTHING else [i for i in ITEMS if i != belief])
    return random.Random(seed).choice(candidates)
