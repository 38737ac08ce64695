"""The load ladder: the same base stories played at rising load, to find where a model's
theory of mind breaks (docs/ladder.md). Inspect-free.

Each rung of one (Id, rep) grows from the rung below it, so a story at level 8 holds the
story at level 4 plus four more events: the rungs differ in load only. The base story
(level 0) is the scenario the default run plays as Extra 0A (same spec row, rep and
seed). Two ladders:

* `events`: the level is how many events A perceives beyond the base story, all filler
  (no label, no ECT count and no answer changes), drawn as Extra 0B's filler is;
* `ect`: the level is how many epistemic category transitions (ECTs) are added, by
  events drawn from the same proposals that must raise the ECT count and change no label
  and no answer (Extra 1B's load). A row allows only so many; where a story cannot reach
  a level, its ladder stops below it (`Climb.stopped` says where).

Every rung passes every check the generator makes of a scenario (labels, optimal action,
sound inferences, the fair-story standards) and `ladder_violations` (the load itself).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from tom_eval.errors import InputError
from tom_eval.game.generation import (
    INSERT_ATTEMPTS,
    NoInsertion,
    accepted_solution,
    generate_group,
    in_processes,
    insert_events,
    refuse_too_many,
    same_answer,
    with_chunk,
)
from tom_eval.game.oracle import Solution, solve
from tom_eval.game.spec import SpecRow
from tom_eval.game.validation import ladder_violations
from tom_eval.game.world import Scenario

LADDERS: tuple[str, ...] = ("events", "ect")
DEFAULT_LEVELS: tuple[int, ...] = (0, 2, 4, 8, 16, 32)
MAX_LEVEL = 64
"""The highest level the ladder builds. Every (Id, rep) of the spec reaches it on the events
ladder (the items run short beyond that: a put needs an object not yet in the story)."""
STRETCH = 4
"""Units of load (events or ECTs) added in one go on the way up to a rung."""
CLIMB_ATTEMPTS = 40
"""Tries of one stretch before the story's ladder stops below the rung."""


@dataclass(frozen=True, slots=True)
class Rung:
    """One scenario of the ladder: a base story at one level."""

    row: SpecRow
    """The spec row of the base story (Extra 0A)."""
    rep: int
    seed: int
    ladder: str
    level: int
    solution: Solution

    @property
    def key(self) -> str:
        """E.g. 12-events8-r3: Id 12, rep 3, 8 events beyond the base story."""
        return f"{self.row.id}-{self.ladder}{self.level}-r{self.rep}"

    @property
    def base_story(self) -> str:
        return f"{self.row.id}-r{self.rep}"


@dataclass(frozen=True)
class Climb:
    """A ladder's rungs, and the stories whose ladder stopped below its top."""

    rungs: list[Rung]
    stopped: dict[str, int]
    """Base story -> the highest level it reached, for stories that could not go higher."""


def parse_levels(levels: str | int | list[int | str] | tuple[int, ...]) -> tuple[int, ...]:
    """`-T levels=0,2,4` (text, a number or a list) as sorted distinct levels from 0."""
    parts: list[object]
    if isinstance(levels, str):
        parts = list(levels.split(","))
    elif isinstance(levels, list | tuple):
        parts = list(levels)
    else:
        parts = [levels]
    if levels is None or not parts:  # `-T levels=` with nothing after it, or `-T levels=[]`
        raise InputError("levels names no level (e.g. 0,2,4,8)")
    found = set()
    for part in parts:
        text = str(part).strip()
        if isinstance(part, bool) or not text.isascii() or not text.isdigit():
            raise InputError(f"levels must be whole numbers from 0, not '{part}'")
        if len(text) > 4 or int(text) > MAX_LEVEL:
            raise InputError(f"levels go up to {MAX_LEVEL}, not {text}")
        found.add(int(text))
    if 0 not in found:
        raise InputError("levels must include 0: the base story the span is measured from")
    if len(found) < 2:
        raise InputError("levels needs a level above 0 to climb to")
    return tuple(sorted(found))


def climb(
    rows: list[SpecRow],
    reps: int,
    seed: int,
    ladder: str,
    levels: tuple[int, ...],
    workers: int | None = None,
) -> Climb:
    """The ladder of every 0A row and rep, ordered by Id, level, then rep. The (Id, rep)
    stories climb in `workers` processes (default: one per core); each has its own seed, so
    the ladder does not depend on how many."""
    if ladder not in LADDERS:
        raise InputError(f"ladder must be one of {', '.join(LADDERS)}, not '{ladder}'")
    if reps < 1:
        raise InputError(f"reps must be at least 1, got {reps}")
    ids = sum(row.extra == "0A" for row in rows)
    refuse_too_many(
        ids * reps * len(levels),
        f"ladder={ladder}: {ids:,} Ids x {reps:,} reps x {len(levels)} levels",
        "rungs",
        "reps, Ids or levels",
    )
    jobs = [
        _ClimbJob(row, rep, seed, ladder, levels)
        for row in rows
        if row.extra == "0A"
        for rep in range(1, reps + 1)
    ]
    rungs: list[Rung] = []
    stopped: dict[str, int] = {}
    for story in in_processes(jobs, workers, _climb_job, _climb_stories, _solve_rungs):
        rungs.extend(story)
        if story[-1].level < levels[-1]:
            stopped[story[0].base_story] = story[-1].level
    order = {level: index for index, level in enumerate(levels)}
    rungs.sort(key=lambda rung: (rung.row.id, order[rung.level], rung.rep))
    return Climb(rungs, stopped)


@dataclass(frozen=True, slots=True)
class _ClimbJob:
    """One (Id, rep) story to climb: `climb_story`'s arguments."""

    row: SpecRow
    rep: int
    seed: int
    ladder: str
    levels: tuple[int, ...]


def _climb_job(job: _ClimbJob) -> list[Rung]:
    return climb_story(job.row, job.rep, job.seed, job.ladder, job.levels)


def _climb_stories(job: _ClimbJob) -> list[tuple[int, Scenario]]:
    """One story's rungs as (level, story), stripped of cached derivations so they travel
    light between processes (`_solve_rungs` solves them again)."""
    return [(rung.level, replace(rung.solution.scenario)) for rung in _climb_job(job)]


def _solve_rungs(job: _ClimbJob, stories: list[tuple[int, Scenario]]) -> list[Rung]:
    return [
        Rung(job.row, job.rep, job.seed, job.ladder, level, solve(story))
        for level, story in stories
    ]


def climb_story(
    row: SpecRow, rep: int, seed: int, ladder: str, levels: tuple[int, ...]
) -> list[Rung]:
    """The rungs of one (Id, rep), from its base story up to the highest level it reaches."""
    base = generate_group(row, rep, seed)["0A"]
    rng = random.Random(f"tom-eval-ladder:{seed}:{row.id}:{rep}:{ladder}")
    rungs = [Rung(row, rep, seed, ladder, 0, base)]
    for level in levels[1:]:
        below = rungs[-1]
        raised = _raise(row, base, below.solution, level - below.level, ladder, rng)
        if raised is None:
            break
        problems = ladder_violations(ladder, base, level, raised)
        if problems:
            raise AssertionError(f"{row.id}-r{rep} {ladder} {level}: {problems[0]}")
        rungs.append(Rung(row, rep, seed, ladder, level, raised))
    return rungs


def _raise(
    row: SpecRow, base: Solution, below: Solution, step: int, ladder: str, rng: random.Random
) -> Solution | None:
    """The story one rung up (`step` more events, or `step` more ECTs), or None. The load
    goes in a few units at a time, each tried afresh from where the last one left off, so
    that a dead end costs one stretch of the climb, not all of it."""
    solution = below
    for done in range(0, step, STRETCH):
        stretch = min(STRETCH, step - done)
        for _ in range(CLIMB_ATTEMPTS):
            try:
                if ladder == "events":
                    solution = insert_events(row, solution, rng, stretch, _same_load(base))
                else:
                    solution = _add_transitions(row, base, solution, stretch, rng)
                break
            except NoInsertion:
                continue
        else:
            return None
    return solution


def _same_load(base: Solution) -> Callable[[Solution], bool]:
    """Filler: the base story's ECT count and every character's label (the spec's test
    covers only the row's three)."""

    def keep(solution: Solution) -> bool:
        return (
            solution.assessment.ect == base.assessment.ect
            and solution.assessment.labels == base.assessment.labels
        )

    return keep


def _add_transitions(
    row: SpecRow, base: Solution, below: Solution, step: int, rng: random.Random
) -> Solution:
    """`below` with chunks of perceived events inserted until its ECT count is `step`
    higher; each chunk must raise the count without overshooting, and keep every
    character's label and the answer."""
    target = below.assessment.ect + step
    solution = below
    while solution.assessment.ect < target:
        floor = solution.assessment.ect

        def keep(candidate: Solution, floor: int = floor) -> bool:
            return (
                floor < candidate.assessment.ect <= target
                and candidate.assessment.labels == base.assessment.labels
            )

        for _ in range(INSERT_ATTEMPTS):
            candidate = with_chunk(solution.scenario, rng, rng.randint(1, 3))
            if candidate is None:
                continue
            accepted = accepted_solution(row, candidate, keep)
            if accepted is not None and same_answer(accepted, base):
                solution = accepted
                break
        else:
            raise NoInsertion
    return solution
