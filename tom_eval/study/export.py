"""`tom-eval export`: each participant's replies become an Inspect eval log, by replaying
them (`--model tom/human -M answers=...`) through tasks/tom.py itself, so a person's log is
scored by the same scorer and read by the same report as any model's."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from inspect_ai import eval as inspect_eval

from tom_eval.errors import InputError
from tom_eval.study.design import EPOCH, StudyDesign, existing_design
from tom_eval.study.store import Participant, Reply, Store


def export(data_dir: Path, out: Path, include_incomplete: bool = False) -> list[Path]:
    """One log per participant who finished (and, with `include_incomplete`, per one who
    answered anything: their finished scenarios only) into the new folder `out`. The logs
    are written in a folder beside it and moved into place at the end, so an export that
    stops half-way leaves no `out`. A participant whose replay fails (their shown text no
    longer matches the task's) does not stop the others: their log goes to `out/failed/`
    and the export ends with an error naming them."""
    design = existing_design(data_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out}: exists and is not an empty folder; export into a new folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    store = Store(data_dir)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    failed: list[str] = []
    try:
        for participant in store.participants():
            if participant.status == "complete" or include_incomplete:
                replies = store.replies(participant.participant)
                if not _export_one(design, participant, replies, staging):
                    failed.append(participant.participant)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
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


def _export_one(
    design: StudyDesign, participant: Participant, replies: list[Reply], out: Path
) -> bool:
    """Replays one participant into `out` (or `out/failed`); False if the replay failed."""
    from tasks.tom import tom

    finished = [
        sample_id
        for position, sample_id in enumerate(participant.order)
        if sum(1 for reply in replies if reply.position == position) == design.steps(sample_id)
    ]
    if not finished:
        return True
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
        for reply in replies
    ]
    # The reply file lives as long as this export: concurrent exports never share one.
    with tempfile.TemporaryDirectory() as folder:
        answers = Path(folder) / f"{participant.participant}.json"
        answers.write_text(json.dumps({"participant": participant.participant, "replies": entries}))
        [log] = inspect_eval(
            tom(**design.task_args),
            model="tom/human",
            model_args={"answers": str(answers)},
            sample_id=finished,
            log_dir=str(out),
            display="none",
            tags=["human", "study"],
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
    if log.status == "success":
        return True
    (out / "failed").mkdir(exist_ok=True)
    location = Path(log.location)
    location.rename(out / "failed" / location.name)
    return False
