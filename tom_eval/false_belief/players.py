"""Reference players of the false-belief battery (`--model tom/belief-oracle`,
`--model tom/reality-biased`), so tests and the docs can state exact values.

* `belief-oracle` completes every prompt with the key word that answers it;
* `reality-biased` always names the true state (the reality prompt's answer of the same
  story): it passes the reality prompts and every true-belief control, and fails exactly
  the false-belief stories' belief prompts, so it solves no task.

An oracle of a fixed battery knows the key: they look the prompt up in the running sample's
metadata (and refuse a prompt that is not there). They put probability `-M confidence=`
(default 0.9) on their answer: with `logprobs` requested they return the first token's top
log-probabilities, and at temperature 1 they name the other key word with the rest.
`-M logprobs=false` withholds log-probabilities, as providers such as Anthropic's do.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig, Logprob, Logprobs, TopLogprob

from tom_eval.false_belief.parsing import key_first_word
from tom_eval.providers.base import Arg, LocalProvider, Reply, number, yes_no

POLICIES = ("belief-oracle", "reality-biased")


def _other(record: dict[str, Any], keys: list[str]) -> str:
    wrong = str(record["wrong"])
    return next(key for key in keys if key != wrong)


def answer_of(
    policy: str, record: dict[str, Any], records: list[dict[str, Any]], keys: list[str]
) -> str:
    """The key word a policy names for a prompt record of the sample."""
    if policy == "belief-oracle":
        return str(record["expected"]) if record["expected"] is not None else _other(record, keys)
    reality = next(
        r
        for r in records
        if r["story"] == record["story"]
        and r["kind"] == "reality"
        and r.get("step") == record.get("step")
    )
    return str(reality["expected"])


class FalseBeliefPlayer(LocalProvider):
    """`tom/belief-oracle`, `tom/reality-biased`; model args: `confidence`, `logprobs`."""

    PLAYS = ("false_belief",)
    ARGS: ClassVar[Mapping[str, Arg]] = {
        "confidence": Arg(0.9, number, lambda value: 0.5 < value < 1, rule="above 0.5 and below 1"),
        "logprobs": Arg(True, yes_no),
    }
    confidence: float
    logprobs: bool

    def setup(self) -> None:
        self.calls = 0

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        active = sample_active()
        metadata = (active.sample.metadata or {}) if active else {}
        if "key_words" not in metadata:  # not a sample of the battery
            raise self.unplayable()
        records = list(metadata.get("prompts", [])) + list(metadata.get("steps", []))
        prompt = input[-1].text
        record = next((r for r in records if r["prompt"] == prompt), None)
        if record is None:
            raise RuntimeError(f"{self.name}: not a prompt of the running sample")
        keys = [str(key) for key in metadata["key_words"]]
        answer = answer_of(self.model_name, record, records, keys)
        other = next(key for key in keys if key != answer)
        said = answer
        if (config.temperature or 0) > 0:
            # The draw's seed (the solver gives each its own) makes a run reproducible.
            self.calls += 1
            draw = self.calls if config.seed is None else config.seed
            digest = hashlib.sha256(f"{prompt}:{draw}".encode()).hexdigest()
            if random.Random(digest).random() >= self.confidence:
                said = other
        wanted = config.logprobs and self.logprobs
        return Reply(
            f" {said}.",
            logprobs=self._logprobs(said, answer, other) if wanted else None,
            output_tokens=2,
        )

    def _logprobs(self, said: str, answer: str, other: str) -> Logprobs:
        top = [
            TopLogprob(token=f" {key_first_word(answer)}", logprob=math.log(self.confidence)),
            TopLogprob(token=f" {key_first_word(other)}", logprob=math.log(1 - self.confidence)),
        ]
        chosen = f" {key_first_word(said)}"
        logprob = next(t.logprob for t in top if t.token == chosen)
        return Logprobs(content=[Logprob(token=chosen, logprob=logprob, top_logprobs=top)])
