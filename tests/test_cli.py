"""The tom-eval command end to end: outputs, exit codes, and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REFERENCE_SCENARIOS, ROOT, hear_interrupts, require_shared
from tom_eval.cli import main
from tom_eval.game.dataset import SHIPPED_FILE
from tom_eval.game.spec import parse_ids, scenarios_dir


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_check_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.jsonl"
    code, stdout, _ = run(
        capsys, "generate", "--ids", "12,17", "--extras", "0A,1B", "--reps", "2", "--out", str(out)
    )
    assert code == 0 and "wrote 8 scenarios" in stdout
    code, stdout, _ = run(capsys, "check", str(out))
    assert code == 0
    assert "8 scenarios checked, 0 with disagreements" in stdout
    assert stdout.count(": ok |") == 8
    code, stdout, _ = run(capsys, "show", str(out), "12-1B-r2")
    assert code == 0
    assert stdout.splitlines()[0].startswith("You")
    shown = [json.loads(line) for line in out.read_text().splitlines()]
    (question,) = [record["question"] for record in shown if record["key"] == "12-1B-r2"]
    assert stdout.splitlines()[-1] == f"I am going to ask you what is in the {question}."
    # A key typed in the other case is named as meant.
    code, _, stderr = run(capsys, "show", str(out), "12-1b-r2")
    assert code == 2 and "no scenario '12-1b-r2' (did you mean 12-1B-r2?)" in stderr


def test_no_command_shows_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, stderr = run(capsys)
    assert code == 2 and stdout == ""
    assert "generate" in stderr and "report" in stderr and "tom-eval: error" not in stderr


def test_the_default_run_is_1560_scenarios_that_check_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scenarios.jsonl"
    assert run(capsys, "generate", "--out", str(out))[0] == 0
    code, stdout, _ = run(capsys, "check", str(out), "--summary")
    assert code == 0
    assert stdout.splitlines()[-1] == "1560 scenarios checked, 0 with disagreements, 0 with notes"
    # The load of each Extra, as docs/engine.md quotes it.
    assert stdout.splitlines()[:4] == [
        f"Extra {extra}: 390 scenarios, events A sees {seen}, ECT {ect} on average"
        for extra, seen, ect in [
            ("0A", "2.43 on average (1-6)", "2.15"),
            ("0B", "5.43 on average (4-9)", "2.15"),
            ("1A", "4.95 on average (3-9)", "2.15"),
            ("1B", "4.95 on average (3-9)", "4.12"),
        ]
    ]
    # The same arguments give the same file, here and in scenarios/, which the default task
    # reads instead of generating: a change to the generator must regenerate it.
    shipped = scenarios_dir() / SHIPPED_FILE
    assert out.read_bytes() == shipped.read_bytes(), (
        f"{shipped} is not the generator's output: run `tom-eval generate --out {shipped}`"
    )


def test_the_reference_file_checks_clean(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = run(capsys, "check", str(require_shared(REFERENCE_SCENARIOS)), "--summary")
    assert code == 0
    assert stdout.splitlines()[-4].startswith("1040 scenarios checked, 0 with disagreements")


def test_check_exits_1_on_disagreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.jsonl"
    run(capsys, "generate", "--ids", "17", "--extras", "0A", "--reps", "1", "--out", str(out))
    record = json.loads(out.read_text())
    record["optimal_action"] = "Pass"
    out.write_text(json.dumps(record) + "\n")
    code, stdout, _ = run(capsys, "check", str(out))
    assert code == 1
    assert "disagreement (optimal_action): file has Pass" in stdout


def test_check_holds_a_record_to_the_spec_row_of_its_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Id 12's story and claim relabelled Id 7 (whose row expects Pass): the story satisfies
    its claim, but the claim is not Id 7's row; and rep 0. An Id the table has not is
    another table's (`generate --spec`), and checks against that table with `--spec`."""
    out = tmp_path / "s.jsonl"
    run(capsys, "generate", "--ids", "12", "--extras", "0A", "--reps", "1", "--out", str(out))
    record = json.loads(out.read_text())
    for changes, problem in [
        ({"id": 7, "key": "7-0A-r1"}, "disagreement (spec row): the file claims answerer"),
        ({"rep": 0, "key": "12-0A-r0"}, "rep 0: reps count from 1"),
    ]:
        out.write_text(json.dumps(record | changes) + "\n")
        code, stdout, _ = run(capsys, "check", str(out))
        assert code == 1 and problem in stdout, stdout
    spec = tmp_path / "spec.csv"
    rows = (ROOT / "scenarios" / "spec.csv").read_text().splitlines()
    spec.write_text(
        "\n".join([*rows, *(row.replace("12,", "40,", 1) for row in rows if row.startswith("12,"))])
        + "\n"
    )
    own = tmp_path / "own.jsonl"
    command = ["generate", "--spec", str(spec), "--ids", "40", "--extras", "0A", "--reps", "1"]
    assert run(capsys, *command, "--out", str(own))[0] == 0
    code, stdout, _ = run(capsys, "check", str(own))
    # Noted, so that a mistyped Id is seen.
    assert code == 0 and "note (Id not in scenarios/spec.csv): Id 40, Extra 0A" in stdout
    code, stdout, _ = run(capsys, "check", str(own), "--spec", str(spec))
    assert code == 0 and "Id not in" not in stdout
    # The table a file was generated from must have a row for each of its scenarios.
    code, stdout, _ = run(capsys, "check", str(own), "--spec", str(ROOT / "scenarios" / "spec.csv"))
    assert code == 1 and "the spec table has no row for Id 40, Extra 0A" in stdout, stdout
    relabelled = json.loads(own.read_text()) | {"id": 12, "key": "12-0A-r1", "spec_action": "Pass"}
    own.write_text(json.dumps(relabelled) + "\n")
    code, stdout, _ = run(capsys, "check", str(own), "--spec", str(spec))
    assert code == 1 and "spec row" in stdout


def test_generate_writes_its_file_with_the_users_usual_mode(tmp_path: Path) -> None:
    """Written aside and renamed into place, yet not owner-only as a temporary file is."""
    out = tmp_path / "scenarios.jsonl"
    previous = os.umask(0o022)
    try:
        assert main(["generate", "--ids", "12", "--reps", "1", "--out", str(out)]) == 0
    finally:
        os.umask(previous)
    assert out.stat().st_mode & 0o777 == 0o644


def test_the_installed_command_is_hash_seed_independent(tmp_path: Path) -> None:
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"s{hash_seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "tom_eval.cli",
                "generate",
                "--ids",
                "10,19",
                "--reps",
                "2",
                "--out",
                str(out),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_a_bad_file_through_the_real_process_prints_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "x", "id": 1}\n')
    result = subprocess.run(
        [sys.executable, "-m", "tom_eval.cli", "check", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("ids", ["7", "mastery"])
def test_a_mastery_file_naming_an_unknown_id_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ids: str
) -> None:
    mastery = tmp_path / "mastery.yaml"
    mastery.write_text(
        "mastery_ids: [7, 8]\ncategories:\n  - name: Self\n    components:\n"
        "      - {ids: [7, 98], expected: Pass, weight: 1, success: optimal}\n"
    )
    out = tmp_path / "s.jsonl"
    args = ["generate", "--mastery", str(mastery), "--ids", ids, "--out", str(out)]
    code, _, stderr = run(capsys, *args)
    assert code == 2 and not out.exists()
    expected = f"{mastery}: Id 98 is not in the spec table (it has Ids 1-39)"
    assert stderr == f"tom-eval: error: {expected}\n"


def test_id_selections() -> None:
    assert parse_ids("7,8,12-13", list(range(1, 40)), ()) == [7, 8, 12, 13]
    assert parse_ids("mastery", list(range(1, 40)), (7, 8)) == [7, 8]
    assert parse_ids("all", [2, 1, 2], ()) == [1, 2]


def _signal_masks(pid: int) -> list[str]:
    """The signals a process blocks, ignores and catches (hex masks, from /proc)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return ["gone"]
    return [line for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt"))]


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="generation pools only on 2 or more cores")
@pytest.mark.parametrize(
    ("stop", "code", "line"),
    [
        # Ctrl-C reaches the whole foreground process group (the command and its workers).
        (lambda pid: os.killpg(pid, signal.SIGINT), 130, "tom-eval: interrupted\n"),
        # `kill` reaches the command alone: its workers used to outlive it, waiting forever.
        (lambda pid: os.kill(pid, signal.SIGTERM), 143, "tom-eval: terminated\n"),
    ],
)
def test_a_pooled_generation_stopped_exits_cleanly(
    tmp_path: Path, stop: Callable[[int], None], code: int, line: str
) -> None:
    """Stopped by Ctrl-C or `kill`: one line, its exit code, no file, no worker left."""
    out = tmp_path / "s.jsonl"
    command = [sys.executable, "-m", "tom_eval.cli", "generate", "--reps", "40", "--out", str(out)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=hear_interrupts,
    )
    deadline = time.monotonic() + 120
    while not (workers := _children(process.pid)) and process.poll() is None:
        assert time.monotonic() < deadline, "the generator's workers never started"
        time.sleep(0.05)
    signals = _signal_masks(process.pid)  # for the failure's message: it was flaky
    stop(process.pid)
    stdout, stderr = process.communicate(timeout=120)
    assert (process.returncode, stdout, stderr) == (code, "", line), (workers, signals)
    assert not out.exists() and not list(tmp_path.iterdir())
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{worker}").exists() for worker in workers):
        assert time.monotonic() < deadline, "a generator worker outlived the command"
        time.sleep(0.05)


def test_check_keeps_its_exit_code_when_the_reader_stops_early(tmp_path: Path) -> None:
    """`tom-eval check file | head -1`: the disagreement still makes the exit code 1."""
    lines = (scenarios_dir() / SHIPPED_FILE).read_text().splitlines()
    record = json.loads(lines[-1])
    record["spec_action"] = "Ask Teammate" if record["spec_action"] == "Pass" else "Pass"
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join([*lines[:-1], json.dumps(record)]) + "\n")
    command = [sys.executable, "-m", "tom_eval.cli", "check", str(tampered)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()  # the reader stops, as `head -1` does
    assert process.wait(timeout=120) == 1
    assert process.stderr.read() == b""
