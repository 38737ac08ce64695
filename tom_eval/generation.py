"""The scenario generator: (spec row, rep, seed) -> scenarios for the four Extras.

How a story is made (the engine decides every label; the generator only proposes):

1. Base story (0A). Random walks of plausible events (puts, moves, leaves, enters by
   whoever is in the room) are drawn; every prefix of a walk is a candidate. The first
   candidate the engine accepts for the spec row is shrunk: events are dropped, in a
   seeded random order, while the engine still accepts it. So 0A has no removable event.
2. Loads. Short walks of the same kind are inserted at random points, all perceived by A:
   * 0B: three events that change no label and no ECT count (filler);
   * 1B: events that raise the ECT count and change no label (ECT load);
   * 1A: filler, exactly as many events as 1B added, so A perceives as many events in
     1A as in 1B.
   Filler and ECT load come from one proposal distribution and differ only in what the
   engine accepts, so neither has a surface style of its own (TOM_GAME.md section 6).
3. Every candidate is checked by `validation` before it is kept; a base whose loads
   cannot be built is redrawn from a derived seed. Nothing unchecked is emitted.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from tom_eval.epistemics import assess_steps, observe
from tom_eval.errors import InputError
from tom_eval.oracle import Solution, solve
from tom_eval.spec import EXTRAS, SpecRow
from tom_eval.validation import ANSWERER_ROLES, extra_group_violations, generator_violations
from tom_eval.world import (
    CHARACTERS,
    CONTAINERS,
    ITEMS,
    OPPONENTS,
    SELF,
    TEAMMATE,
    Enter,
    Event,
    InvalidEvent,
    Leave,
    Move,
    Put,
    Room,
    Scenario,
    apply_event,
)

BASE_ATTEMPTS = 4000
"""Random walks tried for one base story before the spec is declared unsatisfiable."""
INSERT_ATTEMPTS = 100
"""Insertions tried for one load before the base story is redrawn."""
REDRAWS = 20
"""Base stories tried for one (Id, rep) before giving up."""
PAIR_ATTEMPTS = 5
"""ECT loads tried for one base story before it is redrawn (1A must match each)."""
FILLER_0B = 3
PRESENT_AT_START = 0.75
"""Chance that each of B, C and D is in the room when the story starts."""
QUESTION_WEIGHT = 4.0
"""How much likelier a walk acts on the question container than on another one."""


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated scenario and where it came from."""

    row: SpecRow
    rep: int
    seed: int
    solution: Solution

    @property
    def key(self) -> str:
        return f"{self.row.id}-{self.row.extra}-r{self.rep}"


def generate(rows: list[SpecRow], reps: int, seed: int) -> list[Generated]:
    """Scenarios for every row and rep, ordered by Id, Extra, then rep."""
    if reps < 1:
        raise InputError(f"reps must be at least 1, got {reps}")
    by_id: dict[int, list[SpecRow]] = {}
    for row in rows:
        by_id.setdefault(row.id, []).append(row)
    generated: list[Generated] = []
    for spec_id, id_rows in sorted(by_id.items()):
        groups = [generate_group(id_rows[0], rep, seed) for rep in range(1, reps + 1)]
        for row in sorted(id_rows, key=lambda row: EXTRAS.index(row.extra)):
            for rep, group in enumerate(groups, 1):
                generated.append(Generated(row, rep, seed, group[row.extra]))
    return generated


def generate_group(row: SpecRow, rep: int, seed: int) -> dict[str, Solution]:
    """The four Extras of one (Id, rep), all grown from one base story."""
    for redraw in range(REDRAWS):
        rng = random.Random(f"tom-eval:{seed}:{row.id}:{rep}:{redraw}")
        base = _base_story(row, rng)
        try:
            group = _loads(row, base, rng)
        except _NoInsertion:
            continue
        if not extra_group_violations(group):
            return group
    raise InputError(f"Id {row.id} rep {rep}: no story with all four Extras after {REDRAWS} draws")


class _NoInsertion(Exception):
    """No acceptable insertion was found; the caller redraws the base story."""


def _base_story(row: SpecRow, rng: random.Random) -> Solution:
    for _ in range(BASE_ATTEMPTS):
        question = rng.choice(CONTAINERS)
        answerer = rng.choice(ANSWERER_ROLES[row.answerer])
        present = frozenset(
            player for player in CHARACTERS if player == SELF or rng.random() < PRESENT_AT_START
        )
        walk = _walk(rng, Room.initial(present), set(), rng.randint(3, 10), question)
        for scenario in _matching_prefixes(row, Scenario(present, tuple(walk), question, answerer)):
            solution = solve(scenario)
            if not generator_violations(row, solution):
                return _shrink(row, solution, rng)
    raise InputError(
        f"Id {row.id}: no story satisfies Answerer={row.answerer}, Self={row.self_label}, "
        f"Teammate={row.teammate_label}, Opponent={row.opponent_label}, Action={row.action}"
    )


def _matching_prefixes(row: SpecRow, scenario: Scenario) -> Iterator[Scenario]:
    """Prefixes of a walk whose labels from A's view already match the row (cheap filter)."""
    steps = list(assess_steps(observe(scenario)))
    rooms = scenario.rooms
    opponents = (scenario.answerer,) if scenario.answerer in OPPONENTS else OPPONENTS
    seen = 0
    for length, (room, event) in enumerate(zip(rooms, scenario.events), 1):
        if isinstance(event, (Leave, Enter)) or SELF in room.present:
            seen += 1
        labels = steps[seen].labels
        if labels[SELF] != row.self_label or labels[TEAMMATE] != row.teammate_label:
            continue
        if any(labels[opponent] == row.opponent_label for opponent in opponents):
            yield replace(scenario, events=scenario.events[:length])


def _shrink(row: SpecRow, solution: Solution, rng: random.Random) -> Solution:
    """Drop events, one or two at a time, while the engine still accepts the story: 0A keeps
    only what it needs. Pairs matter: a put and the move that empties the container again
    can only go together."""
    while True:
        events = solution.scenario.events
        removals = [(index,) for index in range(len(events))]
        rng.shuffle(removals)
        pairs = [(first, second) for first in range(len(events)) for second in range(first + 1, len(events))]
        rng.shuffle(pairs)
        for removal in removals + pairs:
            kept = tuple(event for index, event in enumerate(events) if index not in removal)
            shorter = _accepted(row, replace(solution.scenario, events=kept))
            if shorter is not None:
                solution = shorter
                break
        else:
            return solution


def _accepted(row: SpecRow, scenario: Scenario) -> Solution | None:
    try:
        solution = solve(scenario)
    except InvalidEvent:
        return None
    return None if generator_violations(row, solution) else solution


def _loads(row: SpecRow, base: Solution, rng: random.Random) -> dict[str, Solution]:
    ect = base.assessment.ect

    def filler(solution: Solution) -> bool:
        return solution.assessment.ect == ect

    def ect_load(solution: Solution) -> bool:
        return solution.assessment.ect > ect

    group = {"0A": base, "0B": _insert(row, base, rng, FILLER_0B, filler)}
    for _ in range(PAIR_ATTEMPTS):
        loaded = _insert(row, base, rng, rng.randint(2, 3), ect_load)
        added = loaded.assessment.visible_events - base.assessment.visible_events
        try:
            group["1A"] = _insert(row, base, rng, added, filler)
        except _NoInsertion:
            continue
        group["1B"] = loaded
        return group
    raise _NoInsertion


def _insert(
    row: SpecRow,
    base: Solution,
    rng: random.Random,
    count: int,
    keep: Callable[[Solution], bool],
) -> Solution:
    """Insert `count` perceived events, in chunks, each accepted by `keep` and the spec."""
    solution = base
    remaining = count
    while remaining:
        for _ in range(INSERT_ATTEMPTS):
            chunk_size = rng.randint(1, min(3, remaining))
            candidate = _with_chunk(solution.scenario, rng, chunk_size)
            if candidate is None:
                continue
            accepted = _accepted(row, candidate)
            if accepted is not None and keep(accepted):
                solution, remaining = accepted, remaining - chunk_size
                break
        else:
            raise _NoInsertion
    return solution


def _with_chunk(scenario: Scenario, rng: random.Random, size: int) -> Scenario | None:
    """The scenario with a short walk of perceived events inserted at a random point, or
    None when the walk leaves someone on the other side of the door (that would change
    labels downstream, so the engine would reject it anyway)."""
    index = rng.randint(0, len(scenario.events))
    start = scenario.rooms[index]
    used = {event.item for event in scenario.events if isinstance(event, Put)}
    chunk = _walk(rng, start, used, size, perceived_only=True)
    if _room_after(start, chunk).present != start.present:
        return None
    events = scenario.events
    return replace(scenario, events=events[:index] + tuple(chunk) + events[index:])


def _room_after(room: Room, events: list[Event]) -> Room:
    for event in events:
        room = apply_event(room, event)
    return room


def _walk(
    rng: random.Random,
    room: Room,
    used: set[str],
    length: int,
    question: str | None = None,
    perceived_only: bool = False,
) -> list[Event]:
    """`length` random events that can happen one after another from `room`.

    `question` makes events on that container likelier; `perceived_only` keeps to events
    player A perceives (puts and moves only while A is inside).
    """
    events: list[Event] = []
    fresh = [item for item in ITEMS if item not in used]
    for _ in range(length):
        event = _random_event(rng, room, fresh, question, perceived_only)
        if isinstance(event, Put):
            fresh.remove(event.item)
        events.append(event)
        room = apply_event(room, event)
    return events


def _random_event(
    rng: random.Random,
    room: Room,
    fresh: list[str],
    question: str | None,
    perceived_only: bool,
) -> Event:
    """Pick what happens (each leave, enter, put into a container or move between two
    containers has weight 1, or QUESTION_WEIGHT when it involves `question`), then who
    does it and with which unused item."""
    inside = sorted(room.present)
    kinds: list[tuple[str, str]] = [("leave", player) for player in inside]
    kinds += [("enter", player) for player in CHARACTERS if player not in room.present]
    weights = [1.0] * len(kinds)
    if inside and (SELF in room.present or not perceived_only):
        for container, held in room.contents:
            weight = QUESTION_WEIGHT if container == question else 1.0
            if held is None and fresh:
                kinds.append(("put", container))
                weights.append(weight)
            elif held is not None:
                for destination, other in room.contents:
                    if other is None:
                        kinds.append((container, destination))
                        weights.append(QUESTION_WEIGHT if destination == question else weight)
    ((kind, target),) = rng.choices(kinds, weights)
    if kind == "leave":
        return Leave(target)
    if kind == "enter":
        return Enter(target)
    actor = rng.choice(inside)
    if kind == "put":
        return Put(actor, rng.choice(fresh), target)
    return Move(actor, str(room.holding(kind)), kind, target)
