"""How often tom-eval's parser agrees with the reference implementation's own judgement on
the replies its recorded runs hold (`was_optimal`), per run and overall, and why it
disagrees where it does.

    python benchmarks/parser_agreement.py RUN_FILES_OR_FOLDERS...

A reply agrees when tom-eval reads it as the reference's `optimal_action` exactly when the
reference judged it optimal; this isolates the parser from the engines, which differ in a
few scenarios. Each disagreement is put in a class, and the classes say who is right.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.parsing import parse_action
from tom_eval.game.recorded_runs import RecordedTrial, read_runs

CLASSES = {
    "quoted arguments": (
        'the reply quotes the call\'s arguments, Tell(B, "bag", "ball"); the reference\'s '
        "pattern takes no quotes, so it scored a well-formed action as unreadable "
        "(the reference is wrong)"
    ),
    "article or punctuation in a call": (
        "Ask(B, the bag) or Tell(B, bag, apple.): unreadable to the reference, read by "
        "tom-eval (the reference is wrong)"
    ),
    "a pass word after the action": (
        "the reference takes the last action named, so a closing 'pass' in prose overrides "
        "the call the reply committed to (the reference is wrong)"
    ),
    "reasoning before the action": (
        "a reply that reasons first; tom-eval reads the action it commits to, the reference "
        "the last action it names"
    ),
    "other": "not classified: listed in full",
}
_QUOTED = re.compile(r"\b(?:ask|tell)\s*\([^()]*[\"'][^()]*\)", re.IGNORECASE)
_ARTICLE_OR_PUNCTUATION = re.compile(
    r"\b(?:ask|tell)\s*\([^()]*(?:\b(?:the|a|an)\s|[.!]\s*\))", re.IGNORECASE
)


def classify(trial: RecordedTrial) -> str:
    if _QUOTED.search(trial.reply):
        return "quoted arguments"
    if _ARTICLE_OR_PUNCTUATION.search(trial.reply):
        return "article or punctuation in a call"
    lines = [line for line in trial.reply.splitlines() if line.strip()]
    if len(lines) > 1 or len(trial.reply) > 200:
        return "reasoning before the action"
    if re.search(r"\bpass\b", trial.reply, re.IGNORECASE):
        return "a pass word after the action"
    return "other"


def agrees(trial: RecordedTrial) -> bool:
    expected = (
        PASS if trial.optimal_action.lower() == "pass" else Action.from_text(trial.optimal_action)
    )
    return (parse_action(trial.reply, "action").action == expected) == trial.was_optimal


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--examples", type=int, default=3, help="examples per class")
    args = parser.parse_args()
    runs, skipped = read_runs(args.runs, skip_bad=True)
    for problem in skipped:
        print(f"skipped: {problem}", file=sys.stderr)
    total = agreed = 0
    classes: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    print("| run | replies | agree | agreement |")
    print("|---|---|---|---|")
    for run in runs:
        mine = [agrees(trial) for trial in run.trials]
        print(f"| {run.name} | {len(mine)} | {sum(mine)} | {sum(mine) / len(mine):.4f} |")
        total, agreed = total + len(mine), agreed + sum(mine)
        for trial, ok in zip(run.trials, mine, strict=True):
            if not ok:
                kind = classify(trial)
                classes[kind] += 1
                examples.setdefault(kind, []).append(f"{run.name} {trial.key}: {trial.reply!r}")
    print(f"| all | {total} | {agreed} | {agreed / total:.4f} |")
    print()
    for kind, count in classes.most_common():
        print(f"{kind}: {count} ({CLASSES[kind]})")
        for example in examples[kind][: args.examples]:
            print(f"    {example[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
