"""A's labels on hand-worked stories (docs/engine.md), and ground truth beside them."""

from __future__ import annotations

from conftest import returning_teammate
from tom_eval.game.epistemics import actual_minds, assess, observe
from tom_eval.game.narration import narrate, question_line
from tom_eval.game.world import Enter, Event, Leave, Move, Put, Scenario


def labels(*events: Event, present: str = "ABCD", answerer: str = "A") -> dict[str, str]:
    scenario = Scenario(frozenset(present), events, "bag", answerer)
    return {
        player: label for player, label in assess(observe(scenario)).labels.items() if player != "N"
    }


def test_everyone_present_knows() -> None:
    assert labels(Put("C", "ball", "bag")) == {
        "A": "Knows X",
        "B": "Knows Truth",
        "C": "Knows Truth",
        "D": "Knows Truth",
    }


def test_leaving_after_the_last_change_is_a_true_belief() -> None:
    assert labels(Put("C", "ball", "bag"), Leave("B"))["B"] == "Believes Truth"


def test_a_change_seen_by_a_while_b_is_out_makes_b_certainly_wrong() -> None:
    got = labels(
        Put("B", "ball", "bag"),
        Leave("B"),
        Move("C", "ball", "bag", "box"),
        Put("D", "apple", "bag"),
    )
    assert got["B"] == "Believes False"
    assert got["A"] == "Knows X"


def test_a_player_who_never_saw_the_room_believes_it_empty() -> None:
    assert labels(Put("C", "ball", "bag"), present="ACD")["B"] == "Believes False"


def test_a_out_while_someone_is_in_makes_a_and_the_absent_unsure() -> None:
    got = labels(Put("A", "ball", "bag"), Leave("B"), Leave("A"))
    assert got["A"] == "Believes X"
    assert got["B"] == "Unknown"  # out with a belief A knows, but the truth may have changed
    assert got["C"] == "Knows Truth"  # in the room throughout: it saw whatever happened


def test_nothing_changes_while_the_room_is_empty() -> None:
    got = labels(Put("A", "ball", "bag"), Leave("B"), Leave("C"), Leave("D"), Leave("A"))
    assert got == {
        "A": "Knows X",
        "B": "Believes Truth",
        "C": "Believes Truth",
        "D": "Believes Truth",
    }


def test_entering_teaches_nothing() -> None:
    got = labels(Put("A", "ball", "bag"), Leave("B"), Leave("A"), Enter("A"))
    assert got["A"] == "Believes X"


def test_a_player_who_was_in_the_room_while_a_was_out_is_unknown_once_it_leaves() -> None:
    got = labels(Put("A", "ball", "bag"), Leave("A"), Leave("B"), Enter("A"))
    assert got["B"] == "Unknown"


def test_a_tracking_player_outside_becomes_certainly_wrong_when_a_sees_the_change() -> None:
    # B stayed with C while A was out, then left with whatever it saw. A returns and sees
    # the ball taken out: B (who believed the ball was there) is now certainly wrong.
    got = labels(
        Put("A", "ball", "bag"),
        Leave("D"),
        Leave("A"),
        Enter("A"),
        Leave("B"),
        Move("C", "ball", "bag", "box"),
    )
    assert got["B"] == "Believes False"


def test_ect_counts_knowledge_and_truth_flips() -> None:
    base = Scenario(frozenset("ABCD"), (Put("C", "ball", "bag"),), "bag", "A")
    # B steps out and back while A watches: knows -> believes -> knows, two transitions.
    stepped = Scenario(
        frozenset("ABCD"), (Put("C", "ball", "bag"), Leave("B"), Enter("B")), "bag", "A"
    )
    # B away while the ball goes out and back: true -> false -> true, plus leaving.
    round_trip = Scenario(
        frozenset("ABCD"),
        (
            Put("C", "ball", "bag"),
            Leave("B"),
            Move("C", "ball", "bag", "box"),
            Move("C", "ball", "box", "bag"),
        ),
        "bag",
        "A",
    )
    ect = [assess(observe(scenario)).ect for scenario in (base, stepped, round_trip)]
    assert ect == [0, 2, 3]


def test_hidden_events_are_neither_narrated_nor_known() -> None:
    scenario = Scenario(
        frozenset("ABCD"),
        (
            Put("A", "ball", "bag"),
            Leave("A"),
            Move("C", "ball", "bag", "box"),
            Put("C", "apple", "bag"),
        ),
        "bag",
        "B",
    )
    observation = observe(scenario)
    text = narrate(observation)
    assert "apple" not in text and "moves" not in text
    assert text.splitlines()[1:] == ["You put a ball in the bag.", "You leave the room."]
    assert question_line(observation) == "I am going to ask B what is in the bag."
    truth, minds = actual_minds(scenario)
    assert truth == "apple"
    assert minds["A"].belief == "ball" and not minds["A"].knows
    assert minds["B"].belief == "apple" and minds["B"].knows


def test_narration_names_who_is_outside() -> None:
    scenario = Scenario(frozenset("AC"), (Enter("B"),), "bag", "A")
    assert narrate(observe(scenario)).splitlines() == [
        "You and C are in a room. "
        "Inside the room are an empty bag, an empty box, and an empty basket.",
        "B enters the room.",
    ]


def test_a_outside_at_the_start_cannot_see_what_happens() -> None:
    got = labels(Put("B", "apple", "bag"), present="BCD")
    assert got["A"] == "Believes X" and got["B"] == "Knows Truth"


def test_a_player_certainly_right_when_a_steps_out_stays_certainly_right() -> None:
    # B is away while A takes the ball out and puts it back, so B is right again and A
    # knows it. A leaves the room empty, then B comes in: B was certainly right and sees
    # whatever happens from now on, so it stays certainly right.
    got = labels(
        Put("A", "ball", "bag"),
        Leave("B"),
        Leave("C"),
        Leave("D"),
        Move("A", "ball", "bag", "box"),
        Move("A", "ball", "box", "bag"),
        Leave("A"),
        Enter("B"),
    )
    assert got["B"] == "Knows Truth"


def test_being_right_in_the_room_is_not_having_seen_the_latest_change() -> None:
    # B re-enters after the ball went out and back while it was away: it is right, and A
    # knows it, but it did not see the latest change, so it would believe a Tell.
    scenario = returning_teammate()
    assessment = assess(observe(scenario))
    assert assessment.label("B") == "Knows Truth"
    assert not assessment.knows_for_sure("B") and assessment.knows_for_sure("C")
    _, minds = actual_minds(scenario)
    assert not minds["B"].knows and minds["C"].knows
