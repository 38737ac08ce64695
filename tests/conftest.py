"""Shared fixtures. Tests that read ../shared skip when it is absent (a user's clone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tom_eval.spec import SpecRow, read_spec

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
