"""Reading a model's distribution over an item's answers from next-token probabilities,
scoring every complete answer exactly (the paper read only each value's first token, and
says so).

An answer is JSON text whose field values are the schema's enums. Its text is cut at the
values into a `Template`: fixed segments (keys, braces, quotes, the model's own spacing)
around the values. The probability of an answer is the chain-rule product, field by field,
of the probability that the value's text and its closing quote follow the text before it:

    P(answer) = prod_k P(value_k + '"' | segments and values before field k)

and the distribution is that product renormalised over the item's answers (so values
outside a field's enum, and answers outside the item, such as disliking both kinds, drop
out). A value of several tokens, or one whose text begins another value ("apples" and
"apples and oranges"), is scored by walking the tokens: at each point the next-token
probabilities are asked for (`NextTokens`, in practice a one-token continuation of the
text so far, prefilled as the assistant's reply), and every token that keeps to some
value's text is followed, so a value's probability sums over every way of spelling it in
tokens ("apples" or "apple" + "s"). Only the top tokens a provider returns are seen; a
branch whose probability falls below `floor` is not expanded, and the largest such mass is
reported as `unexpanded`.

The structural text between values (`", "oranges": "`) is taken as given: a provider that
enforces the JSON schema gives it probability 1.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from math import fsum, prod
from typing import Literal

from tom_eval.coherence.prompts import Field, answer_fields, fields
from tom_eval.coherence.worlds import Item, answers

NextTokens = Callable[[str], Awaitable[Mapping[str, float]]]
"""The probabilities of the next tokens (the top ones a provider returns) after the
reply text so far."""

CLOSING_QUOTE = '"'
DEFAULT_FLOOR = 1e-3


@dataclass(frozen=True, slots=True)
class Template:
    """An answer's text cut at its field values: ``segments[0] value_0 segments[1] value_1
    ... segments[n]``, one value per field in the schema's order. `source` says whether the
    text is the model's own reply or a canonical rendering (when the reply is no answer)."""

    segments: tuple[str, ...]
    source: Literal["reply", "canonical"]

    def before(self, values: Sequence[str]) -> str:
        """The text up to (and with) the opening quote of the field after `values`; given
        every field's value, the whole answer."""
        pieces = (segment + value for segment, value in zip(self.segments, values, strict=False))
        return "".join(pieces) + self.segments[len(values)]


@dataclass(frozen=True, slots=True)
class Reading:
    """An item's distribution over its answers, and how it was read."""

    distribution: dict[str, float]
    template: Template
    unexpanded: float
    """The largest probability of a token path not followed (below the floor)."""
    value_mass: float
    """The smallest total probability, over the field reads, of the values the field
    allows: near 1 for a model that keeps to the schema, near 0 for a provider that does
    not continue a prefilled reply (its tokens then name no value)."""


def locate(text: str, schema_fields: Sequence[Field]) -> Template | None:
    """The template of a JSON answer whose fields appear in the schema's order, each value
    one of its enum; None otherwise."""
    segments: list[str] = []
    position, cut = 0, 0
    open_parents: tuple[str, ...] = ()
    for field in schema_fields:
        *parents, leaf = field.path
        shared = 0
        while shared < min(len(parents), len(open_parents)) and (
            parents[shared] == open_parents[shared]
        ):
            shared += 1
        for parent in parents[shared:]:
            match = re.compile(rf'"{re.escape(parent)}"\s*:\s*\{{').search(text, position)
            if match is None:
                return None
            position = match.end()
        open_parents = tuple(parents)
        match = re.compile(rf'"{re.escape(leaf)}"\s*:\s*"').search(text, position)
        if match is None:
            return None
        end = text.find(CLOSING_QUOTE, match.end())
        if end < 0 or text[match.end() : end] not in field.values:
            return None
        segments.append(text[cut : match.end()])
        position = cut = end
    segments.append(text[cut:])
    return Template(tuple(segments), "reply")


def canonical_template(item: Item) -> Template:
    """The template of the item's answers rendered as indented JSON."""
    schema_fields = fields(item.domain, item.task)
    document: dict[str, object] = {}
    for field in schema_fields:
        *parents, leaf = field.path
        node = document
        for parent in parents:
            child = node.setdefault(parent, {})
            assert isinstance(child, dict)
            node = child
        node[leaf] = field.values[0]
    template = locate(json.dumps(document, indent=2), schema_fields)
    assert template is not None, "a rendered answer has every field"
    return Template(template.segments, "canonical")


async def value_probabilities(
    before: str, values: Sequence[str], next_tokens: NextTokens, floor: float = DEFAULT_FLOOR
) -> tuple[dict[str, float], float]:
    """P(value + closing quote | before) for each value, and the largest unexpanded mass.
    Tokens that leave every value's text are mass outside the values, dropped here."""
    targets = {value: value + CLOSING_QUOTE for value in values}
    found = dict.fromkeys(values, 0.0)
    unexpanded = [0.0]

    async def walk(spelled: str, mass: float) -> None:
        branches: list[Awaitable[None]] = []
        for token, probability in (await next_tokens(before + spelled)).items():
            reached, weight = spelled + token, mass * probability
            done = [v for v, target in targets.items() if token and reached.startswith(target)]
            if done:
                found[done[0]] += weight
            elif token and any(target.startswith(reached) for target in targets.values()):
                if weight >= floor:
                    branches.append(walk(reached, weight))
                else:
                    unexpanded[0] = max(unexpanded[0], weight)
        await asyncio.gather(*branches)

    await walk("", 1.0)
    return found, unexpanded[0]


async def read_distribution(
    item: Item, template: Template, next_tokens: NextTokens, floor: float = DEFAULT_FLOOR
) -> Reading | None:
    """The item's distribution over its answers by the chain rule over its fields (module
    docstring); None when no answer has any probability. Each field is read once per
    distinct run of values before it (BDI: 1 + 2 + 4 + 12 reads), concurrently."""
    names = [field.name for field in fields(item.domain, item.task)]
    spelled = {
        answer: tuple(answer_fields(item, answer)[name] for name in names)
        for answer in answers(item)
    }
    # Each run of earlier values and the values that may follow it.
    following: dict[tuple[str, ...], list[str]] = {}
    for values in spelled.values():
        for k in range(len(values)):
            choices = following.setdefault(values[:k], [])
            if values[k] not in choices:
                choices.append(values[k])
    runs = list(following)
    readings = await asyncio.gather(
        *(
            value_probabilities(template.before(run), following[run], next_tokens, floor)
            for run in runs
        )
    )
    probability = dict(zip(runs, (found for found, _ in readings), strict=True))
    weights = {
        answer: prod(probability[values[:k]][values[k]] for k in range(len(values)))
        for answer, values in spelled.items()
    }
    total = fsum(weights.values())
    if total <= 0:
        return None
    return Reading(
        distribution={answer: weight / total for answer, weight in weights.items()},
        template=template,
        unexpanded=max(unexpanded for _, unexpanded in readings),
        value_mass=min(fsum(found.values()) for found, _ in readings),
    )


def parse_answer(item: Item, document: Mapping[str, object]) -> str:
    """The answer key of a model's parsed JSON answer. Raises ValueError when a field is
    missing or off its enum, or when the fields form no answer of the item (a DI answer
    that dislikes both kinds)."""
    given: dict[str, object] = {}
    for field in fields(item.domain, item.task):
        node: object = document
        for step in field.path:
            if not isinstance(node, Mapping) or step not in node:
                raise ValueError(f"the answer has no {field.name}")
            node = node[step]
        if node not in field.values:
            raise ValueError(f"{field.name} is {node!r}, not one of {list(field.values)}")
        given[field.name] = node
    for answer in answers(item):
        if answer_fields(item, answer) == given:
            return answer
    raise ValueError(f"{given} is no answer of {item.item_id}")
