"""Inspect entry point: reference players and people (`--model tom/<name>`, `tom/human`),
local GGUF models (`--model gguf/<name>`) and the task (`tom_eval/tom`).

`tasks/tom.py` holds the task; it is registered here a second time under the package's
namespace so `inspect eval tom_eval/tom` works once tom-eval is installed.
"""

from __future__ import annotations

import inspect
from typing import Any, cast

from inspect_ai import task
from inspect_ai.model import ModelAPI, modelapi

import tasks.tom


@modelapi(name="tom")
def players() -> type[ModelAPI]:
    """`tom/human` is a person; `tom/belief-oracle` and `tom/reality-biased` play the
    false-belief battery; `tom/rational` and `tom/random-agent` the coherence test;
    `tom/flaky` is a reference player behind an unreliable API; every other `tom/<policy>`
    is a game reference player. Inspect only calls what this
    returns, so a function that picks the class serves."""
    from tom_eval.coherence.agents import POLICIES as COHERENCE_AGENTS
    from tom_eval.coherence.players import CoherencePlayer
    from tom_eval.false_belief.players import POLICIES, FalseBeliefPlayer
    from tom_eval.flaky import FlakyPlayer
    from tom_eval.human import HumanPlayer
    from tom_eval.players import ReferencePlayer

    def player(model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:
        kind: type[ModelAPI] = ReferencePlayer
        if model_name == "human":
            kind = HumanPlayer
        elif model_name in POLICIES:
            kind = FalseBeliefPlayer
        elif model_name in COHERENCE_AGENTS:
            kind = CoherencePlayer
        elif model_name == "flaky":
            kind = FlakyPlayer
        return kind(model_name, *args, **kwargs)

    return cast(type[ModelAPI], player)


@modelapi(name="gguf")
def local_models() -> type[ModelAPI]:
    from tom_eval.gguf import GGUFAPI

    return GGUFAPI


# The undecorated function: registered again, it takes the package's name.
tom = task(name="tom_eval/tom")(inspect.unwrap(tasks.tom.tom))
