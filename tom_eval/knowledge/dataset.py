"""The records as Inspect samples, with every analysis factor in metadata.

KNP's option order: the paper shuffled the two options at random; `seeded` puts the right
answer first for exactly half of the items (every other item of a seeded shuffle of all
item numbers, so the order of an item does not depend on a genre filter), `both` plays
every item in both orders (two samples joined by `item` for order consistency), and
`correct_a` / `correct_b` fix the right answer's place (to measure position bias).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from inspect_ai.dataset import MemoryDataset, Sample

from tom_eval.json_fields import content_digest
from tom_eval.knowledge.prompts import Highlight, ikd_prompt, knp_prompt
from tom_eval.knowledge.records import ErrorStory, IkdData, KnpData, KnpItem, OriginalStory
from tom_eval.task_args import names

logger = logging.getLogger(__name__)

Order = Literal["seeded", "both", "correct_a", "correct_b"]
ORDERS: tuple[Order, ...] = ("seeded", "both", "correct_a", "correct_b")
Stories = Literal["all", "original", "error"]
STORIES: tuple[Stories, ...] = ("all", "original", "error")


def correct_letters(numbers: Sequence[int], order: Order, seed: int) -> dict[int, list[str]]:
    """The right answer's letter(s) per item. A string seed: the same on every run,
    whatever PYTHONHASHSEED is."""
    if order == "both":
        return {number: ["A", "B"] for number in numbers}
    if order != "seeded":
        return {number: ["A" if order == "correct_a" else "B"] for number in numbers}
    shuffled = sorted(numbers)
    random.Random(f"knp option order {seed}").shuffle(shuffled)
    return {number: ["AB"[index % 2]] for index, number in enumerate(shuffled)}


def knp_sample(item: KnpItem, letter: str | None, focus_on_knowledge: bool) -> Sample:
    """With `letter`, the binary choice whose right answer stands at that letter; without,
    the open-ended question."""
    options = None
    if letter is not None:
        other = "B" if letter == "A" else "A"
        options = {letter: item.answer_without_knowledge, other: item.answer_with_knowledge}
        options = dict(sorted(options.items()))
    return Sample(
        id=f"knp_{item.number}" + (f"_{letter}" if letter else ""),
        input=knp_prompt(item.story, item.question, options, focus_on_knowledge),
        target=letter or item.answer_without_knowledge,
        metadata={
            "item": item.number,
            "genre": item.genre,
            "character": item.character,
            "story": item.story,
            "question": item.question,
            "implausible_knowledge": item.implausible_knowledge,
            "answer_without_knowledge": item.answer_without_knowledge,
            "answer_with_knowledge": item.answer_with_knowledge,
            "correct_letter": letter,
            "options": options,
        },
    )


def knp_dataset(
    items: Sequence[KnpItem],
    genres: Collection[str],
    order: Order,
    seed: int,
    open_ended: bool,
    focus_on_knowledge: bool,
    name: str,
) -> MemoryDataset:
    """Samples of the items of `genres` (the option order is drawn over all items)."""
    letters = correct_letters([item.number for item in items], order, seed)
    return MemoryDataset(
        [
            knp_sample(item, letter, focus_on_knowledge)
            for item in items
            if item.genre in genres
            for letter in ([None] if open_ended else letters[item.number])
        ],
        name=name,
    )


def original_sample(story: OriginalStory, focus_on_knowledge: bool) -> Sample:
    return Sample(
        id=f"original_{story.number}",
        input=ikd_prompt(story.story, focus_on_knowledge),
        target="No",
        metadata={"kind": "original", "number": story.number, "genre": story.genre},
    )


def error_sample(story: ErrorStory, focus_on_knowledge: bool, highlight: Highlight) -> Sample:
    return Sample(
        id=f"error_{story.number}",
        input=ikd_prompt(
            story.story,
            focus_on_knowledge,
            highlight,
            story.event,
            story.implausible_knowledge,
            story.knowledge_place,
        ),
        target="Yes",
        metadata={
            "kind": "error",
            "number": story.number,
            "genre": story.genre,
            "character": story.character,
            "implausible_knowledge": story.implausible_knowledge,
            "event": story.event,
            "gold": story.gold,
            "gold_source": story.gold_source,
            "base_story": story.base_story,
            "knowledge_place": story.knowledge_place,
        },
    )


def ikd_dataset(
    data: IkdData,
    genres: Collection[str],
    stories: Stories,
    highlight: Highlight,
    focus_on_knowledge: bool,
    name: str,
) -> MemoryDataset:
    originals = [s for s in data.originals if s.genre in genres and stories != "error"]
    errors = [s for s in data.errors if s.genre in genres and stories != "original"]
    return MemoryDataset(
        [original_sample(story, focus_on_knowledge) for story in originals]
        + [error_sample(story, focus_on_knowledge, highlight) for story in errors],
        name=name,
    )


SHOWN = 3
"""Repeated files named in the warning (all of them are in the task's metadata)."""


DATA_DIGEST = "data_sha256"
"""The task metadata key of the SHA-256 of the records read: the report tells two data
folders of one name apart by it."""


def source_metadata(task: str, origin: str, data: KnpData | IkdData) -> dict[str, object]:
    """The task's metadata: where the data came from, how many distinct records it holds
    and their digest, and the files read once as repeats of another (warned about: the
    authors' data has one)."""
    duplicates = data.duplicates
    distinct = (
        len(data.items) if isinstance(data, KnpData) else len(data.originals) + len(data.errors)
    )
    if duplicates:
        named = [f"{repeat} = {first}" for repeat, first in duplicates.items()]
        pairs = ", ".join(named[:SHOWN] + ([f"{len(named) - SHOWN} more"] if named[SHOWN:] else []))
        logger.warning(
            f"{task}: {origin}: {len(duplicates)} file(s) repeat another file's record and "
            f"are read once ({pairs}); {distinct} distinct records"
        )
    return {
        "source": origin,
        "distinct_records": distinct,
        "duplicates": duplicates,
        # The records are frozen dataclasses of text and numbers: their repr is stable.
        DATA_DIGEST: content_digest(data),
    }


def chosen_genres(genre: object, present: Collection[str]) -> set[str]:
    """`-T genre=` as `optional` read it: one genre of the data, several separated by
    commas, or a list; all when None (left out)."""
    if genre is None:
        return set(present)
    return set(names("genre", genre, sorted(present), source="the genres of this data"))


@dataclass(frozen=True)
class KnpMetadata:
    """What the KNP scorer reads of a sample's metadata (`knp_sample`)."""

    correct_letter: str
    options: dict[str, str]
    """The options' texts by letter."""


@dataclass(frozen=True)
class IkdMetadata:
    """What the IKD scorer reads of a sample's metadata (`original_sample`, `error_sample`):
    checked, since a log edited by hand and scored again could make an erroneous story an
    original one."""

    kind: Literal["original", "error"]
    gold: str = ""
    """The error's span in an erroneous story."""
