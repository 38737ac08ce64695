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
   engine accepts, so neither has a surface style of its own (docs/engine.md).
3. Every candidate is checked by `validation` before it is kept; a base whose loads
   cannot be built is redrawn from a derived seed. Nothing unchecked is emitted.
"""

from __future__ import annotations

import os
import random
import signal
from bisect import bisect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate
from typing import TypeVar

from tom_eval.errors import InputError
from tom_eval.game.epistemics import assess_steps, observe, perceives
from tom_eval.game.oracle import Solution, solve
from tom_eval.game.spec import EXTRAS, SpecRow, scenario_key
from tom_eval.game.validation import ANSWERER_ROLES, extra_group_violations, generator_violations
from tom_eval.game.world import (
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
    with_events,
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


MAX_SCENARIOS = 200_000
"""The most scenarios one call generates: all of them are held in memory (about 10 kB
each, so 2 GB), to be written in the file's order (by Id, Extra, then rep)."""


def refuse_too_many(count: int, counted: str, unit: str, fewer: str) -> None:
    """Refuses, before anything is made, more than MAX_SCENARIOS stories (`counted`, e.g.
    "156 spec rows x reps 1 to 10", making `count` of `unit`)."""
    if count > MAX_SCENARIOS:
        raise InputError(
            f"{counted} is {count:,} {unit}; at most {MAX_SCENARIOS:,} are generated at once "
            f"(they are held in memory, about 10 kB each): ask for fewer {fewer}"
        )


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated scenario and where it came from."""

    row: SpecRow
    rep: int
    seed: int
    solution: Solution

    @property
    def key(self) -> str:
        return scenario_key(self.row.id, self.row.extra, self.rep)


def generate(
    rows: list[SpecRow], reps: int, seed: int, workers: int | None = None, first_rep: int = 1
) -> list[Generated]:
    """Scenarios for every row and rep from `first_rep` to `reps`, ordered by Id, Extra, then
    rep.

    Each (Id, rep) group has its own seed, so the groups are spread over `workers`
    processes (default: one per core) and the result depends neither on how many nor on
    `first_rep` (the reps after it are the same as when generated from rep 1).
    """
    if reps < 1:
        raise InputError(f"reps must be at least 1, got {reps}")
    count = len(rows) * (reps - first_rep + 1)
    refuse_too_many(
        count,
        f"{len(rows)} spec rows x reps {first_rep:,} to {reps:,}",
        "scenarios",
        "reps or rows",
    )
    by_id: dict[int, list[SpecRow]] = {}
    for row in rows:
        by_id.setdefault(row.id, []).append(row)
    jobs = [
        (id_rows[0], rep, seed)
        for _, id_rows in sorted(by_id.items())
        for rep in range(first_rep, reps + 1)
    ]
    made = in_processes(jobs, workers, _group, _group_stories, _solve_group)
    groups = dict(zip(((row.id, rep) for row, rep, _ in jobs), made, strict=True))
    return [
        Generated(row, rep, seed, groups[(row.id, rep)][row.extra])
        for _, id_rows in sorted(by_id.items())
        for row in sorted(id_rows, key=lambda row: EXTRAS.index(row.extra))
        for rep in range(first_rep, reps + 1)
    ]


_Job = TypeVar("_Job")
_Made = TypeVar("_Made")
_Shipped = TypeVar("_Shipped")

_STOPPING = frozenset({signal.SIGINT, signal.SIGTERM})
"""Ctrl-C's and `kill`'s signals, which stop a command (`tom_eval.cli.main`)."""


def in_processes(
    jobs: Sequence[_Job],
    workers: int | None,
    work: Callable[[_Job], _Made],
    ship: Callable[[_Job], _Shipped],
    unship: Callable[[_Job, _Shipped], _Made],
) -> list[_Made]:
    """`work` of every job, in order, spread over `workers` processes (default: one per
    core); with one, `work` runs here. A worker runs `ship` instead (a module-level
    function: it is pickled), which does the work and returns it in a form that is cheap
    to send back, such as stories without their cached derivations, and `unship` restores
    it here (a solved story cannot travel: its read-only mappings do not pickle). Each
    job must seed its own randomness, so the result does not depend on the number of
    workers. A job that fails cancels those not yet started."""
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    if workers <= 1:
        return [work(job) for job in jobs]
    # Imported here: multiprocessing takes about 10 ms to load, which `tom-eval check` and a
    # one-process generation need not pay.
    from concurrent.futures import ProcessPoolExecutor

    # Ctrl-C reaches every process of the group: only this one handles it (a worker that
    # dies of it leaves the pool unable to shut down). It and `kill`'s SIGTERM are held back
    # while the workers start, so that none gets them before it ignores them, and they reach
    # this process after (raised inside the pool's start, they left it unable to shut down:
    # "cannot join thread before it is started").
    with ProcessPoolExecutor(max_workers=workers, initializer=_ignore_interrupts) as pool:
        chunksize = max(1, len(jobs) // (8 * workers))
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
            try:
                shipped = pool.map(ship, jobs, chunksize=chunksize)  # starts the workers
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)
            return [unship(job, light) for job, light in zip(jobs, shipped, strict=True)]
        except BaseException:
            # Without this, leaving the pool would first run every job still queued.
            pool.shutdown(cancel_futures=True)
            raise


def _ignore_interrupts() -> None:
    """A worker ignores Ctrl-C and `kill`'s SIGTERM (the command stops the pool), then takes
    signals again (it started with them held back)."""
    for stopping in _STOPPING:
        signal.signal(stopping, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)


def _group(job: tuple[SpecRow, int, int]) -> dict[str, Solution]:
    return generate_group(*job)


def _group_stories(job: tuple[SpecRow, int, int]) -> dict[str, Scenario]:
    """One group's stories, stripped of cached derivations so they travel light between
    processes (`_solve_group` solves them again)."""
    group = generate_group(*job)
    return {extra: replace(solution.scenario) for extra, solution in group.items()}


def _solve_group(_: tuple[SpecRow, int, int], stories: dict[str, Scenario]) -> dict[str, Solution]:
    return {extra: solve(scenario) for extra, scenario in stories.items()}


def generate_group(row: SpecRow, rep: int, seed: int) -> dict[str, Solution]:
    """The four Extras of one (Id, rep), all grown from one base story."""
    # Counterbalanced across reps rather than drawn, so no container or opponent dominates.
    question = CONTAINERS[(row.id + rep) % len(CONTAINERS)]
    roles = ANSWERER_ROLES[row.answerer]
    answerer = roles[rep % len(roles)]
    for redraw in range(REDRAWS):
        rng = random.Random(f"tom-eval:{seed}:{row.id}:{rep}:{redraw}")
        base = _hidden_change(row, _base_story(row, rng, question, answerer), rng)
        try:
            group = _loads(row, base, rng)
        except NoInsertion:
            continue
        if not extra_group_violations(group):
            return group
    raise InputError(f"Id {row.id} rep {rep}: no story with all four Extras after {REDRAWS} draws")


class NoInsertion(Exception):
    """No acceptable insertion was found; the caller redraws the base story."""


def _base_story(row: SpecRow, rng: random.Random, question: str, answerer: str) -> Solution:
    for _ in range(BASE_ATTEMPTS):
        present = frozenset(
            player for player in CHARACTERS if player == SELF or rng.random() < PRESENT_AT_START
        )
        walk = _walk(rng, Room.initial(present), set(), rng.randint(3, 10), question) or []
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
    for length, (room, event) in enumerate(zip(rooms, scenario.events, strict=False), 1):
        if perceives(SELF, room, event):
            seen += 1
        step = steps[seen]
        if step.label(SELF) != row.self_label or step.label(TEAMMATE) != row.teammate_label:
            continue
        if any(step.label(opponent) == row.opponent_label for opponent in opponents):
            yield with_events(scenario, scenario.events[:length], length)


def _shrink(row: SpecRow, solution: Solution, rng: random.Random) -> Solution:
    """Drop events, one or two at a time, while the engine still accepts the story: 0A keeps
    only what it needs. Pairs matter: a put and the move that empties the container again
    can only go together."""
    while True:
        events = solution.scenario.events
        removals = [(index,) for index in range(len(events))]
        rng.shuffle(removals)
        pairs = [
            (first, second)
            for first in range(len(events))
            for second in range(first + 1, len(events))
        ]
        rng.shuffle(pairs)
        for removal in removals + pairs:
            kept = tuple(event for index, event in enumerate(events) if index not in removal)
            shorter = accepted_solution(row, with_events(solution.scenario, kept, removal[0]))
            if shorter is not None:
                solution = shorter
                break
        else:
            return solution


def accepted_solution(
    row: SpecRow, scenario: Scenario, cheap_test: Callable[[Solution], bool] | None = None
) -> Solution | None:
    """The solved scenario if the engine accepts it for `row`, else None. `cheap_test`
    runs first, so a candidate failing it never pays for ground truth or the decision."""
    try:
        solution = solve(scenario)
    except InvalidEvent:
        return None
    if cheap_test is not None and not cheap_test(solution):
        return None
    return None if generator_violations(row, solution) else solution


def _hidden_change(row: SpecRow, base: Solution, rng: random.Random) -> Solution:
    """When A cannot know the contents, make its belief wrong half of the time, by changes
    A does not see. Shrinking removed every unseen event, so without this A's belief would
    always be right and passing would pay as well as asking."""
    if base.assessment.statuses[SELF] != "unsure" or rng.random() < 0.5:
        return base
    for _ in range(INSERT_ATTEMPTS):
        candidate = with_chunk(base.scenario, rng, rng.randint(1, 2), hidden=True)
        if candidate is None:
            continue
        changed = accepted_solution(row, candidate)
        if changed is not None and changed.truth != changed.assessment.self_belief:
            return changed
    return base


def _loads(row: SpecRow, base: Solution, rng: random.Random) -> dict[str, Solution]:
    ect = base.assessment.ect

    def filler(solution: Solution) -> bool:
        return solution.assessment.ect == ect

    def ect_load(solution: Solution) -> bool:
        return solution.assessment.ect > ect

    group = {"0A": base, "0B": insert_events(row, base, rng, FILLER_0B, filler)}
    for _ in range(PAIR_ATTEMPTS):
        loaded = insert_events(row, base, rng, rng.randint(2, 3), ect_load)
        added = loaded.assessment.visible_events - base.assessment.visible_events
        crossings = _crossings(loaded.scenario) - _crossings(base.scenario)
        # 1A controls for 1B's load: same number of events, and where possible the same
        # number of leaves and enters, so only the epistemic transitions differ.
        for budget in (crossings, None):
            try:
                group["1A"] = insert_events(row, base, rng, added, filler, budget)
            except NoInsertion:
                continue
            group["1B"] = loaded
            return group
    raise NoInsertion


def _crossings(scenario: Scenario) -> int:
    """How many leaves and enters the story has."""
    return sum(isinstance(event, (Leave, Enter)) for event in scenario.events)


def insert_events(
    row: SpecRow,
    base: Solution,
    rng: random.Random,
    count: int,
    keep: Callable[[Solution], bool],
    crossings: int | None = None,
) -> Solution:
    """Insert `count` perceived events, in chunks, each accepted by `keep` (a test on A's
    assessment) and by the spec, and each leaving the answer as it was. `crossings`, if
    given, is how many of the inserted events must be leaves or enters."""
    solution = base
    remaining = count
    while remaining:
        for _ in range(INSERT_ATTEMPTS):
            chunk_size = rng.randint(1, min(3, remaining))
            candidate = with_chunk(solution.scenario, rng, chunk_size)
            if candidate is None:
                continue
            if crossings is not None:
                added = _crossings(candidate) - _crossings(solution.scenario)
                if not 0 <= crossings - added <= remaining - chunk_size:
                    continue
            accepted = accepted_solution(row, candidate, keep)
            if accepted is not None and same_answer(accepted, base):
                if crossings is not None:
                    crossings -= added
                solution, remaining = accepted, remaining - chunk_size
                break
        else:
            raise NoInsertion
    if crossings:
        raise NoInsertion
    return solution


def same_answer(loaded: Solution, base: Solution) -> bool:
    """Loads keep the Extras paired: same contents at the end, same belief of A, so the
    same optimal action down to its arguments."""
    return (loaded.truth, loaded.assessment.self_belief) == (
        base.truth,
        base.assessment.self_belief,
    )


def with_chunk(
    scenario: Scenario, rng: random.Random, size: int, hidden: bool = False
) -> Scenario | None:
    """The scenario with a short walk inserted at a random point, after which everyone is
    back where they were (anything else changes labels downstream). The walk is of events
    A perceives, or, if `hidden`, of puts and moves while A is out and someone is in."""
    if hidden:
        points = [
            index
            for index, room in enumerate(scenario.rooms)
            if SELF not in room.present and room.present
        ]
        if not points:
            return None
        index = rng.choice(points)
    else:
        index = rng.randint(0, len(scenario.events))
    used = {event.item for event in scenario.events if isinstance(event, Put)}
    room = scenario.rooms[index]
    chunk = _walk(rng, room, used, size, perceived_only=not hidden, round_trip=True, still=hidden)
    if chunk is None:
        return None
    events = scenario.events
    return with_events(scenario, events[:index] + tuple(chunk) + events[index:], index)


def _walk(
    rng: random.Random,
    room: Room,
    used: set[str],
    length: int,
    question: str | None = None,
    perceived_only: bool = False,
    round_trip: bool = False,
    still: bool = False,
) -> list[Event] | None:
    """`length` random events that can happen one after another from `room`, or None if
    the constraints leave nothing to do.

    `question` makes events on that container likelier; `perceived_only` keeps to events
    player A perceives (puts and moves only while A is inside); `round_trip` makes every
    player who leaves or enters come back or go out again before the walk ends; `still`
    allows only puts and moves.
    """
    events: list[Event] = []
    fresh = [item for item in ITEMS if item not in used]
    crossed: frozenset[str] = frozenset()
    for step in range(length):
        spare = length - step - 1 - len(crossed) if round_trip else length
        if still:
            spare = min(spare, 0)
        event = _random_event(rng, room, fresh, question, perceived_only, crossed, spare)
        if event is None:
            return None
        if isinstance(event, Put):
            fresh.remove(event.item)
        elif isinstance(event, (Leave, Enter)):
            crossed ^= {event.actor}
        events.append(event)
        room = apply_event(room, event)
    return events


def _random_event(
    rng: random.Random,
    room: Room,
    fresh: list[str],
    question: str | None,
    perceived_only: bool,
    crossed: frozenset[str],
    spare: int,
) -> Event | None:
    """Pick what happens (each leave, enter, put into a container or move between two
    containers has weight 1, or QUESTION_WEIGHT when it involves `question`), then who
    does it and with which unused item.

    `spare` is how many steps remain beyond those needed to bring every player in
    `crossed` back across the door: at -1 only such returns are allowed; a new crossing
    needs a spare step for its own return."""
    empty = tuple(held is None for held in room.held)
    reach = max(-1, min(spare, 1))
    choices = _event_choices(
        room.present,
        room.containers,
        empty,
        bool(fresh),
        question,
        perceived_only,
        crossed if reach < 1 else frozenset(),
        reach,
    )
    if choices is None:
        return None
    kinds, cumulative = choices
    # What `rng.choices(kinds, weights)` draws, from the same one random number.
    kind, target = kinds[bisect(cumulative, rng.random() * cumulative[-1], 0, len(kinds) - 1)]
    if kind == "leave":
        return Leave(target)
    if kind == "enter":
        return Enter(target)
    actor = rng.choice(sorted(room.present))
    if kind == "put":
        return Put(actor, rng.choice(fresh), target)
    return Move(actor, str(room.holding(kind)), kind, target)


@lru_cache(maxsize=4096)
def _event_choices(
    present: frozenset[str],
    containers: tuple[str, ...],
    empty: tuple[bool, ...],
    fresh: bool,
    question: str | None,
    perceived_only: bool,
    crossed: frozenset[str],
    reach: int,
) -> tuple[tuple[tuple[str, str], ...], tuple[float, ...]] | None:
    """The events `_random_event` chooses among, as (kind, target), with their cumulative
    weights; None when there are none. Cached: walks draw about a hundred thousand events
    a generation from a few thousand distinct situations. `reach` is the spare steps, with
    every count from 1 alike."""
    kinds = [
        ("leave" if player in present else "enter", player)
        for player in (CHARACTERS if reach >= 1 else sorted(crossed, key=CHARACTERS.index))
    ]
    weights = [1.0] * len(kinds)
    if reach >= 0 and present and (SELF in present or not perceived_only):
        for container, is_empty in zip(containers, empty, strict=True):
            weight = QUESTION_WEIGHT if container == question else 1.0
            if is_empty and fresh:
                kinds.append(("put", container))
                weights.append(weight)
            elif not is_empty:
                for destination, free in zip(containers, empty, strict=True):
                    if free:
                        kinds.append((container, destination))
                        weights.append(QUESTION_WEIGHT if destination == question else weight)
    if not kinds:
        return None
    return tuple(kinds), tuple(accumulate(weights))
