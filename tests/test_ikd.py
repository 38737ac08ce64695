"""tasks/ikd.py end to end on the fixture data: the seed's Table 9 prompt and the ablations'
additions, reading the conclusion and the quoted error, classification and localisation as
the seed's section 3.2 defines them, bad parameters, and a real local model."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai._util.error import PrerequisiteError
from knowledge_support import FIXTURES, QUIRKS, metrics, run_smollm2, scripted

from conftest import LOCAL_MODEL, NEEDS_LOCAL_MODEL, inspect_eval
from tasks.ikd import ikd
from tom_eval.knowledge.parsing import Verdict, logical_error, read_verdict, word_iou
from tom_eval.registry import report_sections
from tom_eval.report.writer import write_report

# ------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            'Reasoning: x\n\nLogical Error: "He knew the code."\n\nConclusion: Yes',
            Verdict(True, "He knew the code", "conclusion"),
        ),
        ("**Logical Error:** NA\n\n**Conclusion:** No", Verdict(False, "", "conclusion")),
        ('Logical Error: N/A\nConclusion: {"No"}', Verdict(False, "", "conclusion")),
        ("Conclusion: yes, clearly", Verdict(True, "", "conclusion")),
        (
            "Logical Error:\n- She opened the vault.\n- She smiled.\n\nReasoning: later",
            Verdict(True, "- She opened the vault.\n- She smiled", "logical_error"),
        ),
        ("Logical Error: None", Verdict(False, "", "logical_error")),
        ("The story is fine.", Verdict(None, "", None)),
        # Issue 19: a label in running prose is not the format's section, so no verdict.
        ("There are no logical errors: the story is consistent.", Verdict(None, "", None)),
        ("Logical Error: None found.", Verdict(False, "", "logical_error")),
        ("Logical Error: There are no logical errors.", Verdict(False, "", "logical_error")),
        (
            "Logical Error: No one could have known the code.",
            Verdict(True, "No one could have known the code", "logical_error"),
        ),
        ("Conclusion: maybe", Verdict(None, "", None)),
        # Both answers, a negated one, or NA (the section's word) conclude nothing.
        ("Conclusion: Yes and No", Verdict(None, "", None)),
        ("Conclusion: **Yes/No**", Verdict(None, "", None)),
        ("Conclusion: No or yes?", Verdict(None, "", None)),
        ("Conclusion: Not yes.", Verdict(None, "", None)),
        ("Conclusion: N/A", Verdict(None, "", None)),
        ("Logical Error: NA\nConclusion: N/A", Verdict(False, "", "logical_error")),
        ("Conclusion: Yes, and no one could have known.", Verdict(True, "", "conclusion")),
        ("Conclusion: NA - no inconsistencies", Verdict(False, "", "conclusion")),
        # ...but both named after the answer leave it standing.
        ("Conclusion: No - I went back and forth on yes and no.", Verdict(False, "", "conclusion")),
        ("Conclusion: Yes or No: Yes", Verdict(True, "", "conclusion")),
        ("Conclusion: **Yes** (the format asks for Yes or No.)", Verdict(True, "", "conclusion")),
        # A section that opens as the placeholder and quotes is a quote.
        (
            'Logical Error: If a logic error exists, quote the sentences: "Mary baked."',
            Verdict(
                True, 'If a logic error exists, quote the sentences: "Mary baked', "logical_error"
            ),
        ),
        # A copy of the whole format block quotes nothing.
        (
            "Logical Error: {If a logic error exists, quote the sentences containing the "
            'logical error; If not, output "NA"}\n\nConclusion: {"Yes" if you find a logic '
            'error; "No" if no logic error exists}',
            Verdict(None, "", None),
        ),
        # A Conclusion line's one Yes or No decides, wherever it stands in the line.
        (
            'Logical Error: "When Mary arrived, she asked."\nConclusion: On balance, no.',
            Verdict(False, "When Mary arrived, she asked", "conclusion"),
        ),
        ("Logical Error: NA\nConclusion: After reflection, yes.", Verdict(True, "", "conclusion")),
        ("Logical Error: NA\nConclusion: 1. Yes", Verdict(True, "", "conclusion")),
        # A copy of the format line concludes nothing: the section decides.
        (
            'Logical Error: NA\nConclusion: {"Yes" if you find a logic error; "No" if not}',
            Verdict(False, "", "logical_error"),
        ),
        # The section ends at a markdown heading or a numbered Conclusion line.
        (
            'Logical Error: "He knew the code."\n\n### Conclusion: Yes',
            Verdict(True, "He knew the code", "conclusion"),
        ),
        (
            'Logical Error: "He knew the code."\n1. Conclusion: Yes',
            Verdict(True, "He knew the code", "conclusion"),
        ),
        # Markdown headings without a colon, the answer on the lines below.
        (
            '### Logical Error\n"He knew the code."\n### Conclusion\nYes',
            Verdict(True, "He knew the code", "conclusion"),
        ),
        ("**Logical Error**\nNA\n\n**Conclusion**\nNo", Verdict(False, "", "conclusion")),
        # A quoted sentence of the story is a quote, whatever its first word.
        (
            'Logical Error: "Nothing in his face surprised her."\nConclusion: Yes',
            Verdict(True, "Nothing in his face surprised her", "conclusion"),
        ),
        (
            "Logical Error: Nothing in his face surprised her when he told Lena.",
            Verdict(True, "Nothing in his face surprised her when he told Lena", "logical_error"),
        ),
        ('Logical Error: "NA"', Verdict(False, "", "logical_error")),
        # A denial runs into punctuation or a word saying nothing was found, however long.
        (
            "Logical Error: None. The story is internally consistent.",
            Verdict(False, "", "logical_error"),
        ),
        (
            "Logical Error: NA - the story has no logical inconsistencies",
            Verdict(False, "", "logical_error"),
        ),
        ("Logical Error: None found in this story at all.", Verdict(False, "", "logical_error")),
        (
            "Logical Error: None of the guests saw her leave.",
            Verdict(True, "None of the guests saw her leave", "logical_error"),
        ),
        ("Logical Error: None of the sentences is wrong.", Verdict(False, "", "logical_error")),
        # Denials as models write them, and story sentences that open like them.
        *[
            (f"Logical Error: {denial}", Verdict(False, "", "logical_error"))
            for denial in (
                "None\nThe story is consistent.",
                "**None** (the story is consistent)",
                "N.A.",
                "None that I can see.",
                "Nothing stands out as illogical.",
                "None whatsoever.",
                '"NA" - the story is consistent.',
                '"No logical errors found."',
                "No contradictions.",
                "The story is logically consistent.",
                "'NA' - the story is consistent.",
            )
        ],
        *[
            (f"Logical Error: {sentence}", Verdict(True, quote, "logical_error"))
            for sentence, quote in (
                ('"No," she said, "I never told him."', 'No," she said, "I never told him'),
                ("No-one saw her leave.", "No-one saw her leave"),
                ("Nothing seemed to bother her.", "Nothing seemed to bother her"),
                ("Nathan knew the code.", "Nathan knew the code"),
                ('"Nothing here had changed."', "Nothing here had changed"),
                ('"No problems arose during the trip."', "No problems arose during the trip"),
                ('"None, except Anna, saw the key."', "None, except Anna, saw the key"),
                (
                    '"No", said Mary, "the ball is in the box."',
                    'No", said Mary, "the ball is in the box',
                ),
                (
                    '"The story is consistent with what Tom saw."',
                    "The story is consistent with what Tom saw",
                ),
                (
                    "No, Tom could not have seen the ball moved.",
                    "No, Tom could not have seen the ball moved",
                ),
                (
                    "The story is consistent until Tom says he saw it.",
                    "The story is consistent until Tom says he saw it",
                ),
            )
        ],
        # A Conclusion in words, for or against an error; a sentence of neither commits
        # to nothing.
        ("Conclusion: The story contains a logical error.", Verdict(True, "", "conclusion")),
        (
            "Conclusion: There is a subtle inconsistency: Tom could not know.",
            Verdict(True, "", "conclusion"),
        ),
        ("Conclusion: The story is logically consistent.", Verdict(False, "", "conclusion")),
        ("Conclusion: The story contains no errors.", Verdict(False, "", "conclusion")),
        ("Conclusion: Tom could not have known.", Verdict(None, "", None)),
        # The bold label's closing, then the verdict on the next line.
        (
            "**Logical Error:**\nThe story contains no logical errors.\n\n**Conclusion:**\nNo",
            Verdict(False, "", "conclusion"),
        ),
    ],
)
def test_the_conclusion_and_the_quote_are_read(reply: str, expected: Verdict) -> None:
    assert read_verdict(reply) == expected


def test_the_last_labelled_section_counts() -> None:
    reply = (
        "Logical Error: A.\nConclusion: No\n\nOn reflection:\nLogical Error: B.\nConclusion: Yes"
    )
    assert read_verdict(reply) == Verdict(True, "B", "conclusion")
    assert logical_error("no section here") is None


def test_word_iou() -> None:
    assert word_iou("He knew the code.", "he KNEW the code") == 1.0
    assert word_iou("a b c d", "c d e") == pytest.approx(2 / 5)
    # Repeated words count as often as they occur.
    assert word_iou("the cat saw the dog", "the dog") == pytest.approx(2 / 5)
    assert word_iou("Sam\u2019s tin", "Sam's tin") == 1.0
    assert word_iou("", "anything") == word_iou("anything", "") == 0.0


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_reading_never_raises_and_iou_is_a_symmetric_share(reply: str, gold: str) -> None:
    verdict = read_verdict(reply)
    assert verdict.error_found in (True, False, None)
    assert 0.0 <= word_iou(gold, verdict.quote) <= 1.0
    assert word_iou(gold, reply) == word_iou(reply, gold)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters=":\uff1a")))
def test_a_reply_without_the_formats_labels_commits_to_nothing(reply: str) -> None:
    """Without a "Conclusion:" or "Logical Error:" label (no colon at all), no verdict is
    read, whatever the reply says about errors."""
    assert read_verdict(reply) == Verdict(None, "", None)


# ----------------------------------------------------------------------------- prompts


def test_the_prompt_is_the_seeds_table_9() -> None:
    sample = ikd(data_dir=str(FIXTURES), stories="original").dataset[2]
    assert sample.id == "original_3" and sample.target == "No"
    story = str(sample.input).split("<story>\n", 1)[1].split("\n<\\story>", 1)[0]
    assert str(sample.input) == (
        "Your task is to determine if there are any logical errors in the given story. A logic "
        "error is an inconsistency in a storyline that goes against the flow of logic "
        "established by the story's plot.\n\n"
        f"Story:\n<story>\n{story}\n<\\story>\n\n"
        "Notes:\n- Focus only on logical errors — not stylistic, grammatical, or moral "
        "judgments.\n\n"
        "Output Format:\nReasoning: {Explain your reasoning process}\n\n"
        "Logical Error: {If a logic error exists, quote the sentences containing the logical "
        'error; If not, output "NA"}\n\n'
        'Conclusion: {"Yes" if you find a logic error; "No" if no logic error exists}'
    )
    assert story.startswith("Lena ran a small bakery") and story.endswith("honey cake.")


def test_the_ablations_highlight_the_event_and_the_knowledge() -> None:
    def prompt(**arguments: Any) -> str:
        dataset = ikd(data_dir=str(FIXTURES), stories="error", **arguments).dataset
        return str(next(s for s in dataset if s.id == "error_2").input)

    event = (
        "Highlighted event (part of the story):\n<event>\nAda thanked her, walked back to the "
        "study, and asked Jonah where he had been during the storm. Jonah said he had been "
        "reading by the fire all evening, then asked why Mrs. Bell had chosen the flour tin of "
        "all places.\n</event>\n"
    )
    knowledge = (
        "Highlighted earlier content (part of the story, before the event):\n<knowledge>\n"
        "The cook admitted that "
        "she had hidden the watch"
    )
    focus = "- Pay attention to what each character knows"
    plain, first, second = (
        prompt(),
        prompt(highlight="error"),
        prompt(highlight="error_and_knowledge"),
    )
    third = prompt(highlight="error_and_knowledge", focus_on_knowledge=True)
    assert event not in plain and knowledge not in plain and focus not in plain
    assert event in first and knowledge not in first and focus not in first
    assert "- Determine whether the highlighted event contains a logical error.\n" in first
    assert event in second and knowledge in second and focus not in second
    assert "contains a logical error given the highlighted content." in second
    assert event in third and knowledge in third and focus in third
    assert focus in str(ikd(data_dir=str(FIXTURES), focus_on_knowledge=True).dataset[0].input)


def test_the_highlighted_knowledge_is_headed_by_where_it_stands() -> None:
    """In the authors' data the knowledge follows the error more often than it precedes
    it, overlaps it in a few stories, and is often not a quotation at all: the quirks
    fixture has one of each, and each heading says the truth."""
    dataset = ikd(data_dir=str(QUIRKS), stories="error", highlight="error_and_knowledge").dataset
    headings = {
        str(sample.id): str(sample.input).split("\nHighlighted ")[2].split(":\n<knowledge>")[0]
        for sample in dataset
    }
    assert headings == {
        "error_1": "earlier content (part of the story, before the event)",
        "error_2": "later content (part of the story, after the event)",
        "error_3": "content (part of the story, overlapping the event)",
        "error_4": "content (what the story tells, in other words than the story's)",
    }
    places = [(sample.metadata or {})["knowledge_place"] for sample in dataset]
    assert places == ["before", "after", "overlapping", "not_verbatim"]


def test_stories_choose_the_samples() -> None:
    assert [s.id for s in ikd(data_dir=str(FIXTURES)).dataset] == [
        "original_1", "original_2", "original_3", "error_1", "error_2", "error_3", "error_4",
    ]  # fmt: skip
    assert len(ikd(data_dir=str(FIXTURES), stories="error").dataset) == 4
    assert [s.id for s in ikd(data_dir=str(FIXTURES), genre="romance").dataset] == [
        "original_3",
        "error_1",
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"stories": "some"}, "ikd: stories must be one of all, original, error, not 'some'"),
        ({"highlight": "all"}, "ikd: highlight must be one of none, error, error_and_knowledge, "
         "not 'all'"),
        ({"highlight": "error"}, "ikd: highlight=error needs stories=error (an original story "
         "has no erroneous event to highlight)"),
        ({"focus_on_knowledge": 1}, "ikd: focus_on_knowledge must be true or false, not '1'"),
    ],
)  # fmt: skip
def test_bad_parameters_are_one_line(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError) as raised:
        ikd(data_dir=str(FIXTURES), **arguments)
    assert raised.value.message == message


# ------------------------------------------------------------------------------ scoring

REPLIES = {
    # story text that identifies the sample -> the reply
    "glad to know she liked him": (
        'Logical Error: "He paid for his rye and told Lena he was glad to know she liked him."'
        "\n\nConclusion: Yes"
    ),
    "flour tin of all places": (
        "Logical Error: then asked why Mrs. Bell had chosen the flour tin of all places"
        "\n\nConclusion: Yes"
    ),
    "Leo pointed straight": "Logical Error: NA\n\nConclusion: No",
    "Meanwhile Jonah walked": "Logical Error: Jonah lifted the lid.\n\nConclusion: Yes",
    "Inspector Ada Vale": "Reasoning: fine.\n\nLogical Error: NA\n\nConclusion: No",
    "Mia had a red kite": "Logical Error: The string snapped.\n\nConclusion: Yes",
    "Lena ran a small bakery": "I liked this story.",
}


def scripted_reader() -> Any:
    """Answers by the first entry of REPLIES whose text the story holds (the error
    stories' own sentences come before their originals' openings)."""

    def reply(prompt: str) -> str:
        return next(answer for text, answer in REPLIES.items() if text in prompt)

    return scripted(reply)


def test_classification_and_localisation_as_the_seed_defines_them(tmp_path: Path) -> None:
    (log,) = inspect_eval(
        ikd(data_dir=str(FIXTURES)), model=scripted_reader(), log_dir=str(tmp_path), display="none"
    )
    classification = metrics(log, "classification")
    assert classification["accuracy"] == pytest.approx(4 / 7)
    assert classification["tom_eval/genre_mystery"] == 1.0  # original_1, error_2, error_4
    assert classification["tom_eval/genre_kids"] == 0.0  # original_2, error_3
    assert metrics(log, "classification_original")["accuracy"] == pytest.approx(1 / 3)
    assert metrics(log, "classification_error")["accuracy"] == pytest.approx(3 / 4)
    # Erroneous stories with a gold span: IoU 1 (error_1), 13/24 (error_2), not detected
    # (error_3); error_4 has none and is left out. Originals: 1 for the one called consistent.
    assert metrics(log, "localisation_error")["mean"] == pytest.approx((1 + 13 / 24) / 3)
    assert metrics(log, "localisation")["mean"] == pytest.approx((2 + 13 / 24) / 6)
    assert metrics(log, "iou_detected")["mean"] == pytest.approx((1 + 13 / 24) / 2)
    assert metrics(log, "called_error")["mean"] == pytest.approx(4 / 7)
    assert metrics(log, "invalid")["mean"] == pytest.approx(1 / 7)
    scores = {s.id: s.scores["ikd_scorer"] for s in log.samples or [] if s.scores}
    assert scores["error_2"].explanation == (
        "Yes (a logic error) for an erroneous story (read from conclusion)\n"
        "quoted: then asked why Mrs. Bell had chosen the flour tin of all places\n"
        "word IoU with the gold span: 0.54"
    )
    assert scores["error_4"].explanation is not None
    assert scores["error_4"].explanation.endswith("no gold span: left out of localisation")
    assert scores["original_3"].answer == ""
    # The report's interval of a mean of IoUs is Wilson's of their sum: never zero-wide,
    # inside [0, 1] (a normal interval of IoUs that agree was [1.000, 1.000]).
    write_report([tmp_path], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "ikd.csv").to_dict("records")
    mean = (1 + 13 / 24) / 3
    assert row["localisation_error"] == pytest.approx(mean)
    expected = wilson_interval(1 + 13 / 24, 3)
    assert (row["localisation_error_low"], row["localisation_error_high"]) == pytest.approx(
        expected
    )


# -------------------------------------------------------------------------- a real model


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_the_packaged_model_takes_ikd(tmp_path: Path) -> None:
    stories = ["original_2", "error_1"]
    run_smollm2(ikd(data_dir=str(FIXTURES)), tmp_path, sample_id=stories, max_tokens=64)


def wilson_interval(successes: float, trials: int) -> tuple[float, float]:
    """Wilson's 95% score interval, written out here to check the report's."""
    z = 1.959963984540054
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials**2)) / (1 + z * z / trials)
    return centre - half, centre + half
