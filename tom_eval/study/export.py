"""`tom-eval export`: each participant's replies become an Inspect eval log, by replaying
them (`--model tom/human -M answers=...`) through tasks/tom.py itself, so a person's log is
scored by the same scorer and read by the same report as any model's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from inspect_ai import eval as inspect_eval

from tom_eval.errors import InputError
from tom_eval.study.design import EPOCH, StudyDesign, existing_design
from tom_eval.study.store import Participant, Reply, Store

REPLY_FOLDER = "replies"


def export(data_dir: Path, out: Path, include_incomplete: bool = False) -> list[Path]:
    """One log per participant who finished (and, with `include_incomplete`, per one who
    answered anything: their finished scenarios only) into the new folder `out`. The logs
    are written beside it first, so a failed export leaves no folder behind."""
    design = existing_design(data_dir)
    if out.exists() and any(out.iterdir()):
        raise InputError(f"{out}: exists and is not empty; export into a new folder")
    store = Store(data_dir)
    partial = out.with_name(f"{out.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        for participant in store.participants():
            if participant.status == "complete" or include_incomplete:
                replies = store.replies(participant.participant)
                _export_one(design, data_dir, participant, replies, partial)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if out.exists():
        out.rmdir()
    partial.rename(out)
    return sorted(out.iterdir())


def _export_one(
    design: StudyDesign, data_dir: Path, participant: Participant, replies: list[Reply], out: Path
) -> None:
    from tasks.tom import tom

    finished = [
        sample_id
        for position, sample_id in enumerate(participant.order)
        if sum(1 for reply in replies if reply.position == position) == design.steps(sample_id)
    ]
    if not finished:
        return
    folder = data_dir / REPLY_FOLDER
    folder.mkdir(exist_ok=True)
    answers = folder / f"{participant.participant}.json"
    entries = [
        {
            "sample_id": reply.sample_id,
            "epoch": EPOCH,
            "step": reply.step,
            "position": reply.position,
            "prompt": reply.prompt,
            "reply": reply.reply,
            "seconds": round(reply.seconds, 3),
        }
        for reply in replies
    ]
    answers.write_text(json.dumps({"participant": participant.participant, "replies": entries}))
    [log] = inspect_eval(
        tom(**design.task_args),
        model="tom/human",
        model_args={"answers": str(answers.resolve())},
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
    if log.status != "success":
        problem = log.error.message if log.error else log.status
        raise InputError(f"participant {participant.participant}: export failed ({problem})")
