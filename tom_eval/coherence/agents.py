"""The reference agents as language models: each answers an item with a distribution over
its answers (the rational agent's forward model and exact inversion, or seeded random
distributions) and spells every answer as JSON text in word-sized tokens, so that it has
exact next-token probabilities to give after any reply text, as a provider's top
log-probabilities do. The Inspect providers (`players`) serve these."""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from math import fsum
from typing import Literal

from tom_eval.coherence.parsing import canonical_template
from tom_eval.coherence.prompts import answer_fields, fields, user_prompt
from tom_eval.coherence.rational import rational_answers
from tom_eval.coherence.worlds import DOMAINS, TASKS, Domain, Item, answers, items

Policy = Literal["rational", "random-agent"]
POLICIES: tuple[Policy, ...] = ("rational", "random-agent")
TOKEN = re.compile(r" ?\w+|\s+|[^\w\s]")
"""Words with their leading space, runs of white space, and single punctuation marks: so
"apples and oranges" takes three tokens, and "apples" begins it."""


@cache
def item_of_prompt() -> dict[str, Item]:
    """Every item of both domains by its user prompt (the prompts are all different)."""
    return {
        user_prompt(item): item
        for domain in DOMAINS
        for task in TASKS
        for item in items(domain, task)
    }


@cache
def _rational(domain: Domain) -> dict[str, dict[str, float]]:
    return rational_answers(domain)


def distribution(policy: Policy, item: Item, seed: int) -> dict[str, float]:
    """The agent's answer: the rational agent's (its forward model, or its exact inversion
    with a uniform prior), or weights drawn uniformly at random for each answer, seeded by
    the seed and the item (so every run and machine draws the same)."""
    if policy == "rational":
        return dict(_rational(item.domain)[item.item_id])  # a copy: the memo's stays intact
    digest = hashlib.sha256(f"{seed}:{item.item_id}".encode()).hexdigest()
    rng = random.Random(digest)
    weights = [rng.random() for _ in answers(item)]
    total = fsum(weights)
    return {answer: weight / total for answer, weight in zip(answers(item), weights, strict=True)}


@dataclass(frozen=True, slots=True)
class AnswerText:
    """A language model over one item's answer texts: each answer's JSON text, in tokens,
    with the answer's probability."""

    spellings: tuple[tuple[tuple[str, ...], float], ...]

    @classmethod
    def of(cls, item: Item, answer_distribution: Mapping[str, float]) -> AnswerText:
        template = canonical_template(item)
        names = [field.name for field in fields(item.domain, item.task)]
        spellings = []
        for answer in answers(item):
            values = [answer_fields(item, answer)[name] for name in names]
            spelled = tuple(TOKEN.findall(template.before(values)))
            spellings.append((spelled, answer_distribution.get(answer, 0.0)))
        return cls(tuple(spellings))

    def next_tokens(self, text: str) -> dict[str, float]:
        """P(next token | text so far), over the answers that spell `text` in whole tokens;
        empty once an answer is complete or when no answer begins so."""
        weights: dict[str, float] = defaultdict(float)
        for tokens, probability in self.spellings:
            spelled = ""
            for token in tokens:
                if spelled == text:
                    weights[token] += probability
                    break
                spelled += token
                if len(spelled) > len(text):
                    break
        total = fsum(weights.values())
        if total <= 0:
            return {}
        return {token: weight / total for token, weight in weights.items()}
