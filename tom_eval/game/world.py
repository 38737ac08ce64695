"""The physical world of a scenario: a room, containers, items, players, events.

Everything here is ground truth. What a player *perceives* of it lives in
`epistemics`; this module only knows what happened and whether it could happen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

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
TEAMS: Mapping[str, str] = MappingProxyType(
    {"A": "blue", "B": "blue", "C": "red", "D": "red", "N": "neutral"}
)


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

    def holding(self, container: str) -> str | None:
        return self.held[self._index(container)]

    def _index(self, container: str) -> int:
        try:
            return self.containers.index(container)
        except ValueError:
            raise InvalidEvent(f"unknown container '{container}'") from None


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
    present, containers, held = room.present, room.containers, room.held
    kind = type(event)
    if kind is Enter:
        if actor in present:
            raise InvalidEvent(f"{actor} enters but is already in the room")
        return Room(present | {actor}, containers, held)
    if actor not in present:
        raise InvalidEvent(f"{actor} acts while absent")
    if kind is Leave:
        return Room(present - {actor}, containers, held)
    changed = list(held)
    if isinstance(event, Put):
        if event.item not in ITEMS:
            raise InvalidEvent(f"unknown item '{event.item}'")
        if event.item in held:
            where = containers[held.index(event.item)]
            raise InvalidEvent(f"{actor} puts {event.item}, which is already in the {where}")
        target = room._index(event.container)
        if held[target] is not None:
            raise InvalidEvent(f"{actor} puts {event.item} into the full {event.container}")
        changed[target] = event.item
        return Room(present, containers, tuple(changed))
    assert isinstance(event, Move)
    source = room._index(event.source)
    if held[source] != event.item:
        raise InvalidEvent(
            f"{actor} moves {event.item} from the {event.source}, which holds "
            f"{held[source] or NOTHING}"
        )
    destination = room._index(event.destination)
    if held[destination] is not None or destination == source:
        raise InvalidEvent(f"{actor} moves {event.item} into the full {event.destination}")
    changed[source], changed[destination] = None, event.item
    return Room(present, containers, tuple(changed))


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
        known: tuple[Room, ...] | None = self.__dict__.pop(_KNOWN_ROOMS, None)
        if known is None:
            return tuple(replay(self.present_initially, self.events, self.containers))
        rooms = list(known)
        for event in self.events[len(known) - 1 :]:
            rooms.append(apply_event(rooms[-1], event))
        return tuple(rooms)


_KNOWN_ROOMS = "_known_rooms"
"""Where `with_events` leaves the rooms a new scenario shares with the one it came from."""


def with_events(scenario: Scenario, events: tuple[Event, ...], kept: int) -> Scenario:
    """`scenario` with `events` instead, of which the first `kept` are its own: the rooms
    up to there, if already replayed, are not replayed again (the generator edits stories
    by the tens of thousands, mostly after their start)."""
    edited = Scenario(
        scenario.present_initially,
        events,
        scenario.question,
        scenario.answerer,
        scenario.containers,
    )
    rooms = scenario.__dict__.get("rooms")
    if rooms is not None:
        edited.__dict__[_KNOWN_ROOMS] = rooms[: kept + 1]
    return edited


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
