"""The false-belief items: the generator keeps Kosinski's design for every seed,
and item files load, derive reversals, round-trip and fail on one line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tom_eval.errors import InputError
from tom_eval.false_belief.generation import generate_items, split_sentences, verify
from tom_eval.false_belief.item_file import item_fields, read_items, write_items
from tom_eval.false_belief.items import (
    CONDITIONS,
    PERTURBATIONS,
    Completion,
    Item,
    Story,
)

ROOT = Path(__file__).resolve().parents[1]
SEEDS = st.integers(min_value=0, max_value=10**6)

# Which key word answers (reality, belief) in the paper's design: 0 is the item's first key
# word (true contents; new location), 1 its second (label; original location), None no key
# word. A reversed story swaps them. Written out here, apart from the generator's worlds.
PAPER: dict[str, dict[str, tuple[int, int | None]]] = {
    "contents": {
        "false_belief": (0, 1),
        "open_container": (0, 0),
        "correct_label": (0, 0),
        "informed_protagonist": (0, 0),
        "transparent_container": (0, 0),
        "cannot_read": (0, None),
        "own_label": (0, 0),
    },
    "transfer": {
        "false_belief": (0, 1),
        "present_protagonist": (0, 0),
        "informed_protagonist": (0, 0),
        "no_transfer": (1, 1),
    },
}


def occurrences(text: str, *phrases: str) -> list[int]:
    """Whole-word occurrences of each phrase, counted on the word sequence (independently
    of the module's regular expressions)."""
    words = f" {' '.join(re.findall(r'[a-z]+', text.lower()))} "
    return [
        words.count(f" {' '.join(re.findall(r'[a-z]+', phrase.lower()))} ") for phrase in phrases
    ]


def swapped(text: str, first: str, second: str) -> str:
    """`text` with two lower-case phrases exchanged, through a placeholder."""
    marker = "\x00"
    text = re.sub(rf"\b{re.escape(first)}\b", marker, text)
    text = re.sub(rf"\b{re.escape(second)}\b", first, text)
    return text.replace(marker, second)


def protagonist(item: Item) -> str:
    return item.stories[0].belief.stem.split()[0]


# ---------------------------------------------------------------------------- generator


def assert_sound(item: Item) -> None:
    assert verify(item) == []
    first, second = item.key_words
    assert first.split()[0] != second.split()[0]
    assert len(item.standard) == 8
    assert sum(len(story.prompts) for story in item.standard) == 16
    for story in item.stories:
        # The paper's word-frequency control, in every story.
        first_count, second_count = occurrences(story.text, first, second)
        assert first_count == second_count > 0
        assert occurrences(story.reality.stem + " " + story.belief.stem, first, second) == [0, 0]
        assert split_sentences(story.text) == story.sentences


@settings(max_examples=100, deadline=None)  # 4,000 items, in 5 s
@given(seed=SEEDS)
def test_every_generated_item_keeps_the_design(seed: int) -> None:
    items = generate_items(seed=seed)
    assert [item.family for item in items] == ["contents"] * 20 + ["transfer"] * 20
    for item in items:
        assert_sound(item)
        assert not item.perturbations


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS)
def test_every_perturbed_item_keeps_the_design(seed: int) -> None:
    for item in generate_items(20, 0, seed, perturbations=True):
        assert_sound(item)
        assert sorted(story.condition for story in item.perturbations) == sorted(
            PERTURBATIONS["contents"] * 2
        )


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS)
def test_expected_answers_are_the_papers(seed: int) -> None:
    for item in generate_items(seed=seed, perturbations=True):
        table = PAPER[item.family]
        assert sorted((story.condition, story.reversed) for story in item.stories) == sorted(
            (condition, reversed_) for condition in table for reversed_ in (False, True)
        )
        for story in item.stories:
            for completion, index in zip(story.prompts, table[story.condition], strict=True):
                if index is None:
                    # Only the label is wrong for a protagonist who cannot read it.
                    assert completion.expected is None
                    assert completion.wrong == item.key_words[1 - story.reversed]
                    continue
                right = item.key_words[index ^ story.reversed]
                assert (completion.expected, completion.wrong) == (
                    right,
                    item.key_words[1 - item.key_words.index(right)],
                )


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS)
def test_reversals_swap_the_key_words_everywhere(seed: int) -> None:
    for item in generate_items(seed=seed, perturbations=True):
        first, second = (word.lower() for word in item.key_words)
        stories = {(story.condition, story.reversed): story for story in item.stories}
        for (condition, reversed_), story in stories.items():
            if reversed_:
                continue
            reversal = stories[(condition, True)]
            assert reversal.text == swapped(story.text, first, second)
            assert reversal.text != story.text
            assert [c.stem for c in reversal.prompts] == [c.stem for c in story.prompts]


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_key_words_answer_equally_often(seed: int) -> None:
    """Each key word is the right answer to 8 of an item's 16 prompts, so answering by a
    favourite word, or always by the label, cannot solve a task."""
    for item in generate_items(seed=seed):
        answers = Counter(
            completion.expected for story in item.standard for completion in story.prompts
        )
        assert answers == dict.fromkeys(item.key_words, 8)


@settings(max_examples=30, deadline=None)
@given(first=SEEDS, second=SEEDS)
def test_the_seed_decides_the_items(first: int, second: int) -> None:
    assert generate_items(2, 2, first) == generate_items(2, 2, first)
    if first != second:
        assert generate_items(2, 2, first) != generate_items(2, 2, second)


def test_default_battery_is_20_contents_and_20_transfer_items() -> None:
    items = generate_items()
    assert [item.item_id for item in items] == [f"contents-{n:02d}" for n in range(1, 21)] + [
        f"transfer-{n:02d}" for n in range(1, 21)
    ]
    assert sum(len(story.prompts) for item in items for story in item.standard) == 40 * 16
    assert all(not item.perturbations for item in items)


def test_an_item_does_not_depend_on_the_counts_or_the_perturbations() -> None:
    full = generate_items(seed=5)
    assert generate_items(3, 4, seed=5) == full[:3] + full[20:24]
    assert generate_items(0, 0) == []
    with_perturbations = generate_items(seed=5, perturbations=True)
    assert [replace(item, stories=item.standard) for item in with_perturbations] == full


def test_negative_counts_are_refused() -> None:
    with pytest.raises(InputError, match="contents must be a whole number"):
        generate_items(contents=-1)


def test_the_items_are_the_same_in_another_interpreter() -> None:
    """String seeds, not hash(): a fresh process with another hash seed agrees."""
    script = (
        "import json; from tom_eval.false_belief.generation import generate_items;"
        " from tom_eval.false_belief.item_file import item_fields;"
        " print(json.dumps([item_fields(i) for i in generate_items(4, 4, 9, True)]))"
    )
    environment = os.environ | {"PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    here = [item_fields(item) for item in generate_items(4, 4, 9, True)]
    assert json.loads(result.stdout) == here


def test_the_vocabulary_varies() -> None:
    items = generate_items()
    assert len({protagonist(item) for item in items}) >= 10
    assert len({frozenset(item.key_words) for item in items}) >= 10
    contents = [item for item in items if item.family == "contents"]
    transfer = [item for item in items if item.family == "transfer"]
    assert len({frozenset(item.key_words) for item in contents}) >= 10
    assert len({frozenset(item.key_words) for item in transfer}) >= 10
    # Both animals that jump out and things that fall out are moved.
    verbs = {item.stories[0].reality.stem.split()[-4] for item in transfer}
    assert verbs & {"jumps", "leaps"}
    assert verbs & {"falls", "tumbles"}


def test_perturbations_alter_the_contents_false_belief_story() -> None:
    item = generate_items(1, 0, seed=3, perturbations=True)[0]
    stories = {(story.condition, story.reversed): story for story in item.stories}
    false_belief = stories[("false_belief", False)].text
    for condition in PERTURBATIONS["contents"]:
        assert stories[(condition, False)].text != false_belief
    assert "cannot read" in stories[("cannot_read", False)].text
    assert "clear" in stories[("transparent_container", False)].text
    assert "as a joke" in stories[("own_label", False)].text
    assert not generate_items(0, 1, perturbations=True)[0].perturbations


def sound_item() -> Item:
    return generate_items(1, 0, seed=11)[0]


def with_story(item: Item, index: int, story: Story) -> Item:
    stories = list(item.stories)
    stories[index] = story
    return replace(item, stories=tuple(stories))


def unequal_counts(item: Item) -> Item:
    story = item.stories[0]
    extra = f"{item.key_words[0].capitalize()} is lovely."
    return with_story(item, 0, replace(story, sentences=(*story.sentences, extra)))


def key_word_in_stem(item: Item) -> Item:
    story = item.stories[0]
    stem = f"{story.belief.stem} {item.key_words[1]} or"
    return with_story(item, 0, replace(story, belief=replace(story.belief, stem=stem)))


def wrong_expectation(item: Item) -> Item:
    story = item.stories[0]
    belief = Completion("belief", story.belief.stem, item.key_words[0], item.key_words[1])
    return with_story(item, 0, replace(story, belief=belief))


def missing_story(item: Item) -> Item:
    return replace(item, stories=item.stories[:-1])


def unswapped_reversal(item: Item) -> Item:
    story = item.stories[1]
    return with_story(item, 1, replace(story, sentences=(*story.sentences[:-1], "Maybe not.")))


def shared_first_word(item: Item) -> Item:
    return replace(item, key_words=("apple juice", "apple pie"))


@pytest.mark.parametrize(
    ("break_item", "problem"),
    [
        (unequal_counts, "occurs"),
        (key_word_in_stem, "names a key word"),
        (wrong_expectation, "the story implies"),
        (missing_story, "not the 4 conditions"),
        (unswapped_reversal, "keys swapped"),
        (shared_first_word, "share a first word"),
    ],
)
def test_verify_finds_a_broken_item(break_item: Any, problem: str) -> None:
    assert verify(sound_item()) == []
    assert any(problem in found for found in verify(break_item(sound_item())))


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two! Three?", ("One.", "Two!", "Three?")),
        ('It says "figs". She reads it.', ('It says "figs".', "She reads it.")),
        ('"Go." He went.', ('"Go."', "He went.")),
        ("Mr. Ito waits.  Then\nhe leaves.", ("Mr. Ito waits.", "Then\nhe leaves.")),
        ("It costs 3.50 dollars. e.g. not this", ("It costs 3.50 dollars. e.g. not this",)),
        ("", ()),
    ],
)
def test_split_sentences(text: str, sentences: tuple[str, ...]) -> None:
    assert split_sentences(text) == sentences


# ---------------------------------------------------------------------------- item files


def test_written_items_read_back_exactly(tmp_path: Path) -> None:
    items = generate_items(seed=21, perturbations=True)
    path = tmp_path / "items.jsonl"
    write_items(path, items)
    assert read_items(path) == items
    first = path.read_bytes()
    write_items(path, read_items(path))
    assert path.read_bytes() == first


def test_missing_reversals_are_derived(tmp_path: Path) -> None:
    items = generate_items(3, 3, seed=4, perturbations=True)
    path = tmp_path / "originals.jsonl"
    lines = []
    for item in items:
        fields = item_fields(item)
        fields["stories"] = [story for story in fields["stories"] if not story["reversed"]]
        for story in fields["stories"]:
            del story["reversed"]  # optional, false by default
        lines.append(json.dumps(fields))
    path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    assert read_items(path) == items


def test_a_hand_written_item_loads_and_reverses_case_preserving(tmp_path: Path) -> None:
    story = {
        "text": "Raisins fill the tin. It holds no pretzels. The label says pretzels.",
        "reality": {"stem": "Ada opens it. It is full of", "expected": "raisins"},
        "belief": {"stem": "Ada thinks it is full of", "expected": "pretzels"},
    }
    stories = [
        story | {"condition": condition}
        for condition in ("false_belief", "open_container", "correct_label")
    ] + [story | {"condition": "cannot_read", "belief": {"stem": "Ada says", "expected": None}}]
    stories.append(story | {"condition": "informed_protagonist", "text": "Short. Story."})
    line = {"id": "mine", "family": "contents", "key_words": ["raisins", "pretzels"]}
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(line | {"stories": stories}), encoding="utf-8")
    (item,) = read_items(path)
    assert [story.condition for story in item.standard[::2]] == list(CONDITIONS["contents"])
    reversal = next(s for s in item.stories if s.condition == "false_belief" and s.reversed)
    assert reversal.sentences == (
        "Pretzels fill the tin.",
        "It holds no raisins.",
        "The label says raisins.",
    )
    assert (reversal.reality.expected, reversal.reality.wrong) == ("pretzels", "raisins")
    cannot_read = [s for s in item.stories if s.condition == "cannot_read"]
    assert [(s.belief.expected, s.belief.wrong) for s in cannot_read] == [
        (None, "pretzels"),
        (None, "raisins"),
    ]


def good_line() -> dict[str, Any]:
    return item_fields(generate_items(0, 1, seed=2)[0])


def bad(change: Any) -> dict[str, Any]:
    fields = good_line()
    change(fields)
    return fields


def story_field(index: int, name: str, value: Any) -> Any:
    return lambda fields: fields["stories"][index].__setitem__(name, value)


BAD_LINES: list[tuple[str, str]] = [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "expected an object"),
    (json.dumps(bad(lambda fields: fields.pop("id"))), "missing 'id'"),
    (json.dumps(bad(lambda fields: fields.update(family="smarties"))), "unknown family"),
    (json.dumps(bad(lambda fields: fields.update(key_words=["box"]))), "two words"),
    (
        json.dumps(bad(lambda fields: fields.update(key_words=["apple juice", "apple pie"]))),
        "cannot be told apart",
    ),
    (json.dumps(bad(lambda fields: fields.update(stories=[]))), "'stories' must be"),
    (json.dumps(bad(story_field(0, "condition", "open_container"))), "unknown condition"),
    (json.dumps(bad(story_field(0, "reversed", "yes"))), "'reversed' must be true or false"),
    (json.dumps(bad(story_field(0, "text", ""))), "'text' must be a non-empty string"),
    (
        json.dumps(bad(story_field(0, "reality", {"stem": "It is in the", "expected": "sofa"}))),
        "'expected' must be",
    ),
    (
        json.dumps(bad(story_field(0, "reality", {"stem": "It is in the", "expected": None}))),
        "'expected' must be",
    ),
    (json.dumps(bad(story_field(0, "belief", "in the box"))), "'belief' must be an object"),
    (
        json.dumps(bad(lambda fields: fields["stories"].pop(0))),
        "missing condition false_belief",
    ),
    (
        json.dumps(bad(lambda fields: fields["stories"].append(fields["stories"][2]))),
        "repeats present_protagonist",
    ),
    (json.dumps(good_line()), "appears twice"),
]


@pytest.mark.parametrize(("line", "problem"), BAD_LINES)
def test_a_malformed_line_is_one_error_naming_file_and_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good_line()) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_items(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path} line 2")
    assert problem in message


def test_a_perturbation_reversal_needs_its_original(tmp_path: Path) -> None:
    fields = item_fields(generate_items(1, 0, perturbations=True)[0])
    fields["stories"] = [
        story
        for story in fields["stories"]
        if not (story["condition"] == "own_label" and not story["reversed"])
    ]
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(fields) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 1 \(item contents-01\): own_label \(reversed\)"):
        read_items(path)


@pytest.mark.parametrize(("content", "problem"), [("", "no items"), ("\n \n", "no items")])
def test_an_empty_file_is_refused(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=problem):
        read_items(path)


def test_a_missing_file_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_items(tmp_path / "absent.jsonl")
