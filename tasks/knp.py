"""KNP, knowledge-sensitive next-action prediction (Yang et al., "Are LLMs Smarter Than
Chimpanzees?", 2026): `inspect eval tasks/knp.py --model ...`.

Each of the 500 short stories holds a fact its character cannot know that would change the
character's next action; the model chooses between the action without the fact (right)
and the action that uses it (a knowledge leak). The authors' data is downloaded at run time
(see tom_eval/knowledge/source.py) or read from `data_dir`. See docs/knowledge.md.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.solver import generate

from scorers.knp import knp_judge_scorer, knp_metrics, knp_scorer
from tom_eval.errors import InputError, user_path
from tom_eval.knowledge.dataset import (
    ORDERS,
    chosen_genres,
    knp_dataset,
    source_metadata,
)
from tom_eval.knowledge.players import OPEN_KNP
from tom_eval.knowledge.records import load_knp
from tom_eval.progress import show_progress
from tom_eval.providers.base import refuse_unplayable
from tom_eval.sampling import by_metadata, sample_subset, subset_arguments
from tom_eval.task_args import (
    NOT_GIVEN,
    file_name,
    flag,
    one_of,
    optional,
    refuse_misspelt,
    task_arguments,
    whole_number,
)


@task
def knp(
    data_dir: str = NOT_GIVEN,
    order: str = "seeded",
    seed: int = 0,
    open_ended: bool = False,
    focus_on_knowledge: bool = False,
    genre: str | list[str] = NOT_GIVEN,
    sample: int | str = NOT_GIVEN,
    sample_seed: int = 0,
    **unknown: Any,
) -> Task:
    """Knowledge-sensitive next-action prediction.

    Args:
        data_dir: a local copy of the Act-on-Known repository (or its Data folder) instead
            of the download; its SHA256SUMS is verified when it has one.
        order: where the right option stands: "seeded" (first for exactly half of the
            items, drawn with `seed`), "both" (every item in both orders, and the order
            consistency metric), "correct_a" or "correct_b".
        seed: the seed of the "seeded" order (refused with any other order, and with
            `open_ended`).
        open_ended: ask for the next action without options, judged by the `grader` model
            role with the paper's Table 10 prompt (True / False / NA); `order` is refused.
        focus_on_knowledge: tell the model to attend to what the characters know (the
            paper's Figure 4 ablation).
        genre: only these genres (comma-separated): fantasy, kids, mystery, romance,
            science-fiction.
        sample: play a balanced subset of this many items, spread evenly over the right
            option's letter, then the genres (an item played in both orders counts once)
            (default: every item).
        sample_seed: the seed of the subset (default 0).
    """
    with task_arguments("knp"):
        refuse_misspelt("knp", unknown, knp)
        chosen_order = one_of("order", order, ORDERS)
        number = whole_number("seed", seed)
        open_question = flag("open_ended", open_ended)
        focus = flag("focus_on_knowledge", focus_on_knowledge)
        if open_question and chosen_order != "seeded":
            raise InputError("order places the options: open-ended items have none (drop order)")
        if number != 0 and open_question:
            # It would be ignored: only the seeded order draws anything.
            raise InputError("seed draws the order of the options: open-ended items have none")
        if number != 0 and chosen_order != "seeded":
            raise InputError(
                f"seed draws the seeded order of the options, not order={chosen_order}: "
                "drop seed, or drop order"
            )
        size, subset_seed = subset_arguments(sample, sample_seed)
        if open_question:  # the judge plays it too (by default the model itself)
            refuse_unplayable(OPEN_KNP, roles=("grader",))
        else:
            refuse_unplayable("knp")
        show_progress()
        folder = file_name("data_dir", data_dir, kind="folder")
        given_genres = optional("genre", genre)  # before the download it may spare
        data, origin = load_knp(user_path(folder) if folder else None)
        genres = chosen_genres(given_genres, {item.genre for item in data.items})
        dataset, subset = sample_subset(
            knp_dataset(
                data.items, genres, chosen_order, number, open_question, focus, f"knp {origin}"
            ),
            size,
            subset_seed,
            # The right option's place first (a position bias must not decide a small run),
            # then the genre; an item played in both orders is drawn whole.
            by_metadata("correct_letter", "genre"),
            unit=lambda sample: str((sample.metadata or {})["item"]),
            counted="items",
        )
    both = chosen_order == "both"
    return Task(
        dataset=dataset,
        solver=generate(),
        scorer=knp_judge_scorer() if open_question else knp_scorer(),
        metrics=[knp_metrics(both_orders=True)] if both else None,
        version="7-A",
        metadata=source_metadata("knp", origin, data) | subset,
    )
