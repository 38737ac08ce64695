"""`--model tom/human` at a terminal, driven through a pipe as a person would type: the
screens show the rules once, the story, the options and a prompt, and the typed lines are
the replies that the log scores."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log

from conftest import ROOT
from tom_eval.providers.human import INPUT_ENDED

INSPECT = str(Path(sys.executable).parent / "inspect")
ARGS = ["-T", "ids=12,17", "-T", "extras=0A", "-T", "reps=1", "--max-samples", "1"]
"""Id 12 takes two replies (A asks, then answers), Id 17 one: three lines in all."""


def ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play(
    tmp_path: Path, typed: str, *, interrupts_ignored: bool = False
) -> tuple[subprocess.CompletedProcess[str], Path]:
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
        input=typed,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        preexec_fn=ignore_interrupts if interrupts_ignored else None,
    )
    [log] = logs.iterdir()
    return run, log


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
