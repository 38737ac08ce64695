"""tasks/false_belief.py end to end through Inspect: the reference players' exact scores,
both probability estimators (with and without log-probabilities), the sentence-by-sentence
variant, and the reading of completions."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    get_model,
)

from conftest import inspect_eval
from tasks.false_belief import false_belief
from tom_eval.false_belief.parsing import (
    correct,
    first_word,
    from_logprobs,
    from_samples,
    on_key,
)
from tom_eval.probabilities import from_logprob

SMALL = {"contents": 2, "transfer": 2}


def run(tmp_path: Path, model: Any, **task_args: Any) -> EvalLog:
    (log,) = inspect_eval(
        false_belief(**{**SMALL, **task_args}), model=model, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    return log


def metric(log: EvalLog, key: str, name: str = "mean") -> float:
    assert log.results is not None
    [score] = [s for s in log.results.scores if s.name == key]
    return score.metrics[name].value


def completions(log: EvalLog) -> list[dict[str, Any]]:
    return [c for s in log.samples or [] for c in s.store["FalseBeliefRecord:completions"]]


def test_the_oracle_solves_every_task(tmp_path: Path) -> None:
    log = run(tmp_path, "tom/belief-oracle", perturbations=True)
    assert metric(log, "solved") == 1.0
    assert all(c["correct"] and c["estimator"] == "first_word" for c in completions(log))
    for sample in log.samples or []:
        # 8 standard stories x 2 prompts, plus 3 perturbations x 2 versions x 2 for contents.
        expected = 16 + (12 if sample.metadata["family"] == "contents" else 0)
        assert len(sample.store["FalseBeliefRecord:completions"]) == expected


def test_the_reality_biased_player_fails_exactly_the_false_belief_belief_prompts(
    tmp_path: Path,
) -> None:
    log = run(tmp_path, "tom/reality-biased", perturbations=True)
    assert metric(log, "solved") == 0.0
    wrong = {
        (c["condition"], c["reversed"], c["kind"]) for c in completions(log) if not c["correct"]
    }
    assert wrong == {("false_belief", False, "belief"), ("false_belief", True, "belief")}
    assert metric(log, "false_belief") == 0.5
    assert metric(log, "belief") == 0.75
    assert metric(log, "reality") == 1.0
    for control in ("open_container", "correct_label", "informed_protagonist", "no_transfer"):
        assert metric(log, control) == 1.0
    # The perturbations give the protagonist the truth, or no reason to name the label.
    assert metric(log, "transparent_container") == metric(log, "cannot_read") == 1.0


def test_logprobs_are_read_when_the_provider_returns_them(tmp_path: Path) -> None:
    log = run(tmp_path, "tom/belief-oracle", estimator="logprobs", contents=1, transfer=1)
    answered = completions(log)
    assert {c["estimator"] for c in answered} == {"logprobs"}
    assert all(math.isclose(c["p_right"], 0.9) for c in answered)
    assert metric(log, "solved") == 1.0
    assert log.eval.task_args["estimator"] == "logprobs"


def test_without_logprobs_the_estimate_falls_back_to_sampling(tmp_path: Path) -> None:
    model = get_model("tom/reality-biased", logprobs=False)
    log = run(tmp_path, model, estimator="logprobs", samples=20, contents=1, transfer=0)
    answered = completions(log)
    assert {c["estimator"] for c in answered} == {"sampling"}
    beliefs = [c for c in answered if c["condition"] == "false_belief" and c["kind"] == "belief"]
    # It names the true contents 90% of the time, so the label is the less likely word.
    assert all(c["p_wrong"] > 0.5 and not c["correct"] for c in beliefs)


def test_sampling_counts_first_words(tmp_path: Path) -> None:
    log = run(tmp_path, "tom/belief-oracle", estimator="sampling", samples=30, transfer=0)
    answered = completions(log)
    assert {c["estimator"] for c in answered} == {"sampling"}
    assert all(0.6 < c["p_right"] <= 1.0 and c["correct"] for c in answered)


def scripted(word: str, with_logprobs: bool) -> Any:
    """A model that always answers `word` (nothing at all for ""), with log-probabilities
    of 0.7 for it and 0.3 for whatever else, or none at all; usage set so nothing is
    downloaded."""

    def output(
        input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        result = ModelOutput.from_content("mockllm/model", f" {word} and more" if word else "")
        result.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
        if with_logprobs and config.logprobs:
            top = [TopLogprob(token=f" {word}", logprob=math.log(0.7))]
            result.choices[0].logprobs = Logprobs(
                content=[Logprob(token=f" {word}", logprob=math.log(0.7), top_logprobs=top)]
            )
        return result

    return get_model("mockllm/model", custom_outputs=output)


@pytest.mark.parametrize("with_logprobs", [True, False])
def test_scripted_outputs_with_and_without_logprobs(tmp_path: Path, with_logprobs: bool) -> None:
    log = run(tmp_path, scripted("xyzzy", with_logprobs), estimator="logprobs", samples=3)
    answered = completions(log)
    # A word that names no key: no key among the logprobs, so both cases end in sampling,
    # which finds no key word either: no estimate, and wrong wherever a key is wanted.
    assert {c["estimator"] for c in answered} == {"sampling"}
    assert all(c["p_right"] is None for c in answered)
    assert all(c["correct"] == (c["expected"] is None) for c in answered)
    assert metric(log, "solved") == 0.0


PERTURBED = {"contents": 1, "transfer": 0, "perturbations": True}


@pytest.mark.parametrize("estimator", ["first_word", "sampling"])
def test_an_empty_reply_is_wrong_under_every_estimator(tmp_path: Path, estimator: str) -> None:
    """Even where no key is wanted (a protagonist who cannot read): an empty reply names
    no key, but it is no answer either, for the draws as for the one reply."""
    draws = {"samples": 3} if estimator == "sampling" else {}
    log = run(tmp_path, scripted("", False), estimator=estimator, **draws, **PERTURBED)
    answered = completions(log)
    assert any(c["expected"] is None for c in answered)
    assert not any(c["correct"] for c in answered)


def test_sentence_by_sentence_records_both_prompts_after_each_sentence(tmp_path: Path) -> None:
    log = run(tmp_path, "tom/belief-oracle", estimator="logprobs", sentence_by_sentence=True)
    for sample in log.samples or []:
        steps = sample.store["FalseBeliefRecord:steps"]
        sentences = {
            (s["reversed"], s["steps"]) for s in steps
        }  # each false-belief story: its sentence count
        assert len(steps) == sum(2 * count for _, count in sentences)
        assert all(s["p_right"] is not None for s in steps)
        last = [s for s in steps if s["step"] == s["steps"]]
        assert all(s["correct"] for s in last)
    # The variant adds records; the score still comes from the 16 prompts.
    assert metric(log, "solved") == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"estimator": "guess"}, "estimator must be one of"),
        ({"contents": -1}, "contents must be a whole number"),
        ({"contents": 0, "transfer": 0}, "no tasks"),
        ({"contents": True}, "contents must be a whole number"),
        (
            {"estimator": "sampling", "samples": 0},
            "samples must be a whole number from 1 to 10,000",
        ),
        ({"samples": 5}, "samples is for the sampling and logprobs estimators"),
        ({"item_file": "no/such/file.jsonl"}, "no/such/file.jsonl"),
        ({"item_file": 1}, "item_file: YAML reads the value as the number '1', not a file name"),
        ({"item_file": "items.jsonl", "perturbations": True}, "drop them with item_file"),
        ({"item_file": "items.jsonl", "contents": 1}, "contents, transfer, seed and perturbations"),
        ({"seed": "x"}, "seed must be a whole number, not 'x'"),
        ({"perturbations": "maybe"}, "perturbations must be true or false, not 'maybe'"),
        ({"sentence_by_sentence": 2}, "sentence_by_sentence must be true or false, not '2'"),
        ({"prefix": None}, r"prefix must be true or false, not nothing \(an empty -T value\)"),
        ({"contents": 10_000_000}, "more than the 100,000 generated at once"),
        ({"contents": 10**20}, r"contents must be a whole number of 0 or more, below 2\*\*63"),
        ({"samples": 10**11}, "samples must be a whole number from 1 to 10,000, not '1000"),
    ],
)
def test_bad_parameters_are_one_line_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError, match=message):
        false_belief(**args)


@pytest.mark.parametrize(
    ("completion", "stem", "word"),
    [
        (" popcorn.", "it is full of", "popcorn"),
        ('"Chocolate!" she says', "full of", "chocolate"),
        (
            "She can clearly see that it is full of popcorn.",
            "She opens the bag. She can clearly see that it is full of",
            "popcorn",
        ),
        ("basket. Then she looks out of the window.", "The cat jumps out of the", "basket"),
        # Short echoes of the stem's end: the word after them is the answer.
        ("full of popcorn.", "She can clearly see that it is full of", "popcorn"),
        ("Of popcorn!", "She can clearly see that it is full of", "popcorn"),
        ("The basket.", "He thinks that the cat is in the", "basket"),
        ("in the basket", "He thinks that the cat is in the", "basket"),
        ("of", "full of", None),
        ("", "full of", None),
        ("...", "full of", None),
    ],
)
def test_first_words(completion: str, stem: str, word: str | None) -> None:
    assert first_word(completion, stem) == word


def test_answers_are_judged_by_first_words() -> None:
    assert correct("apple", "apple juice", "orange juice")
    assert correct("chocolates", "chocolate", "popcorn")
    assert not correct("juice", "apple juice", "orange juice")
    assert correct("nothing", None, "chocolate") and not correct("chocolate", None, "chocolate")
    assert not correct(None, None, "chocolate")


def test_a_reply_naming_neither_key_is_counted_off_key() -> None:
    assert on_key("apple", "apple juice", "orange juice")
    assert on_key("oranges", "apple juice", "orange juice")  # on key, and wrong
    assert not on_key("qwerty", "apple juice", "orange juice")
    assert not on_key(None, "apple juice", "orange juice")
    assert on_key("nothing", None, "chocolate") and not on_key(None, None, "chocolate")


def test_off_key_replies_are_scored_wrong_and_counted(tmp_path: Path) -> None:
    """A model's bad output is data: "qwerty" to every prompt is wrong and off key."""
    output = ModelOutput.from_content("mockllm/model", "qwerty")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    model = get_model("mockllm/model", custom_outputs=[output] * 64, memoize=False)
    log = run(tmp_path, model)
    assert metric(log, "on_key") == 0.0 and metric(log, "solved") == 0.0
    assert metric(run(tmp_path / "oracle", "tom/belief-oracle"), "on_key") == 1.0


def test_key_probabilities() -> None:
    keys = ("popcorn", "pasta")
    found = from_logprobs([(" pop", -0.1), (" p", -1.0), ("pasta", -2.3)], keys)
    assert found is not None and found.estimator == "logprobs"
    # " p" begins both keys and is ignored.
    assert math.isclose(found.first, math.exp(-0.1) / (math.exp(-0.1) + math.exp(-2.3)))
    assert from_logprobs([(" the", -0.1)], keys) is None
    sampled = from_samples(["popcorn", "pasta", "popcorn", None], keys)
    assert sampled is not None and from_samples(["the", None], keys) is None
    assert (sampled.first, sampled.second, sampled.mass) == (2 / 3, 1 / 3, 0.75)


def test_log_probabilities_that_are_none_read_as_the_nearest_probability() -> None:
    """A provider's NaN, infinite or huge positive log-probability overflowed `math.exp`
    and ended the run; it is a model's odd output, read and scored."""
    keys = ("popcorn", "pasta")
    found = from_logprobs([("popcorn", 1e6), ("pasta", float("nan"))], keys)
    assert found is not None and (found.first, found.second) == (1.0, 0.0)
    assert [from_logprob(v) for v in (float("inf"), 1e-9, float("-inf"), -1.0)] == [
        1.0,
        1.0,
        0.0,
        math.exp(-1.0),
    ]


def test_the_report_has_a_battery_section_and_sentence_curves(tmp_path: Path) -> None:
    from tom_eval.cli import main

    run(tmp_path / "logs", "tom/reality-biased")
    run(tmp_path / "logs", "tom/belief-oracle", estimator="logprobs", sentence_by_sentence=True)
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    section = report[report.index("## False-belief battery") :]
    rows = {
        line.split(" [")[0].strip("| "): line for line in section.splitlines() if "| tom/" in line
    }
    assert (
        "(false_belief, estimator=first_word, contents=2, transfer=2)" in rows["tom/reality-biased"]
    )
    assert "| 0.000 [0.000," in rows["tom/reality-biased"]
    assert "estimator=logprobs" in rows["tom/belief-oracle"]
    assert "| 1.000 [" in rows["tom/belief-oracle"]
    assert "![Sentence by sentence: tom/belief-oracle" in section
    assert (tmp_path / "out" / "sentences_1.png").stat().st_size > 10_000


def test_saved_items_play_like_generated_ones(tmp_path: Path) -> None:
    from tom_eval.cli import main

    items = tmp_path / "items.jsonl"
    assert (
        main(["false-belief-items", "--out", str(items), "--contents", "1", "--transfer", "1"]) == 0
    )
    # Without the generator's settings, which an item file refuses (SMALL sets them).
    task = false_belief(item_file=str(items))
    (log,) = inspect_eval(task, model="tom/reality-biased", log_dir=str(tmp_path), display="none")
    assert [sample.id for sample in log.samples or []] == ["contents-01", "transfer-01"]
    assert metric(log, "belief") == 0.75


def test_one_item_file_by_two_paths_is_one_run_and_two_files_of_one_name_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Labelled by the file's name, as scenario files are, with its items' digest where
    files of that name differ."""
    from tom_eval.cli import main

    items, other = tmp_path / "items.jsonl", tmp_path / "other" / "items.jsonl"
    other.parent.mkdir()
    for path, contents in ((items, "1"), (other, "2")):
        assert main(["false-belief-items", "--out", str(path), "--contents", contents]) == 0
    monkeypatch.chdir(tmp_path)
    for given in (str(items), "items.jsonl", str(other)):
        task = false_belief(item_file=given)
        inspect_eval(
            task, model="tom/belief-oracle", log_dir=str(tmp_path / "logs"), display="none"
        )
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    runs = sorted(set(re.findall(r"item_file=items\.jsonl#[0-9a-f]{8}", report)))
    assert len(runs) == 2, report
    # Logs from before the digest was kept are labelled by the path given, as they were.
    for path in (tmp_path / "logs").glob("*.eval"):
        log = read_eval_log(str(path))
        assert log.eval.metadata is not None
        del log.eval.metadata["item_file_sha256"]
        write_eval_log(log, str(path))
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "old"), "--quiet"]) == 0
    old = pd.read_csv(tmp_path / "old" / "false_belief.csv")["run"]
    assert sorted(re.sub(r".*item_file=", "", run) for run in old) == sorted(
        ["items.jsonl)", f"{items})", f"{other})"]
    )


def test_an_item_whose_prompts_clash_is_a_one_line_error(tmp_path: Path) -> None:
    """A hand-made story that never names the key words reads the same reversed, with the
    answers swapped: the task refuses the file as a bad argument, not with a traceback."""
    from tom_eval.cli import main

    items = tmp_path / "items.jsonl"
    assert main(["false-belief-items", "--out", str(items), "--transfer", "0"]) == 0
    record = json.loads(items.read_text().splitlines()[0])
    record["stories"] = [s for s in record["stories"] if not s["reversed"]]  # derived
    story = next(s for s in record["stories"] if s["condition"] == "open_container")
    story["text"] = "Yusuf sees a jar. He opens it."
    items.write_text(json.dumps(record) + "\n")
    with pytest.raises(PrerequisiteError, match="two prompts read the same but differ"):
        false_belief(item_file=str(items))


def test_logprobs_count_whole_words_plurals_and_pieces_not_articles(tmp_path: Path) -> None:
    keys = ("apple juice", "chocolate")
    top = [(" a", -0.1), (" chocolates", -1.0), (" app", -2.0), (" ch", -0.5), ('"', -0.2)]
    found = from_logprobs(top, keys)
    assert found is not None
    apple, chocolate = math.exp(-2.0), math.exp(-1.0)
    assert math.isclose(found.first, apple / (apple + chocolate))
    assert math.isclose(found.mass, apple + chocolate)


def test_a_protagonist_who_cannot_read_is_judged_alike_by_every_estimator(tmp_path: Path) -> None:
    for estimator in ("first_word", "logprobs", "sampling"):
        draws = {} if estimator == "first_word" else {"samples": 20}
        log = run(
            tmp_path / estimator,
            "tom/reality-biased",
            perturbations=True,
            estimator=estimator,
            contents=1,
            transfer=0,
            **draws,
        )
        assert metric(log, "cannot_read") == 1.0
        assert metric(log, "false_belief") == 0.5


def test_runs_of_other_items_stay_apart_in_the_report(tmp_path: Path) -> None:
    from tom_eval.false_belief.report import FalseBeliefReport, summary
    from tom_eval.report.logs import read_evals
    from tom_eval.report.section import Context

    run(tmp_path, "tom/belief-oracle", contents=1, transfer=1)
    run(tmp_path, "tom/belief-oracle", contents=1, transfer=1, seed=1)
    run(tmp_path, "tom/reality-biased", contents=1, transfer=1, sentence_by_sentence=True)
    evals, _ = read_evals([tmp_path])
    prompts, _ = FalseBeliefReport().outcomes(evals, Context(tmp_path))
    runs = set(prompts["run"])
    assert len(runs) == 3
    assert any("seed=1" in run for run in runs)
    assert list(summary(prompts)["tasks"]) == [2, 2, 2]


def test_the_report_names_the_defaults_of_the_task() -> None:
    import inspect

    from tom_eval.false_belief.report import LABEL_DEFAULTS

    parameters = inspect.signature(inspect.unwrap(false_belief)).parameters
    assert {name: parameters[name].default for name in LABEL_DEFAULTS} == LABEL_DEFAULTS


def test_sentence_steps_without_probabilities_are_said_not_drawn(tmp_path: Path) -> None:
    from tom_eval.cli import main

    run(tmp_path / "logs", "tom/belief-oracle", contents=1, transfer=0, sentence_by_sentence=True)
    assert main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "sentence by sentence without probabilities" in report
    assert not list((tmp_path / "out").glob("sentences_*.png"))


def test_scripted_logprobs_naming_the_keys_are_read(tmp_path: Path) -> None:
    from tom_eval.false_belief.generation import generate_items

    [item] = generate_items(contents=1, transfer=0)
    first, second = item.key_words

    def output(
        input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        result = ModelOutput.from_content("mockllm/model", f" {first}.")
        result.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        top = [
            TopLogprob(token=f" {first.split()[0]}", logprob=math.log(0.6)),
            TopLogprob(token=f" {second.split()[0]}", logprob=math.log(0.3)),
            TopLogprob(token=" the", logprob=math.log(0.1)),
        ]
        result.choices[0].logprobs = Logprobs(
            content=[Logprob(token=top[0].token, logprob=top[0].logprob, top_logprobs=top)]
        )
        return result

    model = get_model("mockllm/model", custom_outputs=output)
    log = run(tmp_path, model, estimator="logprobs", contents=1, transfer=0)
    answered = completions(log)
    assert {c["estimator"] for c in answered} == {"logprobs"}
    for c in answered:
        names_first = c["expected"] == first
        assert math.isclose(c["p_right"], 2 / 3 if names_first else 1 / 3)
        assert math.isclose(c["key_mass"], 0.9)
        assert c["correct"] == names_first
