"""The load ladder: every rung is a sound scenario carrying exactly its load, the task plays
it and logs the span, the report draws it, and `tom/bounded` breaks in the order of its
memory."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from matplotlib import pyplot as plt
from matplotlib.figure import Figure
from test_generation import ROWS, is_subsequence

from conftest import ROOT, inspect_eval
from tasks.tom import tom
from tom_eval.cli import main
from tom_eval.errors import InputError
from tom_eval.game import analysis, charts
from tom_eval.game.generation import generate_group
from tom_eval.game.ladder import DEFAULT_LEVELS, MAX_LEVEL, climb, climb_story, parse_levels
from tom_eval.game.narration import narrate
from tom_eval.game.report import _cut_note, _left_out_note
from tom_eval.game.validation import generator_violations, ladder_violations
from tom_eval.registry import report_sections
from tom_eval.report.charts import save
from tom_eval.report.writer import write_report


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    row=st.sampled_from(ROWS),
    rep=st.integers(min_value=1, max_value=10_000),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    ladder=st.sampled_from(("events", "ect")),
)
def test_every_rung_is_sound_and_carries_exactly_its_load(
    row: Any, rep: int, seed: int, ladder: str
) -> None:
    rungs = climb_story(row, rep, seed, ladder, DEFAULT_LEVELS)
    base = rungs[0].solution
    # The base story is the one the default run plays as Extra 0A.
    assert base.scenario == generate_group(row, rep, seed)["0A"].scenario
    assert [rung.level for rung in rungs] == list(DEFAULT_LEVELS[: len(rungs)])
    for below, rung in itertools.pairwise(rungs):
        solution = rung.solution
        assert generator_violations(row, solution) == []
        assert ladder_violations(ladder, base, rung.level, solution) == []
        # Each rung grows from the one below it, by events A perceives.
        assert is_subsequence(below.solution.scenario.events, solution.scenario.events)
        added = len(solution.scenario.events) - len(below.solution.scenario.events)
        assert (
            solution.assessment.visible_events - below.solution.assessment.visible_events == added
        )
        assert (
            len(narrate(solution.observation).splitlines())
            == 1 + solution.assessment.visible_events
        )
        assert solution.decision.optimal == base.decision.optimal
        assert solution.assessment.labels == base.assessment.labels
    if ladder == "events":
        assert len(rungs) == len(DEFAULT_LEVELS), "the events ladder reaches its top"


def test_filler_changes_no_characters_label() -> None:
    """Not only the spec row's three labels: at seed 0, Id 19's second rep once reached
    level 16 by a filler event that left D Unknown instead of Believes False."""
    (row,) = [row for row in ROWS if row.id == 19]
    rungs = climb_story(row, 2, 0, "events", DEFAULT_LEVELS)
    base = rungs[0].solution.assessment.labels
    assert [rung.solution.assessment.labels for rung in rungs] == [base] * len(rungs)


def test_the_events_ladder_reaches_its_highest_level_for_every_row() -> None:
    found = climb(ROWS, 1, 0, "events", (0, MAX_LEVEL))
    assert found.stopped == {}
    assert len(found.rungs) == 2 * len(ROWS)


def test_a_ladder_is_reproducible_whatever_the_workers_and_ordered_by_id_level_and_rep() -> None:
    rows = [row for row in ROWS if row.id in (7, 12)]
    first = climb(rows, 2, 3, "ect", (0, 2, 4), workers=1)
    again = climb(rows, 2, 3, "ect", (0, 2, 4), workers=2)
    assert [(rung.key, rung.solution.scenario) for rung in first.rungs] == [
        (rung.key, rung.solution.scenario) for rung in again.rungs
    ]
    assert first.stopped == again.stopped
    keys = [rung.key for rung in first.rungs]
    assert keys[:3] == ["7-ect0-r1", "7-ect0-r2", "7-ect2-r1"]


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ("2,4", "levels must include 0"),
        ("0", "needs a level above 0"),
        ("0,-2", "whole numbers from 0, not '-2'"),
        ("0,x", "whole numbers from 0, not 'x'"),
        ("0,²", "whole numbers from 0"),
        (f"0,{MAX_LEVEL + 1}", f"levels go up to {MAX_LEVEL}"),
        ("0," + "9" * 5000, f"levels go up to {MAX_LEVEL}"),
    ],
)
def test_bad_levels_are_named(levels: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_levels(levels)
    with pytest.raises(PrerequisiteError, match=message):
        tom(ids="12", reps=1, ladder="events", levels=levels)


def test_levels_read_as_text_numbers_or_lists() -> None:
    assert parse_levels("8, 0,2,2") == (0, 2, 8)
    assert parse_levels([0, "4"]) == (0, 4)
    assert parse_levels("0,2,4,8,16,32") == DEFAULT_LEVELS


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"ladder": "steps"}, "ladder must be one of events, ect, not 'steps'"),
        ({"ladder": "events", "mode": "game"}, "a ladder is played in trial mode: drop mode$"),
        ({"ladder": "events", "scenario_file": "x.jsonl"}, "is generated: drop scenario_file$"),
        ({"levels": "0,4"}, "levels is for a load ladder"),
        # Refused before anything is climbed, as generation refuses too many scenarios.
        (
            {"ladder": "events", "reps": 100_000},
            "1 Ids x 100,000 reps x 6 levels is 600,000 rungs; at most 200,000",
        ),
    ],
)
def test_ladder_parameters_are_refused_in_one_line(args: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError, match=message):
        tom(**{"ids": "12", "reps": 1, **args})


def ladder_run(tmp_path: Path, model: Any, **task_args: Any) -> EvalLog:
    args = {"ids": "7-24", "reps": 2, "ladder": "events", "levels": "0,2,8,32", **task_args}
    (log,) = inspect_eval(tom(**args), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log


def ladder_metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    (score,) = [score for score in log.results.scores if "span" in score.metrics]
    return {name: metric.value for name, metric in score.metrics.items()}


def test_the_log_carries_each_level_and_the_span(tmp_path: Path) -> None:
    log = ladder_run(tmp_path, "tom/oracle")
    samples = log.samples or []
    assert len(samples) == 18 * 2 * 4
    assert {sample.metadata["level"] for sample in samples} == {0, 2, 8, 32}
    assert {sample.metadata["ladder"] for sample in samples} == {"events"}
    assert "7-events32-r2" in {sample.id for sample in samples}
    assert log.eval.metadata is not None
    assert log.eval.metadata["levels"] == [0, 2, 8, 32]
    metrics = ladder_metrics(log)
    assert [metrics[f"level_{level}"] for level in (0, 2, 8, 32)] == [1.0] * 4
    assert metrics["span"] == math.inf, "the oracle is beyond the ladder"
    assert metrics["level_0_low"] < 1.0 == metrics["level_0_high"]


def test_a_constant_policy_has_no_span(tmp_path: Path) -> None:
    metrics = ladder_metrics(ladder_run(tmp_path, "tom/always-pass"))
    assert metrics["level_0"] == pytest.approx(1 / 3)
    assert math.isnan(metrics["span"]) and math.isnan(metrics["span_low"])


def test_bounded_memory_breaks_in_order_and_the_report_draws_the_curves(tmp_path: Path) -> None:
    """tom/bounded keeps only the last K events: the more it keeps, the longer its span."""
    spans, logs = {}, {}
    for memory in (2, 16):
        model = get_model("tom/bounded", memory=memory)
        levels = "0,2,4,8,16,32"  # 20 of the 39 base stories: two thirds of the time
        log = ladder_run(tmp_path / str(memory), model, ids="all", reps=1, levels=levels, sample=20)
        spans[memory], logs[memory] = ladder_metrics(log)["span"], log
    assert 0 < spans[2] < spans[16]
    out = tmp_path / "report"
    report, _ = write_report([tmp_path], report_sections(), out)
    text = report.read_text()
    assert "## Load ladder" in text
    assert (out / "load_curves.png").stat().st_size > 0
    # The rungs are all Extra 0A: no load effect between Extras to draw.
    assert not list(out.glob("load_effects_*.png")) and "Load effects" not in text
    assert "memory=2" in text and "memory=16" in text
    # A rung above level 0 is no Extra: the summary's 0A is level 0 alone.
    summary = pd.read_csv(out / "summary.csv").set_index("model_settings")
    for memory, log in logs.items():
        level_0 = [s for s in log.samples or [] if s.metadata["level"] == 0]
        values = [cast(dict[str, float], (s.scores or {})["tom_scorer"].value) for s in level_0]
        optimal = [value["optimal"] for value in values]
        assert summary.loc[f"memory={memory}", "0A"] == pytest.approx(
            sum(optimal) / len(optimal), abs=5e-4
        )
        assert summary.loc[f"memory={memory}", "0A_n"] == len(level_0)


def test_the_report_counts_the_stories_that_stopped_below_the_top(tmp_path: Path) -> None:
    args = {"ids": "2-9", "reps": 1, "ladder": "ect", "levels": "0,1,2", "sample": 2}
    log = ladder_run(tmp_path, "tom/oracle", **args)
    assert log.eval.metadata is not None
    # An odd ECT level stops most stories; the task lists every story it climbed, of which
    # the subset plays two.
    assert len(log.eval.metadata["ladder_stopped"]) > 2
    report, _ = write_report([tmp_path], report_sections(), tmp_path / "report")
    text = report.read_text()
    assert "| stopped below the top |" in text
    assert "(2 of 2)" in text and "Not every base story reached the top" in text


def played_rungs(tmp_path: Path, sample_id: list[str]) -> str:
    """The report of a ladder run of the tom/oracle that played only `sample_id`."""
    args: dict[str, Any] = {"ids": "7-24", "reps": 1, "ladder": "events", "levels": "0,2,8"}
    (log,) = inspect_eval(
        tom(**args), model="tom/oracle", log_dir=str(tmp_path), display="none", sample_id=sample_id
    )
    assert log.status == "success", log.error
    report, _ = write_report([tmp_path], report_sections(), tmp_path / "report")
    return report.read_text()


def test_levels_that_lack_a_class_are_named_as_left_out(tmp_path: Path) -> None:
    """`--limit` that cuts the only Tell story after level 2 leaves levels 8 without Tell: the
    report names it, rather than silently measuring a shorter ladder."""
    every_level = [f"{id}-events{level}-r1" for id in (7, 8, 12, 13) for level in (0, 2, 8)]
    text = played_rungs(tmp_path, [*every_level, "17-events0-r1", "17-events2-r1"])
    assert "**Levels played but left out** in tom/oracle" in text
    assert "(levels 8: `--limit` cut" in text
    # One story a class: its interval cannot show the uncertainty.
    assert "**Few base stories in a class** in tom/oracle" in text
    assert "(Ask Teammate: 2, Pass: 2, Tell Teammate: 1)" in text
    spans = pd.read_csv(tmp_path / "report" / "ladder_spans.csv")
    assert spans["left out"].astype(str).tolist() == ["8"]


def test_levels_missing_stories_of_level_0_are_named(tmp_path: Path) -> None:
    """`--limit` that cuts two stories' top rungs leaves every class at level 8, but not
    level 0's stories: the report says the span compares different stories."""
    played = [f"{id}-events{level}-r1" for id in (7, 8, 12, 13, 17) for level in (0, 2)]
    text = played_rungs(tmp_path, [*played, "7-events8-r1", "12-events8-r1", "17-events8-r1"])
    assert "**Levels missing stories of level 0** in tom/oracle" in text and "(levels 8)" in text
    assert "left out" not in text
    spans = pd.read_csv(tmp_path / "report" / "ladder_spans.csv")
    assert spans["cut"].astype(str).tolist() == ["8"]


def test_the_load_curves_benchmark_refuses_bad_levels_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/load_curves.py", "--levels", "0,65", "--models", "tom/oracle"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (2, "load_curves.py: levels go up to 64, not 65\n")


def test_a_story_that_stopped_is_expected_up_to_the_level_it_reached() -> None:
    """A stopped story missing below the level it reached was cut, not stopped."""
    base, reached = {"7-r1", "8-r1", "12-r1"}, {"8-r1": 2.0}
    assert analysis._climbed_to(2.0, base, reached) == base
    assert analysis._climbed_to(4.0, base, reached) == {"7-r1", "12-r1"}


def test_levels_left_out_name_their_cause() -> None:
    """A level left out because its stories stopped climbing is not blamed on `--limit`."""
    spans = pd.DataFrame(
        {
            "run": ["stopped", "limited", "both"],
            "left out": ["1,2", "8", "2,8"],
            "cut": ["", "8", "4,8"],
        }
    )
    text = "\n".join(_left_out_note(spans))
    assert "stopped (levels 1,2: their stories stopped climbing below them)" in text
    assert "limited (levels 8: `--limit` cut the base stories' rungs short" in text
    assert (
        "both (levels 8: `--limit` cut the base stories' rungs short, or samples failed; "
        "levels 2: their stories stopped climbing below them)"
    ) in text
    # A level cut but not left out is named by the other note, run by run.
    assert "both (levels 4)" in "\n".join(_cut_note(spans))


def test_a_run_without_level_0_says_so(tmp_path: Path) -> None:
    text = played_rungs(tmp_path, [f"{id}-events8-r1" for id in (7, 8, 12, 13, 17)])
    assert "none (no level-0 trials: a span is measured from level 0)" in text
    row = next(line for line in text.splitlines() if line.startswith("| tom/oracle"))
    assert "| n/a |" in row
    assert math.isnan(pd.read_csv(tmp_path / "report" / "ladder_spans.csv")["level 0"][0])


def test_levels_written_in_another_order_are_one_run(tmp_path: Path) -> None:
    for levels in ("0,2", "2,0"):
        ladder_run(tmp_path, "tom/oracle", ids="7-8", reps=1, levels=levels)
    write_report([tmp_path], report_sections(), tmp_path / "report")
    spans = pd.read_csv(tmp_path / "report" / "ladder_spans.csv")
    assert len(spans) == 1 and spans["trials"].tolist() == [4]


def test_a_ladder_of_one_expected_action_is_reported_as_such(tmp_path: Path) -> None:
    """A ladder of Pass stories alone (`--limit 30` plays Id 1's) has no span because chance
    is then 1: the report says so, not 'at chance' beside a level-0 accuracy of 1."""
    ladder_run(tmp_path, "tom/oracle", ids="1", reps=1, levels="0,2")
    report, _ = write_report([tmp_path], report_sections(), tmp_path / "report")
    assert pd.read_csv(tmp_path / "report" / "ladder_spans.csv")["classes"].tolist() == [1]
    assert "none (one expected action only: -T sample=N plays all three)" in report.read_text()


def test_runs_of_other_levels_are_flagged_and_kept_out_of_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A span is interpolated between the levels around it, so runs of other levels are not
    on one scale; and --compare would pool a ladder's levels by Id as if they were Extras."""
    model = get_model("tom/bounded", memory=4)
    for levels in ("0,2,4,8", "0,2,16"):
        ladder_run(tmp_path / "logs", model, ids="7-12", reps=1, levels=levels)
    report, _ = write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    text = report.read_text()
    assert "**These runs climbed different ladders or levels**" in text
    assert ": events 0,2,16" in text and ": events 0,2,4,8" in text
    assert " at 16 |" in text and " at 8 |" in text
    # An ECT ladder of the same levels as one of them is not on its scale either.
    ladder_run(tmp_path / "logs", model, ids="7-12", reps=1, levels="0,2,16", ladder="ect")
    report, _ = write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    assert ": ect 0,2,16" in report.read_text()
    trial = tmp_path / "trial"
    inspect_eval(tom(ids="7-12", reps=1), model="tom/oracle", log_dir=str(trial), display="none")
    command = ["report", "--compare", str(tmp_path / "logs"), str(trial), "--out", str(tmp_path)]
    assert main(command) == 2
    assert "holds a load ladder, whose samples are load levels" in capsys.readouterr().err
    assert not (tmp_path / "compare.md").exists()


def test_a_ladder_whose_stories_stop_says_so_when_the_task_is_built(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A run whose upper levels lack stories shows a span of NaN, which reads as a model at
    chance: the task warns before it runs, not only the report after."""
    tom(ids="2-5", reps=1, ladder="ect", levels="0,1,2")
    (warning,) = [
        record.getMessage() for record in caplog.records if "ladder=" in record.getMessage()
    ]
    assert (
        warning.startswith("ladder=ect: ") and " of 4 base stories could not be climbed" in warning
    )
    assert "level 2 (they stopped: 2 at level 0, 2 at level 1), so" in warning
    assert warning.endswith("(use even levels on the ECT ladder)")
    caplog.clear()
    tom(ids="2-5", reps=1, ladder="events", levels="0,2")
    assert not [record for record in caplog.records if "ladder=" in record.getMessage()]


def test_the_ladder_table_lists_models_before_reference_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As every table of the report: a model named after "tom/" in the alphabet too. The
    chart's legend follows the table."""
    from inspect_ai.log import read_eval_log, write_eval_log

    legends: list[list[str]] = []

    def keep(figure: Figure, path: Path) -> Path:
        if path.name == "load_curves.png":
            legend = figure.axes[0].get_legend()
            assert legend is not None
            legends.append([text.get_text() for text in legend.get_texts()])
        return save(figure, path)

    monkeypatch.setattr(charts, "save", keep)

    log = ladder_run(tmp_path, "tom/oracle", ids="7-9", reps=1, levels="0,2")
    copy = read_eval_log(log.location)
    copy.eval.model, copy.eval.eval_id, copy.eval.run_id = "vllm/fake", "copy", "copy"
    for number, sample in enumerate(copy.samples or []):
        sample.uuid = f"copy-{number}"
    write_eval_log(copy, str(tmp_path / "copy.eval"))
    write_report([tmp_path], report_sections(), tmp_path / "report")
    spans = pd.read_csv(tmp_path / "report" / "ladder_spans.csv")
    assert [run.split(" ")[0] for run in spans["run"]] == ["vllm/fake", "tom/oracle"]
    [legend] = legends
    runs = [label for label in legend if not label.startswith("chance")]
    assert [label.split(" ")[0] for label in runs] == ["vllm/fake", "tom/oracle"]


def test_the_curves_mark_the_chance_of_the_runs_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder of two expected actions (`-T sample=2`) is at chance at 1/2, as its span
    says: the chart marks that line, not 1/3."""
    legends: list[list[str]] = []

    def keep(figure: Figure, path: Path) -> Path:
        legend = figure.axes[0].get_legend()
        assert legend is not None
        legends.append([text.get_text() for text in legend.get_texts()])
        return save(figure, path)

    monkeypatch.setattr(charts, "save", keep)
    shares = {0.0: (0.9, 0.8, 1.0, 10), 4.0: (0.6, 0.5, 0.7, 10)}
    charts.load_curves({"run": shares}, tmp_path / "curves.png", "title", {1, 2})
    # One expected action has no chance to fall to: no line at 1.
    assert legends == [["chance (1/2, 2 expected actions)", "run"]]


def test_long_run_labels_keep_the_load_curves_as_wide_as_short_ones(tmp_path: Path) -> None:
    """Two columns of long labels (a run's settings) would widen the saved image and shrink
    the plot beside the legend; they take one column."""
    shares = {0.0: (0.9, 0.8, 1.0, 10), 4.0: (0.6, 0.5, 0.7, 10)}
    widths = []
    for label in ("run {}", "tom/bounded [memory={}] (choice, ids=7-24, reps=1, levels=0,2,8)"):
        curves = {label.format(memory): shares for memory in (2, 4, 8)}
        path = charts.load_curves(curves, tmp_path / "curves.png", "title", {3})
        widths.append(plt.imread(path).shape[1])
    assert widths[0] == widths[1]
