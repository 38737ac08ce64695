"""Results and run time of whole games (`-T mode=game`) for the reference players (or any
models).

Runs `inspect eval tasks/tom.py -T mode=game` for each model, as a user would, and prints
a markdown table: games, Blue's win / tie / loss rates, mean final margin (Blue minus Red)
and turns played, then, pooled over all of A's own turns, the optimal rate and balanced
accuracy, the share of A's answers that are right, model calls and wall time.

Usage: python benchmarks/full_games.py [--games 100] [--turns 40] [--history none]
       [--format choice] [--lineup default]
       [--models tom/oracle,tom/always-pass,tom/no-tom,tom/random]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from inspect_ai.log import read_eval_log
from measure import markdown_table
from reference_players import MODELS, run

COLUMNS = (
    *("model", "games", "win", "tie", "loss", "margin", "turns", "A turns"),
    *("optimal", "balanced accuracy", "answers right", "model calls", "wall time"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--history", default="none", choices=("none", "full", "actions"))
    parser.add_argument("--format", default="choice", choices=("choice", "action", "free"))
    parser.add_argument("--lineup", default="default")
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    task_args = ["-T", "mode=game", "-T", f"games={args.games}", "-T", f"turns={args.turns}"]
    task_args += ["-T", f"history={args.history}", "-T", f"response_format={args.format}"]
    task_args += ["-T", f"lineup={args.lineup}"]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for model in args.models.split(","):
            seconds, path = run(model, Path(folder) / model.replace("/", "_"), task_args)
            log = read_eval_log(str(path), header_only=True)
            assert log.results is not None and log.stats is not None
            m = {f"{s.name}.{k}": v.value for s in log.results.scores for k, v in s.metrics.items()}
            rows.append(
                (
                    *(model, log.results.total_samples, f"{m['win.mean']:.2f}"),
                    *(f"{m['tie.mean']:.2f}", f"{m['loss.mean']:.2f}", f"{m['margin.mean']:+.2f}"),
                    *(f"{m['turns.mean']:.1f}", f"{m['game_scorer.count']:.0f}"),
                    f"{m['game_scorer.optimal']:.3f}",
                    f"{m['game_scorer.balanced_accuracy']:.3f}",
                    *(f"{m['answer_correct.mean']:.3f}", _model_calls(path), f"{seconds:.1f} s"),
                )
            )
    print(markdown_table(COLUMNS, rows))


def _model_calls(path: Path) -> int:
    log = read_eval_log(str(path))
    return sum(
        1 for sample in log.samples or [] for event in sample.events if event.event == "model"
    )


if __name__ == "__main__":
    main()
