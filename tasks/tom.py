"""The Ask/Tell/Pass Theory-of-Mind game: `inspect eval tasks/tom.py --model <provider/model>`.

Trial mode (the default): one Sample per scenario; the model plays player A for one turn.
Game mode (`-T mode=game`): one Sample per game; the model plays A through a whole game
against simulated players. docs/game.md and docs/full-games.md give every parameter and
what is measured.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import Dataset
from inspect_ai.solver import Solver

from scorers.game import game_mean_reducer, game_scorer
from scorers.tom import key_mean_reducer, ladder_metrics, tom_scorer
from tom_eval.errors import InputError
from tom_eval.game.dataset import (
    SHIPPED_REPS,
    game_dataset,
    ladder_records,
    scenario_records,
    tom_dataset,
)
from tom_eval.game.ladder import DEFAULT_LEVELS, LADDERS, parse_levels
from tom_eval.game.parsing import RESPONSE_FORMATS
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import ScenarioRecord
from tom_eval.game.session import HISTORY_MODES
from tom_eval.game.solver import play_game, play_turn
from tom_eval.game.spec import EXTRAS, parse_extras
from tom_eval.game.turn import parse_lineup
from tom_eval.progress import show_progress
from tom_eval.providers.base import refuse_unplayable
from tom_eval.sampling import by_metadata, sample_subset, subset_arguments
from tom_eval.task_args import (
    NOT_GIVEN,
    file_name,
    flag,
    one_of,
    optional,
    refuse_misspelt,
    task_arguments,
    whole_number,
)

MODES = ("trial", "game")
GAMES, TURNS = 50, 40
"""Whole games (mode=game): how many, and the most turns each."""
_TRIAL_GAME_ARGUMENTS = (str(GAMES), str(TURNS), "none")
"""games, turns and history as a trial run has them (as text: checked before their values)."""

VERSION = "14-F"
"""The task's version (eval.yaml): 14 since "no wait" and "I mean" revise and a letter closing a
revision is the option revised to ("A... or rather C" is C), an echo of the instruction's list of
actions names no action (it was Pass), and "N/A" (it was "n"), a placeholder ("<contents>") and
terminal codes are no answer's words; 13 since a conclusion is read to a colon or a dash where its
reasons begin ("No, wait, the box is empty: the apple was moved to the bag." is nothing), "or
rather" revises, an item in what another player would answer is theirs ("The box is empty - C would
say apple." is nothing) and an empty box hedged where it is said, its item named only as it left,
is undecided ("I think it might be empty. The apple was moved to the bag."), and what might have
been beside it is not read ("Empty. If nobody had touched it, the brick would still be in the box."
is nothing); 12 since a statement's reasons after a colon or a dash are not what it says ("The box
is empty: the apple was moved to the bag." is nothing), an item's relative clause between commas is
read past ("Nothing. The ball, which was in the box, was moved to the bag." is nothing) and A's own
"I think" states its answer ("Empty, I think. apple: box -> bag." is nothing); 11 since an empty
box and the paths, told with arrows, that took items out of it are nothing ("Apple: box -> bag.
Box: empty."), and an item a relative clause puts in and the main clause moves on left it; 10 since
an item that went into the box and on again left it ("The box is empty. The ball went into the box
first, then was moved to the bag." is nothing); 9 since what a reply says of another container is
not said of the box; 8 since a pronoun later in an item's sentence can deny it; 7 since an item an
answer says is not there is not its answer ("Not the apple" is no answer); 6 since an answer is
read at its conclusion ("..., so the box is empty"), "not empty" is no empty answer, and a trial's
liar names an item drawn with the task's seed and the epoch; 5 since the reader's revisions need a
clause that states an action, `format_ok` counts unreadable replies without their tagged line, and
a note on a player ("B: ...") is no option letter; 4 since a ladder's span is read off the measured
curve (3: a ladder's level intervals, and so the test of whether it has a span at all, are Price
and Bonett's; every other score is comparable with 2-A's); B: full games' epochs reducer and
`fooled` over lies alone, revisions inside a sentence read; C: a scenario file lacking an Id or
Extra asked for is refused (CHANGELOG.md)."""


@task
def tom(
    ids: str | int | list[int | str] = "all",
    extras: str | list[str] = "0A,0B,1A,1B",
    reps: int = SHIPPED_REPS,
    seed: int = 0,
    scenario_file: str = NOT_GIVEN,
    response_format: str = "choice",
    lineup: str | list[str] = "default",
    lose: bool = False,
    mode: str = "trial",
    games: int = GAMES,
    turns: int = TURNS,
    history: str = "none",
    structured: bool = False,
    sample: int | str = NOT_GIVEN,
    sample_seed: int = 0,
    ladder: str = NOT_GIVEN,
    levels: str | int | list[int | str] = "0,2,4,8,16,32",
    **unknown: Any,
) -> Task:
    """The Ask/Tell/Pass game.

    Args:
        ids: spec Ids: "all" (39), "mastery" (the 26 of the reference), or e.g. "7,8,12-13".
        extras: load conditions, e.g. "0A,1B" (default all four).
        reps: instances per (Id, Extra) when generating (default 10).
        seed: generator seed (default 0).
        scenario_file: play the scenarios of a file instead (tom-eval's JSONL or the
            reference's JSON); ids and extras filter it (an Id or Extra it lacks is
            refused), reps is refused, and seed still
            orders the options, chooses what a liar says and, in game mode, which stories
            each game plays.
        response_format: "choice" (lettered options), "action" (the action only) or
            "free" (reasoning, then a final ACTION: line).
        lineup: "default" (B dishonest teammate, C honest opponent, D dishonest opponent)
            or changes such as "D=honest_opponent,N=neutral".
        lose: a wrong answer costs the answerer's team one point.
        mode: "trial" (one turn per scenario) or "game" (whole games).
        games: game mode: the number of games (default 50).
        turns: game mode: turns per game, a multiple of 4 (default 40; the winning score
            is turns / 4 + 4).
        history: game mode: what stays in the conversation: "none" (each turn alone),
            "full" (every earlier turn and its public result) or "actions" (A's earlier
            actions only).
        structured: ask for each reply as JSON of a schema (the option letter, or the
            action's fields; the contents when answering), which providers that support
            structured output enforce. Trial mode only.
        sample: play a balanced subset of this many samples: trial mode spreads them
            evenly over the expected action classes (the headline's) and the Extras, a
            ladder draws this many base stories (each at every level) evenly over the
            expected action classes, game mode draws games (default: every sample).
        sample_seed: the seed of the subset (default 0).
        ladder: play a load ladder (docs/ladder.md): "events" (extra events A perceives)
            or "ect" (extra epistemic category transitions). Each Id's base story (Extra
            0A) is played at every level; extras is refused. The scorer's metrics
            add the balanced accuracy at each level and the model's span.
        levels: the ladder's levels, from 0 (default 0,2,4,8,16,32).
    """
    refuse_unplayable("tom")
    show_progress()
    with task_arguments("tom"):
        refuse_misspelt("tom", unknown, tom)
        chosen_format = one_of("response_format", response_format, RESPONSE_FORMATS)
        mode = one_of("mode", mode, MODES)
        history = one_of("history", history, HISTORY_MODES)
        reps, seed = whole_number("reps", reps, minimum=1), whole_number("seed", seed)
        file = file_name("scenario_file", scenario_file)
        lose, structured = flag("lose", lose), flag("structured", structured)
        if structured and mode == "game":
            raise InputError("structured output is for trial mode (mode=trial)")
        # Before their values are checked: `-T turns=3` in trial mode misses the mode.
        if mode == "trial" and (str(games), str(turns), history) != _TRIAL_GAME_ARGUMENTS:
            raise InputError("games, turns and history are for whole games: add -T mode=game")
        games = whole_number("games", games, minimum=1)
        turns = whole_number("turns", turns, minimum=4)  # a multiple of 4: `schedule`
        size, subset_seed = subset_arguments(sample, sample_seed)
        chosen_ladder = optional("ladder", ladder)
        if chosen_ladder is None:
            records, metadata = _scenarios(ids, extras, reps, seed, file, levels)
        else:
            if file is not None:
                raise InputError("a ladder is generated: drop scenario_file")
            if mode == "game":
                raise InputError("a ladder is played in trial mode: drop mode")
            if parse_extras(extras) != list(EXTRAS):
                raise InputError("a ladder plays each Id's base story (Extra 0A): drop extras")
            records, metadata = _ladder(chosen_ladder, levels, ids, reps, seed)
        chosen_lineup = parse_lineup(optional("lineup", lineup) or "default")
        rules = Rules(lose=lose)
        name = file or f"tom-eval seed {seed}"
        if mode == "game":
            dataset, subset = sample_subset(
                game_dataset(records, games, turns, seed, rules, chosen_lineup.has_neutral, name),
                size,
                subset_seed,
                by_metadata(),
                counted="games",
            )
            solver = play_game(chosen_format, chosen_lineup, rules, history, seed)
            return _game_task(dataset, solver, {**subset, **metadata})
        dataset, subset = sample_subset(
            tom_dataset(records, name, rules, chosen_lineup.has_neutral),
            size,
            subset_seed,
            by_metadata("expected_action")
            if chosen_ladder
            else by_metadata("expected_action", "extra"),
            # A ladder draws base stories whole: the span compares a story's levels.
            (lambda sample: str((sample.metadata or {})["base_story"])) if chosen_ladder else None,
            "base stories" if chosen_ladder else "samples",
        )
    solver = play_turn(chosen_format, chosen_lineup, rules, seed, structured)
    return _trial_task(dataset, solver, {**subset, **metadata}, ladder=chosen_ladder is not None)


def _trial_task(
    dataset: Dataset, solver: Solver, metadata: dict[str, object], ladder: bool
) -> Task:
    """One turn per scenario; a ladder's run adds its curve and span to the metrics."""
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=tom_scorer(),
        metrics=ladder_metrics() if ladder else None,
        # --epochs N keeps this reducer (Inspect's mean, at a fraction of its cost).
        epochs=Epochs(1, key_mean_reducer()),
        version=VERSION,
        metadata=metadata or None,
    )


def _game_task(dataset: Dataset, solver: Solver, metadata: dict[str, object]) -> Task:
    """Whole games, one per sample."""
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=game_scorer(),
        # --epochs N keeps this reducer: the pooled A-turn metrics count every epoch.
        epochs=Epochs(1, game_mean_reducer()),
        version=VERSION,
        metadata=metadata or None,
    )


def _scenarios(
    ids: str | int | list[int | str], extras: str | list[str], reps: int, seed: int,
    scenario_file: str | None, levels: str | int | list[int | str],
) -> tuple[list[ScenarioRecord], dict[str, object]]:  # fmt: skip
    """The scenarios of a run without a ladder, generated or read from a file, and what the
    task's metadata says of them (a file's digest)."""
    if parse_levels(levels) != DEFAULT_LEVELS:
        raise InputError("levels is for a load ladder: add -T ladder=events (or ect)")
    if scenario_file is not None and reps != SHIPPED_REPS:
        raise InputError("reps is for generated scenarios, not a scenario file")
    records, source = scenario_records(ids, extras, reps, seed, scenario_file)
    return records, dict(source)


def _ladder(
    ladder: object, levels: str | int | list[int | str], ids: str | int | list[int | str],
    reps: int, seed: int,
) -> tuple[list[ScenarioRecord], dict[str, object]]:  # fmt: skip
    """A ladder's scenarios, and what the task's metadata says of it: the ladder, its
    levels, and the base stories that could not climb to the top (by the level reached)."""
    chosen_ladder = one_of("ladder", ladder, LADDERS)
    chosen = parse_levels(levels)
    records, climbed = ladder_records(ids, reps, seed, chosen_ladder, chosen)
    return records, {
        "ladder": chosen_ladder,
        "levels": list(chosen),
        "ladder_stopped": climbed.stopped,
    }
