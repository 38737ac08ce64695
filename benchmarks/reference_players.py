"""Scores and run time of the reference players (or any models) on the default scenarios.

Runs `inspect eval tasks/tom.py --model <model>` for each model (as a user would, in a
separate process) over generated scenarios or a scenario file, and prints a markdown
table: N, balanced accuracy, plain accuracy, lies okay, invalid rate, mean regret, mean
points and wall time. For `tom/random` it also prints the chance band: the expected
balanced accuracy of uniform guessing among the choice options, +- 1.96 sd.

Usage: python benchmarks/reference_players.py [--scenario-file FILE] [--format choice]
       [--reps 10] [--limit N]
       [--models tom/oracle,tom/always-pass,tom/no-tom,tom/random,gguf/smollm2]

`--limit N` plays only the first N samples (a quick check that the script runs).
"""

from __future__ import annotations

import argparse
import math
import tempfile
from collections import defaultdict
from pathlib import Path

from inspect_ai.log import read_eval_log
from measure import inspect_eval, markdown_table

MODELS = ("tom/oracle", "tom/always-pass", "tom/no-tom", "tom/random")
COLUMNS = ("model", "N", "balanced accuracy", "plain accuracy", "lies okay", "invalid")


def run(model: str, log_dir: Path, task_args: list[str]) -> tuple[float, Path]:
    measured, log = inspect_eval("tasks/tom.py", log_dir, "--model", model, *task_args)
    return measured.wall, Path(log.location)


def chance_band(log_path: Path) -> tuple[float, float, float]:
    """Expected balanced accuracy of a uniform choice among the options of each sample."""
    log = read_eval_log(str(log_path))
    classes: dict[str, list[float]] = defaultdict(list)
    for sample in log.samples or []:
        options = len(((sample.scores or {})["tom_scorer"].metadata or {})["options"]) or 7
        classes[sample.metadata["expected_action"]].append(1 / options)
    mean = sum(sum(p) / len(p) for p in classes.values()) / len(classes)
    variance = sum(sum(q * (1 - q) for q in p) / len(p) ** 2 for p in classes.values())
    sd = math.sqrt(variance) / len(classes)
    return mean, mean - 1.96 * sd, mean + 1.96 * sd


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--scenario-file")
    parser.add_argument("--format", default="choice", choices=("choice", "action", "free"))
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    task_args = ["-T", f"response_format={args.format}", "-T", f"reps={args.reps}"]
    if args.limit is not None:
        task_args += ["--limit", str(args.limit)]
    if args.scenario_file:
        task_args += ["-T", f"scenario_file={Path(args.scenario_file).resolve()}"]
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as folder:
        for model in args.models.split(","):
            seconds, path = run(model, Path(folder) / model.replace("/", "_"), task_args)
            log = read_eval_log(str(path), header_only=True)
            assert log.results is not None
            (scores,) = log.results.scores
            m = {name: metric.value for name, metric in scores.metrics.items()}
            rows.append(
                (
                    *(model, log.results.total_samples, f"{m['balanced_accuracy']:.3f}"),
                    *(f"{m['optimal']:.3f}", f"{m['lies_okay']:.3f}", f"{1 - m['valid']:.3f}"),
                    *(f"{m['regret']:.3f}", f"{m['points']:+.3f}", f"{seconds:.1f} s"),
                )
            )
            if model == "tom/random":
                mean, low, high = chance_band(path)
                inside = low <= m["balanced_accuracy"] <= high
                notes.append(
                    f"random chance band: expected {mean:.3f}, 95% band [{low:.3f}, {high:.3f}]"
                    f" -> {'inside' if inside else 'OUTSIDE'}"
                )
    print(markdown_table((*COLUMNS, "regret", "points", "wall time"), rows))
    for note in notes:
        print(f"\n{note}")


if __name__ == "__main__":
    main()
