"""The base of every provider that answers in this process: the reference players of every
task (`tom/oracle`, `tom/belief-oracle`, `tom/rational`, ...), people (`tom/human`) and an
unreliable API (`tom/flaky`). Local GGUF models (`gguf/...`) are Inspect's own
OpenAI-compatible client in front of a local server; they share the model-arg reader.

Inspect builds a provider as `Provider(model_name, base_url, api_key, config,
**model_args)`, the model args being what the user gave with `-M name=value` (YAML values:
numbers, booleans or text). Here a provider declares its args once (`ARGS`), gets them as
typed attributes with one-line errors for a bad or unknown one, and writes only what is its
own: `reply`, and `setup` where it keeps state. A new reference player is one small class.

Token usage is counted as four characters a token, so no tokenizer is downloaded
(Inspect's default counter fetches one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprobs,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    StopReason,
)
from inspect_ai.tool import ToolChoice, ToolInfo

DEFAULT_CONFIG = GenerateConfig()


def yes_no(value: object) -> bool:
    """A yes/no model arg: `-M logprobs=false` arrives as False, or as text from some
    callers."""
    text = str(value).lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ValueError("must be true or false")


def text(value: object) -> str:
    return str(value)


@dataclass(frozen=True)
class Arg:
    """A model arg: its default, how to read a given value, and what a value must be."""

    default: Any
    read: Callable[[Any], Any] = text
    allowed: Callable[[Any], bool] = lambda value: True
    rule: str = ""
    """What `allowed` asks, for the error: e.g. "at least 1"."""


def at_least(minimum: float) -> dict[str, Any]:
    """`Arg(..., **at_least(1))`: the value must be `minimum` or more."""
    return {"allowed": lambda value: value >= minimum, "rule": f"at least {minimum:g}"}


def read_args(
    provider: str, declared: Mapping[str, Arg], given: Mapping[str, Any], strict: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The declared args with the given values read (defaults for the rest), and the given
    args not declared. With `strict`, an undeclared arg is a one-line error naming the
    provider (a typo such as `-M sede=3` would otherwise be ignored)."""
    rest = {name: value for name, value in given.items() if name not in declared}
    if strict and rest:
        takes = ", ".join(declared) or "none"
        raise PrerequisiteError(
            f"{provider}: unknown model arg '{next(iter(rest))}' (takes: {takes})"
        )
    values = {}
    for name, arg in declared.items():
        value = given.get(name, arg.default)
        values[name] = None if value is None else _read(provider, name, arg, value)
    return values, rest


def _read(provider: str, name: str, arg: Arg, value: Any) -> Any:
    try:
        read = arg.read(value)
    except (TypeError, ValueError):
        kind = {int: "a whole number", float: "a number", yes_no: "true or false"}
        wanted = kind.get(arg.read, "text")
        raise PrerequisiteError(f"{provider}: -M {name} must be {wanted}, not {value!r}") from None
    if not arg.allowed(read):
        raise PrerequisiteError(f"{provider}: -M {name} must be {arg.rule}, not {value!r}")
    return read


def tokens(text: str) -> int:
    """About four characters a token."""
    return max(1, len(text) // 4)


@dataclass
class Reply:
    """What a provider says to one call."""

    text: str
    logprobs: Logprobs | None = None
    stop_reason: StopReason = "stop"
    time: float | None = None
    """Seconds the reply took, where the provider knows better than the clock."""
    output_tokens: int | None = None
    """Tokens of the reply, where the provider knows them (else estimated)."""


class LocalProvider(ModelAPI):
    """A provider that answers in this process: declared model args, a reply, token usage."""

    PREFIX: ClassVar[str] = "tom"
    ARGS: ClassVar[Mapping[str, Arg]] = {}

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        values, _ = read_args(self.name, self.ARGS, model_args)
        for name, value in values.items():
            setattr(self, name, value)
        self.setup()

    @property
    def name(self) -> str:
        """The name the user gave, e.g. `tom/oracle`."""
        return f"{self.PREFIX}/{self.model_name}"

    def setup(self) -> None:
        """Checks and state of the provider's own, once its args are read."""

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        raise NotImplementedError

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        reply = await self.reply(input, config)
        output = ModelOutput(
            model=self.name,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(content=reply.text, model=self.name),
                    stop_reason=reply.stop_reason,
                    logprobs=reply.logprobs,
                )
            ],
        )
        output.usage = self.usage(input, reply)
        output.time = reply.time
        return output

    def usage(self, input: list[ChatMessage], reply: Reply) -> ModelUsage:
        prompt = sum(tokens(message.text) for message in input)
        answer = reply.output_tokens if reply.output_tokens is not None else tokens(reply.text)
        return ModelUsage(input_tokens=prompt, output_tokens=answer, total_tokens=prompt + answer)

    def max_connections(self) -> int:
        return 100

    async def count_text_tokens(self, text: str) -> int:
        return tokens(text)
