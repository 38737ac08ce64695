"""The Act-on-Known files as typed records, each checked as it is read: a file that is not
JSON or lacks a field stops the run with one line naming it.

Known quirks of the data (commit ffae95d), handled here:
* The erroneous stories are not index-aligned with the originals (erroneous_story_7 is not
  story_7 rewritten): the two are never paired by number. An erroneous story's original is
  found by its opening words instead (`base_story`, None when no single original matches),
  and gives it a genre when the file has none.
* The gold error span is the text the file's `erroneous_event` wraps in error tags (see
  `gold_span`), since in a few files the `error` field is not a verbatim part of the story;
  the `error` field is the fallback. One file has an empty `error` field and malformed tags:
  with neither a tagged span nor an error text, a story has no gold span and is left out of
  localisation (it is still classified).
* The story's mention of the implausible knowledge does not always come before the
  erroneous event: in the full data it follows the event in 199 stories, precedes it in
  115, overlaps it in 8 and is nowhere verbatim in the story in 178 (it says the same in
  other words). `knowledge_place` records which, so ablation 2 can say so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tom_eval.errors import InputError, read_user_text
from tom_eval.json_fields import READ_ERRORS, JsonFields, json_problem
from tom_eval.knowledge.parsing import words
from tom_eval.knowledge.source import (
    ERROR_FILES,
    IKD,
    KNP,
    KNP_FILES,
    ORIGINAL_FILES,
    Folder,
    data_root,
)

UNKNOWN_GENRE = "unknown"
KnowledgePlace = Literal["before", "after", "overlapping", "in_story", "not_verbatim"]
OPENING = 12
"""How many opening words identify an erroneous story's original (edits are mostly one
sentence in the middle of a story of about 600 words)."""


@dataclass(frozen=True)
class KnpItem:
    number: int
    genre: str
    story: str
    character: str
    implausible_knowledge: str
    question: str
    answer_with_knowledge: str
    answer_without_knowledge: str
    """The right answer: what the character does without the knowledge they cannot have."""


@dataclass(frozen=True)
class OriginalStory:
    number: int
    genre: str
    story: str


@dataclass(frozen=True)
class ErrorStory:
    number: int
    genre: str
    story: str
    character: str
    implausible_knowledge: str
    """The story's mention of the knowledge the character cannot have."""
    event: str
    """The erroneous event (a paragraph of the story), without its error tags."""
    gold: str
    """The error span localisation is scored against ('' when the file gives none)."""
    gold_source: str
    """Where `gold` comes from: tagged, error_field, tagged_not_verbatim,
    error_field_not_verbatim or none (see `gold_span`)."""
    base_story: int | None
    knowledge_place: KnowledgePlace
    """Where `implausible_knowledge` stands in the story relative to the erroneous event
    (see `knowledge_place`)."""


Duplicates = dict[str, str]
"""A file whose record repeats an earlier file's (by number) -> that earlier file."""


@dataclass(frozen=True)
class KnpData:
    items: list[KnpItem]
    """Distinct items: a repeated record is read once."""
    duplicates: Duplicates


@dataclass(frozen=True)
class IkdData:
    originals: list[OriginalStory]
    errors: list[ErrorStory]
    duplicates: Duplicates


def read_knp(root: Path, origin: str) -> KnpData:
    """The KNP items of the data under `root` (`origin` names it in errors); any
    malformed record is one InputError naming file and line."""
    items = []
    records, duplicates = _records(root, origin, KNP_FILES)
    for number, fields in records:
        item = KnpItem(
            number,
            fields.text("genre", blank=False),
            fields.text("story", blank=False),
            fields.text("character", blank=False),
            fields.text("implausible_knowledge", blank=False),
            fields.text("question", blank=False),
            fields.text("answer_with_knowledge", blank=False),
            fields.text("answer_without_knowledge", blank=False),
        )
        if words(item.answer_with_knowledge) == words(item.answer_without_knowledge):
            fields.fail("the two answers are the same")
        items.append(item)
    return KnpData(items, duplicates)


def read_ikd(root: Path, origin: str) -> IkdData:
    """The IKD data under `root`: the original stories, and the stories with an implausible
    event, each matched to its original by its opening; any malformed record is one
    InputError naming file and line."""
    original_records, duplicates = _records(root, origin, ORIGINAL_FILES)
    originals = [
        OriginalStory(number, fields.text("genre", blank=False), fields.text("story", blank=False))
        for number, fields in original_records
    ]
    by_opening = _openings(originals)
    errors = []
    error_records, repeated_errors = _records(root, origin, ERROR_FILES)
    for number, fields in error_records:
        story = fields.text("story", blank=False)
        tagged_event = fields.text("erroneous_event", blank=False)
        error = fields.get("error")
        if not isinstance(error, str):
            fields.fail(f"'error' must be a string, got {error!r}")
        gold, source = gold_span(story, tagged_event, error)
        base = by_opening.get(_opening(story))
        knowledge = fields.text("implausible_knowledge", blank=False)
        event = untagged(tagged_event)
        errors.append(
            ErrorStory(
                number,
                _genre(fields, base),
                story,
                fields.text("character", blank=False),
                knowledge,
                event,
                gold,
                source,
                None if base is None else base.number,
                knowledge_place(story, knowledge, event, gold),
            )
        )
    return IkdData(originals, errors, duplicates | repeated_errors)


def _records(
    root: Path, origin: str, folder: Folder
) -> tuple[list[tuple[int, JsonFields]], Duplicates]:
    """The folder's records in number order, each distinct record once, and the files left
    out as repeats of an earlier one."""
    files = folder.files(root)
    if not files:
        raise InputError(f"{origin}: no {folder.path}/{folder.prefix}N.json files")
    records: list[tuple[int, JsonFields]] = []
    first_of: dict[str, int] = {}
    duplicates: Duplicates = {}
    for number, path in files:
        fields = _fields(path, f"{origin}/{folder.name(number)}")
        content = json.dumps(fields.data, sort_keys=True)
        if content in first_of:
            duplicates[folder.name(number)] = folder.name(first_of[content])
            continue
        first_of[content] = number
        records.append((number, fields))
    return records, duplicates


def _fields(path: Path, where: str) -> JsonFields:
    text = read_user_text(path, where)
    try:
        return JsonFields(where, json.loads(text))
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not JSON ({error.msg}, line {error.lineno})") from None
    except READ_ERRORS as error:
        raise InputError(f"{where}: {json_problem(error)}") from None


def _genre(fields: JsonFields, base: OriginalStory | None) -> str:
    if "genre" in fields.data:
        return fields.text("genre", blank=False)
    return UNKNOWN_GENRE if base is None else base.genre


def _opening(story: str) -> tuple[str, ...]:
    return tuple(words(story)[:OPENING])


def _openings(originals: Sequence[OriginalStory]) -> dict[tuple[str, ...], OriginalStory]:
    """Originals by opening words, leaving out openings two originals share."""
    found: dict[tuple[str, ...], list[OriginalStory]] = {}
    for original in originals:
        found.setdefault(_opening(original.story), []).append(original)
    return {opening: stories[0] for opening, stories in found.items() if len(stories) == 1}


TAG_NAMES = "error|modified"
"""The files mark the error with error tags; the authors' construction prompt (seed Table 6)
asked for `modified` tags, accepted too."""
_SPAN = re.compile(rf"<\s*({TAG_NAMES})\s*>(.*?)<\s*/?\s*\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(rf"<\s*/?\s*(?:{TAG_NAMES})\s*/?\s*>", re.IGNORECASE)


def tagged_spans(event: str) -> list[str]:
    """The tagged parts of an event; a closing tag without its slash (`<error>...<error>`)
    still closes the span."""
    return [
        " ".join(text.split())
        for _, text in _SPAN.findall(event)
        if text.strip() and not _TAG.search(text)
    ]


def untagged(event: str) -> str:
    return " ".join(_TAG.sub("", event).split())


def gold_span(story: str, event: str, error: str) -> tuple[str, str]:
    """(span, source). In order: the tagged spans when they stand verbatim in the story
    (white space aside); the error field when it does; the tagged spans anyway; the error
    field anyway; nothing."""
    text = " ".join(story.split())
    spans = tagged_spans(event)
    error = " ".join(error.split())
    if spans and all(span in text for span in spans):
        return " ".join(spans), "tagged"
    if error and error in text:
        return error, "error_field"
    if spans:
        return " ".join(spans), "tagged_not_verbatim"
    if error:
        return error, "error_field_not_verbatim"
    return "", "none"


def knowledge_place(story: str, knowledge: str, event: str, gold: str) -> KnowledgePlace:
    """Where the knowledge stands in the story relative to the erroneous event (or to the
    gold span, when the event is not verbatim in the story): before it, after it, or
    overlapping it; "in_story" when the error cannot be found to compare; "not_verbatim"
    when the knowledge is nowhere in the story (white space, case and curly quotes aside)."""
    text = _comparable(story)
    found = _span(text, knowledge)
    if found is None:
        return "not_verbatim"
    error = _span(text, event) or _span(text, gold)
    if error is None:
        return "in_story"
    if found[1] <= error[0]:
        return "before"
    if found[0] >= error[1]:
        return "after"
    return "overlapping"


def _comparable(text: str) -> str:
    straight = text.translate(str.maketrans("\u2018\u2019\u201c\u201d", "''\"\""))
    return " ".join(straight.split()).lower()


def _span(text: str, part: str) -> tuple[int, int] | None:
    wanted = _comparable(part).rstrip(".")
    start = text.find(wanted) if wanted else -1
    return None if start < 0 else (start, start + len(wanted))


def load_knp(data_dir: Path | None) -> tuple[KnpData, str]:
    """The KNP items and where they were read from."""
    root, origin = data_root(KNP, data_dir, read_knp)
    return read_knp(root, origin), origin


def load_ikd(data_dir: Path | None) -> tuple[IkdData, str]:
    """The IKD stories and where they were read from."""
    root, origin = data_root(IKD, data_dir, read_ikd)
    return read_ikd(root, origin), origin
