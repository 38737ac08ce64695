"""Runs recorded by the game's public reference implementation (its `*_game_data.json`
files): what each model replied to each scenario, read so that `tom-eval import-runs`
can replay the replies through tasks/tom.py and score them like a live run. Inspect-free.

A file is `<run>_<unix time>_game_data.json` holding `{"game_setup": <rules text>,
"turn_records": [...]}`; a record is one trial of player A: the scenario (`scenario_id`,
`extra`, `rep`), the raw reply (`action`), what the answerer then said (`answer_given`,
simulated by the reference: it never asked the model), the reference's own judgement
(`optimal_action`, `was_optimal`) and whether the reply was free text (`free_response`).
Files of one run (a run cut in two) are one run. Anything else is refused in one line
naming the file and record.

The run's name says how it was configured: `_think`, `:thinking`, `_reasoning` and `-r1`
turned reasoning on (OpenAI models at effort "high", others with a 1,024-token budget) and
`_lowthink` at effort "low"; Claude, GPT-5 and DeepSeek-V3.1 runs without such a suffix
were sent reasoning disabled; `_nothink` runs, like other models, ran at their provider's
default (the reference sent no reasoning field for them, whatever the name says).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tom_eval.errors import InputError, read_user_bytes, refuse_unless_regular
from tom_eval.game.narration import asked_container
from tom_eval.json_fields import READ_ERRORS, JsonFields, json_problem

_FILE_NAME = re.compile(r"(?P<run>.+)_(?P<time>\d{9,11})_game_data\.json")
_THINKING_SUFFIX = re.compile(r"(?:_lowthink|_nothink|_think|_reasoning|:thinking)$")
_OPENAI = re.compile(r"^openai-(?:gpt-5|gpt-4|o\d)")
_SENT_DISABLED = re.compile(
    r"^(?:anthropic-claude|openai-gpt-5|openai-gpt-oss|deepseek-chat-v3\.1)"
)
MAX_FILE_BYTES = 200 * 1024 * 1024
"""A run of 1,040 trials is under 2 MB; far larger is not a run file."""


@dataclass(frozen=True)
class RecordedTrial:
    """One reply of player A, as the reference recorded it."""

    key: str
    """The scenario: `<Id>-<Extra>-r<rep>`, the sample id of tasks/tom.py."""
    source: str
    """Where it was read: `<file>: record <n>`."""
    reply: str
    answer: str
    """What the answerer said (the reference's simulation, also when A answered)."""
    optimal_action: str
    was_optimal: bool
    free_response: bool
    lose: bool
    """Whether the rules made a wrong answer cost a point."""
    question_container: str | None = None
    """The container A's question was about, as the run recorded it (None if it did not):
    what tells a run apart from a scenario file it did not play."""


@dataclass(frozen=True)
class Reasoning:
    """A run's reasoning settings, from its name: generate config and model args."""

    config: dict[str, Any] = field(default_factory=dict)
    model_args: dict[str, Any] = field(default_factory=dict)

    @property
    def thinking(self) -> str:
        if self.config.get("reasoning_effort") not in (None, "none"):
            return "on"
        if self.config.get("reasoning_tokens"):
            return "on"
        return "off" if self.model_args.get("reasoning_enabled") is False else "default"


@dataclass(frozen=True)
class RecordedRun:
    name: str
    """As the files name it: `anthropic-claude-opus-4.6_think`."""
    files: tuple[Path, ...]
    trials: tuple[RecordedTrial, ...]
    rules: str
    recorded: tuple[datetime, ...]
    """When each file was written (its name's unix time), in UTC."""

    @property
    def model(self) -> str:
        """The model without its reasoning suffix, so runs of one model pair up."""
        return f"reference/{_THINKING_SUFFIX.sub('', self.name)}"

    @property
    def reasoning(self) -> Reasoning:
        return reasoning_of(self.name)

    @property
    def free_response(self) -> bool:
        return any(trial.free_response for trial in self.trials)

    @property
    def lose(self) -> bool:
        return any(trial.lose for trial in self.trials)


def reasoning_of(name: str) -> Reasoning:
    """What the reference sent for a run of this name (module docstring)."""
    base = _THINKING_SUFFIX.sub("", name)
    if name.endswith("_lowthink"):
        return Reasoning({"reasoning_effort": "low"})
    if name.endswith("_nothink"):
        # The reference sent no reasoning field for these: the provider's default, not off.
        return Reasoning()
    if name != base or base.endswith("-r1"):
        if _OPENAI.match(base):
            return Reasoning({"reasoning_effort": "high"})
        return Reasoning({"reasoning_tokens": 1024})
    if _SENT_DISABLED.match(base):
        return Reasoning(model_args={"reasoning_enabled": False})
    return Reasoning()


def run_files(paths: Sequence[Path]) -> list[Path]:
    """The run files named by `paths` (files, or folders holding `*_game_data.json`)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.glob("*_game_data.json"))
        elif path.is_file():
            found.append(path)
        elif path.exists():
            raise InputError(f"{path}: neither a run file nor a folder of them")
        else:
            raise InputError(f"{path}: no such file or directory")
    if not found:
        raise InputError(f"{', '.join(map(str, paths))}: no *_game_data.json run files")
    # A file named twice (a folder and a file in it, as a shell's glob may give) is read once.
    once: dict[Path, Path] = {}
    for path in found:
        once.setdefault(path.resolve(), path)
    return list(once.values())


def read_run_file(path: Path) -> tuple[str, datetime, str, list[RecordedTrial]]:
    """A file's run name, time, rules text and trials; InputError naming the file (and the
    record) for anything that is not such a file."""
    match = _FILE_NAME.fullmatch(path.name)
    if match is None:
        raise InputError(
            f"{path}: not a run file's name (expected <run>_<unix time>_game_data.json, "
            "the time in 9 to 11 digits)"
        )
    refuse_unless_regular(path, "a pipe or a device would be read without end")
    if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
        raise InputError(f"{path}: {path.stat().st_size} bytes is too large for a run file")
    data = _run_json(path, read_user_bytes(path))
    top = JsonFields(str(path), data)
    rules = top.text("game_setup")
    records = top.array("turn_records", empty=False)
    trials = [_trial(f"{path}: record {index + 1}", record) for index, record in enumerate(records)]
    time = datetime.fromtimestamp(int(match["time"]), tz=timezone.utc)
    return match["run"], time, rules, trials


def _run_json(path: Path, data: bytes) -> Any:
    """The JSON document of a run file's bytes (UTF-8, or the UTF-16 or -32 that
    `json.loads` also reads), refused in one line."""
    if not data:
        raise InputError(f"{path}: empty")
    try:
        return json.loads(data)
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason})") from None
    except READ_ERRORS as error:
        raise InputError(f"{path}: {json_problem(error)}") from None


def _trial(where: str, record: Any) -> RecordedTrial:
    fields = JsonFields(where, record)
    scenario = fields.text("scenario_id")
    extra = fields.text("extra")
    rep = fields.integer("rep")
    if fields.text("character") != "A":
        fields.fail("not a trial of player A")
    if fields.data.get("history_mode", "none") not in ("none", None):
        fields.fail("played with earlier scenarios in the prompt (history mode): not importable")
    reply, question = fields.get("action"), fields.data.get("question")
    if not isinstance(reply, str):
        fields.fail(f"'action' must be the reply's text, got {reply!r}")
    return RecordedTrial(
        key=f"{scenario}-{extra}-r{rep}",
        source=where,
        reply=reply,
        answer=fields.text("answer_given"),
        optimal_action=fields.text("optimal_action"),
        was_optimal=fields.boolean("was_optimal", default=False),
        free_response=fields.boolean("free_response", default=False),
        # Early files hold null for lose: the rule was off.
        lose=fields.data.get("lose") is not None and fields.boolean("lose", default=False),
        question_container=asked_container(question) if isinstance(question, str) else None,
    )


def read_runs(paths: Sequence[Path], skip_bad: bool = False) -> tuple[list[RecordedRun], list[str]]:
    """The runs in `paths`, files of one run joined; with `skip_bad`, bad files are left
    out and named in the second list (else the first one is a one-line InputError)."""
    by_run: dict[str, list[tuple[Path, datetime, str, list[RecordedTrial]]]] = {}
    skipped: list[str] = []
    for path in run_files(paths):
        try:
            name, time, rules, trials = read_run_file(path)
        except InputError as error:
            if not skip_bad:
                raise
            skipped.append(str(error))
            continue
        by_run.setdefault(name, []).append((path, time, rules, trials))
    runs = []
    for name, parts in sorted(by_run.items()):
        try:
            runs.append(_joined(name, sorted(parts, key=lambda part: part[1])))
        except InputError as error:
            if not skip_bad:
                raise
            skipped.append(str(error))
    if not runs:
        raise InputError(f"{', '.join(map(str, paths))}: no readable run ({'; '.join(skipped)})")
    return runs, skipped


def _joined(
    name: str, parts: Iterable[tuple[Path, datetime, str, list[RecordedTrial]]]
) -> RecordedRun:
    seen: dict[str, Path] = {}
    trials: list[RecordedTrial] = []
    parts = list(parts)
    for path, _, _, part in parts:
        for trial in part:
            if trial.key in seen:
                raise InputError(
                    f"{path}: scenario {trial.key} was also played in {seen[trial.key]} "
                    f"(run {name}): one reply per scenario"
                )
            seen[trial.key] = path
            trials.append(trial)
    for setting in ("free_response", "lose"):
        if len({getattr(trial, setting) for trial in trials}) > 1:
            raise InputError(f"{parts[0][0]}: run {name} mixes {setting} true and false")
    return RecordedRun(
        name=name,
        files=tuple(path for path, *_ in parts),
        trials=tuple(trials),
        rules=parts[0][2],
        recorded=tuple(time for _, time, *_ in parts),
    )
