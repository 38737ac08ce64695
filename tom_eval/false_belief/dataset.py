"""The battery as an Inspect dataset: one Sample per task (item), whose metadata lists
every completion prompt with its answer, so the solver and the scorer read one record."""

from __future__ import annotations

from inspect_ai.dataset import MemoryDataset, Sample

from tom_eval.errors import InputError
from tom_eval.false_belief.items import Item
from tom_eval.false_belief.prompts import prompt_record, steps


def item_sample(item: Item, prefix: str, sentence_by_sentence: bool) -> Sample:
    prompts = [
        prompt_record(index, story, completion, prefix, story.text)
        for index, story in enumerate(item.stories)
        for completion in story.prompts
    ]
    answers: dict[str, tuple[object, object]] = {}
    for record in prompts:
        answer = (record["expected"], record["wrong"])
        if answers.setdefault(record["prompt"], answer) != answer:
            # The reference players (and any reader of the log) match prompts by text.
            raise InputError(f"task {item.item_id}: two prompts read the same but differ in answer")
    false_belief = next(story for story in item.standard if story.condition == "false_belief")
    return Sample(
        id=item.item_id,
        input=false_belief.text,
        target=[str(c.expected) for c in false_belief.prompts],
        metadata={
            "family": item.family,
            "key_words": list(item.key_words),
            "prompts": prompts,
            "steps": steps(item, prefix) if sentence_by_sentence else [],
        },
    )


def false_belief_dataset(
    items: list[Item], name: str, prefix: str, sentence_by_sentence: bool
) -> MemoryDataset:
    return MemoryDataset([item_sample(i, prefix, sentence_by_sentence) for i in items], name=name)
