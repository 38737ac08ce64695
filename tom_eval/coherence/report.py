"""The coherence test in `tom-eval report`: one row per run with the paper's evaluations
(read from the metrics Inspect computed over the run, scorers/coherence.py), and charts
like the paper's Figure 3: (A) the Bayesian correlation per task and domain, (B) validity
per task and domain, (C) cross-domain consistency per task."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from inspect_ai.log import read_eval_log

from tom_eval.coherence.worlds import DOMAINS, INFERENCE_TASKS, TASKS
from tom_eval.report.charts import save
from tom_eval.report.logs import changed_settings, label_runs
from tom_eval.report.section import Context
from tom_eval.report.tables import cell, csv, markdown

PAPER = (
    "Muchovej et al., GPT-4o (gpt-4o-2024-05-13): its direct inferences barely correlate "
    "with the Bayesian inversion of its own action predictions (MovieWorld DI r = .57, "
    "95% CI [.49, .63]; BI r = .03 [-.05, .12]; BDI r = .13), yet most inferences are "
    "valid (MovieWorld DI 83.5%, BI 81.1%, BDI 88.9%), and its answers show no consistency "
    "across the two equivalent domains (Fig. 3C; ContainerWorld's values are given only in "
    "the figure). A rational agent scores r = 1 and 100%."
)

LABEL_DEFAULTS: dict[str, object] = {
    "domain": "container,movie",
    "task": "AP,DI,BI,BDI",
    "samples": 100,
    "prior": None,
    "cost": 0.5,
    "temperature": 0.1,
    "floor": 0.001,
    "sample": None,
    "sample_seed": 0,
}
"""The defaults of tasks/coherence.py's parameters that change what is measured (a test
checks they agree): a run's label names those that differ."""

VALUES = ("reply_answers", "read", "by_logprobs")


def run_setting(row: dict[str, Any]) -> str:
    """How the test was run, for the run's label, so runs of other settings never merge."""
    estimator = f"coherence, estimator={row.get('task_arg_estimator', 'logprobs')}"
    return ", ".join([estimator, *changed_settings(row, LABEL_DEFAULTS)])


class CoherenceReport:
    """The coherence test's section of `tom-eval report`."""

    tasks: tuple[str, ...] = ("coherence", "tom_eval/coherence")

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        """The coherence evaluations per run, and Figure 3's three panels."""
        evals["run"] = label_runs(evals, run_setting)
        table = runs(evals)
        csv(table, context.out / "coherence.csv")
        columns = ["items", *VALUES]
        evaluations = [column for column in table.columns if column not in ("run", *columns)]
        view = table.set_index("run")[columns + evaluations].T.reset_index(names="value")
        path = figure_3(table, context.out / "coherence.png")
        return [
            "## Coherence of action prediction and inference",
            "",
            PAPER,
            "",
            "Per run: the items read, the share whose reply gives an answer (`reply_answers`), "
            "whose distribution was read (`read`) and read from log-probabilities "
            "(`by_logprobs`); then the Bayesian correlations (`_r` Pearson, `_rho` Spearman), "
            "validity, cross-domain consistency and agreement with the rational agent.",
            "",
            markdown(view.map(cell)),
            "",
            f"![Coherence, as the paper's Figure 3]({path.name})",
            "",
        ]


def runs(evals: pd.DataFrame) -> pd.DataFrame:
    """One row per run (`evals` has `log`, `run` and `completed_samples`): its metrics."""
    rows = []
    for row in evals.to_dict("records"):
        log = read_eval_log(str(row["log"]), header_only=True)
        values: dict[str, Any] = {"run": row["run"], "items": int(row["completed_samples"])}
        for score in log.results.scores if log.results else []:
            for name, metric in score.metrics.items():
                values[score.name if name == "mean" else name] = metric.value
        rows.append(values)
    table: pd.DataFrame = pd.DataFrame(rows)
    return table


def figure_3(table: pd.DataFrame, path: Path) -> Path:
    """Three panels like the paper's Figure 3, one bar per run in each group."""
    panels: tuple[tuple[str, list[tuple[str, str]], tuple[float, float]], ...] = (
        (
            "A. Bayesian: direct vs inverted (r)",
            [(f"{d} {t}", f"{d}_{t}_r") for d in DOMAINS for t in INFERENCE_TASKS],
            (-1.0, 1.0),
        ),
        (
            "B. Validity (share of inferences)",
            [(f"{d} {t}", f"{d}_{t}_validity") for d in DOMAINS for t in INFERENCE_TASKS],
            (0.0, 1.0),
        ),
        (
            "C. Cross-domain consistency (r)",
            [(task, f"{task}_cross_domain_r") for task in TASKS],
            (-1.0, 1.0),
        ),
    )
    figure, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    width = 0.8 / max(1, len(table))
    for axis, (title, groups, limits) in zip(axes, panels, strict=True):
        positions = np.arange(len(groups))
        for index, row in enumerate(table.to_dict("records")):
            heights = [_number(row.get(column)) for _, column in groups]
            axis.bar(positions + index * width, heights, width, label=str(row["run"]))
        axis.set_xticks(positions + width * (len(table) - 1) / 2)
        axis.set_xticklabels([label for label, _ in groups], rotation=30, ha="right")
        axis.set_ylim(*limits)
        axis.axhline(0, color="black", linewidth=0.5)
        axis.set_title(title)
    axes[0].legend(fontsize="small", loc="lower left")
    return save(figure, path)


def _number(value: Any) -> float:
    """A metric's value; a value the run does not have is drawn as no bar."""
    return float(value) if isinstance(value, int | float) else math.nan
