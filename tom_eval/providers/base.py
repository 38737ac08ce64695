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

A provider that cannot go on ends the whole eval in one line, never with a traceback
(`stop_eval`): a reference player asked to play a task it does not play (refused before
the eval starts by the tasks' `refuse_unplayable`, and at its first call otherwise), and a
person whose input ends early.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn

import anyio
import click
from inspect_ai.log._samples import sample_active
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprobs,
    Model,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    StopReason,
    model_roles,
)
from inspect_ai.model._model import active_model
from inspect_ai.tool import ToolChoice, ToolInfo

from tom_eval.json_fields import INT64_RANGE, finite_number, fits_int64, yaml_text
from tom_eval.refusal import refused

DEFAULT_CONFIG = GenerateConfig()

logger = logging.getLogger(__name__)


def yes_no(value: object) -> bool:
    """A yes/no model arg: `-M logprobs=false` arrives as False, or as text from some
    callers."""
    text = str(value).lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ValueError("true or false")


def text(value: object) -> str:
    return str(value)


def whole(value: object) -> int:
    """A whole-number model arg: not true or false, not 2.9 cut to 2."""
    try:
        if isinstance(value, bool | float):
            raise ValueError
        return int(str(value))
    except ValueError:
        raise ValueError("a whole number") from None


def number(value: object) -> float:
    """A finite number (`json_fields.finite_number`: `-M latency=inf` would wait for ever)."""
    read = finite_number(value)
    if read is None:
        raise ValueError("a finite number")
    return read


@dataclass(frozen=True)
class Arg:
    """A model arg: its default, how to read a given value, and what a value must be."""

    default: Any
    read: Callable[[Any], Any] = text
    """`text`, `whole`, `number` or `yes_no`: each refuses a value with a ValueError that
    says what it reads ("a whole number"), which the refusal quotes."""
    allowed: Callable[[Any], bool] = lambda value: True
    rule: str = ""
    """What `allowed` asks, for the error: e.g. "at least 1"."""
    only: str = ""
    """The one model of the provider that takes it (e.g. `tom/bounded`), named where the
    args are listed."""


LONGEST_WAIT = 86_400
"""The longest a simulated call may wait, in seconds (a day): `-M latency=1e308` is finite
but would wait for ever."""


def at_least(minimum: float) -> dict[str, Any]:
    """`Arg(..., **at_least(1))`: the value must be `minimum` or more."""
    return {"allowed": lambda value: value >= minimum, "rule": f"at least {minimum:g}"}


def between(minimum: int, maximum: int) -> dict[str, Any]:
    """`Arg(..., **between(1, 512))`: the value must lie from `minimum` to `maximum`."""
    return {
        "allowed": lambda value: minimum <= value <= maximum,
        "rule": f"from {minimum:,} to {maximum:,}",
    }


def a_seed() -> dict[str, Any]:
    """`Arg(0, whole, **a_seed())`: a seed the 64-bit columns of a log's reader hold, as `-T
    seed=` takes."""
    return {"allowed": fits_int64, "rule": INT64_RANGE}


def read_args(
    provider: str, declared: Mapping[str, Arg], given: Mapping[str, Any], strict: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The declared args with the given values read (defaults for the rest), and the given
    args not declared. With `strict`, an undeclared arg is a one-line error naming the
    provider (a typo such as `-M sede=3` would otherwise be ignored)."""
    rest = {name: value for name, value in given.items() if name not in declared}
    if strict and rest:
        takes = (
            ", ".join(
                f"{name} ({arg.only} only)" if arg.only else name for name, arg in declared.items()
            )
            or "none"
        )
        raise refused(f"{provider}: unknown model arg '{next(iter(rest))}' (takes: {takes})")
    values = {}
    for name, arg in declared.items():
        if name in given and given[name] is None:
            # An empty `-M name=`, as an unset shell variable makes: not the default.
            raise refused(f"{provider}: -M {name} must have a value: leave it out for its default")
        value = given.get(name, arg.default)
        values[name] = None if value is None else _read(provider, name, arg, value)
    return values, rest


def _read(provider: str, name: str, arg: Arg, value: Any) -> Any:
    try:
        read = arg.read(value)
    except ValueError as error:  # the reader's words for what it reads
        raise refused(f"{provider}: -M {name} must be {error}, not {_shown(value)}") from None
    if not arg.allowed(read):
        raise refused(f"{provider}: -M {name} must be {arg.rule}, not {_shown(value)}")
    return read


def _shown(value: Any) -> str:
    """A bad value as an error shows it: as Python writes it, but YAML's true and false
    (`-M latency=yes`) as the command line spells them, not Python's True."""
    return f"'{yaml_text(value)}'" if isinstance(value, bool) else repr(value)


def encodable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD. A reply is data, logged as it came,
    but a log is UTF-8: the bytes of a line typed or piped in another encoding (which Python
    reads into lone surrogates) or a recorded reply's stray surrogate would stop Inspect
    writing the sample, and the reply would be lost."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def tokens(text: str) -> int:
    """About four characters a token."""
    return max(1, len(text) // 4)


@dataclass
class Reply:
    """What a provider says to one call."""

    text: str
    logprobs: Logprobs | None = None
    stop_reason: StopReason = "stop"
    seconds: float | None = None
    """Seconds the reply took, where the provider knows better than the clock (a person's
    recorded time): in the output's metadata, since Inspect sets `time` to its own call's."""
    output_tokens: int | None = None
    """Tokens of the reply, where the provider knows them (else estimated)."""


class Unplayable(Exception):
    """Raised by a provider's reply (`LocalProvider.unplayable`): it cannot read the running
    sample, which is of a task (or a variant of one) it does not play. Another task that
    shows the same prompts (a benchmark's, say) it plays as its own."""


class LocalProvider(ModelAPI):
    """A provider that answers in this process: declared model args, a reply, token usage."""

    PREFIX: ClassVar[str] = "tom"
    ARGS: ClassVar[Mapping[str, Arg]] = {}
    PLAYS: ClassVar[tuple[str, ...]] = ()
    """The tasks it plays, as the tasks name themselves to `refuse_unplayable` (`tom`,
    `knp`, `knp -T open_ended=true`, ...); empty: any."""

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

    def plays(self) -> tuple[str, ...]:
        """The tasks this provider plays (`PLAYS`, unless it depends on the player)."""
        return self.PLAYS

    def refusal(self, task: str) -> str | None:
        """Why it cannot play `task` (a task of this suite, by name), in one line; None
        when it can."""
        plays = self.plays()
        if not plays or task in plays:
            return None
        return f"{self.name} cannot play {task}: it plays {', '.join(plays)}"

    def unplayable(self, task: str | None = None) -> Unplayable:
        """What a reply raises for a sample it cannot read: a task it does not play (by
        default the running sample's task, named as Inspect names it)."""
        active = sample_active()
        asked = task or (active.task.removeprefix("tom_eval/") if active else "this task")
        return Unplayable(f"{self.name} cannot play {asked}: it plays {', '.join(self.plays())}")

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        raise NotImplementedError

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        try:
            reply = await self.reply(input, config)
        except Unplayable as error:
            await stop_eval(str(error))
        output = ModelOutput(
            model=self.name,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(content=encodable(reply.text), model=self.name),
                    stop_reason=reply.stop_reason,
                    logprobs=reply.logprobs,
                )
            ],
        )
        output.usage = self.usage(input, reply)
        if reply.seconds is not None:
            output.metadata = {"seconds": reply.seconds}
        return output

    def usage(self, input: list[ChatMessage], reply: Reply) -> ModelUsage:
        prompt = sum(tokens(message.text) for message in input)
        answer = reply.output_tokens if reply.output_tokens is not None else tokens(reply.text)
        return ModelUsage(input_tokens=prompt, output_tokens=answer, total_tokens=prompt + answer)

    def max_connections(self) -> int:
        return 100

    async def count_text_tokens(self, text: str) -> int:
        return tokens(text)


SUITE_ROLES = {"grader": "knp -T open_ended=true, as its judge"}
"""The model roles (`--model-role NAME=...`) that the suite's tasks read, and who reads each."""


def refuse_unplayable(task: str, roles: tuple[str, ...] = ()) -> None:
    """Called by each task as it is built, where Inspect has made the model under
    evaluation active (and the model roles known): a provider of ours that does not play
    `task`, as that model or in one of the task's `roles` (a grader, say), ends the eval
    before it starts, in one line and with no log (a PrerequisiteError).

    A model role the task does not read is warned about (another task of the command, a
    solver of the user's or `INSPECT_EVAL_MODEL_ROLE` may read it). But where the task's own
    roles are all left out and another one is given, it is refused: a misspelt `--model-role
    judge=...` would otherwise leave the evaluated model judging itself."""
    given = model_roles()
    for other in [role for role in given if role not in roles]:
        if roles and not any(role in given for role in roles) and other not in SUITE_ROLES:
            raise refused(
                f"{task}: no model role '{other}' (this task reads {', '.join(roles)}, which "
                "the evaluated model plays when it is not given)"
            )
        reader = f" (used by {SUITE_ROLES[other]})" if other in SUITE_ROLES else ""
        logger.warning(f"model role '{other}' not used by task '{task}'{reader}")
    for role in (None, *roles):
        model = active_model() if role is None else given.get(role)
        api = model.api if isinstance(model, Model) else None
        reason = api.refusal(task) if isinstance(api, LocalProvider) else None
        if reason:
            raise refused(f"{reason} (as the {role} role)" if role else reason)


INTERRUPTS_IGNORED = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
"""Whether the process started with SIGINT ignored, as read when this module is imported
(later, Inspect's control server puts a handler of its own in front of it)."""
UNHEARD_INTERRUPT_SECONDS = 5.0
"""How long an interrupt may take to cancel the sample that sent it before it is taken as
ignored: well beyond the milliseconds it takes when handled, and a short wait otherwise."""

_stopped_runs: set[str] = set()
"""The eval runs (one `eval()` call each) already being stopped."""


async def stop_eval(message: str) -> NoReturn:
    """End the whole eval as an operator's Ctrl-C does: Inspect stops every sample, writes
    the log as cancelled (`inspect eval-retry` resumes it) and prints its short notice,
    with no traceback. Then `message` is the last line on stderr and `inspect eval` exits
    with status 1 (after an interrupt of its own it exits 0). The first stop of a run
    counts; other samples of it stopping at the same moment only wait for the end (a
    second interrupt would abort Inspect's own clean-up)."""
    active = sample_active()
    run = active.run_id if active is not None and active.run_id else None
    if run is None or run not in _stopped_runs:
        if run is not None:
            _stopped_runs.add(run)
        context = click.get_current_context(silent=True)
        if context is None:  # eval() from Python: it returns, and the log is cancelled
            print(message, file=sys.stderr)
        else:  # the inspect command: once it has printed its notice
            context.call_on_close(lambda: _exit_with(message))
        # A process started with SIGINT ignored (`command &` in a script) has no handler to
        # act on it, and the interrupt does not cancel this sample: then cancel the run.
        if not INTERRUPTS_IGNORED:
            signal.raise_signal(signal.SIGINT)
            await anyio.sleep(UNHEARD_INTERRUPT_SECONDS)
        _cancel_root_task()
    await anyio.sleep_forever()
    raise AssertionError("unreachable: the eval was cancelled")


def _cancel_root_task() -> None:
    """Cancel the run's root task, which is all asyncio's own SIGINT handler does on a first
    interrupt (under asyncio; Inspect's trio backend is left to its own handling)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    tasks = {info.id: info for info in anyio.get_running_tasks()}
    root = anyio.get_current_task()
    while root.parent_id in tasks:
        root = tasks[root.parent_id]
    for task in asyncio.all_tasks():
        if id(task) == root.id:
            task.cancel()


def _exit_with(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise click.exceptions.Exit(1)
