"""Load curves and spans of the reference players on a ladder (docs/ladder.md).

Runs `inspect eval tasks/tom.py --model <model> -T ladder=<ladder>` for each model in its own
process and prints, per model, the balanced accuracy measured at each level and the span
with its 95% bootstrap interval, as the log's `ladder` metrics give them, with the samples
and tokens of each run. `tom/bounded` keeps only the last K events of a story, so its span
must grow with K; `tom/oracle` is beyond the ladder; `tom/always-pass` and `tom/random`
have no span. `--log-dir` keeps the logs (for `tom-eval report`, which draws the curves).

Usage: python benchmarks/load_curves.py [--ladder events] [--reps 4] [--levels 0,2,4,8,16,32]
       [--models tom/bounded:2,tom/bounded:4,tom/bounded:8,tom/bounded:16,tom/oracle,...]
       [--log-dir DIR]

A model `tom/bounded:K` is `tom/bounded -M memory=K`.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

from measure import inspect_eval, machine, markdown_table

from tom_eval.errors import InputError
from tom_eval.game.ladder import parse_levels

MODELS = (
    "tom/bounded:2",
    "tom/bounded:4",
    "tom/bounded:8",
    "tom/bounded:16",
    "tom/oracle",
    "tom/always-pass",
    "tom/random",
)


def model_options(model: str) -> list[str]:
    name, _, memory = model.partition(":")
    return ["--model", name, *(["-M", f"memory={memory}"] if memory else [])]


def span_text(metrics: dict[str, float], top: int) -> str:
    """The span as the report shows it."""
    value, low, high = metrics["span"], metrics["span_low"], metrics["span_high"]

    def end(number: float) -> str:
        return "beyond" if number == math.inf else ("-" if math.isnan(number) else f"{number:.1f}")

    if math.isnan(value) and math.isnan(low):
        return "none"
    shown = f"beyond {top}" if value == math.inf else end(value)
    return f"{shown} [{end(low)}, {end(high)}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--ladder", default="events", choices=("events", "ect"))
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--levels", default="0,2,4,8,16,32")
    parser.add_argument("--ids", default="all")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--log-dir", type=Path)
    args = parser.parse_args()
    try:
        levels = parse_levels(args.levels)  # sorted, as the task sorts them
    except InputError as error:
        parser.exit(2, f"load_curves.py: {error}\n")
    task_args = ["-T", f"ladder={args.ladder}", "-T", f"levels={args.levels}"]
    task_args += ["-T", f"reps={args.reps}", "-T", f"ids={args.ids}"]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for index, model in enumerate(args.models.split(",")):
            # Absolute: each run starts in the repository's root, not here.
            root = (args.log_dir or Path(scratch)).resolve()
            log_dir = root / f"{index}-{model.replace('/', '-').replace(':', '-')}"
            measured, log = inspect_eval("tasks/tom.py", log_dir, *model_options(model), *task_args)
            assert log.results is not None
            metrics = {
                name: metric.value
                for score in log.results.scores
                for name, metric in score.metrics.items()
            }
            samples = len(log.samples or [])
            tokens = sum(usage.total_tokens for usage in log.stats.model_usage.values())
            # A level whose stories lack an expected action has no balanced accuracy (the
            # log leaves it out, as when the ECT ladder's odd levels stop most stories).
            measured_levels = [level for level in levels if f"level_{level}" in metrics]
            curve = [
                f"{metrics[f'level_{level}']:.2f}" if level in measured_levels else "n/a"
                for level in levels
            ]
            rows.append(
                (
                    model.replace(":", " memory="),
                    *curve,
                    span_text(metrics, (measured_levels or levels)[-1]),
                    samples,
                    f"{tokens / max(samples, 1):,.0f}",
                    f"{measured.wall:.1f} s",
                )
            )
    columns = ("model", *(f"level {level}" for level in levels), "span [95%]")
    columns += ("samples", "tokens per sample", "wall time")
    print(f"{args.ladder} ladder, reps={args.reps}, Ids {args.ids}; {machine()}\n")
    print(markdown_table(columns, rows))


if __name__ == "__main__":
    main()
