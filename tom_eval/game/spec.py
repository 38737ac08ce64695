"""The spec table and the mastery categories: data files in scenarios/, read and validated here."""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tom_eval.errors import InputError, refuse_device
from tom_eval.game.epistemics import OTHER_LABELS, SELF_LABELS
from tom_eval.json_fields import LARGEST, as_number, read_yaml, yaml_text

EXTRAS: tuple[str, ...] = ("0A", "0B", "1A", "1B")
ANSWERERS: tuple[str, ...] = ("Self", "Teammate", "Opponent")
SPEC_ACTIONS: tuple[str, ...] = ("Pass", "Ask Teammate", "Tell Teammate")
SPEC_COLUMNS: tuple[str, ...] = (
    "Id",
    "Extra",
    "Answerer",
    "Self",
    "Teammate",
    "Opponent",
    "Action",
)
SUCCESS_RULES: tuple[str, ...] = ("optimal", "lie_to_opponent_answerer", "lies_okay")
MASTERY_EXPECTED: tuple[str, ...] = (*SPEC_ACTIONS, "Lie to Opponent")
_Value = TypeVar("_Value")


def scenarios_dir() -> Path:
    """The project's scenarios/ data folder (in the source tree, or packaged in a wheel)."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "_scenarios"
    return packaged if packaged.is_dir() else package.parent / "scenarios"


def default_spec_file() -> Path:
    return scenarios_dir() / "spec.csv"


def default_mastery_file() -> Path:
    return scenarios_dir() / "mastery.yaml"


@dataclass(frozen=True, slots=True)
class SpecRow:
    """One row of the spec table: what A's view must be, and the action that follows."""

    id: int
    extra: str
    answerer: str
    self_label: str
    teammate_label: str
    opponent_label: str
    action: str

    @property
    def labels(self) -> tuple[str, str, str]:
        return self.self_label, self.teammate_label, self.opponent_label


def scenario_key(spec_id: int, extra: str, rep: int) -> str:
    """A scenario's key, e.g. 12-0A-r3."""
    return f"{spec_id}-{extra}-r{rep}"


def read_spec(path: Path | None = None) -> list[SpecRow]:
    """Read and validate a spec table; any problem is one InputError naming file and row."""
    path = path or default_spec_file()
    refuse_device(path)
    try:
        # utf-8-sig: a spreadsheet's byte-order mark is not part of the first column's name.
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None or tuple(cell.strip() for cell in header) != SPEC_COLUMNS:
                raise InputError(
                    f"{path}: header must be {','.join(SPEC_COLUMNS)}, got {_first_line(header)}"
                )
            rows = [
                _spec_row(path, number, cells)
                for number, cells in enumerate(reader, 2)
                if any(cell.strip() for cell in cells)  # blank lines, as editors leave at the end
            ]
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from error
    except (csv.Error, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not a CSV file ({error})") from error
    if not rows:
        raise InputError(f"{path}: no spec rows, only the header")
    _check_unique(path, rows)
    return rows


def _spec_row(path: Path, number: int, cells: list[str]) -> SpecRow:
    where = f"{path} row {number}"
    if len(cells) != len(SPEC_COLUMNS):
        raise InputError(f"{where}: expected {len(SPEC_COLUMNS)} cells, got {len(cells)}")
    id_text, extra, answerer, self_label, teammate, opponent, action = (c.strip() for c in cells)
    if not is_whole_number(id_text) or not 1 <= int(id_text) < LARGEST:
        raise InputError(f"{where}: Id must be a positive integer below 2**63, got '{id_text}'")
    checks = (
        ("Extra", extra, EXTRAS),
        ("Answerer", answerer, ANSWERERS),
        ("Self", self_label, SELF_LABELS),
        ("Teammate", teammate, OTHER_LABELS),
        ("Opponent", opponent, OTHER_LABELS),
        ("Action", action, SPEC_ACTIONS),
    )
    for column, value, allowed in checks:
        if value not in allowed:
            raise InputError(f"{where}: unknown {column} '{value}' (allowed: {', '.join(allowed)})")
    return SpecRow(int(id_text), extra, answerer, self_label, teammate, opponent, action)


def _check_unique(path: Path, rows: list[SpecRow]) -> None:
    seen: dict[tuple[int, str], SpecRow] = {}
    for row in rows:
        if (row.id, row.extra) in seen:
            raise InputError(f"{path}: Id {row.id} Extra {row.extra} appears twice")
        seen[(row.id, row.extra)] = row
    # The four Extras of an Id share one base story, so they must ask for the same labels.
    for row in rows:
        first = next(other for other in rows if other.id == row.id)
        if (row.answerer, row.labels, row.action) != (first.answerer, first.labels, first.action):
            raise InputError(
                f"{path}: Id {row.id} Extra {row.extra} differs from Extra {first.extra}; "
                "all Extras of one Id must share answerer, labels and action"
            )


def select_rows(
    rows: list[SpecRow], ids: Iterable[int], extras: Iterable[str], path: Path | None = None
) -> list[SpecRow]:
    """The rows for the chosen Ids and Extras, in Id then Extra order (`path`: the table's
    file, named when a row is missing)."""
    ids, extras = list(ids), list(extras)
    known_ids = {row.id for row in rows}
    for spec_id in ids:
        if spec_id not in known_ids:
            raise InputError(f"unknown Id {spec_id} (the spec table has {id_ranges(known_ids)})")
    for extra in extras:
        if extra not in EXTRAS:
            raise InputError(f"unknown Extra '{extra}' (allowed: {', '.join(EXTRAS)})")
    chosen = [row for row in rows if row.id in set(ids) and row.extra in set(extras)]
    for spec_id in ids:
        for extra in extras:
            if not any(row.id == spec_id and row.extra == extra for row in chosen):
                where = f"{path}: " if path is not None else ""
                raise InputError(f"{where}the spec table has no row for Id {spec_id} Extra {extra}")
    return sorted(chosen, key=lambda row: (row.id, EXTRAS.index(row.extra)))


def parse_ids(
    value: str | int | list[int | str], known: list[int], mastery: tuple[int, ...]
) -> list[int]:
    """Spec Ids from "all", "mastery", an Id, or a list like "7,8,12-13"."""
    text = list_text(value)
    if text == "all":
        return sorted(set(known))
    if selects_mastery(text):
        return list(mastery)
    ids: list[int] = []
    for entry in (part.strip() for part in text.split(",")):
        low, dash, high = entry.partition("-")
        if entry in ("all", "mastery"):
            raise InputError(f"ids: {entry} stands alone, not in a list ('{text}')")
        if not entry:
            raise InputError(f"ids: an empty entry in '{text}' (use e.g. 7,8,12-13)")
        if not is_whole_number(low) or (dash and not is_whole_number(high)):
            raise InputError(f"ids: cannot read '{entry}' (use all, mastery or e.g. 7,8,12-13)")
        first, last = int(low), int(high or low)
        if last < first:
            raise InputError(f"ids: '{entry}' is an empty range")
        # The known Ids in the range, and its ends (reported if unknown): `range` itself
        # could be billions long.
        ids += [first, last, *(known_id for known_id in known if first <= known_id <= last)]
    return sorted(set(ids))


def selects_mastery(value: str | int | list[int | str]) -> bool:
    """Whether an `ids` value asks for the mastery Ids, read as `parse_ids` reads it."""
    return list_text(value) == "mastery"


def is_whole_number(text: str) -> bool:
    """Digits 0-9 only: `str.isdigit` also accepts "²", which `int` refuses."""
    return text.isascii() and text.isdigit()


def parse_extras(value: str | list[str]) -> list[str]:
    """A list like "0A,1B"."""
    given = [extra.strip() for extra in list_text(value).split(",") if extra.strip()]
    if not given:
        raise InputError(f"extras: none given (use e.g. {','.join(EXTRAS)})")
    for extra in given:
        if extra.upper() not in EXTRAS:
            raise InputError(f"unknown Extra '{extra}' (allowed: {', '.join(EXTRAS)})")
    extras = [extra.upper() for extra in given]
    return sorted(set(extras), key=EXTRAS.index)


def list_text(value: object) -> str:
    """A comma-separated list as text, however it arrives: Inspect's `-T ids=7,8` hands over
    a list, or the text of one ("['7', '8']"). White space (line breaks too) is dropped."""
    if isinstance(value, list):
        value = ",".join(yaml_text(item) for item in value)
    if value is None:  # `-T extras=` with nothing after it
        return ""
    return re.sub(r"[\[\]'\"\s]", "", yaml_text(value))


def _first_line(header: list[str] | None) -> str:
    """A file's first line as a one-line error quotes it: cut short, since a file of
    another kind (a scenario file given as --spec) has a line of thousands of characters."""
    if header is None:
        return "an empty file"
    line = ",".join(header)
    return f"'{line}'" if len(line) <= 80 else f"'{line[:80]}...' ({len(line):,} characters)"


def id_ranges(ids: Iterable[int]) -> str:
    """Ids for a message, runs of consecutive ones as ranges: "Ids 7-24, 27-32, 37, 39", "Id 12"."""
    runs: list[list[int]] = []
    for spec_id in sorted(set(ids)):
        if runs and spec_id == runs[-1][-1] + 1:
            runs[-1].append(spec_id)
        else:
            runs.append([spec_id])
    noun = "Id" if len(runs) == 1 and len(runs[0]) == 1 else "Ids"
    return f"{noun} " + ", ".join(
        f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs
    )


@dataclass(frozen=True, slots=True)
class MasteryComponent:
    ids: tuple[int, ...]
    expected: str
    weight: float
    success: str


@dataclass(frozen=True, slots=True)
class MasteryCategory:
    name: str
    measures: str
    components: tuple[MasteryComponent, ...]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(spec_id for component in self.components for spec_id in component.ids)


@dataclass(frozen=True, slots=True)
class Mastery:
    mastery_ids: tuple[int, ...]
    categories: tuple[MasteryCategory, ...]

    def categories_of(self, spec_id: int) -> list[str]:
        return [category.name for category in self.categories if spec_id in category.ids]


def read_mastery(path: Path | None = None) -> Mastery:
    """Read and validate the mastery categories file: every key known, every value of its
    type (a misspelt key or an Id given as text would otherwise be read as something else)."""
    path = path or default_mastery_file()
    data = _mapping(path, read_yaml(path), "the top level", (), ("mastery_ids", "categories"))
    categories = tuple(_category(path, entry) for entry in _list(path, data, "categories"))
    mastery_ids = _ids(path, data, "mastery_ids")
    _refuse_repeats(path, "mastery_ids", mastery_ids)
    for category in categories:
        # An Id in two components of one category would count its samples twice.
        _refuse_repeats(path, f"category '{category.name}'", category.ids)
    # A category's score is named by its slug: two names of one slug would share a score.
    slugs = [slug(category.name) for category in categories]
    repeated = _repeated(slugs)
    if repeated is not None:
        raise InputError(
            f"{path}: two categories have the metric name '{repeated}' (their names differ "
            "only in case or punctuation)"
        )
    return Mastery(mastery_ids, categories)


def _refuse_repeats(path: Path, where: str, ids: Sequence[int]) -> None:
    repeated = _repeated(ids)
    if repeated is not None:
        raise InputError(f"{path}: Id {repeated} comes twice in {where}")


def _repeated(values: Sequence[_Value]) -> _Value | None:
    """The first value that comes a second time, if any."""
    return next((value for index, value in enumerate(values) if value in values[:index]), None)


def slug(name: str) -> str:
    """A metric name for a category: "Self: Knowledge vs Belief" -> "self_knowledge_vs_belief"."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def check_mastery_ids(mastery: Mastery, rows: list[SpecRow], path: Path | None = None) -> None:
    """Every Id the mastery file names is in the spec table; else `--ids mastery` would ask
    for rows that do not exist, and the error would not say which file named them."""
    known = {row.id for row in rows}
    named = [*mastery.mastery_ids, *(i for category in mastery.categories for i in category.ids)]
    unknown = sorted(set(named) - known)
    if unknown:
        raise InputError(
            f"{path or default_mastery_file()}: Id {unknown[0]} is not in the spec table "
            f"(it has {id_ranges(known)})"
        )


def _list(path: Path, data: dict[str, Any], key: str, where: str = "") -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or not value:
        raise InputError(f"{path}: {where}'{key}' must be a non-empty list")
    return value


def _ids(path: Path, data: dict[str, Any], key: str, where: str = "") -> tuple[int, ...]:
    values = _list(path, data, key, where)
    if not all(isinstance(value, int) and not isinstance(value, bool) for value in values):
        raise InputError(f"{path}: {where}'{key}' must list integer Ids")
    return tuple(values)


def _mapping(
    path: Path, value: object, what: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`value` as a mapping with every key of `keys`, and no key beyond `optional`."""
    if not isinstance(value, dict):
        raise InputError(f"{path}: expected a mapping at {what}")
    missing = [key for key in keys if key not in value]
    unknown = sorted(str(key) for key in value if key not in keys + optional)
    if missing or unknown:
        problem = f"no '{missing[0]}'" if missing else f"an unknown key '{unknown[0]}'"
        raise InputError(f"{path}: {what} has {problem}")
    return value


def _category(path: Path, entry: object) -> MasteryCategory:
    entry = _mapping(path, entry, "a category", ("name", "components"), ("measures",))
    name = f"category '{entry['name']}'"
    components = []
    for component in _list(path, entry, "components", f"{name}: "):
        fields = ("ids", "expected", "weight", "success")
        component = _mapping(path, component, f"a component of {name}", fields)
        expected, success, weight = component["expected"], component["success"], component["weight"]
        if expected not in MASTERY_EXPECTED:
            raise InputError(f"{path}: {name} has unknown expected '{expected}'")
        if success not in SUCCESS_RULES:
            raise InputError(f"{path}: {name} has unknown success '{success}'")
        value = None if isinstance(weight, str) else as_number(weight)
        if value is not None and math.isinf(value) and isinstance(weight, int):
            raise InputError(f"{path}: {name} has a weight too large for a number")
        if value is None or not (math.isfinite(value) and value > 0):
            raise InputError(f"{path}: {name} has weight {weight!r}, not a positive number")
        components.append(
            MasteryComponent(_ids(path, component, "ids", f"{name}: "), expected, value, success)
        )
    return MasteryCategory(str(entry["name"]), str(entry.get("measures", "")), tuple(components))
