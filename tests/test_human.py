"""`--model tom/human` at a terminal, driven through a pipe as a person would type: the
screens show the rules once, the story, the options and a prompt, and the typed lines are
the replies that the log scores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from conftest import ROOT
from tom_eval.providers.human import INPUT_ENDED

INSPECT = str(Path(sys.executable).parent / "inspect")
ARGS = ["-T", "ids=12,17", "-T", "extras=0A", "-T", "reps=1", "--max-samples", "1"]
"""Id 12 takes two replies (A asks, then answers), Id 17 one: three lines in all."""


def ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play(
    tmp_path: Path, typed: str | bytes, *, interrupts_ignored: bool = False
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run the task with `typed` as the person's input (bytes: as they come, whatever
    their encoding)."""
    logs = tmp_path / "logs"
    run = subprocess.run(
        [
            INSPECT,
            "eval",
            "tasks/tom.py",
            "--model",
            "tom/human",
            *ARGS,
            "--log-dir",
            str(logs),
            "--display",
            "plain",
        ],
        input=typed.encode() if isinstance(typed, str) else typed,
        capture_output=True,
        cwd=ROOT,
        # Standard input as most locales read it (C and POSIX escape undecodable bytes).
        env=os.environ | {"PYTHONIOENCODING": "utf-8:strict"},
        timeout=300,
        preexec_fn=ignore_interrupts if interrupts_ignored else None,
    )
    [log] = logs.iterdir()
    said = (run.stdout.decode(errors="replace"), run.stderr.decode(errors="replace"))
    return subprocess.CompletedProcess(run.args, run.returncode, *said), log


def test_a_person_plays_from_a_pipe(tmp_path: Path) -> None:
    # An empty line is asked again, not taken as a reply.
    run, path = play(tmp_path, "F\n\nB\nbasket\n")
    assert run.returncode == 0, run.stderr
    screens = run.stdout
    assert screens.count("RULES\nYou are player A") == 1
    assert "We will repeatedly ask you to make the first move" in screens
    assert screens.count("(The rules are as shown before.)") == 2
    assert screens.count("Your reply>") == 4
    assert "OPTIONS\nA) " in screens and "ANSWER PHASE\nWhat is in the " in screens
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.model == "tom/human"
    replies = [m.text for s in log.samples or [] for m in s.messages if m.role == "assistant"]
    assert sorted(replies) == ["B", "F", "basket"]
    assert all(sample.scores for sample in log.samples or [])


def test_input_that_ends_early_stops_the_eval_in_one_line_and_resumes(tmp_path: Path) -> None:
    """Inspect's own notice of an interrupted eval, no traceback, the message as the last
    line and a failing exit; `inspect eval-retry` then plays what is left."""
    run, path = play(tmp_path, "F\n")
    assert run.returncode == 1
    assert run.stderr.strip().splitlines()[-1] == INPUT_ENDED
    assert "Traceback" not in run.stdout + run.stderr
    assert read_eval_log(str(path), header_only=True).status == "cancelled"
    retry = subprocess.run(
        [INSPECT, "eval-retry", str(path), "--log-dir", str(path.parent), "--display", "plain"],
        input="F\nB\nbasket\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert retry.returncode == 0, retry.stderr
    [resumed] = [log for log in path.parent.iterdir() if log != path]
    assert read_eval_log(str(resumed)).status == "success"


def test_input_that_ends_early_stops_an_eval_started_with_interrupts_ignored(
    tmp_path: Path,
) -> None:
    """`inspect eval ... &` in a script starts with SIGINT ignored, so the interrupt that
    stops the eval is not heard: the run is cancelled all the same, not left waiting."""
    run, path = play(tmp_path, "F\n", interrupts_ignored=True)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines()[-1] == INPUT_ENDED
    assert "Traceback" not in run.stdout + run.stderr
    assert read_eval_log(str(path), header_only=True).status == "cancelled"


def test_a_reply_typed_in_another_encoding_is_logged_and_scored(tmp_path: Path) -> None:
    """A latin-1 terminal's bytes are not UTF-8: the reply is data, kept with each bad byte
    shown as U+FFFD, not a sample lost to a log that could not be written."""
    run, path = play(tmp_path, b"F\nB\nb\xe9sket\n")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    log = read_eval_log(str(path))
    assert log.status == "success"
    replies = [m.text for s in log.samples or [] for m in s.messages if m.role == "assistant"]
    assert sorted(replies) == ["B", "F", "b\ufffdsket"]
    assert all(sample.scores for sample in log.samples or [])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "cannot read (No such file or directory)"),
        ("{not json", "not a study reply file (Expecting property name"),
        ('{"replies": [{"epoch": 1}]}', "lacks the field 'sample_id'"),
        (
            '{"replies": [{"sample_id": "12-0A-r1", "epoch": 1, "step": 0, "prompt": "p", '
            '"story": "s"}]}',
            "lacks the field 'reply'",
        ),
    ],
)
def test_a_bad_reply_file_is_refused_in_one_line(
    tmp_path: Path, content: str | None, problem: str
) -> None:
    answers = tmp_path / "answers.json"
    if content is not None:
        answers.write_text(content)
    command = [INSPECT, "eval", "tasks/tom.py", "--model", "tom/human", "-M", f"answers={answers}"]
    command += ["--display", "none", "--log-dir", str(tmp_path / "logs")]
    wide = os.environ | {"COLUMNS": "300"}
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=wide)
    assert run.returncode == 1
    said = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert len(said) == 1 and said[0].startswith(f"tom/human: -M answers: {answers}: "), said
    assert problem in said[0]
    assert not (tmp_path / "logs").exists()
