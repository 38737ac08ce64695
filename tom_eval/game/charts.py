"""The game's charts in the report (PNG). Each function takes a table from `analysis` and a
path."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tom_eval.game.mastery import slug
from tom_eval.game.spec import EXTRAS, read_mastery
from tom_eval.report.charts import save

_BASELINE_COLOURS = {
    "tom/always-pass": "tab:red",
    "tom/random": "tab:gray",
    "tom/no-tom": "tab:purple",
}


def model_comparison(table: pd.DataFrame, path: Path) -> Path:
    """Balanced accuracy per run with 95% intervals; baselines as vertical lines."""
    # With reference players only, they are the bars; otherwise they are the lines.
    lines = table[table["baseline"]] if (~table["baseline"]).any() else table.iloc[0:0]
    models = table.drop(lines.index).sort_values("balanced")
    figure, axes = plt.subplots(figsize=(8, 1.2 + 0.45 * max(1, len(models))))
    positions = np.arange(len(models))
    errors = [
        models["balanced"] - models["balanced_low"],
        models["balanced_high"] - models["balanced"],
    ]
    axes.barh(positions, models["balanced"], xerr=errors, color="tab:blue", capsize=3)
    axes.set_yticks(positions, models["run"])
    for baseline in lines.itertuples():
        colour = _BASELINE_COLOURS.get(baseline.model, "black")
        axes.axvline(baseline.balanced, color=colour, linestyle="--", label=baseline.model)
    axes.set_xlim(0, 1)
    axes.set_xlabel("balanced accuracy (95% interval)")
    axes.set_title("Model comparison")
    if len(lines):
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return save(figure, path)


def id_by_extra_heatmap(table: pd.DataFrame, path: Path, title: str) -> Path:
    """Share optimal per Id (rows) and Extra (columns)."""
    figure, axes = plt.subplots(figsize=(4.5, 1 + 0.22 * len(table)))
    image = axes.imshow(table.to_numpy(dtype=float), cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    axes.set_xticks(range(len(table.columns)), table.columns)
    axes.set_yticks(
        range(len(table.index)), [f"Id {spec_id}" for spec_id in table.index], fontsize=7
    )
    for (row, column), value in np.ndenumerate(table.to_numpy(dtype=float)):
        if not np.isnan(value):
            axes.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=6)
    figure.colorbar(image, ax=axes, label="share optimal")
    axes.set_title(title, fontsize=9)
    return save(figure, path)


def load_effects(table: pd.DataFrame, path: Path) -> Path:
    """Share optimal per Extra, one line per run."""
    figure, axes = plt.subplots(figsize=(10, 4))
    for row in table.to_dict("records"):
        style = "--" if row["baseline"] else "-"
        axes.plot(EXTRAS, [row[extra] for extra in EXTRAS], style, marker="o", label=row["run"])
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("share optimal")
    axes.set_title("Load effects: 0A minimal, 0B +3 events, 1A matched events, 1B ECT load")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return save(figure, path)


def mastery_per_model(table: pd.DataFrame, path: Path) -> Path:
    """The mastery categories, one bar per run."""
    names = [category.name for category in read_mastery().categories]
    overall = table[table["scope"] == "Overall"]
    figure, axes = plt.subplots(figsize=(12, 4.5))
    width = 0.8 / max(1, len(overall))
    positions = np.arange(len(names))
    for index, row in enumerate(overall.to_dict("records")):
        values = [row[slug(name)] for name in names]
        axes.bar(positions + index * width, values, width, label=row["run"])
    axes.set_xticks(
        positions + width * (len(overall) - 1) / 2, names, rotation=20, ha="right", fontsize=8
    )
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("weighted share of successes")
    axes.set_title("ToM mastery categories")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return save(figure, path)


def thinking_pairs(pairs: pd.DataFrame, path: Path) -> Path:
    """Balanced accuracy without and with reasoning, per model, with the paired delta."""
    figure, axes = plt.subplots(figsize=(7, 1.5 + 0.5 * len(pairs)))
    records = pairs.to_dict("records")
    for index, row in enumerate(records):
        without, with_ = row["balanced without"], row["balanced with"]
        axes.plot([without, with_], [index, index], color="gray")
        axes.scatter(
            [without], [index], color="tab:orange", label="reasoning off" if index == 0 else None
        )
        axes.scatter(
            [with_], [index], color="tab:green", label="reasoning on" if index == 0 else None
        )
        axes.annotate(
            f"{with_ - without:+.2f}",
            (max(without, with_), index),
            xytext=(6, -3),
            textcoords="offset points",
            fontsize=8,
        )
    axes.set_yticks(range(len(records)), [f"{row['model']} ({row['format']})" for row in records])
    axes.set_xlim(0, 1.1)
    axes.set_xlabel("balanced accuracy")
    axes.set_title("Thinking vs non-thinking (paired)")
    axes.legend(fontsize=8, loc="lower right")
    return save(figure, path)
