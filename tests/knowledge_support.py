"""What the knowledge-task tests share: the fixture copy of the data (written for this
project in the authors' file format, never their stories), a scripted model, a local web
server standing in for GitHub, and reading metrics from a log."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from conftest import http_server, inspect_eval

FIXTURES = Path(__file__).parent / "fixtures" / "knowledge"
QUIRKS = FIXTURES / "quirks"
"""A second copy that reproduces what the authors' full data showed (its README says what)."""


def scripted(reply: Callable[[str], str]) -> Model:
    """A model whose reply is `reply(prompt text)`; usage is set so nothing is downloaded."""

    def output(
        input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        result = ModelOutput.from_content("mockllm/model", reply(input[-1].text))
        result.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return result

    return get_model("mockllm/model", custom_outputs=output, memoize=False)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged (the tests would print a line per file)."""


@contextmanager
def serve(root: Path) -> Iterator[str]:
    """`root` over HTTP on 127.0.0.1 (a free port) for the duration; yields the base URL."""
    with http_server(partial(_QuietHandler, directory=str(root))) as port:
        yield f"http://127.0.0.1:{port}"


def metrics(log: EvalLog, key: str) -> dict[str, float]:
    """The metrics of one key of the score (e.g. 'accuracy' -> {'accuracy': 0.5, ...})."""
    assert log.status == "success", log.error
    assert log.results is not None
    [score] = [s for s in log.results.scores if s.name == key]
    return {name: value.value for name, value in score.metrics.items()}


def run_smollm2(task: Task, tmp_path: Path, **eval_args: Any) -> EvalLog:
    """A real eval with the packaged local model; prints what it said and how long it took
    (`pytest -s` shows it: the README reports it)."""
    started = time.monotonic()
    (log,) = inspect_eval(
        task, model="gguf/smollm2", log_dir=str(tmp_path), display="none", **eval_args
    )
    assert log.status == "success" and len(log.samples or []) == 2
    for sample in log.samples or []:
        assert sample.output.completion and sample.scores is not None
        [score] = sample.scores.values()
        print(sample.id, repr(sample.output.completion), score.answer, score.value)
    print(f"{log.eval.task}: {time.monotonic() - started:.1f} s")
    return log
