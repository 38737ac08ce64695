"""Reference players: Inspect model providers that play by fixed policies (`--model tom/<name>`).

* `oracle`: reads the story from the prompt, runs the engine, plays its optimal action and
  answers from what A knows (its own certain belief, or a reply it can trust);
* `always-pass`: always passes (the trivial baseline: 81% plain accuracy, 1/3 balanced);
* `random`: picks uniformly among the actions of the choice format (seeded by `-M seed`
  and the prompt, so a run is reproducible);
* `no-tom`: a player without theory of mind. It acts as if every other player knew what A
  knows, so it never sees a reason to ask or tell;
* `bounded` (`-M memory=K`): the oracle with a bounded memory: of each story it keeps the
  last K events and who is in the room when they begin, and knows no more of the
  containers before them than if it had been out of the room, so it breaks in a known way
  as stories grow (the load ladder's reference: its span grows with K).

They read nothing but the conversation, through `prompts.read_prompt`, so they can never
use what player A could not perceive. Each reply reports token usage (about four
characters a token; no tokenizer download) and `-M latency=SECONDS` imitates an API.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import ClassVar

from inspect_ai.model import ChatMessage, GenerateConfig

from tom_eval.game.decisions import PASS, Action, Situation, decide
from tom_eval.game.epistemics import Assessment, assess
from tom_eval.game.parsing import option_letter
from tom_eval.game.prompts import (
    ANSWER_REQUEST,
    ASKS_YOU,
    NotAGamePrompt,
    PromptView,
    choice_options,
    read_asker,
    read_game_turn,
    read_prompt,
    read_said,
)
from tom_eval.game.rules import always_truthful_to
from tom_eval.game.world import NOTHING, SELF, Enter, Leave
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


def oracle(view: PromptView, seed: str) -> Action:
    return decide(_situation(view, assess(view.observation))).optimal


def always_pass(view: PromptView, seed: str) -> Action:
    return PASS


def random_action(view: PromptView, seed: str) -> Action:
    return random.Random(seed).choice(_options(view, seed))


def no_theory_of_mind(view: PromptView, seed: str) -> Action:
    """Decides as if everyone, itself included, knew what A believes."""
    mine = assess(view.observation)
    everyone_knows = Assessment(
        statuses={player: "true" for player in mine.statuses},
        present=frozenset(mine.statuses),
        self_belief=mine.self_belief,
        truth=mine.self_belief,
        truth_known=True,
        ect=mine.ect,
        visible_events=mine.visible_events,
    )
    return decide(_situation(view, everyone_knows)).optimal


POLICIES: dict[str, Callable[[PromptView, str], Action]] = {
    "oracle": oracle,
    # The oracle with a bounded memory (-M memory=K): it breaks in a known way as stories
    # grow (`forget`).
    "bounded": oracle,
    "always-pass": always_pass,
    "random": random_action,
    "no-tom": no_theory_of_mind,
}


def _situation(view: PromptView, assessment: Assessment) -> Situation:
    observation = view.observation
    return Situation(
        assessment,
        observation.question,
        observation.answerer,
        view.players,
        observation.containers,
        view.rules,
    )


def _options(view: PromptView, seed: str) -> list[Action]:
    if view.options:
        return list(view.options)
    belief = assess(view.observation).self_belief
    return choice_options(view.observation, belief, view.players, seed)


def respond(
    policy: str,
    conversation: Sequence[tuple[str, str]],
    seed: int,
    memory: int | None = None,
) -> str:
    """The reply of reference player `policy` to a conversation of (role, text) pairs:
    a single turn's, or a full game's (`-T mode=game`). With `memory`, the player keeps only
    the last `memory` events of each story it reads (`forget`)."""
    user_texts = [text for role, text in conversation if role == "user"]
    game_turn = read_game_turn(user_texts)
    if game_turn is not None:
        view, lines = game_turn
        request = user_texts[-1]
    else:
        view, lines = (
            read_prompt(user_texts[0]),
            [line.strip() for text in user_texts[1:] for line in text.splitlines()],
        )
        request = user_texts[-1] if len(user_texts) > 1 else ""
    if memory is not None:
        view = forget(view, memory)
    if ANSWER_REQUEST in request:
        return _contents_reply(view, best_answer(view, lines))
    asked_by = next((asker for line in lines if (asker := read_asker(line))), None)
    if asked_by is not None and ASKS_YOU in request:
        # Reference players tell their own side what they know and give the other side
        # nothing: a reply to an opponent can only help it.
        truthful = always_truthful_to(SELF, asked_by)
        return _contents_reply(view, best_answer(view, lines) if truthful else "refuse")
    sample_seed = f"{seed}:{hashlib.sha256(user_texts[0].encode()).hexdigest()}"
    action = POLICIES[policy](view, sample_seed)
    if view.response_format == "choice":
        return option_letter(view.options.index(action))
    if view.response_format == "free":
        return f"I weigh who knows what.\nACTION: {action}"
    return str(action)


def forget(view: PromptView, memory: int) -> PromptView:
    """What a player that holds only the last `memory` sentences of a story keeps: those
    events, and who is in the room when they begin (it sees who is there). Everything
    before them is forgotten, so it knows no more of the containers than if it had been out
    of the room all that while: it steps out at the start and back in where its memory
    begins. A story no longer than its memory is kept whole."""
    observation = view.observation
    if memory >= len(observation.events):
        return view
    forgotten, kept = observation.events[:-memory], observation.events[-memory:]
    present = set(observation.present_initially)
    for event in forgotten:
        if isinstance(event, Leave):
            present.discard(event.actor)
        elif isinstance(event, Enter):
            present.add(event.actor)
    stepped_out = (Leave(SELF), Enter(SELF)) if SELF in present else ()
    return replace(
        view,
        observation=replace(
            observation,
            present_initially=frozenset(present),
            events=(*stepped_out, *kept),
        ),
    )


def _contents_reply(view: PromptView, contents: str) -> str:
    if view.response_format == "free":
        return f"I answer from what I know.\nANSWER: {contents}"
    return contents


def best_answer(view: PromptView, lines: list[str]) -> str:
    """A's own belief, unless a player A can trust replied with certain knowledge, or,
    when A cannot be sure, its teammate told it something (the trust rule of the game)."""
    assessment = assess(view.observation)
    question = view.observation.question
    for line in lines:
        said = read_said(line)
        if said is None or said.container != question:
            continue
        if not always_truthful_to(said.player, SELF):
            continue
        if said.replied:
            usable = assessment.statuses.get(said.player) == "true"
        else:
            usable = assessment.statuses[SELF] != "true"
        if usable:
            return said.contents
    return assessment.self_belief or NOTHING


class ReferencePlayer(LocalProvider):
    """`tom/<policy>`; model args: `latency` (seconds per call), `seed` (for `random`),
    `memory` (for `bounded`: the events of a story it keeps)."""

    PLAYS = ("tom",)
    ARGS: ClassVar[Mapping[str, Arg]] = {
        "latency": Arg(0.0, number, **between(0, LONGEST_WAIT)),
        "seed": Arg(0, whole, **a_seed()),
        "memory": Arg(None, whole, only="tom/bounded", **at_least(1)),
    }
    latency: float
    seed: int
    memory: int | None

    def setup(self) -> None:
        if self.model_name not in POLICIES:
            raise refused(
                f"unknown reference player '{self.name}' (use one of: {', '.join(POLICIES)})"
            )
        if self.model_name == "bounded" and self.memory is None:
            raise refused(f"{self.name} needs -M memory=K (the events of a story it keeps)")
        if self.model_name != "bounded" and self.memory is not None:
            raise refused(f"{self.name}: -M memory=K is for tom/bounded only")

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        conversation = [(message.role, message.text) for message in input]
        try:
            text = respond(self.model_name, conversation, self.seed, self.memory)
        except NotAGamePrompt:
            raise self.unplayable() from None
        schema = config.response_schema
        if schema is not None and schema.json_schema.properties:
            text = structured(text, set(schema.json_schema.properties))
        return Reply(text)


def structured(text: str, fields: set[str]) -> str:
    """A reference player's reply as JSON of a structured-output schema's `fields`."""
    reply: dict[str, str] = (
        {"reasoning": "I weigh who knows what."} if "reasoning" in fields else {}
    )
    # A free-format reply's last line holds the action or answer after its tag.
    said = text.splitlines()[-1].partition(": ")[2] if "reasoning" in fields else text
    if "letter" in fields:
        reply["letter"] = said
    elif "action" in fields:
        action = PASS if said == "Pass" else Action.from_text(said)
        reply |= {
            "action": action.kind.capitalize(),
            "player": action.player or "B",
            "container": action.container or "bag",
            "contents": action.contents or "",
        }
    else:
        reply["contents"] = said
    return json.dumps(reply)
