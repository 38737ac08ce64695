"""The coherence items as an Inspect dataset: one Sample per item of the chosen domains
and tasks, its input the paper's system and user prompts, its id the item's (the
metrics join items by it: an inference with the action predictions that explain it, a
ContainerWorld item with its MovieWorld counterpart)."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from tom_eval.coherence.prompts import system_prompt, user_prompt
from tom_eval.coherence.worlds import Domain, Item, Task, counterpart, items


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


def coherence_dataset(domains: Sequence[Domain], tasks: Sequence[Task]) -> MemoryDataset:
    return MemoryDataset(
        [item_sample(item) for domain in domains for task in tasks for item in items(domain, task)],
        name=f"coherence {'+'.join(domains)} {'+'.join(tasks)}",
    )
