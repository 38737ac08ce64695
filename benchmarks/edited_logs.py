"""How `tom-eval report`, or `inspect score` with the task's scorer, takes logs edited by
hand: one value of every sample changed at a time, to text, a list, null, an object or 2.5
in turn, in a log of each kind (the game's trials and whole games, false belief, coherence,
KNP, IKD).

    python benchmarks/edited_logs.py [--kinds tom,game,...] [--values text,null,...]
        [--command report|score]

Each edit is refused (one line: exit 2 from the report, a PrerequisiteError from the scorer),
accepted (a value no table or scorer reads, or one of the right kind), or a traceback; the
tracebacks are listed. The report's edits are of the samples' score values, score metadata
and metadata; the scorer's also of their stores (what the solver recorded), which it reads.
Offline: the logs are made by the reference players. About half a second an edit for the
report (621 edits in all), a tenth of that for the scorer.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog, write_eval_log
from inspect_ai.scorer import Scorer

from scorers.coherence import coherence_scorer
from scorers.false_belief import false_belief_scorer
from scorers.game import game_scorer
from scorers.ikd import ikd_scorer
from scorers.knp import knp_scorer
from scorers.tom import tom_scorer
from tasks.coherence import coherence
from tasks.false_belief import false_belief
from tasks.ikd import ikd
from tasks.knp import knp
from tasks.tom import tom
from tom_eval.cli import main

ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE = str(ROOT / "tests" / "fixtures" / "knowledge")
KINDS: dict[str, tuple[Callable[..., Task], str, dict[str, Any]]] = {
    "tom": (tom, "tom/oracle", {}),
    "game": (tom, "tom/oracle", {"mode": "game"}),
    "false_belief": (false_belief, "tom/belief-oracle", {}),
    "coherence": (coherence, "tom/rational", {}),
    "knp": (knp, "tom/gold", {"data_dir": KNOWLEDGE}),
    "ikd": (ikd, "tom/gold", {"data_dir": KNOWLEDGE}),
}
"""Each kind of log: its task, its reference player and the task's arguments."""
SCORERS: dict[str, Callable[[], Scorer]] = {
    "tom": tom_scorer,
    "game": game_scorer,
    "false_belief": false_belief_scorer,
    "coherence": coherence_scorer,
    "knp": knp_scorer,
    "ikd": ikd_scorer,
}
"""The scorer of each kind's task, for `--command score`."""
WRONG_VALUES: dict[str, object] = {
    "text": "x",
    "list": [1, 2],
    "null": None,
    "object": {"a": 1},
    "2.5": 2.5,
}


def edits(log: EvalLog, wrong: list[str], stores: bool) -> Iterator[tuple[str, EvalLog]]:
    """`log` with one value of every sample (a score value, a score metadata value, a
    metadata value or, with `stores`, a store value, as the first sample has them) made each
    of the `wrong` values in turn."""
    first = (log.samples or [])[0]
    assert first.scores is not None
    score = next(iter(first.scores.values()))
    places = [("score", key) for key in score.value] if isinstance(score.value, dict) else []
    places += [("score metadata", key) for key in score.metadata or {}]
    places += [("metadata", key) for key in first.metadata]
    places += [("store", key) for key in first.store if stores and not key.endswith(":instance")]
    for where, key in places:
        for name in wrong:
            value = WRONG_VALUES[name]
            edited = copy.deepcopy(log)
            for sample in edited.samples or []:
                assert sample.scores is not None
                scored = next(iter(sample.scores.values()))
                values = {
                    "score": scored.value,
                    "metadata": sample.metadata,
                    "store": sample.store,
                }.get(where, scored.metadata)
                assert isinstance(values, dict)
                values[key] = value
            yield f"{where} '{key}' {name}", edited


def outcome(edited: EvalLog, name: str, folder: Path) -> tuple[str, str]:
    """What `tom-eval report` made of the edited log, and its last line."""
    logs = Path(tempfile.mkdtemp(dir=folder))
    try:
        write_eval_log(edited, str(logs / name))
    except Exception:  # Inspect refuses to write a value no log can hold
        return "unwritable", ""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed), contextlib.redirect_stdout(io.StringIO()):
            code = main(["report", str(logs), "--out", str(logs / "report"), "--quiet"])
    except Exception as error:  # what this measures
        return "traceback", f"{type(error).__name__}: {error}".splitlines()[0]
    last = (printed.getvalue().strip().splitlines() or [""])[-1]
    return ("refused" if code else "accepted"), last


def scored_outcome(edited: EvalLog, kind: str) -> tuple[str, str]:
    """What `inspect score --action append` with the kind's scorer made of the edited log."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            inspect_score(edited, SCORERS[kind](), action="append", display="none")
    except PrerequisiteError as refusal:
        return "refused", str(refusal.message)
    except Exception as error:  # what this measures
        return "traceback", f"{type(error).__name__}: {error}".splitlines()[0]
    return "accepted", ""


def made_log(kind: str, folder: Path) -> EvalLog:
    task, model, arguments = KINDS[kind]
    with contextlib.redirect_stdout(io.StringIO()):
        [log] = inspect_eval(
            task(**arguments), model=model, limit=6, log_dir=str(folder / kind), display="none"
        )
    assert log.status == "success", log.error
    return log


def main_benchmark(kinds: list[str], wrong: list[str], command: str) -> None:
    print("| log | edits | refused | accepted | traceback |")
    print("|---|---|---|---|---|")
    tracebacks: list[str] = []
    total: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for kind in kinds:
            log = made_log(kind, folder)
            name = Path(log.location).name
            counts: Counter[str] = Counter()
            for edit, edited in edits(log, wrong, stores=command == "score"):
                result, line = (
                    scored_outcome(edited, kind)
                    if command == "score"
                    else outcome(edited, name, folder)
                )
                if result == "unwritable":
                    continue
                counts[result] += 1
                if result == "traceback":
                    tracebacks.append(f"{kind}, {edit}: {line}")
            total += counts
            print(
                f"| {kind} | {sum(counts.values())} | {counts['refused']} | "
                f"{counts['accepted']} | {counts['traceback']} |"
            )
    print(
        f"| all | {sum(total.values())} | {total['refused']} | {total['accepted']} | "
        f"{total['traceback']} |"
    )
    for line in tracebacks:
        print(f"traceback: {line}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS), help="kinds of log, comma-separated")
    parser.add_argument(
        "--values", default=",".join(WRONG_VALUES), help="wrong values, comma-separated"
    )
    parser.add_argument(
        "--command",
        choices=("report", "score"),
        default="report",
        help="what reads the edited logs: tom-eval report, or inspect score with the scorer",
    )
    arguments = parser.parse_args()
    chosen, wrong = arguments.kinds.split(","), arguments.values.split(",")
    for given, known in ((chosen, KINDS), (wrong, WRONG_VALUES)):
        unknown = [name for name in given if name not in known]
        if unknown:
            parser.error(f"unknown {', '.join(unknown)} (known: {', '.join(known)})")
    main_benchmark(chosen, wrong, arguments.command)
