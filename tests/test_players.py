"""The reference players: policies read only the conversation; providers imitate an API."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

from conftest import ROOT, hear_interrupts
from tom_eval.coherence.players import CoherencePlayer
from tom_eval.false_belief.players import FalseBeliefPlayer
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.flaky import FlakyPlayer
from tom_eval.game.generation import generate
from tom_eval.game.parsing import RESPONSE_FORMATS, ResponseFormat, parse_action
from tom_eval.game.players import POLICIES, ReferencePlayer, respond
from tom_eval.game.prompts import action_prompt, answer_prompt, choice_options, reply_text
from tom_eval.game.rules import Rules
from tom_eval.game.spec import read_spec
from tom_eval.game.turn import DEFAULT_LINEUP
from tom_eval.providers.base import number, text, whole, yes_no
from tom_eval.providers.gguf import GGUFAPI

GROUP = generate([row for row in read_spec() if row.id in (12, 17, 27)], 2, 5)


def prompt_for(index: int, response_format: ResponseFormat = "choice") -> tuple[str, list[Action]]:
    solution = GROUP[index].solution
    options = choice_options(
        solution.observation, solution.assessment.self_belief, ("B", "C", "D"), "s"
    )
    shown = options if response_format == "choice" else []
    prompt = action_prompt(solution.observation, DEFAULT_LINEUP, Rules(), response_format, shown)
    return prompt, shown


@pytest.mark.parametrize("response_format", RESPONSE_FORMATS)
def test_the_oracle_plays_the_engines_optimal_action(response_format: ResponseFormat) -> None:
    for index, item in enumerate(GROUP):
        prompt, options = prompt_for(index, response_format)
        text = respond("oracle", [("user", prompt)], seed=0)
        parsed = parse_action(text, response_format, options)
        assert parsed.action == item.solution.decision.optimal


def test_the_oracle_answers_from_a_trusted_reply() -> None:
    # Id 12: A only believes; after asking B (who knows) it answers with B's reply.
    item = next(item for item in GROUP if item.row.id == 12)
    prompt, _ = prompt_for(GROUP.index(item), "action")
    question = item.solution.scenario.question
    ask = item.solution.decision.optimal
    truth = item.solution.truth or "nothing"
    conversation = [
        ("user", prompt),
        ("assistant", str(ask)),
        ("user", f"{reply_text(ask, truth)}\n\n{answer_prompt(question, 'action')}"),
    ]
    assert respond("oracle", conversation, seed=0) == truth


def test_baselines() -> None:
    for index in range(len(GROUP)):
        prompt, options = prompt_for(index)
        for policy in ("always-pass", "no-tom"):
            played = parse_action(respond(policy, [("user", prompt)], 0), "choice", options)
            assert played.action == PASS
    prompt, options = prompt_for(0)
    picks = {respond("random", [("user", prompt)], seed) for seed in range(30)}
    assert len(picks) > 3 and respond("random", [("user", prompt)], 3) == respond(
        "random", [("user", prompt)], 3
    )


def test_the_provider_reports_usage_and_imitates_latency() -> None:
    prompt, _ = prompt_for(0)
    player = ReferencePlayer("oracle", latency=0.2)
    started = time.perf_counter()
    output = asyncio.run(
        player.generate([ChatMessageUser(content=prompt)], [], "auto", GenerateConfig())
    )
    assert time.perf_counter() - started >= 0.2
    assert (
        output.usage is not None
        and output.usage.input_tokens > 100
        and output.usage.output_tokens >= 1
    )
    assert asyncio.run(player.count_text_tokens("four")) == 1


def test_unknown_players_are_refused() -> None:
    assert set(POLICIES) == {"oracle", "always-pass", "random", "no-tom", "bounded"}
    with pytest.raises(PrerequisiteError, match="memory=K"):
        ReferencePlayer("bounded")
    with pytest.raises(PrerequisiteError, match="memory=K"):
        ReferencePlayer("oracle", memory=3)
    with pytest.raises(PrerequisiteError, match="unknown reference player 'tom/genius'"):
        ReferencePlayer("genius")
    # Through the registry, which names every task's players (a typo of one is no game player).
    with pytest.raises(
        PrerequisiteError,
        match=r"'tom/belief-orcale' \(did you mean tom/belief-oracle\? there are .*tom/oracle",
    ):
        get_model("tom/belief-orcale")
    with pytest.raises(PrerequisiteError, match=r"'tom/zzz' \(there are "):
        get_model("tom/zzz")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"memory": 2.9}, "-M memory must be a whole number, not 2.9"),
        ({"memory": True}, "-M memory must be a whole number, not 'true'"),
        ({"seed": 1.5}, "-M seed must be a whole number, not 1.5"),
        ({"seed": 2**63}, f"-M seed must be from -2**63 to 2**63 - 1, not {2**63}"),
        ({"latency": True}, "-M latency must be a finite number, not 'true'"),
        ({"latency": float("inf")}, "-M latency must be a finite number, not inf"),
        # Finite, but a wait for ever.
        ({"latency": 1e308}, "-M latency must be from 0 to 86,400, not 1e+308"),
        # An empty `-M latency=` (an unset shell variable) is no default.
        ({"latency": None}, "-M latency must have a value: leave it out for its default"),
        ({"seed": None}, "-M seed must have a value"),
    ],
)
def test_model_args_are_read_strictly(args: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError, match=re.escape(message)):
        ReferencePlayer("bounded" if "memory" in args else "random", **args)


def test_flaky_wraps_no_player_that_needs_model_args_of_its_own() -> None:
    with pytest.raises(PrerequisiteError, match=re.escape("-M player must be one of oracle,")):
        get_model("tom/flaky", player="bounded")
    with pytest.raises(PrerequisiteError, match=re.escape("-M backoff must be from 0 to 86,400")):
        get_model("tom/flaky", backoff=1e308)


def test_every_players_numbers_are_read_by_a_reader_that_says_what_it_reads() -> None:
    """A model arg read by `int` or `float` would cut 2.9 to 2 and be refused as "text"."""
    with pytest.raises(PrerequisiteError, match=re.escape("-M max_faults must be a whole number")):
        get_model("tom/flaky", max_faults=2.9)
    with pytest.raises(PrerequisiteError, match=re.escape("-M hang must be a finite number")):
        get_model("tom/flaky", hang=float("inf"))
    # The wrapped player's name as typed, and the names there are.
    with pytest.raises(PrerequisiteError) as raised:
        get_model("tom/flaky", player="orcale")
    assert raised.value.message == (
        "tom/flaky: -M player must be one of oracle, always-pass, random, no-tom, not 'orcale'"
    )
    readers = {whole, number, yes_no, text}
    for provider in (ReferencePlayer, FlakyPlayer, FalseBeliefPlayer, CoherencePlayer, GGUFAPI):
        for name, arg in provider.ARGS.items():
            assert arg.read in readers, (provider.__name__, name)


INSPECT = str(Path(sys.executable).parent / "inspect")
FIXTURE_DATA = "tests/fixtures/knowledge"


@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        (
            ["tasks/knp.py", "--model", "tom/oracle", "-T", f"data_dir={FIXTURE_DATA}"],
            "tom/oracle cannot play knp: it plays tom",
        ),
        (
            ["tasks/tom.py", "--model", "tom/gold", "-T", "ids=12", "-T", "reps=1"],
            "tom/gold cannot play tom: it plays knp, knp -T open_ended=true, ikd",
        ),
        (
            ["tasks/knp.py", "--model", "tom/always-a", "-T", "open_ended=true"],
            "tom/always-a cannot play knp -T open_ended=true: it plays knp",
        ),
        (
            ["tasks/false_belief.py", "--model", "tom/rational", "-T", "sample=2"],
            "tom/rational cannot play false_belief: it plays coherence",
        ),
    ],
)
def test_a_player_asked_to_play_another_task_says_so_in_one_line(
    tmp_path: Path, arguments: list[str], line: str
) -> None:
    """Refused as the task is built: one line, a failing exit, and no log."""
    run = subprocess.run(
        [INSPECT, "eval", *arguments, "--log-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 1
    assert [text for text in (run.stdout + run.stderr).splitlines() if text.strip()] == [line]
    assert list(tmp_path.iterdir()) == []


def test_from_python_the_first_call_stops_the_eval_in_one_line(tmp_path: Path) -> None:
    """A task built before its model is known cannot refuse it: the player's first call
    stops the eval as an interrupt does (the log is cancelled), with the same line; and a
    second eval in the same process is stopped the same way."""
    code = (
        "from inspect_ai import eval\n"
        "from tasks.knp import knp\n"
        "for run in ('first', 'second'):\n"
        f"    task = knp(data_dir='{FIXTURE_DATA}')\n"
        f"    eval(task, model='tom/oracle', log_dir='{tmp_path}/' + run, display='none')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        preexec_fn=hear_interrupts,
    )
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert lines.count("tom/oracle cannot play knp: it plays tom") == 2, (run.returncode, lines)
    for folder in ("first", "second"):
        [log] = (tmp_path / folder).iterdir()
        assert read_eval_log(str(log), header_only=True).status == "cancelled"


def test_an_unknown_arg_lists_what_the_player_takes() -> None:
    """`memory` is listed as tom/bounded's own, not as an arg tom/oracle would take."""
    with pytest.raises(
        PrerequisiteError, match=r"takes: latency, seed, memory \(tom/bounded only\)"
    ):
        get_model("tom/oracle", foo=1)
