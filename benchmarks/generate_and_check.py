"""How generating and checking scenarios scales: 1x, 10x and 100x the default 1,560.

Times the two commands exactly as a user runs them (`tom-eval generate --reps R`, then
`tom-eval check`), each in a fresh process, best of N runs (one at 100x and above, which
takes minutes), with the peak memory of each
(the largest resident set of the process or of any one of its generator workers) and the
time per scenario, which stays flat when the cost grows linearly. Then an in-process
breakdown of the default size.

Usage: python benchmarks/generate_and_check.py [--runs 3] [--scales 1,10,100]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from measure import Measured, machine, markdown_table, measure

from tom_eval.game.checking import check
from tom_eval.game.generation import generate
from tom_eval.game.scenario_file import read_scenarios, write_scenarios
from tom_eval.game.spec import read_spec

DEFAULT_REPS = 10
DEFAULT_SCENARIOS = 1560
COLUMNS = (
    *("scale", "scenarios", "generate", "check", "generate + check", "per scenario"),
    *("peak memory, generate", "peak memory, check"),
)


def best_of(runs: int, command: list[str]) -> Measured:
    measured = [measure(command) for _ in range(runs)]
    return min(measured, key=lambda m: m.wall)


def scale_row(folder: Path, scale: int, runs: int) -> tuple[object, ...]:
    command = [sys.executable, "-m", "tom_eval.cli"]
    out = folder / f"scenarios-{scale}.jsonl"
    reps = DEFAULT_REPS * scale
    runs = runs if scale < 100 else 1
    made = best_of(runs, [*command, "generate", "--reps", str(reps), "--out", str(out)])
    checked = best_of(runs, [*command, "check", str(out), "--summary"])
    scenarios = DEFAULT_SCENARIOS * scale
    total = made.wall + checked.wall
    return (
        f"{scale}x",
        f"{scenarios:,}",
        f"{made.wall:.2f} s",
        f"{checked.wall:.2f} s",
        f"{total:.2f} s",
        f"{1000 * total / scenarios:.2f} ms",
        f"{made.peak_mib:.0f} MiB",
        f"{checked.peak_mib:.0f} MiB",
    )


def phases(folder: Path) -> str:
    """Where the default size's time goes, in one process."""
    out = folder / "phases.jsonl"
    timings = {}
    started = time.perf_counter()
    generated = generate(read_spec(), DEFAULT_REPS, 0, workers=1)
    timings["generate, one process"] = time.perf_counter() - started
    started = time.perf_counter()
    write_scenarios(out, generated)
    timings["write"] = time.perf_counter() - started
    started = time.perf_counter()
    findings = check(read_scenarios(out))
    timings["read + check"] = time.perf_counter() - started
    assert not any(finding.disagreements for finding in findings)
    return ", ".join(f"{name} {seconds:.2f} s" for name, seconds in timings.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scales", default="1,10,100")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = [scale_row(Path(folder), int(s), args.runs) for s in args.scales.split(",")]
        breakdown = phases(Path(folder))
    print(f"machine: {machine()}; best of {args.runs} runs\n")
    print(markdown_table(COLUMNS, rows))
    print(f"\nin-process, default size: {breakdown}")
    print("commands: tom-eval generate --reps R --out FILE; tom-eval check FILE --summary")


if __name__ == "__main__":
    main()
