"""A progress line for runs whose output is not a terminal.

Inspect's default display draws its progress bar only on a terminal: piped or redirected
(`inspect eval ... | tee run.txt`, a CI log), a run prints nothing from its start to its
results, and a long local run looks hung. For tom-eval's tasks this hook prints, every
INTERVAL seconds as samples finish and once at the end, a line such as

    tom gguf/smollm2: 24/312 samples, 0:01:48 elapsed, 0.22 samples/s, about 0:21:49 left

on standard output (flushed, so a pipe shows it at once). It stays quiet on a terminal,
where the display shows the same, and when the display is `none` (asked for quiet) or `log`
(Inspect's own lines go to the logging system); with `--display plain` it adds the elapsed
time and the rate to Inspect's plain lines.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from inspect_ai.hooks import Hooks, SampleEnd, TaskEnd, TaskStart, hooks
from inspect_ai.util import display_type

INTERVAL = 10.0
"""Seconds between progress lines: about 30 lines for the README's main job."""
TASKS = frozenset({"tom", "false_belief", "coherence", "knp", "ikd"})
"""tom-eval's tasks (the registered names, without a package prefix): a line for other
tasks run in the same process is not tom-eval's to print."""


@dataclass
class Run:
    """One task's progress."""

    label: str
    total: int
    started: float
    done: int = 0
    last_line: float = field(default=0.0)

    def line(self, now: float) -> str:
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        text = f"{self.label}: {self.done}/{self.total} samples, {clock(elapsed)} elapsed"
        text += f", {rate:.2f} samples/s"
        if 0 < self.done < self.total:
            text += f", about {clock((self.total - self.done) / rate)} left"
        return text


def clock(seconds: float) -> str:
    return str(timedelta(seconds=round(seconds)))


def wanted() -> bool:
    """Whether the display leaves progress unshown: not a terminal, or plain lines."""
    kind = display_type()
    if kind in ("none", "log"):
        return False
    return kind == "plain" or not sys.stdout.isatty()


class Progress(Hooks):
    """Progress lines of each running tom-eval task, by eval id."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, interval: float = INTERVAL
    ) -> None:
        self.clock = clock
        self.interval = interval
        self.runs: dict[str, Run] = {}

    def enabled(self) -> bool:
        return wanted()

    async def on_task_start(self, data: TaskStart) -> None:
        spec = data.spec
        if spec.task_registry_name is None or spec.task_registry_name.split("/")[-1] not in TASKS:
            return
        total = len(spec.dataset.sample_ids or []) * (spec.config.epochs or 1)
        now = self.clock()
        self.runs[data.eval_id] = Run(f"{spec.task} {spec.model}", total, now, last_line=now)

    async def on_sample_end(self, data: SampleEnd) -> None:
        run = self.runs.get(data.eval_id)
        if run is None:
            return
        run.done += 1
        now = self.clock()
        if now - run.last_line >= self.interval and run.done < run.total:
            run.last_line = now
            print(run.line(now), flush=True)

    async def on_task_end(self, data: TaskEnd) -> None:
        run = self.runs.pop(data.eval_id, None)
        if run is not None:
            print(run.line(self.clock()), flush=True)


@functools.cache
def show_progress() -> None:
    """Register the hook, once (hence the cache), as a task of ours is built: after
    Inspect's start-up, which announces every hook registered by then on every run (of any
    task, piped or not), and tom-eval's entry point is loaded then."""
    hooks(name="tom_eval_progress", description="progress lines for a piped run")(Progress)
