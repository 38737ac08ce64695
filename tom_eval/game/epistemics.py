"""Who believes what: the observer (what player A perceives) and the minds it infers.

Two views of one scenario live here and must never be mixed:

* `observe` is the observer: the only path from the world to what player A perceives.
  The story A reads, A's labels (docs/engine.md), the ECT count and the
  oracle's choice are all computed from its `Observation`, never from hidden events.
* `actual_minds` is ground truth: what every character really believes. The generator
  uses it to check that A's inferences are sound ("certainly true" really is true).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from tom_eval.game.world import (
    CHARACTERS,
    PLAYERS,
    SELF,
    Enter,
    Event,
    Leave,
    Move,
    Put,
    Room,
    Scenario,
    touches,
)

Status = Literal["true", "false", "unsure"]
"""What A can tell about a player's belief on the question container."""

KNOWS_X = "Knows X"
BELIEVES_X = "Believes X"
KNOWS_TRUTH = "Knows Truth"
BELIEVES_TRUTH = "Believes Truth"
BELIEVES_FALSE = "Believes False"
UNKNOWN = "Unknown"
SELF_LABELS: tuple[str, ...] = (KNOWS_X, BELIEVES_X)
OTHER_LABELS: tuple[str, ...] = (KNOWS_TRUTH, BELIEVES_TRUTH, BELIEVES_FALSE, UNKNOWN)


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one player perceives of a scenario, in order."""

    viewer: str
    present_initially: frozenset[str]
    events: tuple[Event, ...]
    containers: tuple[str, ...]
    question: str
    answerer: str

    @property
    def items_seen(self) -> frozenset[str]:
        """The items the viewer saw put or moved: all it may name of the contents."""
        return frozenset(event.item for event in self.events if isinstance(event, (Put, Move)))


def perceives(viewer: str, room: Room, event: Event) -> bool:
    """The one rule of what a player perceives of an event in `room` (the room as it was
    before the event): every leave and enter, and puts and moves while inside."""
    return isinstance(event, (Leave, Enter)) or viewer in room.present


def observe(scenario: Scenario, viewer: str = SELF) -> Observation:
    """What `viewer` perceives of the scenario, by `perceives`."""
    rooms = scenario.rooms
    visible = tuple(
        event
        for room, event in zip(rooms, scenario.events, strict=False)
        if perceives(viewer, room, event)
    )
    return Observation(
        viewer,
        scenario.present_initially,
        visible,
        scenario.containers,
        scenario.question,
        scenario.answerer,
    )


@dataclass(frozen=True, slots=True)
class Assessment:
    """Player A's view of every character at the end of the story (docs/engine.md)."""

    statuses: Mapping[str, Status]
    """Read-only: an assessment is shared (`oracle.shared_solution`)."""
    present: frozenset[str]
    self_belief: str | None
    """What A believes the question container holds (None: empty)."""
    truth: str | None
    """What the container holds, when A knows it; None otherwise or when empty."""
    truth_known: bool
    ect: int
    visible_events: int
    saw_latest: frozenset[str] = frozenset()
    """Players A is sure saw the latest change to the container: in the room, they ignore
    hearsay about it (docs/game.md)."""

    def knows_for_sure(self, player: str) -> bool:
        return player in self.saw_latest and player in self.present

    def label(self, player: str) -> str:
        status = self.statuses[player]
        if player == SELF:
            return KNOWS_X if status == "true" else BELIEVES_X
        if status == "unsure":
            return UNKNOWN
        if status == "false":
            return BELIEVES_FALSE
        return KNOWS_TRUTH if player in self.present else BELIEVES_TRUTH

    @property
    def labels(self) -> dict[str, str]:
        return {player: self.label(player) for player in self.statuses}


# How A holds another player's belief: A knows it equals the truth ("tracks"),
# A knows its value ("known"), or A cannot tell ("unknown").
_TRACKS = "tracks"
_KNOWN = "known"
_UNKNOWN = "unknown"
_KNOWING: tuple[bool, Status] = (True, "true")
_RIGHT: tuple[bool, Status] = (False, "true")
_UNSURE: tuple[bool, Status] = (False, "unsure")
_WRONG: tuple[bool, Status] = (False, "false")


class _Perspective:
    """A's running inference; used only inside `assess`, which is pure."""

    def __init__(self, observation: Observation) -> None:
        self.question = observation.question
        self.present = set(observation.present_initially)
        self.truth_known = True
        self.truth: str | None = None
        self.self_belief: str | None = None
        # Everyone starts right: the containers are empty, and a player who never saw
        # them believes they are empty.
        self.minds: dict[str, tuple[str, str | None]] = {
            player: (_TRACKS, None) if player in self.present else (_KNOWN, None)
            for player in PLAYERS
            if player != SELF
        }
        # Who A is sure saw the latest change (so ignores hearsay, docs/game.md).
        self.saw_latest = set(self.present)
        if SELF not in self.present and self.present:
            self._unobserved_stretch()

    def status(self, player: str) -> Status:
        if player == SELF:
            mode, belief = _KNOWN, self.self_belief
        else:
            mode, belief = self.minds[player]
        if mode == _TRACKS:
            return "true"
        if mode == _UNKNOWN or not self.truth_known:
            return "unsure"
        return "true" if belief == self.truth else "false"

    def category(self, player: str) -> tuple[bool, Status]:
        """(knows, status): the two dimensions an epistemic category transition flips."""
        status = self.status(player)
        if status == "true":
            return _KNOWING if player == SELF or player in self.present else _RIGHT
        return _UNSURE if status == "unsure" else _WRONG

    def witness_change(self, before: str | None, after: str | None) -> None:
        """A sees the question container go from `before` to `after`."""
        for player, (mode, _) in self.minds.items():
            if player in self.present:
                self.minds[player] = (_TRACKS, None)
            elif mode == _TRACKS:
                # It believed the truth, and A has just seen what the truth was.
                self.minds[player] = (_KNOWN, before)
        self.truth_known, self.truth, self.self_belief = True, after, after
        self.saw_latest = set(self.present)

    def witness_presence(self, event: Leave | Enter) -> None:
        if isinstance(event, Leave):
            self.present.discard(event.actor)
        else:
            self.present.add(event.actor)
        if SELF not in self.present and self.present:
            self._unobserved_stretch()

    def _unobserved_stretch(self) -> None:
        """A is out and someone is in: the container may change unseen by A. A player in
        the room who is certainly right stays so (it sees whatever happens); every other
        player, and A, becomes unsure."""
        right = {player for player in self.minds if self.status(player) == "true"}
        for player, (mode, _) in self.minds.items():
            if player in self.present:
                self.minds[player] = (_TRACKS, None) if player in right else (_UNKNOWN, None)
            elif mode == _TRACKS:
                self.minds[player] = (_KNOWN, self.truth) if self.truth_known else (_UNKNOWN, None)
        self.truth_known, self.truth = False, None
        # Had the container changed, only those in the room would have seen it.
        self.saw_latest &= self.present


def _contents_change(event: Put | Move, question: str) -> tuple[str | None, str | None]:
    """(before, after) for an event that touches the question container."""
    if isinstance(event, Put):
        return None, event.item
    if event.source == question:
        return event.item, None
    return None, event.item


def assess(observation: Observation) -> Assessment:
    """A's labels for every character, computed from what A perceived and nothing else."""
    *_, (perspective, ect, count) = _inferences(observation)
    return _snapshot(perspective, ect, count)


def assess_steps(observation: Observation) -> Iterator[Assessment]:
    """A's assessment before the first perceived event and after each one."""
    for perspective, ect, count in _inferences(observation):
        yield _snapshot(perspective, ect, count)


def _inferences(observation: Observation) -> Iterator[tuple[_Perspective, int, int]]:
    """A's running inference, the ECT count and the events perceived so far, step by step."""
    perspective = _Perspective(observation)
    categories = {player: perspective.category(player) for player in CHARACTERS}
    ect = 0
    yield perspective, ect, 0
    for count, event in enumerate(observation.events, 1):
        if isinstance(event, (Leave, Enter)):
            perspective.witness_presence(event)
        elif touches(event, observation.question):
            perspective.witness_change(*_contents_change(event, observation.question))
        for player in CHARACTERS:
            category = perspective.category(player)
            if category != categories[player]:
                ect += _transitions(categories[player], category)
                categories[player] = category
        yield perspective, ect, count


def _snapshot(perspective: _Perspective, ect: int, visible_events: int) -> Assessment:
    return Assessment(
        statuses=MappingProxyType({player: perspective.status(player) for player in PLAYERS}),
        present=frozenset(perspective.present),
        self_belief=perspective.self_belief,
        truth=perspective.truth,
        truth_known=perspective.truth_known,
        ect=ect,
        visible_events=visible_events,
        saw_latest=frozenset(perspective.saw_latest),
    )


def _transitions(before: tuple[bool, Status], after: tuple[bool, Status]) -> int:
    """Epistemic category transitions: knowledge<->belief flips plus true<->false flips."""
    flips = int(before[0] != after[0])
    if before[1] != after[1] and "unsure" not in (before[1], after[1]):
        flips += 1
    return flips


@dataclass(frozen=True, slots=True)
class Mind:
    """What one character really believes about the question container."""

    belief: str | None
    knows: bool
    """In the room and witnessed the latest change (docs/game.md)."""


def actual_minds(
    scenario: Scenario, container: str | None = None
) -> tuple[str | None, dict[str, Mind]]:
    """Ground truth at the end about `container` (default: the question container): what
    it holds and every character's mind."""
    rooms = scenario.rooms
    question = container or scenario.question
    beliefs: dict[str, str | None] = {player: None for player in CHARACTERS}
    saw_latest = {player: player in scenario.present_initially for player in CHARACTERS}
    for room, after, event in zip(rooms[:-1], rooms[1:], scenario.events, strict=True):
        if touches(event, question):
            for player in CHARACTERS:
                saw_latest[player] = perceives(player, room, event)
                if saw_latest[player]:
                    beliefs[player] = after.holding(question)
    final = rooms[-1]
    minds = {
        player: Mind(beliefs[player], saw_latest[player] and player in final.present)
        for player in CHARACTERS
    }
    return final.holding(question), minds
