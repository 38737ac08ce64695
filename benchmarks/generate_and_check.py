"""Generating and checking scenarios: against the reference's generator, and how it scales.

Times `tom-eval generate --reps R` then `tom-eval check` exactly as a user runs them, each
in a fresh process (Python's start-up and imports included), best of N runs, with the CPU
time (the process and its generator workers) and the peak memory of each. In the same run
it times the reference implementation's generator (`pre_generate_scenarios.py --reps 10
--seed 42`, from a copy of ../shared/reference/generator, so nothing is written there) and
prints how many times faster per scenario tom-eval is; without ../shared that comparison is
skipped, with the reason. `--scales 1,10,100` adds 10x and 100x the default 1,560 scenarios
(one run at 100x and above, which takes minutes); the time per scenario stays flat when the
cost grows linearly. Then an in-process breakdown of the default size.

Usage: python benchmarks/generate_and_check.py [--runs 3] [--scales 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from measure import ROOT, Measured, machine, markdown_table, measure

from tom_eval.game.checking import check
from tom_eval.game.generation import generate
from tom_eval.game.scenario_file import read_scenarios, write_scenarios
from tom_eval.game.spec import read_spec

DEFAULT_REPS = 10
DEFAULT_SCENARIOS = 1560
REFERENCE_GENERATOR = ROOT.parent / "shared" / "reference" / "generator"
REFERENCE_COMMAND = ("pre_generate_scenarios.py", "--reps", "10", "--seed", "42")
REFERENCE_OUTPUT = "scenarios_standardized.json"
SCALE_COLUMNS = (
    *("scale", "scenarios", "generate", "check", "generate + check", "per scenario"),
    *("CPU, generate + check", "peak memory, generate", "peak memory, check"),
)
COMPARISON_COLUMNS = ("generator", "scenarios", "wall time", "CPU time", "wall per scenario")


def best_of(runs: int, command: list[str], cwd: Path = ROOT) -> Measured:
    measured = [measure(command, cwd) for _ in range(runs)]
    return min(measured, key=lambda m: m.wall)


def tom_eval_command() -> list[str]:
    """The `tom-eval` command of this Python environment, as a user runs it."""
    script = Path(sys.executable).parent / "tom-eval"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tom_eval.cli"]


def generate_and_check(folder: Path, scale: int, runs: int) -> tuple[Measured, Measured]:
    command = tom_eval_command()
    out = folder / f"scenarios-{scale}.jsonl"
    reps = str(DEFAULT_REPS * scale)
    made = best_of(runs, [*command, "generate", "--reps", reps, "--out", str(out)])
    checked = best_of(runs, [*command, "check", str(out), "--summary"])
    return made, checked


def scale_row(made: Measured, checked: Measured, scale: int) -> tuple[object, ...]:
    scenarios = DEFAULT_SCENARIOS * scale
    total = made.wall + checked.wall
    return (
        f"{scale}x",
        f"{scenarios:,}",
        f"{made.wall:.2f} s",
        f"{checked.wall:.2f} s",
        f"{total:.2f} s",
        f"{1000 * total / scenarios:.2f} ms",
        f"{made.cpu + checked.cpu:.2f} s",
        f"{made.peak_mib:.0f} MiB",
        f"{checked.peak_mib:.0f} MiB",
    )


def reference_run(folder: Path, runs: int) -> tuple[Measured, int] | str:
    """The reference's generator, best of `runs`, and how many scenarios it writes; or why
    it cannot run here."""
    if not (REFERENCE_GENERATOR / "tom" / REFERENCE_COMMAND[0]).is_file():
        return f"no reference generator at {REFERENCE_GENERATOR}"
    copy = folder / "reference"
    shutil.copytree(REFERENCE_GENERATOR, copy)
    for path in copy.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)  # a read-only share stays read-only
    work = copy / "tom"
    measured = best_of(runs, [sys.executable, *REFERENCE_COMMAND], cwd=work)
    written = json.loads((work / REFERENCE_OUTPUT).read_text(encoding="utf-8"))
    return measured, len(written["scenarios"])


def comparison(made: Measured, checked: Measured, reference: tuple[Measured, int]) -> str:
    ours = (made.wall + checked.wall, made.cpu + checked.cpu, DEFAULT_SCENARIOS)
    theirs, count = reference
    rows = [
        ("tom-eval generate + check", *ours),
        ("reference pre_generate_scenarios.py", theirs.wall, theirs.cpu, count),
    ]
    table = markdown_table(
        COMPARISON_COLUMNS,
        [
            (name, f"{n:,}", f"{wall:.2f} s", f"{cpu:.2f} s", f"{1000 * wall / n:.2f} ms")
            for name, wall, cpu, n in rows
        ],
    )
    per_wall = (theirs.wall / count) / (ours[0] / DEFAULT_SCENARIOS)
    per_cpu = (theirs.cpu / count) / (ours[1] / DEFAULT_SCENARIOS)
    return (
        f"{table}\n\ntom-eval is {per_wall:.2f}x as fast per scenario as the reference in wall "
        f"time, {per_cpu:.2f}x in CPU time\nreference: python {' '.join(REFERENCE_COMMAND)} "
        f"(in a copy of {REFERENCE_GENERATOR})"
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scales", default="1", help="multiples of the default size, e.g. 1,10")
    args = parser.parse_args()
    scales = [int(scale) for scale in args.scales.split(",")]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        default = generate_and_check(folder, 1, args.runs)
        reference = reference_run(folder, args.runs)
        measured = {
            scale: default
            if scale == 1
            else generate_and_check(folder, scale, args.runs if scale < 100 else 1)
            for scale in scales
        }
        breakdown = phases(folder)
    print(f"machine: {machine()}; best of {args.runs} runs\n")
    if isinstance(reference, str):
        print(f"comparison with the reference skipped: {reference}\n")
    else:
        print(comparison(*default, reference) + "\n")
    print(markdown_table(SCALE_COLUMNS, [scale_row(*measured[s], s) for s in scales]))
    print(f"\nin-process, default size: {breakdown}")
    print("commands: tom-eval generate --reps R --out FILE; tom-eval check FILE --summary")


if __name__ == "__main__":
    main()
