"""The oracle: everything the engine derives for one scenario, in one place.

Generator, checker, game and scorers all call `solve`; none derives labels or actions
another way. A's side comes only from the observer (`epistemics.observe`); ground
truth (`actual_minds`) is kept beside it to check that A's inferences are sound.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tom_eval.decisions import Decision, Situation, decide
from tom_eval.epistemics import Assessment, Mind, Observation, actual_minds, assess, observe
from tom_eval.rules import Rules
from tom_eval.world import CHARACTERS, NEUTRAL, OPPONENTS, SELF, Scenario


@dataclass(frozen=True)
class Solution:
    scenario: Scenario
    observation: Observation
    assessment: Assessment
    truth: str | None
    minds: dict[str, Mind]
    situation: Situation

    @cached_property
    def decision(self) -> Decision:
        """Computed on first use: the generator rejects most candidates before needing it."""
        return decide(self.situation)

    @property
    def opponent_labels(self) -> tuple[str, ...]:
        """The opponent labels that count for the spec's Opponent column (TOM_GAME.md section 3):
        the answering opponent's, or either opponent's when Blue answers."""
        answerer = self.scenario.answerer
        if answerer in OPPONENTS:
            return (self.assessment.label(answerer),)
        return tuple(self.assessment.label(opponent) for opponent in OPPONENTS)

    def unsound_inferences(self) -> list[str]:
        """Places where A's certain inference contradicts ground truth (must never happen)."""
        problems = []
        for player in CHARACTERS:
            status = self.assessment.statuses[player]
            belief = self.minds[player].belief
            if status == "true" and belief != self.truth:
                problems.append(f"{player} is certainly right from A's view but believes {belief}")
            if status == "false" and belief == self.truth:
                problems.append(f"{player} is certainly wrong from A's view but is right")
            if player != SELF and self.assessment.label(player) == "Knows Truth":
                if not self.minds[player].knows:
                    problems.append(f"{player} is labelled Knows Truth but does not know")
        return problems


def solve(scenario: Scenario, rules: Rules = Rules(), with_neutral: bool = False) -> Solution:
    observation = observe(scenario)
    assessment = assess(observation)
    truth, minds = actual_minds(scenario)
    others = tuple(player for player in CHARACTERS if player != SELF)
    situation = Situation(
        assessment,
        scenario.question,
        scenario.answerer,
        (*others, NEUTRAL) if with_neutral else others,
        scenario.containers,
        rules,
    )
    return Solution(scenario, observation, assessment, truth, minds, situation)

