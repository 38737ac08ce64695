"""The few statistics the report needs, written out (SciPy is not a dependency).

Every function takes counts or plain lists and returns floats; p-values are two-sided.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)


EPOCHS_AS_TRIALS = (
    "with several epochs of a near-deterministic model the intervals are too narrow (the "
    "epochs of one sample are not independent trials)"
)
"""What every section says of its intervals: each sample-epoch counts as a trial."""


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion; (nan, nan) without trials."""
    if trials == 0:
        return math.nan, math.nan
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    )
    # At 0 and at 1 the ends are exact; the arithmetic leaves them 1e-17 off.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def balanced_point(classes: Sequence[Sequence[float]]) -> float:
    """The mean over the non-empty classes of each class's share of successes (NaN without
    one): `balanced`'s value without its interval, for metrics updated during a run."""
    present = [values for values in classes if len(values)]
    if not present:
        return math.nan
    return sum(sum(values) / len(values) for values in present) / len(present)


def balanced(classes: Sequence[Sequence[float]], z: float = Z95) -> tuple[float, float, float]:
    """The mean over classes of each class's share of successes, with a 95% interval
    (`combined_interval`, each class weighing the same): balanced accuracy, when the classes
    are the expected actions. (nan, nan, nan) without a non-empty class."""
    present = [list(values) for values in classes if len(values)]
    if not present:
        return math.nan, math.nan, math.nan
    value = balanced_point(present)
    low, high = combined_interval(
        [(1 / len(present), sum(values), len(values)) for values in present], z
    )
    return value, low, high


def combined_interval(
    parts: Sequence[tuple[float, float, int]],
    z: float = Z95,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> tuple[float, float]:
    """A 95% interval of a linear function of shares, each part (coefficient, successes,
    trials): a weighted mean (coefficients summing to 1), or a difference of two (-1/k for
    the second's). The adjusted Wald interval of a linear function of proportions (Price
    and Bonett 2004, which generalises Agresti-Caffo): each of the k shares gets 2/k added
    successes and failures and the interval is centred on the adjusted function, so a
    share of 0 or 1 still has spread and the interval is not too narrow near the ends; with
    one share it is Agresti-Coull's plus-four interval. Clipped to `bounds`."""
    added = 2 / len(parts)
    adjusted = [
        (weight, (successes + added) / (trials + 2 * added), trials + 2 * added)
        for weight, successes, trials in parts
    ]
    centre = sum(weight * share for weight, share, _ in adjusted)
    spread = math.sqrt(
        sum(weight**2 * share * (1 - share) / trials for weight, share, trials in adjusted)
    )
    return max(bounds[0], centre - z * spread), min(bounds[1], centre + z * spread)


def normal_p(z: float) -> float:
    return 2 * (1 - NormalDist().cdf(abs(z)))


def two_proportions(k1: float, n1: int, k2: float, n2: int) -> tuple[float, float]:
    """(difference p1 - p2, p-value) of a pooled two-proportion z-test."""
    if n1 == 0 or n2 == 0:
        return math.nan, math.nan
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return p1 - p2, (1.0 if spread == 0 else normal_p((p1 - p2) / spread))


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher exact p-value of the 2x2 table [[a, b], [c, d]]."""
    row1, col1, total = a + b, a + c, a + b + c + d

    def log_comb(n: int, k: int) -> float:
        return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)

    def probability(x: int) -> float:
        # Log-gamma, not exact big integers: tables of tens of thousands stay fast.
        log_p = log_comb(col1, x) + log_comb(total - col1, row1 - x) - log_comb(total, row1)
        return math.exp(log_p)

    observed = probability(a)
    low, high = max(0, row1 + col1 - total), min(row1, col1)
    return min(
        1.0, sum(p for x in range(low, high + 1) if (p := probability(x)) <= observed * (1 + 1e-9))
    )


def mann_whitney(first: Sequence[float], second: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test (normal approximation, tie-corrected)."""
    n1, n2 = len(first), len(second)
    if n1 == 0 or n2 == 0:
        return math.nan
    ranked = sorted(
        (value, group) for group, values in enumerate((first, second)) for value in values
    )
    ranks: list[float] = [0.0] * len(ranked)
    ties = 0.0
    start = 0
    while start < len(ranked):
        end = start
        while end + 1 < len(ranked) and ranked[end + 1][0] == ranked[start][0]:
            end += 1
        for index in range(start, end + 1):
            ranks[index] = (start + end) / 2 + 1
        size = end - start + 1
        ties += size**3 - size
        start = end + 1
    rank_sum = sum(rank for rank, (_, group) in zip(ranks, ranked, strict=True) if group == 0)
    u = rank_sum - n1 * (n1 + 1) / 2
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if variance <= 0:
        return 1.0
    # Continuity correction, as SciPy's default.
    shift = max(0.0, abs(u - n1 * n2 / 2) - 0.5)
    return normal_p(shift / math.sqrt(variance))
