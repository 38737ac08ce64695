"""The battery's items as immutable data: an item holds its stories (false-belief, three
controls, their reversals, optional perturbations), each story its two completion prompts
with the first words that answer them. Also the key-word helpers (counting, swapping,
reversing a story) that the generator and the item file share."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

Family = Literal["contents", "transfer"]
PromptKind = Literal["reality", "belief"]
FAMILIES: tuple[Family, ...] = ("contents", "transfer")
PROMPT_KINDS: tuple[PromptKind, ...] = ("reality", "belief")

CONDITIONS: dict[Family, tuple[str, ...]] = {
    "contents": ("false_belief", "open_container", "correct_label", "informed_protagonist"),
    "transfer": ("false_belief", "present_protagonist", "informed_protagonist", "no_transfer"),
}
"""The false-belief scenario and its three true-belief controls, per family (the paper's)."""
PERTURBATIONS: dict[Family, tuple[str, ...]] = {
    "contents": ("transparent_container", "cannot_read", "own_label"),
    "transfer": (),
}
"""Ullman-style trivial alterations of the false-belief story (an optional split)."""
ALL_CONDITIONS = tuple(dict.fromkeys(CONDITIONS["contents"] + CONDITIONS["transfer"]))
ALL_PERTURBATIONS = tuple(dict.fromkeys(PERTURBATIONS["contents"] + PERTURBATIONS["transfer"]))


@dataclass(frozen=True, slots=True)
class Completion:
    """One completion prompt: the stem appended to the story, and its answer.

    `expected` is the key word whose first word answers the prompt; None when no key word
    is right and only `wrong` is wrong (a protagonist who cannot read the label has no
    reason to name it)."""

    kind: PromptKind
    stem: str
    expected: str | None
    wrong: str


@dataclass(frozen=True, slots=True)
class Story:
    condition: str
    reversed: bool
    sentences: tuple[str, ...]
    reality: Completion
    belief: Completion

    @property
    def text(self) -> str:
        return " ".join(self.sentences)

    @property
    def prompts(self) -> tuple[Completion, Completion]:
        return (self.reality, self.belief)

    @property
    def perturbed(self) -> bool:
        return self.condition not in CONDITIONS["contents"] + CONDITIONS["transfer"]


@dataclass(frozen=True, slots=True)
class Item:
    """One task of the battery: solved only if every prompt of its eight standard stories
    (16 prompts) is answered right."""

    item_id: str
    family: Family
    key_words: tuple[str, str]
    """The two words the stories turn on, in the original (not reversed) false-belief
    story: (true contents, label) or (new location, original location)."""
    stories: tuple[Story, ...]

    @property
    def standard(self) -> tuple[Story, ...]:
        return tuple(story for story in self.stories if not story.perturbed)

    @property
    def perturbations(self) -> tuple[Story, ...]:
        return tuple(story for story in self.stories if story.perturbed)


# ---------------------------------------------------------------------------- key words


@lru_cache(maxsize=1024)
def _key_pattern(*keys: str) -> re.Pattern[str]:
    """Whole-word, case-insensitive occurrences of any of `keys` (longest first, so a
    phrase is never matched by a shorter key inside it)."""
    alternatives = "|".join(re.escape(key) for key in sorted(keys, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def mentions(text: str, key: str) -> int:
    """How often `key` occurs in `text` as a whole phrase, whatever its case."""
    return len(_key_pattern(key).findall(text))


def swap_key_words(text: str, key_words: tuple[str, str]) -> str:
    """`text` with each key word replaced by the other, whole-word; a capitalised
    occurrence gets a capitalised replacement."""
    first, second = key_words

    def other(match: re.Match[str]) -> str:
        found = match.group(0)
        replacement = second if found.casefold() == first.casefold() else first
        return replacement[:1].upper() + replacement[1:] if found[:1].isupper() else replacement

    return _key_pattern(first, second).sub(other, text)


def distinguishable(first: str, second: str) -> bool:
    """Whether two key words can be told apart by a completion's first word (a plural
    names its singular, so those clash too), and counted and swapped apart (neither occurs
    inside the other)."""
    one, two = first.split()[0].lower(), second.split()[0].lower()
    if one == two or one in (f"{two}s", f"{two}es") or two in (f"{one}s", f"{one}es"):
        return False
    return not (mentions(first, second) or mentions(second, first))


def wrong_answer(key_words: tuple[str, str], expected: str | None, reversed_: bool) -> str:
    """The key word that is wrong for a prompt: the other one; when no key word is right,
    the one the false-belief story's belief prompt expects (what a protagonist who reads
    the label would say)."""
    if expected is not None:
        return key_words[1] if expected == key_words[0] else key_words[0]
    return key_words[0] if reversed_ else key_words[1]


def reverse(story: Story, key_words: tuple[str, str]) -> Story:
    """The story's reversal: the key words swapped everywhere, answers included."""

    def swapped(completion: Completion) -> Completion:
        expected = (
            None if completion.expected is None else swap_key_words(completion.expected, key_words)
        )
        return Completion(
            completion.kind,
            swap_key_words(completion.stem, key_words),
            expected,
            wrong_answer(key_words, expected, not story.reversed),
        )

    return replace(
        story,
        reversed=not story.reversed,
        sentences=tuple(swap_key_words(sentence, key_words) for sentence in story.sentences),
        reality=swapped(story.reality),
        belief=swapped(story.belief),
    )
