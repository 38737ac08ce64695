"""The battery as an Inspect dataset: one Sample per task (item), whose metadata lists
every completion prompt with its answer, so the solver and the scorer read one record."""

from __future__ import annotations

from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from tom_eval.errors import InputError
from tom_eval.false_belief.items import Completion, Item, Story

CHAT_PREFIX = "Complete the following story:"
"""What chat models read before the story (as in the paper's runs on ChatGPT models)."""


def prompt_text(prefix: str, story_text: str, stem: str) -> str:
    return " ".join(part for part in (prefix, story_text, stem) if part)


def prompt_record(
    index: int, story: Story, completion: Completion, prefix: str, text: str
) -> dict[str, Any]:
    return {
        "story": index,
        "condition": story.condition,
        "reversed": story.reversed,
        "perturbed": story.perturbed,
        "kind": completion.kind,
        "stem": completion.stem,
        "expected": completion.expected,
        "wrong": completion.wrong,
        "prompt": prompt_text(prefix, text, completion.stem),
    }


def steps(item: Item, prefix: str) -> list[dict[str, Any]]:
    """The sentence-by-sentence variant: the two false-belief stories (original and
    reversed) revealed one sentence at a time, both prompts after each sentence."""
    records = []
    for index, story in enumerate(item.stories):
        if story.condition != "false_belief":
            continue
        for step in range(1, len(story.sentences) + 1):
            shown = " ".join(story.sentences[:step])
            for completion in story.prompts:
                record = prompt_record(index, story, completion, prefix, shown)
                records.append(record | {"step": step, "steps": len(story.sentences)})
    return records


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
