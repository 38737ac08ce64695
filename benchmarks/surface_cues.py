"""Surface statistics of a scenario file that could leak the Extra or the answer.

No surface cue may reveal the load condition or the answer (docs/engine.md).
This prints, for a scenario file (default: a fresh default generation):
  * the question container per expected action (it should not predict the action);
  * how often A's belief is actually right in "Believes X" stories (it should vary);
  * what the inserted events of 0B, 1A and 1B are made of (1A should look like 1B);
  * how often A steps out and back in Self-Knows-X stories, per Extra (the reference
    did this only in 1B, which invites an Ask).
Usage: python benchmarks/surface_cues.py [FILE]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

from tom_eval.errors import InputError
from tom_eval.game.generation import generate
from tom_eval.game.oracle import solve
from tom_eval.game.scenario_file import ScenarioRecord, read_scenarios, write_scenarios
from tom_eval.game.spec import EXTRAS, read_spec
from tom_eval.game.world import SELF, Enter, Event, Leave, touches


def inserted(base: tuple[Event, ...], loaded: tuple[Event, ...]) -> list[Event]:
    """The events of `loaded` that are not its base (base is a subsequence of loaded)."""
    remaining = list(base)
    extra = []
    for event in loaded:
        if remaining and event == remaining[0]:
            remaining.pop(0)
        else:
            extra.append(event)
    return extra


def share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "n/a"


def report(records: list[ScenarioRecord]) -> None:
    print("question container by expected action:")
    containers = Counter((record.asked.action, record.scenario.question) for record in records)
    for action in sorted({record.asked.action for record in records}):
        counts = {c: n for (a, c), n in containers.items() if a == action}
        print(f"  {action}: " + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())))

    right: Counter[bool] = Counter()
    for record in records:
        solution = solve(record.scenario)
        if solution.assessment.label(SELF) == "Believes X":
            right[solution.minds[SELF].belief == solution.truth] += 1
    believes = sum(right.values())
    print(
        f"A's belief actually right in Believes X stories: "
        f"{share(right[True], believes)} of {believes}"
    )

    bases = {(r.asked.id, r.rep): r.scenario for r in records if r.asked.extra == "0A"}
    print("inserted events (share that are leaves/enters; share touching the question container):")
    for extra in EXTRAS[1:]:
        events, crossings, question = 0, 0, 0
        for record in records:
            base = bases.get((record.asked.id, record.rep))
            if record.asked.extra != extra or base is None:
                continue
            added = inserted(base.events, record.scenario.events)
            events += len(added)
            crossings += sum(isinstance(event, (Leave, Enter)) for event in added)
            question += sum(touches(event, record.scenario.question) for event in added)
        print(
            f"  {extra}: {events} events, leaves/enters {share(crossings, events)},"
            f" question container {share(question, events)}"
        )

    stepped: Counter[tuple[str, bool]] = Counter()
    for record in records:
        if record.asked.self_label != "Knows X":
            continue
        story = record.scenario.events
        out_and_back = Leave(SELF) in story and Enter(SELF) in story
        stepped[(record.asked.extra, out_and_back)] += 1
    print(
        "Self-Knows-X stories in which A steps out and back: "
        + ", ".join(
            f"{extra} {share(stepped[extra, True], stepped[extra, True] + stepped[extra, False])}"
            for extra in EXTRAS
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("file", type=Path, nargs="?", help="a scenario file (JSONL)")
    args = parser.parse_args()
    if args.file is not None:
        try:
            records = read_scenarios(args.file)
        except InputError as error:
            parser.exit(2, f"surface_cues.py: {error}\n")
        report(records)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenarios.jsonl"
        write_scenarios(path, generate(read_spec(), 10, 0))
        report(read_scenarios(path))


if __name__ == "__main__":
    main()
