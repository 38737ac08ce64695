"""The solver of the false-belief battery: every completion prompt of a task is its own
conversation (nothing carries over between prompts), issued concurrently, each inside a
span named by its story and prompt so Inspect View shows them apart.

Estimators (`-T estimator=`):
* `first_word` (the paper's point estimate): one completion at the task's temperature
  (0 by default); right when its first word names the expected key word.
* `logprobs`: one completion with `logprobs`; P(each key word) from the top
  log-probabilities of the first answer token, renormalised over the two keys. When the
  provider returns none, or no top token begins either key, the prompt falls back to
  sampling, and says so.
* `sampling`: K completions at temperature 1 (`-T samples=K`; the paper used 1,000), each
  with its own seed and never from the cache; P(each key word) is the share of first words
  naming it, renormalised over the two keys (and `key_mass` the share naming either).
With a probability, a prompt is right when the key it should name is the more probable one
(`_likely_right`).
The estimator actually used is recorded with every prompt.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, collect, span, store_as
from pydantic import Field

from tom_eval.false_belief.items import ALL_CONDITIONS, ALL_PERTURBATIONS, PromptKind
from tom_eval.false_belief.parsing import (
    KeyProbability,
    correct,
    first_word,
    from_logprobs,
    from_samples,
)

Estimator = Literal["first_word", "logprobs", "sampling"]
ESTIMATORS: tuple[Estimator, ...] = ("first_word", "logprobs", "sampling")
TOP_LOGPROBS = 20
_FROM_THE_PROMPT = (
    "story",
    "condition",
    "reversed",
    "perturbed",
    "kind",
    "expected",
    "wrong",
    "step",
)
"""A prompt's outcome's fields that the prompt's record (the sample's metadata) gives
(`step` only a sentence-step prompt's)."""


@dataclass(frozen=True)
class PromptOutcome:
    """A prompt's outcome: the solver records it beside the prompt's own record and the
    reply (`_answer`); the scorer reads it back and logs it without the long texts (the
    transcript has them), where the report reads it (both through `refusal.as_record`, so a
    log edited by hand is refused in one line). A condition the battery has not is refused
    too: its prompt would count in no share."""

    story: int
    condition: str
    reversed: bool
    perturbed: bool
    kind: PromptKind
    expected: str | None
    wrong: str
    first_word: str | None
    correct: bool
    estimator: Estimator
    p_right: float | None
    p_wrong: float | None
    key_mass: float | None

    def __post_init__(self) -> None:
        if self.condition not in (*ALL_CONDITIONS, *ALL_PERTURBATIONS):
            raise ValueError(f"'condition' is {self.condition!r:.60}: none of the battery's")


@dataclass(frozen=True)
class StepOutcome(PromptOutcome):
    """A prompt's outcome after one sentence of a story told sentence by sentence."""

    step: int


class FalseBeliefRecord(StoreModel):
    """Each prompt's record (from the sample's metadata) with what the model said."""

    completions: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[dict[str, Any]] = Field(default_factory=list)


@solver
def complete_stories(estimator: Estimator = "first_word", samples: int = 100) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        keys = tuple(state.metadata["key_words"])
        record = store_as(FalseBeliefRecord)
        prompts = state.metadata["prompts"]
        record.completions = await collect(
            *(_answer(model, p, (keys[0], keys[1]), estimator, samples) for p in prompts)
        )
        record.steps = await collect(
            *(
                _answer(model, p, (keys[0], keys[1]), estimator, samples)
                for p in state.metadata["steps"]
            )
        )
        solved = sum(1 for c in record.completions if c["correct"])
        state.output = ModelOutput.from_content(
            model=model.name, content=f"{solved} of {len(record.completions)} prompts right"
        )
        return state

    return solve


async def _answer(
    model: Model,
    prompt: dict[str, Any],
    keys: tuple[str, str],
    estimator: Estimator,
    samples: int,
) -> dict[str, Any]:
    """One prompt, estimated as asked; the record of the prompt with the model's answer."""
    wrong = str(prompt["wrong"])
    pair = (next(key for key in keys if key != wrong), wrong)
    text = str(prompt["prompt"])
    name = f"{prompt['condition']}{' reversed' if prompt['reversed'] else ''}: {prompt['kind']}"
    if "step" in prompt:
        name += f" after sentence {prompt['step']}"
    used, draws_right = estimator, None
    async with span(name):
        message: list[ChatMessage] = [ChatMessageUser(content=text)]
        config = GenerateConfig(logprobs=True, top_logprobs=TOP_LOGPROBS)
        output = await model.generate(
            message, config=config if estimator == "logprobs" else GenerateConfig()
        )
        probability = _logprob_estimate(output, pair) if estimator == "logprobs" else None
        if estimator == "sampling" or (estimator == "logprobs" and probability is None):
            used = "sampling"
            drawn = await collect(*(_sample(model, message, index) for index in range(samples)))
            words = [first_word(o.completion, text) for o in drawn]
            probability = from_samples(words, pair)
            if prompt["expected"] is None:  # the one rule that reads the draws themselves
                right = [correct(drawn_word, None, wrong) for drawn_word in words]
                draws_right = sum(right) / len(right)
    word = first_word(output.completion, text)
    by_word = correct(word, prompt["expected"], wrong)
    outcome = (StepOutcome if "step" in prompt else PromptOutcome)(
        **{name: prompt[name] for name in _FROM_THE_PROMPT if name in prompt},
        first_word=word,
        correct=(
            by_word
            if used == "first_word"
            else _likely_right(prompt["expected"], probability, draws_right)
        ),
        estimator=used,
        p_right=None if probability is None else probability.first,
        p_wrong=None if probability is None else probability.second,
        key_mass=None if probability is None else probability.mass,
    )
    return (
        prompt | {"completion": output.completion, "first_word_correct": by_word} | asdict(outcome)
    )


def _likely_right(
    expected: str | None, probability: KeyProbability | None, draws_right: float | None
) -> bool:
    """Judged by probability: the key the prompt should name is the more probable one.
    With no right key (a protagonist who cannot read), right when most answers are right
    by the first-word rule (`draws_right`, the share of sampled draws that are a word and
    not the wrong key, so an empty or refused reply counts against, as it does for
    `first_word`), or, from log-probabilities, when the wrong key's own probability is
    below one half. Without any estimate (no key word sampled, where a key is wanted),
    wrong."""
    if expected is None and draws_right is not None:
        return draws_right > 0.5
    if probability is None:  # a prompt with no key wanted has `draws_right` when it has none
        return False
    if expected is None:
        return probability.second * probability.mass < 0.5
    return probability.first > probability.second


async def _sample(model: Model, message: list[ChatMessage], index: int) -> ModelOutput:
    """One draw at temperature 1, never from the cache, with its own seed (the same for a
    rerun, where the provider honours seeds; never the same for two draws)."""
    draw = GenerateConfig(temperature=1.0, seed=index)
    return await model.generate(message, config=draw, cache=False)


def _logprob_estimate(output: ModelOutput, pair: tuple[str, str]) -> KeyProbability | None:
    """From the first generated token that holds a letter (chat models may open with a
    space or a quotation mark)."""
    logprobs = output.choices[0].logprobs if output.choices else None
    if logprobs is None:
        return None
    for token in logprobs.content:
        if any(character.isalnum() for character in token.token):
            top = token.top_logprobs or []
            return from_logprobs([(t.token, t.logprob) for t in top], pair)
    return None
