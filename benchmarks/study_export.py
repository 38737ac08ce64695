"""Time `tom-eval export` on web studies with many finished participants, as an experimenter
runs it (a separate process), and print the time per participant.

    python benchmarks/study_export.py [--participants 40] [--against main]

Two studies are made in a temporary folder: the README's short one (Ids 12, 17 and 30,
Extra 0A: 3 scenarios a participant) and the mastery set (26 scenarios a participant).
Each participant enrols as the web study enrols them and plays every step of their rep
with the oracle reading the text the step shows, the replies stored as the web study
stores them. Then the export is timed, and its logs are checked (one per participant,
every sample scored). With `--against REF`, the export of that git revision (extracted
with `git archive`, run on the same studies) is timed too.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from inspect_ai.log import read_eval_log

from tom_eval.game.players import respond
from tom_eval.providers.human import story_digest
from tom_eval.study.app import next_step
from tom_eval.study.design import StudyDesign, open_design
from tom_eval.study.store import Store

ROOT = Path(__file__).resolve().parent.parent
HOUR = 3600.0
STUDIES = {"3 scenarios": ("12,17,30", "0A"), "26 scenarios": ("mastery", "0A")}


def make_study(data_dir: Path, participants: int, ids: str, extras: str) -> StudyDesign:
    design = open_design(data_dir, {"ids": ids, "extras": extras, "reps": 4})
    store = Store(data_dir)
    now = time.time()
    for number in range(participants):
        name = f"p{number:03d}"
        store.enrol(name, "bench", f"s{number}", design.reps, now, HOUR)
        play(design, store, name, now)
    return design


def play(design: StudyDesign, store: Store, name: str, now: float) -> None:
    conversation: list[tuple[str, str]] = []
    while (person := store.participant(name)) and (
        step := next_step(design, person, store.replies(name))
    ):
        conversation = [] if step.step == 0 else conversation
        conversation.append(("user", step.prompt))
        reply = respond("oracle", conversation, 0)
        conversation.append(("assistant", reply))
        last = step.position == len(person.order) - 1 and step.step + 1 == design.steps(
            step.sample_id
        )
        story = story_digest((design.samples[step.sample_id].metadata or {})["story"])
        store.add_reply(
            name, step.position, step.step, step.sample_id, step.prompt, story, reply, now, last
        )


def timed_export(data_dir: Path, out: Path, code: Path) -> float:
    """Seconds `tom-eval export` of the code in `code` takes, its logs checked."""
    command = [sys.executable, "-m", "tom_eval.cli", "export", str(data_dir), "--out", str(out)]
    environment = os.environ | {"PYTHONPATH": str(code)}
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=code, env=environment)
    seconds = time.perf_counter() - started
    logs = [read_eval_log(str(path)) for path in sorted(out.glob("*.eval"))]
    assert all(log.status == "success" for log in logs)
    assert all(sample.scores for log in logs for sample in log.samples or [])
    return seconds


def extract(revision: str, folder: Path) -> Path:
    """The tree of a git revision, for running its export."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=40)
    parser.add_argument("--against", help="also time the export of this git revision")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        codes = {"this tree": ROOT}
        if args.against:
            codes[args.against] = extract(args.against, Path(folder) / "against")
        for study, (ids, extras) in STUDIES.items():
            data_dir = Path(folder) / study.replace(" ", "-")
            make_study(data_dir, args.participants, ids, extras)
            for name, code in codes.items():
                out = Path(folder) / f"logs-{name}-{study}".replace(" ", "-")
                seconds = timed_export(data_dir, out, code)
                assert len(list(out.glob("*.eval"))) == args.participants
                rows.append((name, study, seconds))
    print(f"timed: tom-eval export STUDY --out LOGS, {args.participants} participants")
    print("| code | study | export wall time | per participant |\n|---|---|---|---|")
    for name, study, seconds in rows:
        print(f"| {name} | {study} | {seconds:.1f} s | {seconds / args.participants:.3f} s |")


if __name__ == "__main__":
    main()
