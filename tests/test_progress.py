"""A run whose output is piped shows its progress: samples done of total, elapsed, rate."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from conftest import ROOT
from tom_eval import progress

LINE = r"tom tom/oracle: (\d+)/(\d+) samples, \d+:\d\d:\d\d elapsed, [\d.]+ samples/s.*"


def test_a_piped_run_prints_its_progress(tmp_path: Path) -> None:
    # Inspect's default display: through a pipe it shows nothing until the results.
    command = [sys.executable, "-m", "inspect_ai", "eval", "tasks/tom.py", "--model"]
    command += ["tom/oracle", "-T", "reps=1", "--limit", "3", "--log-dir", str(tmp_path)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    found = [re.fullmatch(LINE, line) for line in done.stdout.splitlines()]
    assert [(m.group(1), m.group(2)) for m in found if m] == [("3", "3")], done.stdout


def test_a_line_every_interval_and_one_at_the_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress, "wanted", lambda: True)
    now = [100.0]
    hook = progress.Progress(clock=lambda: now[0], interval=10.0)
    spec = SimpleNamespace(
        task="tom",
        model="gguf/smollm2",
        task_registry_name="tom",
        dataset=SimpleNamespace(sample_ids=list(range(4))),
        config=SimpleNamespace(epochs=2),
    )

    async def play() -> None:
        await hook.on_task_start(cast(Any, SimpleNamespace(eval_id="e", spec=spec)))
        for elapsed in (4.0, 12.0, 15.0, 40.0, 41.0, 42.0, 43.0, 44.0):
            now[0] = 100.0 + elapsed
            await hook.on_sample_end(cast(Any, SimpleNamespace(eval_id="e")))
        await hook.on_task_end(cast(Any, SimpleNamespace(eval_id="e")))

    asyncio.run(play())
    assert capsys.readouterr().out.splitlines() == [
        "tom gguf/smollm2: 2/8 samples, 0:00:12 elapsed, 0.17 samples/s, about 0:00:36 left",
        "tom gguf/smollm2: 4/8 samples, 0:00:40 elapsed, 0.10 samples/s, about 0:00:40 left",
        "tom gguf/smollm2: 8/8 samples, 0:00:44 elapsed, 0.18 samples/s",
    ]


def test_other_tasks_get_no_line(capsys: pytest.CaptureFixture[str]) -> None:
    hook = progress.Progress()
    spec = SimpleNamespace(task_registry_name="someone_elses_task")
    asyncio.run(hook.on_task_start(cast(Any, SimpleNamespace(eval_id="e", spec=spec))))
    asyncio.run(hook.on_task_end(cast(Any, SimpleNamespace(eval_id="e"))))
    assert hook.runs == {} and capsys.readouterr().out == ""
