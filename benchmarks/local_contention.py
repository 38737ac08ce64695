"""The offline model on a busy machine: `inspect eval tasks/tom.py --model gguf/smollm2
--limit 8` timed on an idle machine and again while CPU-bound processes occupy it.

llama.cpp's worker threads wait on one another at every step of a decode; on cores that
other processes share, a thread that is descheduled holds up the rest, and threads that
spin while they wait (llama.cpp's default polling) take the CPU from the one they wait
for. The ratio busy / idle says how much a run suffers from the neighbours; the failed
attempts count the calls Inspect retried (a timeout, say), which re-run a slow call.

The busy processes are plain Python loops, one per `--busy`, started by this script and
stopped after each busy run; each also ends by itself after `--timeout` seconds, so none
outlives the script even if it is killed. Each setting (`--settings`, model args such as
"threads=2,poll=50"; "" is the provider's defaults) runs idle then busy, best of `--runs`.
The load average (1 minute) is read as each run ends.

Usage: python benchmarks/local_contention.py [--limit 8] [--runs 1] [--busy 2]
    [--settings "" "threads=2,poll=50"] [--timeout 900]
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log
from measure import ROOT, machine, markdown_table

COLUMNS = (
    "model args",
    "samples",
    "idle",
    "load, idle",
    "busy",
    "load, busy",
    "busy / idle",
    "failed attempts, idle / busy",
)
TARGET = 3.0
SPIN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"
"""A busy process: one core's worth of CPU, until it is stopped or its time is up."""


@dataclass(frozen=True)
class Run:
    wall: float
    """Seconds; infinite if the run took longer than `--timeout` (it is killed)."""
    load: float
    """The 1-minute load average as the run ended."""
    failed: int
    """Model call attempts that failed (each is retried, or fails its sample)."""


def load_average() -> float:
    return os.getloadavg()[0]


@contextmanager
def busy(processes: int, seconds: float) -> Iterator[None]:
    """`processes` CPU-bound neighbours for the duration of the block."""
    spin = SPIN.format(seconds=seconds)
    started = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(processes)]
    try:
        yield
    finally:
        for process in started:
            process.kill()
        for process in started:
            process.wait()


def failed_attempts(log: EvalLog) -> int:
    """Failed attempts of every model call: those Inspect retried and those it gave up on."""
    return sum(
        (event.retries or 0) + (event.error is not None)
        for sample in log.samples or []
        for event in sample.events
        if event.event == "model"
    )


def model_options(setting: str) -> list[str]:
    return [option for pair in setting.split(",") if pair for option in ("-M", pair)]


def timed_eval(log_dir: Path, limit: int, setting: str, timeout: float) -> Run:
    command = [sys.executable, "-m", "inspect_ai", "eval", "tasks/tom.py"]
    command += ["--model", "gguf/smollm2", "--limit", str(limit), *model_options(setting)]
    command += ["--log-dir", str(log_dir), "--display", "none"]
    started = time.perf_counter()
    try:
        subprocess.run(command, cwd=ROOT, check=True, timeout=timeout, stdout=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:  # run() has killed it
        return Run(math.inf, load_average(), 0)
    wall = time.perf_counter() - started
    (path,) = log_dir.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    return Run(wall, load_average(), failed_attempts(log))


def seconds(wall: float, timeout: float) -> str:
    return f"{wall:.1f} s" if math.isfinite(wall) else f"> {timeout:g} s (killed)"


def best(runs: Sequence[Run]) -> Run:
    return min(runs, key=lambda run: run.wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound neighbours")
    parser.add_argument("--settings", nargs="+", default=[""], help='model args, "" = defaults')
    parser.add_argument("--timeout", type=float, default=900, help="seconds a run may take")
    args = parser.parse_args()
    # On a kill, unwind: the busy processes stop and subprocess.run kills the running eval.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rows = []
    before = load_average()
    with tempfile.TemporaryDirectory() as folder:
        for setting in args.settings:
            idle: list[Run] = []
            loaded: list[Run] = []
            for run in range(args.runs):
                name = f"{setting or 'defaults'}-{run}"
                idle.append(
                    timed_eval(Path(folder, "idle", name), args.limit, setting, args.timeout)
                )
                with busy(args.busy, args.timeout):
                    log_dir = Path(folder, "busy", name)
                    loaded.append(timed_eval(log_dir, args.limit, setting, args.timeout))
            quiet, crowded = best(idle), best(loaded)
            rows.append(
                (
                    setting or "(defaults)",
                    args.limit,
                    seconds(quiet.wall, args.timeout),
                    f"{quiet.load:.2f}",
                    seconds(crowded.wall, args.timeout),
                    f"{crowded.load:.2f}",
                    f"{crowded.wall / quiet.wall:.2f}",
                    f"{sum(r.failed for r in idle)} / {sum(r.failed for r in loaded)}",
                )
            )
    print(f"machine: {machine()}; best of {args.runs}; {args.busy} busy processes")
    print(f"load average (1 minute): {before:.2f} at the start, {load_average():.2f} at the end")
    print("(a row's loads: as its idle and its busy run ended)\n")
    print(markdown_table(COLUMNS, rows))
    print(f"\ntarget: busy / idle <= {TARGET:g}, no failed attempts")
    print(f"command: inspect eval tasks/tom.py --model gguf/smollm2 --limit {args.limit}")


if __name__ == "__main__":
    main()
