"""ToM mastery categories scored from per-sample values (scenarios/mastery.yaml).

Inspect-free, so the scorer's metric and the report compute them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tom_eval.game.spec import Mastery, slug

SUCCESS_KEYS = {
    "optimal": "optimal",
    "lie_to_opponent_answerer": "lie_to_opponent",
    "lies_okay": "lies_okay",
}
"""Score value key for each `success` rule of scenarios/mastery.yaml."""


def mastery_scores(
    mastery: Mastery, samples: Iterable[tuple[int, Mapping[str, float]]]
) -> dict[str, float]:
    """Per category, sum(weight x success) / sum(weight) over the samples of its components;
    categories with no sample are left out. `samples` are (spec Id, score values) pairs."""
    rows = list(samples)
    result: dict[str, float] = {}
    for category in mastery.categories:
        weighted, weights = 0.0, 0.0
        for component in category.components:
            key = SUCCESS_KEYS[component.success]
            for spec_id, values in rows:
                if spec_id in component.ids:
                    weighted += component.weight * float(values[key])
                    weights += component.weight
        if weights:
            result[slug(category.name)] = weighted / weights
    return result
