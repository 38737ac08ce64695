"""Scenario files: tom-eval's JSON Lines format, and the reference's pre-generated JSON.

tom-eval format (one JSON object per line, fields in this order; see docs/scenario-format.md):
    key, id, extra, rep, seed, answerer_role, spec_action, labels,       <- what was asked
    containers, present_initially, events, question, answerer,          <- the story
    character_labels, truth, beliefs, knows, optimal_action, margin,
    action_values, ect, visible_events                                  <- what the engine derived

The reference format is one JSON object {chars, chartypes, scenarios: [...]} as in
../shared/reference/scenarios_standardized.json. Both load into `ScenarioRecord`s, so
`check`, `show` and the Inspect task read either.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tom_eval.errors import InputError, read_user_bytes, read_user_text, user_text
from tom_eval.files import write_atomically
from tom_eval.game.epistemics import OTHER_LABELS, SELF_LABELS
from tom_eval.game.generation import Generated
from tom_eval.game.oracle import Solution
from tom_eval.game.spec import (
    ANSWERERS,
    EXTRAS,
    SPEC_ACTIONS,
    SpecRow,
    is_whole_number,
    scenario_key,
)
from tom_eval.game.world import (
    CHARACTERS,
    CONTAINERS,
    NOTHING,
    Enter,
    Event,
    Leave,
    Move,
    Put,
    Scenario,
)
from tom_eval.json_fields import READ_ERRORS, JsonFields, json_problem, load_json

OUR_FORMAT = "tom-eval"
REFERENCE_FORMAT = "reference"
MAX_LINE = 1_000_000
"""The longest line a tom-eval scenario file may hold, in characters: a record is about
2 kB, so a longer line is not a scenario (and would be read whole into memory)."""


@dataclass(frozen=True)
class ScenarioRecord:
    """A scenario as read from a file: the story, where it came from, and what the file claims."""

    key: str
    scenario: Scenario
    asked: SpecRow
    """The spec row the scenario claims to satisfy (its Id, Extra, labels and Action)."""
    rep: int
    stored: dict[str, Any]
    """Everything else the file says the engine derived (may be partial for other formats)."""
    source_format: str


# ---------------------------------------------------------------------------- writing


def record_fields(generated: Generated) -> dict[str, Any]:
    """One line of a tom-eval scenario file."""
    row, solution = generated.row, generated.solution
    return {
        "key": generated.key,
        "id": row.id,
        "extra": row.extra,
        "rep": generated.rep,
        "seed": generated.seed,
        "answerer_role": row.answerer,
        "spec_action": row.action,
        "labels": {
            "self": row.self_label,
            "teammate": row.teammate_label,
            "opponent": row.opponent_label,
        },
        **story_fields(solution.scenario),
        **derived_fields(solution),
    }


def story_fields(scenario: Scenario) -> dict[str, Any]:
    """A scenario as the JSON fields of a scenario file's story."""
    return {
        "containers": list(scenario.containers),
        "present_initially": sorted(scenario.present_initially),
        "events": [event_fields(event) for event in scenario.events],
        "question": scenario.question,
        "answerer": scenario.answerer,
    }


def derived_fields(solution: Solution) -> dict[str, Any]:
    """What the engine derives from a story; `check` recomputes and compares these."""
    assessment = solution.assessment
    return {
        "character_labels": {player: assessment.label(player) for player in CHARACTERS},
        "truth": solution.truth or NOTHING,
        "beliefs": {player: mind.belief or NOTHING for player, mind in solution.minds.items()},
        "knows": {player: mind.knows for player, mind in solution.minds.items()},
        "optimal_action": str(solution.decision.optimal),
        "margin": solution.decision.margin,
        "action_values": solution.decision.values,
        "ect": assessment.ect,
        "visible_events": assessment.visible_events,
    }


def event_fields(event: Event) -> dict[str, str]:
    """An event as the JSON fields of a scenario file."""
    if isinstance(event, Put):
        return {
            "type": "put",
            "actor": event.actor,
            "item": event.item,
            "container": event.container,
        }
    if isinstance(event, Move):
        return {
            "type": "move",
            "actor": event.actor,
            "item": event.item,
            "from": event.source,
            "to": event.destination,
        }
    return {"type": "leave" if isinstance(event, Leave) else "enter", "actor": event.actor}


def write_scenarios(path: Path, generated: list[Generated]) -> None:
    """Write atomically: the file appears complete or not at all."""
    lines = [json.dumps(record_fields(item), ensure_ascii=False) for item in generated]
    write_atomically(path, "\n".join(lines) + "\n")


# ---------------------------------------------------------------------------- reading


def read_scenarios(path: Path) -> list[ScenarioRecord]:
    """Read a scenario file of either format; any problem is one InputError naming where."""
    return _scenarios(path, read_user_text(path))


def read_scenario_file(path: Path) -> tuple[list[ScenarioRecord], str]:
    """A scenario file's scenarios and the SHA-256 of its bytes, from one read: a pipe
    (`-T scenario_file=<(...)`) read again would give nothing."""
    data = read_user_bytes(path)
    return _scenarios(path, user_text(data, str(path))), hashlib.sha256(data).hexdigest()


def _scenarios(path: Path, text: str) -> list[ScenarioRecord]:
    """The scenarios of the text of the file `path`, in either format."""
    if not text.strip():
        raise InputError(f"{path}: empty file, no scenarios")
    try:
        whole = json.loads(text)
    except READ_ERRORS as error:
        if isinstance(error, json.JSONDecodeError) and _first_line_is_object(text):
            return _read_json_lines(path, text)
        raise InputError(f"{path}: {json_problem(error)}") from None
    if isinstance(whole, dict) and "scenarios" in whole:
        return _read_reference(path, whole)
    if len([line for line in text.splitlines() if line.strip()]) > 1:
        raise InputError(
            f"{path}: one JSON value over several lines: neither tom-eval's JSON Lines (a "
            "scenario record a line) nor the reference's scenario file (an object with "
            "'scenarios')"
        )
    return _read_json_lines(path, text)


def _first_line_is_object(text: str) -> bool:
    """JSON Lines: the first non-blank line is a JSON object on its own."""
    first = text.lstrip().split("\n", 1)[0]
    try:
        return isinstance(json.loads(first), dict)
    except READ_ERRORS:
        return False


def _read_json_lines(path: Path, text: str) -> list[ScenarioRecord]:
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        if len(line) > MAX_LINE:
            raise InputError(
                f"{where}: {len(line):,} characters long, not a scenario record "
                f"(a record is about 2 kB; at most {MAX_LINE:,})"
            )
        records.append(_our_record(where, load_json(line, where, one_line=True)))
    _check_unique_keys(path, records)
    return records


def _check_unique_keys(path: Path, records: list[ScenarioRecord]) -> None:
    seen: set[str] = set()
    for record in records:
        if record.key in seen:
            raise InputError(f"{path}: scenario '{record.key}' appears twice")
        seen.add(record.key)


def _our_record(where: str, data: Any) -> ScenarioRecord:
    fields = JsonFields(where, data)
    key = fields.text("key")
    where = f"{where} (scenario {key})"
    fields = JsonFields(where, data)
    extra = fields.choice("extra", EXTRAS)
    scenario = read_story_fields(data, where)
    labels = JsonFields(f"{where} labels", fields.mapping("labels"))
    spec_id, rep = fields.integer("id"), fields.integer("rep")
    if "seed" in data:
        # The generator's seed, not read: a file holding another kind of seed is not one
        # `tom-eval generate` wrote.
        fields.integer("seed")
    if key != scenario_key(spec_id, extra, rep):
        fields.fail(
            f"the key contradicts 'id' {spec_id}, 'extra' {extra} and 'rep' {rep} "
            f"(they make the key {scenario_key(spec_id, extra, rep)})"
        )
    return ScenarioRecord(
        key=key,
        scenario=scenario,
        asked=_asked(
            spec_id,
            extra,
            fields.choice("answerer_role", ANSWERERS),
            labels,
            ("self", "teammate", "opponent"),
            fields.choice("spec_action", SPEC_ACTIONS),
        ),
        rep=rep,
        stored={name: data[name] for name in _DERIVED if name in data},
        source_format=OUR_FORMAT,
    )


def _asked(
    spec_id: int,
    extra: str,
    answerer_role: str,
    labels: JsonFields,
    label_names: tuple[str, str, str],
    action: str,
) -> SpecRow:
    """The spec row a scenario claims to satisfy; `label_names` name its Self, Teammate and
    Opponent labels in `labels`."""
    self_name, teammate_name, opponent_name = label_names
    return SpecRow(
        spec_id,
        extra,
        answerer_role,
        labels.choice(self_name, SELF_LABELS),
        labels.choice(teammate_name, OTHER_LABELS),
        labels.choice(opponent_name, OTHER_LABELS),
        action,
    )


_DERIVED = (
    "character_labels",
    "truth",
    "beliefs",
    "knows",
    "optimal_action",
    "margin",
    "action_values",
    "ect",
    "visible_events",
)


def story_line(scenario: Scenario) -> str:
    """`story_fields` as one line of JSON: how a Sample's metadata carries the story. One
    text rather than a nested object, because Inspect copies, walks and summarises every
    value of a sample's metadata several times: the story's 30 or so values cost about
    0.6 ms a sample, where a whole run at zero latency takes 13 ms."""
    return json.dumps(story_fields(scenario), separators=(",", ":"))


def read_story_fields(data: Any, where: str) -> Scenario:
    """The story part of a tom-eval scenario (see `story_fields`), also as one line of JSON
    (`story_line`); InputError if malformed."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as error:
            raise InputError(f"{where}: the story is not JSON ({error.msg})") from None
    fields = JsonFields(where, data)
    return _scenario(
        fields,
        containers=tuple(fields.texts("containers")),
        present=fields.texts("present_initially"),
        events=[
            _our_event(where, index, event) for index, event in enumerate(fields.array("events"))
        ],
        question=fields.text("question"),
        answerer=fields.text("answerer"),
    )


def _our_event(where: str, index: int, data: Any) -> Event:
    fields = JsonFields(f"{where} event {index + 1}", data)
    kind = fields.choice("type", ("put", "move", "leave", "enter"))
    actor = fields.text("actor")
    if kind == "put":
        return Put(actor, fields.text("item"), fields.text("container"))
    if kind == "move":
        return Move(actor, fields.text("item"), fields.text("from"), fields.text("to"))
    return Leave(actor) if kind == "leave" else Enter(actor)


def _scenario(
    fields: JsonFields,
    containers: tuple[str, ...],
    present: list[str],
    events: list[Event],
    question: str,
    answerer: str,
) -> Scenario:
    for player in present:
        if player not in CHARACTERS:
            fields.fail(f"unknown character '{player}' in present_initially")
    for container in containers:
        if not re.fullmatch(r"[a-z]+", container):
            fields.fail(f"container names are single lowercase words, got {container!r}")
    if len(set(containers)) < len(containers):
        fields.fail(f"a container is named twice in {list(containers)}")
    scenario = Scenario(frozenset(present), tuple(events), question, answerer, containers)
    try:
        _ = scenario.rooms  # replaying the story finds any impossible event
    except InputError as error:
        fields.fail(f"impossible story: {error}")
    return scenario


_REFERENCE_ANSWER_ROLES = {"A": "Self", "B": "Teammate", "C": "Opponent", "D": "Opponent"}


def _read_reference(path: Path, data: Any) -> list[ScenarioRecord]:
    top = JsonFields(str(path), data)
    scenarios = top.array("scenarios")
    if not scenarios:
        raise InputError(f"{path}: 'scenarios' is empty")
    records = [_reference_record(path, index, item) for index, item in enumerate(scenarios)]
    _check_unique_keys(path, records)
    return records


def _reference_record(path: Path, index: int, data: Any) -> ScenarioRecord:
    fields = JsonFields(f"{path} scenario {index + 1}", data)
    id_text = fields.text("id")
    if not is_whole_number(id_text):
        fields.fail(f"'id' must be a number, got {id_text!r}")
    spec_id = int(id_text)
    extra = fields.choice("extra", EXTRAS)
    rep = fields.integer("rep")
    key = scenario_key(spec_id, extra, rep)
    fields = JsonFields(f"{path} scenario {index + 1} ({key})", data)
    answerer = fields.choice("who_answers", tuple(_REFERENCE_ANSWER_ROLES))
    events = [
        _reference_event(fields, number, event)
        for number, event in enumerate(fields.array("events"), 1)
    ]
    scenario = _scenario(
        fields,
        containers=CONTAINERS,
        present=fields.texts("present_initially"),
        events=events,
        question=fields.text("question_container"),
        answerer=answerer,
    )
    return ScenarioRecord(
        key=key,
        scenario=scenario,
        asked=_asked(
            spec_id,
            extra,
            _REFERENCE_ANSWER_ROLES[answerer],
            fields,
            ("ks_self", "ks_teammate", "ks_opponent"),
            fields.choice("correct_action", SPEC_ACTIONS),
        ),
        rep=rep,
        stored={"visible_events": fields.integer("situation_event_count")} | _reference_ect(fields),
        source_format=REFERENCE_FORMAT,
    )


def _reference_ect(fields: JsonFields) -> dict[str, int]:
    """The reference's transition count, which only feeds a note of `check`: a file
    without `epistemic_transitions` is read, and the note is skipped."""
    if "epistemic_transitions" not in fields.data:
        return {}
    where = f"{fields.where} epistemic_transitions"
    transitions = JsonFields(where, fields.mapping("epistemic_transitions"))
    return {"reference_ect": transitions.integer("total")}


def _reference_event(fields: JsonFields, number: int, data: Any) -> Event:
    event = JsonFields(f"{fields.where} event {number}", data)
    kind = event.choice("event_type", ("put", "move", "leave", "enter", "remove"))
    actor = event.text("character")
    if kind == "put":
        return Put(actor, event.text("item"), event.text("container"))
    if kind == "move":
        return Move(
            actor, event.text("item"), event.text("from_container"), event.text("to_container")
        )
    if kind == "remove":
        event.fail("remove events are not part of the game (docs/engine.md)")
    return Leave(actor) if kind == "leave" else Enter(actor)
