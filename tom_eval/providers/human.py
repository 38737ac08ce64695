"""`--model tom/human`: a person plays player A, so people and models answer the same items
through the same task, solver and scorer, and a human result is just another Inspect log.

* At a terminal (the default), each model call becomes a screen: the conversation so far
  (the rules in full the first time, then only when they change) and a prompt; the reply is
  the typed line. Piped input works, one reply per line. Run it with `--max-samples 1` so
  the scenarios come one at a time (each screen is whole on its own regardless).
* With `-M answers=FILE` it replays what a participant of the web study (`tom-eval serve`)
  typed, for `tom-eval export`: each reply is found by sample, epoch and step, and the text
  the task asks now must be the text the participant was shown, and the scenario behind it
  the same (`story_digest`), or the sample fails. So a
  log can never score a reply against a scenario other than the one on the screen.

Human replies carry zero token usage (nothing to count; no tokenizer download).
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig, ModelUsage
from inspect_ai.util import input_screen

from tom_eval.errors import InputError, read_user_text, user_path
from tom_eval.providers.base import Arg, LocalProvider, Reply, stop_eval
from tom_eval.refusal import refused

RULES_END = "\n\nSTORY\n"
"""Where the rules end in the first message of a trial (`prompts.action_prompt`)."""
STUDY_SENTENCE = (
    "We will repeatedly ask you to make the first move in different runs of this game. Each "
    "run is separate: in each one, make the best move in that situation."
)


INPUT_ENDED = "tom/human: the input ended before the eval did; resume with inspect eval-retry <log>"


class HumanPlayer(LocalProvider):
    """`tom/human`; model arg `answers`: a study participant's reply file to replay."""

    ARGS: ClassVar[Mapping[str, Arg]] = {"answers": Arg(None)}
    answers: str | None

    def setup(self) -> None:
        try:
            self.replies = read_replies(user_path(self.answers)) if self.answers else None
        except InputError as error:
            raise refused(f"{self.name}: -M answers: {error}") from None
        self.rules_shown = ""
        self.screens = 0
        typed = self.replies is None
        if typed and isinstance(sys.stdin, io.TextIOWrapper) and sys.stdin.errors == "strict":
            # Bytes that are not UTF-8 (a latin-1 terminal) are read as lone surrogates,
            # which the reply keeps as U+FFFD, instead of failing the read under a locale
            # whose standard input is strict (most: only C and POSIX escape them). Before
            # anything is read: a stream changed after reading may drop what it holds.
            sys.stdin.reconfigure(errors="surrogateescape")

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        if self.replies is not None:
            text, seconds = self._replay(input)
            return Reply(text, seconds=seconds)
        typed = self._ask(input)
        if typed is None:
            # The person stopped (Ctrl-D, or the end of piped input): the eval stops as if
            # interrupted, and `inspect eval-retry` resumes it.
            await stop_eval(INPUT_ENDED)
        return Reply(typed)

    def usage(self, input: list[ChatMessage], reply: Reply) -> ModelUsage:
        """Nothing to count: a person's reply costs no tokens."""
        return ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)

    def _ask(self, input: list[ChatMessage]) -> str | None:
        """The line the person typed; None when the input has ended."""
        self.screens += 1
        with input_screen(header=f"Screen {self.screens}") as console:
            console.print(self._screen_text(input), markup=False, highlight=False)
            while True:
                try:
                    line = console.input("Your reply> ").strip()
                except EOFError:
                    return None
                if line:
                    return line

    def _screen_text(self, input: list[ChatMessage]) -> str:
        """The conversation as the person needs it; the rules shown again only when they
        differ from the last rules shown."""
        parts = []
        for message in input:
            if message.role == "assistant":
                parts.append(f"YOU REPLIED\n{message.text}")
            elif message.role == "user":
                text = message.text
                rules, found, rest = text.partition(RULES_END)
                if found:
                    if rules == self.rules_shown:
                        text = f"(The rules are as shown before.){found}{rest}"
                    else:
                        self.rules_shown = rules
                        text = f"{rules}\n\n{STUDY_SENTENCE}{found}{rest}"
                parts.append(text)
        return "\n\n".join(parts)

    def _replay(self, input: list[ChatMessage]) -> tuple[str, float | None]:
        active = sample_active()
        if active is None:
            raise RuntimeError("tom/human -M answers=... replays inside an eval only")
        step = sum(1 for message in input if message.role == "assistant")
        key = (str(active.sample.id), active.epoch, step)
        assert self.replies is not None
        recorded = self.replies.get(key)
        if recorded is None:
            raise RuntimeError(f"tom/human: the participant gave no reply for {key}")
        story = story_digest((active.sample.metadata or {}).get("story"))
        if recorded["prompt"] != input[-1].text or recorded["story"] != story:
            raise RuntimeError(
                f"tom/human: sample {key[0]} step {step} differs from what the participant "
                "was shown (were the study's task parameters or scenario file changed?)"
            )
        seconds = recorded.get("seconds")
        return str(recorded["reply"]), None if seconds is None else float(seconds)

    def max_connections(self) -> int:
        return 1


def story_digest(story: object) -> str:
    """A digest of a sample's whole scenario: the prompt shows only what A saw, so a
    scenario changed in what A did not see would otherwise replay unnoticed. The same for
    the story as one line of JSON (`scenario_file.story_line`) and as an object (logs
    before version 2-D). A text that is not JSON (a hand-edited sample) is digested as it
    is, so it still names one story rather than stopping the study with a traceback."""
    if isinstance(story, str):
        text = story
        try:
            story = json.loads(text)
        except ValueError:
            return hashlib.sha256(text.encode()).hexdigest()
    return hashlib.sha256(json.dumps(story, sort_keys=True).encode()).hexdigest()


REPLY_FIELDS = ("sample_id", "epoch", "step", "prompt", "story", "reply")
"""What a study reply file holds for each reply."""


def read_replies(path: Path) -> dict[tuple[str, int, int], dict[str, Any]]:
    """A study reply file (`study.store.Store.reply_file`): replies by sample, epoch and step;
    an InputError naming the file when it cannot be read or is not one."""
    text = read_user_text(path)
    try:
        data = json.loads(text)
        replies = {}
        for reply in data["replies"]:
            # What the replay reads of each: a reply without it would fail its sample.
            if missing := [field for field in REPLY_FIELDS if field not in reply]:
                raise KeyError(missing[0])
            key = (str(reply["sample_id"]), int(reply["epoch"]), int(reply["step"]))
            replies[key] = reply
        return replies
    except KeyError as error:
        problem = f"a reply or the file lacks the field {error}"
    except (ValueError, TypeError) as error:
        problem = str(error)
    raise InputError(f"{path}: not a study reply file ({problem})")
