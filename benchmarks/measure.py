"""What the benchmarks measure of a command: wall time, CPU time and peak memory of the
process as a user starts it, and the model calls and tokens its Inspect log records.

Each command runs in a fresh process, so the figures are its own (`os.wait4` reports the
resources of that child and the children it waited for, such as the generator's workers).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Measured:
    wall: float
    """Seconds from start to exit."""
    cpu: float
    """User plus system seconds, the process and its waited-for children together."""
    peak_mib: float
    """Largest resident set of the process or of any one of its children, MiB (Linux)."""


def measure(command: list[str], cwd: Path = ROOT) -> Measured:
    """Run `command` from `cwd` (default: the repository root); fail if it fails."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def best(runs: list[Measured]) -> Measured:
    """The least wall time and the least CPU time of several runs of one command (on
    shared cores, the run least slowed by other work)."""
    return Measured(min(r.wall for r in runs), min(r.cpu for r in runs), 0.0)


def inspect_eval(
    task: str,
    log_dir: Path,
    *args: str,
    inspect: Sequence[str] = (sys.executable, "-m", "inspect_ai"),
) -> tuple[Measured, EvalLog]:
    """`inspect eval TASK ARGS` in its own process (`inspect`: the command that runs
    Inspect's command line), and its log (with samples)."""
    command = [*inspect, "eval", task, "--log-dir", str(log_dir)]
    measured = measure([*command, "--display", "none", *args])
    (path,) = log_dir.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    return measured, log


def model_calls(log: EvalLog) -> int:
    """Model calls that produced output (a failed attempt that was retried is not one)."""
    return sum(
        1
        for sample in log.samples or []
        for event in sample.events
        if event.event == "model" and event.error is None
    )


def markdown_table(columns: tuple[str, ...], rows: Sequence[tuple[object, ...]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def machine() -> str:
    return f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"
