"""The completion prompts of the battery: each story, or the first sentences of it, then the
prompt's stem, after "Complete the following story:" for chat models. A prompt's record
holds its text with the answer it expects, for the solver and the scorer alike."""

from __future__ import annotations

from typing import Any

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
