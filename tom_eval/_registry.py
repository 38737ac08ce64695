"""Inspect entry point: reference players (`--model tom/<name>`), local GGUF models
(`--model gguf/<name>`) and the task (`tom_eval/tom`).

`tasks/tom.py` holds the task; it is registered here a second time under the package's
namespace so `inspect eval tom_eval/tom` works once tom-eval is installed.
"""

from __future__ import annotations

import inspect

from inspect_ai import task
from inspect_ai.model import ModelAPI, modelapi

import tasks.tom


@modelapi(name="tom")
def reference_players() -> type[ModelAPI]:
    from tom_eval.players import ReferencePlayer

    return ReferencePlayer


@modelapi(name="gguf")
def local_models() -> type[ModelAPI]:
    from tom_eval.gguf import GGUFAPI

    return GGUFAPI


# The undecorated function: registered again, it takes the package's name.
tom = task(name="tom_eval/tom")(inspect.unwrap(tasks.tom.tom))
