"""Metrics both knowledge tasks use: per-genre means (the seed's Figure 3) and KNP's order
consistency. Registered under their own names, so their results are named `genre_<genre>`
and `order_consistency` and never collide with another grouped metric's."""

from __future__ import annotations

import math

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    accuracy,
    grouped,
    mean,
    metric,
    stderr,
)

from tom_eval.intervals import wilson_interval


def headline() -> list[Metric]:
    """A task's main rate: with its standard error, Wilson interval and per genre."""
    return [accuracy(), stderr(), wilson_interval(), by_genre()]


@metric(name="genre")
def by_genre() -> Metric:
    return grouped(mean(), "genre", all=False)


@metric
def order_consistency() -> Metric:
    """Over the items played in both option orders with a readable choice in each: the
    mean of 1 - |p1 - p2|, p being the rate of choosing the action without the knowledge
    in each order. With one epoch, the share of items whose choice did not change with the
    order (a choice is the same action, not the same letter); NaN without such items."""

    def compute(scores: list[SampleScore]) -> float:
        by_item: dict[str, list[float]] = {}
        for sample_score in scores:
            item = str((sample_score.sample_metadata or {}).get("item"))
            by_item.setdefault(item, []).append(sample_score.score.as_float())
        pairs = [rates for rates in by_item.values() if len(rates) == 2]
        if not pairs:
            return math.nan
        return sum(1 - abs(first - second) for first, second in pairs) / len(pairs)

    return compute
