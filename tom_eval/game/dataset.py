"""Scenarios as an Inspect dataset: one Sample per scenario (every analysis factor in
metadata), or one Sample per full game (the designed stories it plays)."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from tom_eval.errors import InputError, user_path
from tom_eval.game.full_game import draw_stories, schedule
from tom_eval.game.generation import generate
from tom_eval.game.ladder import Climb, climb
from tom_eval.game.narration import narrate, question_line
from tom_eval.game.oracle import Solution, shared_solution
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import (
    OUR_FORMAT,
    ScenarioRecord,
    read_scenario_file,
    read_scenarios,
    story_fields,
    story_line,
)
from tom_eval.game.spec import (
    EXTRAS,
    Mastery,
    SpecRow,
    id_ranges,
    list_text,
    parse_extras,
    parse_ids,
    read_mastery,
    read_spec,
    scenarios_dir,
    select_rows,
)
from tom_eval.game.validation import action_violations, label_violations, spec_violations
from tom_eval.game.world import CHARACTERS, SELF

logger = logging.getLogger(__name__)

SHIPPED_FILE = "default.jsonl"
"""The scenarios of `tom-eval generate`'s defaults (every spec row, reps 10, seed 0), in
scenarios/: the generator's output, which a test regenerates byte for byte."""
SHIPPED_REPS, SHIPPED_SEED = 10, 0


SCENARIO_DIGEST = "scenario_file_sha256"
"""The eval metadata key of a scenario file's digest: `tom-eval report` tells apart two
files of one name by it."""


def scenario_records(
    ids: str | int | list[int | str],
    extras: str | list[str],
    reps: int,
    seed: int,
    scenario_file: str | None,
) -> tuple[list[ScenarioRecord], dict[str, str]]:
    """Scenarios from a file (filtered by Ids and Extras), or those the generator makes;
    and the eval metadata of a file: its SHA-256, so that runs on two files of one name
    (scenarios.jsonl of two seeds) are never pooled."""
    mastery = read_mastery()
    if scenario_file:
        records, digest = read_scenario_file(user_path(scenario_file))
        spec_rows = {(row.id, row.extra): row for row in read_spec()}
        for record in records:
            # The scorer trusts a record's claim: one that is not its Id's row is refused.
            if problems := spec_violations(record.asked, record.rep, spec_rows):
                raise InputError(f"{scenario_file}: scenario {record.key}: {problems[0]}")
        chosen_ids = set(parse_ids(ids, [r.asked.id for r in records], mastery.mastery_ids))
        chosen_extras = set(parse_extras(extras))
        chosen = [r for r in records if r.asked.id in chosen_ids and r.asked.extra in chosen_extras]
        asked = f"ids={list_text(ids)} extras={list_text(extras)}"
        if not chosen:
            raise InputError(
                f"{scenario_file}: no scenario matches {asked} (it holds {_held(records)})"
            )
        if missing := _not_in_file(ids, chosen_ids, chosen_extras, chosen):
            raise InputError(
                f"{scenario_file}: no scenario of {missing} ({asked}; it holds {_held(records)})"
            )
        return chosen, {SCENARIO_DIGEST: digest}
    spec = read_spec()
    rows = select_rows(
        spec, parse_ids(ids, [row.id for row in spec], mastery.mastery_ids), parse_extras(extras)
    )
    read = min(reps, SHIPPED_REPS)
    shipped = shipped_records(rows, read, seed)
    # `generate` refuses reps below 1 and makes nothing when the file held every rep.
    generated = [
        ScenarioRecord(item.key, item.solution.scenario, item.row, item.rep, {}, OUR_FORMAT)
        for item in generate(rows, reps, seed, first_rep=1 if shipped is None else read + 1)
    ]
    # In the generator's order: by Id, Extra, then rep.
    ordered = sorted(
        (shipped or []) + generated,
        key=lambda record: (record.asked.id, EXTRAS.index(record.asked.extra), record.rep),
    )
    return ordered, {}


def _not_in_file(
    ids: str | int | list[int | str],
    chosen_ids: set[int],
    chosen_extras: set[str],
    chosen: list[ScenarioRecord],
) -> str:
    """The Ids and Extras asked for that no chosen scenario has, as text ('' for none), so
    that a run's label (`ids=1,7`) never claims what it did not play. "all" Ids and all
    four Extras (the defaults) ask for whatever the file holds."""
    missing = []
    if list_text(ids) != "all":
        missing += [f"Id {n}" for n in sorted(chosen_ids - {r.asked.id for r in chosen})]
    if chosen_extras != set(EXTRAS):
        found = {r.asked.extra for r in chosen}
        missing += [f"Extra {extra}" for extra in EXTRAS if extra in chosen_extras - found]
    return ", ".join(missing)


def _held(records: list[ScenarioRecord]) -> str:
    """A scenario file's Ids and Extras, for a message."""
    extras = [extra for extra in EXTRAS if extra in {r.asked.extra for r in records}]
    return f"{id_ranges(r.asked.id for r in records)} and Extras {','.join(extras)}"


def shipped_records(rows: list[SpecRow], reps: int, seed: int) -> list[ScenarioRecord] | None:
    """The scenarios `generate(rows, reps, seed)` makes, read from the shipped file when it
    holds them all (reading takes 0.07 s, generating 1.1 s); None otherwise. Each
    (Id, rep) is generated from its own seed, so fewer reps are the file's first ones, and
    more are its 10 and the rest generated (`scenario_records`). The spec rows must be the
    file's: an edited spec table is generated afresh."""
    path = scenarios_dir() / SHIPPED_FILE
    if seed != SHIPPED_SEED or reps > SHIPPED_REPS or not path.is_file():
        return None
    wanted = set(rows)
    records = [
        record for record in read_scenarios(path) if record.asked in wanted and record.rep <= reps
    ]
    return records if len(records) == len(rows) * reps else None


def ladder_records(
    ids: str | int | list[int | str], reps: int, seed: int, ladder: str, levels: tuple[int, ...]
) -> tuple[list[ScenarioRecord], Climb]:
    """The rungs of a load ladder over the chosen Ids' base stories (Extra 0A), as records
    whose `stored` fields carry the ladder and the level."""
    mastery = read_mastery()
    spec = read_spec()
    rows = select_rows(spec, parse_ids(ids, [row.id for row in spec], mastery.mastery_ids), ["0A"])
    found = climb(rows, reps, seed, ladder, levels)
    records = [
        ScenarioRecord(
            rung.key,
            rung.solution.scenario,
            rung.row,
            rung.rep,
            {"ladder": rung.ladder, "level": rung.level},
            OUR_FORMAT,
        )
        for rung in found.rungs
    ]
    if found.stopped:
        logger.warning(_stopped_warning(ladder, levels, found, len(rows) * reps))
    return records, found


def _stopped_warning(ladder: str, levels: tuple[int, ...], found: Climb, stories: int) -> str:
    """Said when the task is built, not only in the report: a run whose upper levels lack
    stories shows a span of NaN, which reads as a model at chance."""
    odd = (
        " (use even levels on the ECT ladder)"
        if ladder == "ect" and any(level % 2 for level in levels)
        else ""
    )
    reached = Counter(found.stopped.values())
    where = ", ".join(f"{reached[level]} at level {level}" for level in sorted(reached))
    return (
        f"ladder={ladder}: {len(found.stopped)} of {stories} base stories could not be climbed "
        f"to level {levels[-1]} (they stopped: {where}), so the levels above where they "
        f"stopped hold fewer stories (the task's metadata `ladder_stopped` gives each one's "
        f"highest level){odd}"
    )


def checked_solution(record: ScenarioRecord, rules: Rules, with_neutral: bool) -> Solution:
    """The engine's solution of a scenario (shared with the solver and the scorer, see
    `oracle.shared_solution`); one the engine disagrees with is refused."""
    solution = shared_solution(record.scenario, rules, with_neutral)
    problems = (
        label_violations(record.asked, solution)
        + action_violations(record.asked, solution)
        + solution.unsound_inferences()
    )
    if problems:
        raise InputError(f"scenario {record.key}: {problems[0]} (run `tom-eval check` on the file)")
    return solution


MAX_GAMES = 100_000
"""The most games one task builds (100,000 take about 10 s and 0.6 GB to build)."""


def game_dataset(
    records: list[ScenarioRecord],
    games: int,
    turns: int,
    seed: int,
    rules: Rules,
    with_neutral: bool,
    name: str,
) -> MemoryDataset:
    """One Sample per full game: the designed stories it plays, drawn with the seed, each
    with the spec factors of its A turn."""
    if games > MAX_GAMES:
        raise InputError(
            f"games must be at most {MAX_GAMES:,}, not {games:,} (every game is built in "
            "memory, about 6 kB each, before --limit applies)"
        )
    for record in records:
        checked_solution(record, rules, with_neutral)
    by_key = {record.key: record for record in records}
    pool = [(record.key, record.scenario) for record in records]
    samples = []
    for game in range(1, games + 1):
        stories = draw_stories(pool, turns, f"{seed}:{game}")
        schedule(stories, turns)  # refuses a turn count the game cannot have
        metadata = {
            "mode": "game",
            "game": game,
            "turns": turns,
            "stories": [_story_entry(by_key[key]) for key, _ in stories],
            "lose": rules.lose,
            "neutral": with_neutral,
        }
        keys = ", ".join(key for key, _ in stories)
        samples.append(
            Sample(
                id=f"game-{game}",
                input=f"Game {game}: up to {turns} turns on the designed stories {keys}",
                metadata=metadata,
            )
        )
    return MemoryDataset(samples, name=name)


def _story_entry(record: ScenarioRecord) -> dict[str, Any]:
    asked = record.asked
    return {
        "key": record.key,
        "id": asked.id,
        "extra": asked.extra,
        "answerer_role": asked.answerer,
        "expected_action": asked.action,
        "story": story_fields(record.scenario),
    }


def tom_dataset(
    records: list[ScenarioRecord], name: str, rules: Rules, with_neutral: bool
) -> MemoryDataset:
    mastery = read_mastery()
    return MemoryDataset(
        [record_to_sample(record, mastery, rules, with_neutral) for record in records], name=name
    )


def record_to_sample(
    record: ScenarioRecord, mastery: Mastery, rules: Rules, with_neutral: bool
) -> Sample:
    """A Sample whose metadata carries the story and rules (for the solver and scorer) and
    every analysis factor. A scenario the engine disagrees with is refused."""
    solution = checked_solution(record, rules, with_neutral)
    assessment, decision, asked = solution.assessment, solution.decision, record.asked
    unknown_in_room = any(
        assessment.label(player) == "Unknown" and player in assessment.present
        for player in CHARACTERS
    )
    metadata: dict[str, Any] = {
        "key": record.key,
        "id": asked.id,
        "extra": asked.extra,
        "rep": record.rep,
        "answerer": record.scenario.answerer,
        "answerer_role": asked.answerer,
        "label_self": asked.self_label,
        "label_teammate": asked.teammate_label,
        "label_opponent": asked.opponent_label,
        "character_labels": {player: assessment.label(player) for player in CHARACTERS},
        "expected_action": asked.action,
        "optimal_action": str(decision.optimal),
        "margin": decision.margin,
        "ect": assessment.ect,
        "visible_events": assessment.visible_events,
        "mastery_categories": mastery.categories_of(asked.id),
        "in_mastery_set": asked.id in mastery.mastery_ids,
        "unknown_in_room": unknown_in_room,
        "self_belief_true": solution.minds[SELF].belief == solution.truth,
        "story": story_line(record.scenario),
        "lose": rules.lose,
        "neutral": with_neutral,
        "base_story": f"{asked.id}-r{record.rep}",
    }
    if "level" in record.stored:
        metadata["ladder"], metadata["level"] = record.stored["ladder"], record.stored["level"]
    observation = solution.observation
    return Sample(
        id=record.key,
        input=f"{narrate(observation)}\n{question_line(observation)}",
        target=str(decision.optimal),
        metadata=metadata,
    )


@dataclass(frozen=True)
class PlayedRules:
    """The rules a trial or a game was played under, as a scorer reads them from its
    metadata (the game's scorer reads them with its stories)."""

    lose: bool
    neutral: bool


@dataclass(frozen=True)
class GameMetadata(PlayedRules):
    """What the game's scorer reads of a game's metadata (`game_dataset`): its rules, and
    its turns and stories."""

    turns: int
    stories: list[dict[str, Any]]


@dataclass(frozen=True)
class GameStoryEntry:
    """What the game's scorer reads of a designed story the game plays (`_story_entry`)."""

    key: str
    id: int
    extra: str
    expected_action: str
    story: dict[str, Any]
    """Read by `solver.game_plan`."""
