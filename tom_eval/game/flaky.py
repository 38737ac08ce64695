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
from collections.abc import Mapping
from typing import ClassVar

from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig, RetryDecision
from tenacity import wait_fixed
from tenacity.wait import WaitBaseT

from tom_eval.game.players import POLICIES, ReferencePlayer
from tom_eval.providers.base import (
    LONGEST_WAIT,
    Arg,
    LocalProvider,
    Reply,
    a_seed,
    at_least,
    between,
    number,
    whole,
)
from tom_eval.refusal import refused

WRAPPED_POLICIES = tuple(policy for policy in POLICIES if policy != "bounded")
"""The players tom/flaky can wrap: not bounded, whose -M memory is not tom/flaky's to take."""


class InjectedFault(Exception):
    """An API error the provider made up; `status` is the HTTP status it imitates."""

    def __init__(self, status: int) -> None:
        reason = "rate limit exceeded" if status == 429 else "service unavailable"
        super().__init__(f"tom/flaky: injected HTTP {status} ({reason})")
        self.status = status


class FlakyPlayer(LocalProvider):
    """`tom/flaky`; model args: `player`, `error_rate`, `timeout_rate`, `max_faults`,
    `hang`, `backoff`, and the wrapped player's `seed` and `latency`."""

    PLAYS = ("tom",)
    ARGS: ClassVar[Mapping[str, Arg]] = {
        "player": Arg(
            "oracle",
            allowed=lambda name: name in WRAPPED_POLICIES,
            rule=f"one of {', '.join(WRAPPED_POLICIES)}",
        ),
        "error_rate": Arg(0.0, number, **at_least(0)),
        "timeout_rate": Arg(0.0, number, **at_least(0)),
        "max_faults": Arg(2, whole, **at_least(0)),
        "hang": Arg(60.0, number, **between(0, LONGEST_WAIT)),
        "backoff": Arg(None, number, **between(0, LONGEST_WAIT)),
        "seed": Arg(0, whole, **a_seed()),
        "latency": Arg(0.0, number, **between(0, LONGEST_WAIT)),
    }
    player: str
    error_rate: float
    timeout_rate: float
    max_faults: int
    hang: float
    backoff: float | None
    seed: int
    latency: float

    def setup(self) -> None:
        if self.error_rate + self.timeout_rate > 1:
            raise refused(f"{self.name}: error_rate and timeout_rate must sum to at most 1")
        self.wrapped = ReferencePlayer(self.player, seed=self.seed, latency=self.latency)
        self.attempts: Counter[str] = Counter()
        """Attempts so far per call (sample, epoch and conversation)."""
        self.faults: Counter[str] = Counter()
        """Faults injected so far by kind ("rate limit", "unavailable", "timeout")."""

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        fault = self._fault(_call_key(input))
        if fault is None:
            return await self.wrapped.reply(input, config)
        self.faults[fault] += 1
        if fault == "timeout":
            await asyncio.sleep(self.hang)
            raise TimeoutError(f"{self.name}: injected timeout after {self.hang:g} s")
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


def _call_key(input: list[ChatMessage]) -> str:
    """Which call this is: the running sample and epoch, and the whole conversation."""
    active = sample_active()
    where = f"{active.sample.id}:{active.epoch}" if active is not None else "-"
    conversation = "\x00".join(f"{message.role}:{message.text}" for message in input)
    return f"{where}:{hashlib.sha256(conversation.encode()).hexdigest()}"
