"""Every bad input the command refuses, in one table: one line on stderr naming the file or
item and the problem, exit code 2, no traceback, and nothing written where the output
would go. The cases found by trying tom-eval as a demanding user would come
first, then those handled before."""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from contextlib import closing, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample, read_eval_log, write_eval_log
from inspect_ai.scorer import Score
from test_scenario_file import reference_like

from conftest import ROOT
from tasks.coherence import coherence
from tasks.false_belief import false_belief
from tasks.knp import knp
from tasks.tom import tom
from tom_eval.cli import main
from tom_eval.files import write_atomically
from tom_eval.game.generation import generate
from tom_eval.game.scenario_file import write_scenarios
from tom_eval.game.spec import default_spec_file, read_spec
from tom_eval.study.design import open_design
from tom_eval.study.store import Store

STUDY = {"ids": "12,17", "extras": "0A", "reps": 2}
SPEC_HEADER = "Id,Extra,Answerer,Self,Teammate,Opponent,Action\n"
HOUR = 3600.0


def scenarios(folder: Path, name: str = "good.jsonl") -> Path:
    path = folder / name
    write_scenarios(path, generate([row for row in read_spec() if row.id == 12], 1, 0))
    return path


def first_record(folder: Path) -> dict[str, object]:
    record: dict[str, object] = json.loads(scenarios(folder).read_text().splitlines()[0])
    return record


def jsonl(folder: Path, records: list[dict[str, object]]) -> Path:
    path = folder / "bad.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def deep(folder: Path) -> Path:
    path = folder / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    return path


def device_run(folder: Path) -> Path:
    """A folder whose run file is a symbolic link to /dev/zero."""
    runs = folder / "runs"
    runs.mkdir()
    (runs / "run_1700000000_game_data.json").symlink_to("/dev/zero")
    return runs


def fifo_run(folder: Path) -> Path:
    """A folder whose run file is a named pipe."""
    runs = folder / "runs"
    runs.mkdir()
    fifo(runs / "run_1700000000_game_data.json")
    return runs


def study(folder: Path, participants: int = 1) -> Path:
    """A study with participants enrolled (nobody needs to have played for these cases)."""
    data = folder / "study"
    design = open_design(data, dict(STUDY))
    store = Store(data)
    for number in range(participants):
        store.enrol(f"p{number}", "s", "", design.reps, 0.0, HOUR)
    return data


def copied_spec(folder: Path) -> Path:
    """A copy of the shipped spec table in the working folder."""
    copy = folder / "spec.csv"
    shutil.copyfile(default_spec_file(), copy)
    return copy


def first_row_only(folder: Path) -> Path:
    """The shipped spec table's header and first row (Id 1, Extra 0A)."""
    path = folder / "one_row.csv"
    path.write_text("".join(default_spec_file().read_text().splitlines(keepends=True)[:2]))
    return path


def notes(folder: Path) -> Path:
    """A file of the user's own, which no command may replace."""
    path = folder / "notes.txt"
    path.write_text("mine\n")
    return path


def edited_study(folder: Path, statement: str) -> Path:
    data = study(folder)
    with closing(sqlite3.connect(data / "study.sqlite")) as db, db:
        db.execute(statement)
    return data


def unwritable(folder: Path) -> Path:
    """A folder this process cannot write in: a read-only one, or (as root, who may write
    in any folder) one of a file system that refuses files, such as /sys."""
    locked = folder / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    for candidate in (locked, Path("/sys")):
        try:
            with tempfile.TemporaryFile(dir=candidate):
                pass
        except OSError:
            return candidate
    pytest.skip("no folder here is closed to this user")


@dataclass(frozen=True)
class Case:
    name: str
    arguments: Callable[[Path], list[str]]
    """The command line, given a fresh folder to make its files in (the working folder)."""
    message: str
    """What the one line says (a part of it, after `tom-eval: error: `)."""
    absent: tuple[str, ...] = ()
    """Paths (relative to the folder) that must not exist afterwards."""


NULL_REGRET_TURN = {"number": 1, "id": 12, "extra": "0A", "expected_action": "Pass"} | {
    "optimal": 1.0,
    "lies_okay": 1.0,
    "valid": 1.0,
    "regret": None,
    "lie_to_opponent": 0.0,
}
"""One of A's turns in a game as the scorer writes it, but for a null regret."""

REMOVED = object()
"""The value of `edited_log` that takes the key out."""


def edited_case(task: str, where: str, key: str, value: object, kind: str) -> Case:
    """`tom-eval report` on the task's log with one value of every sample edited: refused,
    naming the value and the `kind` it should be."""
    return Case(
        f"report, a {task} log edited to hold {where} '{key}' {value!r}",
        lambda d: ["report", str(edited_log(d, task, where, key, value)), "--out", "report"],
        f"epoch 1: {where} '{key}' is {json.dumps(value)}, not {kind}",
        ("report",),
    )


def removed_case(task: str, where: str, key: str) -> Case:
    """`tom-eval report` on the task's log with one key taken out of every sample's score
    or score metadata: refused, naming the key."""
    return Case(
        f"report, a {task} log edited to lack {where} '{key}'",
        lambda d: ["report", str(edited_log(d, task, where, key, REMOVED)), "--out", "report"],
        f"epoch 1: {where} '{key}' is missing (the task writes it in every scored sample)",
        ("report",),
    )


CASES = [
    # ------------------------------------------------------------ scenario files
    Case(
        "check, nested 200,000 deep",
        lambda d: ["check", str(deep(d))],
        "deep.json: nested too deeply to read",
    ),
    Case(
        "show, nested 200,000 deep",
        lambda d: ["show", str(deep(d)), "12-0A-r1"],
        "deep.json: nested too deeply to read",
    ),
    Case(
        "check, an integer of 5,000 digits",
        lambda d: ["check", str(write(d / "bad.jsonl", '{"key": "k", "id": ' + "9" * 5000 + "}"))],
        "bad.jsonl: holds a number longer than 4300 digits",
    ),
    Case(
        "check, a rep that contradicts the key",
        lambda d: ["check", str(jsonl(d, [first_record(d) | {"rep": 5}]))],
        "bad.jsonl line 1 (scenario 12-0A-r1): the key contradicts 'id' 12, 'extra' 0A and 'rep' 5",
    ),
    Case(
        "check, a container named twice",
        lambda d: ["check", str(jsonl(d, [first_record(d) | {"containers": ["bag"] * 3}]))],
        "bad.jsonl line 1 (scenario 12-0A-r1): a container is named twice in ['bag', 'bag', 'bag']",
    ),
    Case(
        "check, a record written over several lines",
        lambda d: ["check", str(write(d / "pretty.json", json.dumps(first_record(d), indent=2)))],
        "pretty.json: one JSON value over several lines: neither tom-eval's JSON Lines",
    ),
    Case(
        "check, a line of several megabytes",
        lambda d: ["check", str(jsonl(d, [first_record(d) | {"note": "x" * 3_000_000}]))],
        "bad.jsonl line 1: 3,",
    ),
    Case(
        "check, a device that never ends (read, it filled the memory)",
        lambda d: ["check", "/dev/zero"],
        "/dev/zero: a device, not a file",
    ),
    Case(
        "show, a device",
        lambda d: ["show", "/dev/zero", "12-0A-r1"],
        "/dev/zero: a device, not a file",
    ),
    Case(
        "import-runs, a run file in a folder that is a device",
        lambda d: ["import-runs", str(device_run(d)), "--out", "logs"],
        "run_1700000000_game_data.json: not a regular file; a pipe or a device would be read",
        ("logs",),
    ),
    Case(
        "import-runs, a device named",
        lambda d: ["import-runs", "/dev/zero", "--out", "logs"],
        "/dev/zero: neither a run file nor a folder of them",
        ("logs",),
    ),
    Case(
        "import-runs, a run file in a folder that is a pipe (read, it waited for ever)",
        lambda d: ["import-runs", str(fifo_run(d)), "--out", "logs"],
        "run_1700000000_game_data.json: not a regular file; a pipe or a device would be read",
        ("logs",),
    ),
    # ------------------------------------------------------------------ generate
    Case(
        "generate, --out the spec table it reads",
        lambda d: ["generate", "--spec", str(copied_spec(d)), "--out", "spec.csv"],
        "--out spec.csv: is the input file",
    ),
    Case(
        "generate, a spec without a row asked for",
        lambda d: ["generate", "--spec", str(first_row_only(d)), "--reps", "1", "--out", "x.jsonl"],
        "one_row.csv: the spec table has no row for Id 1 Extra 0B",
        ("x.jsonl",),
    ),
    Case(
        "generate, a spec that is a device",
        lambda d: ["generate", "--spec", "/dev/zero", "--out", "x.jsonl"],
        "/dev/zero: a device, not a file",
        ("x.jsonl",),
    ),
    Case(
        "generate, a mastery file that is a device",
        lambda d: ["generate", "--mastery", "/dev/zero", "--out", "x.jsonl"],
        "/dev/zero: a device, not a file",
        ("x.jsonl",),
    ),
    Case(
        "generate, 99,999,999,999 reps",
        lambda d: ["generate", "--reps", "99999999999", "--out", "x.jsonl"],
        "156 spec rows x reps 1 to 99,999,999,999 is 15,599,999,999,844 scenarios; at most 200,000",
        ("x.jsonl",),
    ),
    Case(
        "generate, a seed beyond 64 bits (a task could not run the file)",
        lambda d: ["generate", "--seed", "9" * 20, "--out", "x.jsonl"],
        "argument --seed: seed must be from -2**63 to 2**63 - 1, not 99999999999999999999",
        ("x.jsonl",),
    ),
    Case(
        "false-belief-items, a seed beyond 64 bits",
        lambda d: ["false-belief-items", "--seed", str(2**63), "--out", "x.jsonl"],
        f"argument --seed: seed must be from -2**63 to 2**63 - 1, not {2**63}",
        ("x.jsonl",),
    ),
    Case(
        "generate, --out ending in a slash (a folder's name; it wrote a file so named)",
        lambda d: ["generate", "--ids", "12", "--reps", "1", "--out", "new/"],
        "argument --out: new/: a folder's name; give a file name",
        ("new",),
    ),
    Case(
        "false-belief-items, --out ending in /. (Path reads it as the folder's name)",
        lambda d: ["false-belief-items", "--out", "new/."],
        "argument --out: new/.: a folder's name; give a file name",
        ("new",),
    ),
    Case(
        "generate, a spec with a header only",
        lambda d: [
            "generate",
            "--spec",
            str(write(d / "spec.csv", (ROOT / "scenarios/spec.csv").read_text().splitlines()[0])),
            "--out",
            "x.jsonl",
        ],
        "spec.csv: no spec rows, only the header",
        ("x.jsonl",),
    ),
    Case(
        "generate, a mastery file that is not UTF-8",
        lambda d: [
            "generate",
            "--mastery",
            str(write_bytes(d / "m.yaml", b"a: \xff\xfe\n")),
            "--out",
            "x.jsonl",
        ],
        "m.yaml: not UTF-8 text",
        ("x.jsonl",),
    ),
    Case(
        "generate, --out a folder",
        lambda d: generate_into(str(folder(d / "out"))),
        "out: is a folder; give a file name",
    ),
    Case(
        "generate, --out a named pipe (renaming over it would replace it)",
        lambda d: generate_into(str(fifo(d / "pipe"))),
        "pipe: not a regular file (a device, pipe or socket); give a file name",
    ),
    Case(
        "generate, --out a link to a pipe (/dev/stdout piped: named as given, not as /proc's)",
        lambda d: generate_into(str(linked(d / "stdout", fifo(d / "pipe")))),
        "stdout: not a regular file (a device, pipe or socket); give a file name",
    ),
    Case(
        "generate, --out empty (the current folder)",
        lambda d: generate_into(""),
        "argument --out: '' is an empty path, which names nothing",
    ),
    Case(
        "generate, --out under a file",
        lambda d: generate_into(f"{write(d / 'plain', 'x')}/x.jsonl"),
        "plain/x.jsonl: ",
    ),
    Case(
        "generate, --out not writable",
        lambda d: generate_into(str(unwritable(d) / "x.jsonl")),
        "x.jsonl: cannot write in",
    ),
    # -------------------------------------------------------------------- report
    Case(
        "report, --out a name too long in a new folder (the new folder is removed again)",
        lambda d: ["report", str(logs(d)), "--out", str(d / "new" / ("x" * 300)), "--quiet"],
        "File name too long",
        ("new",),
    ),
    Case(
        "report, --out a file",
        lambda d: ["report", str(logs(d)), "--out", str(write(d / "plain", "x")), "--quiet"],
        "plain: is a file; --out names a folder",
    ),
    Case(
        "report, --out under a file",
        lambda d: ["report", str(logs(d)), "--out", f"{write(d / 'plain', 'x')}/report", "--quiet"],
        "plain/report: ",
    ),
    Case(
        "report, a scenario file given as a log",
        lambda d: ["report", str(write(d / "s.jsonl", "{}\n")), "--out", "r", "--quiet"],
        "s.jsonl: not a readable Inspect log (its name ends in neither .eval nor .json, as "
        "Inspect's logs do)",
        ("r",),
    ),
    Case(
        "report, an empty log path (the current folder)",
        lambda d: ["report", "", "--out", "r", "--quiet"],
        "argument logs: '' is an empty path, which names nothing",
        ("r",),
    ),
    Case(
        "report, a folder where the report writes summary.csv",
        lambda d: [
            "report",
            str(logs(d)),
            "--out",
            str(folder(d / "r" / "summary.csv").parent),
            "--quiet",
        ],
        "r/summary.csv: is not a file, where a report may write one",
    ),
    Case(
        "report, --out not writable",
        lambda d: ["report", str(logs(d)), "--out", str(unwritable(d) / "report"), "--quiet"],
        "report: cannot write in",
    ),
    # -------------------------------------------------------------------- export
    Case(
        "export, --out a file",
        lambda d: ["export", str(study(d)), "--out", str(write(d / "plain", "x"))],
        "plain: exists and is not an empty folder",
    ),
    Case(
        "export, --out under a file",
        lambda d: ["export", str(study(d)), "--out", f"{write(d / 'plain', 'x')}/logs"],
        "plain/logs: ",
    ),
    Case(
        "export, --out not writable",
        lambda d: ["export", str(study(d)), "--out", str(unwritable(d) / "logs")],
        "logs: cannot write in",
    ),
    Case(
        "export, a corrupt database",
        lambda d: ["export", str(corrupt_database(study(d))), "--out", "logs"],
        "study.sqlite: not a readable study database (file is not a database)",
        ("logs",),
    ),
    Case(
        "export, an empty database",
        lambda d: ["export", str(empty_database(study(d))), "--out", "logs"],
        "study.sqlite: holds no study (no table 'participants')",
        ("logs",),
    ),
    Case(
        "export, a database of another schema",
        lambda d: [
            "export",
            str(edited_study(d, "ALTER TABLE replies DROP COLUMN story")),
            "--out",
            "logs",
        ],
        "study.sqlite: not a study database of this version (table 'replies' lacks story)",
        ("logs",),
    ),
    Case(
        "export, a participant with an unknown sample",
        lambda d: [
            "export",
            str(
                edited_study(
                    d,
                    "UPDATE participants SET sample_order = '[\"99-0A-r1\"]', status = 'complete'",
                )
            ),
            "--out",
            "logs",
        ],
        "study.sqlite: participant p0: sample '99-0A-r1' is not in this study's design",
        ("logs",),
    ),
    Case(
        "export, a bad row",
        lambda d: [
            "export",
            str(edited_study(d, "UPDATE participants SET sample_order = 'not json'")),
            "--out",
            "logs",
        ],
        "study.sqlite: participant 'p0': sample_order is not a list of sample ids",
        ("logs",),
    ),
    Case(
        "export, a row of the wrong type",
        lambda d: [
            "export",
            str(edited_study(d, "UPDATE participants SET rep = 'two'")),
            "--out",
            "logs",
        ],
        "study.sqlite: participant 'p0': rep is 'two', not int",
        ("logs",),
    ),
    Case(
        "export, a study.json that is not JSON",
        lambda d: ["export", str(rewritten_design(study(d), "{")), "--out", "logs"],
        "study.json: not a study design: invalid JSON at line 1 column 2",
        ("logs",),
    ),
    Case(
        "export, a study.json with a bad parameter",
        lambda d: [
            "export",
            str(rewritten_design(study(d), json.dumps(design_with(reps="two")))),
            "--out",
            "logs",
        ],
        "study.json: tom: reps must be a whole number of 1 or more, not 'two'",
        ("logs",),
    ),
    Case(
        "export, a folder that does not exist",
        lambda d: ["export", str(d / "nowhere"), "--out", "logs"],
        "nowhere: no such folder (give the --data-dir of tom-eval serve)",
        ("logs", "nowhere"),
    ),
    Case(
        "export, a folder without a study",
        lambda d: ["export", str(folder(d / "empty")), "--out", "logs"],
        "empty: no study here (no study.json)",
        ("logs", "empty/study.sqlite"),
    ),
    Case(
        "export, a participant id that would name a file outside the export",
        lambda d: [
            "export",
            str(edited_study(d, "UPDATE participants SET participant = '../outside'")),
            "--out",
            "logs",
        ],
        "study.sqlite: participant '../outside': the id is not letters, digits, - or _",
        ("logs", "outside.json"),
    ),
    Case(
        "export, no study, with --progress in a new folder",
        lambda d: [
            "export",
            str(folder(d / "empty")),
            "--out",
            "logs",
            "--progress",
            "new/progress.json",
        ],
        "empty: no study here (no study.json)",
        ("logs", "new"),
    ),
    Case(
        "export, --progress a folder",
        lambda d: ["export", str(study(d)), "--out", "logs", "--progress", str(folder(d / "p"))],
        "p: is a folder; give a file name",
        ("logs",),
    ),
    Case(
        "export, --progress not writable",
        lambda d: [
            "export",
            str(study(d)),
            "--out",
            "logs",
            "--progress",
            str(unwritable(d) / "p.json"),
        ],
        "p.json: cannot write in",
        ("logs",),
    ),
    Case(
        "export, --progress the study's own database",
        lambda d: [
            "export",
            str(study(d)),
            "--out",
            "logs",
            "--progress",
            str(d / "study" / "study.sqlite"),
        ],
        "study.sqlite: is inside the study's folder",
        ("logs",),
    ),
    Case(
        "export, --progress inside --out",
        lambda d: ["export", str(study(d)), "--out", "logs", "--progress", "logs/p.json"],
        "logs/p.json: is inside --out",
        ("logs",),
    ),
    Case(
        "export, --progress a file that is not a progress file",
        lambda d: ["export", str(study(d)), "--out", "logs", "--progress", str(notes(d))],
        "notes.txt: exists and is not an export's progress file",
        ("logs",),
    ),
    # --------------------------------------------------------------------- serve
    Case(
        "serve, a scenario file that is a pipe (the study read its /dev/fd name at each start)",
        lambda d: [
            "serve",
            "--data-dir",
            "s",
            "--port",
            "0",
            "--scenario-file",
            str(fifo(d / "p")),
        ],
        "p: not a regular file; the study reads it again at every start",
        ("s",),
    ),
    Case(
        "serve, a port beyond 65535",
        lambda d: ["serve", "--data-dir", "s", "--port", "99999"],
        "serve: --port must be between 0 and 65535, not 99999",
        ("s",),
    ),
    Case(
        "serve, a time-out that is not a number",
        lambda d: ["serve", "--data-dir", "s", "--timeout-minutes", "nan"],
        "serve: --timeout-minutes must be positive and finite, not nan",
        ("s",),
    ),
    Case(
        "serve, a time-out without end",
        lambda d: ["serve", "--data-dir", "s", "--timeout-minutes", "inf"],
        "serve: --timeout-minutes must be positive and finite, not inf",
        ("s",),
    ),
    Case(
        "serve, a bad completion URL creates no study",
        lambda d: ["serve", "--data-dir", "s", "--reps", "2", "--completion-url", "x{y}"],
        "serve: --completion-url may hold {code} and no other braces",
        ("s",),
    ),
    Case(
        "serve, a completion URL with a format spec (it formatted a string of gigabytes)",
        lambda d: ["serve", "--data-dir", "s", "--completion-url", "x/{code:>9999999999}"],
        "serve: --completion-url may hold {code} and no other braces: x/{code:>9999999999}",
        ("s",),
    ),
    Case(
        "serve, a completion URL with an attribute of the code",
        lambda d: ["serve", "--data-dir", "s", "--completion-url", "x/{code.upper}"],
        "serve: --completion-url may hold {code} and no other braces: x/{code.upper}",
        ("s",),
    ),
    Case(
        "serve, a public URL that is no address (it was a traceback)",
        lambda d: ["serve", "--data-dir", "s", "--public-url", "http://[x"],
        "serve: --public-url must be an http(s) address, not 'http://[x'",
        ("s",),
    ),
    Case(
        "serve, a public URL with a port beyond 65535",
        lambda d: ["serve", "--data-dir", "s", "--public-url", "http://x:99999/"],
        "serve: --public-url must be an http(s) address, not 'http://x:99999/'",
        ("s",),
    ),
    Case(
        "serve, an empty admin token (an unset $TOKEN) creates no study",
        lambda d: ["serve", "--data-dir", "s", "--admin-token", ""],
        "serve: --admin-token is empty: leave it out",
        ("s",),
    ),
    Case(
        "serve, a study that selects no scenario creates no folder",
        lambda d: ["serve", "--data-dir", "s", "--ids", "999"],
        "unknown Id 999",
        ("s",),
    ),
    Case(
        "serve, --data-dir a file",
        lambda d: ["serve", "--data-dir", str(write(d / "plain", "x"))],
        "plain: is a file, not a folder",
    ),
    # --------------------------------------------------------- report, false-belief-items
    Case(
        "report, a JSON log renamed",
        lambda d: ["report", str(renamed_json_log(d)), "--out", "report", "--quiet"],
        "mylog.json: not read as an Inspect log by inspect_ai.analysis",
        ("report",),
    ),
    Case(
        "report, logs and --compare at once",
        lambda d: ["report", "logs", "--compare", "a", "b", "--out", "report"],
        "report: give log directories, or --compare A B, not both",
        ("report",),
    ),
    Case(
        "report, --compare of a folder with itself (by two spellings)",
        lambda d: (
            lambda folder: ["report", "--compare", str(folder), f"{folder}/.", "--out", "r"]
        )(logs(d)),
        "is on both sides of --compare (1 log(s) are): a run compared with itself differs",
        ("r",),
    ),
    Case(
        "report, --compare of a folder with a log in it",
        lambda d: (
            lambda folder: [
                "report",
                "--compare",
                str(folder),
                str(next(folder.glob("*.eval"))),
                "--out",
                "r",
            ]
        )(logs(d)),
        "is on both sides of --compare (1 log(s) are)",
        ("r",),
    ),
    *(
        edited_case(task, where, key, value, kind)
        for task, where, key, value, kind in (
            ("tom", "score", "optimal", "yes", "a number from 0 to 1"),
            ("tom", "score", "optimal", 2.5, "a number from 0 to 1"),
            ("tom", "score", "regret", "x", "a number from 0 to 2.5 (the task writes one"),
            ("tom", "score", "points", -9, "a number from -1.5 to 1 (the task writes one"),
            ("tom", "metadata", "id", "twelve", "an integer"),
            ("tom", "metadata", "ect", None, "an integer"),
            ("tom", "metadata", "answerer", None, "one of A, B, C, D"),
            ("tom", "metadata", "expected_action", "Jump", "one of Pass, Ask Teammate, Tell"),
            ("tom", "metadata", "extra", "2C", "one of 0A, 0B, 1A, 1B"),
            ("tom", "metadata", "story", "x", "a story as the task writes it"),
            ("tom", "metadata", "story", '{"events": [{}]}', "a story as the task writes it"),
            ("tom", "score metadata", "options", 5, "a list of texts or null"),
            ("game", "score", "win", 2, "a number from 0 to 1"),
            ("game", "score metadata", "a_turns", [{"number": "x"}], "a list of A's turns"),
            ("false_belief", "score metadata", "prompts", "x", "a list of prompt outcomes as the"),
            ("false_belief", "score metadata", "prompts", [{"x": 1}], "a list of prompt outcomes"),
            ("coherence", "score", "read", "x", "a number from 0 to 1"),
            ("coherence", "score metadata", "item_id", "x", "the id of an item"),
            ("coherence", "score metadata", "distribution", [1], "an object of the item's"),
            ("coherence", "score metadata", "distribution", {"bogus": 1.0}, "an object of the"),
            ("knp", "score", "accuracy", 1.5, "a number from 0 to 1"),
        )
    ),
    # Read as unscored before: the samples left the key's figures without a word.
    Case(
        "report, a tom log edited to hold score 'regret' null",
        lambda d: ["report", str(edited_log(d, "tom", "score", "regret", None)), "--out", "r"],
        "epoch 1: score 'regret' is null, not a number from 0 to 2.5 (the task writes one in",
        ("r",),
    ),
    # A TypeError in the report's estimators column (NaN beside text).
    Case(
        "report, a false-belief log edited to lack each prompt's estimator",
        lambda d: [
            "report",
            str(edited_outcomes(d, "prompts", "estimator", REMOVED)),
            "--out",
            "r",
        ],
        "score metadata 'prompts' is [{",
        ("r",),
    ),
    # Counted in no share.
    Case(
        "report, a false-belief log edited to hold a condition the battery has not",
        lambda d: ["report", str(edited_outcomes(d, "prompts", "condition", "xx")), "--out", "r"],
        "not a list of prompt outcomes as the scorer writes them",
        ("r",),
    ),
    # A KeyError: the step's story had no reality prompt to give the truth.
    Case(
        "report, a false-belief log edited to hold a step of a story it has not",
        lambda d: ["report", str(edited_outcomes(d, "steps", "story", 99)), "--out", "r"],
        "a sentence-step prompt's story is 99, not one of the sample's stories",
        ("r",),
    ),
    # Read into the item's correlations as it was; the scorer refuses it too.
    Case(
        "report, a coherence log edited to hold probabilities of 2",
        lambda d: ["report", str(overcertain_coherence_log(d)), "--out", "r"],
        "score metadata 'distribution' is {",
        ("r",),
    ),
    # Likewise a turn of A's in a game: its mean regret left it out.
    Case(
        "report, a game log edited to hold an A turn's regret null",
        lambda d: [
            "report",
            str(edited_log(d, "game", "score metadata", "a_turns", [NULL_REGRET_TURN])),
            "--out",
            "r",
        ],
        "score metadata 'a_turns' is [{",
        ("r",),
    ),
    *(
        removed_case(task, where, key)
        for task, where, key in (
            ("tom", "score", "optimal"),
            ("game", "score", "fooled"),
            ("false_belief", "score metadata", "prompts"),
            ("coherence", "score", "read"),
            ("knp", "score", "invalid"),
        )
    ),
    Case(
        "report, a log with one sample's integer edited to text (the column is read as text)",
        lambda d: [
            "report",
            str(edited_log(d, "tom", "metadata", "ect", "abc", last_only=True)),
            "--out",
            "report",
        ],
        "sample 12-1B-r1, epoch 1: metadata 'ect' is \"abc\", not an integer; was the log edited?",
        ("report",),
    ),
    Case(
        "false-belief-items, ten million tasks",
        lambda d: ["false-belief-items", "--contents", "10000000", "--out", "items.jsonl"],
        "10,000,000 contents + 20 transfer tasks is more than the 100,000 generated at once",
        ("items.jsonl",),
    ),
    # --------------------------------------------------------------- handled before
    Case("check, a missing file", lambda d: ["check", "absent.jsonl"], "absent.jsonl: cannot read"),
    Case(
        "check, an empty file",
        lambda d: ["check", str(write(d / "e.jsonl", ""))],
        "e.jsonl: empty file, no scenarios",
    ),
    Case(
        "check, not UTF-8",
        lambda d: ["check", str(write_bytes(d / "b.jsonl", b"\xff\xfe"))],
        "b.jsonl: not UTF-8 text",
    ),
    Case(
        "check, an Inspect log given as a scenario file",
        lambda d: ["check", str(write_bytes(d / "run.eval", b"PK\x03\x04\x14\x00\x80"))],
        "run.eval: a zip archive (an Inspect .eval log?), not text",
    ),
    Case(
        "check, invalid JSON",
        lambda d: ["check", str(write(d / "b.json", '{"key": "x"\n'))],
        "b.json: invalid JSON at line 2",
    ),
    Case(
        "show, an unknown key",
        lambda d: ["show", str(scenarios(d)), "99-0A-r1"],
        "good.jsonl: no scenario '99-0A-r1'",
    ),
    Case(
        "generate, an unknown Id",
        lambda d: ["generate", "--ids", "99", "--out", "x.jsonl"],
        "unknown Id 99",
        ("x.jsonl",),
    ),
    Case(
        "generate, an unknown Extra",
        lambda d: ["generate", "--extras", "2C", "--out", "x.jsonl"],
        "unknown Extra '2C'",
        ("x.jsonl",),
    ),
    Case(
        "generate, no reps",
        lambda d: ["generate", "--reps", "0", "--out", "x.jsonl"],
        "reps must be at least 1",
        ("x.jsonl",),
    ),
    Case(
        "generate, a spec that is not CSV",
        lambda d: ["generate", "--spec", str(write(d / "s.csv", "a,b\n1,2\n")), "--out", "x.jsonl"],
        "s.csv: header must be",
        ("x.jsonl",),
    ),
    Case(
        "generate, a mastery file that is not YAML",
        lambda d: ["generate", "--mastery", str(write(d / "m.yaml", "a: [\n")), "--out", "x.jsonl"],
        "m.yaml: not valid YAML",
        ("x.jsonl",),
    ),
    Case(
        "report, a missing folder",
        lambda d: ["report", "absent", "--out", "r"],
        "absent: no such file or directory",
        ("r",),
    ),
    Case(
        "report, no logs",
        lambda d: ["report", str(folder(d / "none")), "--out", "r"],
        "none: no Inspect logs found",
        ("r",),
    ),
    Case(
        "report, negative examples",
        lambda d: ["report", str(logs(d)), "--out", "r", "--examples", "-1"],
        "--examples must be 0 or more",
        ("r",),
    ),
    Case(
        "export, --out a full folder",
        lambda d: [
            "export",
            str(study(d)),
            "--out",
            str(write(folder(d / "full") / "x", "x").parent),
        ],
        "full: exists and is not an empty folder",
    ),
    Case(
        "generate, an Id that is no number",
        lambda d: ["generate", "--ids", "seven", "--out", "x.jsonl"],
        "ids: cannot read 'seven'",
        ("x.jsonl",),
    ),
    Case(
        "generate, reps that are no number",
        lambda d: ["generate", "--reps", "many", "--out", "x.jsonl"],
        "invalid int value",
        ("x.jsonl",),
    ),
    Case(
        "generate, a spec row with an unknown Extra",
        lambda d: [
            "generate",
            "--spec",
            str(spec(d, "1,9Z,Self,Knows X,Knows Truth,Knows Truth,Pass")),
            "--out",
            "x.jsonl",
        ],
        "spec.csv row 2: unknown Extra '9Z'",
        ("x.jsonl",),
    ),
    Case(
        # Self Knows X, teammate Knows Truth: the teammate's Ask cannot be optimal.
        "generate, a spec row no story satisfies",
        lambda d: [
            "generate",
            "--spec",
            str(spec(d, "1,0A,Self,Knows X,Knows Truth,Knows Truth,Ask Teammate")),
            "--extras",
            "0A",
            "--out",
            "x.jsonl",
        ],
        "Id 1: no story satisfies",
        ("x.jsonl",),
    ),
    Case("an unknown command", lambda d: ["fly"], "invalid choice: 'fly'"),
]


def generate_into(out: str) -> list[str]:
    return ["generate", "--reps", "1", "--ids", "12", "--out", out]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def spec(folder: Path, row: str) -> Path:
    return write(folder / "spec.csv", f"{SPEC_HEADER}{row}\n")


def write_bytes(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


def folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def corrupt_database(data: Path) -> Path:
    (data / "study.sqlite").write_bytes(b"this is no database" * 100)
    return data


def empty_database(data: Path) -> Path:
    (data / "study.sqlite").write_bytes(b"")
    return data


def design_with(**changes: object) -> dict[str, object]:
    from tom_eval.study.design import TASK_DEFAULTS

    return dict(TASK_DEFAULTS) | STUDY | changes


def rewritten_design(data: Path, text: str) -> Path:
    (data / "study.json").write_text(text)
    return data


_LOGS: dict[str, Path] = {}
RUNS: dict[str, tuple[Callable[..., Task], str, dict[str, object], int | None]] = {
    "tom": (tom, "tom/oracle", {"ids": 12, "reps": 1}, None),
    "game": (tom, "tom/oracle", {"mode": "game"}, 1),
    "false_belief": (false_belief, "tom/belief-oracle", {"sentence_by_sentence": True}, 1),
    "coherence": (coherence, "tom/rational", {}, 1),
    "knp": (knp, "tom/gold", {"data_dir": str(ROOT / "tests/fixtures/knowledge")}, 1),
}
"""Each task's run for the cases that need a real log of it: short, and offline."""


def logs(working: Path, task: str = "tom") -> Path:
    """A folder with one real log of the task (made once, copied for each case)."""
    if task not in _LOGS:
        task_function, model, arguments, limit = RUNS[task]
        made = working.parent / f"{task}-logs"
        # Inspect's banner, printed as the session's first model is made, is not the case's.
        with redirect_stdout(io.StringIO()):
            [run] = inspect_eval(
                task_function(**arguments),
                model=model,
                limit=limit,
                log_dir=str(made),
                display="none",
            )
        assert run.status == "success", run.error
        _LOGS[task] = made
    copy = folder(working / "logs")
    for log in _LOGS[task].iterdir():
        (copy / log.name).write_bytes(log.read_bytes())
    return copy


def rewritten(
    working: Path, task: str, edit: Callable[[EvalSample], None], last_only: bool = False
) -> Path:
    """The task's log with `edit` applied to every sample (or to the last one), as a hand
    edit would."""
    (log,) = logs(working, task).iterdir()
    edited = read_eval_log(str(log))
    for sample in (edited.samples or [])[-1 if last_only else 0 :]:
        edit(sample)
    write_eval_log(edited, str(log))
    return log


def put(values: dict[str, Any], key: str, value: object) -> None:
    """`values[key]` set to `value`, or taken out for `REMOVED`."""
    if value is REMOVED:
        del values[key]
    else:
        values[key] = value


def score_of(sample: EvalSample) -> Score:
    assert sample.scores is not None
    (score,) = sample.scores.values()
    return score


def edited_log(
    working: Path, task: str, where: str, key: str, value: object, last_only: bool = False
) -> Path:
    """The task's log with one value of every sample's (or of the last sample's) metadata,
    score or score metadata changed (taken out, for `REMOVED`)."""

    def edit(sample: EvalSample) -> None:
        score = score_of(sample)
        values = {"metadata": sample.metadata, "score": score.value}.get(where, score.metadata)
        assert isinstance(values, dict)
        put(values, key, value)

    return rewritten(working, task, edit, last_only)


def edited_outcomes(working: Path, outcomes: str, key: str, value: object) -> Path:
    """The false-belief log with one value of every prompt's (`outcomes`: "prompts") or
    sentence step's ("steps") outcome in its score metadata changed (taken out, for
    `REMOVED`)."""

    def edit(sample: EvalSample) -> None:
        metadata = score_of(sample).metadata
        assert metadata is not None and metadata[outcomes]
        for outcome in metadata[outcomes]:
            put(outcome, key, value)

    return rewritten(working, "false_belief", edit)


def overcertain_coherence_log(working: Path) -> Path:
    """The coherence task's log with each probability its samples logged set to 2."""

    def edit(sample: EvalSample) -> None:
        metadata = score_of(sample).metadata
        assert metadata is not None
        metadata["distribution"] = dict.fromkeys(metadata["distribution"], 2.0)

    return rewritten(working, "coherence", edit)


def renamed_json_log(working: Path) -> Path:
    """The game's log as JSON, under a name other than the one Inspect gives its logs."""
    (log,) = logs(working).iterdir()
    renamed = working / "mylog.json"
    write_eval_log(read_eval_log(str(log)), str(renamed), format="json")
    log.unlink()
    return renamed


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    case: Case,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    working = folder(tmp_path / "work")
    monkeypatch.chdir(working)
    arguments = case.arguments(working)
    before = sorted(working.rglob("*"))
    assert main(arguments) == 2
    printed = capsys.readouterr()
    [line] = printed.err.splitlines()
    assert line.startswith("tom-eval: error: ") and case.message in line, line
    assert printed.out == ""
    for path in case.absent:
        assert not (working / path).exists(), path
    # Nothing half-written: no new file anywhere (no temporary one left behind either).
    assert sorted(working.rglob("*")) == before


def test_generate_refuses_to_write_over_the_spec_table_it_reads_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tom-eval generate --out scenarios/spec.csv` would replace the shipped table."""
    shipped = copied_spec(tmp_path)
    monkeypatch.setattr("tom_eval.cli.default_spec_file", lambda: shipped)
    before = shipped.read_bytes()
    assert main(["generate", "--out", str(shipped)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert shipped.read_bytes() == before


def test_export_leaves_a_file_it_refuses_as_progress_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    database = study(tmp_path) / "study.sqlite"
    before = database.read_bytes()
    for progress in (database, notes(tmp_path)):
        content = progress.read_bytes()
        assert (
            main(["export", str(tmp_path / "study"), "--out", "logs", "--progress", str(progress)])
            == 2
        )
        assert progress.read_bytes() == content
    assert database.read_bytes() == before


def test_scenario_files_nested_deeply_are_refused_by_the_task(tmp_path: Path) -> None:
    """`-T scenario_file=` goes through Inspect: one line there too, and no log."""
    path = deep(tmp_path)
    command = [sys.executable, "-m", "inspect_ai", "eval", "tasks/tom.py", "--model", "tom/oracle"]
    command += ["-T", f"scenario_file={path}", "--log-dir", str(tmp_path / "logs")]
    # Inspect prints the line with rich, which wraps it at the terminal's width.
    wide = os.environ | {"COLUMNS": "300"}
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=wide)
    assert run.returncode == 1
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert lines == [f"tom: {path}: nested too deeply to read"]
    assert not (tmp_path / "logs").exists()


REFUSALS = {
    "task argument": (
        ["tasks/tom.py", "-T", "reps=x"],
        "tom: reps must be a whole number of 1 or more, not 'x'",
    ),
    "player": (["tasks/knp.py"], "tom/oracle cannot play knp: it plays tom"),
    "model arg": (["tasks/tom.py", "-M", "sede=3"], "unknown model arg 'sede'"),
}
"""A refusal of each kind, each raised at its own step of starting a run."""
NONE, JSON, PLAIN = ["--display", "none"], ["--json"], ["--display", "plain"]


@pytest.mark.parametrize(
    ("refusal", "display", "inspect_command"),
    # Every pair of refusal, display and command, each in one run: 9 runs, not all 18.
    [
        ("task argument", NONE, "eval"), ("task argument", JSON, "eval-set"),
        ("task argument", PLAIN, "eval"),
        ("player", NONE, "eval-set"), ("player", JSON, "eval"), ("player", PLAIN, "eval-set"),
        ("model arg", NONE, "eval"), ("model arg", JSON, "eval-set"),
        ("model arg", PLAIN, "eval-set"),
    ],
)  # fmt: skip
def test_a_refused_run_says_why_once_under_every_display(
    tmp_path: Path, refusal: str, display: list[str], inspect_command: str
) -> None:
    """Inspect's `--display none` silences its own printing of a refusal: tom-eval's
    refusals are heard there too (on standard error), and said once with `--json` and
    under `eval-set` (which sets the display to none before it quiets the console)."""
    arguments, line = REFUSALS[refusal]
    command = [sys.executable, "-m", "inspect_ai", inspect_command, *arguments]
    command += ["--model", "tom/oracle", *display, "--log-dir", str(tmp_path / "logs")]
    wide = os.environ | {"COLUMNS": "300"}
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=wide)
    assert run.returncode == 1
    said = [text for text in (run.stdout + run.stderr).splitlines() if text.strip()]
    assert len(said) == 1 and line in said[0], said
    # eval-set makes the folder (with its id) before the task refuses: no log in it.
    assert not [path for path in tmp_path.rglob("*") if path.suffix in (".eval", ".json")]


def test_a_reference_file_without_transitions_is_checked_without_that_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`epistemic_transitions` only feeds a note of check: the file is read, the note
    skipped."""
    reference = reference_like()
    reference["scenarios"][0].pop("epistemic_transitions")
    path = write(tmp_path / "reference.json", json.dumps(reference))
    assert main(["check", str(path)]) == 0
    assert "1 scenario" in capsys.readouterr().out


def test_a_report_skips_a_corrupt_log_by_name_and_reports_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder_of_logs = logs(folder(tmp_path / "work"))
    (folder_of_logs / "broken.eval").write_bytes(b"PK\x03\x04 cut short")
    with zipfile.ZipFile(folder_of_logs / "odd.eval", "w") as odd:
        odd.writestr("header.json", '{"version": 2, "status": "success"}')
    with zipfile.ZipFile(folder_of_logs / "empty.eval", "w"):
        pass
    cut = folder_of_logs / "2026-01-01T00-00-00+00-00_tom_cut.json"
    cut.write_text('{"version": 2, "status": "succ')
    assert main(["report", str(folder_of_logs), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    # One line each, in plain words, not the zip reader's or pydantic's, and with the reason.
    assert sorted(capsys.readouterr().err.splitlines()) == [
        f"tom-eval: warning: {cut}: not a readable Inspect log (parse error: premature EOF); "
        "skipped",
        f"tom-eval: warning: {folder_of_logs / 'broken.eval'}: not a readable Inspect log (cut "
        "short, or not a zip archive: the directory at a .eval file's end is missing); skipped",
        f"tom-eval: warning: {folder_of_logs / 'empty.eval'}: not a readable Inspect log (a zip "
        "archive without the entry _journal/start.json, so not a whole .eval log); skipped",
        f"tom-eval: warning: {folder_of_logs / 'odd.eval'}: not a readable Inspect log (not of "
        "Inspect's log format at eval: Field required); skipped",
    ]
    assert "tom/oracle" in (tmp_path / "r" / "report.md").read_text()


@pytest.mark.filterwarnings("error::UserWarning")  # the empty run's chart was drawn empty
def test_a_report_reads_a_log_with_an_argument_beyond_64_bits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A seed of 20 digits (the task refuses it now; an older log may hold one) fits no
    64-bit column: it is read as text, so the log counts, as a run of its own."""
    folder_of_logs = logs(folder(tmp_path / "work"))
    [finished] = list(folder_of_logs.iterdir())
    huge = read_eval_log(str(finished))
    huge.eval.task_args["seed"] = 10**20
    huge.eval.eval_id, huge.eval.run_id = "huge-eval", "huge-run"
    write_eval_log(huge, str(folder_of_logs / "huge.eval"))
    assert main(["report", str(folder_of_logs), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    assert "cannot be read" not in capsys.readouterr().err
    summary = pd.read_csv(tmp_path / "r" / "summary.csv")
    assert sorted(summary["setting"].str.contains("seed=100000000000000000000")) == [False, True]


def test_a_killed_log_with_scored_samples_is_not_called_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run killed after some samples: its log is `started`, holds those samples and no
    results. The report says so (and skips it: the resumed run's log reports them)."""
    folder_of_logs = logs(folder(tmp_path / "work"))
    [finished] = list(folder_of_logs.iterdir())
    killed = read_eval_log(str(finished))
    killed.status, killed.results = "started", None
    killed.eval.eval_id, killed.eval.run_id = "killed-eval", "killed-run"
    write_eval_log(killed, str(folder_of_logs / "killed.eval"))
    assert main(["report", str(folder_of_logs), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    [warning] = capsys.readouterr().err.splitlines()
    assert "killed.eval: unfinished run (status started) holding 4 sample(s)" in warning
    assert "no scored samples" not in warning
    # Alone, it is the one reason given (no nameless row of the dropped log comes back).
    finished.unlink()
    assert main(["report", str(folder_of_logs), "--out", str(tmp_path / "r2"), "--quiet"]) == 2
    [error] = capsys.readouterr().err.splitlines()
    assert "killed.eval: unfinished run" in error and "<NA>" not in error


def test_a_log_killed_before_its_first_sample_is_called_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run killed before it saved a sample was called a run with no scored samples; it is
    unfinished, and resuming it is what to do."""
    folder_of_logs = logs(folder(tmp_path / "work"))
    [finished] = list(folder_of_logs.iterdir())
    killed = read_eval_log(str(finished))
    killed.status, killed.results, killed.samples = "started", None, []
    killed.eval.eval_id, killed.eval.run_id = "killed-eval", "killed-run"
    write_eval_log(killed, str(folder_of_logs / "killed.eval"))
    assert main(["report", str(folder_of_logs), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    [warning] = capsys.readouterr().err.splitlines()
    assert "killed.eval: unfinished run (status started) holding 0 sample(s)" in warning


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def linked(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


def test_a_file_written_through_a_symbolic_link_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    write_atomically(link, "new")
    assert link.is_symlink() and (tmp_path / "real.txt").read_text() == "new"
