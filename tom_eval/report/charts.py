"""What every chart of the report shares: files only (no window), one resolution, and styles
that keep many runs apart."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window

import matplotlib.pyplot as plt
from matplotlib import colormaps
from matplotlib.figure import Figure


def save(figure: Figure, path: Path) -> Path:
    with warnings.catch_warnings():
        # A legend outside the axes leaves tight_layout no room; the bounding box below
        # keeps it in the file all the same.
        warnings.simplefilter("ignore", UserWarning)
        figure.tight_layout()
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return path


@dataclass(frozen=True)
class Style:
    colour: tuple[float, float, float, float]
    marker: str
    linestyle: str


_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES = ("-", "--", "-.", ":")


def styles(count: int) -> list[Style]:
    """`count` styles that differ in colour (60 distinct: tab20, tab20b and tab20c), and in
    marker and line style too, so that runs stay apart in print and in grey."""
    # The strong shade of each pair first, so few runs get strong colours.
    colours = [
        colormaps[name](index / 20)
        for shade in (0, 1)
        for name in ("tab20", "tab20b", "tab20c")
        for index in range(shade, 20, 2)
    ]
    return [
        Style(
            colours[index % len(colours)],
            _MARKERS[index % len(_MARKERS)],
            _LINESTYLES[(index // len(_MARKERS)) % len(_LINESTYLES)],
        )
        for index in range(count)
    ]


def same_series(series: Sequence[tuple[str, Sequence[float]]]) -> list[tuple[str, Sequence[float]]]:
    """Series with identical values merged into one, named after all of them, so that no
    line is drawn hidden under another ("tom/always-pass = tom/no-tom")."""
    merged: dict[tuple[float | None, ...], list[str]] = {}
    values: dict[tuple[float | None, ...], Sequence[float]] = {}
    for name, points in series:
        # None for NaN (a value a run lacks): NaN equals nothing, so such lines never merged.
        key = tuple(None if math.isnan(p) else round(float(p), 9) for p in map(float, points))
        merged.setdefault(key, []).append(name)
        values[key] = points
    return [(" = ".join(names), values[key]) for key, names in merged.items()]
