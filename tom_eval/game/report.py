"""The game's section of `tom-eval report`: tables inline, figures linked, a CSV per table.

Trial-mode runs get the summary, mastery, charts, error analysis and reasoning sections;
game-mode runs (whole games) a section of their own, "Full games". `write_comparison` is
`tom-eval report --compare`."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from pathlib import Path

import pandas as pd

from tom_eval.errors import InputError
from tom_eval.files import write_atomically
from tom_eval.game import analysis, charts
from tom_eval.game.epistemics import observe
from tom_eval.game.narration import narrate, question_line
from tom_eval.game.scenario_file import read_story_fields
from tom_eval.game.spec import EXTRAS, read_mastery, slug
from tom_eval.report.section import Context
from tom_eval.report.stats import EPOCHS_AS_TRIALS
from tom_eval.report.tables import code_block, csv, intervals, make_folder, markdown

SUMMARY_TEXT = (
    "Balanced accuracy is the mean over expected-action classes (Pass, Ask Teammate, Tell "
    "Teammate) of the share optimal: always passing scores 1/3 whatever the mix of the "
    "three. Intervals "
    "are 95% (Wilson for shares; adjusted Wald of Price and Bonett for balanced accuracy). "
    f"Trials are sample-epochs: {EPOCHS_AS_TRIALS}. Plain is the share optimal; lies okay "
    "also counts a lie to an answering opponent; invalid is the share of unreadable replies "
    "(scored not optimal); regret is the mean value lost against the optimal action; 0A to "
    "1B are the share optimal by Extra, Self, Teammate and Opponent by who answers. "
    "summary.csv adds points, answer_correct over the trials where A answers "
    "(answer_correct_n), and the gratuitous-lie rate: of the trials where an answering "
    "opponent already believes something false (gratuitous_lie_n), the share where A lies "
    "to it."
)
MASTERY_TEXT = (
    "Each category is a weighted share of successes over its components' scenarios "
    "(scenarios/mastery.yaml, the reference implementation's weights), with a 95% interval "
    "(the adjusted Wald of Price and Bonett, as for balanced accuracy); per Extra in "
    "mastery.csv."
)
LADDER_TEXT = (
    "Load ladders (docs/ladder.md): the same base stories at rising load. The span is the "
    "level at which the measured balanced accuracy, made non-increasing and interpolated "
    "between levels, has fallen halfway from its level-0 value to chance (1/3 with the "
    "three expected actions), with a 95% bootstrap interval over base stories; 'beyond' "
    "means it stays above that mark up to the ladder's top, 'none' that level 0 is not "
    "above chance, that no level above it holds every expected action, or that the run "
    "plays one expected action only (its chance is then 1)."
)
GAMES_TEXT = (
    "Game mode: one row per run; each game is a race to the winning score by Blue (A and "
    "its teammate B) against Red. Win, tie and loss are Blue's shares of the games; margin "
    "is Blue's final score minus Red's; turns played is a mean (a game ends early "
    "once a team reaches the winning score after a full round). Optimal, balanced and "
    "invalid pool every turn A played itself over all games, scored as trials are. Answer "
    "correct, the replies to opponents' asks and fooled (repeating an opponent's lie) are "
    "means over the games that gave the occasion. Intervals are 95%, as in the summary; "
    "turns of one game are not independent, so the pooled intervals are too narrow."
)


class GameReport:
    """The Ask/Tell/Pass game's section of `tom-eval report`."""

    tasks: tuple[str, ...] = analysis.TASK_NAMES

    def write(self, evals: pd.DataFrame, context: Context) -> list[str]:
        results = analysis.results(evals, context.warnings, context.quiet)
        lines = []
        if not results.runs.empty:
            lines += [
                # The game's runs only: the other tasks' sections count their own.
                f"Game runs (trial mode): {len(results.runs)}, of which "
                f"{int(results.runs['baseline'].sum())} reference players; trials: "
                f"{len(results.samples)}.",
                "",
            ]
        games = analysis.game_summary(results)
        if not games.empty:
            lines += [
                f"Game-mode runs: {len(games)}, of which {int(games['baseline'].sum())} "
                f"reference players; games: {len(results.games)}.",
                "",
            ]
        if not results.runs.empty:
            lines += _trial_sections(results, context.out, context.examples)
        if not games.empty:
            csv(games, context.out / "games.csv")
            lines += ["## Full games", "", GAMES_TEXT, "", markdown(_games_view(games)), ""]
        return lines


def _trial_sections(results: analysis.Results, out: Path, examples: int) -> list[str]:
    """The sections of trial-mode runs: summary, mastery, charts, errors, reasoning. Runs
    on other scenario sets are compared and pooled only within their set."""
    table = analysis.summary(results)
    mastery = analysis.mastery(results)
    lines = ["## Summary", "", SUMMARY_TEXT, ""]
    lines += [markdown(_summary_view(table)), ""]
    lines += _missing_classes_note(analysis.missing_classes(results))
    csv(table, out / "summary.csv")
    lines += ["## Mastery categories", "", MASTERY_TEXT, ""]
    lines += [markdown(_mastery_view(mastery, table)), ""]
    csv(mastery, out / "mastery.csv")
    groups = list(table.groupby(["format", "scenario_set"], sort=True))
    lines += ["## Charts", ""]
    for index, ((fmt, chosen), runs) in enumerate(groups):
        name = f"{fmt}_{index + 1}" if len(groups) > 1 else str(fmt)
        lines += _charts(results, runs, mastery, f"{fmt} format, {chosen}", name, out)
    lines += ["## Error analysis", ""]
    sets = list(table.groupby("scenario_set", sort=True))
    for index, (chosen, runs) in enumerate(sets):
        if len(sets) > 1:
            lines += [f"### Scenario set: {chosen!s}", ""]
        name = f"_{index + 1}" if len(sets) > 1 else ""
        lines += _errors(results, runs, name, out, examples)
    lines += _ladder(results, table, out)
    reasoning = analysis.reasoning(results)
    csv(reasoning, out / "reasoning.csv")
    lines += ["## Reasoning", ""]
    lines += [markdown(reasoning) if not reasoning.empty else "No run has reasoning content.", ""]
    return lines


def _missing_classes_note(missing: dict[str, list[str]]) -> list[str]:
    """A warning under the summary for runs whose balanced accuracy lacks a class."""
    if not missing:
        return []
    runs = "; ".join(f"{run} (no {' or '.join(absent)})" for run, absent in missing.items())
    return [
        f"**Not every expected action is played** in {runs}: balanced accuracy there is over "
        "the classes present, and a constant policy can score above 1/3. `--limit N` plays "
        "the first Ids; `-T sample=N` draws a subset balanced over the three classes.",
        "",
    ]


def _ladder(results: analysis.Results, table: pd.DataFrame, out: Path) -> list[str]:
    """The spans of the ladder runs, and their curves in one chart."""
    spans = analysis.ladder_spans(results)
    if spans.empty:
        return []
    csv(spans, out / "ladder_spans.csv")
    runs = table[table["run"].isin(spans["run"])]
    labels = charts.short_labels(runs)
    title = str(runs["setting"].iloc[0]) if runs["setting"].nunique() == 1 else ""
    # In the table's order (`in_run_order`), as the legend and the notes below it.
    by_run = analysis.ladder_curves(results)
    curves = {labels[run]: by_run[run] for run in spans["run"]}
    chart = charts.load_curves(curves, out / "load_curves.png", title, set(spans["classes"]))
    view = pd.DataFrame(
        {
            "run": spans["run"],
            "span [95%]": [_span_text(row) for row in spans.to_dict("records")],
            "level 0": spans["level 0"],  # `markdown` shows NaN (no level-0 trials) as n/a
            "top level": [
                f"{accuracy:.3f} at {top:g}"
                for accuracy, top in zip(spans["top level"], spans["top"], strict=True)
            ],
            "base stories": spans["stories"],
            "stopped below the top": spans["stopped"],
            "trials": spans["trials"],
        }
    )
    return [
        "## Load ladder",
        "",
        LADDER_TEXT,
        "",
        markdown(view),
        "",
        *_stopped_note(spans),
        *_left_out_note(spans),
        *_cut_note(spans),
        *_levels_note(results, list(spans["run"])),
        *_few_stories_note(results, list(spans["run"])),
        f"![Load curves]({chart.name})",
        "",
    ]


def _stopped_note(spans: pd.DataFrame) -> list[str]:
    """A warning under the ladder table for runs whose stories did not all reach the top."""
    stopped = spans[spans["stopped"] > 0]
    if stopped.empty:
        return []
    runs = "; ".join(
        f"{run} ({count} of {stories})"
        for run, count, stories in stopped[["run", "stopped", "stories"]].to_numpy()
    )
    return [
        f"**Not every base story reached the top level** in {runs}: a story that cannot be "
        "climbed to a level stops below it, so the higher levels hold fewer stories, and the "
        "task's metadata (`ladder_stopped`) gives the level each reached. On the ECT ladder, "
        "odd levels are seldom reachable (docs/ladder.md): use even levels.",
        "",
    ]


def _left_out_note(spans: pd.DataFrame) -> list[str]:
    """A warning under the ladder table for runs with levels played but left out, each level
    with its cause: stories that stopped climbing below it, or rungs missing (`--limit`,
    failed samples)."""
    left_out_runs = spans[spans["left out"] != ""]
    if left_out_runs.empty:
        return []
    runs = "; ".join(
        f"{run} ({_left_out_causes(_levels(left_out), _levels(cut))})"
        for run, left_out, cut in left_out_runs[["run", "left out", "cut"]].to_numpy()
    )
    return [
        f"**Levels played but left out** in {runs}: an expected action of level 0 has no "
        "trial there, so their balanced accuracy is not comparable with level 0's; the span "
        "and the curve read the other levels. `-T sample=N` plays fewer stories at every "
        "level.",
        "",
    ]


def _left_out_causes(left_out: list[str], cut: list[str]) -> str:
    """Left-out levels grouped by cause: a level that lacks a story climbed to it was cut."""
    causes = {
        "`--limit` cut the base stories' rungs short, or samples failed": [
            level for level in left_out if level in cut
        ],
        "their stories stopped climbing below them": [
            level for level in left_out if level not in cut
        ],
    }
    return "; ".join(
        f"levels {','.join(levels)}: {cause}" for cause, levels in causes.items() if levels
    )


def _cut_note(spans: pd.DataFrame) -> list[str]:
    """A warning under the ladder table for levels that keep every expected action but lack
    stories of level 0 that climbed to them (`--limit` cut their rungs, or samples failed):
    those levels' shares are over other stories than level 0's."""
    runs = "; ".join(
        f"{run} (levels {','.join(only_cut)})"
        for run, left_out, cut in spans[["run", "left out", "cut"]].to_numpy()
        if (only_cut := _only_cut(left_out, cut))
    )
    if not runs:
        return []
    return [
        f"**Levels missing stories of level 0** in {runs}: `--limit` cut some base stories' "
        "rungs short, or samples failed, so those levels are measured on fewer stories than "
        "level 0 and the span compares different stories. `-T sample=N` plays fewer stories "
        "at every level.",
        "",
    ]


def _only_cut(left_out: str, cut: str) -> list[str]:
    """The levels of a run's `cut` entry that its `left out` entry does not list."""
    excluded = set(_levels(left_out))
    return [level for level in _levels(cut) if level not in excluded]


def _levels(listed: str) -> list[str]:
    """The levels of a `left out` or `cut` entry ("2,8"); none in an empty one."""
    return [level for level in listed.split(",") if level]


def _levels_note(results: analysis.Results, order: list[str]) -> list[str]:
    """A warning under the ladder table when its runs (in `order`) climbed different
    ladders or levels: the ladders load stories with different things, and a span is
    interpolated between the two levels around it, so spans are on one scale only with the
    same of both."""
    by_run = results.samples.dropna(subset=["level"]).groupby("run", sort=True)
    levels = by_run["level"].agg(
        lambda found: ",".join(f"{level:g}" for level in sorted(set(found)))
    )
    climbed = (by_run["ladder"].first().astype(str) + " " + levels).reindex(order)
    if climbed.nunique() < 2:
        return []
    runs = "; ".join(f"{run}: {ladder}" for run, ladder in climbed.items())
    return [
        f"**These runs climbed different ladders or levels** ({runs}). A span is "
        "interpolated between the two levels around it, and each ladder loads stories with "
        "its own kind of event, so spans compare only between runs of the same ladder and "
        "levels: the interval covers the choice of stories, not the gap between levels.",
        "",
    ]


FEW_STORIES = 5
"""Fewer base stories than this in an expected action's class make the span's bootstrap
interval (stories resampled within each class) too narrow to trust."""


def _few_stories_note(results: analysis.Results, order: list[str]) -> list[str]:
    """A warning under the ladder table for runs (in `order`) with a class of few base
    stories at level 0: resampling two stories gives few distinct draws, so the interval
    can have no width."""
    level_0 = results.samples[results.samples["level"] == 0]
    counts = level_0.groupby(["run", "expected_action"], sort=True)["base_story"].nunique()
    few = counts[counts < FEW_STORIES]
    if few.empty:
        return []
    runs: dict[str, list[str]] = {run: [] for run in order}
    for (run, action), stories in few.items():
        runs[str(run)].append(f"{action}: {stories}")
    named = "; ".join(f"{run} ({', '.join(classes)})" for run, classes in runs.items() if classes)
    return [
        f"**Few base stories in a class** in {named}: the interval resamples stories within "
        f"each expected action, and fewer than {FEW_STORIES} give so few distinct draws that it "
        "understates the uncertainty (it can have no width). More `-T reps` (the default "
        "spec has 2 Ask Teammate and 3 Tell Teammate stories a rep) widen it honestly.",
        "",
    ]


def _span_text(row: Mapping[Hashable, object]) -> str:
    """A span with its interval: 'none', 'beyond 32', or '6.2 [4.6, 9.1]' (an end past the
    ladder's top shows as 'beyond')."""
    if row["status"] == "none":
        classes = int(str(row["classes"]))
        if classes == 0:
            return "none (no level-0 trials: a span is measured from level 0)"
        # With one expected action, chance is that action's share (1), so nothing is lost.
        if classes < 2:
            return "none (one expected action only: -T sample=N plays all three)"
        if float(str(row["top"])) == 0:
            return "none (no level above 0 holds every expected action)"
        return f"none (level 0 is not clearly above chance: its 95% interval reaches 1/{classes})"

    def end(value: object) -> str:
        number = float(str(value))
        return "beyond" if number == math.inf else ("-" if math.isnan(number) else f"{number:.1f}")

    interval = f"[{end(row['low'])}, {end(row['high'])}]"
    if row["status"] == "beyond":
        return f"beyond {float(str(row['top'])):g} {interval}"
    return f"{float(str(row['span'])):.1f} {interval}"


def _errors(
    results: analysis.Results, runs: pd.DataFrame, name: str, out: Path, examples: int
) -> list[str]:
    """The error analysis of one scenario set, pooled over its model runs (its reference
    players when it has no model run)."""
    model_runs = list(runs.loc[~runs["baseline"], "run"]) or list(runs["run"])
    pooled = results.samples[results.samples["run"].isin(model_runs)]
    lines = [f"Pooled over {len(model_runs)} run(s): {', '.join(model_runs)}.", ""]
    confusion = analysis.confusion(pooled)
    csv(confusion, out / f"confusion{name}.csv")
    lines += ["#### Action confusion (failures only)", "", markdown(confusion), ""]
    features, constant = analysis.feature_comparison(pooled)
    csv(features, out / f"features{name}.csv")
    same = f" Left out, the same in every trial: {', '.join(constant)}." if constant else ""
    lines += [
        "#### Features of successes and failures",
        "",
        "Share of successes and of failures with each feature (for counts: the mean); "
        f"p from Fisher's exact test (Mann-Whitney for counts).{same}",
        "",
        markdown(features),
        "",
    ]
    scenarios = analysis.per_scenario(pooled)
    csv(scenarios, out / f"per_scenario{name}.csv")
    lines += ["#### Per scenario", "", markdown(scenarios), ""]
    return [*lines, "#### Failed examples", "", *_examples(pooled, examples)]


def write_comparison(first: analysis.Results, second: analysis.Results, out: Path) -> Path:
    """compare.md: per Id and per mastery category, B minus A, with p-values."""
    make_folder(out)
    by_id, by_category = analysis.compare(first.samples, second.samples)
    csv(by_id, out / "compare_by_id.csv")
    csv(by_category, out / "compare_by_category.csv")
    runs = [", ".join(results.runs["run"]) for results in (first, second)]
    lines = [
        "# tom-eval comparison",
        "",
        f"A: {runs[0]}  ",
        f"B: {runs[1]}",
        "",
        "Difference = B - A; p from a two-proportion z-test.",
        "",
        "## By Id",
        "",
        markdown(by_id),
        "",
        "## By mastery category",
        "",
        markdown(by_category),
        "",
    ]
    path = out / "compare.md"
    write_atomically(path, "\n".join(lines))
    return path


def _summary_view(table: pd.DataFrame) -> pd.DataFrame:
    view = pd.DataFrame(
        {
            "run": _marked(table["run"], table),
            "N": table["N"],
            "balanced": intervals(table, "balanced"),
            "plain": intervals(table, "plain"),
            "lies okay": intervals(table, "lies_okay"),
            "invalid": table["invalid"],
            "regret": table["regret"],
            "thinking": [
                _thinking(thinking, seen)
                for thinking, seen in zip(table["thinking"], table["reasoning_seen"], strict=True)
            ],
        }
    )
    if table["format_ok"].notna().any():
        view["format ok"] = table["format_ok"]
    for column in (*EXTRAS, *analysis.ANSWERER_ROLES):
        view[column] = table[column]
    return view


def _marked(names: pd.Series, table: pd.DataFrame) -> list[str]:
    """`names` of the rows of `table`, reference players' marked (baseline)."""
    marks = table["baseline"].map({True: " (baseline)", False: ""})
    return [str(name) + mark for name, mark in zip(names, marks, strict=True)]


def _thinking(setting: str, seen: float) -> str:
    """What the run was told (off, on, the provider's default) and what its log shows."""
    if seen > 0:
        return f"{setting}, reasoning in {seen:.0%} of trials"
    return f"{setting}, no reasoning recorded" if setting == "on" else setting


def _games_view(table: pd.DataFrame) -> pd.DataFrame:
    view = pd.DataFrame(
        {
            "model": _marked(table["model"] + " [" + table["model_settings"] + "]", table),
            "format": table["game"],
            "history": table["history"],
            "games": table["games"],
            "turns per game": table["turns_per_game"],
        }
    )
    for column in ("win", "tie", "loss"):
        view[column] = intervals(table, column)
    view["margin"] = table["margin"]
    view["turns played"] = table["turns"]
    view["A turns"] = table["a_turns"]
    for column in ("optimal", "balanced"):
        view[column] = intervals(table, column)
    view["invalid"] = table["invalid"]
    if table["format_ok"].notna().any():
        view["format ok"] = table["format_ok"]
    for column in analysis.GAME_OCCASIONS:
        view[column.replace("_", " ")] = table[column]
    return view


def _mastery_view(mastery: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Each category's score over the whole run with its 95% interval (per Extra in the
    CSV: five rows a run would drown many runs), the runs named and ordered as in the
    summary `table`."""
    overall = mastery[mastery["scope"] == "Overall"].set_index("run").loc[table["run"]]
    overall = overall.reset_index()
    view = pd.DataFrame({"run": _marked(table["run"], table)})
    for category in read_mastery().categories:
        view[category.name] = intervals(overall, slug(category.name))
    return view


def _charts(
    results: analysis.Results,
    runs: pd.DataFrame,
    mastery: pd.DataFrame,
    title: str,
    name: str,
    out: Path,
) -> list[str]:
    """The charts of one format and scenario set."""
    model_runs = list(runs.loc[~runs["baseline"], "run"]) or list(runs["run"])
    values, counts = analysis.id_by_extra(results, model_runs)
    made = [
        (
            "Model comparison",
            charts.model_comparison(runs, out / f"model_comparison_{name}.png", title),
        )
    ]
    # A load effect compares Extras: runs of one Extra each (a ladder, `-T extras=0A`) have
    # none to draw, only a point a run.
    played = (runs[[f"{extra}_n" for extra in EXTRAS]] > 0).sum(axis="columns")
    if (played > 1).any():
        chart = charts.load_effects(runs, out / f"load_effects_{name}.png", title)
        made.append(("Load effects", chart))
    mastery_chart = charts.mastery_heatmap(
        mastery[mastery["run"].isin(runs["run"])], runs, out / f"mastery_{name}.png", title
    )
    made.append(("Mastery per run", mastery_chart))
    # Empty when every sample of these runs counts in another run's (the same samples
    # logged again under other settings): no cell to draw.
    if not values.empty:
        heatmap = charts.id_by_extra_heatmap(
            values,
            counts,
            out / f"id_by_extra_{name}.png",
            f"Share optimal, pooled over {len(model_runs)} run(s), {title}",
        )
        made.append(("Id x Extra share optimal", heatmap))
    pairs = analysis.thinking_pairs(runs)
    if not pairs.empty:
        csv(pairs, out / f"thinking_pairs_{name}.csv")
        chart = charts.thinking_pairs(pairs, runs, out / f"thinking_{name}.png")
        made.append(("Thinking vs non-thinking", chart))
    lines = [f"### {title}", ""]
    lines += [f"![{caption}]({path.name})" for caption, path in made]
    if not pairs.empty:
        lines += ["", "Thinking vs non-thinking pairs:", "", markdown(pairs)]
    return [*lines, ""]


def _examples(trials: pd.DataFrame, count: int) -> list[str]:
    failures = trials[trials["optimal"] < 1]
    if failures.empty:
        return ["No failures.", ""]
    if count == 0:
        return ["(not shown: --examples 0)", ""]
    # Round-robin over runs, so every run shows its first failures.
    order = failures.groupby("run", sort=False).cumcount()
    failed = failures.assign(order=order).sort_values(["order"], kind="stable").head(count)
    lines: list[str] = []
    for row in failed.to_dict("records"):
        try:
            scenario = read_story_fields(row["story"], row["sample"])
        except InputError as error:  # only an edited log holds such a story
            raise InputError(f"{row['log']}: sample {error}; was the log edited?") from None
        observation = observe(scenario)
        lines += [
            f"**{row['sample']}** ({row['run']}, epoch {row['epoch']}): "
            f"expected `{row['optimal_action']}`, chose `{row['chosen']}`",
            "",
            "```",
            narrate(observation),
            question_line(observation),
            "```",
            "",
            *_options_shown(row["options"]),
            "Reply:",
            "",
            *code_block(str(row["raw_action"]).strip() or "(empty)"),
            "",
        ]
    return lines


def _options_shown(options: list[str]) -> list[str]:
    """The lettered options of a choice-format sample, so a bare letter can be read."""
    if not options:
        return []
    lettered = [f"{chr(ord('A') + index)}) {option}" for index, option in enumerate(options)]
    return ["Options:", "", "```", *lettered, "```", ""]
