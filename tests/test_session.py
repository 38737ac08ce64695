"""What player A is shown in a full game, under each history mode, word for word; and how
A's actions, replies and answers are read and recorded."""

from __future__ import annotations

import pytest

from tom_eval.game.full_game import schedule
from tom_eval.game.rules import Rules
from tom_eval.game.session import GameSession, HistoryMode, Request, TurnRecord
from tom_eval.game.turn import DEFAULT_LINEUP
from tom_eval.game.world import Leave, Move, Put, Scenario

ABCD = frozenset("ABCD")
# Story 1: A (acting seat) puts an apple in the bag; B answers. Story 2: the acting seat
# empties the box after its teammate left; the teammate answers, so it is told.
FIRST = Scenario(ABCD, (Put("A", "apple", "bag"),), "bag", "B")
SECOND = Scenario(
    ABCD, (Put("A", "ball", "box"), Leave("B"), Move("A", "ball", "box", "basket")), "box", "B"
)

TURN_1 = """TURN 1 OF 4: your turn
SCORE
Blue 0, Red 0

STORY
Here is what you see:
You, B, C, and D are in a room. Inside the room are an empty bag, an empty box, and an empty basket.
You put an apple in the bag.

QUESTION
I am going to ask B what is in the bag."""
ACT = (
    "It is your turn. Respond ONLY with your action, as Pass, Ask(Player, Container) or "
    "Tell(Player, Container, Contents), and no other text."
)
RESULT_1 = """RESULT OF TURN 1
B answers an apple, which is right. Points this turn: Blue +1, Red +0."""
TURN_2_AND_RESULT = """TURN 2 OF 4: C's turn
SCORE
Blue 1, Red 0

STORY
Here is what you see:
You, B, C, and D are in a room. Inside the room are an empty bag, an empty box, and an empty basket.
C puts a banana in the bag.

QUESTION
I am going to ask D what is in the bag.

RESULT OF TURN 2
D answers a banana, which is right. Points this turn: Blue +0, Red +1."""
TURN_3 = """TURN 3 OF 4: B's turn
SCORE
Blue 1, Red 1

STORY
Here is what you see:
You, B, C, and D are in a room. Inside the room are an empty bag, an empty box, and an empty basket.
B puts a ball in the box.
You leave the room.

QUESTION
I am going to ask you what is in the box.

B tells you: the box contains nothing."""
ANSWER = (
    "ANSWER PHASE\nWhat is in the box? Respond with only what is in it: the object's name, "
    "or nothing if it is empty."
)


def play(history: HistoryMode, replies: list[str]) -> tuple[GameSession, list[Request]]:
    plan = schedule([("first", FIRST), ("second", SECOND)], 4)
    session = GameSession(plan, DEFAULT_LINEUP, Rules(), "action", history, "seed")
    texts, requests = iter(replies), []
    while not session.over:
        session.start_turn()
        while (request := session.request()) is not None:
            requests.append(request)
            session.receive(next(texts))
        session.end_turn()
    return session, requests


def test_history_none_shows_each_turn_alone() -> None:
    session, requests = play("none", ["Pass", "nothing"])
    rules = session.rules_text
    assert [(r.kind, r.fresh) for r in requests] == [("action", True), ("answer", True)]
    assert requests[0].text == f"{rules}\n\n{TURN_1}\n\n{ACT}"
    assert requests[1].text == f"{rules}\n\n{TURN_3}\n\n{ANSWER}"


def test_history_full_keeps_every_turn_and_result_in_one_conversation() -> None:
    session, requests = play("full", ["Pass", "nothing"])
    assert [(r.kind, r.fresh) for r in requests] == [("action", True), ("answer", False)]
    assert requests[0].text == f"{session.rules_text}\n\n{TURN_1}\n\n{ACT}"
    # Turn 2 asked nothing of A, but A watched it: it comes with the next message. It is
    # turn 1's story mirrored and disguised (a banana, not an apple).
    assert requests[1].text == f"{RESULT_1}\n\n{TURN_2_AND_RESULT}\n\n{TURN_3}\n\n{ANSWER}"


def test_history_actions_lists_a_s_earlier_actions_only() -> None:
    session, requests = play("actions", ["Tell(B, bag, apple)", "nothing"])
    rules = session.rules_text
    assert [(r.kind, r.fresh) for r in requests] == [("action", True), ("answer", True)]
    assert requests[0].text == f"{rules}\n\n{TURN_1}\n\n{ACT}"
    turn_3 = TURN_3.replace("Blue 1, Red 1", "Blue 0.5, Red 1")
    earlier = "YOUR EARLIER ACTIONS\nTurn 1: Tell(B, bag, apple)"
    assert requests[1].text == f"{rules}\n\n{earlier}\n\n{turn_3}\n\n{ANSWER}"


def test_the_game_rules_describe_turns_replies_and_the_winning_score() -> None:
    session, _ = play("none", ["Pass", "nothing"])
    rules = session.rules_text
    assert "The game has up to 4 turns" in rules
    assert "in the order A, C, B, D, A, C, B, D, and so on" in rules
    assert "the game ends if a team has 5 points or more" in rules
    assert "When another player asks you, you may reply as you wish, or refuse." in rules
    assert "It is your turn. You choose" not in rules


def records(history: HistoryMode, replies: list[str]) -> list[TurnRecord]:
    return play(history, replies)[0].records


def test_turn_records_follow_the_game() -> None:
    first, second, third, fourth = records("none", ["Pass", "nothing"])
    assert (first.owner, first.action, first.answer, first.blue, first.red) == (
        "A",
        "Pass",
        "apple",
        1.0,
        0.0,
    )
    assert (second.owner, second.executed, second.answerer) == ("C", "Pass", "D")
    assert (third.owner, third.executed, third.told_self) == (
        "B",
        "Tell(A, box, nothing)",
        "nothing",
    )
    assert (third.answer, third.answer_correct, third.score_blue, third.score_red) == (
        "nothing",
        True,
        1.5,
        1.0,
    )
    assert (fourth.executed, fourth.score_blue, fourth.score_red) == (
        "Tell(C, box, nothing)",
        1.5,
        1.5,
    )
    assert third.seen[-1].startswith("RESULT OF TURN 3")


def test_an_unreadable_action_is_recorded_and_played_as_pass() -> None:
    first = records("none", ["I am not sure what to do", "nothing"])[0]
    assert first.action is None and first.executed == "Pass"
    assert first.raw_action == "I am not sure what to do" and first.action_problem


@pytest.mark.parametrize(
    ("reply", "kind", "contents"),
    [
        ("ball", "truthful", "ball"),
        ("banana", "lie", "banana"),
        ("I refuse.", "refused", None),
        ("Pass", "refused", None),
        ("No comment.", "refused", None),
        # Withholding in other words: no secret or nope taken for the contents told.
        ("It's a secret.", "refused", None),
        ("Nope.", "refused", None),
        ("I'd rather not say.", "refused", None),
        ("I'm not going to tell you.", "refused", None),
        ("I don't know", "unreadable", None),
        # A reasoned reply is read at its conclusion about the basket D asked about.
        ("The apple went into the bag, so the basket holds the ball.", "truthful", "ball"),
        ("The ball is in the basket, so the bag is empty.", "truthful", "ball"),
    ],
)
def test_a_s_reply_to_an_ask_is_classified(reply: str, kind: str, contents: str | None) -> None:
    # Story: the acting seat must answer and left with its teammate: a dishonest owner asks
    # the other team's first player. On D's turn (mirrored, disguised: a ball in the basket)
    # that is A, who saw the ball go in.
    unsure = Scenario(ABCD, (Put("C", "apple", "bag"), Leave("A"), Leave("B")), "bag", "A")
    plan = schedule([("first", FIRST), ("unsure", unsure)], 4)
    session = GameSession(plan, DEFAULT_LINEUP, Rules(), "action", "none", "seed")
    texts = iter(["Pass", reply])
    while not session.over:
        session.start_turn()
        while (request := session.request()) is not None:
            if request.kind == "reply":
                assert request.text.endswith(
                    "D asks you what is in the basket. Respond with only what you tell them is in "
                    "it: an object's name, nothing if you say it is empty, or refuse."
                )
            session.receive(next(texts))
        session.end_turn()
    asked = session.records[3]
    assert (asked.owner, asked.executed) == ("D", "Ask(A, basket)")
    assert (asked.reply_to_ask_kind, asked.reply_to_ask, asked.self_belief) == (
        kind,
        contents,
        "ball",
    )
    # D ignores whatever A said (the trust rule) and answers from what it saw.
    assert asked.answer == "ball" and (asked.blue, asked.red) == (0.0, 0.5)
