"""The 95% Wilson interval every task reports beside its rates, with no interval for an
empty set: Inspect's own `ci_wilson` gives [0, 0] when no sample counts (a small IKD run
without erroneous stories showed `classification_error` NaN with the interval [0, 0]);
this one gives NaN bounds, which Inspect prints as nan. Its results are named
`tom_eval/ci_wilson_lower` and `tom_eval/ci_wilson_upper`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

from inspect_ai.scorer import Metric, SampleScore, Value, ci_wilson, metric


@metric(name="ci_wilson")
def wilson_interval() -> Metric:
    interval = cast(Callable[[list[SampleScore]], Value], ci_wilson())

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            return {"lower": math.nan, "upper": math.nan}
        return interval(scores)

    return compute
