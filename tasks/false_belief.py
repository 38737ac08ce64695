"""Kosinski's false-belief battery (PNAS 2024): `inspect eval tasks/false_belief.py --model ...`.

One Sample per task; each of its 16 completion prompts (8 stories x reality and belief) is
an independent conversation, and a task is solved only if all 16 first words are right.
Items are generated afresh (20 Unexpected Contents + 20 Unexpected Transfer by default), or
read from `item_file` (e.g. the paper's originals, which are not shipped). See docs/false-belief.md.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from scorers.false_belief import false_belief_scorer
from tom_eval.errors import InputError, user_path
from tom_eval.false_belief.dataset import false_belief_dataset
from tom_eval.false_belief.generation import generate_items
from tom_eval.false_belief.item_file import ITEM_DIGEST, read_items
from tom_eval.false_belief.prompts import CHAT_PREFIX
from tom_eval.false_belief.solver import ESTIMATORS, complete_stories
from tom_eval.json_fields import content_digest
from tom_eval.progress import show_progress
from tom_eval.providers.base import refuse_unplayable
from tom_eval.sampling import by_metadata, sample_subset, subset_arguments
from tom_eval.task_args import (
    MAX_DRAWS,
    NOT_GIVEN,
    file_name,
    flag,
    one_of,
    refuse_misspelt,
    task_arguments,
    whole_number,
)

SAMPLES = 100
"""Completions per prompt for the sampling estimator (and logprobs' fallback)."""


@task
def false_belief(
    contents: int = 20,
    transfer: int = 20,
    seed: int = 0,
    item_file: str = NOT_GIVEN,
    perturbations: bool = False,
    estimator: str = "first_word",
    samples: int = SAMPLES,
    sentence_by_sentence: bool = False,
    prefix: bool = True,
    sample: int | str = NOT_GIVEN,
    sample_seed: int = 0,
    **unknown: Any,
) -> Task:
    """The false-belief battery.

    Args:
        contents: Unexpected Contents tasks to generate (default 20).
        transfer: Unexpected Transfer tasks to generate (default 20).
        seed: generator seed (default 0).
        item_file: play the tasks of a JSON Lines file instead (format in
            tom_eval/false_belief/item_file.py); contents, transfer, seed and
            perturbations, which make the generated tasks, are refused with it.
        perturbations: add the Ullman-style alterations of each contents task (transparent
            container, protagonist cannot read, label written by the protagonist), scored
            apart from `solved`.
        estimator: "first_word" (one completion, temperature 0), "logprobs" (P of each key
            word from the first token's top log-probabilities, else sampling) or "sampling"
            (the share of first words over `samples` completions at temperature 1).
        samples: completions per prompt for "sampling" (the paper used 1,000).
        sentence_by_sentence: also reveal each false-belief story one sentence at a time,
            with both prompts after each sentence (for the report's curves).
        prefix: start each prompt with "Complete the following story:" (for chat models;
            false for base models that continue text).
        sample: play a balanced subset of this many tasks, spread evenly over the two
            families (default: every task).
        sample_seed: the seed of the subset (default 0).
    """
    refuse_unplayable("false_belief")
    show_progress()
    with task_arguments("false_belief"):
        refuse_misspelt("false_belief", unknown, false_belief)
        chosen = one_of("estimator", estimator, ESTIMATORS)
        contents = whole_number("contents", contents, minimum=0)
        transfer = whole_number("transfer", transfer, minimum=0)
        samples = whole_number("samples", samples, minimum=1, maximum=MAX_DRAWS)
        if chosen == "first_word" and samples != SAMPLES:
            # It would change nothing but the run's label, which it would split.
            raise InputError(
                "samples is for the sampling and logprobs estimators (first_word reads one "
                "completion): add -T estimator=sampling, or drop samples"
            )
        size, subset_seed = subset_arguments(sample, sample_seed)
        seed, file = whole_number("seed", seed), file_name("item_file", item_file)
        perturbations = flag("perturbations", perturbations)
        sentence_by_sentence = flag("sentence_by_sentence", sentence_by_sentence)
        prefix = flag("prefix", prefix)
        if file:
            # The file holds the tasks: settings of the generator would be ignored.
            given = (contents, transfer, seed, perturbations) != (20, 20, 0, False)
            if given:
                raise InputError(
                    "contents, transfer, seed and perturbations make the generated tasks: "
                    "drop them with item_file (the file holds its tasks)"
                )
            items, name = read_items(user_path(file)), file
            file_metadata = {ITEM_DIGEST: content_digest(items)}
        else:
            items = generate_items(contents, transfer, seed, perturbations)
            name = f"tom-eval false-belief seed {seed}"
            file_metadata = {}
        if not items:
            raise InputError("no tasks: contents and transfer are both 0")
        # Inside: a file's item whose prompts clash is refused by the dataset.
        dataset, subset = sample_subset(
            false_belief_dataset(items, name, CHAT_PREFIX if prefix else "", sentence_by_sentence),
            size,
            subset_seed,
            by_metadata("family"),
            counted="tasks",
        )
    return Task(
        dataset=dataset,
        solver=complete_stories(chosen, samples),
        scorer=false_belief_scorer(),
        # The paper's point estimates are at temperature 0; the first word is all that counts.
        config=GenerateConfig(temperature=0.0, max_tokens=30),
        version="3-A",
        metadata={"estimator": estimator} | subset | file_metadata,
    )
