"""The knowledge tasks in `tom-eval report`: a table per task with a row per run, each rate
with its 95% Wilson interval over the samples it applies to (an empty set has none), and
the paper's Table 2 beside them.

Logs are read through `inspect_ai.analysis.samples_df`; each sample's values are its score
(scorers/knp.py, scorers/ikd.py), so epochs and subsets are counted as they were run."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from tom_eval.knowledge.dataset import DATA_DIGEST
from tom_eval.report.logs import (
    changed_settings,
    in_run_order,
    json_objects,
    label_runs,
    named_column,
    names_by_digest,
    number,
    once_per_sample,
    samples_frame,
)
from tom_eval.report.section import Context
from tom_eval.report.stats import EPOCHS_AS_TRIALS, wilson
from tom_eval.report.tables import csv, interval, markdown
from tom_eval.report.values import SHARE, refuse_missing_keys, refuse_wrong
from tom_eval.task_args import NOT_GIVEN

KNP_TASKS = ("knp", "tom_eval/knp")
IKD_TASKS = ("ikd", "tom_eval/ikd")
LABEL_DEFAULTS: dict[str, dict[str, object]] = {
    "knp": {
        "data_dir": NOT_GIVEN,
        "order": "seeded",
        "seed": 0,
        "open_ended": False,
        "focus_on_knowledge": False,
        "sample": NOT_GIVEN,
        "sample_seed": 0,
        "genre": NOT_GIVEN,
    },
    "ikd": {
        "data_dir": NOT_GIVEN,
        "stories": "all",
        "highlight": "none",
        "focus_on_knowledge": False,
        "sample": NOT_GIVEN,
        "sample_seed": 0,
        "genre": NOT_GIVEN,
    },
}
"""The task parameters that change what is measured (a test checks they agree with the
tasks' defaults): a run's label names those that differ (the genres in any order)."""
COLUMNS = {
    "knp": ("accuracy", "knowledge_leak", "na", "no_answer", "invalid"),
    "ikd": (
        "classification",
        "classification_original",
        "classification_error",
        "localisation",
        "localisation_error",
        "called_error",
        "invalid",
    ),
}
"""The score values shown, in the order of the paper's Table 2 (then ours: `na`, the
open-ended judge's NA verdicts, left out of accuracy; `no_answer`, open-ended replies
without an action, not judged and counted wrong; `invalid` last, present in every scored
sample)."""
WRITTEN = {"knp": ("accuracy", "knowledge_leak", "invalid"), "ikd": COLUMNS["ikd"]}
"""The score values each task's scorers write in every scored sample (`na` and, from KNP's
6-A, `no_answer` are the open-ended judge scorer's alone)."""
PAPER = (
    "Yang et al. (2026), Table 2, on the authors' data: KNP accuracy Claude-4.5-Opus 0.69, "
    "Gemini-3-Pro 0.67, GPT-5.4 (high) 0.61, GPT-4o 0.49, LLaMA3.1-8B 0.51, humans 0.92; "
    "IKD full-set classification 0.68, 0.57, 0.60, 0.51, 0.39 and humans 0.76."
)


def run_setting(row: dict[str, Any]) -> str:
    task = "knp" if row["task_name"] in KNP_TASKS else "ikd"
    return ", ".join([task, *changed_settings(row, LABEL_DEFAULTS[task], {"genre": ()})])


def data_names(evals: pd.DataFrame) -> pd.Series:
    """Each run's data folder by its name (the folder the task read: a copy's Data folder
    names its clone), with its digest where folders of that name differ; KNP's and IKD's
    records of one folder differ, so each task's runs are named apart."""
    names: pd.Series = pd.Series(None, index=evals.index, dtype=object)
    for task_names in (KNP_TASKS, IKD_TASKS):
        mine = evals[evals["task_name"].isin(task_names)]
        names[mine.index] = names_by_digest(mine, "data_dir", DATA_DIGEST, source_key="source")
    return names


class KnowledgeReport:
    """KNP's and IKD's section of `tom-eval report`."""

    tasks: tuple[str, ...] = (*KNP_TASKS, *IKD_TASKS)

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        evals[named_column("data_dir")] = data_names(evals)
        evals["run"] = label_runs(evals, run_setting)
        intervals = (
            "Intervals are Wilson's, 95%, over the samples each rate counts (n), each epoch "
            f"of a sample a trial: {EPOCHS_AS_TRIALS}."
        )
        lines = ["## Knowledge-state tasks (KNP, IKD)", "", PAPER, "", intervals, ""]
        for task, names in (("knp", KNP_TASKS), ("ikd", IKD_TASKS)):
            mine = evals[evals["task_name"].isin(names)]
            if mine.empty:
                continue
            table = rates(mine, task, context)
            if table.empty:  # every sample errored or unscored (each run named in a warning)
                unscored = f"No {task.upper()} run has scored samples (see the warnings above)."
                lines += [f"### {task.upper()}", "", unscored, ""]
                continue
            csv(table, context.out / f"{task}.csv")
            lines += [f"### {task.upper()}", "", markdown(_view(table, task)), ""]
        return lines


def rates(evals: pd.DataFrame, task: str, context: Context) -> pd.DataFrame:
    """One row per run: N, and each rate with its interval and the samples it counts."""
    frame = samples_frame(list(evals["log"]), context.quiet)
    frame = once_per_sample(frame, evals, context.warnings)
    runs = evals.set_index("eval_id")["run"]
    scores = json_objects(_scores(frame))
    refuse_missing_keys(frame, evals, "score", scores, WRITTEN[task])
    for key in COLUMNS[task]:
        refuse_wrong(frame, evals, f"score '{key}'", [v.get(key) for v in scores], SHARE)
    values = pd.DataFrame(
        [
            {"run": runs[eval_id]} | {key: number(v.get(key)) for key in COLUMNS[task]}
            for eval_id, v in zip(frame["eval_id"], scores, strict=True)
        ],
        columns=["run", *COLUMNS[task]],
    )
    unscored = values[COLUMNS[task][-1]].isna()
    for run, count in values.loc[unscored, "run"].value_counts().items():
        context.warnings.append(f"{run}: {count} sample(s) errored or unscored; left out")
    rows = []
    for run, group in values[~unscored].groupby("run", sort=False):
        row: dict[str, Any] = {"run": run, "N": len(group)}
        for key in COLUMNS[task]:
            present = [float(value) for value in group[key].dropna()]
            # Shares, and means of IoUs: a value in [0, 1] of mean m varies at most as a
            # success of rate m does, so Wilson's interval holds for both (a normal one is
            # zero-wide when the IoUs agree).
            low, high = wilson(sum(present), len(present))
            mean = sum(present) / len(present) if present else math.nan
            row |= {key: mean, f"{key}_low": low, f"{key}_high": high, f"{key}_n": len(present)}
        rows.append(row)
    return in_run_order(pd.DataFrame(rows, columns=None if rows else ["run"]))


def _scores(frame: pd.DataFrame) -> pd.Series:
    """Each sample's score, whichever scorer gave it: a run with options is scored by
    `knp_scorer` and an open-ended one by `knp_judge_scorer`, each a column of its own."""
    scorers = [c for c in frame.columns if c.startswith("score_") and c.endswith("_scorer")]
    scores: pd.Series = (
        frame[scorers].bfill(axis=1).iloc[:, 0]
        if scorers
        else pd.Series(None, index=frame.index, dtype=object)
    )
    return scores


def _view(table: pd.DataFrame, task: str) -> pd.DataFrame:
    view: pd.DataFrame = table[["run", "N"]].copy()
    # A value no run has (`na` of runs with options) stays in the CSV, out of the table.
    for key in [key for key in COLUMNS[task] if table[f"{key}_n"].any()]:
        view[key.replace("_", " ")] = [
            f"{interval(row[key], row[f'{key}_low'], row[f'{key}_high'])} (n={row[f'{key}_n']})"
            for row in table.to_dict("records")
        ]
    return view
