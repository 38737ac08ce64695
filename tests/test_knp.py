"""tasks/knp.py end to end on the fixture data: the seed's Table 8 prompt, reading the answer
letter, the option orders, accuracy / knowledge leak / invalid / per genre / order
consistency, the open-ended variant judged by a scripted grader, bad parameters, and a real
local model."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai import score as inspect_score
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog
from inspect_ai.model import Model
from knowledge_support import FIXTURES, metrics, run_smollm2, scripted

from conftest import LOCAL_MODEL, NEEDS_LOCAL_MODEL, ROOT, inspect_eval, printed_under_hash_seeds
from scorers.knp import knp_scorer
from tasks.knp import knp
from tom_eval.knowledge.dataset import correct_letters
from tom_eval.knowledge.parsing import choice_letter, judge_verdict, open_answer
from tom_eval.knowledge.prompts import judge_prompt
from tom_eval.registry import report_sections
from tom_eval.report.writer import write_report

OPTIONS = {"A": "Walk north along the lake.", "B": "Go to the hidden gap behind the brush."}


def run(
    tmp_path: Path, model: Model, roles: dict[str, Model] | None = None, **task_args: Any
) -> EvalLog:
    (log,) = inspect_eval(
        knp(data_dir=str(FIXTURES), **task_args),
        model=model,
        model_roles=roles,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def option_lines(prompt: str) -> dict[str, str]:
    """The options as the prompt shows them."""
    answers = prompt.split("Answers:\n", 1)[1].split("\n\n", 1)[0]
    return {line[0]: line[3:] for line in answers.splitlines()}


# ------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Reasoning:\nHe cannot know.\n\nAnswer: B", ("B", "answer_line")),
        ('**Reasoning:** x\n\n**Answer:** {"A"}', ("A", "answer_line")),
        ("Answer: Option B.", ("B", "answer_line")),
        ("Final answer: (A)", ("A", "answer_line")),
        ("Answer: B\n...\nAnswer: A", ("A", "answer_line")),
        # The authors' bold label, the letter on the line after it.
        ("**Reasoning:** x\n**Answer:**\nB", ("B", "answer_line")),
        ("**Answer:**\n\n**A**", ("A", "answer_line")),
        ("Answer: walk north along the lake", ("A", "answer_line_text")),
        ("B", ("B", "bare_letter")),
        (" **A.** ", ("A", "bare_letter")),
        ("He would go to the hidden gap behind the brush.", ("B", "option_text")),
        ("A careful reader would choose B here.", ("B", "stated")),
        # Issue 17: a stated letter beats the other option's text quoted in the reasoning.
        (
            'A: The answer is "A" because he cannot know of the hidden gap behind the brush.',
            ("A", "stated"),
        ),
        ("B) Go to the hidden gap behind the brush.", ("B", "stated")),
        ("I would choose A, not the hidden gap behind the brush.", ("A", "stated")),
        # One option's letter with the other's text contradicts itself.
        ("A: Go to the hidden gap behind the brush.", (None, None)),
        ("A: I choose B.", (None, None)),
        ("Option B seems natural.", ("B", "mention")),
        ('Answer: {"A" or "B"}', (None, None)),
        ("A man walks to the lake.", (None, None)),
        ("Option A or option B, hard to say.", (None, None)),
        ('The answer is "A" or "B"', (None, None)),
        ('The answer is "B" and the reasoning is "A"', ("B", "stated")),
        ("", (None, None)),
        # An Answer line decides alone: the reasoning's rejected option is not read instead.
        ("Reasoning: Option A relies on the map.\nAnswer: Probably B", ("B", "answer_line")),
        ("Reasoning: Option A relies on the map.\nAnswer: b", ("B", "answer_line")),
        ("Reasoning: Option A relies on the map.\nAnswer: B (not A)", ("B", "answer_line")),
        ("Reasoning: Option A relies on the map.\nAnswer: Neither option fits", (None, None)),
        ("Answer: he would walk north along the lake", ("A", "answer_line_text")),
        ("### Answer\nB", ("B", "answer_line")),
        # 7-A: without an Answer line, a boxed answer is one (unread before).
        ("Reasoning: he cannot know.\n\n\\boxed{B}", ("B", "answer_line")),
        ("The answer is $\\boxed{\\text{A}}$.", ("A", "answer_line")),
        ("Answer: A\n\\boxed{B}", ("A", "answer_line")),
        ("Option A relies on the map. \\boxed{C}", (None, None)),
        # A rejected letter is no statement.
        ("I would not choose A, since he cannot know. B is right.", (None, None)),
        ("It would be a mistake to pick A: he cannot know.", (None, None)),
    ],
)
def test_the_answer_letter_is_read_with_fallbacks(
    reply: str, expected: tuple[str | None, str | None]
) -> None:
    assert choice_letter(reply, OPTIONS) == expected


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_reading_a_reply_never_raises(reply: str) -> None:
    letter, method = choice_letter(reply, OPTIONS)
    assert letter in ("A", "B", None) and (letter is None) == (method is None)
    assert judge_verdict(reply) in ("True", "False", "NA", None)
    assert isinstance(open_answer(reply), str)


REASONING = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.'\"\n", max_size=200)
"""Reasoning without a label, a colon or a capital letter (so without a letter of its own)."""


@settings(max_examples=300, deadline=None)
@given(st.sampled_from("AB"), REASONING, st.sampled_from(list(OPTIONS.values())))
def test_a_stated_letter_is_read_whatever_option_the_reasoning_quotes(
    letter: str, reasoning: str, quoted: str
) -> None:
    reply = f'{letter}: The answer is "{letter}" because {reasoning} {quoted.lower()} {reasoning}'
    assert choice_letter(reply, OPTIONS) == (letter, "stated")


NESTED = {"A": "Go to the kitchen.", "B": "Go to the kitchen and look in the fridge."}
"""Options one of which holds the other's words: the shorter is found inside the longer."""


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Answer: Go to the kitchen and look in the fridge.", ("B", "answer_line_text")),
        ("Answer: Go to the kitchen.", ("A", "answer_line_text")),
        ("She would go to the kitchen and look in the fridge.", ("B", "option_text")),
        ("She would go to the kitchen, nothing more.", ("A", "option_text")),
        # Both said apart: nothing is read.
        ("Go to the kitchen? Or go to the kitchen and look in the fridge?", (None, None)),
    ],
)
def test_an_option_holding_the_others_words_is_read_as_itself(
    reply: str, expected: tuple[str | None, str | None]
) -> None:
    assert choice_letter(reply, NESTED) == expected
    swapped = {"A": NESTED["B"], "B": NESTED["A"]}
    letter = {"A": "B", "B": "A"}.get(expected[0] or "")
    assert choice_letter(reply, swapped) == (letter, expected[1])


PHRASE = st.lists(
    st.sampled_from(["go", "to", "the", "kitchen", "look", "in", "fridge"]), min_size=1, max_size=5
)


@settings(max_examples=200, deadline=None)
@given(PHRASE, PHRASE, st.sampled_from(["Answer: {}.", "She would {}."]))
def test_of_two_nested_options_the_one_said_is_read(
    shorter: list[str], more: list[str], form: str
) -> None:
    short, long = " ".join(shorter), " ".join(shorter + more)
    options = {"A": f"{short.capitalize()}.", "B": f"{long.capitalize()}."}
    assert choice_letter(form.format(long), options)[0] == "B"
    assert choice_letter(form.format(short), options)[0] == "A"


def test_the_judge_verdict_and_the_open_answer() -> None:
    assert judge_verdict("True") == "True"
    assert judge_verdict("Output: False.") == "False"
    assert judge_verdict("The action is unrelated.\n**NA**") == "NA"
    assert judge_verdict("N/A") == "NA"
    assert judge_verdict("True or False?") is None
    assert judge_verdict("maybe") is None
    # The verdict after the prompt's label, or first before an explanation naming another.
    assert judge_verdict("Output (True/False/NA): True") == "True"
    assert judge_verdict("True.\n\nExplanation: it is not False") == "True"
    assert judge_verdict("False\nReason: the answer is True to the wrong option") == "False"
    assert judge_verdict("True. The generated answer matches; it is not False.") == "True"
    assert judge_verdict("NA: the action is unrelated, neither True nor False") == "NA"
    # A negated verdict is not the one named.
    assert judge_verdict("Not True") is None
    assert judge_verdict("Output: not False") is None
    assert judge_verdict("Output (True/False/NA): Not True") is None
    assert judge_verdict("The answer is not True to the story, so: False") == "False"
    assert open_answer("Reasoning: x\n\nAnswer: He walks north.") == "He walks north."
    assert open_answer("He walks north.") == "He walks north."
    # The answer ends with its paragraph or at the next section: the judge rates the action.
    assert open_answer("Answer: She runs.\n\nReasoning: she cannot know.") == "She runs."
    assert open_answer("**Answer:** She runs.\n**Explanation:** x") == "She runs."
    assert open_answer("Answer: He walks\nnorth to the lake.") == "He walks\nnorth to the lake."
    # A bold answer's closing is not the answer's.
    assert open_answer("**Answer:** **He walks north.**") == "He walks north."
    assert open_answer("Answer: Walk to the **kitchen**") == "Walk to the **kitchen**"
    # Nothing after the label: what stands before it is the answer (6-A; it was the whole
    # reply, the label too, so "Answer:" alone was judged).
    assert open_answer("He walks **north**.\n**Answer:**") == "He walks **north**."
    assert open_answer("**Answer:** **") == open_answer("Answer:") == ""
    assert open_answer("Walk to the kitchen.\nAnswer:\n\nReasoning: x") == "Walk to the kitchen."


# ----------------------------------------------------------------------------- the data


def test_the_seeded_order_is_balanced_and_fixed_by_the_seed() -> None:
    numbers = list(range(1, 501))
    letters = correct_letters(numbers, "seeded", 0)
    assert sum(1 for number in numbers if letters[number] == ["A"]) == 250
    assert correct_letters(numbers, "seeded", 0) == letters
    assert correct_letters(numbers, "seeded", 1) != letters
    assert correct_letters([1, 2], "both", 0) == {1: ["A", "B"], 2: ["A", "B"]}
    assert correct_letters([1, 2], "correct_b", 0) == {1: ["B"], 2: ["B"]}


def test_the_seeded_order_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "from tom_eval.knowledge.dataset import correct_letters; "
        "print(correct_letters(range(1, 41), 'seeded', 7))"
    )
    assert len(printed_under_hash_seeds(code, ("1", "2"))) == 1


def test_the_prompt_is_the_seeds_table_8() -> None:
    sample = knp(data_dir=str(FIXTURES), order="correct_b").dataset[4]
    assert sample.id == "knp_5_B" and sample.target == "B"
    assert sample.input == (
        "Read the story below and answer the related question.\n\n"
        "Story:\nDetective Ruiz was called to a bakery where the day\u2019s takings had vanished. "
        "Unseen by anyone, the baker\u2019s son had slipped the money into a hollow loaf on "
        "the top shelf. Ruiz arrived, looked around the shop and began her search.\n\n"
        "Question:\nWhat will Ruiz most likely do first?\n\n"
        "Answers:\nA: Break open the hollow loaf on the top shelf.\n"
        "B: Question the staff and check the till and the back office.\n\n"
        "Output Format:\nReasoning:\n{The reasoning process}\n\n"
        'Answer: {"A" or "B"}'
    )
    focused = knp(data_dir=str(FIXTURES), focus_on_knowledge=True).dataset[0].input
    assert isinstance(focused, str)
    assert focused.startswith(
        "Read the story below and answer the related question. Pay attention to what each "
        "character knows"
    )


def test_orders_and_genres_choose_the_samples() -> None:
    seeded = knp(data_dir=str(FIXTURES)).dataset
    assert len(seeded) == 6
    assert sorted(str(sample.target) for sample in seeded) == ["A"] * 3 + ["B"] * 3
    both = knp(data_dir=str(FIXTURES), order="both", genre="kids,romance").dataset
    assert [sample.id for sample in both] == [
        "knp_3_A", "knp_3_B", "knp_4_A", "knp_4_B", "knp_6_A", "knp_6_B",
    ]  # fmt: skip
    # A genre filter leaves each item's order as it was.
    kids = {s.id for s in knp(data_dir=str(FIXTURES), genre=["kids"]).dataset}
    assert kids <= {sample.id for sample in seeded}


GENRES = "the genres of this data (fantasy, kids, mystery, romance)"
"""The test data's genres (the seed's data has science-fiction too)."""


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        # `inspect score` read None's items: an AttributeError's traceback.
        ("options", None, "the metadata's 'options' is None: input should be a valid dictionary"),
        # Scored as a wrong choice without a word.
        ("correct_letter", "x", "the right letter 'x' is none of the options' (A, B)"),
    ],
)
def test_a_log_with_edited_options_is_refused_when_scored_again(
    tmp_path: Path, key: str, value: object, said: str
) -> None:
    task = knp(data_dir=str(FIXTURES))
    (log,) = inspect_eval(task, model="tom/gold", log_dir=str(tmp_path), display="none", limit=1)
    (log.samples or [])[0].metadata[key] = value
    with pytest.raises(PrerequisiteError) as raised:
        inspect_score(log, knp_scorer(), action="append", display="none")
    assert str(raised.value.message).endswith(f": {said}; was the log edited?")


def test_a_data_file_numbered_past_any_item_is_refused_in_one_line(tmp_path: Path) -> None:
    """Its number goes into the sample's id and metadata, which a report's tables hold as
    64-bit integers: the run was logged, and the report ended in pyarrow's traceback."""
    copy = tmp_path / "data"
    shutil.copytree(FIXTURES / "Data", copy / "Data")
    huge = copy / "Data" / "KNP" / "qa_99999999999999999999999.json"
    (copy / "Data" / "KNP" / "qa_1.json").rename(huge)
    with pytest.raises(PrerequisiteError) as raised:
        knp(data_dir=str(copy))
    assert str(raised.value.message).startswith(f"knp: {huge}: numbered beyond any data file")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"order": "sideways"}, "knp: order must be one of seeded, both, correct_a, correct_b, "
         "not 'sideways'"),
        ({"seed": "x"}, "knp: seed must be a whole number, not 'x'"),
        ({"open_ended": "yes"}, "knp: open_ended must be true or false, not 'yes'"),
        ({"genre": "horror"}, f"knp: genre must be among {GENRES}, not 'horror'"),
        ({"genre": 1}, f"knp: genre must be among {GENRES}, not '1'"),
        ({"genre": 1.5}, f"knp: genre must be among {GENRES}, not '1.5'"),
        # A genre of the seed's data that this copy lacks: the data is what limits it.
        ({"genre": "science-fiction"}, f"knp: genre must be among {GENRES}, not "
         "'science-fiction'"),
        ({"open_ended": True, "order": "both"}, "knp: order places the options: open-ended "
         "items have none (drop order)"),
        ({"order": "correct_a", "seed": 5}, "knp: seed draws the seeded order of the options, "
         "not order=correct_a: drop seed, or drop order"),
        ({"open_ended": True, "seed": 5}, "knp: seed draws the order of the options: "
         "open-ended items have none"),
    ],
)  # fmt: skip
def test_bad_parameters_are_one_line(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError) as raised:
        knp(data_dir=str(FIXTURES), **arguments)
    assert raised.value.message == message


# ------------------------------------------------------------------------------ scoring


def test_a_knowledge_blind_player_is_right_and_leaks_nothing(tmp_path: Path) -> None:
    # Every right answer here is one the fixture's without-knowledge options begin with.
    starts = ("Take", "Search", "Look", "Go to the music", "Question", "Nervously")
    log = run(tmp_path, scripted(lambda p: _pick(p, starts)), order="both")
    assert metrics(log, "accuracy")["accuracy"] == 1.0
    assert metrics(log, "knowledge_leak")["mean"] == 0.0
    assert metrics(log, "without_knowledge") == {"tom_eval/order_consistency": 1.0}


def _pick(prompt: str, starts: tuple[str, ...]) -> str:
    [letter] = [k for k, text in option_lines(prompt).items() if text.startswith(starts)]
    return f"Answer: {letter}"


def test_accuracy_leak_invalid_and_genres(tmp_path: Path) -> None:
    """Fantasy items answered right, kids with the leak, the rest unreadable."""
    right = {"Wren": "Take", "The dragon": "Search"}
    leak = {"Sam": "Climb", "Priya": "Avoid"}

    def reply(prompt: str) -> str:
        story = prompt.split("Story:\n", 1)[1]
        for opening, action in (right | leak).items():
            if story.startswith(opening):
                return _pick(prompt, (action,))
        return "I am not sure."

    log = run(tmp_path, scripted(reply), order="both")
    accuracy = metrics(log, "accuracy")
    assert accuracy["accuracy"] == pytest.approx(4 / 12)
    assert accuracy["tom_eval/genre_fantasy"] == 1.0
    assert accuracy["tom_eval/genre_kids"] == 0.0
    assert accuracy["tom_eval/genre_mystery"] == 0.0
    assert (
        0 < accuracy["tom_eval/ci_wilson_lower"] < 4 / 12 < accuracy["tom_eval/ci_wilson_upper"] < 1
    )
    assert metrics(log, "knowledge_leak")["mean"] == pytest.approx(4 / 12)
    assert metrics(log, "invalid")["mean"] == pytest.approx(4 / 12)
    # Unreadable items have no choice to compare; the others chose alike in both orders.
    assert metrics(log, "without_knowledge") == {"tom_eval/order_consistency": 1.0}
    sample = next(s for s in log.samples or [] if s.id == "knp_3_A")
    assert sample.scores is not None
    assert sample.scores["knp_scorer"].explanation == (
        "chose B (answer_line), the action WITH the knowledge"
    )


def test_a_position_biased_player_is_inconsistent_across_orders(tmp_path: Path) -> None:
    log = run(tmp_path, scripted(lambda p: "Answer: A"), order="both")
    assert metrics(log, "accuracy")["accuracy"] == 0.5
    assert metrics(log, "without_knowledge") == {"tom_eval/order_consistency": 0.0}
    seeded = run(tmp_path, scripted(lambda p: "Answer: A"))
    assert metrics(seeded, "accuracy")["accuracy"] == 0.5
    assert "without_knowledge" not in {s.name for s in (seeded.results or []).scores}  # type: ignore[union-attr]


def test_the_metrics_survive_the_epoch_reducer(tmp_path: Path) -> None:
    """Right in the first epoch, a leak in the second: every sample's mean is one half."""
    calls: dict[str, int] = {}

    def reply(prompt: str) -> str:
        calls[prompt] = calls.get(prompt, 0) + 1
        starts = ("Take", "Search", "Look", "Go to the music", "Question", "Nervously")
        letter = _pick(prompt, starts)[-1]
        return f"Answer: {letter if calls[prompt] == 1 else 'AB'[letter == 'A']}"

    (log,) = inspect_eval(
        knp(data_dir=str(FIXTURES), order="both"),
        model=scripted(reply),
        epochs=2,
        max_connections=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert metrics(log, "accuracy")["accuracy"] == 0.5
    assert metrics(log, "knowledge_leak")["mean"] == 0.5
    # Each order chose the right action half the time: the rates agree.
    assert metrics(log, "without_knowledge") == {"tom_eval/order_consistency": 1.0}


# ---------------------------------------------------------------------------- open-ended


def test_open_ended_answers_are_judged_by_the_grader_role(tmp_path: Path) -> None:
    """The grader says True for fantasy, False for kids, NA for mystery, nonsense for
    romance (read from the Generated Answer the judge prompt carries)."""
    verdicts = {"fantasy": "True", "kids": "False", "mystery": "NA", "romance": "Hmm."}
    judge_prompts: list[str] = []

    def grade(prompt: str) -> str:
        judge_prompts.append(prompt)
        genre = prompt.split("Generated Answer: ", 1)[1].split(":", 1)[0]
        return verdicts[genre]

    model = scripted(lambda prompt: _genre_reply(prompt))
    log = run(tmp_path, model, open_ended=True, roles={"grader": scripted(grade)})
    assert len(log.samples or []) == 6
    accuracy = metrics(log, "accuracy")
    assert accuracy["accuracy"] == 0.5  # 2 True, 2 False; NA and unreadable left out
    assert metrics(log, "knowledge_leak")["mean"] == 0.5
    assert metrics(log, "na")["mean"] == pytest.approx(1 / 6)
    assert metrics(log, "invalid")["mean"] == pytest.approx(1 / 6)
    # The report counts the NA verdicts too: a model's unusable answers are never dropped.
    write_report([tmp_path], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "knp.csv").to_dict("records")
    assert (row["N"], row["accuracy_n"], row["na"], row["na_n"]) == (6, 4, pytest.approx(1 / 6), 6)
    sample = (log.samples or [])[0]
    assert "Answers:" not in str(sample.input)
    assert str(sample.input).endswith("Answer: {The action, in one sentence}")
    metadata = sample.metadata
    assert judge_prompts[0] == judge_prompt(
        metadata["story"],
        metadata["question"],
        "fantasy: the character keeps looking.",
        metadata["answer_without_knowledge"],
        metadata["answer_with_knowledge"],
    )
    assert judge_prompts[0].startswith("You are an accuracy evaluator.")
    assert judge_prompts[0].endswith("Output (True/False/NA):")


def test_a_reply_without_an_action_is_not_judged_and_counts_wrong(tmp_path: Path) -> None:
    """The two kids items get replies without a word; the judge, shown only the others,
    says True to each."""
    judged: list[str] = []

    def grade(prompt: str) -> str:
        judged.append(prompt)
        return "True"

    def reply(prompt: str) -> str:
        answer = _genre_reply(prompt)
        return " \n** **" if "Answer: kids" in answer else answer

    log = run(tmp_path, scripted(reply), open_ended=True, roles={"grader": scripted(grade)})
    assert len(judged) == 4
    assert metrics(log, "accuracy")["accuracy"] == pytest.approx(4 / 6)
    assert metrics(log, "no_answer")["mean"] == pytest.approx(2 / 6)
    assert metrics(log, "knowledge_leak")["mean"] == 0.0
    assert metrics(log, "invalid")["mean"] == 0.0
    write_report([tmp_path], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "knp.csv").to_dict("records")
    assert (row["accuracy_n"], row["no_answer"]) == (6, pytest.approx(2 / 6))


def test_a_grader_that_cannot_judge_is_refused_before_the_run(tmp_path: Path) -> None:
    """Refused as the task is built, like the model under test: no log, no model call."""
    with pytest.raises(PrerequisiteError, match=r"tom/always-a cannot play .* \(as the grader"):
        inspect_eval(
            f"{ROOT}/tasks/knp.py@knp",
            model="tom/gold",
            model_roles={"grader": "tom/always-a"},
            task_args={"data_dir": str(FIXTURES), "open_ended": True},
            log_dir=str(tmp_path),
            display="none",
        )
    assert not list(tmp_path.iterdir())


def test_a_misspelt_grader_is_refused_and_a_role_the_task_does_not_read_warned(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Inspect ignores a role no task reads: a misspelt `--model-role judge=...` with no
    grader would leave the evaluated model judging itself. A role the task does not read is
    only warned about, since another task of the command or a user's solver may read it."""
    arguments = {"data_dir": str(FIXTURES), "open_ended": True}
    refusal = r"no model role 'judge' \(this task reads grader, which the evaluated model plays"
    with pytest.raises(PrerequisiteError, match=refusal):
        inspect_eval(
            f"{ROOT}/tasks/knp.py@knp",
            model="tom/gold",
            model_roles={"judge": "tom/gold"},
            task_args=arguments,
            log_dir=str(tmp_path),
            display="none",
        )
    assert not list(tmp_path.iterdir())
    logs = inspect_eval(
        [f"{ROOT}/tasks/knp.py@knp", f"{ROOT}/tasks/ikd.py@ikd"],
        model="tom/gold",
        model_roles={"grader": "tom/gold", "critic": "tom/gold"},
        task_args={"data_dir": str(FIXTURES)},
        log_dir=str(tmp_path),
        display="none",
        limit=1,
    )
    assert [log.status for log in logs] == ["success", "success"]
    warnings = [record.getMessage() for record in caplog.records]
    for task in ("knp", "ikd"):
        assert f"model role 'critic' not used by task '{task}'" in warnings
        assert (
            f"model role 'grader' not used by task '{task}' (used by knp -T open_ended=true, "
            "as its judge)"
        ) in warnings


def _genre_reply(prompt: str) -> str:
    """Names the item's genre, which the fixture stories give away by their openings."""
    openings = {"Wren": "fantasy", "The dragon": "fantasy", "Sam": "kids", "Priya": "kids"}
    story = prompt.split("Story:\n", 1)[1]
    genre = next((g for o, g in openings.items() if story.startswith(o)), "")
    genre = genre or ("mystery" if story.startswith("Detective") else "romance")
    return f"Reasoning: x\n\nAnswer: {genre}: the character keeps looking."


# -------------------------------------------------------------------------- a real model


@pytest.mark.skipif(not LOCAL_MODEL, reason=NEEDS_LOCAL_MODEL)
def test_the_packaged_model_takes_knp(tmp_path: Path) -> None:
    run_smollm2(knp(data_dir=str(FIXTURES)), tmp_path, limit=2, max_tokens=48)
