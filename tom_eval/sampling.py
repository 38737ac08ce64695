"""`-T sample=N` on every task: a balanced subset, so a small run covers every condition a
task's headline metric is computed over (Inspect's `--limit` takes the first N samples: a
small IKD run then holds only original stories, a small KNP run only romance).

The units (a sample, or samples that belong together) are grouped into strata, the
conditions of the task's headline metric, most important first (IKD: original or
erroneous, then genre). The N units are shared out as evenly as the strata allow: each
stratum of the first level gets an equal share, one with fewer units gives all it has and
the rest goes to the others, and a remainder goes to strata drawn at random; each share is
then shared out in the same way over the next level. At the last level, units are drawn
by a shuffle seeded with a string (the same subset whatever PYTHONHASHSEED), and the
subset keeps the data's order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from inspect_ai.dataset import Dataset, MemoryDataset, Sample

from tom_eval.errors import InputError
from tom_eval.task_args import optional, whole_number

Unit = TypeVar("Unit")
Strata = tuple[str, ...]
"""A unit's strata, most important first: the units are shared out evenly over the first,
then within each of its strata over the second, and so on."""


def subset_arguments(sample: object, sample_seed: object) -> tuple[int | None, int]:
    """`-T sample=N` (left out: every sample; else a whole number of 1 or more) and `-T
    sample_seed=S`, which without a sample would be ignored, so it is refused."""
    given = optional("sample", sample)
    size = None if given is None else whole_number("sample", given, minimum=1)
    seed = whole_number("sample_seed", sample_seed)
    if size is None and seed != 0:
        raise InputError("sample_seed is for a subset: add -T sample=N")
    return size, seed


def balanced_subset(
    units: Sequence[Unit],
    size: int | None,
    strata: Callable[[Unit], Strata],
    seed: int,
    counted: str = "samples",
) -> list[Unit]:
    """`size` of the units, balanced over their strata (see the module); all of them when
    `size` is None. A size of all of them or more is refused, naming what the units are
    (`counted`): the run would be the one without it, but named apart in the report."""
    if size is None:
        return list(units)
    if size >= len(units):
        raise InputError(
            f"sample {size:,} is not fewer than the {len(units):,} {counted} this run draws "
            "from, so it would play them all: leave sample out, or ask for fewer"
        )
    chosen = _draw(list(range(len(units))), size, lambda index: strata(units[index]), seed, ())
    return [units[index] for index in sorted(chosen)]


def _draw(
    indices: list[int],
    size: int,
    strata: Callable[[int], Strata],
    seed: int,
    path: Strata,
) -> list[int]:
    """`size` of `indices`, shared out over the strata at the level below `path`."""
    level = len(path)
    if all(len(strata(index)) == level for index in indices):
        found = list(indices)
        random.Random(f"tom-eval sample {seed} {' / '.join(path)}").shuffle(found)
        return found[:size]
    groups: dict[str, list[int]] = {}
    for index in indices:
        groups.setdefault(strata(index)[level], []).append(index)
    rng = random.Random(f"tom-eval sample {seed} quotas {' / '.join(path)}")
    sizes = {name: len(group) for name, group in groups.items()}
    return [
        index
        for name, quota in quotas(sizes, size, rng)
        for index in _draw(groups[name], quota, strata, seed, (*path, name))
    ]


def quotas(sizes: dict[str, int], total: int, rng: random.Random) -> list[tuple[str, int]]:
    """How many units each stratum gives: equal shares up to each stratum's size, until
    `total` is reached; the strata that get one unit more are drawn with `rng`."""
    given = dict.fromkeys(sizes, 0)
    left = min(total, sum(sizes.values()))
    while left > 0:
        open_strata = sorted(name for name in sizes if given[name] < sizes[name])
        share = left // len(open_strata)
        if share == 0:
            for name in rng.sample(open_strata, left):
                given[name] += 1
            break
        for name in open_strata:
            more = min(share, sizes[name] - given[name])
            given[name] += more
            left -= more
    return sorted(given.items())


def strata_counts(units: Sequence[Unit], strata: Callable[[Unit], Strata]) -> dict[str, int]:
    """Units per stratum, for a task's metadata (what a subset holds)."""
    counts: dict[str, int] = {}
    for unit in units:
        name = " / ".join(strata(unit)) or "all"
        counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def by_metadata(*keys: str) -> Callable[[Sample], Strata]:
    """A sample's strata: the values of these metadata keys (none: one stratum)."""
    return lambda sample: tuple(str((sample.metadata or {}).get(key)) for key in keys)


def sample_subset(
    dataset: Dataset,
    size: int | None,
    seed: int,
    strata: Callable[[Sample], Strata],
    unit: Callable[[Sample], str] | None = None,
    counted: str = "samples",
) -> tuple[Dataset, dict[str, object]]:
    """The balanced subset of a task's samples, and what to add to the task's metadata.
    Samples with the same `unit` (e.g. an item played in both option orders) are drawn
    together; by default each sample is its own unit. `counted` names the units."""
    if size is None:
        return dataset, {}
    units: dict[str, list[Sample]] = {}
    for sample in dataset:
        units.setdefault(unit(sample) if unit else str(sample.id), []).append(sample)
    chosen = balanced_subset(
        list(units.values()), size, lambda group: strata(group[0]), seed, counted
    )
    return MemoryDataset([s for group in chosen for s in group], name=dataset.name), {
        "sample": size,
        "sample_seed": seed,
        "strata": strata_counts(chosen, lambda group: strata(group[0])),
    }
