"""The game's rules (docs/game.md) as small predicates.

The decision engine and the game both call these, so the oracle and the play can
never disagree about what a Tell does, who lies, or what an answer scores.
"""

from __future__ import annotations

from dataclasses import dataclass

from tom_eval.game.world import NEUTRAL, TEAMS

ACTION_COST = 0.5
"""What an Ask or a Tell costs the actor's team."""
ANSWER_POINTS = 1.0


@dataclass(frozen=True, slots=True)
class Rules:
    """Rule switches that change points; the rest is fixed (docs/game.md)."""

    lose: bool = False
    """A wrong answer costs the answerer's team one point."""


SEED_RULES = Rules()
"""The rules of the seed game, as docs/game.md states them."""


def same_team(first: str, second: str) -> bool:
    return TEAMS[first] == TEAMS[second] and TEAMS[first] != "neutral"


def adopts_tell(hearer: str, speaker: str, hearer_knows: bool) -> bool:
    """Teammates trust each other, opponents don't; a player who knows ignores hearsay."""
    return same_team(hearer, speaker) and not hearer_knows


def always_truthful_to(replier: str, asker: str) -> bool:
    """Whether `asker` can rely on the reply whatever the replier's honesty type.

    Every teammate type answers its own team truthfully and the neutral player is
    honest; an opponent may be dishonest, and A is never told which opponent is which.
    """
    return same_team(replier, asker) or replier == NEUTRAL


def answer_score(correct: bool, rules: Rules) -> float:
    """Points the answerer's team gets for its answer."""
    wrong = -ANSWER_POINTS if rules.lose else 0.0
    return ANSWER_POINTS if correct else wrong


def answer_points(answerer: str, correct: bool, rules: Rules) -> float:
    """Blue-minus-Red points from the answer phase."""
    score = answer_score(correct, rules)
    return score if TEAMS[answerer] == "blue" else -score
