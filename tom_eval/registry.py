"""What the suite has, in one place: the Inspect entry point (reference players, people
and a flaky API as `--model tom/<name>`, local GGUF models as `--model gguf/<name>`, and the
task `tom_eval/tom`), and each task's section of `tom-eval report`.

`tasks/tom.py` holds the task; it is registered here a second time under the package's
namespace so `inspect eval tom_eval/tom` works once tom-eval is installed.
"""

from __future__ import annotations

import difflib
import inspect
from typing import TYPE_CHECKING, Any, cast

from inspect_ai import Task, task
from inspect_ai.model import ModelAPI, modelapi

import tasks.tom

if TYPE_CHECKING:
    from tom_eval.report.section import Section


@modelapi(name="tom")
def players() -> type[ModelAPI]:
    """Every `tom/<name>` provider: the reference players of each task, `tom/human` and
    `tom/flaky`. Inspect only calls what this returns, so a function that picks the class
    by name serves."""
    from tom_eval.coherence.agents import POLICIES as COHERENCE_AGENTS
    from tom_eval.coherence.players import CoherencePlayer
    from tom_eval.false_belief.players import POLICIES as FALSE_BELIEF_PLAYERS
    from tom_eval.false_belief.players import FalseBeliefPlayer
    from tom_eval.game.flaky import FlakyPlayer
    from tom_eval.game.players import POLICIES as GAME_PLAYERS
    from tom_eval.game.players import ReferencePlayer
    from tom_eval.knowledge.players import POLICIES as KNOWLEDGE_PLAYERS
    from tom_eval.knowledge.players import KnowledgePlayer
    from tom_eval.providers.base import LocalProvider
    from tom_eval.providers.human import HumanPlayer
    from tom_eval.refusal import refused

    kinds: dict[str, type[LocalProvider]] = {name: ReferencePlayer for name in GAME_PLAYERS}
    kinds |= {"human": HumanPlayer, "flaky": FlakyPlayer}
    kinds |= {name: FalseBeliefPlayer for name in FALSE_BELIEF_PLAYERS}
    kinds |= {name: CoherencePlayer for name in COHERENCE_AGENTS}
    kinds |= {name: KnowledgePlayer for name in KNOWLEDGE_PLAYERS}

    def player(model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:
        if model_name not in kinds:
            every = ", ".join(f"tom/{name}" for name in kinds)
            close = difflib.get_close_matches(model_name, kinds, n=1)
            meant = f"did you mean tom/{close[0]}? " if close else ""
            raise refused(f"unknown reference player 'tom/{model_name}' ({meant}there are {every})")
        return kinds[model_name](model_name, *args, **kwargs)

    return cast(type[ModelAPI], player)


@modelapi(name="reference")
def recorded_runs() -> type[ModelAPI]:
    """`reference/<model>`: a run recorded by the game's reference implementation, replayed
    by `tom-eval import-runs`."""
    from tom_eval.game.importing import ReplayPlayer

    return ReplayPlayer


@modelapi(name="gguf")
def local_models() -> type[ModelAPI]:
    from tom_eval.providers.gguf import GGUFAPI

    return GGUFAPI


def _packaged_tom(*args: Any, **kwargs: Any) -> Task:
    return cast(Task, _game_task(*args, **kwargs))


# A function of this module, with the game task's signature (so its arguments are logged
# as tasks/tom.py's are): Inspect resolves the distribution of the module that defines a
# task for every log, and finds tom-eval's at once from this package's name, where
# `tasks` takes it a scan of every installed package (about 0.2 s a log).
_game_task = inspect.unwrap(tasks.tom.tom)
_packaged_tom.__signature__ = inspect.signature(_game_task)  # type: ignore[attr-defined]
_packaged_tom.__doc__ = _game_task.__doc__
tom = task(name="tom")(_packaged_tom)  # in this package: registered as tom_eval/tom


def report_sections() -> list[Section]:
    """Each task's section of `tom-eval report`, in the order report.md shows them."""
    from tom_eval.coherence.report import CoherenceReport
    from tom_eval.false_belief.report import FalseBeliefReport
    from tom_eval.game.report import GameReport
    from tom_eval.knowledge.report import KnowledgeReport

    return [GameReport(), FalseBeliefReport(), CoherenceReport(), KnowledgeReport()]
