"""The physical world of a scenario: a room, containers, items, players, events.

Everything here is ground truth. What a player *perceives* of it lives in
`epistemics`; this module only knows what happened and whether it could happen.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tom_eval.errors import InputError

CONTAINERS: tuple[str, ...] = ("bag", "box", "basket")
ITEMS: tuple[str, ...] = ("apple", "ball", "banana", "brick", "stapler", "orange")
NOTHING = "nothing"
"""What a player says when it believes a container is empty."""

SELF = "A"
TEAMMATE = "B"
OPPONENTS: tuple[str, ...] = ("C", "D")
NEUTRAL = "N"
CHARACTERS: tuple[str, ...] = (SELF, TEAMMATE, *OPPONENTS)
"""The characters who can be in the room; the neutral player never is."""
PLAYERS: tuple[str, ...] = (*CHARACTERS, NEUTRAL)
TEAMS: dict[str, str] = {"A": "blue", "B": "blue", "C": "red", "D": "red", "N": "neutral"}


@dataclass(frozen=True, slots=True)
class Put:
    actor: str
    item: str
    container: str


@dataclass(frozen=True, slots=True)
class Move:
    actor: str
    item: str
    source: str
    destination: str


@dataclass(frozen=True, slots=True)
class Leave:
    actor: str


@dataclass(frozen=True, slots=True)
class Enter:
    actor: str


Event = Put | Move | Leave | Enter


@dataclass(frozen=True, slots=True)
class Room:
    """The state of the room after some events: who is inside and what each container holds."""

    present: frozenset[str]
    containers: tuple[str, ...]
    held: tuple[str | None, ...]
    """What each container holds, aligned with `containers` (None: empty)."""

    @staticmethod
    def initial(present: frozenset[str], containers: tuple[str, ...] = CONTAINERS) -> Room:
        return Room(present, containers, (None,) * len(containers))

    @property
    def contents(self) -> zip[tuple[str, str | None]]:
        return zip(self.containers, self.held, strict=True)

    def holding(self, container: str) -> str | None:
        return self.held[self._index(container)]

    def _index(self, container: str) -> int:
        try:
            return self.containers.index(container)
        except ValueError:
            raise InvalidEvent(f"unknown container '{container}'") from None

    def with_presence(self, present: frozenset[str]) -> Room:
        return Room(present, self.containers, self.held)

    def with_contents(self, changes: dict[str, str | None]) -> Room:
        held = list(self.held)
        for container, item in changes.items():
            held[self._index(container)] = item
        return Room(self.present, self.containers, tuple(held))


class InvalidEvent(InputError):
    """An event that cannot happen in the room as it is."""


def touches(event: Event, container: str) -> bool:
    """Whether the event changes what `container` holds."""
    if isinstance(event, Put):
        return event.container == container
    if isinstance(event, Move):
        return container in (event.source, event.destination)
    return False


def apply_event(room: Room, event: Event) -> Room:
    """The room after `event`; raises InvalidEvent when the event is impossible."""
    actor = event.actor
    if actor not in CHARACTERS:
        raise InvalidEvent(f"unknown character '{actor}'")
    if isinstance(event, Enter):
        if actor in room.present:
            raise InvalidEvent(f"{actor} enters but is already in the room")
        return room.with_presence(room.present | {actor})
    if actor not in room.present:
        raise InvalidEvent(f"{actor} acts while absent")
    if isinstance(event, Leave):
        return room.with_presence(room.present - {actor})
    if isinstance(event, Put):
        if event.item not in ITEMS:
            raise InvalidEvent(f"unknown item '{event.item}'")
        if event.item in room.held:
            where = room.containers[room.held.index(event.item)]
            raise InvalidEvent(f"{actor} puts {event.item}, which is already in the {where}")
        if room.holding(event.container) is not None:
            raise InvalidEvent(f"{actor} puts {event.item} into the full {event.container}")
        return room.with_contents({event.container: event.item})
    held = room.holding(event.source)
    if held != event.item:
        raise InvalidEvent(
            f"{actor} moves {event.item} from the {event.source}, which holds {held or NOTHING}"
        )
    if room.holding(event.destination) is not None or event.destination == event.source:
        raise InvalidEvent(f"{actor} moves {event.item} into the full {event.destination}")
    return room.with_contents({event.source: None, event.destination: event.item})


def replay(
    present_initially: frozenset[str],
    events: tuple[Event, ...],
    containers: tuple[str, ...] = CONTAINERS,
) -> list[Room]:
    """Every room state: before the first event, then after each event."""
    for player in present_initially:
        if player not in CHARACTERS:
            raise InvalidEvent(f"unknown character '{player}' present initially")
    rooms = [Room.initial(present_initially, containers)]
    for event in events:
        rooms.append(apply_event(rooms[-1], event))
    return rooms


@dataclass(frozen=True)
class Scenario:
    """One story and its question: who is in the room, what happens, who is asked about what."""

    present_initially: frozenset[str]
    events: tuple[Event, ...]
    question: str
    """The question container."""
    answerer: str
    containers: tuple[str, ...] = CONTAINERS

    @cached_property
    def rooms(self) -> tuple[Room, ...]:
        """Every room state from the start to the end; raises InvalidEvent on an impossible story.

        Cached: the observer, the ground-truth minds and the generator all replay the story.
        """
        if self.question not in self.containers:
            raise InvalidEvent(f"unknown question container '{self.question}'")
        if self.answerer not in CHARACTERS:
            raise InvalidEvent(f"unknown answerer '{self.answerer}'")
        return tuple(replay(self.present_initially, self.events, self.containers))


def relabel_event(event: Event, seating: dict[str, str]) -> Event:
    """The same event with its actor renamed by `seating` (player -> player)."""
    if isinstance(event, Put):
        return Put(seating[event.actor], event.item, event.container)
    if isinstance(event, Move):
        return Move(seating[event.actor], event.item, event.source, event.destination)
    if isinstance(event, Leave):
        return Leave(seating[event.actor])
    return Enter(seating[event.actor])


def relabel(scenario: Scenario, seating: dict[str, str]) -> Scenario:
    """The same story with the characters renamed: `seating` maps each character of
    `scenario` to the one who takes its place (a permutation of CHARACTERS). The full game
    seats its players this way, so that every turn's owner holds the acting seat A of a
    story designed for the spec."""
    return Scenario(
        frozenset(seating[player] for player in scenario.present_initially),
        tuple(relabel_event(event, seating) for event in scenario.events),
        scenario.question,
        seating[scenario.answerer],
        scenario.containers,
    )


def rename_objects(
    scenario: Scenario, items: dict[str, str], containers: dict[str, str]
) -> Scenario:
    """The same story with items and containers renamed (permutations of ITEMS and of the
    scenario's containers, whose listed order stays as it is). The full game disguises the
    mirrored copy of a story this way, so that A cannot read its answer off the earlier turn."""

    def renamed(event: Event) -> Event:
        if isinstance(event, Put):
            return Put(event.actor, items[event.item], containers[event.container])
        if isinstance(event, Move):
            return Move(
                event.actor,
                items[event.item],
                containers[event.source],
                containers[event.destination],
            )
        return event

    return Scenario(
        scenario.present_initially,
        tuple(renamed(event) for event in scenario.events),
        containers[scenario.question],
        scenario.answerer,
        scenario.containers,
    )
