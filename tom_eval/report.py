"""`tom-eval report`: report.md with tables inline and figures linked, a CSV per table, PNGs.

Trial-mode runs get the summary, mastery, charts, error analysis and reasoning sections;
game-mode runs (whole games) a section of their own, "Full games"."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from tom_eval import analysis, charts
from tom_eval.coherence import report as coherence_report
from tom_eval.epistemics import observe
from tom_eval.errors import InputError
from tom_eval.false_belief import report as false_belief_report
from tom_eval.mastery import slug
from tom_eval.narration import narrate, question_line
from tom_eval.scenario_file import read_story_fields
from tom_eval.spec import EXTRAS, read_mastery

SUMMARY_TEXT = (
    "Balanced accuracy is the mean over expected-action classes (Pass, Ask Teammate, Tell "
    "Teammate) of the share optimal: always passing scores 1/3 whatever the mix. Intervals "
    "are 95% (Wilson for shares; Agresti-Caffo-adjusted normal for balanced accuracy). "
    "Trials are sample-epochs: with several epochs of a near-deterministic model the "
    "intervals are too narrow."
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


def write_report(results: analysis.Results, out: Path, examples: int = 5) -> Path:
    """Everything `tom-eval report` writes; returns the path of report.md."""
    _make_folder(out)
    lines = ["# tom-eval report", ""]
    if not results.runs.empty:
        lines += [
            f"Runs: {len(results.runs)}, of which {int(results.runs['baseline'].sum())} "
            f"reference players; trials: {len(results.samples)}.",
            "",
        ]
    games = analysis.game_summary(results)
    if not games.empty:
        lines += [
            f"Game-mode runs: {len(games)}, of which {int(games['baseline'].sum())} "
            f"reference players; games: {len(results.games)}.",
            "",
        ]
    lines += [f"> warning: {warning}" for warning in results.warnings]
    if not results.runs.empty:
        lines += _trial_sections(results, out, examples)
    if not games.empty:
        _csv(games, out / "games.csv")
        lines += ["## Full games", "", GAMES_TEXT, "", _markdown(_games_view(games)), ""]
    if not results.false_belief.empty:
        lines += _false_belief_section(results, out)
    if not results.coherence.empty:
        lines += _coherence_section(results.coherence, out)
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _trial_sections(results: analysis.Results, out: Path, examples: int) -> list[str]:
    """The sections of trial-mode runs: summary, mastery, charts, errors, reasoning."""
    table = analysis.summary(results)
    mastery = analysis.mastery(results)
    model_runs = list(table.loc[~table["baseline"], "run"]) or list(table["run"])
    pooled = results.samples[results.samples["run"].isin(model_runs)]
    lines = ["## Summary", "", SUMMARY_TEXT, ""]
    lines += [_markdown(_summary_view(table)), ""]
    _csv(table, out / "summary.csv")
    lines += ["## Mastery categories", "", _markdown(_mastery_view(mastery)), ""]
    _csv(mastery, out / "mastery.csv")

    lines += ["## Charts", ""]
    for fmt in sorted(table["format"].unique()):
        lines += _charts(results, table, mastery, fmt, out)

    lines += [
        "## Error analysis",
        "",
        f"Pooled over {len(model_runs)} run(s): {', '.join(model_runs)}.",
        "",
    ]
    confusion = analysis.confusion(pooled)
    _csv(confusion, out / "confusion.csv")
    lines += ["### Action confusion (failures only)", "", _markdown(confusion), ""]
    features = analysis.feature_comparison(pooled)
    _csv(features, out / "features.csv")
    lines += [
        "### Features of successes and failures",
        "",
        "Share of successes and of failures with each feature (for counts: the mean); "
        "p from Fisher's exact test (Mann-Whitney for counts).",
        "",
        _markdown(features),
        "",
    ]
    scenarios = analysis.per_scenario(pooled)
    _csv(scenarios, out / "per_scenario.csv")
    lines += ["### Per scenario", "", _markdown(scenarios), ""]
    lines += ["### Failed examples", "", *_examples(pooled, examples)]

    reasoning = analysis.reasoning(results)
    _csv(reasoning, out / "reasoning.csv")
    lines += ["## Reasoning", ""]
    lines += [_markdown(reasoning) if not reasoning.empty else "No run has reasoning content.", ""]
    return lines


def _false_belief_section(results: analysis.Results, out: Path) -> list[str]:
    """The battery's table per run and, where recorded, its sentence-by-sentence curves."""
    table = false_belief_report.summary(results.false_belief)
    _csv(table, out / "false_belief.csv")
    view = pd.DataFrame(
        {
            "run": table["run"],
            "tasks": table["tasks"],
            "solved": [
                _interval(v, lo, hi)
                for v, lo, hi in zip(
                    table["solved"], table["solved_low"], table["solved_high"], strict=True
                )
            ],
        }
    )
    for column in (
        "solved_contents",
        "solved_transfer",
        "prompts",
        "false_belief_belief",
        "controls",
        "reality",
        "belief",
        "original",
        "reversed",
        "perturbations",
    ):
        view[column.replace("_", " ")] = table[column].map(_cell)
    view["estimators"] = table["estimators"]
    lines = [
        "## False-belief battery",
        "",
        false_belief_report.PAPER,
        "",
        "Shares are over the standard stories' prompts (false belief belief: the belief "
        "prompts of the false-belief stories; controls: every prompt of the true-belief "
        "controls); perturbations are scored apart. The solved interval is Wilson's, 95%.",
        "",
        _markdown(view),
        "",
    ]
    steps = results.false_belief_steps
    for index, run in enumerate(steps["run"].unique() if not steps.empty else []):
        path = false_belief_report.sentence_curves(
            steps, str(run), out / f"sentences_{index + 1}.png"
        )
        if path is None:
            lines += [
                f"{run}: sentence by sentence without probabilities (estimator "
                "first_word); run it with -T estimator=logprobs or sampling.",
                "",
            ]
        else:
            lines += [f"![Sentence by sentence: {run}]({path.name})", ""]

    return lines


def _coherence_section(table: pd.DataFrame, out: Path) -> list[str]:
    """The coherence evaluations per run, and Figure 3's three panels."""
    _csv(table, out / "coherence.csv")
    columns = ["items", *coherence_report.VALUES]
    evaluations = [column for column in table.columns if column not in ("run", *columns)]
    view = table.set_index("run")[columns + evaluations].T.reset_index(names="value")
    path = coherence_report.figure_3(table, out / "coherence.png")
    return [
        "## Coherence of action prediction and inference",
        "",
        coherence_report.PAPER,
        "",
        "Per run: the items read, the share whose reply gives an answer (`reply_answers`), "
        "whose distribution was read (`read`) and read from log-probabilities "
        "(`by_logprobs`); then the Bayesian correlations (`_r` Pearson, `_rho` Spearman), "
        "validity, cross-domain consistency and agreement with the rational agent.",
        "",
        _markdown(view.map(_cell)),
        "",
        f"![Coherence, as the paper's Figure 3]({path.name})",
        "",
    ]


def write_comparison(first: analysis.Results, second: analysis.Results, out: Path) -> Path:
    """compare.md: per Id and per mastery category, B minus A, with p-values."""
    _make_folder(out)
    by_id, by_category = analysis.compare(first.samples, second.samples)
    _csv(by_id, out / "compare_by_id.csv")
    _csv(by_category, out / "compare_by_category.csv")
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
        _markdown(by_id),
        "",
        "## By mastery category",
        "",
        _markdown(by_category),
        "",
    ]
    path = out / "compare.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"{out}: cannot write the report there ({error.strerror})") from None


def _summary_view(table: pd.DataFrame) -> pd.DataFrame:
    view = pd.DataFrame(
        {
            "run": table["run"] + table["baseline"].map({True: " (baseline)", False: ""}),
            "N": table["N"],
            "balanced": [
                _interval(*row)
                for row in table[["balanced", "balanced_low", "balanced_high"]].to_numpy()
            ],
            "plain": [
                _interval(*row) for row in table[["plain", "plain_low", "plain_high"]].to_numpy()
            ],
            "lies okay": [
                _interval(*row)
                for row in table[["lies_okay", "lies_okay_low", "lies_okay_high"]].to_numpy()
            ],
            "invalid": table["invalid"],
        }
    )
    for column in (*EXTRAS, *analysis.ANSWERER_ROLES):
        view[column] = table[column]
    return view


def _games_view(table: pd.DataFrame) -> pd.DataFrame:
    view = pd.DataFrame(
        {
            "model": table["model"]
            + " ["
            + table["reasoning"]
            + "]"
            + table["baseline"].map({True: " (baseline)", False: ""}),
            "format": table["game"],
            "history": table["history"],
            "games": table["games"],
            "turns per game": table["turns_per_game"],
        }
    )
    for column in ("win", "tie", "loss"):
        view[column] = _intervals(table, column)
    view["margin"] = table["margin"]
    view["turns played"] = table["turns"]
    view["A turns"] = table["a_turns"]
    for column in ("optimal", "balanced"):
        view[column] = _intervals(table, column)
    view["invalid"] = table["invalid"]
    for column in analysis.GAME_OCCASIONS:
        view[column.replace("_", " ")] = table[column]
    return view


def _intervals(table: pd.DataFrame, name: str) -> list[str]:
    return [_interval(*row) for row in table[[name, f"{name}_low", f"{name}_high"]].to_numpy()]


def _mastery_view(mastery: pd.DataFrame) -> pd.DataFrame:
    names = {slug(category.name): category.name for category in read_mastery().categories}
    return mastery.rename(columns=names)


def _charts(
    results: analysis.Results, table: pd.DataFrame, mastery: pd.DataFrame, fmt: str, out: Path
) -> list[str]:
    runs = table[table["format"] == fmt]
    model_runs = list(runs.loc[~runs["baseline"], "run"]) or list(runs["run"])
    made = [
        ("Model comparison", charts.model_comparison(runs, out / f"model_comparison_{fmt}.png")),
        ("Load effects", charts.load_effects(runs, out / f"load_effects_{fmt}.png")),
        (
            "Mastery per run",
            charts.mastery_per_model(
                mastery[mastery["run"].isin(runs["run"])], out / f"mastery_{fmt}.png"
            ),
        ),
        (
            "Id x Extra share optimal",
            charts.id_by_extra_heatmap(
                analysis.id_by_extra(results, model_runs),
                out / f"id_by_extra_{fmt}.png",
                f"Share optimal, pooled over {len(model_runs)} run(s), {fmt} format",
            ),
        ),
    ]
    pairs = analysis.thinking_pairs(runs)
    if not pairs.empty:
        _csv(pairs, out / f"thinking_pairs_{fmt}.csv")
        made.append(
            ("Thinking vs non-thinking", charts.thinking_pairs(pairs, out / f"thinking_{fmt}.png"))
        )
    lines = [f"### {fmt} format", ""]
    lines += [f"![{title}]({path.name})" for title, path in made]
    if not pairs.empty:
        lines += ["", _markdown(pairs)]
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
        scenario = read_story_fields(row["story"], row["sample"])
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
            "```",
            str(row["raw_action"]).strip() or "(empty)",
            "```",
            "",
        ]
    return lines


def _options_shown(options: list[str]) -> list[str]:
    """The lettered options of a choice-format sample, so a bare letter can be read."""
    if not options:
        return []
    lettered = [f"{chr(ord('A') + index)}) {option}" for index, option in enumerate(options)]
    return ["Options:", "", "```", *lettered, "```", ""]


def _interval(value: float, low: float, high: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.3f}"
    return str(value).replace("|", "\\|")


def _markdown(frame: pd.DataFrame) -> str:
    """A markdown table (pandas' own needs the tabulate package)."""
    if frame.empty:
        return "(none)"
    header = "| " + " | ".join(str(column) for column in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = [
        "| " + " | ".join(_cell(value) for value in row) + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *body])


def _csv(frame: pd.DataFrame, path: Path) -> None:
    frame.drop(columns=[c for c in frame.columns if c == "story"], errors="ignore").to_csv(
        path, index=False
    )
