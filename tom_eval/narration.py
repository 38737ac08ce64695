"""The story as player A reads it: rendered from the observer's `Observation` only.

Nothing here can see an event A did not perceive, so the text cannot leak hidden moves.
"""

from __future__ import annotations

from tom_eval.epistemics import Observation
from tom_eval.world import SELF, Enter, Event, Leave, Move, Put


def narrate(observation: Observation) -> str:
    """The story, one sentence per line."""
    return "\n".join([_opening(observation), *(_sentence(event) for event in observation.events)])


def question_line(observation: Observation) -> str:
    who = "you" if observation.answerer == SELF else observation.answerer
    return f"I am going to ask {who} what is in the {observation.question}."


def _opening(observation: Observation) -> str:
    present = sorted(observation.present_initially, key=lambda player: (player != SELF, player))
    names = [_name(player) for player in present]
    containers = _series([f"an empty {container}" for container in observation.containers])
    if not names:
        room = "Nobody is in the room."
    else:
        verb = "are" if len(names) > 1 or names[0] == "You" else "is"
        room = f"{_series(names)} {verb} in a room."
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
            f"{actor} put{_s(event)} {_article(event.item)} {event.item} in the {event.container}."
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


def _article(item: str) -> str:
    return "an" if item[0] in "aeiou" else "a"


def _series(words: list[str]) -> str:
    """Oxford-comma list: "a", "a and b", "a, b, and c"."""
    if len(words) <= 2:
        return " and ".join(words)
    return f"{', '.join(words[:-1])}, and {words[-1]}"
