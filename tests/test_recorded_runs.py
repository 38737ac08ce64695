"""Runs recorded by the reference implementation: read right, imported as Inspect logs that
the report pairs, and bad run files refused in one line with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from conftest import REFERENCE_SCENARIOS, ROOT, SHARED, require_shared
from tom_eval.cli import main
from tom_eval.errors import InputError
from tom_eval.game import importing
from tom_eval.game.recorded_runs import RecordedRun, read_runs, reasoning_of, run_files
from tom_eval.game.scenario_file import read_scenarios

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from parser_agreement import CLASSES, agrees, classify

RUNS = SHARED / "reference" / "runs"
REFERENCE_WRONG = {name for name, why in CLASSES.items() if "the reference is wrong" in why}


def test_over_every_shared_run_the_parser_agrees_with_the_references_judgement() -> None:
    runs, skipped = read_runs([require_shared(RUNS)], skip_bad=True)
    assert len(runs) == 33 and len(skipped) == 1 and "empty" in skipped[0]
    trials = [trial for run in runs for trial in run.trials]
    assert len(trials) == 34_320 and not any(trial.free_response for trial in trials)
    disagreements = [trial for trial in trials if not agrees(trial)]
    assert 1 - len(disagreements) / len(trials) >= 0.999
    # Every disagreement left is one where the reference misread the reply.
    assert {classify(trial) for trial in disagreements} <= REFERENCE_WRONG


@pytest.mark.parametrize(
    ("name", "config", "model_args"),
    [
        ("anthropic-claude-opus-4.6_think", {"reasoning_tokens": 1024}, {}),
        ("anthropic-claude-3.7-sonnet:thinking", {"reasoning_tokens": 1024}, {}),
        ("openai-gpt-5.2_think", {"reasoning_effort": "high"}, {}),
        ("openai-gpt-5.2_lowthink", {"reasoning_effort": "low"}, {}),
        ("deepseek-r1", {"reasoning_tokens": 1024}, {}),
        ("anthropic-claude-opus-4.6", {}, {"reasoning_enabled": False}),
        ("google-gemini-3-flash-preview_nothink", {}, {}),  # no field sent: the default
        ("openai-gpt-4o", {}, {}),
    ],
)
def test_the_run_name_says_how_reasoning_was_set(
    name: str, config: dict[str, Any], model_args: dict[str, Any]
) -> None:
    reasoning = reasoning_of(name)
    assert (reasoning.config, reasoning.model_args) == (config, model_args)


def record(key: str, reply: object, **changes: Any) -> dict[str, Any]:
    spec, extra, rep = key.split("-")
    return {
        "character": "A",
        "scenario_id": spec,
        "extra": extra,
        "rep": int(rep[1:]),
        "action": reply,
        "answer_given": "nothing",
        "optimal_action": "Pass",
        "was_optimal": reply == "Pass",
        "free_response": False,
        "lose": False,
        "history_mode": "none",
    } | changes


def run_json(records: list[Any]) -> dict[str, Any]:
    return {"game_setup": "the rules", "turn_records": records}


def write_run(folder: Path, name: str, records: list[Any] | Any, time: int = 1771500000) -> Path:
    path = folder / f"{name}_{time}_game_data.json"
    folder.mkdir(parents=True, exist_ok=True)
    data = (
        {"game_setup": "the rules", "turn_records": records}
        if isinstance(records, list)
        else records
    )
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scenarios") / "scenarios.jsonl"
    assert (
        main(["generate", "--ids", "12,17", "--extras", "0A", "--reps", "2", "--out", str(path)])
        == 0
    )
    return path


def test_a_run_split_across_files_becomes_one_log_scored_like_a_live_run(
    tmp_path: Path, scenarios: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    optimal = {record.key: record.stored["optimal_action"] for record in read_scenarios(scenarios)}
    runs = tmp_path / "runs"
    reasoned = f"I could Ask(B, box) but B left.\n{optimal['17-0A-r1']}"
    write_run(
        runs,
        "vendor-model_think",
        [record("12-0A-r1", "Pass"), record("12-0A-r2", optimal["12-0A-r2"])],
    )
    write_run(
        runs,
        "vendor-model_think",
        [record("17-0A-r1", reasoned), record("17-0A-r2", "")],
        time=1771600000,
    )
    write_run(runs, "vendor-model", [record("12-0A-r1", "Pass")])
    out = tmp_path / "logs"
    command = ["import-runs", str(runs), "--scenario-file", str(scenarios), "--out", str(out)]
    assert main(command) == 0
    logs = {
        log.eval.model_generate_config.reasoning_tokens: log
        for log in map(read_eval_log, sorted(out.glob("*.eval")))
    }
    assert set(logs) == {1024, None}
    thinking, plain = logs[1024], logs[None]
    assert thinking.eval.model == plain.eval.model == "reference/vendor-model"
    assert thinking.eval.metadata is not None
    imported = thinking.eval.metadata["imported"]
    assert imported["run"] == "vendor-model_think" and len(imported["files"]) == 2
    samples = {sample.id: sample for sample in thinking.samples or []}
    assert set(samples) == {"12-0A-r1", "12-0A-r2", "17-0A-r1", "17-0A-r2"}
    # Read as the action format reads it, judged by the engine.
    values: dict[Any, Any] = {
        key: sample.scores["tom_scorer"].value for key, sample in samples.items() if sample.scores
    }
    assert values["12-0A-r2"]["optimal"] == 1.0 and values["12-0A-r1"]["optimal"] == 0.0
    assert values["17-0A-r1"]["optimal"] == 1.0  # the action committed to, after reasoning
    assert values["17-0A-r2"]["valid"] == 0.0  # an empty reply is kept, invalid
    assert samples["17-0A-r1"].messages[2].text == reasoned
    # Imported again into the same folder: nothing is counted twice.
    capsys.readouterr()
    assert main(command) == 0
    assert len(list(out.glob("*.eval"))) == 2 and not list(out.glob(".import-*"))
    assert "skipped: vendor-model_think: already imported in" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({"m_1771500000_game_data.json": ""}, "m_1771500000_game_data.json: empty"),
        ({"m_1771500000_game_data.json": '{"game_setup": "r", "turn_'}, "invalid JSON at line 1"),
        (
            {"m_1771500000_game_data.json": '{"game_setup": ' + "9" * 5000 + "}"},
            "m_1771500000_game_data.json: holds a number longer than 4300 digits",
        ),
        ({"m_1771500000_game_data.json": b'{"game_setup": "\xff"}'}, "not UTF-8 text"),
        ({"m_1771500000_game_data.json": "[1, 2]"}, "expected an object, got list"),
        ({"m_1771500000_game_data.json": {"game_setup": "r"}}, "missing 'turn_records'"),
        (
            {"m_1771500000_game_data.json": run_json([{"character": "A"}])},
            "record 1: missing 'scenario_id'",
        ),
        (
            {"m_1771500000_game_data.json": run_json([record("99-0A-r1", "Pass")])},
            "record 1: scenario 99-0A-r1 is not in",
        ),
        (
            {
                "m_1771500000_game_data.json": run_json(
                    [record("12-0A-r1", "Pass"), record("12-0A-r1", "Pass")]
                )
            },
            "scenario 12-0A-r1 was also played",
        ),
        (
            {"m_1771500000_game_data.json": run_json([record("12-0A-r1", 3)])},
            "'action' must be the reply's text",
        ),
        (
            {
                "m_1771500000_game_data.json": run_json(
                    [
                        record(
                            "12-0A-r1", "Pass", question="I am going to ask you what is in the urn."
                        )
                    ]
                )
            },
            "scenario 12-0A-r1 asked about the urn in the run but about the",
        ),
        (
            {
                "m_1771500000_game_data.json": run_json(
                    [record("12-0A-r1", "Pass", history_mode="full")]
                )
            },
            "history mode",
        ),
        (
            {"m_1771500000_game_data.json": run_json([record("12-0A-r1", "Pass", lose="zz")])},
            "'lose' must be true or false, got 'zz'",
        ),
    ],
)
def test_bad_run_files_are_one_line_errors_and_nothing_is_written(
    tmp_path: Path,
    scenarios: Path,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, Any],
    problem: str,
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, content in files.items():
        if isinstance(content, bytes):
            (runs / name).write_bytes(content)
        else:
            (runs / name).write_text(content if isinstance(content, str) else json.dumps(content))
    out = tmp_path / "logs"
    command = ["import-runs", str(runs), "--scenario-file", str(scenarios), "--out", str(out)]
    assert main(command) == 2
    error = capsys.readouterr().err.strip()
    assert problem in error and "\n" not in error and str(runs) in error
    assert not out.exists() and list(tmp_path.iterdir()) == [runs]
    # --skip-bad imports the rest and names what it left out.
    write_run(runs, "good", [record("12-0A-r1", "Pass")])
    assert main([*command, "--skip-bad"]) == 0
    assert len(list(out.glob("*.eval"))) == 1
    assert problem in capsys.readouterr().err


def test_a_reply_with_a_stray_surrogate_is_imported_as_data(
    tmp_path: Path, scenarios: Path
) -> None:
    """JSON can spell a lone surrogate (\\ud800), which a UTF-8 log cannot hold: the reply
    is kept with U+FFFD in its place, not the whole import stopped."""
    runs = tmp_path / "runs"
    write_run(runs, "odd", [record("12-0A-r1", "\ud800 Pass")])
    out = tmp_path / "logs"
    command = ["import-runs", str(runs), "--scenario-file", str(scenarios), "--out", str(out)]
    assert main(command) == 0
    [log] = map(read_eval_log, out.glob("*.eval"))
    [sample] = log.samples or []
    assert sample.messages[2].text == "\ufffd Pass"


def test_skip_bad_skips_a_run_whose_replay_fails(
    tmp_path: Path,
    scenarios: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "bad", [record("12-0A-r1", "Pass")])
    write_run(runs, "good", [record("12-0A-r2", "Pass")])
    replay = importing._replay

    def failing(run: RecordedRun, scenarios: Path, log_dir: Path) -> Path:
        if run.name == "bad":
            raise InputError(f"{run.files[0]}: the replay of run bad failed (a test's failure)")
        return replay(run, scenarios, log_dir)

    monkeypatch.setattr(importing, "_replay", failing)
    out = tmp_path / "logs"
    command = ["import-runs", str(runs), "--scenario-file", str(scenarios), "--out", str(out)]
    assert main(command) == 2
    assert not out.exists()
    capsys.readouterr()
    assert main([*command, "--skip-bad"]) == 0
    [log] = map(read_eval_log, out.glob("*.eval"))
    assert log.eval.metadata is not None and log.eval.metadata["imported"]["run"] == "good"
    assert "the replay of run bad failed (a test's failure)" in capsys.readouterr().err


def test_a_file_named_otherwise_is_no_run_file(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(InputError, match=r"notes\.json: not a run file"):
        read_runs([tmp_path / "notes.json"])
    with pytest.raises(InputError, match=r"no \*_game_data\.json run files"):
        read_runs([tmp_path])
    # The time is what a name of the right shape may get wrong.
    (tmp_path / "m_123_game_data.json").write_text("{}")
    with pytest.raises(InputError, match=r"m_123_game_data\.json: .*the time in 9 to 11 digits\)$"):
        read_runs([tmp_path])


def test_without_a_scenario_file_beside_the_runs_the_error_asks_for_one(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "m", [record("12-0A-r1", "Pass")])
    with pytest.raises(InputError, match="give the reference's scenario file"):
        from tom_eval.game.importing import import_runs

        import_runs([tmp_path / "runs"], tmp_path / "logs")


def test_ctrl_c_during_an_import_is_one_line_and_leaves_nothing(
    tmp_path: Path,
    scenarios: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Inspect ends an eval on Ctrl-C itself and returns no log, which ended in a traceback.
    monkeypatch.setattr(importing, "inspect_eval", lambda *args, **kwargs: [])
    runs = tmp_path / "runs"
    write_run(runs, "vendor-model", [record("12-0A-r1", "Pass")])
    out = tmp_path / "logs"
    command = ["import-runs", str(runs), "--scenario-file", str(scenarios), "--out", str(out)]
    assert main(command) == 130
    assert capsys.readouterr().err == "tom-eval: interrupted\n"
    assert not out.exists()


def test_shared_runs_import_with_the_references_scenarios(tmp_path: Path) -> None:
    """Slices of two recorded runs of one model, thinking and not: the report pairs them."""
    runs = tmp_path / "runs"
    for name in (
        "anthropic-claude-sonnet-4.5_1771451903",
        "anthropic-claude-sonnet-4.5_think_1771453024",
    ):
        data = json.loads((require_shared(RUNS) / f"{name}_game_data.json").read_text())
        data["turn_records"] = data["turn_records"][:24]
        write_run(runs, name.rsplit("_", 1)[0], data, int(name.rsplit("_", 1)[1]))
    out = tmp_path / "logs"
    scenario_file = str(require_shared(REFERENCE_SCENARIOS))
    assert (
        main(["import-runs", str(runs), "--scenario-file", scenario_file, "--out", str(out)]) == 0
    )
    assert main(["report", str(out), "--out", str(tmp_path / "report"), "--quiet"]) == 0
    pairs = (tmp_path / "report" / "thinking_pairs_action.csv").read_text()
    assert "reference/anthropic-claude-sonnet-4.5" in pairs


def test_a_run_file_named_twice_is_read_once(tmp_path: Path) -> None:
    """A folder and a file in it, as a shell's glob may give: not a run played twice."""
    path = tmp_path / "m_1771500000_game_data.json"
    path.write_text(json.dumps(run_json([record("12-0A-r1", "Pass")])))
    assert run_files([tmp_path, path, tmp_path / "." / path.name]) == [path]


def test_a_new_file_of_a_run_already_imported_is_refused(
    tmp_path: Path, scenarios: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run's first file imported alone, then the rest: skipping the run would lose the new
    replies without a word, and importing them apart would count the run twice."""
    runs = tmp_path / "runs"
    first = write_run(runs, "vendor-model", [record("12-0A-r1", "Pass")])
    out = tmp_path / "logs"
    assert (
        main(["import-runs", str(first), "--scenario-file", str(scenarios), "--out", str(out)]) == 0
    )
    write_run(runs, "vendor-model", [record("12-0A-r2", "Pass")], time=1771600000)
    capsys.readouterr()
    command = ["import-runs", str(runs), "--scenario-file", str(scenarios), "--out", str(out)]
    assert main(command) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "1771600000" in line and "a file of run vendor-model, already imported in" in line
    assert len(list(out.glob("*.eval"))) == 1 and not list(out.glob(".import-*"))


def test_a_scenario_file_read_again_by_the_replay_must_be_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each run's replay reads the scenario file again, by name: a pipe's /dev/fd name gave
    nothing, or named nothing, there."""
    write_run(tmp_path / "runs", "m", [record("12-0A-r1", "Pass")])
    pipe = tmp_path / "scenarios"
    os.mkfifo(pipe)
    command = ["import-runs", str(tmp_path / "runs"), "--scenario-file", str(pipe)]
    assert main([*command, "--out", str(tmp_path / "logs")]) == 2
    assert (
        "scenarios: not a regular file; each run's replay reads it again" in capsys.readouterr().err
    )
    assert not (tmp_path / "logs").exists()


def test_a_replayed_run_outside_the_importer_stops_in_one_line(tmp_path: Path) -> None:
    """`inspect eval --model reference/<model>` has no replies to replay: it was a traceback
    a sample and exit 0."""
    command = [sys.executable, "-m", "inspect_ai", "eval", "tasks/tom.py", "--limit", "2"]
    command += ["--model", "reference/some-model", "--log-dir", str(tmp_path), "--display", "plain"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr
    assert (
        run.stderr.strip()
        .splitlines()[-1]
        .endswith("reference/some-model: replays a recorded run only through tom-eval import-runs")
    )
