"""The spec table and mastery file: shipped data is consistent; bad files fail in one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import REFERENCE_SPEC, require_shared
from tom_eval.errors import InputError
from tom_eval.game.spec import (
    EXTRAS,
    SpecRow,
    parse_extras,
    parse_ids,
    read_mastery,
    read_spec,
    select_rows,
)

HEADER = "Id,Extra,Answerer,Self,Teammate,Opponent,Action\n"
GOOD_ROW = "12,0A,Self,Believes X,Knows Truth,Unknown,Ask Teammate\n"


def test_the_spec_table_has_39_ids_times_4_extras(spec_rows: list[SpecRow]) -> None:
    assert len(spec_rows) == 156
    assert {(row.id, row.extra) for row in spec_rows} == {
        (i, e) for i in range(1, 40) for e in EXTRAS
    }


def test_the_spec_table_matches_the_references(spec_rows: list[SpecRow]) -> None:
    reference = read_spec(require_shared(REFERENCE_SPEC))
    assert sorted(spec_rows, key=lambda r: (r.id, r.extra)) == sorted(
        reference, key=lambda r: (r.id, r.extra)
    )


def test_mastery_categories_agree_with_the_spec_table(spec_rows: list[SpecRow]) -> None:
    mastery = read_mastery()
    actions = {row.id: row for row in spec_rows}
    assert len(mastery.mastery_ids) == 26
    assert [category.name for category in mastery.categories][:6] == [
        "Self: Knowledge vs Belief",
        "Teammate: Knowledge vs Belief",
        "Combined Uncertainty",
        "True vs False Belief",
        "Teammate vs Opponent",
        "Strategic Lies",
    ]
    for category in mastery.categories:
        for component in category.components:
            for spec_id in component.ids:
                assert spec_id in mastery.mastery_ids
                row = actions[spec_id]
                if component.expected == "Lie to Opponent":
                    assert row.answerer == "Opponent" and row.self_label == "Knows X"
                else:
                    assert component.expected == row.action, (category.name, spec_id)
    weights = {c.name: [(k.ids, k.weight) for k in c.components] for c in mastery.categories}
    assert weights["Self: Knowledge vs Belief"] == [((7, 8, 9), 2.0), ((12, 13), 3.0)]
    assert mastery.categories_of(17) == [
        "Teammate: Knowledge vs Belief",
        "True vs False Belief",
        "Teammate vs Opponent",
        "Teammate vs Opponent (lies okay)",
    ]


def test_a_spreadsheets_byte_order_mark_and_blank_lines_are_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "spec.csv"
    path.write_text("\ufeff" + HEADER + GOOD_ROW + "\n,,,\n", encoding="utf-8")
    assert [row.id for row in read_spec(path)] == [12]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Id,Extra\n", "header must be .*, got 'Id,Extra'$"),
        ("", "header must be .*, got an empty file$"),
        # Another kind of file (a scenario file): its first line is cut short.
        (
            '{"key": "' + "x" * 1000 + '"}\n',
            r"""got '{"key": "x{71}\.\.\.' \(1,011 characters\)$""",
        ),
        (
            HEADER + "12,2C,Self,Believes X,Knows Truth,Unknown,Ask Teammate\n",
            "row 2: unknown Extra '2C'",
        ),
        (
            HEADER + "x,0A,Self,Believes X,Knows Truth,Unknown,Ask Teammate\n",
            "row 2: Id must be a positive integer",
        ),
        (
            HEADER + "\u00b2,0A,Self,Believes X,Knows Truth,Unknown,Ask Teammate\n",
            "row 2: Id must be a positive integer",
        ),
        (
            HEADER + f"{2**63},0A,Self,Believes X,Knows Truth,Unknown,Ask Teammate\n",
            r"row 2: Id must be a positive integer below 2\*\*63",
        ),
        (
            HEADER + "12,0A,Boss,Believes X,Knows Truth,Unknown,Ask Teammate\n",
            "unknown Answerer 'Boss'",
        ),
        (
            HEADER + "12,0A,Self,Thinks X,Knows Truth,Unknown,Ask Teammate\n",
            "unknown Self 'Thinks X'",
        ),
        (HEADER + "12,0A,Self,Believes X,Knows Truth,Unknown,Dance\n", "unknown Action 'Dance'"),
        (HEADER + "12,0A,Self\n", "row 2: expected 7 cells, got 3"),
        (HEADER + GOOD_ROW + GOOD_ROW, "Id 12 Extra 0A appears twice"),
        (
            HEADER + GOOD_ROW + GOOD_ROW.replace("0A", "0B").replace("Unknown", "Knows Truth"),
            "must share",
        ),
    ],
)
def test_bad_spec_files_fail_with_one_line(tmp_path: Path, text: str, problem: str) -> None:
    assert_one_line_error(read_spec, tmp_path / "spec.csv", text, problem)


def assert_one_line_error(
    read: Callable[[Path], object], path: Path, text: str, problem: str
) -> None:
    """Reading `text` from `path` fails with one line that names the file and the problem."""
    path.write_text(text)
    with pytest.raises(InputError, match=problem) as raised:
        read(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


def test_a_binary_spec_file_is_not_a_csv(tmp_path: Path) -> None:
    path = tmp_path / "spec.csv"
    path.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(InputError, match="not a CSV file"):
        read_spec(path)


def test_a_missing_spec_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_spec(tmp_path / "absent.csv")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("categories: [\n", "not valid YAML"),
        ("- a list\n", "expected a mapping"),
        ("mastery_ids: [1]\n", "'categories' must be a non-empty list"),
        (
            "mastery_ids: [1]\ncategories:\n  - name: X\n    components:\n"
            "      - {ids: [1], expected: Dance, weight: 1, success: optimal}\n",
            "unknown expected 'Dance'",
        ),
        (
            "mastery_ids: [1]\ncategories:\n  - name: X\n    components:\n"
            "      - {ids: [1], expected: Pass, success: optimal}\n",
            "a component of category 'X' has no 'weight'",
        ),
        ("mastery_ids: [12]\ncategories: [foo]\n", "expected a mapping at a category"),
        *[
            (
                "mastery_ids: [1]\ncategories:\n  - name: X\n    components:\n"
                f"      - {{{component}}}\n",
                problem,
            )
            for component, problem in (
                ("ids: '12', expected: Pass, weight: 1, success: optimal", "'ids' must be a"),
                ("ids: [1.9, true], expected: Pass, weight: 1, success: optimal", "integer Ids"),
                ("ids: [1], expected: Pass, weight: -5, success: optimal", "weight -5, not a"),
                ("ids: [1], expected: Pass, weight: .nan, success: optimal", "weight nan, not"),
                (f"ids: [1], expected: Pass, weight: {10**400}, success: optimal", "too large"),
                ("ids: [1], expected: Pass, weight: 1, success: optimal, bonus: 2", "'bonus'"),
            )
        ],
        ("mastery_ids2: [1]\ncategories: []\n", "an unknown key 'mastery_ids2'"),
        (
            "mastery_ids: [7, 8, 7]\ncategories:\n  - name: X\n    components:\n"
            "      - {ids: [7], expected: Pass, weight: 1, success: optimal}\n",
            "Id 7 comes twice in mastery_ids",
        ),
        (
            "mastery_ids: [7]\ncategories:\n  - name: X\n    components:\n"
            "      - {ids: [7], expected: Pass, weight: 1, success: optimal}\n"
            "      - {ids: [8, 7], expected: Pass, weight: 2, success: optimal}\n",
            "Id 7 comes twice in category 'X'",
        ),
        (
            "mastery_ids: [7]\ncategories:\n"
            "  - {name: 'Self: Belief', components: [{ids: [7], expected: Pass, weight: 1,"
            " success: optimal}]}\n"
            "  - {name: 'self belief', components: [{ids: [8], expected: Pass, weight: 1,"
            " success: optimal}]}\n",
            "two categories have the metric name 'self_belief'",
        ),
    ],
)
def test_bad_mastery_files_fail_with_one_line(tmp_path: Path, text: str, problem: str) -> None:
    assert_one_line_error(read_mastery, tmp_path / "mastery.yaml", text, problem)


def test_selecting_unknown_ids_or_extras_fails(spec_rows: list[SpecRow]) -> None:
    assert len(select_rows(spec_rows, [12, 13], ["0A", "1B"])) == 4
    with pytest.raises(InputError, match="unknown Id 40"):
        select_rows(spec_rows, [40], ["0A"])
    with pytest.raises(InputError, match="unknown Extra '2C'"):
        select_rows(spec_rows, [1], ["2C"])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("\u00b2", "cannot read '\u00b2'"),  # a digit to str.isdigit, not to int
        ("7-\u0663", "cannot read"),
        ("13-7", "'13-7' is an empty range"),
        (",", r"^ids: an empty entry in ',' \(use e\.g\. 7,8,12-13\)$"),
        ("7,,8", "an empty entry in '7,,8'"),
        ("mastery,7", r"^ids: mastery stands alone, not in a list \('mastery,7'\)$"),
        ("3,all", "all stands alone"),
    ],
)
def test_bad_id_selections_fail_with_one_line(text: str, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        parse_ids(text, list(range(1, 40)), ())


def test_a_huge_id_range_is_read_at_once_and_its_unknown_end_reported(
    spec_rows: list[SpecRow],
) -> None:
    ids = parse_ids("7-99999999999", [row.id for row in spec_rows], ())
    assert ids == [*range(7, 40), 99999999999]
    with pytest.raises(InputError, match="unknown Id 99999999999"):
        select_rows(spec_rows, ids, ["0A"])


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=20) | st.from_regex(r"[0-9,\- ]{0,16}", fullmatch=True))
@example(text="")
def test_any_id_or_extra_selection_reads_or_fails_in_one_line(text: str) -> None:
    known = list(range(1, 40))
    for parse in (lambda: parse_ids(text, known, (7, 8)), lambda: parse_extras(text)):
        try:
            chosen = parse()
        except InputError as error:
            assert "\n" not in str(error)
            continue
        assert chosen and len(set(chosen)) == len(chosen)
