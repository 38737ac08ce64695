"""Harness overhead: tasks/tom.py against the least Inspect task that makes the same model
calls (benchmarks/trivial_task.py), both with `tom/oracle` at zero latency.

With no model latency the whole run is harness: Inspect's own per-sample work (sample
state, transcript, log writing, metrics) plus what tom-eval adds (reading or generating
the scenarios, playing the turn, the scorer and its metrics). The trivial task has the same
samples, the same model calls (counted in both logs) and the same provider, so the ratio
of the two is what tom-eval costs on top of Inspect. Each run is a separate
`inspect eval` process; the two tasks alternate, best of N.

The floor: the trivial task's time is Inspect's own cost (with the provider's), and the
engine's own cost is measured here without Inspect (`engine_seconds`: the task's scenarios,
read from scenarios/default.jsonl or generated, then for each sample what the dataset, the
solver and the scorer ask of the engine: solve and check the story, build the prompts, play
the optimal action and the true answer, score). tom-eval can be no faster than the two together.

Usage: python benchmarks/harness_overhead.py [--runs 3] [--reps 10]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from measure import Measured, best, inspect_eval, machine, markdown_table, model_calls

from scorers.tom import score_value
from tom_eval.game.dataset import checked_solution, scenario_records
from tom_eval.game.oracle import shared_solution
from tom_eval.game.parsing import option_letter
from tom_eval.game.rules import Rules
from tom_eval.game.scenario_file import story_fields
from tom_eval.game.trial import Trial, trial_seed
from tom_eval.game.turn import DEFAULT_LINEUP

COLUMNS = ("task", "samples", "model calls", "wall time", "CPU time", "wall per sample")
TARGET = 1.3


def engine_seconds(reps: int) -> float:
    """Wall seconds of the engine's work for the default run of `reps` reps, in this process
    (as in the task, the default reps read the shipped scenarios, and generation spreads over
    one process per core)."""
    shared_solution.cache_clear()  # each measurement solves every story once, as a run does
    started = time.perf_counter()
    rules = Rules()
    for record in scenario_records("all", "0A,0B,1A,1B", reps, 0, None)[0]:
        solution = checked_solution(record, rules, with_neutral=False)
        story = story_fields(record.scenario)
        seed = trial_seed(0, record.key, 1)
        trial = Trial.start(story, record.key, DEFAULT_LINEUP, rules, "choice", seed)
        _ = trial.action_prompt
        optimal = trial.options.index(solution.decision.optimal)
        trial = trial.act(option_letter(optimal))
        if trial.needs_answer:
            trial = trial.answer(solution.truth or "nothing")
        points = trial.turn.returns()
        played = SimpleNamespace(
            blue=points["blue"],
            red=points["red"],
            answer_correct=trial.turn.answer_correct,
            answer_problem=None,
            slips=[],
        )
        score_value(solution, trial.executed, played, "choice")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
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
    engine = min(engine_seconds(args.reps) for _ in range(args.runs))
    floor = trivial.wall + engine
    print(
        f"\nthe floor: Inspect's own cost {1000 * trivial.wall / samples:.1f} ms a sample (the "
        f"trivial task), the engine's {1000 * engine / samples:.1f} ms (without Inspect, best "
        f"of {args.runs}); together {floor:.1f} s, and tom-eval takes {tom.wall / floor:.2f} "
        "times that"
    )


if __name__ == "__main__":
    main()
