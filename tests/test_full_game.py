"""The full game: turn order, duplicate seating, simulated characters, points, the winning
condition, and 100 seeded games of the reference players played through their prompts."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tom_eval.errors import InputError
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.epistemics import actual_minds
from tom_eval.game.full_game import TURN_ORDER, Game, draw_stories, schedule, simulated_action
from tom_eval.game.generation import generate
from tom_eval.game.oracle import solve
from tom_eval.game.players import respond
from tom_eval.game.prompts import SYSTEM_PROMPT
from tom_eval.game.rules import Rules
from tom_eval.game.session import GameSession, HistoryMode
from tom_eval.game.spec import parse_extras, parse_ids, read_mastery, read_spec, select_rows
from tom_eval.game.turn import DEFAULT_LINEUP, parse_lineup
from tom_eval.game.world import CHARACTERS, TEAMS, Leave, Move, Put, Scenario, relabel

ABCD = frozenset("ABCD")
# Seat A puts an apple in the bag in front of everyone; seat B (teammate) answers: Pass.
PLAIN = Scenario(ABCD, (Put("A", "apple", "bag"),), "bag", "B")
# Seat B leaves before seat A empties the box: seat B (answerer) is wrong, so seat A tells it.
TELL = Scenario(
    ABCD, (Put("A", "ball", "box"), Leave("B"), Move("A", "ball", "box", "basket")), "box", "B"
)
# Seat C (an opponent, answering) saw the apple go in: the engine passes.
OPPONENT_ANSWERS = Scenario(ABCD, (Put("A", "apple", "bag"),), "bag", "C")


def stories(*scenarios: Scenario) -> list[tuple[str, Scenario]]:
    return [(f"story{index}", scenario) for index, scenario in enumerate(scenarios)]


def test_turns_rotate_a_c_b_d_and_each_story_is_played_twice_mirrored() -> None:
    plan = schedule(stories(PLAIN, TELL, OPPONENT_ANSWERS, PLAIN), 8)
    assert [turn.owner for turn in plan] == list(TURN_ORDER) * 2 == ["A", "C", "B", "D"] * 2
    assert [turn.number for turn in plan] == list(range(1, 9))
    team_swap = {"A": "C", "B": "D", "C": "A", "D": "B"}
    for blue, red in zip(plan[::2], plan[1::2], strict=True):
        # The same dilemma in disguise: items and containers renamed, everything else kept.
        assert blue.key == red.key and blue.designed != red.designed
        assert [type(event) for event in red.designed.events] == [
            type(event) for event in blue.designed.events
        ]
        blue_view, red_view = solve(blue.designed), solve(red.designed)
        assert blue_view.assessment.labels == red_view.assessment.labels
        values = [sorted(view.decision.values.values()) for view in (blue_view, red_view)]
        assert values[0] == values[1]
        assert (blue_view.truth is None) == (red_view.truth is None)
        assert TEAMS[blue.owner] == "blue" and TEAMS[red.owner] == "red"
        # The mirrored turn swaps every player with its counterpart on the other team.
        assert dict(red.seating) == {seat: team_swap[p] for seat, p in dict(blue.seating).items()}
    for turn in plan:
        # Every owner holds the acting seat of its designed story, with its teammate in B.
        seating = dict(turn.seating)
        assert seating["A"] == turn.owner and TEAMS[seating["B"]] == TEAMS[turn.owner]
        assert sorted(seating.values()) == sorted(CHARACTERS)


def test_relabelling_moves_every_mind_with_its_player() -> None:
    plan = schedule(stories(TELL, PLAIN), 4)
    for turn in plan:
        seating = dict(turn.seating)
        truth, designed_minds = actual_minds(turn.designed)
        played_truth, played_minds = actual_minds(turn.scenario)
        assert truth == played_truth
        assert all(played_minds[seating[seat]] == designed_minds[seat] for seat in CHARACTERS)
        assert relabel(turn.scenario, {p: s for s, p in seating.items()}) == turn.designed


def test_a_game_needs_whole_rounds_and_enough_stories() -> None:
    with pytest.raises(InputError, match="multiple of 4"):
        schedule(stories(PLAIN, PLAIN, PLAIN), 6)
    with pytest.raises(InputError, match="needs 2 stories"):
        schedule(stories(PLAIN), 4)


def test_stories_are_drawn_without_repeats_and_reproducibly() -> None:
    pool = stories(*[PLAIN] * 30)
    drawn = draw_stories(pool, 40, "7")
    assert len({key for key, _ in drawn}) == 20
    assert drawn == draw_stories(pool, 40, "7") != draw_stories(pool, 40, "8")
    with pytest.raises(InputError, match="a game of 8 turns plays 4 base stories, and the "):
        draw_stories(pool[:3], 8, "7")  # a story twice would let A carry an answer over


def test_simulated_players_tell_a_wrong_teammate_and_otherwise_pass() -> None:
    plan = schedule(stories(TELL, PLAIN), 4)
    rules = Rules()
    # Turn 1 is A's own (the model's). Turn 2: C, in the acting seat, tells D the truth.
    assert simulated_action(plan[1], DEFAULT_LINEUP, rules, "s") == Action(
        "tell", "D", "box", "nothing"
    )
    # Turn 3: B tells A; turn 4: D tells C. Everyone sees a plain story: pass.
    assert simulated_action(plan[2], DEFAULT_LINEUP, rules, "s") == PASS
    assert simulated_action(plan[3], DEFAULT_LINEUP, rules, "s") == PASS


def test_dishonest_players_lie_to_the_other_teams_answerer_and_honest_ones_pass() -> None:
    # B's turn: seat C is C, the answerer. D's turn (mirrored): seat C is A, the answerer.
    plan = schedule(stories(PLAIN, OPPONENT_ANSWERS), 4)
    b_turn, d_turn = plan[2], plan[3]
    rules = Rules()
    lie_to_c = simulated_action(b_turn, DEFAULT_LINEUP, rules, "s")
    lie_to_a = simulated_action(d_turn, DEFAULT_LINEUP, rules, "s")
    assert lie_to_c.kind == lie_to_a.kind == "tell"
    assert (lie_to_c.player, lie_to_a.player) == ("C", "A")
    # A lie is never what the liar believes (the apple).
    assert lie_to_c.contents != "apple" and lie_to_a.contents != "apple"
    honest = parse_lineup("B=honest_teammate,D=honest_opponent")
    assert simulated_action(b_turn, honest, rules, "s") == PASS
    assert simulated_action(d_turn, honest, rules, "s") == PASS


def test_an_unsure_dishonest_answerer_asks_the_other_teams_first_player() -> None:
    # Seat A (answering) and its teammate both leave while the opponents stay: neither can
    # be sure, so the engine passes and a dishonest owner asks the other side.
    unsure = Scenario(ABCD, (Put("A", "apple", "bag"), Leave("A"), Leave("B")), "bag", "A")
    plan = schedule(stories(PLAIN, unsure), 4)
    assert simulated_action(plan[2], DEFAULT_LINEUP, Rules(), "s") == Action("ask", "C", "bag")
    assert simulated_action(plan[3], DEFAULT_LINEUP, Rules(), "s") == Action("ask", "A", "bag")


def test_points_carry_over_and_the_actor_pays_for_its_action() -> None:
    game = Game(schedule(stories(TELL, PLAIN), 4), DEFAULT_LINEUP, Rules(), "s")
    first = game.start_turn().apply_action(Action("tell", "B", "box", "nothing"))
    game = game.after(first.answer_by_simulation())  # B believes A and answers right
    assert game.scores == {"blue": 0.5, "red": 0.0}
    second = game.start_turn()  # C tells D: Red pays 0.5, D answers right
    assert second.action == Action("tell", "D", "box", "nothing")
    game = game.after(second.answer_by_simulation())
    assert game.scores == {"blue": 0.5, "red": 0.5}


def test_the_winning_score_ends_the_game_only_when_a_round_is_complete() -> None:
    game = Game(schedule(stories(*[PLAIN] * 4), 8), DEFAULT_LINEUP, Rules(), "s")
    assert game.winning_score == 8 // 4 + 4
    ahead = replace(game, scores={"blue": 6.0, "red": 0.0})
    assert not replace(ahead, played=2).is_terminal()  # mid-round: Red still plays
    assert replace(ahead, played=4).is_terminal()
    assert replace(ahead, played=4).winner == "blue"
    level = replace(game, scores={"blue": 3.0, "red": 3.0})
    assert not replace(level, played=4).is_terminal()
    assert replace(level, played=8).is_terminal() and replace(level, played=8).winner == "tie"
    with pytest.raises(ValueError, match="over"):
        _ = replace(level, played=8).next_plan


def play(
    policy: str, games: int, history: HistoryMode = "none"
) -> tuple[Counter[str], list[float]]:
    """Games of reference player `policy` through the prompts a model would read."""
    spec = read_spec()
    ids = parse_ids("all", [row.id for row in spec], read_mastery().mastery_ids)
    pool = [
        (item.key, item.solution.scenario)
        for item in generate(select_rows(spec, ids, parse_extras("0A,0B,1A,1B")), 10, 0)
    ]
    results: Counter[str] = Counter()
    margins = []
    for game in range(games):
        plan = schedule(draw_stories(pool, 40, str(game)), 40)
        session = GameSession(plan, DEFAULT_LINEUP, Rules(), "choice", history, str(game))
        conversation: list[tuple[str, str]] = []
        while not session.over:
            session.start_turn()
            while (request := session.request()) is not None:
                if request.fresh:
                    conversation = [("system", SYSTEM_PROMPT)]
                conversation.append(("user", request.text))
                text = respond(policy, conversation, 0)
                conversation.append(("assistant", text))
                session.receive(text)
            session.end_turn()
        results[session.game.winner] += 1
        margins.append(session.game.margin)
    return results, margins


def test_the_oracle_ties_every_one_of_100_games_against_the_default_lineup() -> None:
    # Duplicate play: its mirrored Red counterpart meets the same dilemmas and plays the
    # engine's choices too, so perfect play ends level (README, "Full game").
    results, margins = play("oracle", 100)
    assert results == Counter({"tie": 100}) and set(margins) == {0.0}


def test_always_pass_loses_games_the_oracle_would_have_tied() -> None:
    results, margins = play("always-pass", 30, history="full")
    assert results["red"] > results["blue"] and min(margins) < 0
