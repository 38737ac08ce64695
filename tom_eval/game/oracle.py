"""The oracle: everything the engine derives for one scenario, in one place.

Generator, checker, game and scorers all call `solve` (the Inspect task through
`shared_solution`, its memo); none derives labels or actions another way. A's side comes
only from the observer (`epistemics.observe`); ground truth (`actual_minds`) is kept beside
it to check that A's inferences are sound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from types import MappingProxyType

from tom_eval.game.decisions import Decision, Situation, decide
from tom_eval.game.epistemics import Assessment, Mind, Observation, actual_minds, assess, observe
from tom_eval.game.rules import SEED_RULES, Rules
from tom_eval.game.world import CHARACTERS, NEUTRAL, OPPONENTS, SELF, Scenario


@dataclass(frozen=True)
class Solution:
    """What the engine derives from one scenario. Each part is computed on first use, in
    dependency order, so the generator can reject a candidate on its labels before paying
    for ground truth or the decision. Reading `observation` replays the story and raises
    InvalidEvent if it is impossible."""

    scenario: Scenario
    rules: Rules = SEED_RULES
    with_neutral: bool = False
    """Whether the neutral player N is in the line-up (A may ask or tell it)."""

    @cached_property
    def observation(self) -> Observation:
        return observe(self.scenario)

    @cached_property
    def assessment(self) -> Assessment:
        return assess(self.observation)

    @cached_property
    def _actual(self) -> tuple[str | None, Mapping[str, Mind]]:
        truth, minds = actual_minds(self.scenario)
        return truth, MappingProxyType(minds)

    @property
    def truth(self) -> str | None:
        """What the question container really holds at the end (None: empty)."""
        return self._actual[0]

    @property
    def minds(self) -> Mapping[str, Mind]:
        """Each player's actual mind (ground truth, never shown to A); read-only, as a
        solution is shared (`shared_solution`)."""
        return self._actual[1]

    @cached_property
    def situation(self) -> Situation:
        others = tuple(player for player in CHARACTERS if player != SELF)
        return Situation(
            self.assessment,
            self.scenario.question,
            self.scenario.answerer,
            (*others, NEUTRAL) if self.with_neutral else others,
            self.scenario.containers,
            self.rules,
        )

    @cached_property
    def decision(self) -> Decision:
        return decide(self.situation)

    @property
    def opponent_labels(self) -> tuple[str, ...]:
        """The opponent labels that count for the spec's Opponent column (docs/engine.md):
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
            if self.assessment.knows_for_sure(player) and not self.minds[player].knows:
                problems.append(f"A is sure {player} saw the latest change, but it did not")
        return problems


def solve(scenario: Scenario, rules: Rules = SEED_RULES, with_neutral: bool = False) -> Solution:
    """Everything the engine derives from `scenario`; raises InvalidEvent if it is impossible."""
    solution = Solution(scenario, rules, with_neutral)
    _ = solution.observation
    return solution


SOLUTIONS_KEPT = 16_384
"""How many solutions `shared_solution` keeps: every scenario of a run of 100 reps (15,600),
so a sample's second and third use always find its first."""


@lru_cache(maxsize=SOLUTIONS_KEPT)
def shared_solution(scenario: Scenario, rules: Rules, with_neutral: bool) -> Solution:
    """`solve`, once per process for each (scenario, rules, neutral): the Inspect task uses a
    story's solution three times (building the dataset, playing the turn, scoring it), and
    solving is pure, so the three share one. The cache is the only state: bounded, keyed by
    immutable values, and holding only what `solve` would return again. A Solution is
    shared, and read-only: its `minds` and its assessment's statuses are mapping proxies."""
    return solve(scenario, rules, with_neutral)
