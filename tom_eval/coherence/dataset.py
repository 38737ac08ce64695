"""The coherence items as an Inspect dataset: one Sample per item of the chosen domains
and tasks, its input the paper's system and user prompts, its id the item's (the
metrics join items by it: an inference with the action predictions that explain it, a
ContainerWorld item with its MovieWorld counterpart)."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from tom_eval.coherence.prompts import system_prompt, user_prompt
from tom_eval.coherence.worlds import Domain, Item, Task, answers, counterpart, forward_item, items
from tom_eval.errors import InputError
from tom_eval.sampling import balanced_subset, strata_counts


def item_sample(item: Item) -> Sample:
    return Sample(
        id=item.item_id,
        input=[
            ChatMessageSystem(content=system_prompt(item.domain, item.task)),
            ChatMessageUser(content=user_prompt(item)),
        ],
        metadata={
            "item_id": item.item_id,
            "domain": item.domain,
            "task": item.task,
            "counterpart": counterpart(item).item_id,
        },
    )


def coherence_dataset(
    domains: Sequence[Domain], tasks: Sequence[Task], size: int | None = None, seed: int = 0
) -> tuple[MemoryDataset, dict[str, object]]:
    """The items of the domains and tasks as samples, or the subset `sampled` chooses (and
    what to add to the task's metadata)."""
    every = [item for domain in domains for task in tasks for item in items(domain, task)]
    chosen, subset = (every, {}) if size is None else sampled(domains, tasks, size, seed)
    wanted = {item.item_id for item in chosen}
    if size is not None and wanted >= {item.item_id for item in every}:
        raise InputError(
            f"sample {size:,} plays every item of this run, with the action predictions its "
            "inferences need: leave sample out, or ask for fewer"
        )
    return MemoryDataset(
        [item_sample(item) for item in every if item.item_id in wanted],
        name=f"coherence {'+'.join(domains)} {'+'.join(tasks)}",
    ), subset


def sampled(
    domains: Sequence[Domain], tasks: Sequence[Task], size: int, seed: int
) -> tuple[list[Item], dict[str, object]]:
    """`-T sample=N`: N items per domain, balanced over the tasks, that the metrics can
    still join. The metrics compare an inference with the inversion of the run's own
    action predictions, and one domain's items with their counterparts, so a subset of
    items alone would join almost nothing. Each chosen configuration is played in every
    chosen domain, and with AP in the run each chosen inference brings the action
    predictions its inversion needs (its forward items): the run holds more than N
    samples per domain, and the metadata says how many were added."""
    first, *others = domains
    units = [
        [item, *(counterpart(item) for _ in others)]
        for task in tasks
        for item in items(first, task)
    ]
    chosen = balanced_subset(units, size, lambda unit: (unit[0].task,), seed, "items per domain")
    picked = [item for unit in chosen for item in unit]
    forward = (
        [
            forward_item(item, answer)
            for item in picked
            if item.task != "AP"
            for answer in answers(item)
        ]
        if "AP" in tasks
        else []
    )
    added = {item.item_id for item in forward} - {item.item_id for item in picked}
    return picked + forward, {
        "sample": size,
        "sample_seed": seed,
        "strata": strata_counts(chosen, lambda unit: (unit[0].task,)),
        "forward_items_added": len(added),
    }
