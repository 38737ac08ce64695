"""Reading a completion: its first word, whether it names a key word, and the probability of
each key word from token log-probabilities or from sampled first words. Inspect-free."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def first_word(completion: str, stem: str = "") -> str | None:
    """The completion's first word, lower-case, without punctuation. A chat model that
    repeats the story's last words ("... full of popcorn") is read after them."""
    said = words(completion)
    tail = words(stem)[-3:]
    if tail:
        for start in range(len(said) - len(tail), -1, -1):
            if said[start : start + len(tail)] == tail:
                said = said[start + len(tail) :]
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


@dataclass(frozen=True, slots=True)
class KeyProbability:
    """P(key 1) and P(key 2) renormalised over the pair, and how they were estimated."""

    first: float
    second: float
    estimator: str
    """"logprobs" or "sampling"."""
    mass: float
    """The unnormalised probability of the two keys together (their share of all answers)."""


def from_logprobs(top: Sequence[tuple[str, float]], keys: tuple[str, str]) -> KeyProbability | None:
    """From the first answer token's top log-probabilities: a token counts for a key when it
    begins the key's first word and not the other's (a shared prefix tells nothing). None
    when no token begins either key."""
    targets = [key_first_word(key) for key in keys]
    mass = [0.0, 0.0]
    for token, logprob in top:
        piece = token.strip().lower()
        if not piece:
            continue
        hits = [index for index, target in enumerate(targets) if target.startswith(piece)]
        if len(hits) == 1:
            mass[hits[0]] += math.exp(logprob)
    total = sum(mass)
    if total == 0:
        return None
    return KeyProbability(mass[0] / total, mass[1] / total, "logprobs", total)


def from_samples(first_words: Sequence[str | None], keys: tuple[str, str]) -> KeyProbability:
    """From the first words of completions sampled at temperature 1."""
    counts = [sum(1 for word in first_words if names(word, key)) for key in keys]
    total = sum(counts)
    shares = (counts[0] / total, counts[1] / total) if total else (0.5, 0.5)
    return KeyProbability(*shares, "sampling", total / max(1, len(first_words)))
