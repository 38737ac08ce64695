"""How long generating and checking the default 1,560 scenarios takes.

Prints wall-clock figures for the two commands exactly as a user runs them
(`tom-eval generate`, then `tom-eval check`), best of N runs, plus an in-process
breakdown. Usage: python benchmarks/generate_and_check.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tom_eval.checking import check
from tom_eval.generation import generate
from tom_eval.scenario_file import read_scenarios, write_scenarios
from tom_eval.spec import read_spec


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    command = [sys.executable, "-m", "tom_eval.cli"]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "scenarios.jsonl"
        generating, checking = [], []
        for _ in range(runs):
            generating.append(timed([*command, "generate", "--out", str(out)]))
            checking.append(timed([*command, "check", str(out), "--summary"]))
        totals = [g + c for g, c in zip(generating, checking, strict=True)]
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
        print(f"tom-eval generate (1,560 scenarios): best {min(generating):.2f} s of {runs}")
        print(f"tom-eval check: best {min(checking):.2f} s of {runs}")
        print(f"generate + check: best {min(totals):.2f} s, worst {max(totals):.2f} s")

        rows = read_spec()
        phases = {}
        started = time.perf_counter()
        generated = generate(rows, 10, 0, workers=1)
        phases["generate, one process"] = time.perf_counter() - started
        started = time.perf_counter()
        write_scenarios(out, generated)
        phases["write"] = time.perf_counter() - started
        started = time.perf_counter()
        findings = check(read_scenarios(out))
        phases["read + check"] = time.perf_counter() - started
        assert not any(finding.disagreements for finding in findings)
        print(
            "in-process phases: "
            + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in phases.items())
        )


if __name__ == "__main__":
    main()
