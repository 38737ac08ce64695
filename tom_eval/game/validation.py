"""What a generated scenario must satisfy (docs/engine.md).

One list of rules serves the generator (a candidate that breaks any is redrawn) and
the checker (a stored scenario that breaks any is reported).
"""

from __future__ import annotations

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.epistemics import UNKNOWN
from tom_eval.game.oracle import Solution
from tom_eval.game.spec import SpecRow
from tom_eval.game.world import NOTHING, SELF, TEAMMATE

ANSWERER_ROLES = {"Self": (SELF,), "Teammate": (TEAMMATE,), "Opponent": ("C", "D")}


def spec_action(action: str, solution: Solution) -> Action:
    """A spec Action ("Pass", "Ask Teammate", "Tell Teammate") made concrete for this scenario:
    ask the teammate about the question container, or tell it what A believes is there."""
    question = solution.scenario.question
    if action == "Ask Teammate":
        return Action("ask", TEAMMATE, question)
    if action == "Tell Teammate":
        return Action("tell", TEAMMATE, question, solution.assessment.self_belief or NOTHING)
    return PASS


def label_violations(row: SpecRow, solution: Solution) -> list[str]:
    """Where A's view of the scenario differs from the spec row."""
    assessment = solution.assessment
    problems = []
    if solution.scenario.answerer not in ANSWERER_ROLES[row.answerer]:
        problems.append(f"answerer {solution.scenario.answerer} is not the spec's {row.answerer}")
    if assessment.label(SELF) != row.self_label:
        problems.append(f"Self is {assessment.label(SELF)}, spec says {row.self_label}")
    if assessment.label(TEAMMATE) != row.teammate_label:
        problems.append(f"Teammate is {assessment.label(TEAMMATE)}, spec says {row.teammate_label}")
    if row.opponent_label not in solution.opponent_labels:
        shown = " / ".join(solution.opponent_labels)
        problems.append(f"Opponent is {shown}, spec says {row.opponent_label}")
    return problems


def spec_violations(
    asked: SpecRow, rep: int, rows: dict[tuple[int, str], SpecRow], complete: bool = False
) -> list[str]:
    """Where a scenario's claim (its answerer, labels and action, asked at `rep`) is not the
    spec row of its Id and Extra in `rows`: a story that satisfies its own claim cannot
    show that, and a run would score it (and its mastery category) as that Id. An Id and
    Extra without a row are another spec table's (`tom-eval generate --spec`): not judged,
    unless `rows` is `complete`, the table the file was generated from."""
    problems = [f"rep {rep}: reps count from 1"] if rep < 1 else []
    row = rows.get((asked.id, asked.extra))
    if row is None and complete:
        problems.append(f"the spec table has no row for Id {asked.id}, Extra {asked.extra}")
    if row is not None and asked != row:
        problems.append(f"the file claims {_claim(asked)}, the spec row is {_claim(row)}")
    return problems


def _claim(row: SpecRow) -> str:
    return f"answerer {row.answerer}, labels {'/'.join(row.labels)}, action {row.action}"


def action_violations(row: SpecRow, solution: Solution) -> list[str]:
    """Whether the engine's optimal action is the spec's Action."""
    optimal, expected = solution.decision.optimal, spec_action(row.action, solution)
    return [] if optimal == expected else [f"optimal action is {optimal}, spec says {expected}"]


def generator_violations(row: SpecRow, solution: Solution) -> list[str]:
    """The spec's requirements plus the generator's own standards for a fair story.

    The decision is checked last, and only when all else holds: it is the costly part.
    """
    problems = label_violations(row, solution) + story_violations(solution)
    return problems or action_violations(row, solution)


def story_violations(solution: Solution) -> list[str]:
    """The generator's standards for a fair story, beyond the spec's labels."""
    problems = solution.unsound_inferences()
    assessment = solution.assessment
    if solution.truth is None:
        problems.append("the question container is empty at the end")
    if assessment.self_belief is None:
        problems.append("A believes the question container is empty")
    for player, label in assessment.labels.items():
        # An "Unknown" player sitting in the room usually knows the answer, which the
        # story cannot show (docs/engine.md, the reference's scenarios): keep them outside.
        if label == UNKNOWN and player in assessment.present:
            problems.append(f"{player} is Unknown but in the room at the end")
    return problems


def extra_group_violations(solutions: dict[str, Solution]) -> list[str]:
    """The load manipulation across the four Extras of one (Id, rep) (docs/engine.md)."""
    ect = {extra: solution.assessment.ect for extra, solution in solutions.items()}
    visible = {extra: solution.assessment.visible_events for extra, solution in solutions.items()}
    problems = []
    if "0A" in ect and "0B" in ect:
        if ect["0B"] != ect["0A"]:
            problems.append(f"ECT 0B={ect['0B']} differs from 0A={ect['0A']}")
        if visible["0B"] != visible["0A"] + 3:
            problems.append(f"visible events 0B={visible['0B']} is not 0A={visible['0A']} + 3")
    if "0A" in ect and "1A" in ect and ect["1A"] != ect["0A"]:
        problems.append(f"ECT 1A={ect['1A']} differs from 0A={ect['0A']}")
    if "1A" in ect and "1B" in ect:
        if ect["1B"] <= ect["1A"]:
            problems.append(f"ECT 1B={ect['1B']} is not above 1A={ect['1A']}")
        if visible["1B"] != visible["1A"]:
            problems.append(f"visible events 1B={visible['1B']} differ from 1A={visible['1A']}")
    return problems


def ladder_violations(ladder: str, base: Solution, level: int, solution: Solution) -> list[str]:
    """The load of one rung of a ladder (`game.ladder`) against its base story: on the
    events ladder, `level` more events A perceives and the same ECT count; on the ECT
    ladder, `level` more ECTs. Both keep the base story's answer and labels: the same
    contents at the end, the same belief of A and every character's label (not only the
    spec row's three), so the load is all a rung adds."""
    ect, visible = solution.assessment.ect, solution.assessment.visible_events
    base_ect, base_visible = base.assessment.ect, base.assessment.visible_events
    problems = []
    if ladder == "events":
        if ect != base_ect:
            problems.append(f"ECT {ect} differs from the base story's {base_ect}")
        if visible != base_visible + level:
            problems.append(f"visible events {visible} are not the base's {base_visible} + {level}")
    elif ect != base_ect + level:
        problems.append(f"ECT {ect} is not the base story's {base_ect} + {level}")
    if (solution.truth, solution.assessment.self_belief) != (
        base.truth,
        base.assessment.self_belief,
    ):
        problems.append("the contents or A's belief differ from the base story's")
    labels, base_labels = solution.assessment.labels, base.assessment.labels
    changed = sorted(
        player
        for player in labels.keys() | base_labels.keys()
        if labels.get(player) != base_labels.get(player)
    )
    if changed:
        problems.append(f"the labels of {', '.join(changed)} differ from the base story's")
    return problems
