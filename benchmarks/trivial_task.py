"""The least an Inspect task can do with the same model calls as tasks/tom.py: the baseline
of `benchmarks/harness_overhead.py`.

`samples` Samples share one fixed game prompt; the first `calls - samples` of them also
ask the answer question, so the task makes exactly `calls` model calls, and the provider
(`tom/oracle`) does the same kind of work per call as in the game. No scenario generation,
no game engine on the task's side, an exact-match scorer.

Usage: inspect eval benchmarks/trivial_task.py --model tom/oracle -T samples=1560 -T calls=2080
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.solver import Solver as InspectSolver

from tom_eval.game.generation import generate_group
from tom_eval.game.prompts import action_prompt, answer_prompt
from tom_eval.game.rules import Rules
from tom_eval.game.spec import read_spec
from tom_eval.game.turn import DEFAULT_LINEUP

SPEC_ID = 12
"""Self answers after asking its teammate: a story with an action and an answer."""


@task
def trivial(samples: int = 100, calls: int = 100) -> Task:
    if not samples <= calls <= 2 * samples:
        raise ValueError("calls must be between samples and twice samples")
    (row,) = [row for row in read_spec() if row.id == SPEC_ID and row.extra == "0A"]
    solution = generate_group(row, 1, 0)["0A"]
    prompt = action_prompt(solution.observation, DEFAULT_LINEUP, Rules(), "action", [])
    dataset = [
        Sample(input=prompt, target=str(solution.decision.optimal), id=n) for n in range(samples)
    ]
    answer = answer_prompt(solution.scenario.question, "action")
    return Task(dataset=dataset, solver=act(calls - samples, answer), scorer=match())


@solver
def act(answered: int, answer: str) -> InspectSolver:
    """One model call; a second one (the answer) for the first `answered` samples."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state = await generate(state)
        if int(state.sample_id) < answered:
            action = state.output.completion
            state.messages.append(ChatMessageUser(content=answer))
            state = await generate(state)
            state.output.completion = action
        return state

    return solve
