"""`tom-eval check`: recompute every scenario from its events and compare with the file.

Disagreements (exit 1) are places where the file's stored facts differ from what the
engine derives: labels, the optimal action, stored derived fields, and, for tom-eval
files, the load invariants across the Extras of one (Id, rep). Notes are findings
that are not disagreements: an "Unknown" player sitting in the room who really knows,
or the reference's own ECT count, which uses a different definition (docs/engine.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tom_eval.game.epistemics import UNKNOWN
from tom_eval.game.oracle import Solution, solve
from tom_eval.game.scenario_file import OUR_FORMAT, ScenarioRecord, derived_fields
from tom_eval.game.spec import SpecRow, read_spec
from tom_eval.game.validation import (
    action_violations,
    extra_group_violations,
    label_violations,
    spec_violations,
)
from tom_eval.game.world import CHARACTERS


@dataclass
class Finding:
    record: ScenarioRecord
    solution: Solution
    disagreements: list[tuple[str, str]] = field(default_factory=list)
    """(kind, detail) pairs."""
    notes: list[tuple[str, str]] = field(default_factory=list)

    def disagree(self, kind: str, details: list[str]) -> None:
        self.disagreements += [(kind, detail) for detail in details]


def check(records: list[ScenarioRecord], spec: list[SpecRow] | None = None) -> list[Finding]:
    """Each record replayed, assessed and decided again by the engine and compared with
    what the file says, what the file says compared with the row of its Id and Extra in
    `spec` (the table it was generated from, so it must have a row for each; by default
    scenarios/spec.csv, whose Ids a file of another table may lack), and the four Extras of
    each (Id, rep) checked against each other."""
    rows = {(row.id, row.extra): row for row in (read_spec() if spec is None else spec)}
    findings = [_check_one(record) for record in records]
    for finding in findings:
        record = finding.record
        problems = spec_violations(record.asked, record.rep, rows, complete=spec is not None)
        finding.disagree("spec row", problems)
        if (record.asked.id, record.asked.extra) not in rows and spec is None:
            # Said, so that a mistyped Id is seen: the task plays it, in no mastery category.
            finding.notes.append(
                (
                    "Id not in scenarios/spec.csv",
                    f"Id {record.asked.id}, Extra {record.asked.extra}: judged against its own "
                    "claim only (--spec judges it against the table it was generated from)",
                )
            )
    _check_groups(findings)
    return findings


def _check_one(record: ScenarioRecord) -> Finding:
    solution = solve(record.scenario)
    finding = Finding(record, solution)
    finding.disagree("labels", label_violations(record.asked, solution))
    finding.disagree("optimal action", action_violations(record.asked, solution))
    finding.disagree("unsound inference", solution.unsound_inferences())
    derived = derived_fields(solution)
    for name, stored in record.stored.items():
        if name in derived and stored != derived[name]:
            finding.disagree(name, [f"file has {stored}, engine derives {derived[name]}"])
    if "reference_ect" in record.stored and record.stored["reference_ect"] != derived["ect"]:
        finding.notes.append(
            (
                "reference ECT differs from the engine's count",
                f"file has {record.stored['reference_ect']}, engine counts {derived['ect']}",
            )
        )
    for player in CHARACTERS:
        if solution.assessment.label(player) == UNKNOWN and player in solution.assessment.present:
            knows = solution.minds[player].knows
            kind = "Unknown player in the room at the end" + (" who knows" if knows else "")
            finding.notes.append((kind, player))
    return finding


def _check_groups(findings: list[Finding]) -> None:
    """ECT and visible-event relations across the four Extras of one (Id, rep)."""
    groups: dict[tuple[int, int], dict[str, Finding]] = {}
    for finding in findings:
        record = finding.record
        groups.setdefault((record.asked.id, record.rep), {})[record.asked.extra] = finding
    for group in groups.values():
        problems = extra_group_violations({extra: item.solution for extra, item in group.items()})
        for problem in problems:
            for finding in group.values():
                if finding.record.source_format == OUR_FORMAT:
                    finding.disagreements.append(("load", problem))
                else:
                    finding.notes.append(("load relation broken under the engine's ECT", problem))


def describe(finding: Finding) -> str:
    """One line per scenario: what the engine derives, then any disagreements and notes."""
    solution = finding.solution
    labels = " ".join(f"{player}={solution.assessment.label(player)}" for player in CHARACTERS)
    beliefs = " ".join(
        f"{player}={mind.belief or 'nothing'}" for player, mind in solution.minds.items()
    )
    decision = solution.decision
    status = "DISAGREES" if finding.disagreements else "ok"
    lines = [
        f"{finding.record.key}: {status} | answerer {solution.scenario.answerer} about the "
        f"{solution.scenario.question} | {labels} | truth {solution.truth or 'nothing'} | "
        f"beliefs {beliefs} | optimal {decision.optimal} (margin {decision.margin:+.2f}) | "
        f"ECT {solution.assessment.ect}, {solution.assessment.visible_events} events seen by A"
    ]
    lines += [f"    disagreement ({kind}): {detail}" for kind, detail in finding.disagreements]
    lines += [f"    note ({kind}): {detail}" for kind, detail in finding.notes]
    return "\n".join(lines)


def summary(findings: list[Finding]) -> str:
    """The last lines of `tom-eval check`: the load of each Extra as the engine measures
    it, then how many scenarios disagree, by kind."""
    disagreeing = sum(bool(finding.disagreements) for finding in findings)
    kinds = Counter(kind for finding in findings for kind, _ in finding.disagreements)
    notes = Counter(kind for finding in findings for kind, _ in finding.notes)
    lines = _loads(findings)
    lines += [
        f"{len(findings)} scenarios checked, {disagreeing} with disagreements, "
        f"{sum(bool(finding.notes) for finding in findings)} with notes"
    ]
    lines += [f"  disagreement ({kind}): {count}" for kind, count in sorted(kinds.items())]
    lines += [f"  note ({kind}): {count}" for kind, count in sorted(notes.items())]
    return "\n".join(lines)


def _loads(findings: list[Finding]) -> list[str]:
    """Per Extra: the events A sees (mean and range) and the ECT (mean), which the load
    conditions are built to vary (docs/engine.md)."""
    by_extra: dict[str, list[Finding]] = {}
    for finding in findings:
        by_extra.setdefault(finding.record.asked.extra, []).append(finding)
    lines = []
    for extra in sorted(by_extra):
        assessments = [finding.solution.assessment for finding in by_extra[extra]]
        seen = [assessment.visible_events for assessment in assessments]
        ect = sum(assessment.ect for assessment in assessments) / len(assessments)
        lines.append(
            f"Extra {extra}: {len(seen)} scenarios, events A sees {sum(seen) / len(seen):.2f} "
            f"on average ({min(seen)}-{max(seen)}), ECT {ect:.2f} on average"
        )
    return lines
