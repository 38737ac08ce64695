"""A prior over mental states for the Bayesian evaluation (`-T prior=FILE`): a YAML (or
JSON) mapping from answer keys to weights, e.g. for DI in ContainerWorld

    d=likes|likes: 1
    d=likes|dislikes: 2
    d=dislikes|likes: 2

Keys are the items' answer keys (`worlds.answers`): ``d=...`` for DI, ``b=...`` for BI,
``b=.../d=...`` for BDI, in either domain's values. A task whose keys are all absent keeps
the uniform prior; a task with some of its keys must have all of them (a partial prior is
more likely a typo than a wish). Weights need not sum to 1."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from tom_eval.coherence.worlds import Domain, Task, answers, items
from tom_eval.errors import InputError
from tom_eval.json_fields import as_number, read_yaml

PRIOR_DIGEST = "prior_sha256"
"""The eval metadata key of a prior's digest (of its weights): `tom-eval report` tells apart
two priors of one file name by it."""


def read_prior(path: Path, domains: Sequence[Domain], tasks: Sequence[Task]) -> dict[str, float]:
    """A prior over answers from a YAML file of answer keys and weights: each task run
    weighs all its answers or none, one above 0. Any problem is one InputError naming the
    file."""
    document = read_yaml(path)
    if not isinstance(document, dict) or not document:
        raise InputError(f"{path}: a prior maps answer keys to weights")
    prior: dict[str, float] = {}
    for key, weight in document.items():
        prior[str(key)] = _weight(path, key, weight)
    known: set[str] = set()
    for domain in domains:
        for task in tasks:
            if task == "AP":
                continue
            keys = set(answers(items(domain, task)[0]))
            known |= keys
            given = keys & prior.keys()
            if given and given != keys:
                missing = sorted(keys - given)[0]
                raise InputError(f"{path}: {domain} {task} has no weight for {missing}")
            if given and not any(prior[key] > 0 for key in keys):
                raise InputError(f"{path}: {domain} {task} has no weight above 0")
    unknown = sorted(prior.keys() - known)
    if unknown:
        raise InputError(f"{path}: {unknown[0]} is no answer of the tasks run")
    return prior


def _weight(path: Path, key: object, weight: object) -> float:
    """A weight as a finite number of 0 or more (`as_number`: text that spells one is one)."""
    number = as_number(weight)
    if number is None:
        raise InputError(f"{path}: the weight of {key} is not a number")
    if not math.isfinite(number) or number < 0:
        raise InputError(f"{path}: the weight of {key} must be a finite number, 0 or more")
    return number
