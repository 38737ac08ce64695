"""What a web study plays: the task parameters, fixed when the study is created, and the
samples they give, built by tasks/tom.py itself so the study and its logs share one dataset.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from inspect_ai import Task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import Sample

from tom_eval.errors import InputError
from tom_eval.files import write_atomically
from tom_eval.game.parsing import ResponseFormat
from tom_eval.game.rules import Rules
from tom_eval.game.trial import Trial, trial_seed
from tom_eval.game.turn import Lineup, parse_lineup
from tom_eval.json_fields import load_json
from tom_eval.task_args import NOT_GIVEN

DESIGN_FILE = "study.json"
STORIES_FILE = "stories.sha256"
"""A digest of the stories a study plays, saved with its design: a scenario file edited
after participants played would show them other stories under the same ids."""
TASK_DEFAULTS: dict[str, Any] = {
    "ids": "all",
    "extras": "0A,0B,1A,1B",
    "reps": 10,
    "seed": 0,
    "scenario_file": NOT_GIVEN,
    "response_format": "choice",
    "lineup": "default",
    "lose": False,
}
"""The trial-mode parameters of tasks/tom.py that a study fixes (its defaults)."""
EPOCH = 1
"""A participant plays each scenario once: epoch 1 of the task."""


@dataclass(frozen=True)
class StudyDesign:
    task_args: dict[str, Any] = field(default_factory=lambda: dict(TASK_DEFAULTS))

    @cached_property
    def task(self) -> Task:
        """The study's task: tasks/tom.py with the design's parameters, under the package's
        name (`tom_eval/tom`). Bad parameters are an InputError (one line)."""
        from tom_eval.registry import tom

        try:
            return tom(**self.task_args)
        except PrerequisiteError as error:
            raise InputError(str(error)) from None

    @cached_property
    def samples(self) -> dict[str, Sample]:
        """The task's samples by id."""
        return {str(sample.id): sample for sample in self.task.dataset}

    @cached_property
    def reps(self) -> dict[int, list[str]]:
        """Sample ids by rep: what one participant plays."""
        by_rep: dict[int, list[str]] = {}
        for sample_id, sample in self.samples.items():
            by_rep.setdefault(int((sample.metadata or {})["rep"]), []).append(sample_id)
        return dict(sorted(by_rep.items()))

    @property
    def lineup(self) -> Lineup:
        return parse_lineup(self.task_args["lineup"])

    @property
    def rules(self) -> Rules:
        return Rules(lose=bool(self.task_args["lose"]))

    @property
    def response_format(self) -> ResponseFormat:
        return cast(ResponseFormat, self.task_args["response_format"])

    def steps(self, sample_id: str) -> int:
        """Replies a sample takes: the action, and the answer when A is the answerer."""
        return 2 if (self.samples[sample_id].metadata or {})["answerer"] == "A" else 1

    def trial(self, sample_id: str) -> Trial:
        """The trial exactly as the task's solver starts it for epoch 1 of the sample."""
        sample = self.samples[sample_id]
        return Trial.start(
            (sample.metadata or {})["story"],
            sample_id,
            self.lineup,
            self.rules,
            self.response_format,
            trial_seed(int(self.task_args["seed"]), sample_id, EPOCH),
        )

    def stories_digest(self) -> str:
        stories = json.dumps(_stories(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(stories.encode("utf-8", "surrogatepass")).hexdigest()

    def save(self, data_dir: Path) -> None:
        write_atomically(data_dir / STORIES_FILE, self.stories_digest() + "\n")
        write_atomically(data_dir / DESIGN_FILE, json.dumps(self.task_args, indent=2) + "\n")

    @classmethod
    def load(cls, data_dir: Path) -> StudyDesign | None:
        """The saved design, its parameters checked by building the task: anything wrong
        in the file is an InputError naming it."""
        path = data_dir / DESIGN_FILE
        if not path.exists():
            return None
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"{path}: not a study design ({error})") from None
        args = load_json(text, f"{path}: not a study design")
        if not isinstance(args, dict) or set(args) != set(TASK_DEFAULTS):
            raise InputError(f"{path}: not a study design (keys {', '.join(TASK_DEFAULTS)})")
        # A design saved before NOT_GIVEN keeps a parameter left out as null.
        design = cls(
            {
                name: NOT_GIVEN if value is None and TASK_DEFAULTS[name] == NOT_GIVEN else value
                for name, value in args.items()
            }
        )
        try:
            _ = design.samples
        except InputError as error:
            raise InputError(f"{path}: {error}") from None
        saved = data_dir / STORIES_FILE
        # A study saved before the digest has none to compare.
        if saved.is_file() and saved.read_text().strip() != design.stories_digest():
            raise InputError(
                f"{data_dir}: the study's stories changed since it was created (was its "
                "scenario file edited?); give the file back as it was, or use a new --data-dir"
            )
        return design


def open_design(data_dir: Path, given: dict[str, Any]) -> StudyDesign:
    """The data directory's design. On first use the defaults, with the `given` task
    parameters, become it; later, a given parameter that differs from the design is an
    error, since the study's participants have played the design."""
    saved = StudyDesign.load(data_dir)
    if saved is not None:
        changed = [key for key, value in given.items() if _changes_play(saved, key, value)]
        if changed:
            was = ", ".join(f"{key}={saved.task_args[key]!r}" for key in changed)
            raise InputError(
                f"{data_dir}: this study was created with {was}; use the same parameters "
                "or a new --data-dir"
            )
        design = saved
    else:
        design = StudyDesign(dict(TASK_DEFAULTS) | given)
    if not design.samples:
        raise InputError(f"{data_dir}: the study's parameters select no scenario")
    if saved is None:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        design.save(data_dir)
    return design


def _changes_play(saved: StudyDesign, key: str, value: Any) -> bool:
    """Whether giving `key=value` to a saved study changes what it plays; the same setting
    written another way (ids in another order, the default lineup by name) does not."""
    if saved.task_args[key] == value:
        return False
    if key == "seed":  # it orders the options, which the stories do not show
        return True
    other = StudyDesign(saved.task_args | {key: value})
    try:
        return (
            other.lineup != saved.lineup
            or other.rules != saved.rules
            or other.response_format != saved.response_format
            or _stories(other) != _stories(saved)
        )
    except InputError:
        return True


def _stories(design: StudyDesign) -> dict[str, object]:
    return {
        sample_id: (sample.metadata or {})["story"] for sample_id, sample in design.samples.items()
    }


def existing_design(data_dir: Path) -> StudyDesign:
    if not data_dir.is_dir():
        what = "not a folder" if data_dir.exists() else "no such folder"
        raise InputError(f"{data_dir}: {what} (give the --data-dir of tom-eval serve)")
    design = StudyDesign.load(data_dir)
    if design is None:
        raise InputError(f"{data_dir}: no study here (no {DESIGN_FILE}); run tom-eval serve first")
    return design
