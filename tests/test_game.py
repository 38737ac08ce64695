"""One turn of the game: replies by honesty type, Tells by trust, answers and points."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tom_eval.errors import InputError
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.oracle import solve
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import story_line
from tom_eval.game.trial import Trial, trial_seed
from tom_eval.game.turn import DEFAULT_LINEUP, Turn, parse_lineup
from tom_eval.game.world import ITEMS, Enter, Leave, Move, Put, Scenario

# A puts a ball in the bag and leaves; B stays and sees C move the ball to the box and put
# an apple in the bag. D left before anything happened (believes the bag is empty).
STORY = (
    Leave("D"),
    Put("A", "ball", "bag"),
    Leave("A"),
    Move("C", "ball", "bag", "box"),
    Put("C", "apple", "bag"),
    Enter("A"),
)


def turn(answerer: str = "A", lineup: str = "default", lose: bool = False) -> Turn:
    scenario = Scenario(frozenset("ABCD"), STORY, "bag", answerer)
    rules = Rules(lose=lose)
    return Turn(solve(scenario, rules), parse_lineup(lineup), rules, seed="test")


def test_a_teammate_answers_an_ask_truthfully_even_if_dishonest() -> None:
    assert DEFAULT_LINEUP.type_of("B") == "dishonest_teammate"
    assert turn().apply_action(Action("ask", "B", "bag")).reply == "apple"


def replies_of(asked: str, lineup: str, seeds: int = 40) -> set[str | None]:
    return {
        Turn(turn().solution, parse_lineup(lineup), Rules(), seed=str(seed))
        .apply_action(Action("ask", asked, "bag"))
        .reply
        for seed in range(seeds)
    }


def test_a_dishonest_opponent_lies_and_the_lie_is_never_what_it_believes() -> None:
    # D left before anything happened: it believes the bag is empty and saw no item, so
    # its lie is some item, never "nothing".
    lies = replies_of("D", "default")
    assert "nothing" not in lies and lies <= set(ITEMS) and len(lies) > 1
    # C saw the ball and the apple and believes the apple: it names the ball, the only
    # other thing it saw (naming an item A never saw would reveal hidden events).
    assert replies_of("C", "C=dishonest_opponent,D=honest_opponent") == {"ball"}


def test_a_trials_lie_varies_with_the_epoch_and_repeats_with_it() -> None:
    """The item D lies with in trial mode is drawn from the task's seed, the sample and the
    epoch, like the options' order: epochs and seeds vary it, a rerun repeats it."""
    story = story_line(Scenario(frozenset("ABCD"), STORY, "bag", "A"))

    def lie(task_seed: int, epoch: int) -> str | None:
        seed = trial_seed(task_seed, "test-1", epoch)
        trial = Trial.start(story, "test-1", DEFAULT_LINEUP, Rules(), "action", seed)
        return trial.act("Ask(D, bag)").turn.reply

    lies = {lie(0, epoch) for epoch in range(1, 21)}
    assert len(lies) > 1 and "nothing" not in lies
    assert len({lie(task_seed, 1) for task_seed in range(20)}) > 1
    assert lie(0, 3) == lie(0, 3)


def test_a_trials_answer_is_read_about_the_question_container() -> None:
    """A conclusion about the box ("so the box is empty") says nothing of the bag asked."""
    story = story_line(Scenario(frozenset("ABCD"), STORY, "bag", "A"))
    trial = Trial.start(story, "test-1", DEFAULT_LINEUP, Rules(), "action", "seed").act("Pass")
    answered = trial.answer("The apple is in the bag, so the box is empty.")
    assert answered.parsed_answer is not None and answered.parsed_answer.contents == "apple"


def test_an_honest_opponent_answers_blue_truthfully() -> None:
    assert turn().apply_action(Action("ask", "C", "bag")).reply == "apple"
    assert turn().apply_action(Action("ask", "C", "box")).reply == "ball"


def test_the_neutral_player_is_never_in_the_room() -> None:
    asked = turn(lineup="N=neutral").apply_action(Action("ask", "N", "bag"))
    assert asked.reply == "nothing"


def test_a_teammate_adopts_a_tell_unless_it_knows() -> None:
    # B saw the latest change: it knows and ignores a contradicting Tell.
    told = turn("B").apply_action(Action("tell", "B", "bag", "banana")).answer_by_simulation()
    assert told.answer == "apple" and told.answer_correct


def test_opponents_ignore_tells_from_blue() -> None:
    told = turn("D").apply_action(Action("tell", "D", "bag", "apple")).answer_by_simulation()
    assert told.answer == "nothing" and not told.answer_correct
    assert told.returns() == {"blue": -0.5, "red": 0.0}


def test_points_follow_the_rules() -> None:
    passed = turn().apply_action(PASS)
    assert passed.apply_answer("apple").returns() == {"blue": 1.0, "red": 0.0}
    assert passed.apply_answer("ball").returns() == {"blue": 0.0, "red": 0.0}
    assert passed.apply_answer(None).returns() == {"blue": 0.0, "red": 0.0}
    lose = turn(lose=True).apply_action(Action("ask", "B", "bag")).apply_answer("ball")
    assert lose.returns() == {"blue": -1.5, "red": 0.0}
    red = turn("C", lose=True).apply_action(PASS).answer_by_simulation()
    assert red.answer_correct and red.returns() == {"blue": 0.0, "red": 1.0}
    assert red.margin == -1.0


def test_the_turn_is_a_state_machine() -> None:
    start = turn()
    assert start.legal_actions() and not start.is_terminal()
    acted = start.apply_action(PASS)
    assert acted.legal_actions() == ()
    # A simulated actor acts by its type: A's actions are not its options.
    assert replace(start, actor="C").legal_actions() == ()
    with pytest.raises(ValueError, match="no action in the answer phase"):
        acted.apply_action(PASS)
    with pytest.raises(ValueError, match="only a simulated answerer"):
        acted.answer_by_simulation()
    with pytest.raises(ValueError, match="not in the game"):
        start.apply_action(Action("ask", "N", "bag"))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("B=honest_opponent", "B cannot be 'honest_opponent'"),
        ("B,C,C,D", r"B needs a type, as in B=honest_teammate \(honest_teammate, dishonest_"),
        ("A=honest_teammate", "unknown player 'A'"),
        ("Z=neutral", "unknown player 'Z'"),
    ],
)
def test_bad_lineups_fail_in_one_line(text: str, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        parse_lineup(text)


def test_lineup_changes_apply_to_the_default() -> None:
    lineup = parse_lineup("D=honest_opponent,N=neutral")
    assert str(lineup) == "B=dishonest_teammate,C=honest_opponent,D=honest_opponent,N=neutral"
    assert not lineup.lies_to("D", "A") and lineup.has_neutral


def test_a_lineup_may_come_as_inspect_s_list_of_parts() -> None:
    # `-T lineup=B=honest_teammate,N=neutral` reaches the task as a list.
    as_list = parse_lineup(["B=honest_teammate", "N=neutral"])
    assert as_list == parse_lineup("B=honest_teammate,N=neutral")
    assert as_list.type_of("B") == "honest_teammate" and as_list.has_neutral
