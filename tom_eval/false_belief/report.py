"""The false-belief battery in `tom-eval report`: a table per run (tasks solved, with the
paper's splits) and, for runs with the sentence-by-sentence variant, curves like the
paper's Figures 1-2: the probability of each key word after each sentence of the
false-belief story, for the reality and the belief prompt.

Logs are read through `inspect_ai.analysis.samples_df`; each prompt's outcome is in the
score's metadata (scorers/false_belief.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from tom_eval.errors import InputError
from tom_eval.false_belief.item_file import ITEM_DIGEST
from tom_eval.false_belief.parsing import on_key
from tom_eval.false_belief.solver import PromptOutcome, StepOutcome
from tom_eval.report.charts import save
from tom_eval.report.logs import (
    changed_settings,
    in_run_order,
    json_objects,
    label_runs,
    named_column,
    names_by_digest,
    once_per_sample,
    samples_frame,
)
from tom_eval.report.section import Context
from tom_eval.report.stats import EPOCHS_AS_TRIALS, wilson
from tom_eval.report.tables import cell, csv, interval, markdown
from tom_eval.report.values import Kind, records_of, refuse_missing_keys, refuse_wrong
from tom_eval.task_args import NOT_GIVEN

PAPER = (
    "Kosinski (PNAS 2024), on the original 40 tasks: ChatGPT-4 solved 75% (Unexpected "
    "Contents 90%, Unexpected Transfer 60%); GPT-3.5-turbo and davinci-003 20%; davinci-002 "
    "5%; older models 0%. A task is solved only if all 16 prompts (8 stories x reality and "
    "belief) are right. Generated tasks are new items in the same design, not the originals."
)
_REQUIRED = ("score_false_belief_scorer_metadata", "metadata_family")


LABEL_DEFAULTS: dict[str, object] = {
    "seed": 0,
    "contents": 20,
    "transfer": 20,
    "item_file": NOT_GIVEN,
    "perturbations": False,
    "samples": 100,
    "prefix": True,
    "sample": NOT_GIVEN,
    "sample_seed": 0,
}
"""The defaults of tasks/false_belief.py's parameters that change what is measured (a
test checks they agree): a run's label names those that differ."""


def run_setting(row: dict[str, Any]) -> str:
    """The part of a run's label that says how the battery was run, so runs of other
    items, prompts or estimators never merge."""
    estimator = f"false_belief, estimator={row.get('task_arg_estimator', 'first_word')}"
    return ", ".join([estimator, *changed_settings(row, LABEL_DEFAULTS)])


class FalseBeliefReport:
    """The battery's section of `tom-eval report`."""

    tasks: tuple[str, ...] = ("false_belief", "tom_eval/false_belief")

    def outcomes(self, evals: pd.DataFrame, context: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Each run's prompts answered and sentence steps (`outcomes`), runs labelled."""
        evals[named_column("item_file")] = names_by_digest(
            evals, "item_file", ITEM_DIGEST, undigested_by_path=True
        )
        evals["run"] = label_runs(evals, run_setting)
        return outcomes(evals, context.warnings, context.quiet)

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        """The battery's table per run and, where recorded, its sentence-by-sentence curves."""
        prompts, steps = self.outcomes(evals, context)
        if prompts.empty:
            return []
        return _section(prompts, steps, context.out)


def _section(prompts: pd.DataFrame, steps: pd.DataFrame, out: Path) -> list[str]:
    table = summary(prompts)
    csv(table, out / "false_belief.csv")
    view = pd.DataFrame(
        {
            "run": table["run"],
            "tasks": table["tasks"],
            "solved": [
                interval(v, lo, hi)
                for v, lo, hi in zip(
                    table["solved"], table["solved_low"], table["solved_high"], strict=True
                )
            ],
        }
    )
    for column in (
        "solved_contents",
        "solved_transfer",
        "prompts",
        "on_key",
        "false_belief_belief",
        "controls",
        "reality",
        "belief",
        "original",
        "reversed",
        "perturbations",
    ):
        view[column.replace("_", " ")] = table[column].map(cell)
    view["estimators"] = table["estimators"]
    lines = [
        "## False-belief battery",
        "",
        PAPER,
        "",
        "Shares are over the standard stories' prompts (false belief belief: the belief "
        "prompts of the false-belief stories; controls: every prompt of the true-belief "
        "controls); perturbations are scored apart. On key: the share of those prompts whose "
        "first word names one of the two key words (the rest are scored wrong). Tasks counts "
        "each task once per epoch (and per person, for people's sessions); the solved "
        f"interval is Wilson's, 95%, over those: {EPOCHS_AS_TRIALS}.",
        "",
        markdown(view),
        "",
    ]
    for index, run in enumerate(steps["run"].unique() if not steps.empty else []):
        path = sentence_curves(steps, str(run), out / f"sentences_{index + 1}.png")
        if path is None:
            lines += [
                f"{run}: sentence by sentence without probabilities (estimator "
                "first_word); run it with -T estimator=logprobs or sampling.",
                "",
            ]
        else:
            lines += [f"![Sentence by sentence: {run}]({path.name})", ""]
    return lines


def outcomes(
    evals: pd.DataFrame, warnings: list[str], quiet: bool
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per prompt (the 16 and any perturbations) and one per sentence step, each
    with its run, eval and task. `evals` has the columns `log`, `eval_id` and `run`;
    samples that errored are left out with a warning, and so are a run's samples repeated
    in another of its logs (`once_per_sample`)."""
    if evals.empty:
        return pd.DataFrame(), pd.DataFrame()
    logs = list(evals["log"])
    frame = samples_frame(logs, quiet)
    # First: a log that lost its sample entries is named as damaged, not as another version.
    frame = once_per_sample(frame, evals, warnings)
    missing = [column for column in _REQUIRED if column not in frame.columns]
    if missing:
        raise InputError(f"{', '.join(logs)}: not false-belief logs of this tom-eval version")
    runs = evals.set_index("eval_id")["run"]
    scored = json_objects(frame["score_false_belief_scorer_metadata"])
    refuse_missing_keys(frame, evals, "score metadata", scored, ("prompts", "steps"))
    for key, kind in (("prompts", _PROMPTS), ("steps", _STEPS)):
        values = [metadata.get(key, []) for metadata in scored]
        refuse_wrong(frame, evals, f"score metadata '{key}'", values, kind)
    untold = [
        sorted(_stories(metadata, "steps") - _stories(metadata, "prompts")) for metadata in scored
    ]
    refuse_wrong(
        frame,
        evals,
        "a sentence-step prompt's story",
        untold,
        _ALL_TOLD,
        lambda stories: stories[0],
    )
    prompts, steps = [], []
    unscored: dict[str, int] = {}
    for row, metadata in zip(frame.to_dict("records"), scored, strict=True):
        if not metadata:
            unscored[runs[row["eval_id"]]] = unscored.get(runs[row["eval_id"]], 0) + 1
            continue
        shared = {
            "run": runs[row["eval_id"]],
            "eval_id": row["eval_id"],
            "task": row["id"],
            "epoch": row["epoch"],
            "family": row["metadata_family"],
        }
        prompts += [shared | outcome for outcome in metadata.get("prompts", [])]
        truth = {(o["story"], o["kind"]): o["expected"] for o in metadata.get("prompts", [])}
        for step in metadata.get("steps", []):
            steps.append(
                shared | step | _key_probabilities(step, truth[(step["story"], "reality")])
            )
    warnings += [
        f"{run}: {count} task(s) errored or unscored; left out" for run, count in unscored.items()
    ]
    return pd.DataFrame(prompts), pd.DataFrame(steps)


_PROMPTS = records_of(PromptOutcome, "a list of prompt outcomes as the scorer writes them")
_STEPS = records_of(StepOutcome, "a list of sentence-step outcomes as the scorer writes them")


_ALL_TOLD = Kind("one of the sample's stories", lambda untold: not untold)


def _stories(metadata: dict[str, Any], outcomes: str) -> set[int]:
    """The stories of a sample's reality prompts (`outcomes`: "prompts") or sentence steps
    ("steps"): a step's truth is its story's reality prompt's answer."""
    return {
        outcome["story"]
        for outcome in metadata.get(outcomes, [])
        if outcomes == "steps" or outcome["kind"] == "reality"
    }


def _key_probabilities(step: dict[str, Any], truth: str) -> dict[str, float | None]:
    """P(the word for the true state) and P(the other key word) from a step's outcome, as
    the model gave them (not renormalised over the pair: answers that name neither key
    lower both, as in the paper's figures)."""
    if step["p_right"] is None:
        return {"p_truth": None, "p_other": None}
    names_truth = step["wrong"] != truth
    mass = float(step["key_mass"])
    right, wrong = float(step["p_right"]) * mass, float(step["p_wrong"]) * mass
    return {
        "p_truth": right if names_truth else wrong,
        "p_other": wrong if names_truth else right,
    }


def summary(prompts: pd.DataFrame) -> pd.DataFrame:
    """One row per run: tasks, solved with a Wilson interval, by family, and the shares
    right by story kind, prompt type and version (standard stories only)."""
    rows = []
    for run, group in prompts.groupby("run", sort=False):
        standard = group[~group["perturbed"].astype(bool)]
        tasks = standard.groupby(["eval_id", "task", "epoch"]).agg(
            solved=("correct", "all"), family=("family", "first")
        )
        solved = int(tasks["solved"].sum())
        low, high = wilson(solved, len(tasks))
        false_belief = standard["condition"] == "false_belief"
        row: dict[str, Any] = {
            "run": run,
            "tasks": len(tasks),
            "solved": solved / len(tasks) if len(tasks) else float("nan"),
            "solved_low": low,
            "solved_high": high,
        }
        for family in ("contents", "transfer"):
            of_family = tasks[tasks["family"] == family]["solved"]
            row[f"solved_{family}"] = of_family.mean() if len(of_family) else float("nan")
        row["prompts"] = standard["correct"].mean()
        on_key_shares = standard[["first_word", "expected", "wrong"]].apply(_on_key, axis=1)
        row["on_key"] = float(on_key_shares.mean()) if len(standard) else float("nan")
        row["false_belief_belief"] = standard[false_belief & (standard["kind"] == "belief")][
            "correct"
        ].mean()
        row["controls"] = standard[~false_belief]["correct"].mean()
        for kind in ("reality", "belief"):
            row[kind] = standard[standard["kind"] == kind]["correct"].mean()
        row["original"] = standard[~standard["reversed"].astype(bool)]["correct"].mean()
        row["reversed"] = standard[standard["reversed"].astype(bool)]["correct"].mean()
        perturbed = group[group["perturbed"].astype(bool)]
        row["perturbations"] = perturbed["correct"].mean() if len(perturbed) else float("nan")
        row["estimators"] = ", ".join(sorted(set(group["estimator"])))
        rows.append(row)
    return in_run_order(pd.DataFrame(rows, columns=None if rows else ["run"]))


def _on_key(prompt: pd.Series) -> bool:
    # No word and no expected key arrive as None or NaN, by how the log was read.
    word, expected, wrong = (value if isinstance(value, str) else None for value in prompt)
    return on_key(word, expected, str(wrong))


def sentence_curves(steps: pd.DataFrame, run: str, path: Path) -> Path | None:
    """Mean P(key word) after each sentence of the original false-belief stories, per
    family and prompt: the paper's Figures 1-2, averaged over tasks. None when the run has
    no probabilities (the `first_word` estimator gives none)."""
    shown = steps[(steps["run"] == run) & ~steps["reversed"].astype(bool)].dropna(
        subset=["p_truth"]
    )
    if shown.empty:
        return None
    families = [f for f in ("contents", "transfer") if (shown["family"] == f).any()]
    figure, axes = plt.subplots(len(families), 2, figsize=(10, 3.2 * len(families)), squeeze=False)
    labels = {
        "contents": ("true contents", "label"),
        "transfer": ("new location", "original location"),
    }
    for row, family in enumerate(families):
        for column, kind in enumerate(("reality", "belief")):
            axis = axes[row][column]
            part = shown[(shown["family"] == family) & (shown["kind"] == kind)]
            means = part.groupby("step")[["p_truth", "p_other"]].mean()
            truth, other = labels[family]
            axis.plot(means.index, means["p_truth"], marker="o", label=f"P({truth})")
            axis.plot(means.index, means["p_other"], marker="s", label=f"P({other})")
            axis.set_ylim(-0.02, 1.02)
            axis.set_title(f"{family}: {kind} prompt")
            axis.set_xlabel("sentences shown")
            axis.legend(fontsize=8)
    figure.suptitle(f"Sentence by sentence: {run}")
    return save(figure, path)
