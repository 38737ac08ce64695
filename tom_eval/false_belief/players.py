"""Reference players of the false-belief battery (`--model tom/belief-oracle`,
`--model tom/reality-biased`), so tests and the README can state exact values.

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
from typing import Any

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log._samples import sample_active
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    TopLogprob,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from tom_eval.false_belief.answers import key_first_word
from tom_eval.players import InProcessPlayer, model_flag

POLICIES = ("belief-oracle", "reality-biased")
DEFAULT_CONFIG = GenerateConfig()


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


class FalseBeliefPlayer(InProcessPlayer):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        confidence: float = 0.9,
        logprobs: bool | str = True,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        try:
            self.confidence = float(confidence)
        except ValueError:
            self.confidence = math.nan
        if not 0.5 < self.confidence < 1:
            raise PrerequisiteError(
                f"tom/{model_name}: -M confidence must be above 0.5 and below 1, not {confidence}"
            )
        self.logprobs = model_flag(logprobs)
        self.calls = 0

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        active = sample_active()
        metadata = (active.sample.metadata or {}) if active else {}
        records = list(metadata.get("prompts", [])) + list(metadata.get("steps", []))
        prompt = input[-1].text
        record = next((r for r in records if r["prompt"] == prompt), None)
        if record is None:
            raise RuntimeError(f"tom/{self.model_name}: not a prompt of the running sample")
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
        output = ModelOutput(
            model=f"tom/{self.model_name}",
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(
                        content=f" {said}.", model=f"tom/{self.model_name}"
                    ),
                    stop_reason="stop",
                    logprobs=self._logprobs(said, answer, other)
                    if config.logprobs and self.logprobs
                    else None,
                )
            ],
        )
        output.usage = ModelUsage(
            input_tokens=len(prompt) // 4, output_tokens=2, total_tokens=len(prompt) // 4 + 2
        )
        return output

    def _logprobs(self, said: str, answer: str, other: str) -> Logprobs:
        top = [
            TopLogprob(token=f" {key_first_word(answer)}", logprob=math.log(self.confidence)),
            TopLogprob(token=f" {key_first_word(other)}", logprob=math.log(1 - self.confidence)),
        ]
        chosen = f" {key_first_word(said)}"
        logprob = next(t.logprob for t in top if t.token == chosen)
        return Logprobs(content=[Logprob(token=chosen, logprob=logprob, top_logprobs=top)])
