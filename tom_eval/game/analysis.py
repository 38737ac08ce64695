"""Inspect logs of tasks/tom.py as tidy tables, and the game's analyses in `tom-eval report`.

Logs are read only through inspect_ai.analysis (evals_df, samples_df, messages_df). A *run*
is a model with the settings that shape its replies (`report.logs`), its response format
and the task arguments that change the game; logs of the same run merge. Each row of
`Results.samples` is one sample of one epoch: a trial.

Game-mode logs (`-T mode=game`) hold whole games, not trials: they are read apart, into
`Results.games` (one row per game) and `Results.game_turns` (one row per turn A played),
so a directory may mix both modes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.analysis import (
    MessageColumn,
    messages_df,
)
from inspect_ai.model import ChatMessage, ContentReasoning

from tom_eval.errors import InputError
from tom_eval.game.dataset import SCENARIO_DIGEST
from tom_eval.game.epistemics import BELIEVES_FALSE, OTHER_LABELS, SELF_LABELS
from tom_eval.game.ladder import parse_levels
from tom_eval.game.mastery import SUCCESS_KEYS, mastery_scores
from tom_eval.game.rules import ACTION_COST, ANSWER_POINTS
from tom_eval.game.session import A_TURN_KEYS
from tom_eval.game.span import LadderTrial, level_shares, span
from tom_eval.game.spec import (
    EXTRAS,
    MasteryCategory,
    parse_extras,
    parse_ids,
    read_mastery,
    read_spec,
    slug,
)
from tom_eval.game.turn import DEFAULT_LINEUP, parse_lineup
from tom_eval.game.world import CHARACTERS, OPPONENTS, SELF, TEAMMATE
from tom_eval.report.logs import (
    REFERENCE_PREFIX,
    changed_settings,
    damage_named,
    in_run_order,
    json_object,
    json_objects,
    label_runs,
    named_column,
    names_by_digest,
    nothing_to_read,
    number,
    once_per_sample,
    read_evals,
    samples_frame,
    task_argument,
)
from tom_eval.report.stats import (
    balanced,
    combined_interval,
    fisher_exact,
    mann_whitney,
    two_proportions,
    wilson,
)
from tom_eval.report.values import (
    INTEGER,
    JSON_OBJECT,
    NUMBER,
    SHARE,
    TEXT,
    Kind,
    between,
    objects_with,
    one_of,
    optional,
    parsed_object,
    refuse_missing_keys,
    refuse_wrong,
    required,
)
from tom_eval.task_args import NOT_GIVEN

TASK_NAMES = ("tom", "tom_eval/tom")
SCORE_KEYS = (
    "format_ok",
    "optimal",
    "lies_okay",
    "valid",
    "regret",
    "points",
    "answer_correct",
    "answer_valid",
    "lie_to_opponent",
)
ANSWERER_ROLES = ("Self", "Teammate", "Opponent")
ACTION_CLASSES = ("Pass", "Ask Teammate", "Tell Teammate")
LABEL_DEFAULTS: dict[str, object] = {
    "ids": "all",
    "extras": "0A,0B,1A,1B",
    "reps": 10,
    "seed": 0,
    "scenario_file": NOT_GIVEN,
    "lineup": "default",
    "lose": False,
    "structured": False,
    "sample": NOT_GIVEN,
    "sample_seed": 0,
    "ladder": NOT_GIVEN,
    "levels": "0,2,4,8,16,32",
}
"""The defaults of tasks/tom.py's parameters that change what is measured (a test checks
they agree): a run's label names those the user changed, so runs that differ in them
never merge."""
SCENARIO_SET = (
    "ids",
    "extras",
    "reps",
    "seed",
    "scenario_file",
    "sample",
    "sample_seed",
    "ladder",
    "levels",
)
"""The parameters that choose the scenarios: runs on other sets are not pooled."""
_REQUIRED = (
    "metadata_id",
    "metadata_extra",
    "metadata_answerer",
    "metadata_answerer_role",
    "metadata_label_self",
    "metadata_label_teammate",
    "metadata_label_opponent",
    "metadata_expected_action",
    "metadata_optimal_action",
    "metadata_ect",
    "metadata_visible_events",
    "metadata_story",
    "metadata_character_labels",
    "score_tom_scorer",
)
_GAME_REQUIRED = ("score_game_scorer", "score_game_scorer_metadata")
GAME_OCCASIONS = ("answer_correct", "reply_lie_to_opponent", "reply_refused_to_opponent", "fooled")
"""Per-game shares of A's answers and replies (scorers/game.py): NaN when the game gave no
occasion."""
GAME_KEYS = ("win", "tie", "loss", "margin", "turns", *GAME_OCCASIONS)
"""The per-game score values the report reads."""
_A_TURN_COLUMNS = ("run", "sample", "epoch", "number", "spec_id", "extra", "expected_action")


@dataclass
class Results:
    runs: pd.DataFrame
    """One row per run: run, model, model settings, thinking (off/on/default), format,
    baseline."""
    samples: pd.DataFrame
    """One row per sample and epoch, with the score values and every analysis factor."""
    warnings: list[str] = field(default_factory=list)
    games: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Game mode: one row per game (sample and epoch), with its run and score values."""
    game_turns: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Game mode: one row per turn A played itself, scored like a trial."""
    logs: tuple[str, ...] = ()
    """The game's logs read (`load`), so that `--compare` can tell a log on both sides."""


def load(paths: Sequence[Path], quiet: bool = True) -> Results:
    """The game's runs in every log under `paths` (other tasks' logs are warned about)."""
    evals, warnings = read_evals(paths, quiet)
    other = ~evals["task_name"].isin(TASK_NAMES)
    warnings += [f"{log}: not a log of the game; skipped" for log in evals.loc[other, "log"]]
    if other.all():
        raise nothing_to_read(paths, "no run of the game with scored samples", warnings)
    with damage_named(evals.loc[~other, "log"]):
        found = results(evals[~other].copy(), warnings, quiet)
    found.logs = tuple(map(str, evals.loc[~other, "log"]))
    return found


def results(evals: pd.DataFrame, warnings: list[str], quiet: bool) -> Results:
    """The game's runs of `evals` (`report.logs.read_evals` rows of tasks/tom.py logs):
    trial-mode runs and their trials, game-mode games and A's turns in them."""
    evals = _newest_per_participant(evals, warnings)
    _other_reducers(evals, warnings)
    evals[named_column("scenario_file")] = names_by_digest(evals, "scenario_file", SCENARIO_DIGEST)
    evals["format"] = evals.get(
        "task_arg_response_format", pd.Series("choice", index=evals.index)
    ).fillna("choice")
    rows = _as_read(evals.to_dict("records"))
    evals["game"] = [_game_label(row) for row in rows]
    evals["scenario_set"] = [_scenario_set(row) for row in rows]
    evals["baseline"] = evals["model"].str.startswith(REFERENCE_PREFIX) & ~evals["person"]
    _label_people(evals)
    mode = evals.get("task_arg_mode", pd.Series("trial", index=evals.index)).fillna("trial")
    trial_evals, game_evals = evals[mode != "game"].copy(), evals[mode == "game"].copy()
    trial_evals["run"] = label_runs(trial_evals, lambda row: str(row["game"]))
    runs, samples = _trial_runs(trial_evals, warnings, quiet)
    games, game_turns = _games(game_evals, warnings, quiet)
    return Results(runs, samples, warnings, games, game_turns)


def _newest_per_participant(evals: pd.DataFrame, warnings: list[str]) -> pd.DataFrame:
    """A study exported twice holds each person twice: only their newest log counts."""
    metadata = evals.get("metadata", pd.Series(None, index=evals.index))
    participant = pd.Series(
        [json_object(entry).get("participant") for entry in metadata], index=evals.index
    )
    named = evals["person"] & participant.notna()
    newest = evals[named].assign(participant=participant[named]).sort_values("created")
    older = newest.duplicated("participant", keep="last")
    for log, who in zip(newest.loc[older, "log"], newest.loc[older, "participant"], strict=True):
        warnings.append(f"{log}: an older log of participant {who}; skipped")
    return evals.drop(index=newest.index[older])


MEAN_REDUCERS = ('["key_mean"]', '["game_mean"]', '["mean"]')
"""How a log of `evals_df` names the reducers that average each sample's epochs, as the
report's trials do (`--epochs-reducer mean` reduces by Inspect's own)."""


def _other_reducers(evals: pd.DataFrame, warnings: list[str]) -> None:
    """A warning for each log whose metrics reduce its epochs otherwise (`--epochs-reducer
    max`, say): the report counts every epoch as a trial, so its figures are the mean's,
    not the log's."""
    reducers = evals.get("epochs_reducer", pd.Series(None, index=evals.index))
    epochs = evals.get("epochs", pd.Series(1, index=evals.index)).fillna(1)
    other = (epochs > 1) & reducers.notna() & ~reducers.isin(MEAN_REDUCERS)
    for log, reducer in zip(evals.loc[other, "log"], reducers[other], strict=True):
        named = ", ".join(json.loads(reducer)) if str(reducer).startswith("[") else reducer
        warnings.append(
            f"{log}: its metrics reduce the epochs by {named}; the report counts each epoch as "
            "a trial, so its figures are those of the mean over the epochs"
        )


def _label_people(evals: pd.DataFrame) -> None:
    """A person's run is named by its participant id (eval metadata `participant`, set by
    `tom-eval export` or `--metadata participant=...`), so each person gets a row; the
    reply file a study replays from is not a setting of the run."""
    human = evals["person"]
    metadata = evals.get("metadata", pd.Series(None, index=evals.index))
    participants = [json_object(entry).get("participant") for entry in metadata]
    evals.loc[human, "model"] = [
        f"human:{participant}" if participant else "human"
        for participant, is_human in zip(participants, human, strict=True)
        if is_human
    ]
    evals.loc[human, ["model_settings", "other_settings"]] = "default"


def _trial_runs(
    evals: pd.DataFrame, warnings: list[str], quiet: bool
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Trial-mode runs and their trials (both empty when there is no trial-mode log)."""
    if evals.empty:
        return pd.DataFrame(), pd.DataFrame()
    samples = _samples(list(evals["log"]), evals, warnings, quiet)
    metadata = evals.get("metadata", pd.Series(None, index=evals.index))
    # A ladder's base stories that could not be climbed to its top level (docs/ladder.md).
    evals["ladder_stopped"] = pd.Series(
        [_ladder_stopped(json_object(entry)) for entry in metadata], index=evals.index
    )
    unscored = samples["valid"].isna()
    for run, count in samples.loc[unscored, "run"].value_counts().items():
        warnings.append(f"{run}: {count} sample(s) errored or unscored; left out")
    samples = samples[~unscored].reset_index(drop=True)
    runs = (
        evals.groupby("run", sort=False)
        .agg(
            model=("model", "first"),
            model_settings=("model_settings", "first"),
            other_settings=("other_settings", "first"),
            thinking=("thinking", "first"),
            format=("format", "first"),
            baseline=("baseline", "first"),
            scenario_set=("scenario_set", "first"),
            setting=("game", "first"),
            logs=("log", "count"),
            ladder_stopped=(
                "ladder_stopped",
                lambda logs: {k: v for d in logs for k, v in d.items()},
            ),
        )
        .reset_index()
    )
    runs["trials"] = [int((samples["run"] == run).sum()) for run in runs["run"]]
    return runs, samples


def _ladder_stopped(metadata: dict[str, Any]) -> dict[str, float]:
    """The base stories a ladder run's task could not climb to its top, each with the
    highest level it reached (none elsewhere)."""
    stopped = metadata.get("ladder_stopped")
    if not isinstance(stopped, dict):
        return {}
    return {str(story): float(level) for story, level in stopped.items()}


def _games(
    evals: pd.DataFrame, warnings: list[str], quiet: bool
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Game-mode games and A's turns in them (both empty when there is no game-mode log).

    A run also has a history mode and a game length: a 16-turn game has a lower winning
    score than a 40-turn one, so the two never merge."""
    if evals.empty:
        return pd.DataFrame(), pd.DataFrame()
    evals["history"] = evals["task_arg_history"]
    evals["turns_per_game"] = evals["task_arg_turns"].astype(int)
    evals["run"] = label_runs(
        evals, lambda row: f"{row['game']}, history={row['history']}, turns={row['turns_per_game']}"
    )
    logs = list(evals["log"])
    # full=True: the score metadata lists every A turn, often over 1 kB.
    frame = samples_frame(logs, quiet)
    missing = [column for column in _GAME_REQUIRED if column not in frame.columns]
    if missing:
        raise InputError(
            f"{', '.join(logs)}: not logs of this tom-eval version (missing {', '.join(missing)})"
        )
    frame = once_per_sample(frame, evals, warnings)
    runs = evals.set_index("eval_id")
    games = pd.DataFrame({"run": frame["eval_id"].map(runs["run"])})
    for column in ("model", "model_settings", "game", "history", "turns_per_game"):
        games[column] = frame["eval_id"].map(runs[column])
    games["baseline"] = frame["eval_id"].map(runs["baseline"]).astype(bool)
    games["sample"], games["epoch"] = frame["id"], frame["epoch"]
    scores = json_objects(frame["score_game_scorer"])
    _refuse_wrong_game_values(frame, evals, scores)
    for key in GAME_KEYS:
        # A list, not Series.map: a column of NaN only would become pyarrow's NA.
        games[key] = [number(values.get(key)) for values in scores]
    unscored = games["win"].isna()
    for run, count in games.loc[unscored, "run"].value_counts().items():
        warnings.append(f"{run}: {count} game(s) errored or unscored; left out")
    metadata = json_objects(frame.loc[~unscored, "score_game_scorer_metadata"])
    games = games[~unscored].reset_index(drop=True)
    turns = [
        {
            "run": game["run"],
            "sample": game["sample"],
            "epoch": game["epoch"],
            "number": int(turn["number"]),
            "spec_id": int(turn["id"]),
            "extra": turn["extra"],
            "expected_action": turn["expected_action"],
        }
        | {key: number(turn.get(key)) for key in A_TURN_KEYS}
        for game, values in zip(games.to_dict("records"), metadata, strict=True)
        for turn in values.get("a_turns", [])
    ]
    return games, pd.DataFrame(turns, columns=[*_A_TURN_COLUMNS, *A_TURN_KEYS])


def _game_label(record: dict[str, Any]) -> str:
    """The response format, then every task argument the user changed, and for an imported
    run whether the reference asked for free text."""
    changes = changed_settings(record, LABEL_DEFAULTS)
    imported = json_object(record.get("metadata")).get("imported", {})
    if imported.get("free_response"):
        changes.append("reference free-response prompt")
    return ", ".join([str(record["format"]), *changes])


def _scenario_set(record: dict[str, Any]) -> str:
    """The scenarios a run played, as the task arguments that chose them say."""
    chosen = {name: LABEL_DEFAULTS[name] for name in SCENARIO_SET}
    return ", ".join(changed_settings(record, chosen)) or "default scenarios"


def _lineup_changes(value: str | list[str]) -> str:
    """The players a lineup changes from the default, or "default"."""
    lineup = parse_lineup(value)
    changed = [
        f"{player}={kind}"
        for player, kind in lineup.types
        if (player, kind) not in DEFAULT_LINEUP.types
    ]
    return ",".join(changed) or "default"


def _spec_ids(
    value: str | int | list[int | str], known: list[int], mastery: tuple[int, ...]
) -> str:
    """Spec Ids as the task reads them from the spec table (its Ids `known`): "all",
    "mastery", or the Ids in order."""
    ids = parse_ids(value, known, mastery)
    if ids == sorted(set(known)):
        return "all"
    if set(ids) == set(mastery):
        return "mastery"
    runs: list[list[int]] = []
    for spec_id in ids:
        if runs and spec_id == runs[-1][-1] + 1:
            runs[-1].append(spec_id)
        else:
            runs.append([spec_id])
    # Three or more in a row as a range, as a user writes them: 7-9, not 7,8,9.
    return ",".join(
        f"{run[0]}-{run[-1]}" if len(run) > 2 else ",".join(map(str, run)) for run in runs
    )


def _as_read(records: list[dict[Hashable, Any]]) -> list[dict[str, Any]]:
    """Eval rows with the task arguments that one setting can be written several ways as
    the task reads them, so that it labels one run: `lineup=D=dishonest_opponent` is the
    default lineup, `extras=1b,0A` is `extras=0A,1B`, `ids=13,12` and `ids=12-13` are
    `ids=12,13`, `ids=9,7,8` is `ids=7-9`, and `levels=8,0,2` is `levels=0,2,8`. A value
    the task would refuse (a hand-made log) keeps its text, and so do the Ids of a scenario
    file (a range names the file's)."""
    known, mastery = [row.id for row in read_spec()], read_mastery().mastery_ids
    readers: dict[str, Callable[[Any], str]] = {
        "lineup": _lineup_changes,
        "extras": lambda value: ",".join(parse_extras(value)),
        "ids": lambda value: _spec_ids(value, known, mastery),
        "levels": lambda value: ",".join(map(str, parse_levels(value))),
    }
    read = [{str(key): value for key, value in record.items()} for record in records]
    for record in read:
        with_file = isinstance(record.get("task_arg_scenario_file"), str)
        for name, reader in readers.items():
            if name == "ids" and with_file:
                continue
            try:
                value = task_argument(record.get(f"task_arg_{name}"))
                if isinstance(value, str | list | int):
                    record[f"task_arg_{name}"] = reader(value)
            except (InputError, ValueError):
                continue
    return read


def _reasoning_chars(message: ChatMessage) -> int:
    if message.role != "assistant" or isinstance(message.content, str):
        return 0
    return sum(
        len(part.reasoning) for part in message.content if isinstance(part, ContentReasoning)
    )


def _samples(
    logs: list[str], evals: pd.DataFrame, warnings: list[str], quiet: bool
) -> pd.DataFrame:
    # full=True: sample summaries drop metadata values over 1 kB, and stories can be longer.
    frame = samples_frame(logs, quiet)
    frame = once_per_sample(frame, evals, warnings)
    messages = messages_df(
        logs,
        columns=[
            MessageColumn("role", path="role", required=True),
            MessageColumn("reasoning_chars", path=_reasoning_chars),
        ],
        filter=lambda message: message.role == "assistant",
        quiet=quiet,
    )
    reasoning = messages.groupby("sample_id").agg(
        turns=("role", "count"),
        reasoning_turns=("reasoning_chars", lambda chars: int((chars > 0).sum())),
    )
    frame = frame.join(reasoning, on="sample_id")
    missing = [column for column in _REQUIRED if column not in frame.columns]
    if missing:
        raise InputError(
            f"{', '.join(logs)}: not logs of this tom-eval version (missing {', '.join(missing)})"
        )
    scores = json_objects(frame["score_tom_scorer"])
    _refuse_wrong_values(frame, evals, scores)
    runs = evals.set_index("eval_id")
    tidy = pd.DataFrame(
        {
            "run": frame["eval_id"].map(runs["run"]),
            "log": frame["eval_id"].map(runs["log"]),
            "model": frame["eval_id"].map(runs["model"]),
            "format": frame["eval_id"].map(runs["format"]),
            "baseline": frame["eval_id"].map(runs["baseline"]).astype(bool),
            "sample": frame["id"],
            "epoch": frame["epoch"],
            "spec_id": frame["metadata_id"].astype(int),
            "extra": _extra(frame),
            "answerer": frame["metadata_answerer"],
            "answerer_role": frame["metadata_answerer_role"],
            "label_self": frame["metadata_label_self"],
            "label_teammate": frame["metadata_label_teammate"],
            "label_opponent": frame["metadata_label_opponent"],
            "expected_action": frame["metadata_expected_action"],
            "optimal_action": frame["metadata_optimal_action"],
            "ect": frame["metadata_ect"].astype(int),
            "visible_events": frame["metadata_visible_events"].astype(int),
            "story": json_objects(frame["metadata_story"]),
            "base_story": frame.get("metadata_base_story", frame["id"]),
            "level": frame.get("metadata_level", pd.Series(math.nan, index=frame.index)),
            "ladder": frame.get("metadata_ladder", pd.Series(None, index=frame.index)),
            "opponent_believes_false": [
                answerer in OPPONENTS and json_object(labels).get(answerer) == BELIEVES_FALSE
                for answerer, labels in zip(
                    frame["metadata_answerer"], frame["metadata_character_labels"], strict=True
                )
            ],
            "chosen": frame["score_tom_scorer_answer"].fillna("invalid"),
            "raw_action": frame["score_tom_scorer_metadata"].map(
                lambda m: json_object(m).get("raw_action", "")
            ),
            "options": frame["score_tom_scorer_metadata"].map(
                lambda metadata: json_object(metadata).get("options") or []
            ),
            "turns": frame["turns"].fillna(0).astype(int),
            "reasoning_turns": frame["reasoning_turns"].fillna(0).astype(int),
            "reasoning_tokens": frame["model_usage"].map(_reasoning_tokens),
        }
    )
    for key in SCORE_KEYS:
        # NaN (unscored) is stored as null.
        tidy[key] = scores.map(lambda values, key=key: number(values.get(key)))
    return tidy


_SAMPLE_KINDS: dict[str, Kind] = {
    "metadata_id": INTEGER,
    "metadata_extra": one_of(EXTRAS),
    "metadata_answerer": one_of(CHARACTERS),
    "metadata_answerer_role": one_of(ANSWERER_ROLES),
    "metadata_label_self": one_of(SELF_LABELS),
    "metadata_label_teammate": one_of(OTHER_LABELS),
    "metadata_label_opponent": one_of(OTHER_LABELS),
    "metadata_expected_action": one_of(ACTION_CLASSES),
    "metadata_optimal_action": TEXT,
    "metadata_ect": INTEGER,
    "metadata_visible_events": INTEGER,
    "metadata_story": Kind("a story as the task writes it", lambda value: _story(value)),
    "metadata_character_labels": JSON_OBJECT,
    "metadata_level": NUMBER,
}
"""The sample metadata the report reads, as the task writes it."""
_TURN_SPREAD = ANSWER_POINTS + ACTION_COST
"""The most a turn's points can be from nothing: an answer's points and an action's cost."""
_NEVER_NULL = ("optimal", "lies_okay", "valid", "regret", "points", "lie_to_opponent")
"""The score keys a scored trial, and each of A's turns in a game, holds a number in."""
_SCORE_VALUES: dict[str, Kind] = {key: SHARE for key in SCORE_KEYS} | {
    # From a right answer for free to a wrong one after an Ask or a Tell (A's own actions
    # cost Blue alone).
    "regret": between(0, ANSWER_POINTS + _TURN_SPREAD),
    "points": between(-_TURN_SPREAD, ANSWER_POINTS),
}
_SCORE_VALUES |= {key: required(_SCORE_VALUES[key]) for key in _NEVER_NULL}
_SCORE_METADATA: dict[str, Kind] = {
    "options": Kind("a list of texts or null", lambda value: value is None or _texts(value)),
    "raw_action": optional(TEXT),
}
"""The score metadata the examples show."""
_EVENTS = objects_with({"type": TEXT, "actor": TEXT})


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(entry, str) for entry in value)


def _story(value: Any) -> bool:
    """A story's events and who is in the room at first, which its features read."""
    story = parsed_object(value)
    if story is None:
        return False
    return _EVENTS.accepts(story.get("events", [])) and _texts(story.get("present_initially", []))


_A_TURNS = objects_with(
    {
        "number": INTEGER,
        "id": INTEGER,
        "extra": _SAMPLE_KINDS["metadata_extra"],
        "expected_action": _SAMPLE_KINDS["metadata_expected_action"],
    }
    | {key: _SCORE_VALUES[key] for key in A_TURN_KEYS},
    "a list of A's turns as the game's scorer writes them",
)


def _refuse_wrong_values(frame: pd.DataFrame, evals: pd.DataFrame, scores: pd.Series) -> None:
    """A value the task never writes (a log edited by hand) named in one line."""
    for column, kind in _SAMPLE_KINDS.items():
        if column in frame:
            refuse_wrong(
                frame, evals, f"metadata '{column[len('metadata_') :]}'", frame[column], kind
            )
    refuse_missing_keys(frame, evals, "score", scores, _SCORE_VALUES)
    # An unscored sample (no score at all) has no values to check.
    scored = [bool(score) for score in scores]
    for key, kind in _SCORE_VALUES.items():
        values = [score.get(key) for score in scores[scored]]
        refuse_wrong(frame[scored], evals, f"score '{key}'", values, kind)
    metadata = json_objects(frame["score_tom_scorer_metadata"])
    for key, kind in _SCORE_METADATA.items():
        values = [entry.get(key) for entry in metadata]
        refuse_wrong(frame, evals, f"score metadata '{key}'", values, kind)


def _refuse_wrong_game_values(frame: pd.DataFrame, evals: pd.DataFrame, scores: pd.Series) -> None:
    """`_refuse_wrong_values` for game-mode samples: the game's scores and A's turns."""
    refuse_missing_keys(frame, evals, "score", scores, GAME_KEYS)
    for key in GAME_KEYS:
        kind = NUMBER if key in ("margin", "turns") else SHARE
        refuse_wrong(frame, evals, f"score '{key}'", [values.get(key) for values in scores], kind)
    metadata = frame["score_game_scorer_metadata"]
    played = [json_object(values).get("a_turns", []) for values in metadata]
    refuse_wrong(frame, evals, "score metadata 'a_turns'", played, _A_TURNS)


def _reasoning_tokens(usage: Any) -> int:
    return sum(
        int(model.get("reasoning_tokens") or 0)
        for model in json_object(usage).values()
        if isinstance(model, dict)
    )


# ---------------------------------------------------------------- tables


def balanced_accuracy(rows: pd.DataFrame) -> tuple[float, float, float]:
    """Mean over expected-action classes of the share optimal, with its 95% interval
    (`stats.balanced`)."""
    classes = [rows.loc[rows["expected_action"] == name, "optimal"] for name in ACTION_CLASSES]
    return balanced([list(values) for values in classes])


def missing_classes(results: Results) -> dict[str, list[str]]:
    """The expected-action classes each run has no trial of, for the runs missing any: their
    balanced accuracy is over the classes they have, so a constant policy no longer scores
    1/3 (a `--limit` run plays the first Ids, all of them Pass)."""
    missing = {}
    for run, trials in results.samples.groupby("run", sort=True):
        absent = [name for name in ACTION_CLASSES if name not in set(trials["expected_action"])]
        if absent:
            missing[str(run)] = absent
    return missing


def _rate(values: pd.Series) -> tuple[float, float, float]:
    values = values.dropna()
    if values.empty:
        return math.nan, math.nan, math.nan
    low, high = wilson(float(values.sum()), len(values))
    return float(values.mean()), low, high


def summary(results: Results) -> pd.DataFrame:
    """One row per run: N, balanced, plain and lies-okay accuracy with intervals, invalid
    rate, the means of the other score keys, the gratuitous-lie rate (lies to an answering
    opponent who already believes something false, so that the lie gains nothing), and
    accuracy by expected action, by Extra, by answerer and by Id (`id_<n>`)."""
    rows = []
    for run in results.runs.itertuples():
        trials = results.samples[results.samples["run"] == run.run]
        ba, ba_low, ba_high = balanced_accuracy(trials)
        plain, plain_low, plain_high = _rate(trials["optimal"])
        lies, lies_low, lies_high = _rate(trials["lies_okay"])
        row: dict[str, Any] = {
            "run": run.run,
            "model": run.model,
            "model_settings": run.model_settings,
            "other_settings": run.other_settings,
            "thinking": run.thinking,
            "reasoning_seen": _share_with_reasoning(trials),
            "format": run.format,
            "setting": run.setting,
            "scenario_set": run.scenario_set,
            "baseline": run.baseline,
            "N": len(trials),
            "balanced": ba,
            "balanced_low": ba_low,
            "balanced_high": ba_high,
            "plain": plain,
            "plain_low": plain_low,
            "plain_high": plain_high,
            "lies_okay": lies,
            "lies_okay_low": lies_low,
            "lies_okay_high": lies_high,
            "invalid": 1 - _mean(trials["valid"]),
            "regret": _mean(trials["regret"]),
            "format_ok": _mean(trials["format_ok"].dropna()),
            "points": _mean(trials["points"]),
            **_with_interval("answer_correct", _rate(trials["answer_correct"])),
            # Shares over the trials that gave the occasion, so each says how many there were.
            "answer_correct_n": int(trials["answer_correct"].notna().sum()),
            "answer_valid": _mean(trials["answer_valid"].dropna()),
            "lie_to_opponent": _mean(trials["lie_to_opponent"]),
            "gratuitous_lie_rate": _mean(
                trials.loc[trials["opponent_believes_false"], "lie_to_opponent"]
            ),
            "gratuitous_lie_n": int(trials["opponent_believes_false"].sum()),
        }
        for action in ACTION_CLASSES:
            of_class = trials.loc[trials["expected_action"] == action, "optimal"]
            row[f"expected_{action}"] = _mean(of_class)
            row[f"expected_{action}_n"] = len(of_class)
        for spec_id, optimal in trials.groupby("spec_id")["optimal"]:
            row[f"id_{spec_id}"] = _mean(optimal)
        for extra in EXTRAS:
            of_extra = trials.loc[trials["extra"] == extra, "optimal"]
            row |= _with_interval(extra, _rate(of_extra)) | {f"{extra}_n": len(of_extra)}
        for role in ANSWERER_ROLES:
            row[role] = _mean(trials.loc[trials["answerer_role"] == role, "optimal"])
        rows.append(row)
    return in_run_order(pd.DataFrame(rows))


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else math.nan


def _share_with_reasoning(trials: pd.DataFrame) -> float:
    """The share of trials whose replies carried reasoning content (or reasoning tokens):
    whether a run said to think actually did, as far as its log shows."""
    if trials.empty:
        return math.nan
    seen = (trials["reasoning_turns"] > 0) | (trials["reasoning_tokens"] > 0)
    return float(seen.mean())


def game_summary(results: Results) -> pd.DataFrame:
    """One row per game-mode run: win, tie and loss rates with intervals, mean margin and
    length; over every A turn of every game, the trial headline numbers (optimal, balanced
    accuracy, invalid); and A's answers and replies, as the mean over the games that gave
    the occasion (a game's value is already its own share, and NaN without one)."""
    if results.games.empty:
        return pd.DataFrame()
    rows = []
    for run, games in results.games.groupby("run", sort=False):
        turns = results.game_turns[results.game_turns["run"] == run]
        first = games.iloc[0]
        row: dict[str, Any] = {
            "run": run,
            "model": first["model"],
            "model_settings": first["model_settings"],
            "baseline": first["baseline"],
            "game": first["game"],
            "history": first["history"],
            "turns_per_game": first["turns_per_game"],
            "games": len(games),
        }
        for key in ("win", "tie", "loss"):
            row |= _with_interval(key, _rate(games[key]))
        row |= {"margin": _mean(games["margin"]), "turns": _mean(games["turns"])}
        row["a_turns"] = len(turns)
        row |= _with_interval("optimal", _rate(turns["optimal"]))
        row |= _with_interval("balanced", balanced_accuracy(turns))
        row["invalid"] = 1 - _mean(turns["valid"])
        row["format_ok"] = _mean(turns["format_ok"].dropna())
        for key in GAME_OCCASIONS:
            row[key] = _mean(games[key])
        rows.append(row)
    return in_run_order(pd.DataFrame(rows))


def _with_interval(name: str, estimate: tuple[float, float, float]) -> dict[str, float]:
    value, low, high = estimate
    return {name: value, f"{name}_low": low, f"{name}_high": high}


def mastery(results: Results) -> pd.DataFrame:
    """Mastery categories per run, overall and per Extra (scenarios/mastery.yaml), each
    with a 95% interval (`<category>_low`, `_high`) and its trials (`_n`)."""
    categories = read_mastery()
    rows = []
    for run in results.runs["run"]:
        trials = results.samples[results.samples["run"] == run]
        for scope in ("Overall", *EXTRAS):
            subset = trials if scope == "Overall" else trials[trials["extra"] == scope]
            scores = mastery_scores(categories, _score_rows(subset))
            row: dict[str, Any] = {"run": run, "scope": scope}
            for category in categories.categories:
                name = slug(category.name)
                low, high, count = _mastery_interval(category, subset, scores.get(name))
                row |= {name: scores.get(name, math.nan), f"{name}_low": low}
                row |= {f"{name}_high": high, f"{name}_n": count}
            rows.append(row)
    # The chart's rows, and the CSV's, in the order of every table (the runs' own is the
    # order their logs were read in).
    return in_run_order(pd.DataFrame(rows))


def _mastery_interval(
    category: MasteryCategory, trials: pd.DataFrame, score: float | None
) -> tuple[float, float, int]:
    """A 95% interval of a category score (`stats.combined_interval` of its components'
    shares, weighted as in the score); and the number of trials."""
    if score is None:
        return math.nan, math.nan, 0
    parts = []
    for component in category.components:
        values = trials.loc[trials["spec_id"].isin(component.ids), SUCCESS_KEYS[component.success]]
        if len(values):
            parts.append((component.weight * len(values), float(values.sum()), len(values)))
    total = sum(weight for weight, _, _ in parts)
    low, high = combined_interval([(weight / total, x, n) for weight, x, n in parts])
    return low, high, sum(n for _, _, n in parts)


def _score_rows(trials: pd.DataFrame) -> list[tuple[int, dict[str, float]]]:
    return [
        (int(spec_id), {"optimal": optimal, "lies_okay": lies_okay, "lie_to_opponent": lie})
        for spec_id, optimal, lies_okay, lie in zip(
            trials["spec_id"],
            trials["optimal"],
            trials["lies_okay"],
            trials["lie_to_opponent"],
            strict=True,
        )
    ]


def id_by_extra(results: Results, runs: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Share optimal per (Id, Extra), pooled over `runs`, and the trials of each cell."""
    trials = results.samples[results.samples["run"].isin(runs)]
    tables = [
        trials.pivot_table(index="spec_id", columns="extra", values="optimal", aggfunc=function)
        for function in ("mean", "count")
    ]
    columns = [extra for extra in EXTRAS if extra in tables[0].columns]
    return tables[0].reindex(columns=columns), tables[1].reindex(columns=columns)


def action_kind(text: str) -> str:
    """Pass / Ask / Tell / Invalid for a chosen or expected action."""
    for kind in ("Pass", "Ask", "Tell"):
        if text.startswith(kind):
            return kind
    return "Invalid"


def confusion(trials: pd.DataFrame) -> pd.DataFrame:
    """Expected action class x chosen action type, over failures only, plus the failures
    that chose the right type with the wrong arguments."""
    failures = trials[trials["optimal"] < 1]
    rows = []
    for expected in ACTION_CLASSES:
        chosen = failures.loc[failures["expected_action"] == expected, "chosen"].map(action_kind)
        row = {"expected": expected, "failures": len(chosen)}
        row |= {kind: int((chosen == kind).sum()) for kind in ("Pass", "Ask", "Tell", "Invalid")}
        row["right type, wrong arguments"] = int((chosen == expected.split()[0]).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def story_features(story: dict[str, Any]) -> dict[str, bool]:
    """The reference's error-analysis features, read from a sample's story."""
    events = story.get("events", [])
    leaves = [i for i, event in enumerate(events) if event["type"] == "leave"]
    self_leaves = [i for i in leaves if events[i]["actor"] == SELF]
    mate_leaves = [i for i in leaves if events[i]["actor"] == TEAMMATE]
    present = SELF in story.get("present_initially", [])
    saw_put = False
    for event in events:
        saw_put = saw_put or (event["type"] == "put" and present)
        if event["actor"] == SELF and event["type"] in ("leave", "enter"):
            present = event["type"] == "enter"
    return {
        # A left at some point and was out of the room at every put; moves do not count,
        # as in the reference's feature of this name.
        "self never saw a put": bool(self_leaves) and not saw_put,
        "teammate put or moved": any(
            event["type"] in ("put", "move") and event["actor"] == TEAMMATE for event in events
        ),
        "teammate left before self": bool(
            mate_leaves and self_leaves and mate_leaves[-1] < self_leaves[-1]
        ),
    }


def feature_comparison(trials: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Each feature among successes vs failures, with a two-sided p-value (Fisher exact for
    yes/no features and label values, Mann-Whitney for counts); and the yes/no features left
    out because every trial has the same value (the default scenarios never have A miss
    every put), which can tell successes from failures in no run."""
    success = trials["optimal"] >= 1
    rows: list[dict[str, Any]] = []
    features = pd.DataFrame(
        [story_features(story) for story in trials["story"]], index=trials.index
    )
    flags: dict[str, pd.Series] = {name: features[name] for name in features.columns}
    for column, prefix in (
        ("answerer_role", "answerer"),
        ("label_self", "self"),
        ("label_teammate", "teammate"),
        ("label_opponent", "opponent"),
    ):
        for value in sorted(trials[column].unique()):
            flags[f"{prefix} {value}"] = trials[column] == value
    constant = [name for name, flag in flags.items() if flag.nunique() == 1 and len(flag) > 1]
    for name, flag in flags.items():
        if name in constant:
            continue
        a, b = int((flag & success).sum()), int((~flag & success).sum())
        c, d = int((flag & ~success).sum()), int((~flag & ~success).sum())
        rows.append(
            _feature_row(name, _share(a, a + b), _share(c, c + d), fisher_exact(a, b, c, d))
        )
    for name in ("ect", "visible_events"):
        good, bad = trials.loc[success, name], trials.loc[~success, name]
        rows.append(
            _feature_row(
                f"{name} (mean)", _mean(good), _mean(bad), mann_whitney(list(good), list(bad))
            )
        )
    return pd.DataFrame(rows), constant


def _share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def _feature_row(name: str, successes: float, failures: float, p: float) -> dict[str, Any]:
    return {"feature": name, "successes": successes, "failures": failures, "p": p}


def per_scenario(trials: pd.DataFrame) -> pd.DataFrame:
    """Share optimal per Id, with its epistemic states and expected action."""
    grouped = trials.groupby("spec_id")
    table = grouped.agg(
        N=("optimal", "size"),
        optimal=("optimal", "mean"),
        answerer=("answerer_role", "first"),
        self_label=("label_self", "first"),
        teammate=("label_teammate", "first"),
        opponent=("label_opponent", "first"),
        expected=("expected_action", "first"),
    )
    return table.reset_index().rename(columns={"spec_id": "Id", "self_label": "self"})


REASONING_COLUMNS = (
    "run",
    "turns with reasoning",
    "reasoning tokens per trial",
    "accuracy with reasoning",
    "accuracy without",
    "p",
)
"""reasoning.csv's header, written even when no run has reasoning."""


def reasoning(results: Results) -> pd.DataFrame:
    """Runs with reasoning content: share of turns with reasoning, reasoning tokens per
    trial, and accuracy of trials with and without reasoning."""
    rows = []
    for run in results.runs["run"]:
        trials = results.samples[results.samples["run"] == run]
        if trials["reasoning_turns"].sum() == 0 and trials["reasoning_tokens"].sum() == 0:
            continue
        has = trials["reasoning_turns"] > 0
        k1, n1 = float(trials.loc[has, "optimal"].sum()), int(has.sum())
        k2, n2 = float(trials.loc[~has, "optimal"].sum()), int((~has).sum())
        # Fisher on whole trials (epoch means can be fractional: rounded).
        p = fisher_exact(round(k1), n1 - round(k1), round(k2), n2 - round(k2))
        rows.append(
            {
                "run": run,
                "turns with reasoning": trials["reasoning_turns"].sum()
                / max(1, trials["turns"].sum()),
                "reasoning tokens per trial": float(trials["reasoning_tokens"].mean()),
                "accuracy with reasoning": k1 / n1 if n1 else math.nan,
                "accuracy without": k2 / n2 if n2 else math.nan,
                "p": p,
            }
        )
    return pd.DataFrame(rows, columns=REASONING_COLUMNS)


def compare(first: pd.DataFrame, second: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per Id and per mastery category: share optimal of each side, difference, p-value
    (two-proportion z-test; categories test their components' unweighted successes)."""
    by_id = []
    for spec_id in sorted(set(first["spec_id"]) | set(second["spec_id"])):
        a, b = first[first["spec_id"] == spec_id], second[second["spec_id"] == spec_id]
        by_id.append(_difference({"Id": spec_id}, a["optimal"], b["optimal"]))
    categories = read_mastery()
    by_category = []
    for category in categories.categories:
        key = {
            "optimal": "optimal",
            "lie_to_opponent_answerer": "lie_to_opponent",
            "lies_okay": "lies_okay",
        }
        sides = []
        for side in (first, second):
            values = pd.concat(
                [side.loc[side["spec_id"].isin(c.ids), key[c.success]] for c in category.components]
            )
            sides.append(values)
        row = _difference({"category": category.name}, sides[0], sides[1])
        row["A"] = mastery_scores(categories, _score_rows(first)).get(slug(category.name), math.nan)
        row["B"] = mastery_scores(categories, _score_rows(second)).get(
            slug(category.name), math.nan
        )
        row["difference"] = row["B"] - row["A"]
        by_category.append(row)
    return pd.DataFrame(by_id), pd.DataFrame(by_category)


def _difference(key: dict[str, Any], a: pd.Series, b: pd.Series) -> dict[str, Any]:
    _, p = two_proportions(float(b.sum()), len(b), float(a.sum()), len(a))
    return key | {
        "A": _mean(a),
        "N A": len(a),
        "B": _mean(b),
        "N B": len(b),
        "difference": _mean(b) - _mean(a),
        "p": p,
    }


def _delta_interval(first: pd.Series, second: pd.Series) -> str:
    """95% interval of a difference of two balanced accuracies (independent runs): the
    adjusted Wald interval of the linear function +1/k of each class share of the first
    run and -1/k of the second's (`stats.combined_interval`)."""
    parts: list[tuple[float, float, int]] = []
    for sign, row in ((1.0, first), (-1.0, second)):
        classes = _class_counts(row)
        parts += [(sign / len(classes), share * count, count) for share, count in classes]
    low, high = combined_interval(parts, bounds=(-1.0, 1.0))
    return f"[{low:.3f}, {high:.3f}]"


def _class_counts(row: pd.Series) -> list[tuple[float, int]]:
    """A summary row's (share optimal, trials) of each expected-action class it played."""
    return [
        (float(row[f"expected_{action}"]), int(row[f"expected_{action}_n"]))
        for action in ACTION_CLASSES
        if row[f"expected_{action}_n"] > 0
    ]


def thinking_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Runs of one model, task setting (format, scenarios...) and other model settings
    (temperature...) with reasoning off (or the default) and on; `reasoning seen` says
    whether the run with reasoning shows any in its log."""
    rows = []
    keys = ["model", "format", "scenario_set", "setting", "other_settings"]
    for (model, fmt, _, _, other), group in table[~table["baseline"]].groupby(keys):
        on = group[group["thinking"] == "on"]
        off = group[group["thinking"] == "off"]
        if off.empty:
            off = group[group["thinking"] == "default"]
        for _, with_reasoning in on.iterrows():
            for _, without in off.iterrows():
                rows.append(
                    {
                        "model": model,
                        "format": fmt,
                        "other settings": other,
                        "without": without["run"],
                        "with": with_reasoning["run"],
                        "reasoning seen": with_reasoning["reasoning_seen"],
                        "balanced without": without["balanced"],
                        "balanced with": with_reasoning["balanced"],
                        "delta": with_reasoning["balanced"] - without["balanced"],
                        "delta 95%": _delta_interval(with_reasoning, without),
                    }
                )
    return pd.DataFrame(rows)


def _extra(frame: pd.DataFrame) -> pd.Series:
    """Each sample's Extra; none for a ladder's rung above level 0. Level 0 is the very
    story the default run plays as Extra 0A, but the load above it is the ladder's own
    scale, which the ladder section reports: counting it as 0A would pool every level."""
    level = frame.get("metadata_level", pd.Series(math.nan, index=frame.index))
    extra: pd.Series = frame["metadata_extra"].where(level.isna() | (level == 0))
    return extra


def ladder_trials(samples: pd.DataFrame) -> list[LadderTrial]:
    """A ladder run's trials (samples with a level), as the span fit reads them."""
    return [
        LadderTrial(
            str(rung.base_story), str(rung.expected_action), float(rung.level), float(rung.optimal)
        )
        for rung in samples.dropna(subset=["level"]).itertuples()
    ]


def ladder_spans(results: Results) -> pd.DataFrame:
    """One row per ladder run: its span with the bootstrap interval, the measured balanced
    accuracy at the bottom and the top of the ladder, how many base stories it holds and how
    many of them stopped below its top level, and how many trials."""
    rows = []
    samples = results.samples.dropna(subset=["level"])
    stopped_by_run = results.runs.set_index("run")["ladder_stopped"]
    for run, trials in samples.groupby("run", sort=True):
        found = span(ladder_trials(trials))
        shares = level_shares(ladder_trials(trials))
        played = sorted(set(trials["level"]))
        stories = {level: set(group) for level, group in trials.groupby("level")["base_story"]}
        reached = stopped_by_run[run]
        rows.append(
            {
                "run": run,
                "span": found.level,
                "low": found.low,
                "high": found.high,
                "status": found.status,
                "top": found.top,
                # NaN without level-0 trials (`--sample-id` of upper rungs only).
                "level 0": shares[0.0][0] if 0.0 in shares else math.nan,
                "top level": shares[max(shares)][0],
                # Played, but lacking a trial of a class level 0 has (its stories stopped
                # below it, `--limit` cut their rungs, or samples failed): no balanced
                # accuracy comparable there.
                "left out": ",".join(f"{level:g}" for level in played if level not in shares),
                # Lacking a story of level 0 that climbed to it (`--limit`, failed samples):
                # its share is over other stories than level 0's.
                "cut": ",".join(
                    f"{level:g}"
                    for level in played
                    if _climbed_to(level, stories.get(0.0, set()), reached) - stories[level]
                ),
                "stories": trials["base_story"].nunique(),
                "classes": trials.loc[trials["level"] == 0, "expected_action"].nunique(),
                # The task lists every story it climbed; count those this run played.
                "stopped": len(reached.keys() & set(trials["base_story"])),
                "trials": len(trials),
            }
        )
    return in_run_order(pd.DataFrame(rows))


def _climbed_to(level: float, base: set[str], reached: dict[str, float]) -> set[str]:
    """The base stories (of `base`) climbed as high as `level`: all but those that stopped
    below it (`reached`: the highest level of each story that stopped)."""
    return {story for story in base if reached.get(story, math.inf) >= level}


def ladder_curves(results: Results) -> dict[str, dict[float, tuple[float, float, float, int]]]:
    """Each ladder run's measured balanced accuracy per level: (share, low, high, trials)."""
    samples = results.samples.dropna(subset=["level"])
    return {
        str(run): level_shares(ladder_trials(trials))
        for run, trials in samples.groupby("run", sort=True)
    }
