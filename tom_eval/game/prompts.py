"""What the model reads: rules that are true of the engine, the story, the question, the
options and the format instructions (docs/game.md), and the inverse, `read_prompt`,
through which reference players see exactly what the model saw and nothing more.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.epistemics import Observation
from tom_eval.game.full_game import TURN_ORDER
from tom_eval.game.narration import article, narrate, question_line, read_narration, series
from tom_eval.game.parsing import ResponseFormat, option_letter
from tom_eval.game.rules import Rules
from tom_eval.game.turn import Lineup
from tom_eval.game.world import (
    CONTAINERS,
    ITEMS,
    NEUTRAL,
    NOTHING,
    OPPONENTS,
    SELF,
    TEAMMATE,
)

SYSTEM_PROMPT = (
    "You are a player in a strategic deduction game. "
    "Your goal is to help your team win by taking the best action."
)

_NEUTRAL_SENTENCE = (
    "N is a neutral player: never in the room, it gets no turns and answers any question honestly."
)
_LOSE_SENTENCE = "A wrong answer costs that player's team 1 point."


@dataclass(frozen=True, slots=True)
class GameLength:
    """What the rules of the full game say about its length."""

    turns: int
    winning_score: int


def rules_text(
    lineup: Lineup,
    rules: Rules,
    containers: Sequence[str] = CONTAINERS,
    game: GameLength | None = None,
) -> str:
    """The rules as the engine applies them; every sentence is checked by a test. With
    `game`, the rules of the full game (rotating turns, replies to Asks, a race to the
    winning score); without, those of a single turn."""
    neutral = f" {_NEUTRAL_SENTENCE}" if lineup.has_neutral else ""
    lose = f" {_LOSE_SENTENCE}" if rules.lose else ""
    listed = series([f"a {container}" for container in containers], oxford_comma=False)
    room = f"{_number(len(containers))} containers: {listed}"
    turns = _game_turns_text(game) if game else _TRIAL_TURN
    acting = _GAME_ACTING if game else _TRIAL_ACTING
    asked = _GAME_ASKED if game else _TRIAL_ASKED
    asker, teller = ("the asker's", "the teller's") if game else ("your", "your")
    asked_you = f"\n{_GAME_ASKED_YOU}" if game else ""
    target = "the player whose turn it is" if game else "you"
    public = " Everyone hears the answer and the points." if game else ""
    return f"""RULES
You are player A in a team game. A and B are the Blue team; C and D are the Red team.{neutral}
{turns}

SCENARIO
The players are in or near a room with {room}. Each \
container holds at most one object. Players put objects into containers, move objects \
between containers, and leave or enter the room.
Players cannot see inside the containers. A player in the room sees everything that happens \
in it; a player outside sees nothing that happens in it, but everyone knows when someone \
leaves or enters. A player who has not seen anything put into a container believes it is \
empty. You are told everything you see, in order.

ACTION PHASE
{acting}
- Pass: do nothing. It costs nothing.
- Ask(Player, Container): ask another player what they believe is in a container; \
{asked} It costs {asker} team 0.5 points.
- Tell(Player, Container, Contents): tell another player what is in a container. It costs \
{teller} team 0.5 points.{asked_you}
Ask and Tell are private between the two players involved.
Players do not have to tell the truth: a player may lie to the other team, in a reply or in \
a Tell. Teammates always tell each other the truth.
Teammates trust each other: a player believes what its teammate tells it, unless it is in \
the room and saw the latest change to that container itself. Players ignore what the other \
team tells them.

ANSWER PHASE
Then I ask one player (not necessarily {target}) what is in one container. A correct answer \
earns that player's team 1 point.{lose} A team's points can go negative.{public}"""


_TRIAL_TURN = "Each turn has a scenario, an action phase and an answer phase."
_TRIAL_ACTING = "It is your turn. You choose exactly one action:"
_TRIAL_ASKED = "they reply to you."
_GAME_ACTING = "The player whose turn it is chooses exactly one action:"
_GAME_ASKED = "they reply to the asker."
_GAME_ASKED_YOU = "When another player asks you, you may reply as you wish, or refuse."


def _game_turns_text(game: GameLength) -> str:
    order = ", ".join(TURN_ORDER)
    return (
        f"The game has up to {game.turns} turns; each turn has a new scenario, an action "
        f"phase and an answer phase. Players take turns in the order {order}, {order}, and "
        "so on. Points add up over the turns. At the end of each round of four turns, the "
        f"game ends if a team has {game.winning_score} points or more; it also ends after "
        f"turn {game.turns}. Then the team with more points wins."
    )


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
    """The first user message of a single turn."""
    return "\n\n".join(
        [
            rules_text(lineup, rules, observation.containers),
            scenario_text(observation),
            action_request(response_format, options),
        ]
    )


def scenario_text(observation: Observation) -> str:
    """The story A saw and the question."""
    return (
        f"STORY\nHere is what you see:\n{narrate(observation)}\n\n"
        f"QUESTION\n{question_line(observation)}"
    )


def action_request(response_format: ResponseFormat, options: Sequence[Action] = ()) -> str:
    """The options (choice format) and the call to act."""
    request = f"It is your turn. {_INSTRUCTIONS[response_format]}"
    if response_format != "choice":
        return request
    lines = [f"{option_letter(index)}) {option}" for index, option in enumerate(options)]
    return "OPTIONS\n" + "\n".join(lines) + "\n\n" + request


def turn_header(number: int, turns: int, owner: str, scores: dict[str, float]) -> str:
    """The head of a turn in the full game: whose turn it is and the score before it."""
    whose = "your turn" if owner == SELF else f"{owner}'s turn"
    return f"TURN {number} OF {turns}: {whose}\nSCORE\n{score_line(scores)}"


def score_line(scores: dict[str, float]) -> str:
    return f"Blue {scores['blue']:g}, Red {scores['red']:g}"


_PLAIN_REPLY = (
    "Respond with only what you tell them is in it: an object's name, nothing if you say it "
    "is empty, or refuse."
)
_REPLY_INSTRUCTIONS: dict[ResponseFormat, str] = {
    "choice": _PLAIN_REPLY,
    "action": _PLAIN_REPLY,
    "free": (
        "Think it through, then end your reply with a final line of the form ANSWER: "
        "<what you tell them>, naming the object, nothing if you say it is empty, or refuse."
    ),
}
ASKS_YOU = " asks you what is in the "


def reply_request(asker: str, container: str, response_format: ResponseFormat) -> str:
    """Another player's Ask put to A."""
    return f"{asker}{ASKS_YOU}{container}. {_REPLY_INSTRUCTIONS[response_format]}"


def told_text(speaker: str, container: str, contents: str) -> str:
    """What A hears when another player tells it something."""
    return f"{speaker} tells you: the {container} contains {_contents(contents)}."


def result_text(
    number: int, answerer: str, answer: str | None, correct: bool, points: dict[str, float]
) -> str:
    """The public end of a turn: the answer, whether it is right, and the points."""
    who = "You answer" if answerer == SELF else f"{answerer} answers"
    said = "nothing readable" if answer is None else _contents(answer)
    verdict = "right" if correct else "wrong"
    return (
        f"RESULT OF TURN {number}\n{who} {said}, which is {verdict}. "
        f"Points this turn: Blue {points['blue']:+g}, Red {points['red']:+g}."
    )


def earlier_actions_text(actions: Sequence[tuple[int, str]]) -> str:
    """History mode `actions`: A's own earlier actions, one line per turn."""
    lines = [f"Turn {number}: {action}" for number, action in actions]
    return "YOUR EARLIER ACTIONS\n" + "\n".join(lines)


def reply_text(action: Action, reply: str) -> str:
    """What A is told after an Ask."""
    return f"{action.player} replies: the {action.container} contains {_contents(reply)}."


@dataclass(frozen=True, slots=True)
class Said:
    """A line in which another player tells A what a container holds."""

    player: str
    container: str
    contents: str
    replied: bool
    """A reply to A's Ask (`reply_text`), not a Tell (`told_text`)."""


_SAID = r"the (?P<container>\w+) contains (?:an? )?(?P<contents>\w+)\.$"
_REPLIES = re.compile(rf"^(?P<player>[A-DN]) replies: {_SAID}")
_TELLS = re.compile(rf"^(?P<player>[A-DN]) tells you: {_SAID}")
_ASKS = re.compile(rf"^(?P<player>[A-D]){ASKS_YOU}")


def read_said(line: str) -> Said | None:
    """The inverse of `reply_text` and `told_text`; None for any other line."""
    found = _REPLIES.match(line) or _TELLS.match(line)
    if found is None:
        return None
    return Said(found["player"], found["container"], found["contents"], found.re is _REPLIES)


def read_asker(line: str) -> str | None:
    """Who asks A, by the inverse of `reply_request`; None for any other line."""
    found = _ASKS.match(line)
    return None if found is None else found["player"]


def _contents(contents: str) -> str:
    return "nothing" if contents == NOTHING else f"{article(contents)} {contents}"


ANSWER_REQUEST = "ANSWER PHASE\nWhat is in the "
"""How every answer prompt begins (the rules' own ANSWER PHASE section goes on otherwise)."""


def answer_prompt(question: str, response_format: ResponseFormat) -> str:
    return f"{ANSWER_REQUEST}{question}? {_ANSWER_INSTRUCTIONS[response_format]}"


def action_schema(
    response_format: ResponseFormat,
    options: Sequence[Action],
    players: Sequence[str],
    containers: Sequence[str],
) -> dict[str, Any]:
    """The JSON schema of a structured action reply (`-T structured=true`): the option's
    letter in the choice format, else the action's fields (`Pass` ignores the others, Ask
    its contents); in the free format a `reasoning` field comes first. Every field is
    required, as strict schemas (OpenAI's) ask."""
    if response_format == "choice":
        letters = [option_letter(index) for index in range(len(options))]
        fields: dict[str, Any] = {"letter": {"type": "string", "enum": letters}}
    else:
        fields = {
            "action": {"type": "string", "enum": ["Pass", "Ask", "Tell"]},
            "player": {"type": "string", "enum": list(players)},
            "container": {"type": "string", "enum": list(containers)},
            "contents": {"type": "string"},
        }
    return _object_schema(response_format, fields)


def answer_values(observation: Observation, heard: str | None) -> list[str]:
    """The answers a structured answer may give: the items A saw in the story and the one
    it was told (`heard`, a reply to its Ask), in the order of ITEMS, then NOTHING (an
    empty container). Never an item A neither saw nor heard of: that would reveal unseen
    events to A."""
    named = (observation.items_seen | {heard or NOTHING}) - {NOTHING}
    return [item for item in ITEMS if item in named] + sorted(named - set(ITEMS)) + [NOTHING]


def answer_schema(response_format: ResponseFormat, answers: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of a structured answer: what is in the container, one of `answers`
    (`answer_values`), so a model constrained to it cannot write an option letter."""
    return _object_schema(response_format, {"contents": {"type": "string", "enum": list(answers)}})


def _object_schema(response_format: ResponseFormat, fields: dict[str, Any]) -> dict[str, Any]:
    if response_format == "free":
        fields = {"reasoning": {"type": "string"}, **fields}
    return {
        "type": "object",
        "properties": fields,
        "required": list(fields),
        "additionalProperties": False,
    }


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
        story_items = sorted(observation.items_seen)
        rng = random.Random(f"lie-option:{seed}")
        # Something else A has seen, else any other item: never the belief itself.
        lies = [item for item in story_items if item != believed]
        lies = lies or [item for item in ITEMS if item != believed]
        options.append(Action("tell", answerer, question, rng.choice(lies)))
    random.Random(f"options:{seed}").shuffle(options)
    return options


def _number(count: int) -> str:
    return ("no", "one", "two", "three", "four", "five", "six")[count] if count < 7 else str(count)


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


class NotAGamePrompt(ValueError):
    """Text that is none of the game's prompts."""


def read_prompt(prompt: str) -> PromptView:
    """The inverse of `action_prompt`; raises NotAGamePrompt on any other text."""
    formats = [name for name, text in _INSTRUCTIONS.items() if text in prompt]
    if not formats:
        raise NotAGamePrompt("no response format instruction in the prompt")
    return _read_view(prompt, formats[0], rules_source=prompt)


_TURN_HEADER = re.compile(r"^TURN \d+ OF \d+: (?:your|[A-D]'s) turn$", re.MULTILINE)


def read_game_turn(user_texts: Sequence[str]) -> tuple[PromptView, list[str]] | None:
    """The current turn of a full game's conversation (the inverse of what
    `session.GameSession` sends): the view, and the lines A was shown since the turn
    began. None when the conversation is not a full game's."""
    text = "\n\n".join(user_texts)
    headers = list(_TURN_HEADER.finditer(text))
    if not headers:
        return None
    turn = text[headers[-1].start() :]
    free = (_INSTRUCTIONS["free"], _REPLY_INSTRUCTIONS["free"], _ANSWER_INSTRUCTIONS["free"])
    if any(instruction in turn for instruction in free):
        response_format: ResponseFormat = "free"
    else:
        response_format = "choice" if "\nOPTIONS\n" in turn else "action"
    view = _read_view(turn, response_format, rules_source=text)
    return view, [line.strip() for line in turn.splitlines() if line.strip()]


def _read_view(text: str, response_format: ResponseFormat, rules_source: str) -> PromptView:
    """The story, question and options of `text`; the rule switches from `rules_source`."""
    pieces = _SECTION.split(text)[1:]
    sections = dict(zip(pieces[::2], pieces[1::2], strict=True))
    if "STORY" not in sections or "QUESTION" not in sections:
        raise NotAGamePrompt("not a tom-eval prompt")
    story = sections["STORY"].removeprefix("Here is what you see:\n").strip()
    question = sections["QUESTION"].strip().splitlines()[0]
    options = tuple(
        Action.from_text(match[2].strip())
        for line in sections.get("OPTIONS", "").splitlines()
        if (match := _OPTION.match(line.strip()))
    )
    neutral = (NEUTRAL,) if _NEUTRAL_SENTENCE in rules_source else ()
    return PromptView(
        observation=read_narration(story, question),
        response_format=response_format,
        options=options,
        players=(TEAMMATE, *OPPONENTS, *neutral),
        rules=Rules(lose=_LOSE_SENTENCE in rules_source),
    )
