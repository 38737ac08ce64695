"""No sample lost, duplicated or changed: provider faults, killed runs, and reruns.

Every run here is a real `inspect eval` process, as a user starts it, over the same 24
samples (Ids 12, 17 and 27: Ask, Tell and Pass; four Extras; two reps). Each run is
compared with one uninterrupted, fault-free run of `tom/oracle`, sample by sample: the
conversation the model had and every score value.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import (
    EvalLog,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
)
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, RetryDecision
from inspect_ai.scorer import Value

from conftest import ROOT
from tom_eval.game.analysis import load
from tom_eval.game.flaky import FlakyPlayer, InjectedFault
from tom_eval.game.generation import generate
from tom_eval.game.players import ReferencePlayer
from tom_eval.game.prompts import action_prompt
from tom_eval.game.rules import Rules
from tom_eval.game.spec import read_spec
from tom_eval.game.turn import DEFAULT_LINEUP

TASK = ["tasks/tom.py", "-T", "ids=12,17,27", "-T", "reps=2"]
SAMPLES = 24
SLOW = ["-M", "latency=0.5", "--max-connections", "2", "--log-buffer", "2"]
"""About 8 s of model time: long enough to kill a run part-way, its samples written to the
log two at a time (by default ten: the kill came 3.5 s later)."""

Outcome = dict[str, tuple[list[str], Value | None]]
"""Per sample id: the conversation (role and text of each message) and the score value."""


@pytest.fixture(scope="module", autouse=True)
def data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Inspect's data folder, where a killed run leaves its sample buffer (which eval-retry
    recovers from), is the test's own, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
        yield


def inspect(*args: str, hash_seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    command = [sys.executable, "-m", "inspect_ai", *args, "--display", "none"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def only_log(log_dir: Path) -> EvalLog:
    """The one finished log in `log_dir`, with its samples."""
    finished = [
        info
        for info in list_eval_logs(str(log_dir))
        if read_eval_log(info, header_only=True).status == "success"
    ]
    assert len(finished) == 1, finished
    return read_eval_log(finished[0])


def outcome(log: EvalLog) -> Outcome:
    """Each sample exactly once, without error, with its conversation and scores."""
    samples = log.samples or []
    ids = Counter(str(sample.id) for sample in samples)
    assert len(ids) == SAMPLES and set(ids.values()) == {1}, ids
    assert [sample.error for sample in samples] == [None] * SAMPLES
    return {
        str(sample.id): (
            [f"{message.role}: {message.text}" for message in sample.messages],
            sample.scores["tom_scorer"].value if sample.scores else None,
        )
        for sample in samples
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    """The uninterrupted, fault-free run everything else must reproduce."""
    log_dir = tmp_path_factory.mktemp("reference")
    run = inspect("eval", *TASK, "--model", "tom/oracle", "--log-dir", str(log_dir))
    assert run.returncode == 0, run.stderr
    return outcome(only_log(log_dir))


def test_runs_repeat_exactly_whatever_the_hash_seed_and_concurrency(
    tmp_path: Path, reference: Outcome
) -> None:
    run = inspect(
        "eval",
        *TASK,
        "--model",
        "tom/oracle",
        "--max-connections",
        "1",
        "--log-dir",
        str(tmp_path),
        hash_seed="12345",
    )
    assert run.returncode == 0, run.stderr
    assert outcome(only_log(tmp_path)) == reference


# ---------------------------------------------------------------------------- faults


def injected(log: EvalLog) -> Counter[str]:
    """Failed attempts recorded in the log's model events, by kind."""
    kinds: Counter[str] = Counter()
    for sample in log.samples or []:
        for event in sample.events:
            if event.event == "model" and event.error is not None:
                kinds["timeout" if "attempt_timeout" in event.error else "error"] += 1
    return kinds


def test_inspects_retries_carry_a_run_through_errors_and_timeouts(
    tmp_path: Path, reference: Outcome
) -> None:
    flaky = ["--model", "tom/flaky", "-M", "error_rate=0.2", "-M", "timeout_rate=0.1"]
    run = inspect(
        "eval",
        *TASK,
        *flaky,
        "-M",
        "backoff=0.1",
        "--attempt-timeout",
        "1",
        "--log-dir",
        str(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    log = only_log(tmp_path)
    assert outcome(log) == reference
    faults = injected(log)
    assert faults["error"] >= 3 and faults["timeout"] >= 1, faults


def test_a_run_failed_by_faults_is_completed_by_eval_retry(
    tmp_path: Path, reference: Outcome
) -> None:
    # No retries: the first fault fails its sample and the run.
    failed = inspect(
        "eval",
        *TASK,
        "--model",
        "tom/flaky",
        "-M",
        "error_rate=0.3",
        "-M",
        "backoff=0.1",
        "--max-retries",
        "0",
        "--log-dir",
        str(tmp_path),
    )
    # (Inspect's command exits 0 either way; the log says what happened.)
    assert failed.returncode == 0, failed.stderr
    (first,) = list_eval_logs(str(tmp_path))
    assert read_eval_log(first, header_only=True).status == "error"
    assert len(read_eval_log_sample_summaries(first.name)) < SAMPLES
    # The retry keeps the run's model args and takes new limits.
    resumed = inspect("eval-retry", first.name, "--max-retries", "2", "--log-dir", str(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert outcome(only_log(tmp_path)) == reference


def test_faults_are_reproducible_and_never_endless() -> None:
    def faults(player: FlakyPlayer) -> list[str | None]:
        return [player._fault(f"call {n}") for n in range(200) for _ in range(3)]

    first = faults(FlakyPlayer("flaky", error_rate=0.5, timeout_rate=0.5, seed=1))
    assert first == faults(FlakyPlayer("flaky", error_rate=0.5, timeout_rate=0.5, seed=1))
    assert first != faults(FlakyPlayer("flaky", error_rate=0.5, timeout_rate=0.5, seed=2))
    # Every attempt may fail, yet the third attempt of each call (max_faults=2) succeeds.
    assert set(first[::3]) == {"rate limit", "unavailable", "timeout"}
    assert set(first[2::3]) == {None}
    assert FlakyPlayer("flaky", error_rate=0.0)._fault("call") is None
    with pytest.raises(PrerequisiteError, match="sum to at most 1"):
        FlakyPlayer("flaky", error_rate=0.8, timeout_rate=0.3)


def test_faults_are_retryable_and_replies_are_the_wrapped_players() -> None:
    player = FlakyPlayer("flaky", player="oracle")
    assert player.should_retry(InjectedFault(429)) == RetryDecision.rate_limit()
    assert player.should_retry(InjectedFault(503)) == RetryDecision.transient()
    assert player.should_retry(TimeoutError()) and not player.should_retry(ValueError())
    (item,) = generate([row for row in read_spec() if row.id == 17 and row.extra == "0A"], 1, 0)
    text = action_prompt(item.solution.observation, DEFAULT_LINEUP, Rules(), "action", [])
    prompt: list[ChatMessage] = [ChatMessageUser(content=text)]
    replies = [
        asyncio.run(model.generate(prompt, [], "auto", GenerateConfig()))
        for model in (player, ReferencePlayer("oracle"))
    ]
    assert replies[0].completion == replies[1].completion == str(item.solution.decision.optimal)
    assert replies[0].usage == replies[1].usage
    with pytest.raises(
        PrerequisiteError, match=r"-M player must be one of oracle, .*, not 'genius'"
    ):
        FlakyPlayer("flaky", player="genius")


# ---------------------------------------------------------------------------- interruption


def kill_part_way(log_dir: Path, *args: str) -> Path:
    """Start `inspect *args`, SIGKILL it once its log holds some samples, and return the
    log: the state a crash or a killed job leaves behind."""
    command = [sys.executable, "-m", "inspect_ai", *args, "--display", "none"]
    process = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            logs = list(log_dir.glob("*.eval"))
            if logs and _holds_samples(logs[0]):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                (log,) = logs
                return log
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    raise AssertionError("the run ended before any sample reached its log")


def _holds_samples(log: Path) -> bool:
    """Whether the running eval's log lists samples yet. Read while Inspect rewrites it, the
    file may be caught without its zip directory ("EOCD not found"): not yet, then."""
    try:
        return bool(read_eval_log_sample_summaries(str(log)))
    except Exception:  # Inspect raises several types for a log caught mid-write
        return False


def assert_killed_part_way(log: Path) -> set[str]:
    """The killed run's log is readable, unfinished and holds some samples: their ids."""
    assert read_eval_log(str(log), header_only=True).status == "started"
    saved = read_eval_log_sample_summaries(str(log))
    assert 0 < len(saved) < SAMPLES
    return {summary.uuid for summary in saved if summary.uuid}


def assert_reported_once(log_dir: Path) -> None:
    """`tom-eval report` over the folder counts each sample once (the killed log, which holds
    samples but no results, is skipped and named as unfinished)."""
    results = load([log_dir])
    assert len(results.samples) == SAMPLES
    assert any("unfinished run (status started) holding" in warning for warning in results.warnings)


def test_a_killed_eval_resumes_with_eval_retry(tmp_path: Path, reference: Outcome) -> None:
    killed = kill_part_way(
        tmp_path, "eval", *TASK, "--model", "tom/oracle", *SLOW, "--log-dir", str(tmp_path)
    )
    saved = assert_killed_part_way(killed)
    resumed = inspect(
        "eval-retry", str(killed), "--max-connections", "10", "--log-dir", str(tmp_path)
    )
    assert resumed.returncode == 0, resumed.stderr
    log = only_log(tmp_path)
    assert outcome(log) == reference
    # The samples the killed run had saved were kept, not run again.
    assert saved <= {sample.uuid for sample in log.samples or []}
    assert_reported_once(tmp_path)


def test_a_killed_eval_set_resumes_when_rerun(tmp_path: Path, reference: Outcome) -> None:
    command = ["eval-set", *TASK, "--model", "tom/oracle", *SLOW, "--log-dir", str(tmp_path)]
    saved = assert_killed_part_way(kill_part_way(tmp_path, *command))
    rerun = inspect(*command, "--max-connections", "10")  # the last given counts
    assert rerun.returncode == 0, rerun.stderr
    log = only_log(tmp_path)
    assert outcome(log) == reference
    assert saved <= {sample.uuid for sample in log.samples or []}
    assert_reported_once(tmp_path)
