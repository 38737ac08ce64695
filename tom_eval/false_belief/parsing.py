"""Reading a completion: its first word, whether it names a key word, and the probability of
each key word from token log-probabilities or from sampled first words. Inspect-free."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tom_eval.probabilities import from_logprob

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def first_word(completion: str, prompt: str = "") -> str | None:
    """The completion's first word, lower-case, without punctuation. A chat model that
    opens by echoing the end of the prompt, however short ("... full of popcorn", "of
    popcorn", "the basket" after "in the"), is read after the echo: a stem names no key
    word (`generation.verify`), so the echo of its end is never the answer. A later
    repetition of the prompt's words is not an echo."""
    said, asked = words(completion), words(prompt)
    for length in range(min(len(said), len(asked)), 0, -1):
        if said[:length] == asked[-length:]:
            said = said[length:]
            break
    return said[0] if said else None


def key_first_word(key: str) -> str:
    """A key's first word: "apple juice" is answered by "apple" (Kosinski scored first words)."""
    found = words(key)
    return found[0] if found else key.lower()


def names(word: str | None, key: str) -> bool:
    """Whether a first word names a key word: the same word, or its plural."""
    if word is None:
        return False
    target = key_first_word(key)
    return word in (target, f"{target}s", f"{target}es")


def correct(word: str | None, expected: str | None, wrong: str) -> bool:
    """Right if the word names the expected key; with no expected key, if it does not
    name the wrong one (and is a word at all)."""
    if expected is not None:
        return names(word, expected)
    return word is not None and not names(word, wrong)


def on_key(word: str | None, expected: str | None, wrong: str) -> bool:
    """Whether a first word is an answer the battery can score as meant: it names one of
    the two key words, or, where no key is expected (a protagonist who cannot read), it is
    a word at all. A reply off key is scored wrong, as in the paper, and counted apart."""
    if expected is None:
        return word is not None
    return names(word, expected) or names(word, wrong)


@dataclass(frozen=True, slots=True)
class KeyProbability:
    """P(key 1) and P(key 2) renormalised over the pair, and how they were estimated."""

    first: float
    second: float
    estimator: Literal["logprobs", "sampling"]
    mass: float
    """The unnormalised probability of the two keys together (their share of all answers)."""


def from_logprobs(top: Sequence[tuple[str, float]], keys: tuple[str, str]) -> KeyProbability | None:
    """From the first answer token's top log-probabilities. A token counts for a key when
    it names the key (`names`: the word or its plural) or is a piece of at least three
    letters that begins the key's first word, and not for both keys (an article such as
    "a" or a shared prefix tells nothing). None when no token counts for either key."""
    targets = [key_first_word(key) for key in keys]
    mass = [0.0, 0.0]
    for token, logprob in top:
        piece = token.strip().lower()
        hits = [
            index
            for index, target in enumerate(targets)
            if names(piece, keys[index]) or (len(piece) >= PIECE and target.startswith(piece))
        ]
        if len(hits) == 1:
            mass[hits[0]] += from_logprob(logprob)
    total = sum(mass)
    if total == 0:
        return None
    return KeyProbability(mass[0] / total, mass[1] / total, "logprobs", total)


PIECE = 3
"""The shortest token that counts as the beginning of a key word."""


def from_samples(first_words: Sequence[str | None], keys: tuple[str, str]) -> KeyProbability | None:
    """From the first words of completions sampled at temperature 1; None when no sample
    names either key (no estimate, rather than an even split)."""
    counts = [sum(1 for word in first_words if names(word, key)) for key in keys]
    total = sum(counts)
    if total == 0:
        return None
    return KeyProbability(
        counts[0] / total, counts[1] / total, "sampling", total / len(first_words)
    )
