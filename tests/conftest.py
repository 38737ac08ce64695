"""Shared fixtures. Tests that read ../shared skip when it is absent (a user's clone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tom_eval.game.spec import SpecRow, read_spec
from tom_eval.game.world import Enter, Leave, Move, Put, Scenario

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE_SCENARIOS = SHARED / "reference" / "scenarios_standardized.json"
REFERENCE_SPEC = SHARED / "reference" / "ToM - scenarios.csv"


def require_shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(
            f"{path} is absent: ../shared is only beside the repository on project machines"
        )
    return path


@pytest.fixture(scope="session")
def spec_rows() -> list[SpecRow]:
    return read_spec()


def returning_teammate() -> Scenario:
    """B is out while A takes the ball out of the bag and puts it back, then B comes back:
    B is right, and A knows it, but B did not see the latest change."""
    return Scenario(
        frozenset("ABCD"),
        (
            Put("C", "ball", "bag"),
            Leave("B"),
            Move("A", "ball", "bag", "box"),
            Move("A", "ball", "box", "bag"),
            Enter("B"),
        ),
        "bag",
        "B",
    )
