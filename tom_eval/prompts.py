"""What the model reads: rules that are true of the engine, the story, the question, the
options and the format instructions (TOM_GAME.md section 7), and the inverse, `read_prompt`,
through which reference players see exactly what the model saw and nothing more.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tom_eval.decisions import PASS, Action
from tom_eval.epistemics import Observation
from tom_eval.game import Lineup
from tom_eval.narration import narrate, question_line, read_story
from tom_eval.parsing import ResponseFormat, option_letter
from tom_eval.rules import Rules
from tom_eval.world import CONTAINERS, ITEMS, NEUTRAL, NOTHING, OPPONENTS, TEAMMATE, Move, Put

SYSTEM_PROMPT = (
    "You are a player in a strategic deduction game. "
    "Your goal is to help your team win by taking the best action."
)

_NEUTRAL_SENTENCE = (
    "N is a neutral player: never in the room, it gets no turns and answers any question honestly."
)
_LOSE_SENTENCE = "A wrong answer costs that player's team 1 point."


def rules_text(lineup: Lineup, rules: Rules, containers: Sequence[str] = CONTAINERS) -> str:
    """The rules as the engine applies them; every sentence is checked by a test."""
    neutral = f" {_NEUTRAL_SENTENCE}" if lineup.has_neutral else ""
    lose = f" {_LOSE_SENTENCE}" if rules.lose else ""
    room = f"{_number(len(containers))} containers: {_series([f'a {c}' for c in containers])}"
    return f"""RULES
You are player A in a team game. A and B are the Blue team; C and D are the Red team.{neutral}
Each turn has a scenario, an action phase and an answer phase.

SCENARIO
The players are in or near a room with {room}. Each \
container holds at most one object. Players put objects into containers, move objects \
between containers, and leave or enter the room.
Players cannot see inside the containers. A player in the room sees everything that happens \
in it; a player outside sees nothing that happens in it, but everyone knows when someone \
leaves or enters. A player who has not seen anything put into a container believes it is \
empty. You are told everything you see, in order.

ACTION PHASE
It is your turn. You choose exactly one action:
- Pass: do nothing. It costs nothing.
- Ask(Player, Container): ask another player what they believe is in a container; they \
reply to you. It costs your team 0.5 points.
- Tell(Player, Container, Contents): tell another player what is in a container. It costs \
your team 0.5 points.
Ask and Tell are private between the two players involved.
Players do not have to tell the truth: a player may lie to the other team, in a reply or in \
a Tell. Teammates always tell each other the truth.
Teammates trust each other: a player believes what its teammate tells it, unless it is in \
the room and saw the latest change to that container itself. Players ignore what the other \
team tells them.

ANSWER PHASE
Then I ask one player (not necessarily you) what is in one container. A correct answer \
earns that player's team 1 point.{lose} A team's points can go negative."""


_INSTRUCTIONS: dict[ResponseFormat, str] = {
    "choice": "Respond with the letter of your choice only.",
    "action": (
        "Respond ONLY with your action, as Pass, Ask(Player, Container) or "
        "Tell(Player, Container, Contents), and no other text."
    ),
    "free": (
        "Think it through, then end your reply with a final line of the form "
        "ACTION: <your action>, where <your action> is Pass, Ask(Player, Container) or "
        "Tell(Player, Container, Contents)."
    ),
}
_ANSWER_INSTRUCTIONS: dict[ResponseFormat, str] = {
    "choice": "Respond with only what is in it: the object's name, or nothing if it is empty.",
    "action": "Respond with only what is in it: the object's name, or nothing if it is empty.",
    "free": (
        "Think it through, then end your reply with a final line of the form "
        "ANSWER: <contents>, naming the object, or nothing if it is empty."
    ),
}


def action_prompt(
    observation: Observation,
    lineup: Lineup,
    rules: Rules,
    response_format: ResponseFormat,
    options: Sequence[Action] = (),
) -> str:
    """The first user message of a turn."""
    parts = [
        rules_text(lineup, rules, observation.containers),
        f"STORY\nHere is what you see:\n{narrate(observation)}",
        f"QUESTION\n{question_line(observation)}",
    ]
    if response_format == "choice":
        lines = [f"{option_letter(index)}) {option}" for index, option in enumerate(options)]
        parts.append("OPTIONS\n" + "\n".join(lines))
    parts.append(f"It is your turn. {_INSTRUCTIONS[response_format]}")
    return "\n\n".join(parts)


def reply_text(action: Action, reply: str) -> str:
    """What A is told after an Ask."""
    contents = "nothing" if reply == NOTHING else f"{_article(reply)} {reply}"
    return f"{action.player} replies: the {action.container} contains {contents}."


ANSWER_PHASE = "ANSWER PHASE"


def answer_prompt(question: str, response_format: ResponseFormat) -> str:
    return f"{ANSWER_PHASE}\nWhat is in the {question}? {_ANSWER_INSTRUCTIONS[response_format]}"


def choice_options(
    observation: Observation, belief: str | None, players: Sequence[str], seed: str
) -> list[Action]:
    """The options of the choice format, shuffled with `seed`: Pass; Ask each of `players`
    about the question container; Tell each of them what A believes is there; and,
    when an opponent answers, Tell it something else (a lie). The engine's optimal action
    (Pass, Ask the teammate, or Tell the teammate A's belief) is always among them."""
    question, answerer = observation.question, observation.answerer
    believed = belief or NOTHING
    options = [PASS]
    options += [Action("ask", player, question) for player in players]
    options += [Action("tell", player, question, believed) for player in players]
    if answerer in OPPONENTS:
        story_items = sorted(
            {event.item for event in observation.events if isinstance(event, (Put, Move))}
        )
        rng = random.Random(f"lie-option:{seed}")
        # Something else A has seen, else any other item: never the belief itself.
        lies = [item for item in story_items if item != believed]
        lies = lies or [item for item in ITEMS if item != believed]
        options.append(Action("tell", answerer, question, rng.choice(lies)))
    random.Random(f"options:{seed}").shuffle(options)
    return options


def _number(count: int) -> str:
    return ("no", "one", "two", "three", "four", "five", "six")[count] if count < 7 else str(count)


def _series(words: list[str]) -> str:
    """ "a", "a and b", "a, b and c" (the rules' own style)."""
    return " and ".join(words) if len(words) <= 2 else f"{', '.join(words[:-1])} and {words[-1]}"


def _article(item: str) -> str:
    return "an" if item[0] in "aeiou" else "a"


@dataclass(frozen=True, slots=True)
class PromptView:
    """Everything a player can know from the first prompt of a turn."""

    observation: Observation
    response_format: ResponseFormat
    options: tuple[Action, ...]
    players: tuple[str, ...]
    rules: Rules


_SECTION = re.compile(r"^(STORY|QUESTION|OPTIONS)\n", re.MULTILINE)
_OPTION = re.compile(r"^([A-Z])\) (.+)$")


def read_prompt(prompt: str) -> PromptView:
    """The inverse of `action_prompt`; raises ValueError on any other text."""
    pieces = _SECTION.split(prompt)[1:]
    sections = dict(zip(pieces[::2], pieces[1::2], strict=True))
    if "STORY" not in sections or "QUESTION" not in sections:
        raise ValueError("not a tom-eval prompt")
    story = sections["STORY"].removeprefix("Here is what you see:\n").strip()
    question = sections["QUESTION"].strip().splitlines()[0]
    options = tuple(
        Action.from_text(match[2].strip())
        for line in sections.get("OPTIONS", "").splitlines()
        if (match := _OPTION.match(line.strip()))
    )
    formats = [name for name, text in _INSTRUCTIONS.items() if text in prompt]
    if not formats:
        raise ValueError("no response format instruction in the prompt")
    players = (TEAMMATE, *OPPONENTS, *((NEUTRAL,) if _NEUTRAL_SENTENCE in prompt else ()))
    return PromptView(
        observation=read_story(story, question),
        response_format=formats[0],
        options=options,
        players=players,
        rules=Rules(lose=_LOSE_SENTENCE in prompt),
    )
