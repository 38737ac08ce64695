"""The coherence reference agents as Inspect providers: `--model tom/rational` (the
rational agent: utilities, softmax, exact inversion; it must score r = 1 and validity
100%) and `--model tom/random-agent` (seeded random distributions; near 0). `tom/random`
is the game's random reference player, hence the longer name.

They answer any coherence prompt the way a provider does: text at temperature 0 is the
most likely token at each step, above 0 a draw (seeded by `-M seed=` and the request's
seed), with the top log-probabilities of every token when asked, and a final assistant
message is continued (a prefilled reply), which the log-probability estimator uses.
`-M logprobs=false` withholds log-probabilities, as providers such as Anthropic's do.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping
from typing import ClassVar

from inspect_ai.model import ChatMessage, GenerateConfig, Logprob, Logprobs, TopLogprob

from tom_eval.coherence.agents import POLICIES, AnswerText, Policy, distribution, item_of_prompt
from tom_eval.providers.base import Arg, LocalProvider, Reply, a_seed, whole, yes_no
from tom_eval.refusal import refused


class CoherencePlayer(LocalProvider):
    """`tom/rational`, `tom/random-agent`; model args: `seed`, `logprobs`."""

    PLAYS = ("coherence",)
    ARGS: ClassVar[Mapping[str, Arg]] = {
        "seed": Arg(0, whole, **a_seed()),
        "logprobs": Arg(True, yes_no),
    }
    seed: int
    logprobs: bool

    def setup(self) -> None:
        if self.model_name not in POLICIES:
            raise refused(f"{self.name} is no coherence agent ({', '.join(POLICIES)})")
        self.policy: Policy = "rational" if self.model_name == "rational" else "random-agent"

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        prompt = next((m.text for m in reversed(input) if m.role == "user"), "")
        item = item_of_prompt().get(prompt)
        if item is None:
            raise self.unplayable()
        prefilled = input[-1].text if input[-1].role == "assistant" else ""
        language = AnswerText.of(item, distribution(self.policy, item, self.seed))
        temperature = config.temperature or 0.0
        rng = random.Random(
            hashlib.sha256(f"{self.seed}:{config.seed}:{prompt}:{prefilled}".encode()).hexdigest()
        )
        text, steps = prefilled, []
        choices = language.next_tokens(text)
        for _ in range(config.max_tokens or 1_000):
            if not choices:
                break
            if temperature > 0:
                token = rng.choices(list(choices), weights=list(choices.values()))[0]
            else:
                token = max(choices, key=lambda candidate: choices[candidate])
            steps.append(_logprob(token, choices, config.top_logprobs or 0))
            text += token
            choices = language.next_tokens(text)
        wanted = bool(config.logprobs) and self.logprobs
        return Reply(
            text[len(prefilled) :],
            logprobs=Logprobs(content=steps) if wanted else None,
            stop_reason="max_tokens" if choices else "stop",
            output_tokens=len(steps),
        )


def _logprob(token: str, choices: dict[str, float], top: int) -> Logprob:
    ranked = sorted(choices.items(), key=lambda pair: -pair[1])[:top]
    return Logprob(
        token=token,
        logprob=math.log(choices[token]),
        top_logprobs=[TopLogprob(token=t, logprob=math.log(p)) for t, p in ranked if p > 0],
    )
