"""Log-probabilities as providers return them, read as probabilities."""

from __future__ import annotations

import math


def from_logprob(logprob: float) -> float:
    """The probability of a provider's log-probability. A provider may return a value just
    above 0 (rounding) or one that is no log-probability at all (NaN, infinite, large): such
    a value reads as the nearest probability (1 above 0, 0 for NaN), a model's odd output
    to score rather than an overflow of `math.exp` that ends the run."""
    if math.isnan(logprob):
        return 0.0
    return math.exp(min(logprob, 0.0))
