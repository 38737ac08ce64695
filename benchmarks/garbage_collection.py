"""Python's garbage collector in a run: how much of tasks/tom.py's and the trivial task's
time (benchmarks/trivial_task.py with the same samples and model calls, as in
harness_overhead.py) the cyclic collector takes, and what freezing the objects alive at
start-up (`gc.freeze()` once Inspect is imported) would save.

A full collection walks every object the process holds, and a run makes about 15 of them;
freezing the start-up objects takes those out of every later walk. This measures one part
of the floor of harness_overhead.py; tom-eval freezes nothing itself (a task must not change
its host process's collector).

Usage: python benchmarks/garbage_collection.py [--runs 3] [--reps 10]
"""

from __future__ import annotations

import argparse
import gc
import json
import runpy
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from measure import Measured, inspect_eval, machine, markdown_table, model_calls

COLUMNS = ("task", "collector", "wall time", "CPU time", "collections", "in the collector")
Collected = list[list[float]]
"""[collections, seconds] for each generation, 0 to 2."""


CHILD = "--child"
"""The first argument of this script run as the process that `inspect eval` runs in."""


def child(arguments: list[str]) -> None:
    """Run Inspect's command line in this process, the collector's passes timed into a
    file as JSON. `arguments`: the file, `--freeze` or not, `--`, then Inspect's arguments."""
    end = arguments.index("--")
    record, freeze = Path(arguments[0]), "--freeze" in arguments[1:end]
    totals: Collected = [[0, 0.0] for _ in range(3)]
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        generation = totals[info["generation"]]
        generation[0] += 1
        generation[1] += time.perf_counter() - started[0]

    if freeze:
        import inspect_ai._cli.main  # noqa: F401  (what `inspect` imports before the task)

        gc.collect()
        gc.freeze()
    gc.callbacks.append(timed)
    sys.argv = ["inspect", *arguments[end + 1 :]]
    try:
        runpy.run_module("inspect_ai", run_name="__main__")
    finally:  # Inspect's command line leaves by SystemExit
        record.write_text(json.dumps(totals))


def run(command: list[str], freeze: bool, folder: Path) -> tuple[Measured, Collected, int, int]:
    """`inspect eval` of `command` (the task and its options) under `child`: its time, its
    collections, and the samples and model calls of its log."""
    folder.mkdir(parents=True)
    record = folder / "gc.json"
    wrapper = [sys.executable, __file__, CHILD, str(record), *(["--freeze"] if freeze else [])]
    task, *options = command
    measured, log = inspect_eval(task, folder / "logs", *options, inspect=[*wrapper, "--"])
    return measured, json.loads(record.read_text()), len(log.samples or []), model_calls(log)


Best = dict[tuple[str, bool], tuple[Measured, Collected]]
"""The run of least CPU time of each task, as it is and with the start-up frozen."""


def keep_best(best: Best, key: tuple[str, bool], measured: Measured, collected: Collected) -> None:
    """Keep the run in `best` if it took less CPU time than the one there (best of N)."""
    if key not in best or measured.cpu < best[key][0].cpu:
        best[key] = (measured, collected)


def row(name: str, freeze: bool, measured: Measured, collected: Collected) -> tuple[str, ...]:
    """The table's row of one task's best run."""
    seconds = sum(generation[1] for generation in collected)
    return (
        name,
        "start-up frozen" if freeze else "as is",
        f"{measured.wall:.1f} s",
        f"{measured.cpu:.1f} s",
        "/".join(str(int(generation[0])) for generation in collected),
        f"{seconds:.1f} s ({seconds / measured.cpu:.0%} of the CPU time)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    if args.runs < 1 or args.reps < 1:
        parser.error("--runs and --reps must be at least 1")
    tom = ["tasks/tom.py", "--model", "tom/oracle", "-T", f"reps={args.reps}"]
    trivial = ["benchmarks/trivial_task.py", "--model", "tom/oracle"]
    best: Best = {}
    with tempfile.TemporaryDirectory() as folder:
        for number in range(args.runs):
            for freeze in (False, True):
                here = Path(folder, f"{number}-{freeze}")
                measured, collected, samples, calls = run(tom, freeze, here / "tom")
                keep_best(best, (tom[0], freeze), measured, collected)
                sized = [*trivial, "-T", f"samples={samples}", "-T", f"calls={calls}"]
                measured, collected, _, _ = run(sized, freeze, here / "trivial")
                keep_best(best, (trivial[0], freeze), measured, collected)
    print(f"machine: {machine()}; best of {args.runs} runs each (by CPU time)\n")
    rows = [
        row(task, freeze, *best[task, freeze])
        for task in (tom[0], trivial[0])
        for freeze in (False, True)
    ]
    print(markdown_table(COLUMNS, rows))
    print("\ncollections: generations 0/1/2")
    print(f"commands: inspect eval {' '.join(tom)}, and {' '.join(sized)}")


if __name__ == "__main__":
    if sys.argv[1:2] == [CHILD]:
        child(sys.argv[2:])
    else:
        main()
