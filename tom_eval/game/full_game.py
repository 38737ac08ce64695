"""The full game (docs/full-games.md; the seed's race to the winning score), Inspect-free.

Turns rotate A, C, B, D (teams alternate, as in the reference's line-up). Every turn
plays a new scenario; points carry over; the first team to the winning score,
int(turns / players) + 4, wins.

Duplicate play, as in duplicate bridge: each story designed for the spec is played twice
in a row, first with a Blue player in its acting seat A, then mirrored, with that
player's Red counterpart in the acting seat and everyone else swapped across teams
(A<->C, B<->D). Both teams face the same dilemmas and the same questions, so a lead comes
from playing better, not from being dealt easier turns. For the same reason the winning
score is checked only when a round of four turns is complete: stopping mid-round would
give the team that moves first one more scenario.

The simulated characters act by the policy of `simulated_action`; the live player A's
moves come from outside (the model), through `Turn`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from tom_eval.errors import InputError
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.epistemics import actual_minds
from tom_eval.game.oracle import solve
from tom_eval.game.rules import Rules
from tom_eval.game.turn import Lineup, Turn, liars_item
from tom_eval.game.world import (
    ITEMS,
    NOTHING,
    SELF,
    TEAMMATE,
    TEAMS,
    Scenario,
    relabel,
    rename_objects,
)

TURN_ORDER: tuple[str, ...] = (SELF, "C", TEAMMATE, "D")
"""Who plays which turn of a round: the teams alternate, and each Blue turn is followed by
its Red mirror."""
_BLUE_SEATINGS: dict[str, dict[str, str]] = {
    SELF: {"A": "A", "B": "B", "C": "C", "D": "D"},
    TEAMMATE: {"A": "B", "B": "A", "C": "C", "D": "D"},
}
_MIRROR = {"A": "C", "B": "D", "C": "A", "D": "B"}
"""Swaps the teams: each Blue player with its Red counterpart in the turn order."""
_MIRRORED_OWNER = {"C": SELF, "D": TEAMMATE}

Winner = Literal["blue", "red", "tie"]


@dataclass(frozen=True)
class TurnPlan:
    """Who plays which designed story on one turn, and where everyone sits in it."""

    number: int
    """1-based."""
    owner: str
    key: str
    """The designed story's key (`<Id>-<Extra>-r<rep>`)."""
    designed: Scenario
    """The story as designed for the spec, with the acting player in seat A."""
    seating: tuple[tuple[str, str], ...]
    """Seat of the designed story -> the player sitting in it."""

    @cached_property
    def scenario(self) -> Scenario:
        """The story as played: the owner in the acting seat."""
        return relabel(self.designed, dict(self.seating))

    def seated(self, action: Action) -> Action:
        """An action of the designed story, addressed to the player in that seat."""
        if action.player is None:
            return action
        return replace(action, player=dict(self.seating).get(action.player, action.player))


def schedule(designed: Sequence[tuple[str, Scenario]], turns: int) -> tuple[TurnPlan, ...]:
    """The turns of a game: designed story k is played on turns 2k+1 (by A or B) and 2k+2
    (mirrored, by C or D)."""
    if turns <= 0 or turns % len(TURN_ORDER):
        raise InputError(f"turns must be a positive multiple of {len(TURN_ORDER)}, not {turns}")
    if len(designed) < turns // 2:
        raise InputError(f"a game of {turns} turns needs {turns // 2} stories, not {len(designed)}")
    plans = []
    for index in range(turns):
        owner = TURN_ORDER[index % len(TURN_ORDER)]
        key, story = designed[index // 2]
        if owner in _MIRRORED_OWNER:
            story = disguise(story, f"disguise:{key}:{index}")
        seating = _seating(owner)
        plans.append(TurnPlan(index + 1, owner, key, story, tuple(sorted(seating.items()))))
    return tuple(plans)


def disguise(story: Scenario, seed: str) -> Scenario:
    """The story with its items and containers renamed at random: the same dilemma, which A
    cannot answer by remembering the turn before (where the story and its answer were
    public)."""
    rng = random.Random(seed)
    items, containers = list(ITEMS), list(story.containers)
    rng.shuffle(items)
    rng.shuffle(containers)
    return rename_objects(
        story,
        dict(zip(ITEMS, items, strict=True)),
        dict(zip(story.containers, containers, strict=True)),
    )


def _seating(owner: str) -> dict[str, str]:
    if owner in _BLUE_SEATINGS:
        return _BLUE_SEATINGS[owner]
    blue = _BLUE_SEATINGS[_MIRRORED_OWNER[owner]]
    return {seat: _MIRROR[player] for seat, player in blue.items()}


def draw_stories(
    pool: Sequence[tuple[str, Scenario]], turns: int, seed: str
) -> list[tuple[str, Scenario]]:
    """The designed stories of one game: a seeded draw in which no base story appears twice
    (the four Extras of one base story share its events, so two of them in one game would
    let A carry an answer over). A pool with fewer base stories than the game needs is
    refused: cycling through it again would break that."""
    needed = turns // 2
    bases = len({base_story(key) for key, _ in pool})
    if bases < needed:
        raise InputError(
            f"a game of {turns} turns plays {needed} base stories, and the scenarios hold "
            f"{bases}: add Ids or reps (or stories to the scenario file), or play fewer turns"
        )
    rng = random.Random(f"game-stories:{seed}")
    batch = list(pool)
    rng.shuffle(batch)
    stories: list[tuple[str, Scenario]] = []
    used: set[str] = set()
    for key, story in batch:
        if len(stories) < needed and base_story(key) not in used:
            stories.append((key, story))
            used.add(base_story(key))
    return stories


def base_story(key: str) -> str:
    """`<Id>-<Extra>-r<rep>` -> `<Id>-r<rep>`: the base story the four Extras share."""
    parts = key.split("-")
    return f"{parts[0]}-{parts[-1]}" if len(parts) == 3 else key


def simulated_action(plan: TurnPlan, lineup: Lineup, rules: Rules, seed: str) -> Action:
    """What a simulated owner does on its turn, by its type (docs/game.md).

    1. The engine's optimal action from its own seat (the designed story, where the
       owner sits in seat A):
       tell a teammate answerer who is wrong or unsure what it knows; ask a teammate who
       knows when it must answer and only believes; otherwise pass.
    2. When that is Pass, a dishonest character plays one of two gambits, which cost its
       team 0.5 and gain nothing against a player who keeps the trust rule, and exist to
       probe A: it tells the other team's answerer something it believes is false, or,
       when it must answer itself and cannot be sure, it asks the other team's first
       player (A for Red, C for Blue), whose reply it then ignores. Dishonest B and D
       mirror each other in the default line-up, so the gambits cost both teams alike.
    """
    own_view = solve(plan.designed, rules, with_neutral=lineup.has_neutral)
    action = plan.seated(own_view.decision.optimal)
    scenario, owner = plan.scenario, plan.owner
    if action != PASS or not lineup.type_of(owner).startswith("dishonest"):
        return action
    answerer, question = scenario.answerer, scenario.question
    if TEAMS[answerer] not in (TEAMS[owner], "neutral"):
        belief = actual_minds(scenario)[1][owner].belief or NOTHING
        return Action(
            "tell", answerer, question, liars_item(scenario, owner, belief, f"gambit:{seed}")
        )
    if answerer == owner and own_view.assessment.statuses[SELF] != "true":
        return Action("ask", _FIRST_PLAYER[TEAMS[owner]], question)
    return PASS


_FIRST_PLAYER = {"blue": "C", "red": SELF}
"""Whom a dishonest character asks: the other team's first player in the rotation."""


@dataclass(frozen=True)
class Game:
    """The state of a game between turns: the plan, the score and how far play has got."""

    plan: tuple[TurnPlan, ...]
    lineup: Lineup
    rules: Rules
    seed: str
    scores: dict[str, float] = field(default_factory=lambda: {"blue": 0.0, "red": 0.0})
    played: int = 0

    @property
    def winning_score(self) -> int:
        """The seed's rule: int(number of scenarios / number of players) + 4."""
        return len(self.plan) // len(TURN_ORDER) + 4

    def is_terminal(self) -> bool:
        if self.played == len(self.plan):
            return True
        round_complete = self.played > 0 and self.played % len(TURN_ORDER) == 0
        return round_complete and max(self.scores.values()) >= self.winning_score

    @property
    def next_plan(self) -> TurnPlan:
        if self.is_terminal():
            raise ValueError("the game is over")
        return self.plan[self.played]

    def start_turn(self) -> Turn:
        """The next turn, with a simulated owner's action already applied."""
        plan = self.next_plan
        seed = f"{self.seed}:turn{plan.number}"
        turn = Turn(
            solve(plan.scenario, self.rules, with_neutral=self.lineup.has_neutral),
            self.lineup,
            self.rules,
            seed,
            actor=plan.owner,
        )
        if plan.owner == SELF:
            return turn
        return turn.apply_action(simulated_action(plan, self.lineup, self.rules, seed))

    def after(self, turn: Turn) -> Game:
        """The game once `turn` (finished) has been scored."""
        points = turn.returns()
        scores = {team: self.scores[team] + points[team] for team in self.scores}
        return replace(self, scores=scores, played=self.played + 1)

    @property
    def winner(self) -> Winner:
        blue, red = self.scores["blue"], self.scores["red"]
        return "blue" if blue > red else "red" if red > blue else "tie"

    @property
    def margin(self) -> float:
        """Blue minus Red."""
        return self.scores["blue"] - self.scores["red"]
