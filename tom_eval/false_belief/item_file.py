"""Item files: false-belief tasks as JSON Lines, for the paper's originals (which the suite
does not ship; see Kosinski's OSF project) or for generated items saved and edited.

One task per line, one JSON object:

    {"id": "contents-01", "family": "contents", "key_words": ["raisins", "pretzels"],
     "stories": [
       {"condition": "false_belief", "reversed": false,
        "text": "Here is a paper bag filled with raisins. ... Maya reads the label.",
        "reality": {"stem": "Maya opens the bag and looks inside. She can clearly see that
                             it is full of", "expected": "raisins"},
        "belief": {"stem": "Maya calls a friend to tell them that she has just found a bag
                            full of", "expected": "pretzels"}},
       ...]}

(shown wrapped; in the file each task is one line).

- `family` is "contents" (Unexpected Contents) or "transfer" (Unexpected Transfer).
- `key_words` are the two words the stories turn on, as they are in the original
  false-belief story: [true contents, label] or [new location, original location]. Their
  first words must differ: a completion is scored by its first word.
- `stories` holds a story for each of the family's four conditions
  contents: false_belief, open_container, correct_label, informed_protagonist;
  transfer: false_belief, present_protagonist, informed_protagonist, no_transfer;
  and, if wanted, for the contents perturbations transparent_container, cannot_read and
  own_label. Each condition may also have its reversed version, at most one of each.
- `reversed` (default false) marks a story whose key words are exchanged. A story
  without its reversed version gets one made by swapping the key words everywhere in its
  text, prompts and answers (whole words; a capitalised word stays capitalised).
- `expected` is the key word whose first word answers the prompt; a belief prompt may
  have null when neither key word is right (a protagonist who cannot read the label). A
  prompt's wrong answer is the other key word; for a null, the key word the false-belief
  story's belief prompt expects.
- `text` is split into sentences after ".", "!" or "?" for the sentence-by-sentence run.

Blank lines are ignored. `write_items` writes this format with every story present, and
`read_items` reads back exactly the items written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from tom_eval.errors import InputError, read_user_text
from tom_eval.false_belief.generation import split_sentences
from tom_eval.false_belief.items import (
    CONDITIONS,
    FAMILIES,
    PERTURBATIONS,
    Completion,
    Family,
    Item,
    PromptKind,
    Story,
    distinguishable,
    reverse,
    wrong_answer,
)
from tom_eval.files import write_atomically
from tom_eval.json_fields import JsonFields, load_json

# ---------------------------------------------------------------------------- writing


def item_fields(item: Item) -> dict[str, Any]:
    """One line of an item file."""
    return {
        "id": item.item_id,
        "family": item.family,
        "key_words": list(item.key_words),
        "stories": [
            {
                "condition": story.condition,
                "reversed": story.reversed,
                "text": story.text,
                **{
                    completion.kind: {"stem": completion.stem, "expected": completion.expected}
                    for completion in story.prompts
                },
            }
            for story in item.stories
        ],
    }


def write_items(path: Path, items: list[Item]) -> None:
    """Write atomically: the file appears complete or not at all."""
    lines = [json.dumps(item_fields(item), ensure_ascii=False) for item in items]
    write_atomically(path, "".join(f"{line}\n" for line in lines))


# ---------------------------------------------------------------------------- reading


ITEM_DIGEST = "item_file_sha256"
"""The eval metadata key of an item file's digest (of the items read, so a file given by
two paths, or re-saved, is one run): `tom-eval report` tells apart two files of one name
by it."""


def read_items(path: Path) -> list[Item]:
    """The items of an item file; anything malformed is one InputError naming the line."""
    text = read_user_text(path)
    items: list[Item] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        item = _item(where, load_json(line, where, one_line=True))
        if item.item_id in seen:
            raise InputError(f"{where}: item '{item.item_id}' appears twice")
        seen.add(item.item_id)
        items.append(item)
    if not items:
        raise InputError(f"{path}: no items")
    return items


def _item(where: str, data: Any) -> Item:
    fields = JsonFields(where, data)
    item_id = fields.text("id", blank=False)
    fields = JsonFields(f"{where} (item {item_id})", data)
    family = cast(Family, fields.choice("family", FAMILIES))
    key_words = fields.texts("key_words", blank=False)
    if len(key_words) != 2:
        fields.fail(f"'key_words' must list two words, got {len(key_words)}")
    first, second = key_words
    if not distinguishable(first, second):
        fields.fail(f"key words '{first}' and '{second}' cannot be told apart by a first word")
    stories = fields.array("stories", empty=False)
    conditions = CONDITIONS[family] + PERTURBATIONS[family]
    found: dict[tuple[str, bool], Story] = {}
    for index, story_data in enumerate(stories, 1):
        story = _story(
            JsonFields(f"{fields.where} story {index}", story_data), conditions, (first, second)
        )
        version = (story.condition, story.reversed)
        if version in found:
            fields.fail(f"story {index} repeats {_version_name(*version)}")
        found[version] = story
    missing = [condition for condition in CONDITIONS[family] if (condition, False) not in found]
    if missing:
        fields.fail(f"missing condition{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    for condition, reversed_ in list(found):
        if (condition, not reversed_) not in found:
            if reversed_:
                fields.fail(f"{_version_name(condition, True)} without its original")
            found[(condition, True)] = reverse(found[(condition, False)], (first, second))
    # Stories in the order of the conditions, each original before its reversal.
    ordered = sorted(found.items(), key=lambda entry: (conditions.index(entry[0][0]), entry[0][1]))
    return Item(item_id, family, (first, second), tuple(story for _, story in ordered))


def _version_name(condition: str, reversed_: bool) -> str:
    return f"{condition}{' (reversed)' if reversed_ else ''}"


def _story(fields: JsonFields, conditions: tuple[str, ...], key_words: tuple[str, str]) -> Story:
    condition = fields.choice("condition", conditions)
    reversed_ = fields.boolean("reversed", default=False)
    text = fields.text("text", blank=False)
    return Story(
        condition,
        reversed_,
        split_sentences(text),
        _completion(fields, "reality", key_words, reversed_),
        _completion(fields, "belief", key_words, reversed_),
    )


def _completion(
    story: JsonFields, kind: PromptKind, key_words: tuple[str, str], reversed_: bool
) -> Completion:
    fields = JsonFields(f"{story.where} {kind}", story.mapping(kind))
    stem = fields.text("stem", blank=False)
    expected = fields.get("expected")
    if expected not in key_words and not (kind == "belief" and expected is None):
        allowed = " or ".join(f"'{word}'" for word in key_words)
        fields.fail(
            f"'expected' must be {allowed}{' (or null)' if kind == 'belief' else ''},"
            f" got {expected!r}"
        )
    return Completion(kind, stem, expected, wrong_answer(key_words, expected, reversed_))
