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
from typing import Any

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

from tom_eval.coherence.agents import POLICIES, AnswerText, Policy, distribution, item_of_prompt
from tom_eval.players import InProcessPlayer, model_flag

DEFAULT_CONFIG = GenerateConfig()


class CoherencePlayer(InProcessPlayer):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        seed: int = 0,
        logprobs: bool | str = True,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in POLICIES:
            raise ValueError(f"tom/{model_name} is no coherence agent ({', '.join(POLICIES)})")
        self.policy: Policy = "rational" if model_name == "rational" else "random-agent"
        self.seed = int(seed)
        self.logprobs = model_flag(logprobs)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = next((m.text for m in reversed(input) if m.role == "user"), "")
        item = item_of_prompt().get(prompt)
        if item is None:
            raise RuntimeError(f"tom/{self.model_name} answers coherence prompts only")
        prefilled = input[-1].text if input[-1].role == "assistant" else ""
        language = AnswerText.of(item, distribution(self.policy, item, self.seed))
        temperature = config.temperature or 0.0
        draw = random.Random(
            hashlib.sha256(f"{self.seed}:{config.seed}:{prompt}:{prefilled}".encode()).hexdigest()
        )
        text, steps = prefilled, []
        choices = language.next_tokens(text)
        for _ in range(config.max_tokens or 1_000):
            if not choices:
                break
            if temperature > 0:
                token = draw.choices(list(choices), weights=list(choices.values()))[0]
            else:
                token = max(choices, key=lambda candidate: choices[candidate])
            steps.append(_logprob(token, choices, config.top_logprobs or 0))
            text += token
            choices = language.next_tokens(text)
        reply = text[len(prefilled) :]
        wanted = bool(config.logprobs) and self.logprobs
        output = ModelOutput(
            model=f"tom/{self.model_name}",
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(content=reply, model=f"tom/{self.model_name}"),
                    stop_reason="max_tokens" if choices else "stop",
                    logprobs=Logprobs(content=steps) if wanted else None,
                )
            ],
        )
        prompt_tokens = sum(len(message.text) // 4 + 1 for message in input)
        output.usage = ModelUsage(
            input_tokens=prompt_tokens,
            output_tokens=len(steps),
            total_tokens=prompt_tokens + len(steps),
        )
        return output


def _logprob(token: str, choices: dict[str, float], top: int) -> Logprob:
    ranked = sorted(choices.items(), key=lambda pair: -pair[1])[:top]
    return Logprob(
        token=token,
        logprob=math.log(choices[token]),
        top_logprobs=[TopLogprob(token=t, logprob=math.log(p)) for t, p in ranked if p > 0],
    )
