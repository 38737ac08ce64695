"""IKD, implausible knowledge detection (Yang et al., "Are LLMs Smarter Than Chimpanzees?",
2026): `inspect eval tasks/ikd.py --model ...`.

1,000 stories of about 600 words: 500 originals, and 500 in which a character states or
acts on knowledge they cannot have. The model says whether the story has a logic error and
quotes it; scored by classification and by localisation (word-level IoU with the gold
error span). The authors' data is downloaded at run time (see
tom_eval/knowledge/source.py) or read from `data_dir`. See docs/knowledge.md.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.solver import generate

from scorers.ikd import ikd_scorer
from tom_eval.errors import InputError, user_path
from tom_eval.knowledge.dataset import (
    STORIES,
    chosen_genres,
    ikd_dataset,
    source_metadata,
)
from tom_eval.knowledge.prompts import HIGHLIGHTS
from tom_eval.knowledge.records import load_ikd
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
)


@task
def ikd(
    data_dir: str = NOT_GIVEN,
    stories: str = "all",
    highlight: str = "none",
    focus_on_knowledge: bool = False,
    genre: str | list[str] = NOT_GIVEN,
    sample: int | str = NOT_GIVEN,
    sample_seed: int = 0,
    **unknown: Any,
) -> Task:
    """Implausible knowledge detection.

    Args:
        data_dir: a local copy of the Act-on-Known repository (or its Data folder) instead
            of the download; its SHA256SUMS is verified when it has one.
        stories: "all" (the 500 originals and the 500 erroneous stories), "original" or
            "error".
        highlight: "none"; "error" shows the erroneous event again after the story (the
            paper's Table 3 ablation 1); "error_and_knowledge" also the story's mention of
            the knowledge (ablation 2; with focus_on_knowledge, ablation 3). Needs
            stories=error: an original story has no erroneous event.
        focus_on_knowledge: tell the model to attend to what the characters know (Figure 4,
            and Table 3 ablation 3).
        genre: only these genres (comma-separated): fantasy, kids, mystery, romance,
            science-fiction.
        sample: play a balanced subset of this many stories, spread evenly over original
            and erroneous stories and the genres (default: every story).
        sample_seed: the seed of the subset (default 0).
    """
    refuse_unplayable("ikd")
    show_progress()
    with task_arguments("ikd"):
        refuse_misspelt("ikd", unknown, ikd)
        chosen_stories = one_of("stories", stories, STORIES)
        chosen_highlight = one_of("highlight", highlight, HIGHLIGHTS)
        focus = flag("focus_on_knowledge", focus_on_knowledge)
        if chosen_highlight != "none" and chosen_stories != "error":
            raise InputError(
                f"highlight={chosen_highlight} needs stories=error "
                "(an original story has no erroneous event to highlight)"
            )
        size, subset_seed = subset_arguments(sample, sample_seed)
        folder = file_name("data_dir", data_dir, kind="folder")
        given_genres = optional("genre", genre)  # before the download it may spare
        data, origin = load_ikd(user_path(folder) if folder else None)
        present = {s.genre for s in data.originals} | {s.genre for s in data.errors}
        genres = chosen_genres(given_genres, present)
        dataset, subset = sample_subset(
            ikd_dataset(data, genres, chosen_stories, chosen_highlight, focus, f"ikd {origin}"),
            size,
            subset_seed,
            by_metadata("kind", "genre"),
            counted="stories",
        )
    return Task(
        dataset=dataset,
        solver=generate(),
        scorer=ikd_scorer(),
        version="7-A",
        metadata=source_metadata("ikd", origin, data) | subset,
    )
