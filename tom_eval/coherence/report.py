"""The coherence test in `tom-eval report`: one row per run with the paper's evaluations
(computed over the run's samples by the functions of scorers/coherence.py's metrics), and charts
like the paper's Figure 3: (A) the Bayesian correlation per task and domain, (B) validity
per task and domain, (C) cross-domain consistency per task."""

from __future__ import annotations

import math
from math import fsum
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from inspect_ai.log import read_eval_log

from tom_eval.coherence.metrics import (
    bayesian_values,
    cross_domain_values,
    rational_values,
    run_answers,
    validity_values,
)
from tom_eval.coherence.prior import PRIOR_DIGEST
from tom_eval.coherence.rational import DEFAULT_COST, DEFAULT_TEMPERATURE
from tom_eval.coherence.worlds import (
    DOMAINS,
    INFERENCE_TASKS,
    TASKS,
    is_item_id,
    logged_answer_problem,
)
from tom_eval.report.charts import save
from tom_eval.report.logs import (
    by_preference,
    changed_settings,
    in_run_order,
    json_objects,
    label_runs,
    name_set,
    named_column,
    names_by_digest,
    once_per_sample,
    refuse_missing,
    samples_frame,
    task_argument,
)
from tom_eval.report.section import Context
from tom_eval.report.tables import cell, csv, markdown
from tom_eval.report.values import SHARE, Kind, refuse_missing_keys, refuse_wrong
from tom_eval.task_args import NOT_GIVEN

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
    "prior": NOT_GIVEN,
    "cost": 0.5,
    "temperature": 0.1,
    "floor": 0.001,
    "sample": NOT_GIVEN,
    "sample_seed": 0,
}
"""The defaults of tasks/coherence.py's parameters that change what is measured (a test
checks they agree): a run's label names those that differ."""

VALUES = ("reply_answers", "read", "by_logprobs")
NO_RUN = "No coherence run has scored samples (see the warnings above)."


def run_setting(row: dict[str, Any]) -> str:
    """How the test was run, for the run's label, so runs of other settings never merge."""
    estimator = f"coherence, estimator={row.get('task_arg_estimator', 'logprobs')}"
    order = {"domain": DOMAINS, "task": TASKS}
    return ", ".join([estimator, *changed_settings(row, LABEL_DEFAULTS, order)])


class CoherenceReport:
    """The coherence test's section of `tom-eval report`."""

    tasks: tuple[str, ...] = ("coherence", "tom_eval/coherence")

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        """The coherence evaluations per run, and Figure 3's three panels."""
        evals[named_column("prior")] = names_by_digest(
            evals, "prior", PRIOR_DIGEST, undigested_by_path=True
        )
        evals["run"] = label_runs(evals, run_setting)
        table = runs(evals, context)
        if table.empty:
            return ["## Coherence of action prediction and inference", "", NO_RUN, ""]
        csv(table, context.out / "coherence.csv")
        columns = ["items", *VALUES]
        evaluations = [column for column in table.columns if column not in ("run", *columns)]
        # As objects, so that the counts stay whole numbers in a column of correlations.
        chosen = table.set_index("run")[columns + evaluations].astype(object)
        view = chosen.T.reset_index(names="value")
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
            *missing_evaluations(table, evals),
            f"![Coherence, as the paper's Figure 3]({path.name})",
            "",
        ]


BAYESIAN: list[tuple[str, str]] = [
    (f"{d} {t}", f"{d}_{t}_r") for d in DOMAINS for t in INFERENCE_TASKS
]
VALIDITY: list[tuple[str, str]] = [
    (f"{d} {t}", f"{d}_{t}_validity") for d in DOMAINS for t in INFERENCE_TASKS
]
CROSS_DOMAIN: list[tuple[str, str]] = [(task, f"{task}_cross_domain_r") for task in TASKS]
"""Figure 3's bars: (label, column of the run's table) for each evaluation."""


def missing_evaluations(table: pd.DataFrame, evals: pd.DataFrame) -> list[str]:
    """A line for each run without an evaluation of the paper, saying why: what it needs is
    not among the run's settings (`evals` has each log's `run` and task arguments), or its
    items could not give it. So an absent row is not read as a failure of the model."""
    settings = evals.drop_duplicates("run").set_index("run")
    lines = []
    for row in table.to_dict("records"):
        chosen = settings.loc[row["run"]]
        domains, tasks = _chosen(chosen, "domain"), _chosen(chosen, "task")
        inverted = "AP" in tasks and any(task in tasks for task in INFERENCE_TASKS)
        needs = (
            (
                "Bayesian correlation or validity",
                BAYESIAN + VALIDITY,
                inverted,
                "they need the action predictions (AP) and an inference task (DI, BI or BDI)",
                "them",
            ),
            (
                "cross-domain consistency",
                CROSS_DOMAIN,
                len(domains) > 1,
                "it needs both domains",
                "it",
            ),
        )
        for evaluation, groups, possible, wanted, pronoun in needs:
            if any(math.isfinite(_number(row.get(column))) for _, column in groups):
                continue
            why = (
                f"its items could not give {pronoun} (too few, or answers without variance)"
                if possible
                else f"{wanted}, and the run has task={','.join(tasks)}, domain={','.join(domains)}"
            )
            lines += [f"{row['run']}: no {evaluation}: {why}.", ""]
    return lines


def _chosen(settings: pd.Series, name: str) -> list[str]:
    """The domains or tasks a run chose, as the task reads them."""
    value = settings.get(f"task_arg_{name}")
    given = task_argument(value) if isinstance(value, str | list) else LABEL_DEFAULTS[name]
    order = DOMAINS if name == "domain" else TASKS
    return name_set(given, order).split(",")


def runs(evals: pd.DataFrame, context: Context) -> pd.DataFrame:
    """One row per run (`evals` has the `run` of each log): the items scored and the
    evaluations over them, recomputed over the samples of all the run's logs, each sample
    once (`once_per_sample`), with the metric functions and settings its scorer used
    (read from the preferred log). A run's metrics are correlations over its items, so the
    metrics Inspect wrote into each log cannot be pooled."""
    frame = samples_frame(list(evals["log"]), context.quiet)
    # A log whose summaries list samples it has no entry for is damaged: named, not skipped.
    refuse_missing(frame, evals)
    present = set(frame["eval_id"]) if "eval_id" in frame else set()
    for log in evals.loc[~evals["eval_id"].isin(present), "log"]:
        context.warnings.append(
            f"{log}: holds no samples (written with --no-log-samples?), and the coherence "
            "evaluations are computed from them; skipped"
        )
    rows = []
    if present:
        # One set of answers: a second session's copies (other eval metadata) are left out.
        frame = once_per_sample(frame, evals, context.warnings, one_session=True)
        preferred = by_preference(evals).drop_duplicates("run", keep="last")
        settings = preferred.set_index("run")["log"]
        for run, group in _scored(frame, evals, context.warnings).groupby("run", sort=False):
            # An item's first scored epoch, whose metadata Inspect's reducer keeps for the
            # metrics (its distribution, or none that was read).
            first = group.sort_values("epoch", kind="stable").drop_duplicates("id")
            answers = run_answers(first["metadata"])
            prior, cost, temperature = metric_settings(str(settings[run]))
            row: dict[str, Any] = {"run": run, "items": len(first)}
            # Each item's mean over its epochs, then the mean over items, as Inspect's.
            by_item = group.groupby("id")["values"]
            row |= {
                key: _mean([_mean([v.get(key) for v in item]) for _, item in by_item])
                for key in VALUES
            }
            row |= bayesian_values(answers, prior) | validity_values(answers)
            row |= cross_domain_values(answers) | rational_values(answers, cost, temperature)
            rows.append(row)
    return in_run_order(pd.DataFrame(rows, columns=None if rows else ["run", "items", *VALUES]))


def _scored(frame: pd.DataFrame, evals: pd.DataFrame, warnings: list[str]) -> pd.DataFrame:
    """The run, id, epoch, score values and score metadata of each scored sample; the others
    counted in a warning."""
    none = pd.Series(None, index=frame.index, dtype=object)
    samples = pd.DataFrame(
        {
            "run": frame["eval_id"].map(evals.set_index("eval_id")["run"]),
            "id": frame["id"],
            "epoch": frame["epoch"],
            "values": json_objects(frame.get("score_coherence_scorer", none)),
            "metadata": json_objects(frame.get("score_coherence_scorer_metadata", none)),
        }
    )
    scored = samples["values"].map(bool)
    for run, count in samples.loc[~scored, "run"].value_counts().items():
        warnings.append(f"{run}: {count} sample(s) errored or unscored; left out")
    kept: pd.DataFrame = samples[scored]
    _refuse_wrong_values(frame[scored], evals, kept)
    return kept


_ITEM = Kind("the id of an item of the test", is_item_id)
_DISTRIBUTION = Kind(
    "an object of the item's answers' probabilities, or null",
    lambda pair: _distribution(*pair),
)


def _distribution(item_id: Any, distribution: Any) -> bool:
    """A distribution over the item's own answers (or none read); an item id of no item is
    refused on its own."""
    if not distribution:
        return True
    if not isinstance(distribution, dict):
        return False
    return not is_item_id(item_id) or logged_answer_problem(item_id, distribution) is None


def _refuse_wrong_values(frame: pd.DataFrame, evals: pd.DataFrame, scored: pd.DataFrame) -> None:
    """A value the scorer never writes (a log edited by hand) named in one line."""
    refuse_missing_keys(frame, evals, "score", scored["values"], VALUES)
    for key in VALUES:
        values = [value.get(key) for value in scored["values"]]
        refuse_wrong(frame, evals, f"score '{key}'", values, SHARE)
    metadata = list(scored["metadata"])
    items = [entry.get("item_id") for entry in metadata]
    refuse_wrong(frame, evals, "score metadata 'item_id'", items, _ITEM)
    pairs = [(entry.get("item_id"), entry.get("distribution")) for entry in metadata]
    refuse_wrong(
        frame, evals, "score metadata 'distribution'", pairs, _DISTRIBUTION, lambda pair: pair[1]
    )


def metric_settings(log: str) -> tuple[dict[str, float] | None, float, float]:
    """The prior, cost and temperature the log's metrics were computed with."""
    metrics = read_eval_log(log, header_only=True).eval.metrics
    # A metric is named by its registry name: `scorers/rational` once installed as a package.
    options: dict[str, dict[str, Any]] = {
        definition.name.rsplit("/", 1)[-1]: definition.options or {}
        for definition in (metrics if isinstance(metrics, list) else [])
        if not isinstance(definition, dict)  # the per-value means
    }
    rational = options.get("rational", {})
    return (
        options.get("bayesian", {}).get("prior"),
        float(rational.get("cost", DEFAULT_COST)),
        float(rational.get("temperature", DEFAULT_TEMPERATURE)),
    )


def _mean(values: list[Any]) -> float:
    present = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    return fsum(present) / len(present) if present else math.nan


def figure_3(table: pd.DataFrame, path: Path) -> Path:
    """Three panels like the paper's Figure 3, one bar per run in each group."""
    panels: tuple[tuple[str, list[tuple[str, str]], tuple[float, float]], ...] = (
        ("A. Bayesian: direct vs inverted (r)", BAYESIAN, (-1.0, 1.0)),
        ("B. Validity (share of inferences)", VALIDITY, (0.0, 1.0)),
        ("C. Cross-domain consistency (r)", CROSS_DOMAIN, (-1.0, 1.0)),
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
        if table.reindex(columns=[column for _, column in groups]).isna().all(axis=None):
            axis.text(0.5, 0.6, "no run has these", ha="center", transform=axis.transAxes)
    # Below the panels: inside one, it could hide a bar near the axis' end.
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize="small", loc="upper left", bbox_to_anchor=(0.01, 0))
    return save(figure, path)


def _number(value: Any) -> float:
    """A metric's value; a value the run does not have is drawn as no bar."""
    return float(value) if isinstance(value, int | float) else math.nan
