"""The story as player A reads it: rendered from the observer's `Observation` only.

Nothing here can see an event A did not perceive, so the text cannot leak hidden moves.
"""

from __future__ import annotations

import re

from tom_eval.game.epistemics import Observation
from tom_eval.game.world import SELF, Enter, Event, Leave, Move, Put


def narrate(observation: Observation) -> str:
    """The story, one sentence per line."""
    return "\n".join([_opening(observation), *(_sentence(event) for event in observation.events)])


def question_line(observation: Observation) -> str:
    who = "you" if observation.answerer == SELF else observation.answerer
    return f"I am going to ask {who} what is in the {observation.question}."


def _opening(observation: Observation) -> str:
    present = sorted(observation.present_initially, key=lambda player: (player != SELF, player))
    names = [_name(player) for player in present]
    containers = series([f"an empty {container}" for container in observation.containers])
    if not names:
        room = "Nobody is in the room."
    else:
        verb = "are" if len(names) > 1 or names[0] == "You" else "is"
        room = f"{series(names)} {verb} in a room."
    if SELF not in observation.present_initially:
        room += " You are outside it."
    return f"{room} Inside the room are {containers}."


def _sentence(event: Event) -> str:
    actor = _name(event.actor)
    if isinstance(event, Leave):
        return f"{actor} leave{_s(event)} the room."
    if isinstance(event, Enter):
        return f"{actor} enter{_s(event)} the room."
    if isinstance(event, Put):
        return (
            f"{actor} put{_s(event)} {article(event.item)} {event.item} in the {event.container}."
        )
    assert isinstance(event, Move)
    return (
        f"{actor} move{_s(event)} the {event.item} from the {event.source} "
        f"to the {event.destination}."
    )


def _name(player: str) -> str:
    return "You" if player == SELF else player


def _s(event: Event) -> str:
    """Verb ending: "You put", "C puts"."""
    return "" if event.actor == SELF else "s"


def article(item: str) -> str:
    """The indefinite article of an item's name."""
    return "an" if item[0] in "aeiou" else "a"


def series(words: list[str], oxford_comma: bool = True) -> str:
    """ "a", "a and b", "a, b, and c" (the story's style), or "a, b and c" without the Oxford
    comma (the rules' style)."""
    if len(words) <= 2:
        return " and ".join(words)
    return f"{', '.join(words[:-1])}{',' if oxford_comma else ''} and {words[-1]}"


_OPENING = re.compile(
    r"^(?:Nobody is in the room\.|(?P<names>.+?) (?:is|are) in a room\.)"
    r"(?P<outside> You are outside it\.)? Inside the room are (?P<containers>.+)\.$"
)
_PERSON = r"(?P<actor>You|[A-D])"
_SENTENCES = (
    (re.compile(rf"^{_PERSON} puts? an? (?P<item>\w+) in the (?P<container>\w+)\.$"), "put"),
    (
        re.compile(
            rf"^{_PERSON} moves? the (?P<item>\w+) from the (?P<source>\w+) "
            r"to the (?P<destination>\w+)\.$"
        ),
        "move",
    ),
    (re.compile(rf"^{_PERSON} leaves? the room\.$"), "leave"),
    (re.compile(rf"^{_PERSON} enters? the room\.$"), "enter"),
)
_QUESTION = re.compile(
    r"^I am going to ask (?P<who>you|[A-D]) what is in the (?P<container>\w+)\.$"
)


def asked_container(question: str) -> str | None:
    """The container a question line asks about ("I am going to ask you what is in the
    bag." -> "bag"; the reference's runs record the same line), None for other text."""
    asked = _QUESTION.match(question.strip())
    return asked["container"] if asked else None


def read_narration(story: str, question: str) -> Observation:
    """The inverse of `narrate` and `question_line`: what A perceived, from the text A read.

    Reference players use this, so they can act on nothing A could not perceive.
    Raises ValueError on text that `narrate` would not produce.
    """
    opening, *sentences = story.strip().splitlines()
    match = _OPENING.match(opening)
    asked = _QUESTION.match(question.strip())
    if match is None or asked is None:
        raise ValueError("not a story told by tom-eval")
    names = re.split(r", and |, | and ", match["names"]) if match["names"] else []
    containers = re.split(r", and |, | and ", match["containers"])
    return Observation(
        viewer=SELF,
        present_initially=frozenset(_player(name) for name in names),
        events=tuple(_event(sentence) for sentence in sentences),
        containers=tuple(container.removeprefix("an empty ") for container in containers),
        question=asked["container"],
        answerer=_player(asked["who"]),
    )


def _event(sentence: str) -> Event:
    for pattern, kind in _SENTENCES:
        match = pattern.match(sentence)
        if match is None:
            continue
        actor = _player(match["actor"])
        if kind == "put":
            return Put(actor, match["item"], match["container"])
        if kind == "move":
            return Move(actor, match["item"], match["source"], match["destination"])
        return Leave(actor) if kind == "leave" else Enter(actor)
    raise ValueError(f"not a story sentence: {sentence!r}")


def _player(name: str) -> str:
    return SELF if name.lower() == "you" else name
