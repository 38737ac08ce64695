"""Harness overhead: tasks/tom.py against the least Inspect task that makes the same model
calls (benchmarks/trivial_task.py), both with `tom/oracle` at zero latency.

With no model latency the whole run is harness: Inspect's own per-sample work (sample
state, transcript, log writing, metrics) plus what tom-eval adds (generating the
scenarios, playing the turn, the scorer and its metrics). The trivial task has the same
samples, the same model calls (counted in both logs) and the same provider, so the ratio
of the two is what tom-eval costs on top of Inspect. Each run is a separate
`inspect eval` process; the two tasks alternate, best of N.

Usage: python benchmarks/harness_overhead.py [--runs 3] [--reps 10]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from measure import Measured, inspect_eval, machine, markdown_table, model_calls

COLUMNS = ("task", "samples", "model calls", "wall time", "CPU time", "wall per sample")
TARGET = 1.3


def best(runs: list[Measured]) -> Measured:
    return Measured(min(r.wall for r in runs), min(r.cpu for r in runs), 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    tom_args = ["--model", "tom/oracle", "-T", f"reps={args.reps}"]
    tom_runs: list[Measured] = []
    trivial_runs: list[Measured] = []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(args.runs):
            measured, log = inspect_eval("tasks/tom.py", Path(folder, f"tom{run}"), *tom_args)
            tom_runs.append(measured)
            samples, calls = len(log.samples or []), model_calls(log)
            measured, log = inspect_eval(
                "benchmarks/trivial_task.py",
                Path(folder, f"trivial{run}"),
                *("--model", "tom/oracle", "-T", f"samples={samples}", "-T", f"calls={calls}"),
            )
            assert (len(log.samples or []), model_calls(log)) == (samples, calls)
            trivial_runs.append(measured)
    tom, trivial = best(tom_runs), best(trivial_runs)
    rows = [
        (
            name,
            samples,
            calls,
            f"{m.wall:.1f} s",
            f"{m.cpu:.1f} s",
            f"{1000 * m.wall / samples:.1f} ms",
        )
        for name, m in (("tasks/tom.py", tom), ("benchmarks/trivial_task.py", trivial))
    ]
    print(f"machine: {machine()}; best of {args.runs} runs each\n")
    print(markdown_table(COLUMNS, rows))
    wall, cpu = tom.wall / trivial.wall, tom.cpu / trivial.cpu
    print(f"\nratio tom / trivial: wall {wall:.2f}, CPU {cpu:.2f} (target <= {TARGET})")
    print(f"command: inspect eval tasks/tom.py {' '.join(tom_args)}")


if __name__ == "__main__":
    main()
