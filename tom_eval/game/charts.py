"""The game's charts in the report (PNG). Each takes a table from `analysis` and a path.

Every run keeps its own colour, marker and line style (`report.charts.styles`), runs whose
values are identical share one line named after all of them, rates carry their 95%
intervals, and each chart says how many trials its values rest on."""

from __future__ import annotations

import math
from collections.abc import Collection
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tom_eval.game.spec import EXTRAS, read_mastery, slug
from tom_eval.report.charts import same_series, save, styles

CONSTANT_POLICY = 1 / 3
"""The balanced accuracy of any policy that always takes one action (always pass)."""
BAR = "dimgray"


def short_labels(table: pd.DataFrame) -> dict[str, str]:
    """Run names without the settings every run of the chart shares (the title says them)."""
    shared = table["setting"].nunique() == 1
    return {
        str(row["run"]): f"{row['model']} [{row['model_settings']}]" if shared else str(row["run"])
        for row in table.to_dict("records")
    }


def model_comparison(table: pd.DataFrame, path: Path, title: str) -> Path:
    """Balanced accuracy per run with its 95% interval and trials; reference players as
    vertical lines beside models (as the bars when there is no model); the constant
    policy's 1/3 always marked."""
    lines = table[table["baseline"]] if (~table["baseline"]).any() else table.iloc[0:0]
    models = table.drop(lines.index).sort_values("balanced")
    figure, axes = plt.subplots(figsize=(10, 1.4 + 0.32 * max(1, len(models))))
    positions = np.arange(len(models))
    errors = [
        models["balanced"] - models["balanced_low"],
        models["balanced_high"] - models["balanced"],
    ]
    axes.barh(positions, models["balanced"], xerr=errors, color=BAR, capsize=3)
    names = short_labels(table)
    labels = [f"{names[run]} (n={n})" for run, n in zip(models["run"], models["N"], strict=True)]
    axes.set_yticks(positions, labels)
    axes.tick_params(axis="y", labelsize=7)
    marks = [("constant policy (1/3)", [CONSTANT_POLICY])]
    # Named as the bars are: two settings of one reference player are two lines.
    marks += [(names[str(row.run)], [float(row.balanced)]) for row in lines.itertuples()]
    for (name, (value,)), style in zip(same_series(marks), styles(len(marks)), strict=False):
        colour = "black" if name.startswith("constant policy") else style.colour
        axes.axvline(value, color=colour, linestyle=style.linestyle, label=name)
    axes.set_xlim(0, 1.02)
    axes.set_xlabel("balanced accuracy (95% interval)")
    axes.set_title(f"Model comparison, {title}", fontsize=9)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return save(figure, path)


def load_effects(table: pd.DataFrame, path: Path, title: str) -> Path:
    """Share optimal per Extra with 95% intervals, one line per run (identical runs
    merged), points spread a little sideways so that none hides another."""
    records = table.to_dict("records")
    # Tall enough for a legend entry a run.
    figure, axes = plt.subplots(figsize=(10, max(4.5, 0.21 * len(records) + 1)))
    names = short_labels(table)
    # Runs merge when their values and their intervals agree: one line, one set of bars.
    bounds = [f"{extra}_{end}" for end in ("low", "high") for extra in EXTRAS]
    series = same_series(
        [(names[str(row["run"])], [row[key] for key in (*EXTRAS, *bounds)]) for row in records]
    )
    first = {names[str(row["run"])]: row for row in records}
    offsets = np.linspace(-0.2, 0.2, len(series)) if len(series) > 1 else [0.0]
    for (name, points), style, offset in zip(series, styles(len(series)), offsets, strict=True):
        row = first[name.split(" = ")[0]]
        values = points[: len(EXTRAS)]
        pairs = list(zip(EXTRAS, values, strict=True))
        # max(0, ...): an interval computed apart may miss its value by a rounding error.
        low = [max(0.0, value - row[f"{extra}_low"]) for extra, value in pairs]
        high = [max(0.0, row[f"{extra}_high"] - value) for extra, value in pairs]
        axes.errorbar(
            np.arange(len(EXTRAS)) + offset,
            values,
            yerr=[low, high],
            color=style.colour,
            marker=style.marker,
            linestyle=style.linestyle,
            capsize=2,
            label=name,
        )
    axes.set_xticks(range(len(EXTRAS)), [_with_trials(extra, table) for extra in EXTRAS])
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("share optimal (95% interval)")
    axes.set_title(f"Load effects, {title}: 0A minimal, 0B +3 events, 1A matched, 1B ECT load")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return save(figure, path)


def _with_trials(column: str, table: pd.DataFrame, name: str | None = None) -> str:
    """The column's name (or `name`) over the trials its runs had, if they all had as many."""
    counts = set(table[f"{column}_n"])
    trials = f"n={counts.pop()}" if len(counts) == 1 else "n varies"
    return f"{name or column}\n({trials})"


def mastery_heatmap(table: pd.DataFrame, runs: pd.DataFrame, path: Path, title: str) -> Path:
    """The mastery categories (columns) of every run (rows): each cell the score and its 95%
    interval; a column label gives the trials a run had, or says they vary between runs."""
    categories = [category.name for category in read_mastery().categories]
    overall = table[table["scope"] == "Overall"]
    keys = [slug(category) for category in categories]
    values = overall[keys].to_numpy(dtype=float)
    figure, axes = plt.subplots(figsize=(13, 1.6 + 0.34 * max(1, len(overall))))
    image = axes.imshow(values, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    axes.set_xticks(
        range(len(categories)),
        [
            _with_trials(key, overall, category)
            for category, key in zip(categories, keys, strict=True)
        ],
        rotation=20,
        ha="right",
        fontsize=7,
    )
    names = short_labels(runs)
    axes.set_yticks(range(len(overall)), [names[run] for run in overall["run"]], fontsize=7)
    for (row, column), value in np.ndenumerate(values):
        if not math.isnan(value):
            record = overall.iloc[row]
            # The interval is not centred on the value (it is the adjusted estimate's).
            low, high = record[f"{keys[column]}_low"], record[f"{keys[column]}_high"]
            label = f"{value:.2f}\n[{low:.2f}, {high:.2f}]"
            axes.text(column, row, label, ha="center", va="center", fontsize=5)
    figure.colorbar(image, ax=axes, label="weighted share of successes")
    axes.set_title(f"ToM mastery categories, {title}", fontsize=9)
    return save(figure, path)


def id_by_extra_heatmap(values: pd.DataFrame, counts: pd.DataFrame, path: Path, title: str) -> Path:
    """Share optimal per Id (rows) and Extra (columns); each cell says its trials."""
    figure, axes = plt.subplots(figsize=(5, 1 + 0.26 * len(values)))
    grid = values.to_numpy(dtype=float)
    image = axes.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    axes.set_xticks(range(len(values.columns)), values.columns)
    axes.set_yticks(
        range(len(values.index)), [f"Id {spec_id}" for spec_id in values.index], fontsize=7
    )
    for (row, column), value in np.ndenumerate(grid):
        if not np.isnan(value):
            count = int(counts.to_numpy(dtype=float)[row, column])
            axes.text(column, row, f"{value:.2f} n={count}", ha="center", va="center", fontsize=5)
    figure.colorbar(image, ax=axes, label="share optimal")
    axes.set_title(title, fontsize=9)
    return save(figure, path)


def thinking_pairs(pairs: pd.DataFrame, table: pd.DataFrame, path: Path) -> Path:
    """Balanced accuracy without and with reasoning, per model, with 95% intervals and the
    paired difference."""
    figure, axes = plt.subplots(figsize=(8, 1.5 + 0.5 * len(pairs)))
    runs = table.set_index("run")
    for index, row in enumerate(pairs.to_dict("records")):
        for side, colour in (("without", "tab:orange"), ("with", "tab:green")):
            run = runs.loc[row[side]]
            axes.errorbar(
                [run["balanced"]],
                [index],
                xerr=[
                    [run["balanced"] - run["balanced_low"]],
                    [run["balanced_high"] - run["balanced"]],
                ],
                color=colour,
                marker="o",
                capsize=3,
                label=f"reasoning {'on' if side == 'with' else 'off'}" if index == 0 else None,
            )
        without, with_ = row["balanced without"], row["balanced with"]
        axes.plot([without, with_], [index, index], color="gray", linewidth=0.8)
        axes.annotate(
            f"{with_ - without:+.2f} {row['delta 95%']}",
            (max(without, with_), index),
            xytext=(8, 4),
            textcoords="offset points",
            fontsize=7,
        )
    labels = [
        f"{row['model']} ({row['format']}"
        + (f", {row['other settings']})" if row["other settings"] != "default" else ")")
        for row in pairs.to_dict("records")
    ]
    axes.set_yticks(range(len(pairs)), labels, fontsize=7)
    axes.set_xlim(0, 1.25)
    axes.axvline(CONSTANT_POLICY, color="black", linewidth=0.8)
    axes.set_xlabel("balanced accuracy (95% interval)")
    axes.set_title("Thinking vs non-thinking (paired)")
    axes.legend(fontsize=8, loc="lower right")
    return save(figure, path)


LONG_LABEL = 50
"""Characters of a run label above which the load curves' legend takes one column."""


def load_curves(
    curves: dict[str, dict[float, tuple[float, float, float, int]]],
    path: Path,
    title: str,
    classes: Collection[int],
) -> Path:
    """Balanced accuracy against the ladder's level, one line per run with its 95%
    intervals, chance (1/k for runs of k expected actions, `classes`) marked; the level
    axis doubles as the ladder does."""
    figure, axes = plt.subplots(figsize=(9, 5))
    axes.set_title(title, fontsize=9)
    for style, (run, shares) in zip(styles(len(curves)), curves.items(), strict=True):
        levels = np.array(sorted(shares))
        values = np.array([shares[level][0] for level in levels])
        lows = np.array([shares[level][1] for level in levels])
        highs = np.array([shares[level][2] for level in levels])
        axes.errorbar(
            levels + 1,
            values,
            yerr=[values - lows, highs - values],
            label=run,
            color=style.colour,
            marker=style.marker,
            linestyle=style.linestyle,
            capsize=3,
        )
    # A ladder of fewer expected actions (`-T sample=2`) has its own chance, as its span.
    # One expected action has no chance line to fall to (its span is none).
    for count in sorted({count for count in classes if count > 1}):
        label = f"chance (1/{count}, {count} expected actions)"
        axes.axhline(1 / count, color="grey", linestyle=":", label=label)
    axes.set_xscale("log", base=2)
    ticks = sorted({level for shares in curves.values() for level in shares})
    axes.set_xticks([level + 1 for level in ticks], [f"{level:g}" for level in ticks])
    axes.set_xlabel("load level (extra events or ECTs beyond the base story)")
    axes.set_ylabel("balanced accuracy")
    axes.set_ylim(0, 1.02)
    # Two columns of long run labels would be wider than the plot, which the saved image
    # would then shrink beside them.
    columns = 1 if max((len(run) for run in curves), default=0) > LONG_LABEL else 2
    axes.legend(loc="upper left", bbox_to_anchor=(0, -0.15), fontsize=8, ncols=columns)
    return save(figure, path)
