"""The knowledge tasks' floor and ceiling: the gold player scores 1.0 on every metric, the
trivial baselines what they must, and `tom-eval report` shows KNP and IKD runs."""

from __future__ import annotations

import inspect
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai import Task
from inspect_ai.log import EvalLog
from knowledge_support import FIXTURES, QUIRKS, metrics

from conftest import inspect_eval
from tasks.ikd import ikd
from tasks.knp import knp
from tom_eval.cli import main
from tom_eval.knowledge.report import LABEL_DEFAULTS
from tom_eval.task_args import NOT_GIVEN


def run(task: str, model: str, log_dir: Path, **args: Any) -> dict[str, dict[str, float]]:
    build = knp if task == "knp" else ikd
    args.setdefault("data_dir", str(FIXTURES))
    (log,) = inspect_eval(build(**args), model=model, log_dir=str(log_dir), display="none")
    return values(log)


def values(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.results is not None
    return {score.name: metrics(log, score.name) for score in log.results.scores}


FLOORS = {"knowledge_leak", "invalid", "na", "no_answer"}
"""Scores where the ceiling is 0; `called_error` is the share of erroneous stories."""


def assert_ceiling(values: dict[str, dict[str, float]]) -> None:
    """Every rate at its best: 1.0 (its genres too), 0 where 0 is best; a rate over no
    sample (an empty set: NaN) has none."""
    assert values["accuracy" if "accuracy" in values else "classification"]["accuracy"] == 1.0
    for score, results in values.items():
        for name, value in results.items():
            skipped = name.startswith(("tom_eval/ci_wilson", "stderr")) or math.isnan(value)
            if skipped or score == "called_error":
                continue
            assert value == (0.0 if score in FLOORS else 1.0), (score, name, value)


def test_the_gold_player_is_the_ceiling_of_every_metric_on_any_subset(tmp_path: Path) -> None:
    tasks: list[Task] = []
    for data in (FIXTURES, QUIRKS):
        for sample in (NOT_GIVEN, 2):
            tasks += [
                knp(data_dir=str(data), order=order, sample=sample) for order in ("seeded", "both")
            ]
            tasks.append(ikd(data_dir=str(data), sample=sample))
        tasks.append(ikd(data_dir=str(data), stories="error", highlight="error_and_knowledge"))
        tasks.append(knp(data_dir=str(data), open_ended=True))
    # One eval of the 16 tasks: three quarters of the time of 16.
    logs = inspect_eval(tasks, model="tom/gold", log_dir=str(tmp_path), display="none")
    assert len(logs) == len(tasks)
    for log in logs:
        assert_ceiling(values(log))


def test_the_gold_player_is_the_scorers_ceiling(tmp_path: Path) -> None:
    knp_values = run("knp", "tom/gold", tmp_path, order="both")
    assert knp_values["accuracy"]["accuracy"] == 1.0
    assert knp_values["knowledge_leak"]["mean"] == 0.0
    assert knp_values["invalid"]["mean"] == 0.0
    assert knp_values["without_knowledge"] == {"tom_eval/order_consistency": 1.0}
    ikd_values = run("ikd", "tom/gold", tmp_path)
    for key in ("classification", "classification_original", "classification_error"):
        assert ikd_values[key]["accuracy"] == 1.0
    for key in ("localisation", "localisation_error", "iou_detected"):
        assert ikd_values[key]["mean"] == 1.0
    judged = run("knp", "tom/gold", tmp_path, open_ended=True)
    assert judged["accuracy"]["accuracy"] == 1.0 and judged["na"]["mean"] == 0.0


def test_the_baselines_score_what_they_must(tmp_path: Path) -> None:
    assert run("knp", "tom/always-a", tmp_path)["accuracy"]["accuracy"] == 0.5
    leak = run("knp", "tom/always-leak", tmp_path)
    assert leak["accuracy"]["accuracy"] == 0.0 and leak["knowledge_leak"]["mean"] == 1.0
    yes = run("ikd", "tom/always-yes", tmp_path)
    assert yes["classification_error"]["accuracy"] == 1.0
    assert yes["classification_original"]["accuracy"] == 0.0
    # Calling every story erroneous quotes nothing: no error is located.
    assert yes["localisation_error"]["mean"] == 0.0
    no = run("ikd", "tom/always-no", tmp_path)
    assert no["classification_original"]["accuracy"] == 1.0
    assert no["classification_error"]["accuracy"] == 0.0


def test_the_report_has_a_table_per_knowledge_task(tmp_path: Path) -> None:
    run("knp", "tom/gold", tmp_path / "logs")
    run("knp", "tom/gold", tmp_path / "logs", open_ended=True)
    run("ikd", "tom/always-no", tmp_path / "logs", genre="mystery")
    run("ikd", "tom/always-no", tmp_path / "logs", data_dir=str(QUIRKS))
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "### KNP" in report and "### IKD" in report
    # Each run is read from its own scorer's column, and runs on other data never merge.
    for options in ("", ", open_ended=True"):
        run_label = f"tom/gold [default] (knp, data_dir={FIXTURES.name}{options})"
        assert f"| {run_label} | 6 | 1.000 [0.610, 1.000] (n=6) |" in report
    for data in (FIXTURES, QUIRKS):
        assert f"tom/always-no [default] (ikd, data_dir={data.name}" in report
    assert "left out" not in report
    assert (tmp_path / "out" / "knp.csv").is_file() and (tmp_path / "out" / "ikd.csv").is_file()


def test_a_data_folder_is_one_run_by_any_path_and_two_of_one_name_are_two(
    tmp_path: Path,
) -> None:
    """Runs are labelled by the folder's name: the fixtures given as their clone and as
    their Data folder are one run; another folder of that name (the quirks under it) is
    another, each then named with its records' digest too."""
    run("knp", "tom/gold", tmp_path / "logs")
    run("knp", "tom/gold", tmp_path / "logs", data_dir=str(FIXTURES / "Data"))
    other = tmp_path / "elsewhere" / FIXTURES.name
    shutil.copytree(QUIRKS, other)
    run("knp", "tom/gold", tmp_path / "logs", data_dir=str(other))
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "out" / "knp.csv")
    label = re.escape(f"tom/gold [default] (knp, data_dir={FIXTURES.name}#") + "[0-9a-f]{8}\\)"
    assert all(re.fullmatch(label, run) for run in table["run"]), table["run"]
    assert len(table) == 2 and 6 in table["N"].tolist()


def test_genres_in_another_order_are_one_run(tmp_path: Path) -> None:
    """As the task reads them: a set, written in any order, shown as a list, not JSON."""
    for genre in ("kids,mystery", ["mystery", "kids"]):
        run("knp", "tom/gold", tmp_path / "logs", genre=genre)
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "out" / "knp.csv")
    assert table["run"].tolist() == [
        f"tom/gold [default] (knp, data_dir={FIXTURES.name}, genre=kids,mystery)"
    ]


def test_the_reports_defaults_are_the_tasks() -> None:
    for task, build in (("knp", knp), ("ikd", ikd)):
        parameters = inspect.signature(inspect.unwrap(build)).parameters
        defaults = {name: parameters[name].default for name in LABEL_DEFAULTS[task]}
        assert defaults == LABEL_DEFAULTS[task]


def test_the_report_lists_runs_in_one_order_whatever_order_the_logs_are_read(
    tmp_path: Path,
) -> None:
    """Every section's table: the models' runs, then the reference players', by name (here
    the players were run in another order, so the logs are read in it)."""
    for player in ("tom/always-a", "tom/gold", "tom/always-leak"):
        run("knp", player, tmp_path / "logs")
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "out" / "knp.csv")
    assert [label.split(" ")[0] for label in table["run"]] == [
        "tom/always-a",
        "tom/always-leak",
        "tom/gold",
    ]


def test_models_come_before_the_reference_players() -> None:
    from tom_eval.report.logs import in_run_order

    runs = ["tom/gold [default]", "openai/gpt-4.1 [default]", "tom/always-a [default]"]
    ordered = in_run_order(pd.DataFrame({"run": runs, "N": [1, 2, 3]}))
    assert ordered["run"].tolist() == [runs[1], runs[2], runs[0]]
    assert ordered["N"].tolist() == [2, 3, 1]
