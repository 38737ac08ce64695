"""Inspect logs as tables, read only through `inspect_ai.analysis`. A *run* is a model with
the settings that shape its replies (generate config and model args, so a thinking and a
non-thinking run of one model never merge, nor two temperatures) and the task's settings
that change what is measured; logs of the same run merge. Each task's section says which
settings those are."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlparse
from urllib.request import url2pathname

import pandas as pd
from inspect_ai.analysis import (
    EvalColumn,
    EvalColumns,
    SampleScores,
    SampleSummary,
    evals_df,
    samples_df,
)
from inspect_ai.log import (
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
    read_eval_log_samples,
)
from pydantic import ValidationError

from tom_eval.errors import InputError
from tom_eval.json_fields import fits_int64
from tom_eval.task_args import NOT_GIVEN, split_names

CALL_CONFIG = (
    "max_retries",
    "timeout",
    "attempt_timeout",
    "stream_idle_timeout",
    "max_connections",
    "adaptive_connections",
    "cache_prompt",
    "cache",
    "batch",
    "extra_headers",
    "logprobs",
    "top_logprobs",
    "prompt_logprobs",
)
"""Generate-config fields that change how the model is called, not what it replies: every
other field (temperature, max_tokens, system_message, seed, reasoning_effort...) makes
another run."""
THINKING_SETTINGS = (
    "reasoning_effort",
    "reasoning_tokens",
    "reasoning_summary",
    "reasoning_mode",
    "reasoning_history",
    "reasoning_enabled",
    "enable_thinking",
    "thinking",
    "reasoning",
    "thinking_config",
    "thinking_budget",
    "budget_tokens",
)
"""Generate-config fields and model args that switch or size a model's thinking, and the
same names at any depth of `extra_body` (`{"chat_template_kwargs": {"enable_thinking":
false}}` for vLLM, `{"reasoning": {"enabled": true}}` for OpenRouter): a thinking pair's two
runs differ in these alone (`other_settings`), so another `extra_body` field still tells
runs apart, and so does Anthropic's `effort`, which sizes any reply, thinking or not."""
SCHEMAS = (
    "response_format",
    "json_schema",
    "schema",
    "guided_json",
    "structured_outputs",
    "properties",
    "$defs",
    "definitions",
)
"""Keys of `extra_body` whose dicts describe a reply (a response format, a JSON schema):
their keys name the reply's properties, never a setting."""
SHOWN_CHARACTERS = 40
"""A longer setting (a system message, say) is shown by its start and its digest."""


def _within_int64(value: Any) -> Any:
    """`value` with every integer a table column cannot hold (beyond 64 bits) as its text."""
    if isinstance(value, int) and not isinstance(value, bool) and not fits_int64(value):
        return str(value)
    if isinstance(value, list):
        return [_within_int64(item) for item in value]
    if isinstance(value, dict):
        return {key: _within_int64(item) for key, item in value.items()}
    return value


def _task_arguments(arguments: Any) -> Any:
    """A log's task arguments, each left out (NOT_GIVEN) as None, as logs from before that
    default have it, and each within 64 bits."""
    if not isinstance(arguments, dict):
        return _within_int64(arguments)
    return {
        name: None if value == NOT_GIVEN else _within_int64(value)
        for name, value in arguments.items()
    }


_REPLACED = ("model_args", "task_arg_*")
_COLUMNS = [column for column in EvalColumns if column.name not in _REPLACED] + [
    EvalColumn("model_args", path="eval.model_args"),
    EvalColumn("task_arg_*", path="eval.task_args", value=_task_arguments),
    EvalColumn("log_samples", path="eval.config.log_samples"),
]
"""evals_df's columns, with `model_args` read from the model args (inspect-ai 0.3.285
reads that column from the base URL), a task argument left out as None, one beyond 64 bits
as text (a stray `-T name=<huge>` that the task only warned about would otherwise leave its
log unread) and whether the log holds its samples (`--no-log-samples`)."""


def completed_samples(evals: pd.DataFrame) -> pd.Series:
    """Each log's completed samples as its header counts them (0 where it has no results)."""
    return pd.to_numeric(evals["completed_samples"], errors="coerce").fillna(0)


def nothing_to_read(paths: Sequence[Path], what: str, warnings: list[str]) -> InputError:
    """The one-line refusal of `paths` that hold nothing to read (`what`), with why each log
    was left out."""
    skipped = f" ({'; '.join(warnings)})" if warnings else ""
    return InputError(f"{', '.join(map(str, paths))}: {what}{skipped}")


def read_evals(paths: Sequence[Path], quiet: bool = True) -> tuple[pd.DataFrame, list[str]]:
    """One row per log under `paths` with scored samples, each with its `model_settings`
    label, its `other_settings` (those apart from thinking) and `thinking` (off, on or
    default); and a warning for each log left out: one that cannot be read, one with no
    results (empty, or unfinished), one without its samples and one that is not tom-eval's
    (its task writes no tom-eval version, `TASK_VERSION`)."""
    logs, warnings = readable_logs(paths)
    if not logs:
        raise nothing_to_read(paths, "no Inspect logs found", warnings)
    unreadable: list[str] = []
    try:
        evals = evals_df(logs, columns=_COLUMNS, quiet=quiet)
    except Exception:  # Inspect raises several types for unreadable logs
        evals, unreadable = _evals_one_by_one(logs, warnings)
    listed = set(evals["log"]) if "log" in evals else set()
    warnings += [_unlisted(log, evals) for log in logs if log not in listed | set(unreadable)]
    if not listed:
        raise InputError(f"{', '.join(logs)}: {UNLISTED}")
    empty = completed_samples(evals) == 0
    warnings += [
        without_results(log, status)
        for log, status in evals.loc[empty, ["log", "status"]].to_numpy()
    ]
    unlogged = (evals["log_samples"] == False) & ~empty  # noqa: E712 (None: logged)
    warnings += [
        f"{log}: holds no samples (written with --no-log-samples), and the report is "
        "computed from them; skipped"
        for log in evals.loc[unlogged, "log"]
    ]
    foreign = ~evals["task_version"].astype(str).str.fullmatch(TASK_VERSION)
    warnings += [
        f"{log}: not a tom-eval log (task {task}, version {version}, where tom-eval's tasks "
        "write versions such as 13-A); skipped"
        for log, task, version in evals.loc[
            foreign & ~empty & ~unlogged, ["log", "task_name", "task_version"]
        ].to_numpy()
    ]
    evals = evals[~empty & ~unlogged & ~foreign]
    # From the kept rows: a Series of the dropped ones would add them back to an empty frame.
    evals = evals.assign(person=evals["model"] == PERSON)
    evals = _without_repeats(evals, warnings)
    pairs = list(zip(evals["model_generate_config"], evals["model_args"], strict=True))
    evals["model_settings"] = [model_settings_label(config, args) for config, args in pairs]
    evals["other_settings"] = [
        model_settings_label(config, args, THINKING_SETTINGS) for config, args in pairs
    ]
    evals["thinking"] = [thinking(config, args) for config, args in pairs]
    return evals, warnings


@contextmanager
def damage_named(logs: Iterable[str]) -> Iterator[None]:
    """Reading `logs`' samples inside: a failure that a damaged log explains (a sample's
    entry cut short, of the wrong shape, or missing from the file) becomes one line naming
    that log. The logs are read again only then, so a report pays nothing for the check; a
    failure no log explains is raised as it was."""
    try:
        yield
    except InputError:
        raise
    except Exception:
        for log in logs:
            try:
                for _ in read_eval_log_samples(log, all_samples_required=True):
                    pass
            except Exception as error:  # Inspect raises several types for damaged entries
                message = f"{log}: a sample cannot be read ({_why(error)}); the log is damaged"
                raise InputError(message) from None
        raise


ZIP_END_MISSING = "EOCD not found"
"""Inspect's words for a .eval file without the end of central directory record that ends
every zip archive."""


NO_RECORDER = "No recorder for location"
"""Inspect's words for a file whose name is not a log's (scenarios.jsonl given to report)."""
UNABLE_TO_READ = "Unable to read log file"
"""How Inspect wraps the error of a JSON log it cannot parse (the cause holds the reason)."""


def _why(error: Exception) -> str:
    """Why Inspect could not read a log or a part of it, in one line."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = f" at {'.'.join(map(str, first['loc']))}" if first["loc"] else ""
        return f"not of Inspect's log format{where}: {first['msg']}"
    if isinstance(error, json.JSONDecodeError):
        return f"not valid JSON: {error.msg}"
    if isinstance(error.__cause__, Exception) and str(error).startswith(UNABLE_TO_READ):
        # Inspect's words name the file, which the line names already; the cause says why.
        return _why(error.__cause__)
    if str(error).startswith(NO_RECORDER):
        return "its name ends in neither .eval nor .json, as Inspect's logs do"
    if str(error) == ZIP_END_MISSING:
        return "cut short, or not a zip archive: the directory at a .eval file's end is missing"
    if isinstance(error, KeyError) and error.args:
        # The zip reader's words: the name of the entry it could not find, quoted.
        return f"a zip archive without the entry {error.args[0]}, so not a whole .eval log"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


SAME_RUN = (
    "task_name",
    "task_version",
    "model",
    "model_base_url",
    "model_args",
    "model_generate_config",
    "model_roles",
    "solver",
    "solver_args",
    "dataset_name",
    "dataset_sample_ids",
    "epochs",
    "message_limit",
    "token_limit",
    "time_limit",
    "working_limit",
    "tags",
    "metadata",
)
"""What makes two logs the same run (with every task argument): the same samples played by
the same model with the same settings, and the same tags and eval metadata (a study's
participant, an imported run)."""

PERSON = "tom/human"
"""People at the terminal: two of them playing one command are two runs, not a repeat."""
TASK_VERSION = r"\d+-[A-Z]"
"""The version every tom-eval task writes ("13-A", CHANGELOG.md): a log of another task that
shares a name with one of ours (a user's own `tom` task) writes none (0) or another."""


def _without_repeats(evals: pd.DataFrame, warnings: list[str]) -> pd.DataFrame:
    """One log of a run repeated as it was (the same command run twice into one folder):
    counting each would count every sample twice and narrow every interval. The log kept is
    a finished one if any, then the one with the most samples, then the newest. Repeated
    measures are `--epochs`, which the sections count as trials."""
    columns = [c for c in evals.columns if c in SAME_RUN or c.startswith("task_arg_")]
    identity = ["\x1f".join(map(str, row)) for row in evals[columns].itertuples(index=False)]
    ranked = by_preference(evals.assign(identity=identity))
    repeats = ranked[~ranked["person"]]
    dropped = repeats.duplicated("identity", keep="last")
    kept = repeats.drop_duplicates("identity", keep="last").set_index("identity")["log"]
    for log, key in repeats.loc[dropped, ["log", "identity"]].to_numpy():
        warnings.append(
            f"{log}: the same run as {kept[key]} (same task, model, settings and samples); "
            "skipped, so each sample counts once (repeated measures: --epochs)"
        )
    remaining: pd.DataFrame = evals.drop(index=repeats.index[dropped]).copy()
    return remaining


def _unlisted(log: str, evals: pd.DataFrame) -> str:
    """Why inspect_ai.analysis passed over `log`, silently: it holds a run it has read from
    another file (one eval id: a copy, or the original of one, whichever it read first), or
    its name is not Inspect's (a JSON log renamed)."""
    try:
        eval_id = read_eval_log(log, header_only=True).eval.eval_id
    except Exception:  # Inspect raises several types for unreadable logs
        eval_id = None
    copied = list(evals.loc[evals["eval_id"] == eval_id, "log"]) if "eval_id" in evals else []
    if copied:
        return (
            f"{log}: the same log as {copied[0]} (one eval id in two files); skipped, so each "
            "sample counts once"
        )
    return f"{log}: {UNLISTED}; skipped"


def _evals_one_by_one(logs: list[str], warnings: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """`evals_df` of the logs it can read, log by log, when reading them together failed:
    one bad log (a value a column cannot hold, say) leaves out that log, named, not all.
    Also the logs left out."""
    frames, unreadable, problem = [], [], ""
    for log in logs:
        try:
            frames.append(evals_df([log], columns=_COLUMNS, quiet=True))
        except Exception as error:  # as above
            problem = str(error)
            warnings.append(f"{log}: cannot be read as an Inspect log ({problem}); skipped")
            unreadable.append(log)
    if not frames:
        raise InputError(f"{', '.join(logs)}: cannot read the logs ({problem})")
    return pd.concat(frames, ignore_index=True), unreadable


def by_preference(evals: pd.DataFrame) -> pd.DataFrame:
    """The logs from the least to the most preferred, when two hold the same samples of one
    run: a finished log before an unfinished one, then the one with more samples, then the
    newer."""
    ranked: pd.DataFrame = (
        evals.assign(
            finished=evals["status"] == "success",
            saved=completed_samples(evals),
        )
        .sort_values(["finished", "saved", "created"], kind="stable")
        .drop(columns=["finished", "saved"])
    )
    return ranked


def once_per_sample(
    frame: pd.DataFrame, evals: pd.DataFrame, warnings: list[str], one_session: bool = False
) -> pd.DataFrame:
    """`samples_df` rows with each sample and epoch of a run once: a copy that did not
    error, from its preferred log (`by_preference`; `evals` names each log's `run`). A run
    whose logs overlap (a `--limit` try, then the whole run, into one folder) would count
    the shared samples twice, and a copy that errored in the preferred log would hide one
    scored in another. Logs whose eval metadata differ are separate sessions and keep every
    sample (two recorded runs of one model, two participants), and so do people's runs,
    named or not, unless `one_session` (a run whose metrics read one set of answers)."""
    refuse_missing(frame, evals)
    order = {eval_id: rank for rank, eval_id in enumerate(by_preference(evals)["eval_id"])}
    logs = evals.set_index("eval_id")
    metadata = logs["metadata"] if "metadata" in logs else pd.Series(None, index=logs.index)
    errors = frame["error"] if "error" in frame else pd.Series("", index=frame.index)
    ranked = frame.assign(
        run=frame["eval_id"].map(logs["run"]),
        session=frame["eval_id"].map(metadata.map(str)) if not one_session else "",
        completed=errors.fillna("").astype(str) == "",
        rank=frame["eval_id"].map(order),
        person=frame["eval_id"].map(logs["person"]).astype(bool) & (not one_session),
    ).sort_values(["completed", "rank"], kind="stable")
    sessions = ranked[~ranked["person"]]
    repeated = sessions.duplicated(["run", "session", "id", "epoch"], keep="last")
    # Samples, not sample-epochs: a sample of two epochs in two logs is one sample repeated.
    shared = sessions.loc[repeated].drop_duplicates(["run", "session", "id"])
    for run, count in shared["run"].value_counts().sort_index().items():
        warnings.append(
            f"{run}: {count} sample(s) also in a later or fuller log of the run; each counted once"
        )
    kept: pd.DataFrame = frame.drop(index=sessions.index[repeated])
    _warn_uneven_epochs(ranked.loc[kept.index], warnings)
    _warn_mixed_versions(evals, warnings)
    return kept


def _warn_mixed_versions(evals: pd.DataFrame, warnings: list[str]) -> None:
    """A run whose logs were written by different versions of its task is pooled all the
    same (one run, as its settings say): said, since a reader of one version may score a
    reply otherwise than another's (CHANGELOG.md)."""
    if "task_version" not in evals:  # a frame built without it (the report's own tests)
        return
    versions = evals.groupby("run", sort=True)["task_version"].unique()
    for run, found in versions.items():
        if len(found) > 1:
            listed = ", ".join(sorted(map(str, found), key=_version_order))
            warnings.append(
                f"{run}: pools logs of task versions {listed}; a reply may be scored "
                "otherwise by each (see CHANGELOG.md)"
            )


def _version_order(version: str) -> tuple[int, str]:
    """A task version's place ("9-A" before "10-A"): its number, then its letter."""
    number, _, letter = version.partition("-")
    return (int(number), letter) if number.isdigit() else (-1, version)


def _warn_uneven_epochs(ranked: pd.DataFrame, warnings: list[str]) -> None:
    """A run whose samples have unequal numbers of epochs (a `--sample-id ... --epochs 2`
    try in the same folder as the whole run) is pooled all the same, each sample-epoch a
    trial: said, since the run's N then counts some samples more than once."""
    if "epoch" not in ranked:
        return
    epochs = ranked.groupby(["run", "session", "id"], sort=False)["epoch"].nunique()
    for run, counts in epochs.groupby(level="run", sort=True):
        if counts.nunique() > 1:
            spread = ", ".join(
                f"{samples} with {epoch}"
                for epoch, samples in counts.value_counts().sort_index().items()
            )
            warnings.append(
                f"{run}: its samples have unequal numbers of epochs ({spread}); every "
                "sample-epoch counts as a trial"
            )


def refuse_missing(frame: pd.DataFrame, evals: pd.DataFrame) -> None:
    """A log whose file lacks the entry of a sample its summaries list has lost it, and
    `samples_df` passes over a missing entry without a word: the run would shrink. A sample
    counts as found in any log (`samples_df` keeps one copy of a sample that two logs hold,
    as after `inspect eval-retry`)."""
    held = frame["eval_id"].value_counts() if "eval_id" in frame else pd.Series(dtype=int)
    completed = completed_samples(evals)
    # Only a log with fewer rows than its header counts is read again: no cost otherwise.
    short = evals["eval_id"].map(held).fillna(0) < completed
    if not short.any():
        return
    found = set(frame["sample_id"]) if "sample_id" in frame else set()
    for log in evals.loc[short, "log"]:
        listed = [summary.uuid for summary in read_eval_log_sample_summaries(log)]
        missing = sum(uuid is not None and uuid not in found for uuid in listed)
        if missing:
            raise InputError(
                f"{log}: {missing} of the {len(listed)} samples it lists have no entry in the "
                "file; the log is damaged"
            )


UNLISTED = (
    "not read as an Inspect log by inspect_ai.analysis (a JSON log must keep the name "
    "Inspect gave it, <time>_<task>_<id>.json)"
)


def readable_logs(paths: Sequence[Path]) -> tuple[list[str], list[str]]:
    """The Inspect logs under `paths` whose header can be read, and a warning naming each
    one that cannot (a corrupt or cut-off file), which the report leaves out."""
    logs, warnings = [], []
    for path in paths:
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        found = (
            [_local(info.name) for info in list_eval_logs(str(path))]
            if path.is_dir()
            else [str(path.resolve())]  # evals_df names a log by its absolute path
        )
        folder = path.resolve()
        for log in found:
            if path.is_dir() and _in_hidden_folder(folder, log):
                warnings.append(
                    f"{log}: in a hidden folder (such as the staging folder of an "
                    "interrupted tom-eval import-runs); skipped"
                )
                continue
            try:
                read_eval_log(log, header_only=True)
            except Exception as error:  # Inspect raises several types for unreadable logs
                warnings.append(f"{log}: not a readable Inspect log ({_why(error)}); skipped")
                continue
            logs.append(log)
    return logs, warnings


def _in_hidden_folder(folder: Path, log: str) -> bool:
    """Whether `log` lies in a folder below `folder` (resolved) whose name starts with a
    dot: not the user's runs, and counting them would count some runs twice."""
    try:
        parts = Path(log).parent.resolve().relative_to(folder).parts
    except ValueError:  # a linked folder that lies elsewhere
        return False
    return any(part.startswith(".") for part in parts)


def _local(name: str) -> str:
    """A log's name as a path where it is a local file (Inspect lists file:// URIs)."""
    return url2pathname(urlparse(name).path) if name.startswith("file://") else name


def without_results(log: str, status: str) -> str:
    """Why a log without results is left out: a finished run with no scored sample, or an
    unfinished one (killed, interrupted or failed; maybe before it saved any sample), which
    a resumed run reports."""
    if status == "success":
        return f"{log}: run has no scored samples; skipped"
    saved = len(read_eval_log_sample_summaries(log))
    return (
        f"{log}: unfinished run (status {status}) holding {saved} sample(s) but no results; "
        "skipped (resume it with inspect eval-retry, and report the finished log)"
    )


def label_runs(evals: pd.DataFrame, setting: Callable[[dict[str, Any]], str]) -> pd.Series:
    """`model [model settings] (setting)`: the name of each eval's run, `setting` saying what of
    the task's own settings tells its runs apart."""
    settings = [setting(cast(dict[str, Any], row)) for row in evals.to_dict("records")]
    return (
        evals["model"]
        + " ["
        + evals["model_settings"]
        + "] ("
        + pd.Series(settings, index=evals.index)
        + ")"
    )


REFERENCE_PREFIX = "tom/"
"""The reference players' provider: their rows follow the models' in every table."""


def in_run_order(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run in the order of every section's table: the models' runs, then the
    reference players', each by name (not in the order the logs were read). A table of no
    run is returned as it is."""
    if table.empty:
        return table
    runs = table["run"].astype(str)
    order = sorted(range(len(table)), key=lambda row: _run_key(runs.iloc[row]))
    ordered: pd.DataFrame = table.iloc[order].reset_index(drop=True)
    return ordered


def _run_key(run: str) -> tuple[bool, list[str | float], str]:
    """Models before reference players, each by name with its numbers read as numbers
    (memory=2 before memory=16, temperature=0.05 before 0.5), then by the name itself (a01
    and a1 read alike)."""
    parts: list[str | float] = [
        float(part) if index % 2 else part
        for index, part in enumerate(re.split(r"(\d+(?:\.\d+)?)", run))
    ]
    return run.startswith(REFERENCE_PREFIX), parts, run


def names_by_digest(
    evals: pd.DataFrame,
    argument: str,
    digest_key: str,
    source_key: str | None = None,
    undigested_by_path: bool = False,
) -> list[str | None]:
    """Each run's file or folder (the task argument `argument`; the path the task read, in
    the eval metadata's `source_key`, where it keeps one), None where it gave none, by its
    name, since one is often given by several paths, with the start of its content's digest
    (the metadata's `digest_key`) when those of one name differ (`scenarios.jsonl` of two
    seeds), so their runs are never pooled. A log from before the digest was kept has none:
    it joins the others of its name unless two digests of that name differ; or, if
    `undigested_by_path` (a digest newer than the labels by name), it keeps the path it was
    given, as its label did, so that two files of one name are never pooled by mistake."""
    given = evals.get(f"task_arg_{argument}", pd.Series(None, index=evals.index))
    metadata = [
        json_object(entry) for entry in evals.get("metadata", pd.Series(None, index=evals.index))
    ]
    paths = [
        None
        if path is None or pd.isna(path)
        else str(entry.get(source_key, path) if source_key else path)
        for path, entry in zip(given, metadata, strict=True)
    ]
    digests = [entry.get(digest_key) or None for entry in metadata]
    # A folder given as "." has no name of its own: it keeps its text.
    names = [
        None
        if path is None
        else path
        if undigested_by_path and digest is None
        else Path(path).name or path
        for path, digest in zip(paths, digests, strict=True)
    ]
    versions: dict[str, set[str]] = {}
    for name, digest in zip(names, digests, strict=True):
        if name is not None:
            versions.setdefault(name, set()).update([digest] if digest else [])
    return [
        f"{name}#{digest[:8] if digest else 'unknown'}"
        if name is not None and len(versions[name]) > 1
        else name
        for name, digest in zip(names, digests, strict=True)
    ]


def samples_frame(logs: Sequence[str], quiet: bool) -> pd.DataFrame:
    """`samples_df` of `logs` with the columns every report reads (summaries, scores, and
    metadata over 1 kB, which summaries drop). A log holding an integer over 64 bits, which
    no table column holds and only an edit leaves, is named in one line instead of
    pyarrow's traceback; the logs are read one by one only then."""
    columns = SampleSummary + SampleScores
    try:
        return samples_df(list(logs), columns=columns, full=True, quiet=quiet)
    except OverflowError:
        for log in logs:
            try:
                samples_df([log], columns=columns, full=True, quiet=True)
            except OverflowError:
                raise InputError(
                    f"{log}: holds an integer over 64 bits, which no table holds; was the log "
                    "edited?"
                ) from None
        raise


def json_object(text: Any) -> dict[str, Any]:
    """A JSON object column value (dataframes hold dicts as JSON text); {} for none, and for
    a value that is no JSON object (an edited score's "C", like its list, is unscored)."""
    if isinstance(text, dict):
        return text
    if not isinstance(text, str) or not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def json_objects(column: pd.Series) -> pd.Series:
    """`json_object` of each value, as plain dicts. `Series.map` would make them one
    pyarrow struct on the columns `samples_df` gives, adding every other row's keys as None
    (a distribution of actions beside one of beliefs) and casting their values alike."""
    return pd.Series([json_object(value) for value in column], index=column.index, dtype=object)


def number(value: Any) -> float:
    """A score value; None (an unscored NaN, stored as null) is NaN."""
    return math.nan if value is None else float(value)


def model_settings_label(config: Any, args: Any, leave_out: Sequence[str] = ()) -> str:
    """The settings of a run's model that shape its replies, or "default": the generate
    config's (not `CALL_CONFIG`) and every model arg (thinking switches, a model_path, a
    seed... None is what a log keeps of an arg it cannot store, such as a function), but
    those in `leave_out`, which are left out of `extra_body` too."""
    settings = {
        key: value
        for key, value in json_object(config).items()
        if key not in CALL_CONFIG and value is not None
    }
    settings |= {key: value for key, value in json_object(args).items() if value is not None}
    settings = _without(settings, leave_out)
    shown = {key: _shown(value) for key, value in settings.items()}
    return ", ".join(f"{key}={value}" for key, value in sorted(shown.items())) or "default"


def _without(
    settings: dict[str, Any], names: Sequence[str], nested: bool = False
) -> dict[str, Any]:
    """`settings` without the keys `names`, there and at any depth of `extra_body` (not in
    another dict, nor in a response format in `extra_body`: a schema's keys name its
    properties); a dict of `extra_body` left empty goes too (`chat_template_kwargs` of
    `enable_thinking` alone)."""
    kept = {}
    for key, value in settings.items():
        if key in names:
            continue
        if isinstance(value, dict) and (nested or key == "extra_body") and key not in SCHEMAS:
            value = _without(value, names, nested=True)
            if not value:
                continue
        kept[key] = value
    return kept


def _shown(value: Any) -> str:
    """A setting as a label shows it: text as it is, a dict or list as JSON, a number or
    switch as Python writes it (`0.0`, `True`, as the labels always have)."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    if len(text) <= SHOWN_CHARACTERS:
        return text if isinstance(value, str | dict | list) else str(value)
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"{text[: SHOWN_CHARACTERS - 10]}...#{digest}"


def thinking(config: Any, args: Any) -> str:
    """off, on, or default (the provider decides), from the settings of `THINKING_SETTINGS`
    (`_thinking_verdicts` says where they are read): off if any turns thinking off (an effort
    of "none", a budget of 0, a switch set to false or "disabled"), on if any asks for it."""
    verdicts = set(_thinking_verdicts(json_object(config) | json_object(args)))
    if "off" in verdicts:
        return "off"
    return "on" if "on" in verdicts else "default"


def _thinking_verdicts(
    settings: dict[str, Any], within: str = "", nested: bool = False
) -> Iterator[str]:
    """The verdict, on or off, of each setting that switches or sizes thinking, there and in
    `extra_body` and the thinking settings' own dicts (not in another dict, nor in a
    response format, `SCHEMAS`); `within` is the thinking setting holding these
    (`thinking`'s `type`, `reasoning`'s `enabled` and `effort`: Anthropic's own `effort`
    sizes a reply, thinking or not)."""
    for key, value in settings.items():
        if isinstance(value, dict) and key not in SCHEMAS:
            if nested or key == "extra_body" or key in THINKING_SETTINGS:
                inner = key if key in THINKING_SETTINGS else within
                yield from _thinking_verdicts(value, inner, nested=True)
        elif value is None:
            continue
        elif key == "reasoning_effort" or (key == "effort" and within):
            yield "off" if value == "none" else "on"
        elif key in ("reasoning_tokens", "budget_tokens", "thinking_budget") or (
            key == "max_tokens" and within
        ):
            yield "off" if value == 0 else "on"
        elif isinstance(value, bool) and (
            key in ("reasoning_enabled", "enable_thinking", "thinking")
            or (key == "enabled" and within)
        ):
            yield "on" if value else "off"
        elif key == "type" and within and value in ("enabled", "adaptive", "disabled"):
            yield "off" if value == "disabled" else "on"


def task_argument(value: Any) -> Any:
    """A task argument as evals_df keeps it, back as the task got it: a list from its JSON
    text, a whole number from the float a column with gaps holds it as. Text that only
    looks like a list (a folder named "[old"...) stays text."""
    if isinstance(value, str) and value.startswith("["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def changed_settings(
    row: dict[str, Any],
    defaults: dict[str, object],
    name_sets: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """`name=value` for each task argument of an eval row that differs from its default.
    A file or folder is shown by the row's `named_column` where it has one (`names_by_digest`:
    one file given by two paths is one run); an argument of `name_sets` is a choice of names
    in no order (`name_set`), so `task=BI,AP` is `task=AP,BI`."""
    parts = []
    for name, default in defaults.items():
        value = row.get(f"task_arg_{name}")
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        value = task_argument(value)
        if isinstance(row.get(named_column(name)), str):
            value = row[named_column(name)]
        elif name_sets and name in name_sets:
            value, default = name_set(value, name_sets[name]), name_set(default, name_sets[name])
        elif isinstance(value, list):
            value = ",".join(str(v) for v in value)
        if not _same_setting(value, default):
            parts.append(f"{name}={value}")
    return parts


def _same_setting(value: object, default: object) -> bool:
    """Whether a task argument is its default: the same text, whatever the case, or for a
    number the same number (`-T floor=1e-3` reaches the task as text, which YAML 1.1 does
    not read as a number)."""
    if str(value).lower() == str(default).lower():
        return True
    if isinstance(default, bool) or not isinstance(default, int | float):
        return False
    try:
        return float(str(value)) == default
    except ValueError:
        return False


def named_column(argument: str) -> str:
    """The eval column showing a file or folder argument by its name (`names_by_digest`); a
    name with a space, so it is no column of Inspect's (`task_name` is)."""
    return f"{argument} by name"


def name_set(value: object, order: Sequence[str] = ()) -> str:
    """A choice of names (comma-separated, or the list Inspect makes of them) as one text:
    each name once, those of `order` in its order, then the rest alphabetically, as a task
    reads a choice whose order means nothing."""
    rank = {name: place for place, name in enumerate(order)}
    distinct = split_names(value)
    return ",".join(sorted(distinct, key=lambda name: (rank.get(name, len(rank)), name)))
