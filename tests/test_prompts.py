"""What the model reads: rules true to the engine, and prompts the players can read back."""

from __future__ import annotations

import pytest

from tom_eval.game.decisions import Action
from tom_eval.game.generation import generate
from tom_eval.game.parsing import RESPONSE_FORMATS, ResponseFormat
from tom_eval.game.prompts import (
    Said,
    action_prompt,
    answer_prompt,
    choice_options,
    read_asker,
    read_prompt,
    read_said,
    reply_request,
    reply_text,
    rules_text,
    told_text,
)
from tom_eval.game.rules import Rules
from tom_eval.game.spec import read_spec
from tom_eval.game.turn import DEFAULT_LINEUP, parse_lineup
from tom_eval.game.world import CONTAINERS, ITEMS, NOTHING

ROWS = [row for row in read_spec() if row.extra in ("0A", "1B")]
GENERATED = generate(ROWS, 1, 11)


def test_the_rules_say_what_the_engine_does() -> None:
    text = rules_text(DEFAULT_LINEUP, Rules())
    for truth in (
        "costs your team 0.5 points",
        "It costs nothing",
        "earns that player's team 1 point",
        "Each container holds at most one object",
        "private between the two players involved",
        "may lie to the other team",
        "Teammates always tell each other the truth",
        "unless it is in the room and saw the latest change",
        "ignore what the other team tells them",
        "believes it is empty",
        "a bag, a box and a basket",
    ):
        assert truth in text
    # The reference's untrue claims and the unapplied penalty are gone.
    for falsehood in ("ten or more", "remov", "two or more containers", "first team to", "loses 1"):
        assert falsehood not in text
    assert "A wrong answer costs" not in text
    assert "A wrong answer costs that player's team 1 point." in rules_text(
        DEFAULT_LINEUP, Rules(lose=True)
    )
    assert "N is a neutral player" in rules_text(parse_lineup("N=neutral"), Rules())


@pytest.mark.parametrize("response_format", RESPONSE_FORMATS)
def test_prompts_read_back_exactly(response_format: ResponseFormat) -> None:
    for item in GENERATED:
        solution = item.solution
        options = choice_options(
            solution.observation, solution.assessment.self_belief, ("B", "C", "D"), item.key
        )
        shown = options if response_format == "choice" else []
        prompt = action_prompt(
            solution.observation, DEFAULT_LINEUP, Rules(), response_format, shown
        )
        view = read_prompt(prompt)
        assert view.observation == solution.observation
        assert view.response_format == response_format
        assert list(view.options) == shown
        assert view.players == ("B", "C", "D") and view.rules == Rules()


def test_the_optimal_action_is_always_an_option() -> None:
    for item in GENERATED:
        solution = item.solution
        options = choice_options(
            solution.observation, solution.assessment.self_belief, ("B", "C", "D"), item.key
        )
        assert solution.decision.optimal in options
        assert len(options) == len(set(options)) == (8 if solution.scenario.answerer in "CD" else 7)
        lies = [
            o for o in options if o.kind == "tell" and o.contents != solution.assessment.self_belief
        ]
        assert len(lies) == (1 if solution.scenario.answerer in "CD" else 0)


def test_options_are_shuffled_reproducibly() -> None:
    solution = GENERATED[0].solution
    args = (solution.observation, solution.assessment.self_belief, ("B", "C", "D"))
    assert choice_options(*args, "x") == choice_options(*args, "x")
    orders = {tuple(choice_options(*args, str(seed))) for seed in range(20)}
    assert len(orders) > 10


def test_replies_and_the_answer_phase() -> None:
    assert reply_text(Action("ask", "B", "box"), "apple") == "B replies: the box contains an apple."
    assert (
        reply_text(Action("ask", "C", "bag"), "nothing") == "C replies: the bag contains nothing."
    )
    assert answer_prompt("bag", "free").startswith("ANSWER PHASE\nWhat is in the bag?")


def test_read_prompt_rejects_other_text() -> None:
    with pytest.raises(ValueError):
        read_prompt("Hello, what is in the bag?")


def test_prompt_layout_is_stable() -> None:
    solution = GENERATED[0].solution
    prompt = action_prompt(solution.observation, DEFAULT_LINEUP, Rules(), "action")
    assert prompt.startswith("RULES\nYou are player A")
    assert "\n\nSTORY\nHere is what you see:\n" in prompt
    assert prompt.endswith("Tell(Player, Container, Contents), and no other text.")


def test_the_rules_name_the_scenarios_containers() -> None:
    text = rules_text(DEFAULT_LINEUP, Rules(), ("crate", "jar"))
    assert "two containers: a crate and a jar" in text


@pytest.mark.parametrize("contents", [*ITEMS, NOTHING])
@pytest.mark.parametrize("container", CONTAINERS)
def test_the_lines_a_player_says_to_a_read_back(container: str, contents: str) -> None:
    ask = Action("ask", "C", container)
    assert read_said(reply_text(ask, contents)) == Said("C", container, contents, replied=True)
    told = told_text("B", container, contents)
    assert read_said(told) == Said("B", container, contents, replied=False)
    assert read_asker(reply_request("D", container, "free")) == "D"
    assert read_said(reply_request("D", container, "free")) is None
    assert read_asker(told) is None
