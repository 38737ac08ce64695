"""`tom-eval export`: each participant's replies become an Inspect eval log, by replaying
them (`--model tom/human -M answers=...`) through tasks/tom.py itself, so a person's log is
scored by the same scorer and read by the same report as any model's.

All participants are replayed by one Inspect `eval` in this process, one task each: the
study's task with the participant's finished samples, their reply file as the human
player's model arg, and their details as the task's metadata (which Inspect merges into
the log's eval metadata). Each still gets a log of their own, as when each was a separate
`inspect eval`, which cost about 2.5 s a participant (benchmarks/study_export.py). The
task is the packaged `tom_eval/tom`, tasks/tom.py under the package's name: Inspect then
finds the package of the task at once for each log, not by a scan of every installed
package.
"""

from __future__ import annotations

import copy
import io
import json
import re
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, task_with
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import EvalError, EvalLog
from inspect_ai.model import get_model
from inspect_ai.solver import TaskState

from tom_eval.errors import InputError, all_logs
from tom_eval.files import FULL_OR_CLOSED, writable_folder
from tom_eval.study.design import EPOCH, StudyDesign, existing_design
from tom_eval.study.store import Participant, Reply, Store

TAGS = ["human", "study"]
Progress = Callable[[int, int], None]
"""Told (participants replayed, participants to replay) as the export goes."""


def export(
    data_dir: Path, out: Path, include_incomplete: bool = False, progress: Progress | None = None
) -> list[Path]:
    """One log per participant who finished (and, with `include_incomplete`, per one who
    answered anything: their finished scenarios only) into the new folder `out`. The logs
    are written in a folder beside it and moved into place at the end, so an export that
    stops half-way leaves no `out`. A participant whose replay fails (their shown text no
    longer matches the task's) does not stop the others: their log goes to `out/failed/`
    and the export ends with an error naming them. Nothing is written when the study
    cannot be read (no study, a bad study.json, a database that is not the study's, a
    row or a sample it does not know: each named)."""
    design = existing_design(data_dir)
    chosen = _replays(design, Store(data_dir, read_only=True), include_incomplete)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out}: exists and is not an empty folder; export into a new folder")
    writable_folder(out.parent, out)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        failed = _replay(design, chosen, staging, progress)
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, OSError) and error.errno in FULL_OR_CLOSED:
            # Every log after the first that could not be written would be "failed" too.
            raise InputError(
                f"{out}: cannot write the participants' logs ({error.strerror}); nothing is "
                "exported"
            ) from None
        raise
    if out.exists():
        out.rmdir()
    staging.rename(out)
    if failed:
        raise InputError(
            f"{out}: the replay failed for {', '.join(failed)} (their logs are in "
            f"{out / 'failed'}); the other participants' logs are written"
        )
    return sorted(path for path in out.iterdir() if path.is_file())


def unfinished_with_answers(data_dir: Path) -> int | None:
    """How many participants who have not finished the study have finished a scenario:
    those whom `include_incomplete` would add to an export; None when one of them has a
    sample the design does not hold (an export of them would name it)."""
    design = existing_design(data_dir)
    try:
        everyone = _replays(design, Store(data_dir, read_only=True), include_incomplete=True)
    except InputError:
        return None
    return sum(1 for replay in everyone if replay.participant.status != "complete")


def _replays(design: StudyDesign, store: Store, include_incomplete: bool) -> list[Replay]:
    """The participants to export (see `export`), each with the samples they finished."""
    return [
        Replay(participant, replies, done)
        for participant in store.participants()
        if participant.status == "complete" or include_incomplete
        for replies in [store.replies(participant.participant)]
        if (done := finished(design, participant, replies, store.path))
    ]


def finished(
    design: StudyDesign, participant: Participant, replies: list[Reply], database: Path
) -> list[str]:
    """The samples the participant has finished, in the order they played them. A sample
    the design does not hold (the database is of another study, or study.json changed)
    is an InputError naming the participant and the sample."""
    where = f"{database}: participant {participant.participant}"
    for sample_id in [*participant.order, *(reply.sample_id for reply in replies)]:
        if sample_id not in design.samples:
            raise InputError(f"{where}: sample '{sample_id}' is not in this study's design")
    return [
        sample_id
        for position, sample_id in enumerate(participant.order)
        if sum(1 for reply in replies if reply.position == position) == design.steps(sample_id)
    ]


@dataclass(frozen=True)
class Replay:
    """A participant to export: their replies, and the samples they finished."""

    participant: Participant
    replies: list[Reply]
    finished: list[str]


def _replay(
    design: StudyDesign, chosen: list[Replay], out: Path, progress: Progress | None
) -> list[str]:
    """Every chosen participant's log into `out` by one eval; the participants whose
    replay failed (their logs moved to `out/failed`)."""
    if not chosen:
        return []
    template = design.task
    counter = Counter(len(chosen), progress)
    # The reply files live as long as this export: concurrent exports never share one.
    with tempfile.TemporaryDirectory() as folder:
        # Inspect prints its hooks banner as the first model is made (three lines naming
        # tom-eval's progress hook, which an export leaves quiet): not an export's to show.
        with redirect_stdout(io.StringIO()):
            tasks = [_task(template, design, replay, Path(folder), counter) for replay in chosen]
        logs = all_logs(
            inspect_eval(
                tasks,
                log_dir=str(out),
                tags=TAGS,
                # Inspect's rich display, even "none", redraws every task's results (about
                # 0.2 s a participant); "log" writes to Python's logging, which is quiet here.
                display="log",
                # No live sample buffer: nobody watches an export in Inspect View.
                log_realtime=False,
                # A failed replay is named in the export's one line, and its traceback is in
                # its log (out/failed): not printed, nor Inspect's banner.
                log_level="critical",
            ),
            len(tasks),
        )
    for log in logs:
        _raise_write_error(log)
    failed = []
    for replay, log in zip(chosen, logs, strict=True):
        if log.status != "success":
            (out / "failed").mkdir(exist_ok=True)
            why = _why_failed(log)  # before the move: Inspect reads a log's samples lazily
            location = Path(log.location)
            location.rename(out / "failed" / location.name)
            failed.append(f"{replay.participant.participant} ({why})")
    return failed


_OS_ERROR = re.compile(
    r"(?:OSError|IOError)\((?P<errno>\d+), (?P<quote>['\"])(?P<text>.*)(?P=quote)\)"
)
"""How Inspect keeps an OSError that stopped a run: its repr."""


def _raise_write_error(log: EvalLog) -> None:
    """The OSError that stopped `log`'s run, raised again when it is the disk's (full, over
    quota, read-only): then the log on disk is cut short, and the fault is not the
    participant's replay but the place the export writes to. A finished log is not read
    again: its samples are read from the file when asked for."""
    if log.status == "success":
        return
    for error in _errors(log):
        found = _OS_ERROR.search(error.message)
        if found and int(found.group("errno")) in FULL_OR_CLOSED:
            raise OSError(int(found.group("errno")), found.group("text"))


_REPR = re.compile(r"\w+\((?P<quote>['\"])(?P<text>.*)(?P=quote)\)", re.DOTALL)


def _why_failed(log: EvalLog) -> str:
    """The first line of what stopped a replay: the run's error, else a sample's ("tom/human:
    sample 1-0A-r1 step 1 differs from what the participant was shown (...)")."""
    errors = _errors(log)
    if not errors:
        return f"the run ended {log.status}"
    message = errors[0].message.strip()
    # Inspect keeps the exception's repr: RuntimeError("tom/human: ...").
    quoted = _REPR.fullmatch(message)
    return (quoted.group("text") if quoted else message).split("\n")[0] or "no message"


def _errors(log: EvalLog) -> list[EvalError]:
    """What stopped the run, then what stopped each of its samples."""
    errors = [log.error] if log.error else []
    return errors + [sample.error for sample in log.samples or [] if sample.error]


class Counter:
    """Tells `progress` how many participants are replayed: a participant is once each of
    their samples is (the task's cleanup runs after each sample, errors included)."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.done, self.progress = total, 0, progress
        self._tell()

    def _tell(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)

    def cleanup(self, samples: int) -> Callable[[TaskState], Awaitable[None]]:
        """A task's cleanup that counts its `samples`, then its participant."""
        left = [samples]

        async def cleanup(state: TaskState) -> None:
            left[0] -= 1
            if left[0] == 0:
                self.done += 1
                self._tell()

        return cleanup


def _task(
    template: Task, design: StudyDesign, replay: Replay, folder: Path, counter: Counter
) -> Task:
    """The study's task (its registered name and arguments, so the log reads as any run of
    tasks/tom.py) for the participant's finished samples, played by `tom/human` from
    their reply file."""
    participant = replay.participant
    samples = [design.samples[sample_id].model_copy(deep=True) for sample_id in replay.finished]
    return task_with(
        copy.copy(template),
        dataset=MemoryDataset(samples, name=template.dataset.name),
        model=get_model("tom/human", answers=str(_reply_file(replay, folder)), memoize=False),
        cleanup=counter.cleanup(len(samples)),
        metadata={
            "human": True,
            "participant": participant.participant,
            "study_id": participant.study_id,
            "session_id": participant.session_id,
            "rep": participant.rep,
            "order_seed": participant.order_seed,
            "order": list(participant.order),
            "status": participant.status,
        },
    )


def _reply_file(replay: Replay, folder: Path) -> Path:
    """The participant's replies as `tom/human -M answers=` reads them."""
    entries = [
        {
            "sample_id": reply.sample_id,
            "epoch": EPOCH,
            "step": reply.step,
            "position": reply.position,
            "prompt": reply.prompt,
            "story": reply.story,
            "reply": reply.reply,
            "seconds": round(reply.seconds, 3),
        }
        for reply in replay.replies
    ]
    path = folder / f"{replay.participant.participant}.json"
    path.write_text(json.dumps({"participant": replay.participant.participant, "replies": entries}))
    return path
