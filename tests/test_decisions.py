"""The decision engine derives the spec table's Action column (docs/engine.md)."""

from __future__ import annotations

import pytest

from conftest import returning_teammate
from tom_eval.game.decisions import (
    _DECIDED,
    DECISIONS_KEPT,
    PASS,
    Action,
    Situation,
    _decided,
    decide,
    guaranteed_value,
    is_legal,
    legal_actions,
)
from tom_eval.game.epistemics import OTHER_LABELS, Assessment, Status
from tom_eval.game.oracle import solve
from tom_eval.game.rules import SEED_RULES, Rules
from tom_eval.game.spec import SpecRow
from tom_eval.game.world import CONTAINERS

BELIEF = "apple"
STATUS_OF_LABEL: dict[str, tuple[Status, bool]] = {
    "Knows X": ("true", True),
    "Believes X": ("unsure", False),
    "Knows Truth": ("true", True),
    "Believes Truth": ("true", False),
    "Believes False": ("false", False),
    "Unknown": ("unsure", False),
}
ANSWERER = {"Self": "A", "Teammate": "B", "Opponent": "C"}


def situation_for(
    row: SpecRow, other_opponent: str, unknown_present: bool = False, rules: Rules = SEED_RULES
) -> Situation:
    """A's view built from the row's labels only; D holds `other_opponent`."""
    labels = {
        "A": row.self_label,
        "B": row.teammate_label,
        "C": row.opponent_label,
        "D": other_opponent,
    }
    statuses: dict[str, Status] = {"N": "unsure"}
    present = set()
    for player, label in labels.items():
        status, inside = STATUS_OF_LABEL[label]
        statuses[player] = status
        if inside or (label == "Unknown" and unknown_present):
            present.add(player)
    self_knows = statuses["A"] == "true"
    # "Knows Truth" players were in the room for the latest change.
    saw_latest = frozenset(p for p, label in labels.items() if label == "Knows Truth")
    assessment = Assessment(
        statuses=statuses,
        present=frozenset(present),
        self_belief=BELIEF,
        truth=BELIEF if self_knows else None,
        truth_known=self_knows,
        ect=0,
        visible_events=0,
        saw_latest=saw_latest,
    )
    return Situation(assessment, "bag", ANSWERER[row.answerer], ("B", "C", "D"), CONTAINERS, rules)


def expected(row: SpecRow) -> Action:
    return {
        "Pass": PASS,
        "Ask Teammate": Action("ask", "B", "bag"),
        "Tell Teammate": Action("tell", "B", "bag", BELIEF),
    }[row.action]


def zero_a_rows(spec_rows: list[SpecRow]) -> list[SpecRow]:
    rows = [row for row in spec_rows if row.extra == "0A"]
    assert [row.id for row in rows] == list(range(1, 40))
    return rows


@pytest.mark.parametrize("lose", [False, True])
def test_every_spec_action_is_derived_not_looked_up(spec_rows: list[SpecRow], lose: bool) -> None:
    for row in zero_a_rows(spec_rows):
        # The spec's Opponent label holds for at least one opponent; the decision must not
        # depend on what the other one believes, nor on where an Unknown player sits.
        for other in OTHER_LABELS:
            for unknown_present in (False, True):
                decision = decide(situation_for(row, other, unknown_present, Rules(lose=lose)))
                assert decision.optimal == expected(row), (row.id, other, unknown_present)
                assert decision.margin > 0, row.id


def test_values_follow_the_rules(spec_rows: list[SpecRow]) -> None:
    rows = {row.id: row for row in zero_a_rows(spec_rows)}
    # Id 12: A only believes, the teammate knows: asking is worth the point minus its cost.
    ask = decide(situation_for(rows[12], "Unknown"))
    assert ask.values["Ask(B, bag)"] == 0.5 and ask.values["Pass"] == 0.0
    # Asking an opponent who knows is worthless: it may lie.
    assert ask.values["Ask(C, bag)"] == -0.5
    # Id 17: telling the false-believing teammate the truth beats passing by 0.5.
    tell = decide(situation_for(rows[17], "Believes Truth"))
    assert tell.values[f"Tell(B, bag, {BELIEF})"] == 0.5 and tell.values["Pass"] == 0.0
    assert tell.values["Tell(B, bag, other)"] == -0.5
    # Id 31: the opponent answers wrongly; with the lose rule Red pays for it.
    assert decide(situation_for(rows[31], "Believes False")).values["Pass"] == 0.0
    lose = decide(situation_for(rows[31], "Believes False", rules=Rules(lose=True)))
    assert lose.values["Pass"] == 1.0
    # Telling an opponent anything changes nothing (opponents don't trust Blue) and costs.
    assert lose.values["Tell(C, bag, other)"] == 0.5


def test_every_legal_action_gets_a_value(spec_rows: list[SpecRow]) -> None:
    situation = situation_for(zero_a_rows(spec_rows)[0], "Unknown")
    actions = legal_actions(situation)
    assert len(actions) == 1 + 3 * 3 + 3 * 3 * 7
    assert all(isinstance(guaranteed_value(situation, action), float) for action in actions)
    assert str(Action("tell", "B", "box", "nothing")) == "Tell(B, box, nothing)"


def test_a_tell_of_any_contents_is_legal_but_not_a_player_or_container_the_game_lacks(
    spec_rows: list[SpecRow],
) -> None:
    """The parser keeps a Tell of what the game lacks ("pear"); the engine values it as a
    Tell of what A does not believe, so the scorer scores it rather than refusing it."""
    situation = situation_for(zero_a_rows(spec_rows)[0], "Unknown")
    pear = Action("tell", "B", "box", "pear")
    assert is_legal(situation, pear) and pear not in legal_actions(situation)
    other = Action("tell", "B", "box", "banana")
    assert guaranteed_value(situation, pear) == guaranteed_value(situation, other)
    assert all(is_legal(situation, action) for action in legal_actions(situation))
    for action in (
        Action("tell", "Z", "box", "pear"),
        Action("tell", "B", "shelf", "apple"),
        Action("ask", "B", "shelf"),
        Action("ask", "A", "box"),
    ):
        assert not is_legal(situation, action)


def test_a_lie_to_a_teammate_who_did_not_see_the_latest_change_is_believed() -> None:
    scenario = returning_teammate()
    solution = solve(scenario)
    assert guaranteed_value(solution.situation, Action("tell", "B", "bag", "apple")) == -0.5
    assert solution.decision.optimal == PASS


@pytest.mark.parametrize("lose", [False, True])
def test_a_remembered_decision_is_the_one_made_afresh(spec_rows: list[SpecRow], lose: bool) -> None:
    """`decide` remembers decisions by what they depend on; each is the one `_decided` makes
    for that very situation, and its values are the caller's own copy."""
    rules = Rules(lose=lose)
    for row in zero_a_rows(spec_rows):
        for other in OTHER_LABELS:
            situation = situation_for(row, other, rules=rules)
            optimal, margin, classes = _decided(situation)
            first, again = decide(situation), decide(situation)
            assert (first.optimal, first.margin, first.values) == (optimal, margin, dict(classes))
            assert again == first and again.values is not first.values
    assert 0 < len(_DECIDED) <= DECISIONS_KEPT
