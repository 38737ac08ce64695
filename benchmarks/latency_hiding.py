"""Latency hiding: how close a run with a slow model comes to the ideal of
model calls x latency / connections, at `--max-connections` 1, 10 and 100.

`tom/oracle -M latency=0.5` answers every call after half a second, like an API. Each
setting runs about 30 samples per connection (so the ideal stays near 20 s; `--limit`
picks them from a large enough default run), as a separate `inspect eval` process, best of
`--runs` (3) with the trivial task alternating, since shared cores swing a run by a fifth. The
model calls are counted in the log; efficiency is the ideal over the measured wall time,
start-up included. Inspect starts as many samples at once as connections, so every
connection stays busy. A last row runs the largest setting with Inspect's default,
adaptive concurrency (no `--max-connections`).

At each connection count the trivial task of `benchmarks/harness_overhead.py`
(`benchmarks/trivial_task.py`: the same samples, the same model calls, the same provider and
latency, no game) runs too: its efficiency is what Inspect itself reaches, and the share is
tom-eval's efficiency over it (1.0: tom-eval hides its work as well as a task that does none).

Usage: python benchmarks/latency_hiding.py [--latency 0.5] [--connections 1,10,100] [--runs 3]
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

from measure import Measured, best, inspect_eval, machine, markdown_table, model_calls

COLUMNS = (
    *("max connections", "samples", "model calls", "ideal", "wall time", "efficiency"),
    *("CPU time", "trivial wall time", "trivial efficiency", "trivial CPU time", "share"),
)
SAMPLES_PER_CONNECTION = 30
SPEC_ROWS = 156
"""Samples per rep of the default run (39 Ids x 4 Extras)."""


def run(
    folder: Path, latency: float, samples: int, connections: int | None, runs: int
) -> tuple[object, ...]:
    """One row: both tasks at one setting, alternating, best of `runs` each."""
    reps = math.ceil(samples / SPEC_ROWS)
    model = ["--model", "tom/oracle", "-M", f"latency={latency}"]
    limits = ["--max-connections", str(connections)] if connections is not None else []
    tom_runs: list[Measured] = []
    trivial_runs: list[Measured] = []
    for number in range(runs):
        measured, log = inspect_eval(
            "tasks/tom.py",
            folder / f"tom-{connections}-{number}",
            *(*model, "-T", f"reps={reps}", "--limit", str(samples), *limits),
        )
        tom_runs.append(measured)
        calls = model_calls(log)
        trivial, trivial_log = inspect_eval(
            "benchmarks/trivial_task.py",
            folder / f"trivial-{connections}-{number}",
            *(*model, "-T", f"samples={samples}", "-T", f"calls={calls}", *limits),
        )
        assert model_calls(trivial_log) == calls
        trivial_runs.append(trivial)
    measured, trivial = best(tom_runs), best(trivial_runs)
    # Inspect's default, adaptive concurrency, starts at 20 connections and grows to 100.
    ideal = calls * latency / (connections or 100)
    efficiency, trivial_efficiency = ideal / measured.wall, ideal / trivial.wall
    return (
        connections or "adaptive (default)",
        samples,
        calls,
        f"{ideal:.1f} s",
        f"{measured.wall:.1f} s",
        f"{efficiency:.2f}",
        f"{measured.cpu:.1f} s",
        f"{trivial.wall:.1f} s",
        f"{trivial_efficiency:.2f}",
        f"{trivial.cpu:.1f} s",
        f"{efficiency / trivial_efficiency:.2f}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--connections", default="1,10,100")
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs each")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    settings = [int(text) for text in args.connections.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        rows = [
            run(
                Path(folder),
                args.latency,
                SAMPLES_PER_CONNECTION * connections,
                connections,
                args.runs,
            )
            for connections in settings
        ]
        largest = SAMPLES_PER_CONNECTION * max(settings)
        rows.append(run(Path(folder), args.latency, largest, None, args.runs))
    print(f"machine: {machine()}; -M latency={args.latency}; best of {args.runs} runs each\n")
    print(markdown_table(COLUMNS, rows))
    print(
        "\ncommand: inspect eval tasks/tom.py --model tom/oracle "
        f"-M latency={args.latency} --max-connections C -T reps=R --limit N\n"
        "         inspect eval benchmarks/trivial_task.py --model tom/oracle "
        f"-M latency={args.latency} --max-connections C -T samples=N -T calls=M"
    )


if __name__ == "__main__":
    main()
