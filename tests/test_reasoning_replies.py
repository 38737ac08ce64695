"""The parser on replies that reason before they act: the project's corpus
(`reasoning_replies.py`) and a held-out set a second author wrote blind to the parser."""

from __future__ import annotations

import json

import pytest
from reasoning_replies import CORPUS, OPTIONS

from conftest import ROOT
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.parsing import ResponseFormat, parse_action

HELDOUT = json.loads((ROOT / "tests/fixtures/parsing/heldout_replies.json").read_text())


def read(reply: str, response_format: str) -> Action | None:
    options = OPTIONS if response_format == "choice" else ()
    fmt: ResponseFormat = response_format  # type: ignore[assignment]
    return parse_action(reply, fmt, options).action


def test_the_corpus_is_large_and_covers_every_format() -> None:
    assert len(CORPUS) >= 150
    assert {fmt for _, fmt, _ in CORPUS} == {"action", "choice", "free"}
    assert sum(expected is None for _, _, expected in CORPUS) >= 20


@pytest.mark.parametrize(("reply", "response_format", "expected"), CORPUS)
def test_the_action_committed_to_is_read(
    reply: str, response_format: str, expected: Action | None
) -> None:
    assert read(reply, response_format) == expected


def test_the_held_out_options_are_the_corpus_options() -> None:
    assert HELDOUT["options"] == [str(option) for option in OPTIONS]


@pytest.mark.parametrize(
    "case", HELDOUT["cases"], ids=[str(index) for index in range(len(HELDOUT["cases"]))]
)
def test_held_out_replies(case: dict[str, str | None]) -> None:
    expected = case["expected"]
    action = (
        None if expected is None else PASS if expected == "Pass" else Action.from_text(expected)
    )
    assert read(str(case["reply"]), str(case["format"])) == action
