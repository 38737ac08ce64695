"""The coherence solver: each item's distribution over its answers, by one of two
estimators (`-T estimator=`), recorded with the item.

* `logprobs`: one reply at temperature 0 with the JSON schema as the response format and
  the top log-probabilities of each token; then every answer is scored exactly by the chain
  rule over its fields (`reading`), asking for one-token continuations of the reply text
  where the reply's own log-probabilities do not reach (the reply is prefilled as the
  assistant's message, which providers that continue a final assistant message, such as
  llama.cpp's server, honour). When the provider returns no log-probabilities, or none of
  an allowed value, the item falls back to sampling, and says so.
* `sampling`: K replies at temperature 1 (`-T samples=K`), each with its own seed and never
  from the cache; the distribution is the share of replies giving each answer, over the
  replies that give one. Replies that give none are counted.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprobs,
    Model,
    ModelOutput,
    ResponseSchema,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema, StoreModel, collect, store_as

from tom_eval.coherence.parsing import (
    DEFAULT_FLOOR,
    Reading,
    canonical_template,
    locate,
    parse_answer,
    read_distribution,
)
from tom_eval.coherence.prompts import fields, schema
from tom_eval.coherence.worlds import Item, find_item
from tom_eval.json_fields import READ_ERRORS
from tom_eval.probabilities import from_logprob

Estimator = Literal["logprobs", "sampling"]
ESTIMATORS: tuple[Estimator, ...] = ("logprobs", "sampling")
TOP_LOGPROBS = 20
CONTINUATION_TOKENS = 3
"""Tokens asked for per continuation: the first is what the walk needs; the next ones,
along the likely path, often answer its next question for free."""


class CoherenceRecord(StoreModel):
    """What the solver read for the item."""

    distribution: dict[str, float] | None = None
    estimator: Estimator | Literal[""] = ""
    reply: str = ""
    reply_answer: str | None = None
    """The answer the (first) reply gives; None when it gives none."""
    template: str | None = None
    unexpanded: float | None = None
    value_mass: float | None = None
    continuations: int = 0
    draws: int = 0
    answered_draws: int = 0


@solver
def infer_distribution(
    estimator: Estimator = "logprobs", samples: int = 100, floor: float = DEFAULT_FLOOR
) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        item = find_item(str(state.metadata["item_id"]))
        record = store_as(CoherenceRecord)
        output: ModelOutput | None = None
        reading: Reading | None = None
        if estimator == "logprobs":
            config = _schema_config(item).merge(
                GenerateConfig(temperature=0.0, logprobs=True, top_logprobs=TOP_LOGPROBS)
            )
            output = await model.generate(state.messages, config=config)
            reading = await _read(model, state.messages, item, output, floor, record)
        if reading is not None:
            record.estimator = "logprobs"
            record.distribution = reading.distribution
            record.template = reading.template.source
            record.unexpanded = reading.unexpanded
            record.value_mass = reading.value_mass
        else:
            record.estimator = "sampling"
            draws = await collect(
                *(_draw(model, state.messages, item, index) for index in range(samples))
            )
            output = output or draws[0]
            given = [answer for draw in draws if (answer := reply_answer(item, draw))]
            record.draws, record.answered_draws = len(draws), len(given)
            counts = Counter(given)
            record.distribution = (
                {answer: counts[answer] / len(given) for answer in counts} if given else None
            )
        assert output is not None, "the task asks for one draw or more"
        record.reply = output.completion
        record.reply_answer = reply_answer(item, output)
        state.output = output
        if output.choices:  # a provider's output may hold none: an empty reply, counted
            state.messages.append(output.message)
        return state

    return solve


def _schema_config(item: Item) -> GenerateConfig:
    answer_schema = JSONSchema.model_validate(schema(item.domain, item.task))
    return GenerateConfig(response_schema=ResponseSchema(name="answer", json_schema=answer_schema))


async def _draw(model: Model, messages: list[ChatMessage], item: Item, index: int) -> ModelOutput:
    """One reply at temperature 1, never from the cache, with its own seed (the same for a
    rerun, where the provider honours seeds; never the same for two draws)."""
    config = _schema_config(item).merge(GenerateConfig(temperature=1.0, seed=index))
    return await model.generate(messages, config=config, cache=False)


def reply_answer(item: Item, output: ModelOutput) -> str | None:
    """The item's answer a reply gives: the JSON object in it (a fenced block counts),
    parsed against the schema; None when there is none."""
    text = output.completion
    start, end = text.find("{"), text.rfind("}")
    try:
        document = json.loads(text[start : end + 1]) if 0 <= start < end else None
        return parse_answer(item, document) if isinstance(document, dict) else None
    except READ_ERRORS:  # not JSON, too deep or a number too long: no answer, counted
        return None


async def _read(
    model: Model,
    messages: list[ChatMessage],
    item: Item,
    output: ModelOutput,
    floor: float,
    record: CoherenceRecord,
) -> Reading | None:
    logprobs = output.choices[0].logprobs if output.choices else None
    if logprobs is None or not logprobs.content:
        return None
    continuations = Continuations(model, messages)
    continuations.learn("", logprobs)
    template = locate(output.completion, fields(item.domain, item.task))
    reading = await read_distribution(
        item, template or canonical_template(item), continuations, floor
    )
    record.continuations = continuations.asked
    return reading


class Continuations:
    """Next-token probabilities after reply text: from the log-probabilities already
    returned along a reply, else from a continuation of the text prefilled as the
    assistant's message. Each text is asked for once, even by concurrent walks."""

    def __init__(self, model: Model, messages: list[ChatMessage]) -> None:
        self.model = model
        self.messages = messages
        self.known: dict[str, dict[str, float]] = {}
        self.pending: dict[str, asyncio.Future[dict[str, float]]] = {}
        self.asked = 0

    def learn(self, text: str, logprobs: Logprobs) -> None:
        """Record the top tokens at every position of a reply that follows `text`; the
        token chosen counts too (a schema-enforcing provider may choose outside the top)."""
        for step in logprobs.content:
            top = {
                candidate.token: from_logprob(candidate.logprob)
                for candidate in step.top_logprobs or []
            }
            self.known.setdefault(text, top | {step.token: from_logprob(step.logprob)})
            text += step.token

    async def __call__(self, text: str) -> Mapping[str, float]:
        if text in self.known:
            return self.known[text]
        if text not in self.pending:
            self.pending[text] = asyncio.ensure_future(self._ask(text))
        return await self.pending[text]

    async def _ask(self, text: str) -> dict[str, float]:
        self.asked += 1
        config = GenerateConfig(
            temperature=0.0,
            max_tokens=CONTINUATION_TOKENS,
            logprobs=True,
            top_logprobs=TOP_LOGPROBS,
        )
        prefilled = [*self.messages, ChatMessageAssistant(content=text)]
        output = await self.model.generate(prefilled, config=config)
        logprobs = output.choices[0].logprobs if output.choices else None
        if logprobs is not None:
            self.learn(text, logprobs)
        return self.known.get(text, {})
