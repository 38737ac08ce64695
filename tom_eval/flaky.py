"""`--model tom/flaky`: a reference player behind an unreliable API, to show that Inspect's
own retries carry a run through provider faults without changing a single result.

    inspect eval tasks/tom.py --model tom/flaky -M player=oracle -M error_rate=0.2 \
        -M timeout_rate=0.1 --attempt-timeout 2

Each call attempt may fail in one of two ways, as real APIs do:

* an error: `InjectedFault`, an HTTP 429 (rate limit) or 503 (overloaded) that
  `should_retry` classifies for Inspect's retry loop and adaptive concurrency;
* a timeout: the attempt hangs (`-M hang=` seconds, default 60), so Inspect's
  `--attempt-timeout` abandons it and retries; without one, the hang ends in a
  `TimeoutError`, the client-side read timeout a real SDK raises, which is retried too.

Whether an attempt fails is decided by a hash of the seed, the sample, the epoch, the
conversation and the attempt's number, so a run's faults are reproducible whatever the
concurrency, and a call fails at most `-M max_faults=` times in a row (default 2): a run
with `--max-retries` at least that always completes. The replies come from the wrapped
reference player (`-M player=`, default `oracle`; `-M seed` and `-M latency` are passed
on), so they are exactly the fault-free player's. `-M backoff=SECONDS` replaces Inspect's
exponential backoff (3 s, then longer) with a fixed wait, for quick tests.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from typing import Any

from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput
from inspect_ai.model._model import RetryDecision
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity import wait_fixed
from tenacity.wait import WaitBaseT

from tom_eval.players import ReferencePlayer

DEFAULT_CONFIG = GenerateConfig()


class InjectedFault(Exception):
    """An API error the provider made up; `status` is the HTTP status it imitates."""

    def __init__(self, status: int) -> None:
        reason = "rate limit exceeded" if status == 429 else "service unavailable"
        super().__init__(f"tom/flaky: injected HTTP {status} ({reason})")
        self.status = status


class FlakyPlayer(ModelAPI):
    """`tom/flaky`; model args: `player`, `error_rate`, `timeout_rate`, `max_faults`,
    `hang`, `backoff`, and the wrapped player's `seed` and `latency`."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        player: str = "oracle",
        error_rate: float = 0.0,
        timeout_rate: float = 0.0,
        max_faults: int = 2,
        hang: float = 60.0,
        backoff: float | None = None,
        seed: int = 0,
        **player_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.error_rate, self.timeout_rate = float(error_rate), float(timeout_rate)
        if not (self.error_rate >= 0 and 0 <= self.timeout_rate <= 1 - self.error_rate):
            raise ValueError(
                "tom/flaky: error_rate and timeout_rate must be at least 0 and sum to at most 1"
            )
        self.player = ReferencePlayer(player, base_url, api_key, config, seed=seed, **player_args)
        self.max_faults, self.hang, self.seed = int(max_faults), float(hang), int(seed)
        self.backoff = None if backoff is None else float(backoff)
        self.attempts: Counter[str] = Counter()
        """Attempts so far per call (sample, epoch and conversation)."""
        self.faults: Counter[str] = Counter()
        """Faults injected so far by kind ("rate limit", "unavailable", "timeout")."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        fault = self._fault(_call_key(input))
        if fault is None:
            return await self.player.generate(input, tools, tool_choice, config)
        self.faults[fault] += 1
        if fault == "timeout":
            await asyncio.sleep(self.hang)
            raise TimeoutError(f"tom/flaky: injected timeout after {self.hang:g} s")
        raise InjectedFault(429 if fault == "rate limit" else 503)

    def _fault(self, call: str) -> str | None:
        """The fault of this attempt of `call`, if any: a fixed function of the seed, the
        call and the attempt's number, and never more than `max_faults` in a row."""
        attempt = self.attempts[call]
        self.attempts[call] += 1
        if attempt >= self.max_faults:
            return None
        digest = hashlib.sha256(f"{self.seed}:{call}:{attempt}".encode()).digest()
        draw = int.from_bytes(digest[:8], "big") / 2**64
        if draw < self.error_rate:
            # Half the errors are rate limits, half are a server overloaded.
            return "rate limit" if draw < self.error_rate / 2 else "unavailable"
        if draw < self.error_rate + self.timeout_rate:
            return "timeout"
        return None

    def should_retry(self, ex: Exception) -> bool | RetryDecision:
        if isinstance(ex, InjectedFault):
            return RetryDecision.rate_limit() if ex.status == 429 else RetryDecision.transient()
        return isinstance(ex, TimeoutError)

    def retry_wait(self) -> WaitBaseT | None:
        return None if self.backoff is None else wait_fixed(self.backoff)

    def max_connections(self) -> int:
        return self.player.max_connections()

    async def count_text_tokens(self, text: str) -> int:
        return await self.player.count_text_tokens(text)


def _call_key(input: list[ChatMessage]) -> str:
    """Which call this is: the running sample and epoch, and the whole conversation."""
    active = sample_active()
    where = f"{active.sample.id}:{active.epoch}" if active is not None else "-"
    conversation = "\x00".join(f"{message.role}:{message.text}" for message in input)
    return f"{where}:{hashlib.sha256(conversation.encode()).hexdigest()}"
