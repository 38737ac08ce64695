"""tom-eval report: built from real logs, every number checked against samples_df."""

from __future__ import annotations

import errno
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalError, read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessage,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import match
from matplotlib.figure import Figure

from conftest import ROOT, damaged, inspect_eval, without_sample_entries
from tasks.false_belief import false_belief
from tasks.knp import knp
from tasks.tom import VERSION, tom
from tom_eval.cli import main
from tom_eval.errors import InputError
from tom_eval.game.analysis import feature_comparison
from tom_eval.game.players import respond
from tom_eval.registry import report_sections
from tom_eval.report.logs import (
    in_run_order,
    model_settings_label,
    names_by_digest,
    once_per_sample,
    read_evals,
)
from tom_eval.report.section import Context
from tom_eval.report.stats import balanced as balanced_interval
from tom_eval.report.stats import combined_interval
from tom_eval.report.writer import write_report
from tom_eval.task_args import NOT_GIVEN

TASK_ARGS: dict[str, Any] = {"ids": "10,12,17,27", "extras": "0A,1B", "reps": 2}
# reps=1: the task generates one story per (Id, Extra) to deal from, in a tenth of the time;
# seed 2 deals always-pass games it loses and an opponent's ask.
GAME_ARGS: dict[str, Any] = {"mode": "game", "games": 4, "turns": 8, "reps": 1, "seed": 2}
CLASSES = ("Pass", "Ask Teammate", "Tell Teammate")
SETTING = "choice, " + ", ".join(f"{name}={value}" for name, value in TASK_ARGS.items())
"""How a run label names TASK_ARGS: the format, then the arguments the user set."""


def thinker(
    messages: list[ChatMessage], tools: Any, choice: Any, config: GenerateConfig
) -> ModelOutput:
    """With reasoning on it plays like the oracle and shows its reasoning; off, it passes
    (and answers with the word "nothing" when asked)."""
    thinking = config.reasoning_effort not in (None, "none")
    conversation = [(message.role, message.text) for message in messages]
    text = respond("oracle" if thinking else "always-pass", conversation, seed=0)
    content: Any = (
        [ContentReasoning(reasoning="Who saw what?"), ContentText(text=text)] if thinking else text
    )
    output = ModelOutput.from_content(model="mockllm/model", content=content)
    output.usage = ModelUsage(
        input_tokens=10, output_tokens=1, total_tokens=11, reasoning_tokens=7 if thinking else None
    )
    return output


def foreign_log(folder: Path, name: str = "other_task", version: str | int = 0) -> Path:
    """A log of another task, which may share a name with one of ours (usage set, so no
    tokenizer is downloaded)."""
    output = ModelOutput.from_content("mockllm/model", "hi")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    model = get_model("mockllm/model", custom_outputs=[output], memoize=False)
    other = Task(
        dataset=[Sample(input="hi", target="hi")], scorer=match(), name=name, version=version
    )
    inspect_eval(other, model=model, log_dir=str(folder), display="none")
    return folder


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    pair = [
        get_model(
            "mockllm/model",
            config=GenerateConfig(reasoning_effort=effort),
            custom_outputs=thinker,
            memoize=False,
        )
        for effort in ("none", "high")
    ]
    models: list[str | Model] = ["tom/oracle", "tom/always-pass", *pair]
    for model in models:
        inspect_eval(tom(**TASK_ARGS), model=model, log_dir=str(folder), display="none")
    return folder


@pytest.fixture(scope="module")
def report(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp("report")
    assert main(["report", str(logs), "--out", str(out), "--quiet", "--examples", "2"]) == 0
    return (out / "report.md").read_text(), out


@pytest.fixture(scope="module")
def game_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Short games of the two reference players, with different history modes."""
    folder = tmp_path_factory.mktemp("game_logs")
    for model, history in (("tom/oracle", "none"), ("tom/always-pass", "full")):
        inspect_eval(
            tom(**GAME_ARGS, history=history), model=model, log_dir=str(folder), display="none"
        )
    return folder


def write(logs: list[Path], folder: Path, out: Path) -> str:
    """report.md of `logs`, copied together into one folder."""
    folder.mkdir()
    for log in logs:
        shutil.copy2(log, folder)
    assert main(["report", str(folder), "--out", str(out), "--quiet", "--examples", "2"]) == 0
    return (out / "report.md").read_text()


def tables(markdown: str) -> dict[str, list[dict[str, str]]]:
    """Every markdown table under its nearest heading."""
    found: dict[str, list[dict[str, str]]] = {}
    heading, lines = "", markdown.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif (
            line.startswith("| ") and index + 1 < len(lines) and lines[index + 1].startswith("|---")
        ):
            header = [cell.strip() for cell in line.strip("|").split(" | ")]
            rows = []
            for row in lines[index + 2 :]:
                if not row.startswith("| "):
                    break
                rows.append(
                    dict(zip(header, (c.strip() for c in row.strip("|").split(" | ")), strict=True))
                )
            found.setdefault(heading, rows)
    return found


# --------------------------------------------------------------- independent recomputation


def trials(logs: Path) -> pd.DataFrame:
    """One row per sample-epoch, straight from samples_df and evals_df."""
    from inspect_ai.analysis import SampleScores, SampleSummary, evals_df, samples_df

    evals = evals_df(str(logs), quiet=True)
    evals = evals[evals["task_name"] == "tom"]
    labels = {}
    for row in evals.to_dict("records"):
        effort = json.loads(row["model_generate_config"] or "{}").get("reasoning_effort")
        setting = f"reasoning_effort={effort}" if effort else "default"
        labels[row["eval_id"]] = f"{row['model']} [{setting}] ({SETTING})"
    everything = samples_df(str(logs), columns=SampleSummary + SampleScores, full=True, quiet=True)
    frame: pd.DataFrame = everything[everything["eval_id"].isin(labels)].copy()
    frame["run"] = frame["eval_id"].map(labels)
    scores = frame["score_tom_scorer"].map(json.loads)
    for key in ("optimal", "lies_okay", "valid", "lie_to_opponent"):
        frame[key] = [float(values[key]) for values in scores]
    return frame


def wilson(k: float, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return max(0, centre - half), min(1, centre + half)


def fisher(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher exact test: the probability of tables as or less likely."""
    total, row, column = a + b + c + d, a + b, a + c

    def chance(x: int) -> float:
        return math.comb(column, x) * math.comb(total - column, row - x) / math.comb(total, row)

    tables = [chance(x) for x in range(max(0, row + column - total), min(row, column) + 1)]
    return min(1.0, sum(p for p in tables if p <= chance(a) * (1 + 1e-9)))


def three(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def interval(values: pd.Series) -> str:
    low, high = wilson(values.sum(), len(values))
    return f"{three(values.mean())} [{three(low)}, {three(high)}]"


def balanced(expected: pd.Series, optimal: pd.Series) -> str:
    """Mean share optimal over the k expected-action classes present, with the adjusted
    Wald interval of Price and Bonett (2/k successes and failures added to each class,
    centred on the adjusted mean)."""
    classes = [optimal[expected == c] for c in CLASSES if (expected == c).any()]
    ba = sum(c.mean() for c in classes) / len(classes)
    k = len(classes)
    adjusted = [((c.sum() + 2 / k) / (len(c) + 4 / k), len(c) + 4 / k) for c in classes]
    centre = sum(p for p, _ in adjusted) / k
    spread = math.sqrt(sum(p * (1 - p) / n for p, n in adjusted)) / k
    low, high = max(0, centre - 1.96 * spread), min(1, centre + 1.96 * spread)
    return f"{three(ba)} [{three(low)}, {three(high)}]"


def test_the_summary_table(logs: Path, report: tuple[str, Path]) -> None:
    frame, rows = trials(logs), tables(report[0])["Summary"]
    assert len(rows) == frame["run"].nunique() == 4
    for row in rows:
        run = row["run"].removesuffix(" (baseline)")
        assert row["run"].endswith("(baseline)") == run.startswith("tom/")
        mine = frame[frame["run"] == run]
        assert row["N"] == str(len(mine))
        assert row["balanced"] == balanced(mine["metadata_expected_action"], mine["optimal"])
        assert row["plain"] == interval(mine["optimal"])
        assert row["lies okay"] == interval(mine["lies_okay"])
        assert row["invalid"] == three(1 - mine["valid"].mean())
        for extra in ("0A", "0B", "1A", "1B"):
            assert row[extra] == three(mine.loc[mine["metadata_extra"] == extra, "optimal"].mean())
        for role in ("Self", "Teammate", "Opponent"):
            assert row[role] == three(
                mine.loc[mine["metadata_answerer_role"] == role, "optimal"].mean()
            )
    by_run = {row["run"]: row for row in rows}
    assert by_run[f"tom/oracle [default] ({SETTING}) (baseline)"]["plain"].startswith("1.000")
    assert by_run[f"mockllm/model [reasoning_effort=none] ({SETTING})"]["balanced"].startswith(
        "0.333"
    )


def test_summary_csv_counts_the_trials_behind_each_conditional_share(
    logs: Path, report: tuple[str, Path]
) -> None:
    """answer_correct and the gratuitous-lie rate are shares of some trials only: each says
    how many."""
    frame = trials(logs)
    scores = frame["score_tom_scorer"].map(json.loads)
    answered = [values.get("answer_correct") is not None for values in scores]
    summary = pd.read_csv(report[1] / "summary.csv")
    # Trials where an opponent answers believing something false (its label in the sample).
    fooled = [
        role == "Opponent" and json.loads(labels)[answerer] == "Believes False"
        for role, answerer, labels in zip(
            frame["metadata_answerer_role"],
            frame["metadata_answerer"],
            frame["metadata_character_labels"],
            strict=True,
        )
    ]
    for row in summary.to_dict("records"):
        mine = list(frame["run"].str.startswith(row["run"]))
        assert (
            row["answer_correct_n"] == sum(a for a, m in zip(answered, mine, strict=True) if m) > 0
        )
        assert row["gratuitous_lie_n"] == sum(f for f, m in zip(fooled, mine, strict=True) if m)


def test_a_run_missing_an_expected_action_is_named_under_the_summary(
    logs: Path, report: tuple[str, Path], tmp_path: Path
) -> None:
    assert "Not every expected action is played" not in report[0]
    inspect_eval(
        tom(ids="1,12", extras="0A", reps=1),
        model="tom/always-pass",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    summary = (tmp_path / "out" / "report.md").read_text().split("## Mastery")[0]
    assert (
        "tom/always-pass [default] (choice, ids=1,12, extras=0A, reps=1) (no Tell Teammate)"
        in summary
    )
    assert "-T sample=N" in summary


def test_a_log_given_by_a_relative_path_is_reported_without_a_warning(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(logs.parent)
    log = next(logs.glob("*.eval"))
    relative = str(log.relative_to(logs.parent))
    assert main(["report", relative, "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "skipped" not in capsys.readouterr().err


def test_a_log_in_a_hidden_folder_is_named_and_not_counted(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    shutil.copytree(logs, folder)
    staging = folder / ".import-x"  # what a killed `tom-eval import-runs` leaves behind
    staging.mkdir()
    shutil.copy(next(logs.glob("*.eval")), staging)
    for source, out in ((logs, "plain"), (folder, "hidden")):
        assert main(["report", str(source), "--out", str(tmp_path / out), "--quiet"]) == 0
    assert ".import-x" in capsys.readouterr().err
    summaries = [(tmp_path / out / "summary.csv").read_text() for out in ("plain", "hidden")]
    assert summaries[0] == summaries[1]


def test_a_log_without_its_samples_is_named_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every section computes from the samples: a log written with --no-log-samples is left
    out by name (it was a traceback or "not logs of this version"), and alone it is refused
    in one line with nothing written."""
    folder = tmp_path / "logs"
    players = {
        "tom/oracle": tom(ids="12", extras="0A", reps=1),
        "tom/belief-oracle": false_belief(),
    }
    for player, unlogged_task in players.items():
        inspect_eval(
            unlogged_task,
            model=player,
            log_dir=str(folder / "unlogged"),
            display="none",
            log_samples=False,
            limit=2,
        )
    inspect_eval(
        tom(ids="12", extras="0A", reps=1),
        model="tom/oracle",
        log_dir=str(folder / "logged"),
        display="none",
    )
    assert main(["report", str(folder), "--out", str(tmp_path / "both"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("holds no samples (written with --no-log-samples)") == 2, err
    assert main(["report", str(folder / "unlogged"), "--out", str(tmp_path / "none")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--no-log-samples" in line and not (tmp_path / "none").exists()


class RefusingSection:
    """A section that refuses its logs after the game's section has written its files."""

    tasks: tuple[str, ...] = ("tom",)

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        raise InputError("refused")


def test_a_report_that_fails_part_way_leaves_the_folder_as_it_was(
    logs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    write_report([logs], report_sections(), out)
    for table in out.glob("*.csv"):  # the earlier report's, unlike what this one writes
        table.write_text("earlier\n")
    before = {file.name: file.read_bytes() for file in out.iterdir()}
    # A new folder is made with the parents it lacks, and all of them removed again.
    for folder in (out, tmp_path / "new" / "nested"):
        with pytest.raises(InputError, match="refused"):
            write_report([logs], [*report_sections(), RefusingSection()], folder)
    assert {file.name: file.read_bytes() for file in out.iterdir()} == before
    assert not (tmp_path / "new").exists()


def battery_logs(folder: Path) -> Path:
    """A small false-belief battery's log in `folder`: a report of it writes
    false_belief.csv, which a report of the game's logs alone does not."""
    inspect_eval(
        false_belief(contents=1, transfer=1),
        model="tom/belief-oracle",
        log_dir=str(folder),
        display="none",
    )
    return folder


def test_a_report_stopped_while_moving_in_is_cleared_by_the_next(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    battery = battery_logs(tmp_path / "battery")
    out = tmp_path / "out"
    write_report([logs], report_sections(), out)
    move = shutil.move

    def stopped_at_report_md(source: Path, target: Path) -> object:
        # Files move in name order: false_belief.csv is in by then.
        if Path(target).name == "report.md":
            raise KeyboardInterrupt
        return move(source, target)

    monkeypatch.setattr(shutil, "move", stopped_at_report_md)
    with pytest.raises(KeyboardInterrupt):
        write_report([logs, battery], report_sections(), out)
    monkeypatch.undo()
    assert (out / "false_belief.csv").is_file()  # the stopped report's, moved in
    write_report([logs], report_sections(), out)
    assert not (out / "false_belief.csv").exists()


def test_a_report_writes_through_a_symbolic_link_in_its_folder(logs: Path, tmp_path: Path) -> None:
    published = tmp_path / "published.md"
    published.write_text("old\n")
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.md").symlink_to(published)
    write_report([logs], report_sections(), out)
    assert (out / "report.md").is_symlink()
    assert published.read_text().startswith("# tom-eval report")


def test_a_run_repeated_as_it_was_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    for ids in ("7,8", "7,8", "7,8,9"):  # the same command twice, then another run
        inspect_eval(
            tom(ids=ids, reps=1), model="tom/always-pass", log_dir=str(folder), display="none"
        )
    # The same command once more, interrupted after 3 samples: the finished log still counts.
    finished = read_eval_log(str(sorted(folder.glob("*.eval"))[0]))
    assert finished.samples is not None and finished.results is not None
    finished.status, finished.samples = "cancelled", finished.samples[:3]
    finished.results.completed_samples = 3
    finished.eval.eval_id, finished.eval.created = "interrupted", "2099-01-01T00:00:00+00:00"
    write_eval_log(finished, str(folder / "2099-01-01T00-00-00+00-00_tom_interrupted.eval"))
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert capsys.readouterr().err.count("the same run as") == 2
    summary = pd.read_csv(tmp_path / "out" / "summary.csv").set_index("setting")
    assert summary.loc["choice, ids=7,8, reps=1", "N"] == 8
    assert summary.loc["choice, ids=7-9, reps=1", "N"] == 12


def test_a_copy_of_a_log_is_named_as_a_copy(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """inspect_ai.analysis reads one file of an eval id: the other was called a JSON log
    renamed from Inspect's name."""
    original = next(logs.glob("*.eval"))
    copied = tmp_path / "backup" / original.name
    copied.parent.mkdir()
    shutil.copy(original, copied)
    assert (
        main(["report", str(original), str(copied), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    )
    [warning] = [line for line in capsys.readouterr().err.splitlines() if "copy" in line]
    assert re.fullmatch(
        r"tom-eval: warning: \S+: the same log as \S+ \(one eval id in two files\); skipped, so "
        "each sample counts once",
        warning,
    ), warning


def test_one_setting_written_two_ways_is_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ids in another order, the default lineup by name and the default Extras in another
    order and case."""
    folder = tmp_path / "logs"
    settings = (("7,8", "default", "0A,0B,1A,1B"), ("8, 7", "D=dishonest_opponent", "1b,0A,0b,1A"))
    for ids, lineup, extras in settings:
        run = tom(ids=ids, reps=1, lineup=lineup, extras=extras)
        inspect_eval(run, model="tom/always-pass", log_dir=str(folder), display="none")
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "8 sample(s) also in a later or fuller log of the run" in capsys.readouterr().err
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert summary["setting"].tolist() == ["choice, ids=7,8, reps=1"]
    assert summary["N"].tolist() == [8]


def pass_always(folder: Path, ids: str, **eval_args: Any) -> None:
    """A log of `tom/always-pass` on `ids` (reps 1) in `folder`."""
    run = tom(ids=ids, reps=1)
    inspect_eval(run, model="tom/always-pass", log_dir=str(folder), display="none", **eval_args)


def edited_first_sample(folder: Path, edit: Any) -> None:
    """The folder's one log with `edit` applied to its first sample, as a hand edit would."""
    (path,) = folder.glob("*.eval")
    log = read_eval_log(str(path))
    edit((log.samples or [])[0])
    write_eval_log(log, str(path))


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        # Failed examples read the story: Id 12 asks for Ask, always-pass fails it.
        (
            lambda sample: sample.metadata.update(story={"a": 1}),
            ".eval: sample 12-0A-r1: missing 'containers'; was the log edited?",
        ),
        # Read as unscored: the sample left the key's figures without a word.
        (
            lambda sample: sample.scores["tom_scorer"].value.pop("optimal"),
            "score 'optimal' is missing (the task writes it in every scored sample)",
        ),
        # Averaged into the mean regret as it was.
        (
            lambda sample: sample.scores["tom_scorer"].value.update(regret=1e308),
            "score 'regret' is 1e+308, not a number from 0 to 2.5 (the task writes one",
        ),
        # Over 64 bits: no column of a table holds it (pyarrow's OverflowError).
        (
            lambda sample: sample.metadata.update(rep=10**20),
            ".eval: holds an integer over 64 bits, which no table holds; was the log edited?",
        ),
    ],
)
def test_an_edited_value_the_report_cannot_take_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Any, said: str
) -> None:
    folder = tmp_path / "logs"
    pass_always(folder, "12")
    edited_first_sample(folder, edit)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_edited_score_of_text_is_left_out_as_unscored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a list there was: "C" was read as JSON, a traceback."""
    folder = tmp_path / "logs"
    pass_always(folder, "12,17")
    edited_first_sample(
        folder, lambda sample: sample.scores["tom_scorer"].__setattr__("value", "C")
    )
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "1 sample(s) errored or unscored; left out" in capsys.readouterr().err


def test_runs_at_two_temperatures_are_two_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every generate setting that shapes the replies names the run; retries do not."""
    folder = tmp_path / "logs"
    for temperature, retries in ((0.0, 1), (1.0, 2), (1.0, 3)):
        pass_always(folder, "7", temperature=temperature, max_retries=retries)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "4 sample(s) also in a later or fuller log" in capsys.readouterr().err
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert sorted(summary["model_settings"]) == ["temperature=0.0", "temperature=1.0"]
    assert summary["N"].tolist() == [4, 4]


def test_a_run_pooling_logs_of_two_task_versions_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    pass_always(folder, "7")
    (log,) = folder.glob("*.eval")
    older = read_eval_log(str(log))
    older.eval.task_version, older.eval.eval_id = "6-A", "older-version-of-the-run"
    write_eval_log(older, str(folder / "older.eval"))
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert f"pools logs of task versions 6-A, {VERSION};" in capsys.readouterr().err


def test_a_full_disk_is_one_line_and_leaves_no_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PIL's "No space left on device" from a chart was a traceback."""
    folder = tmp_path / "logs"
    pass_always(folder, "7")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("matplotlib.figure.Figure.savefig", full)
    out = tmp_path / "out"
    assert main(["report", str(folder), "--out", str(out), "--quiet"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == f"tom-eval: error: {out}: cannot write the report (No space left on device)"
    assert not out.exists()


def test_the_gratuitous_lie_rate_counts_the_trials_where_an_opponent_believes_falsely(
    tmp_path: Path,
) -> None:
    """In Id 30 the answering opponent believes something false in every Extra; in Id 7
    nobody does."""
    folder = tmp_path / "logs"
    pass_always(folder, "7,30")
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    (row,) = pd.read_csv(tmp_path / "out" / "summary.csv").to_dict("records")
    assert (row["N"], row["gratuitous_lie_n"], row["gratuitous_lie_rate"]) == (8, 4, 0.0)


def test_reasoning_csv_has_its_header_when_no_run_reasons(tmp_path: Path) -> None:
    """An empty table is still a table: pandas can read it, and it names its columns."""
    folder = tmp_path / "logs"
    pass_always(folder, "7")
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    reasoning = pd.read_csv(tmp_path / "out" / "reasoning.csv")
    assert reasoning.empty and "accuracy with reasoning" in reasoning.columns


def test_a_try_with_more_epochs_beside_the_run_is_pooled_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `--sample-id ... --epochs 2` try in the run's folder adds its second epoch to the
    run (each sample-epoch is a trial), which N alone would not show."""
    folder = tmp_path / "logs"
    pass_always(folder, "7")
    pass_always(folder, "7", sample_id="7-0A-r1", epochs=2)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert (
        "(choice, ids=7, reps=1): its samples have unequal numbers of epochs (3 with 1, 1 with 2); "
        "every sample-epoch counts as a trial"
    ) in capsys.readouterr().err
    assert pd.read_csv(tmp_path / "out" / "summary.csv")["N"].tolist() == [5]


def test_a_long_setting_is_shown_by_its_start_and_digest() -> None:
    message = "You are a careful player who weighs what each player knows. " * 2
    label = model_settings_label({"system_message": message, "max_connections": 9}, {})
    assert label.startswith("system_message=You are a careful player")
    assert label != model_settings_label({"system_message": message + "!"}, {})
    assert len(label) < 60


def test_a_sample_in_two_logs_of_one_run_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    for limit in (5, None):  # a first try, then the whole run, into one folder
        pass_always(folder, "7,8", limit=limit)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "5 sample(s) also in a later or fuller log of the run" in capsys.readouterr().err
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert summary["N"].tolist() == [8]


def test_a_sample_scored_in_one_log_of_a_run_is_not_hidden_by_its_errored_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A first try scores a sample that errors in the whole run (kept with
    --no-fail-on-error): the scored copy counts, not the error."""
    folder = tmp_path / "logs"
    for limit in (3, None):
        run = tom(ids="7,8", reps=1)
        inspect_eval(run, model="tom/always-pass", log_dir=str(folder), display="none", limit=limit)
    first, whole = sorted(
        folder.glob("*.eval"), key=lambda path: len(read_eval_log(str(path)).samples or [])
    )
    (tried,) = [sample.id for sample in (read_eval_log(str(first)).samples or [])][:1]
    log = read_eval_log(str(whole))
    for sample in log.samples or []:
        if sample.id in (tried, "8-1B-r1"):
            sample.scores, sample.error = (
                None,
                EvalError(message="boom", traceback="", traceback_ansi=""),
            )
    write_eval_log(log, str(whole))
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "1 sample(s) errored or unscored; left out" in err  # 8-1B-r1, in no other log
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert summary["N"].tolist() == [7]


def test_a_report_into_an_earlier_ones_folder_replaces_it(logs: Path, tmp_path: Path) -> None:
    battery = battery_logs(tmp_path / "battery")
    out = tmp_path / "out"
    assert main(["report", str(logs), str(battery), "--out", str(out), "--quiet"]) == 0
    assert (out / "false_belief.csv").is_file() and (out / "summary.csv").is_file()
    (out / "notes.txt").write_text("mine")
    assert main(["report", str(logs), "--out", str(out), "--quiet"]) == 0
    assert not (out / "false_belief.csv").exists()  # the earlier report's, not this one's
    assert (out / "summary.csv").is_file() and (out / "notes.txt").read_text() == "mine"


def test_a_piped_report_prints_only_what_it_wrote(logs: Path, tmp_path: Path) -> None:
    """Progress bars are for a terminal: piped, they left blank lines before the result."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "tom_eval.cli", "report", str(logs), "--out", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    assert result.stdout == f"wrote {out / 'report.md'}\n"


def test_the_mastery_table(logs: Path, report: tuple[str, Path]) -> None:
    frame = trials(logs)
    categories = yaml.safe_load((ROOT / "scenarios" / "mastery.yaml").read_text())["categories"]
    keys = {
        "optimal": "optimal",
        "lies_okay": "lies_okay",
        "lie_to_opponent_answerer": "lie_to_opponent",
    }
    rows = tables(report[0])["Mastery categories"]
    # The runs as the summary names and orders them.
    assert [row["run"] for row in rows] == [row["run"] for row in tables(report[0])["Summary"]]
    assert len(rows) == 4
    for row in rows:
        mine = frame[frame["run"] == row["run"].removesuffix(" (baseline)")]
        for category in categories:
            weighted = weights = 0.0
            for component in category["components"]:
                chosen = mine[mine["metadata_id"].isin(component["ids"])]
                weighted += component["weight"] * chosen[keys[component["success"]]].sum()
                weights += component["weight"] * len(chosen)
            shown = row[category["name"]]
            assert shown.split(" ")[0] == (three(weighted / weights) if weights else "n/a")
            if weights:  # the score inside its interval
                low, high = (float(x) for x in shown.split(" ", 1)[1].strip("[]").split(", "))
                assert low <= weighted / weights <= high


def test_the_error_analysis_tables(logs: Path, report: tuple[str, Path]) -> None:
    frame = trials(logs)
    models = frame[~frame["run"].str.startswith("tom/")]
    found = tables(report[0])
    failures = models[models["optimal"] < 1]
    for row in found["Action confusion (failures only)"]:
        mine = failures[failures["metadata_expected_action"] == row["expected"]]
        kinds = mine["score_tom_scorer_answer"].map(
            lambda text: next((k for k in ("Pass", "Ask", "Tell") if text.startswith(k)), "Invalid")
        )
        assert row["failures"] == str(len(mine))
        for kind in ("Pass", "Ask", "Tell", "Invalid"):
            assert row[kind] == str(int((kinds == kind).sum()))
        assert row["right type, wrong arguments"] == str(
            int((kinds == row["expected"].split()[0]).sum())
        )
    for row in found["Per scenario"]:
        mine = models[models["metadata_id"] == int(row["Id"])]
        assert row["N"] == str(len(mine)) and row["optimal"] == three(mine["optimal"].mean())
    features = {row["feature"]: row for row in found["Features of successes and failures"]}
    success = models["optimal"] >= 1
    flags = {}
    for column, prefix in (
        ("metadata_answerer_role", "answerer"),
        ("metadata_label_self", "self"),
        ("metadata_label_teammate", "teammate"),
        ("metadata_label_opponent", "opponent"),
    ):
        for value in models[column].unique():
            flags[f"{prefix} {value}"] = models[column] == value
    events = models["metadata_story"].map(lambda story: json.loads(story)["events"])
    flags["teammate put or moved"] = events.map(
        lambda evs: any(e["type"] in ("put", "move") and e["actor"] == "B" for e in evs)
    )
    assert set(flags) <= set(features)
    for name, flag in flags.items():
        a, b = int((flag & success).sum()), int((~flag & success).sum())
        c, d = int((flag & ~success).sum()), int((~flag & ~success).sum())
        assert features[name]["successes"] == three(a / (a + b)), name
        assert features[name]["failures"] == three(c / (c + d)), name
        assert features[name]["p"] == three(fisher(a, b, c, d)), name
    for name in ("ect", "visible_events"):
        row = features[f"{name} (mean)"]
        assert row["successes"] == three(models.loc[success, f"metadata_{name}"].mean())
        assert row["failures"] == three(models.loc[~success, f"metadata_{name}"].mean())
    assert "Reply:" in report[0] and "I am going to ask" in report[0]
    assert "Options:\n\n```\nA) " in report[0]  # a bare letter reply can be read


def test_reasoning_and_thinking_pairs(logs: Path, report: tuple[str, Path]) -> None:
    frame = trials(logs)
    found = tables(report[0])
    (row,) = found["Reasoning"]
    thinking = frame[frame["run"] == f"mockllm/model [reasoning_effort=high] ({SETTING})"]
    assert row["run"] == f"mockllm/model [reasoning_effort=high] ({SETTING})"
    assert row["turns with reasoning"] == "1.000"
    calls = 1 + (thinking["metadata_answerer"] == "A").astype(int)  # A answers in a second turn
    assert row["reasoning tokens per trial"] == three((7 * calls).mean())
    assert row["accuracy with reasoning"] == three(thinking["optimal"].mean())
    assert row["accuracy without"] == "n/a"
    (pair,) = found[f"choice format, {SETTING.removeprefix('choice, ')}"]
    assert pair["balanced with"] == "1.000" and pair["balanced without"] == "0.333"
    assert pair["reasoning seen"] == "1.000"
    assert pair["delta"] == three(1 - 1 / 3)
    low, high = (float(x) for x in pair["delta 95%"].strip("[]").split(", "))
    assert low < 2 / 3 < high
    out = report[1]
    for chart in ("model_comparison", "load_effects", "mastery", "id_by_extra", "thinking"):
        image = out / f"{chart}_choice.png"
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and image.stat().st_size > 10_000
    assert {path.name for path in out.glob("*.csv")} >= {
        "summary.csv",
        "mastery.csv",
        "confusion.csv",
        "features.csv",
        "per_scenario.csv",
        "reasoning.csv",
    }


def test_a_false_belief_log_without_its_sample_entries_is_called_damaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "not false-belief logs of this version", which its missing columns suggested."""
    folder = tmp_path / "logs"
    run = false_belief(contents=1, transfer=0)
    inspect_eval(run, model="tom/belief-oracle", log_dir=str(folder), display="none")
    (log,) = folder.glob("*.eval")
    entries = without_sample_entries(log)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        f"tom-eval: error: {log}: {entries} of the {entries} samples it lists have no "
        "entry in the file; the log is damaged"
    )


def test_the_mastery_chart_lists_the_runs_as_the_tables_do(tmp_path: Path) -> None:
    """Whatever order the logs are made and read in (here the newest is the last by name)."""
    folder = tmp_path / "logs"
    for rank, model in enumerate(("tom/always-pass", "tom/no-tom", "tom/oracle", "tom/random")):
        inspect_eval(tom(ids="7", reps=1), model=model, log_dir=str(tmp_path), display="none")
        (log,) = tmp_path.glob("*.eval")
        folder.mkdir(exist_ok=True)
        log.rename(folder / f"{rank}.eval")
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    # The chart is drawn from the CSV's rows, in their order.
    mastery = pd.read_csv(tmp_path / "out" / "mastery.csv")
    overall = mastery.loc[mastery["scope"] == "Overall", "run"].tolist()
    assert overall == pd.read_csv(tmp_path / "out" / "summary.csv")["run"].tolist()
    assert [run.split(" ")[0] for run in overall] == [
        "tom/always-pass",
        "tom/no-tom",
        "tom/oracle",
        "tom/random",
    ]


def test_compare(logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(logs.glob("*.eval"))
    frame = trials(logs)
    by_log = {str(path): frame.loc[frame["log"] == str(path), "run"].iloc[0] for path in files}
    first = next(p for p, run in by_log.items() if run.startswith("tom/always-pass"))
    second = next(p for p, run in by_log.items() if run.startswith("tom/oracle"))
    assert main(["report", "--compare", first, second, "--out", str(tmp_path), "--quiet"]) == 0
    found = tables((tmp_path / "compare.md").read_text())
    row = next(r for r in found["By Id"] if r["Id"] == "12")
    assert (row["A"], row["B"], row["difference"]) == ("0.000", "1.000", "1.000")
    assert float(row["p"]) < 0.01  # 4 trials a side
    strategic = next(r for r in found["By mastery category"] if r["category"] == "Strategic Lies")
    assert strategic["difference"] == "0.000"


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no Inspect logs found" in capsys.readouterr().err
    other = foreign_log(tmp_path / "other")
    assert main(["report", str(other), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "not a tom-eval log (task other_task, version 0, where" in error
    assert "no tom-eval run with scored samples" in error and "Traceback" not in error


@pytest.mark.parametrize("name", ["tom", "knp", "coherence"])
def test_another_task_of_one_of_our_names_is_not_ours(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user's own `tom` task was read as the game's (a KeyError traceback), and a `knp`
    one as KNP's (exit 0, an empty report): told apart by the version ours write."""
    other = str(foreign_log(tmp_path / "other", name))
    assert main(["report", other, "--out", str(tmp_path / "o"), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert f"not a tom-eval log (task {name}, version 0, where" in error
    assert "Traceback" not in error and not (tmp_path / "o").exists()
    if name == "tom":
        assert main(["report", "--compare", other, other, "--out", str(tmp_path / "o")]) == 2
        assert "not a tom-eval log" in capsys.readouterr().err


def test_a_task_of_another_name_is_not_ours_whatever_its_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = str(foreign_log(tmp_path / "other", version="1-A"))
    assert main(["report", other, "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "not a tom-eval log (task other_task); skipped" in capsys.readouterr().err


def test_a_foreign_log_beside_game_logs_is_a_warning(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = foreign_log(tmp_path / "other")
    assert main(["report", str(logs), str(other), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert re.search(r"warning: .*other_task", capsys.readouterr().err)


# --------------------------------------------------------------- game mode


def games(logs: Path) -> dict[tuple[str, str], tuple[pd.DataFrame, pd.DataFrame]]:
    """Per (model, history): each game's score value and each turn A played, straight from
    read_eval_log."""
    found: dict[tuple[str, str], tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for path in sorted(logs.glob("*.eval")):
        log = read_eval_log(str(path))
        if log.eval.task_args.get("mode") != "game":
            continue
        values, turns = found.setdefault((log.eval.model, log.eval.task_args["history"]), ([], []))
        for sample in log.samples or []:
            score = (sample.scores or {})["game_scorer"]
            assert isinstance(score.value, dict) and score.metadata is not None
            values.append(score.value)
            turns += score.metadata["a_turns"]
    return {key: (pd.DataFrame(v), pd.DataFrame(t)) for key, (v, t) in found.items()}


def test_the_full_games_table(game_logs: Path, tmp_path: Path) -> None:
    text = write(list(game_logs.glob("*.eval")), tmp_path / "logs", tmp_path / "out")
    assert "## Summary" not in text and "Game-mode runs: 2, of which 2 " in text
    assert (tmp_path / "out" / "games.csv").exists()
    rows = tables(text)["Full games"]
    expected = games(game_logs)
    assert len(rows) == len(expected) == 2
    for row in rows:
        assert "format ok" not in row  # the choice format asks for no tagged lines
        model = row["model"].removesuffix(" [default] (baseline)")
        values, turns = expected[(model, row["history"])]
        assert (row["format"], row["games"], row["turns per game"]) == (
            "choice, reps=1, seed=2",
            "4",
            "8",
        )
        for key in ("win", "tie", "loss"):
            assert row[key] == interval(values[key]), key
        assert row["margin"] == three(values["margin"].mean())
        assert row["turns played"] == three(values["turns"].mean())
        assert row["A turns"] == str(len(turns))
        assert row["optimal"] == interval(turns["optimal"])
        assert row["balanced"] == balanced(turns["expected_action"], turns["optimal"])
        assert row["invalid"] == three(1 - turns["valid"].mean())
        for key in (
            "answer_correct",
            "reply_lie_to_opponent",
            "reply_refused_to_opponent",
            "fooled",
        ):
            # Over the games that gave the occasion (NaN in the others).
            assert row[key.replace("_", " ")] == three(values[key].mean()), key
    oracle, passer = sorted(rows, key=lambda row: row["model"], reverse=True)
    assert oracle["model"] == "tom/oracle [default] (baseline)" and oracle["history"] == "none"
    assert [oracle[key].split()[0] for key in ("win", "tie", "loss", "optimal", "balanced")] == [
        "0.000",
        "1.000",
        "0.000",
        "1.000",
        "1.000",
    ]
    assert oracle["margin"] == "0.000" and passer["history"] == "full"
    assert float(passer["optimal"].split()[0]) < 1 and float(passer["margin"]) < 0


def test_the_full_games_table_shows_format_ok_over_a_turns_in_the_free_format(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "logs"
    args = {**GAME_ARGS, "games": 2, "response_format": "free"}
    inspect_eval(tom(**args), model="tom/oracle", log_dir=str(folder), display="none")
    (log,) = folder.glob("*.eval")
    _, turns = games(folder)[("tom/oracle", "none")]
    assert len(turns) > 0 and set(turns["format_ok"]) == {1.0}
    (row,) = tables(write([log], tmp_path / "copied", tmp_path / "out"))["Full games"]
    assert row["format ok"] == "1.000"


def test_a_game_in_two_logs_of_one_run_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    for limit in (2, None):  # a first try, then the whole run, into one folder
        run = tom(**GAME_ARGS)
        inspect_eval(run, model="tom/oracle", log_dir=str(folder), display="none", limit=limit)
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "2 sample(s) also in a later or fuller log of the run" in capsys.readouterr().err
    (row,) = tables((tmp_path / "out" / "report.md").read_text())["Full games"]
    assert row["games"] == "4"


def test_a_mixed_folder_gives_both_sections(
    logs: Path, game_logs: Path, report: tuple[str, Path], tmp_path: Path
) -> None:
    trial_logs, game_files = list(logs.glob("*.eval")), list(game_logs.glob("*.eval"))
    mixed = write([*trial_logs, *game_files], tmp_path / "mixed", tmp_path / "out")
    alone = write(game_files, tmp_path / "games", tmp_path / "games_out")
    found, trial_only = tables(mixed), tables(report[0])
    # The trial sections are those of the trial logs alone: no game counted as a trial.
    for heading, rows in trial_only.items():
        assert sorted(map(str, found[heading])) == sorted(map(str, rows)), heading
    assert sorted(map(str, found["Full games"])) == sorted(map(str, tables(alone)["Full games"]))
    header = next(
        line for line in report[0].splitlines() if line.startswith("Game runs (trial mode): ")
    )
    assert header in mixed and "Game-mode runs: 2" in mixed


def test_compare_refuses_sides_without_a_scenario_id_in_common(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every row would be n/a: a comparison of nothing, which was written without a word.
    for ids in ("12", "7-8"):
        inspect_eval(
            tom(ids=ids, reps=1),
            model="tom/oracle",
            log_dir=str(tmp_path / ids),
            display="none",
        )
    out = tmp_path / "out"
    command = ["report", "--compare", str(tmp_path / "12"), str(tmp_path / "7-8")]
    assert main([*command, "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "tom-eval: error: report: the two sides of --compare share no scenario Id (A has Id "
        "12, B Ids 7-8): nothing to compare\n"
    )
    assert not out.exists()


def test_compare_refuses_game_logs(
    logs: Path, game_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, trial = next(game_logs.glob("*.eval")), next(logs.glob("*.eval"))
    assert main(["report", "--compare", str(game), str(trial), "--out", str(tmp_path)]) == 2
    assert "no trial-mode run" in capsys.readouterr().err


def test_many_runs_keep_their_own_style_and_identical_ones_share_a_line() -> None:
    from tom_eval.report.charts import same_series, styles

    many = styles(60)
    assert len({style.colour for style in many}) == 60
    assert len({(style.marker, style.linestyle) for style in many[:32]}) == 32
    merged = same_series([("a", [0.5, 1.0]), ("b", [0.2, 0.3]), ("c", [0.5, 1.0])])
    assert merged == [("a = c", [0.5, 1.0]), ("b", [0.2, 0.3])]
    # A value both lack (NaN) does not keep identical lines apart.
    nan = float("nan")
    merged = same_series([("a", [0.5, nan]), ("b", [0.5, nan])])
    assert [name for name, _ in merged] == ["a = b"]


def test_charts_of_forty_runs_draw_every_run(tmp_path: Path) -> None:
    from tom_eval.game import charts

    rows = []
    for index in range(40):
        value = index / 40
        row: dict[str, Any] = {
            "run": f"model-{index} [default] (choice)",
            "model": f"model-{index}",
            "model_settings": "default",
            "setting": "choice",
            "baseline": index >= 38,
            "N": 100,
            "balanced": value,
            "balanced_low": max(0.0, value - 0.05),
            "balanced_high": min(1.0, value + 0.05),
        }
        for extra in ("0A", "0B", "1A", "1B"):
            row |= {extra: value, f"{extra}_low": value - 0.01, f"{extra}_high": value + 0.01}
            row[f"{extra}_n"] = 25
        rows.append(row)
    table = pd.DataFrame(rows)
    for draw in (charts.model_comparison, charts.load_effects):
        path = draw(table, tmp_path / f"{draw.__name__}.png", "a title")
        assert path.stat().st_size > 10_000


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the game's charts draw, kept instead of saved."""
    from tom_eval.game import charts

    figures: list[Figure] = []

    def keep(figure: Figure, path: Path) -> Path:
        figures.append(figure)
        return path

    monkeypatch.setattr(charts, "save", keep)
    return figures


def test_two_settings_of_one_reference_player_are_two_lines(
    tmp_path: Path, drawn: list[Figure]
) -> None:
    from tom_eval.game import charts

    runs = [("model-a", "default", False, 0.6), ("tom/bounded", "memory=2", True, 0.4)]
    runs.append(("tom/bounded", "memory=20", True, 0.5))
    table = pd.DataFrame(
        [
            {
                "run": f"{model} [{settings}] (choice)",
                "model": model,
                "model_settings": settings,
                "setting": "choice",
                "baseline": baseline,
                "N": 100,
                "balanced": value,
                "balanced_low": value - 0.05,
                "balanced_high": value + 0.05,
            }
            for model, settings, baseline, value in runs
        ]
    )
    charts.model_comparison(table, tmp_path / "comparison.png", "a title")
    (figure,) = drawn
    legend = figure.axes[0].get_legend()
    assert legend is not None
    assert [text.get_text() for text in legend.get_texts()][1:] == [
        "tom/bounded [memory=2]",
        "tom/bounded [memory=20]",
    ]


def test_only_one_session_drops_its_repeated_samples() -> None:
    evals = pd.DataFrame(
        {
            "eval_id": ["first", "second", "other", "person"],
            "run": ["r", "r", "r", "r"],
            "metadata": [None, None, '{"imported": {"run": "x"}}', None],
            "person": [False, False, False, True],
            "status": ["success"] * 4,
            "completed_samples": [1, 2, 2, 2],
            "created": ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"],
        }
    )
    frame = pd.DataFrame(
        {
            "eval_id": ["first", "second", "second", "other", "other", "person", "person"],
            "id": ["a", "a", "b", "a", "b", "a", "b"],
            "epoch": [1] * 7,
        }
    )
    warnings: list[str] = []
    kept = once_per_sample(frame, evals, warnings)
    assert kept["eval_id"].tolist() == ["second", "second", "other", "other", "person", "person"]
    (warning,) = warnings
    assert warning == "r: 1 sample(s) also in a later or fuller log of the run; each counted once"


def test_the_balanced_interval_is_no_narrower_than_wilsons_near_the_ends() -> None:
    """One class of 10 successes: plus-four, 12/14 +- 1.96 sqrt(12/14 * 2/14 / 14), is
    [0.674, 1], wider than Wilson's [0.722, 1] (centred on the raw 1.0 it was [0.817, 1]).
    Three classes all right still reach 1; all wrong still reach 0."""
    value, low, high = balanced_interval([[1.0] * 10])
    assert (value, round(low, 3), high) == (1.0, 0.674, 1.0)
    assert round(wilson(10, 10)[0], 3) == 0.722
    assert balanced_interval([[1.0] * 500] * 3)[2] == 1.0
    assert balanced_interval([[0.0] * 500] * 3)[1] == 0.0


def test_runs_on_two_files_of_one_name_are_two_runs(tmp_path: Path) -> None:
    """`scenarios.jsonl` of two seeds: each run is labelled by the file's digest too, and
    neither run's samples are taken for repeats of the other's."""
    for seed in ("0", "5"):
        path = tmp_path / seed / "s.jsonl"
        generate = ["generate", "--ids", "12", "--extras", "0A", "--reps", "2", "--seed", seed]
        assert main([*generate, "--out", str(path)]) == 0
        run = tom(scenario_file=str(path))
        inspect_eval(run, model="tom/random", log_dir=str(tmp_path / "logs"), display="none")
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    report = (tmp_path / "r" / "report.md").read_text()
    row = r"^\| tom/random .*scenario_file=s\.jsonl#[0-9a-f]{8}\) \(baseline\) \| 2 \|"
    assert len(re.findall(row, report, re.MULTILINE)) == 2, report
    assert "also in a later or fuller log" not in report


def test_a_difference_of_two_shares_is_agresti_caffos_interval() -> None:
    """10/10 against 0/10: one added success and failure each (2/k, k = 2), centred on
    11/12 - 1/12, spread sqrt(2 * 11/12 * 1/12 / 12): [0.612, 1]."""
    low, high = combined_interval([(1.0, 10, 10), (-1.0, 0, 10)], bounds=(-1.0, 1.0))
    assert (round(low, 3), high) == (0.612, 1.0)
    assert combined_interval([(1.0, 0, 10), (-1.0, 10, 10)], bounds=(-1.0, 1.0))[0] == -1.0


def test_a_folder_without_a_name_keeps_its_text() -> None:
    evals = pd.DataFrame(
        {"task_arg_folder": [".", "/x/clone", None], "metadata": ['{"d": "a"}', '{"d": "a"}', None]}
    )
    assert names_by_digest(evals, "folder", "d") == [".", "clone", None]


def test_a_stray_argument_beyond_64_bits_leaves_the_log_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another task's -T name is only warned about, and Inspect keeps its value in the log:
    a huge integer there must not make the report pass over the log."""
    folder = tmp_path / "logs"
    run = tom(ids="7", reps=1)
    inspect_eval(run, model="tom/always-pass", log_dir=str(folder), display="none")
    (path,) = folder.glob("*.eval")
    log = read_eval_log(str(path))
    log.eval.task_args["stray"] = 10**30
    write_eval_log(log, str(path))
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "cannot be read" not in capsys.readouterr().err
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert summary["N"].tolist() == [4]


def test_a_parameter_left_out_reads_as_in_logs_from_before_its_default(tmp_path: Path) -> None:
    """Optional parameters default to NOT_GIVEN now, where older logs have None: one
    command's log from before and after is one run (here, repeated)."""
    folder = tmp_path / "logs"
    inspect_eval(tom(ids="7", reps=1), model="tom/always-pass", log_dir=str(folder), display="none")
    (path,) = folder.glob("*.eval")
    old = read_eval_log(str(path))
    left_out = [name for name, value in old.eval.task_args.items() if value == NOT_GIVEN]
    assert sorted(left_out) == ["ladder", "sample", "scenario_file"]
    old.eval.task_args |= dict.fromkeys(left_out)
    old.eval.eval_id += "-old"  # Inspect's dataframes read one log per eval id
    (tmp_path / "old").mkdir()
    write_eval_log(old, str(tmp_path / "old" / path.name))
    evals, warnings = read_evals([folder, tmp_path / "old"])
    assert len(evals) == 1
    assert [warning.split(": ", 1)[1][:15] for warning in warnings] == ["the same run as"]


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("cut short", "Unterminated string"),
        ("wrong type", "scores: Input should be a valid dictionary"),
        ("removed", None),
    ],
)
@pytest.mark.parametrize("compare", [False, True])
def test_a_log_with_a_damaged_sample_is_refused_in_one_line_naming_it(
    damage: str, why: str | None, compare: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    inspect_eval(tom(ids="7", reps=1), model="tom/oracle", log_dir=str(folder), display="none")
    (log,) = folder.glob("*.eval")
    damaged(log, "samples/7-0B-r1_epoch_1.json", damage)
    out = tmp_path / "out"
    command = ["--compare", str(folder), str(folder)] if compare else [str(folder)]
    assert main(["report", *command, "--out", str(out), "--quiet"]) == 2
    (error,) = capsys.readouterr().err.strip().splitlines()
    if why is None:  # Inspect's dataframes pass over a missing entry without a word
        assert error == (
            f"tom-eval: error: {log}: 1 of the 4 samples it lists have no entry in the file; "
            "the log is damaged"
        )
    else:
        assert error.startswith(f"tom-eval: error: {log}: a sample cannot be read (")
        assert why in error and error.endswith("the log is damaged")
    assert not out.exists()


def test_load_effect_lines_merge_only_when_their_intervals_agree(
    tmp_path: Path, drawn: list[Figure]
) -> None:
    from tom_eval.game import charts

    rows = []
    for name, width in (("a", 0.1), ("b", 0.1), ("c", 0.3)):  # c: the same shares, fewer trials
        row: dict[str, Any] = {"run": f"{name} [default] (choice)", "model": name}
        row |= {"model_settings": "default", "setting": "choice", "baseline": False}
        for extra in ("0A", "0B", "1A", "1B"):
            row |= {extra: 0.5, f"{extra}_low": 0.5 - width, f"{extra}_high": 0.5 + width}
            row[f"{extra}_n"] = 10
        rows.append(row)
    charts.load_effects(pd.DataFrame(rows), tmp_path / "load.png", "a title")
    (figure,) = drawn
    legend = figure.axes[0].get_legend()
    assert legend is not None
    assert [text.get_text() for text in legend.get_texts()] == [
        "a [default] = b [default]",
        "c [default]",
    ]


def test_a_thinking_pair_differs_in_thinking_alone() -> None:
    """An "on" run at one temperature is no pair for an "off" run at another."""
    from tom_eval.game.analysis import ACTION_CLASSES, thinking_pairs

    def row(thinking: str, other: str) -> dict[str, Any]:
        shares = {f"expected_{action}": 0.5 for action in ACTION_CLASSES}
        counts = {f"expected_{action}_n": 10 for action in ACTION_CLASSES}
        run = f"m [{thinking}, {other}] (choice)"
        return {"run": run, "model": "m", "format": "choice", "scenario_set": "default"} | {
            "setting": "choice",
            "other_settings": other,
            "thinking": thinking,
            "baseline": False,
            "reasoning_seen": 0.0,
            "balanced": 0.5,
            **shares,
            **counts,
        }

    table = pd.DataFrame(
        [row("off", "temperature=0.0"), row("on", "temperature=1.0"), row("on", "temperature=0.0")]
    )
    pairs = thinking_pairs(table)
    assert pairs[["without", "with"]].to_numpy().tolist() == [
        ["m [off, temperature=0.0] (choice)", "m [on, temperature=0.0] (choice)"]
    ]


@pytest.mark.parametrize(
    ("config", "args", "expected"),
    [
        ({"reasoning_effort": "high"}, {}, "on"),
        ({"reasoning_effort": "none"}, {}, "off"),
        ({"reasoning_tokens": 0}, {}, "off"),
        ({"effort": "low"}, {}, "default"),  # Anthropic's effort sizes any reply
        ({}, {"enable_thinking": False}, "off"),
        ({"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}, {}, "off"),
        ({"extra_body": {"chat_template_kwargs": {"enable_thinking": True}}}, {}, "on"),
        ({"extra_body": {"thinking": {"type": "enabled", "budget_tokens": 2048}}}, {}, "on"),
        ({"extra_body": {"thinking": {"type": "disabled"}}}, {}, "off"),
        ({"extra_body": {"reasoning": {"enabled": False}}}, {}, "off"),
        ({"extra_body": {"reasoning": {"effort": "high"}}}, {}, "on"),
        ({"extra_body": {"reasoning": {"max_tokens": 2000}}}, {}, "on"),
        ({"extra_body": {"thinking_config": {"thinking_budget": 0}}}, {}, "off"),
        ({"extra_body": {"options": {"enabled": False, "type": "disabled"}}}, {}, "default"),
        ({"response_schema": {"thinking": {"type": "disabled"}}}, {}, "default"),
    ],
)
def test_thinking_is_read_from_extra_body_too(
    config: dict[str, Any], args: dict[str, Any], expected: str
) -> None:
    """vLLM's, OpenRouter's and Google's switches ride in `extra_body`: a run with thinking
    turned off there is "off", so the report pairs it with the same model thinking."""
    from tom_eval.report.logs import thinking

    assert thinking(json.dumps(config), json.dumps(args)) == expected


def test_an_extra_body_field_apart_from_thinking_still_tells_runs_apart() -> None:
    """Two runs whose `extra_body` differ in a sampling field are no thinking pair; two that
    differ in its thinking switch alone are."""
    from tom_eval.report.logs import THINKING_SETTINGS

    def other(extra_body: dict[str, Any]) -> str:
        config = json.dumps({"temperature": 0.0, "extra_body": extra_body})
        return model_settings_label(config, "{}", THINKING_SETTINGS)

    off = {"chat_template_kwargs": {"enable_thinking": False}, "top_k": 20}
    on = {"chat_template_kwargs": {"enable_thinking": True}, "top_k": 20}
    assert other(off) == other(on) == 'extra_body={"top_k": 20}, temperature=0.0'
    assert other(off) != other(on | {"top_k": 40})
    assert other({"chat_template_kwargs": {"enable_thinking": True}}) == "temperature=0.0"
    # Anthropic's effort sizes every reply: two efforts are no thinking pair.
    efforts = [json.dumps({"effort": effort}) for effort in ("low", "high")]
    assert len({model_settings_label(config, "{}", THINKING_SETTINGS) for config in efforts}) == 2
    # A response schema's keys name its properties: a "reasoning" field is no setting.
    schema = {"json_schema": {"properties": {"reasoning": {"type": "string"}}}}
    config = json.dumps({"response_schema": schema})
    assert model_settings_label(config, "{}", THINKING_SETTINGS) == model_settings_label(
        config, "{}"
    )
    # So in `extra_body` too: two schemas are two settings, whatever their properties' names.
    answer: dict[str, Any] = {"answer": {"type": "string"}}
    formats = [
        {"response_format": {"type": "json_schema", "schema": {"properties": properties}}}
        for properties in (answer | {"reasoning": {"type": "string"}}, answer)
    ]
    assert other(formats[0]) != other(formats[1])
    reasoning: dict[str, Any] = {"reasoning": {"type": "string"}}
    vllm = [
        {"structured_outputs": {"json": {"properties": {}, "$defs": definitions}}}
        for definitions in (reasoning, {})
    ]
    assert other(vllm[0]) != other(vllm[1])


def test_wilsons_ends_are_exact_at_none_and_all() -> None:
    """No success has a lower end of exactly 0, all successes an upper end of exactly 1
    (the arithmetic alone leaves 1e-17 in a CSV)."""
    from tom_eval.report.stats import wilson as report_wilson

    for trials in range(1, 200):
        assert report_wilson(0, trials)[0] == 0.0
        assert report_wilson(trials, trials)[1] == 1.0


def test_a_task_argument_that_only_looks_like_a_list_stays_text() -> None:
    """evals_df keeps a list argument as JSON text; a folder named "[old" is no list."""
    from tom_eval.report.logs import changed_settings, task_argument

    assert task_argument("[1, 2]") == [1, 2] and task_argument("[old") == "[old"
    assert changed_settings({"task_arg_data_dir": "[old"}, {"data_dir": None}) == ["data_dir=[old"]


def test_a_number_given_as_text_is_its_default_when_it_equals_it() -> None:
    """`-T floor=1e-3` reaches the task (and the log) as text: it is the default 0.001, so
    its run is not labelled apart from the default's."""
    from tom_eval.report.logs import changed_settings

    defaults: dict[str, object] = {"floor": 0.001, "prefix": True}
    assert changed_settings({"task_arg_floor": "1e-3"}, defaults) == []
    assert changed_settings({"task_arg_floor": "1e-4"}, defaults) == ["floor=1e-4"]
    assert changed_settings({"task_arg_floor": "low"}, defaults) == ["floor=low"]
    assert changed_settings({"task_arg_prefix": "1"}, defaults) == ["prefix=1"]


def test_a_mastery_column_gives_its_trials_only_when_every_run_had_as_many(
    tmp_path: Path, drawn: list[Figure]
) -> None:
    from tom_eval.game import charts
    from tom_eval.game.spec import read_mastery, slug

    categories = read_mastery().categories
    rows = []
    for name, trials in (("a", 13), ("b", 26)):
        row: dict[str, Any] = {"run": f"{name} [default] (choice)", "model": name}
        row |= {"model_settings": "default", "setting": "choice", "scope": "Overall"}
        for category in categories:
            key = slug(category.name)
            row |= {key: 0.5, f"{key}_low": 0.3, f"{key}_high": 0.7, f"{key}_n": trials}
        rows.append(row)
    first = slug(categories[0].name)
    rows[1][f"{first}_n"] = 13  # the first category: as many trials in both runs
    table = pd.DataFrame(rows)
    charts.mastery_heatmap(table, table, tmp_path / "mastery.png", "a title")
    (figure,) = drawn
    labels = [label.get_text() for label in figure.axes[0].get_xticklabels()]
    assert labels[0] == f"{categories[0].name}\n(n=13)"
    assert labels[1:] == [f"{category.name}\n(n varies)" for category in categories[1:]]
    cell = figure.axes[0].texts[0].get_text()
    assert cell == "0.50\n[0.30, 0.70]"


def test_a_run_whose_metrics_reduce_epochs_by_max_is_named_in_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report counts each epoch as a trial, so a log reduced otherwise than by the mean
    shows other figures than the report: the report says so rather than differ silently."""
    from inspect_ai import Epochs

    folder = tmp_path / "logs"
    # Two runs (other Ids): one command with two reducers would be one run repeated.
    for reducer, ids in (("mean", "7"), ("max", "8")):
        inspect_eval(
            tom(ids=ids, reps=1),
            model="tom/random",
            epochs=Epochs(2, reducer),
            log_dir=str(folder / reducer),
            display="none",
        )
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "reduce the epochs" in line]
    assert len(warned) == 1 and f"{folder / 'max'}" in warned[0]
    assert "reduce the epochs by max; the report counts each epoch as a trial" in warned[0]


def test_a_failed_example_shows_a_reply_readably(tmp_path: Path) -> None:
    """A reply with a NUL, a fence of its own and 5,000 characters: report.md stays text,
    its code block whole, and the reply cut with how much more the log holds."""
    reply = "\x00 ``` " + "x" * 5000

    def garbled(messages: list[ChatMessage], tools: Any, choice: Any, config: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content=reply)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    model = get_model("mockllm/model", custom_outputs=garbled, memoize=False)
    inspect_eval(tom(ids="7", reps=1, extras="0A"), model=model, log_dir=str(tmp_path / "logs"))
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "logs"), "--out", str(out), "--quiet"]) == 0
    text = (out / "report.md").read_text()
    assert "\x00" not in text
    shown = text[text.index("Reply:") :].splitlines()
    assert shown[2] == "````" and shown[3].startswith("\u2400 ``` xxx") and shown[4] == "````"
    assert shown[5] == "(cut here: 3,006 more characters in the log)"


def test_runs_are_ordered_with_their_numbers_read_as_numbers() -> None:
    runs = ["tom/bounded [memory=16] (x)", "tom/oracle (x)", "tom/bounded [memory=2] (x)"]
    runs += ["m [temperature=0.5]", "m [temperature=0.05]", "m [temperature=0.25]"]
    expected = [
        "m [temperature=0.05]",
        "m [temperature=0.25]",
        "m [temperature=0.5]",
        "tom/bounded [memory=2] (x)",
        "tom/bounded [memory=16] (x)",
        "tom/oracle (x)",
    ]
    for order in (runs, runs[::-1]):
        assert in_run_order(pd.DataFrame({"run": order}))["run"].tolist() == expected


def test_runs_of_one_extra_each_draw_no_load_effects(tmp_path: Path) -> None:
    """A run of 0A and a run of 1B: each line would be one point, no load effect."""
    for extras in ("0A", "1B"):
        run = tom(ids="7", reps=1, extras=extras)
        inspect_eval(run, model="tom/oracle", log_dir=str(tmp_path / "logs"), display="none")
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "logs"), "--out", str(out), "--quiet"]) == 0
    assert not list(out.glob("load_effects_*.png"))
    assert "Load effects" not in (out / "report.md").read_text()


def test_a_feature_the_same_in_every_trial_is_named_not_tabled() -> None:
    """Over the default scenarios A never misses every put: a row of 0 and 0 with p = 1
    would read as a feature tested and found to make no difference."""

    def story(actor: str) -> dict[str, Any]:
        return {"present_initially": ["A", "B"], "events": [{"type": "put", "actor": actor}]}

    trials = pd.DataFrame(
        {
            "optimal": [1.0, 0.0, 1.0],
            "story": [story("B"), story("C"), story("C")],
            "answerer_role": ["Self"] * 3,
            "label_self": ["Knows X"] * 3,
            "label_teammate": ["Knows Truth", "Unknown", "Unknown"],
            "label_opponent": ["Unknown"] * 3,
            "ect": [1, 2, 3],
            "visible_events": [1, 2, 3],
        }
    )
    table, constant = feature_comparison(trials)
    assert constant == [
        "self never saw a put",
        "teammate left before self",
        "answerer Self",
        "self Knows X",
        "opponent Unknown",
    ]
    tabled = "teammate put or moved, teammate Knows Truth, teammate Unknown, ect (mean), "
    assert ", ".join(table["feature"]) == tabled + "visible_events (mean)"


def test_a_knowledge_run_without_a_scored_sample_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its table had no column N to show: a traceback."""
    folder = tmp_path / "logs"
    fixture = str(ROOT / "tests" / "fixtures" / "knowledge")
    inspect_eval(knp(data_dir=fixture), model="tom/gold", limit=2, log_dir=str(folder))
    [path] = folder.glob("*.eval")
    log = read_eval_log(str(path))
    for sample in log.samples or []:
        sample.scores = None
    write_eval_log(log, str(path))
    assert main(["report", str(folder), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "2 sample(s) errored or unscored; left out" in capsys.readouterr().err
    report = (tmp_path / "out" / "report.md").read_text()
    assert "No KNP run has scored samples (see the warnings above)." in report
