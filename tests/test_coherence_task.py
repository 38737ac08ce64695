"""tasks/coherence.py: reading a distribution from next-token probabilities (exactly, over
every spelling of a value), the reference agents end to end through Inspect (the rational
agent coherent, the random one not), both estimators with scripted outputs, the prior,
and one-line parameter errors."""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog, write_eval_log
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    get_model,
)
from inspect_ai.scorer import SampleScore, Score

from conftest import inspect_eval, without_sample_entries
from scorers.coherence import bayesian
from tasks.coherence import coherence
from tom_eval.coherence.agents import TOKEN, AnswerText, distribution, item_of_prompt
from tom_eval.coherence.metrics import rational_values, run_answers
from tom_eval.coherence.parsing import (
    Template,
    canonical_template,
    locate,
    parse_answer,
    read_distribution,
    value_probabilities,
)
from tom_eval.coherence.prompts import fields, user_prompt
from tom_eval.coherence.rational import rational_answers
from tom_eval.coherence.report import LABEL_DEFAULTS, metric_settings
from tom_eval.coherence.worlds import DOMAINS, TASKS, answers, find_item, items
from tom_eval.errors import InputError
from tom_eval.registry import report_sections
from tom_eval.report.writer import write_report

AP_ITEM = items("container", "AP")[0]
BI_ITEM = items("container", "BI")[0]


def run(tmp_path: Path, model: Any, limit: int | None = None, **task_args: Any) -> EvalLog:
    (log,) = inspect_eval(
        coherence(**task_args), model=model, log_dir=str(tmp_path), display="none", limit=limit
    )
    assert log.status == "success", log.error
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    values: dict[str, float] = {}
    for score in log.results.scores:
        for name, value in score.metrics.items():
            values[score.name if name == "mean" else name] = value.value
    return values


def records(log: EvalLog) -> list[dict[str, Any]]:
    return [
        (sample.scores or {})["coherence_scorer"].metadata or {} for sample in log.samples or []
    ]


# ---------------------------------------------------------------------- reading the walk


def table(probabilities: Mapping[str, Mapping[str, float]]) -> Any:
    """Next-token probabilities from a table of texts, counting the questions asked."""
    asked: list[str] = []

    async def next_tokens(text: str) -> Mapping[str, float]:
        asked.append(text)
        return probabilities.get(text, {})

    next_tokens.asked = asked  # type: ignore[attr-defined]
    return next_tokens


def test_a_value_sums_over_its_spellings_and_shared_beginnings() -> None:
    # "apples" as "apples" or "apple"+"s"; "apples and oranges" begins like "apples";
    # "apple" alone (no value) and "The" leave every value.
    next_tokens = table(
        {
            "": {"apples": 0.4, "apple": 0.3, "or": 0.2, "The": 0.1},
            "apples": {'",': 0.5, " and": 0.25, "s": 0.25},
            "apple": {"s": 0.5, '"': 0.5},
            "apples and": {" oranges": 1.0},
            "apples and oranges": {'"': 1.0},
            "or": {"anges": 1.0},
            "oranges": {'"}': 0.8, "!": 0.2},
        }
    )
    found, unexpanded = asyncio.run(
        value_probabilities("", ("apples", "oranges", "apples and oranges"), next_tokens)
    )
    # apples: 0.4 * 0.5 + 0.3 * 0.5 * (0.5 [apples then ",] + 0.25 [apples then s: no])
    apples_after_apple_s = 0.3 * 0.5 * 0.5
    assert found["apples"] == pytest.approx(0.4 * 0.5 + apples_after_apple_s)
    assert found["apples and oranges"] == pytest.approx(0.4 * 0.25 + 0.3 * 0.5 * 0.25)
    assert found["oranges"] == pytest.approx(0.2 * 0.8)
    assert unexpanded == 0.0


def test_paths_below_the_floor_are_reported_not_followed() -> None:
    next_tokens = table({"": {"box": 0.9995, "b": 0.0005}, "box": {'"': 1.0}})
    found, unexpanded = asyncio.run(value_probabilities("", ("box", "basket"), next_tokens))
    assert found == {"box": pytest.approx(0.9995), "basket": 0.0}
    assert unexpanded == pytest.approx(0.0005)
    assert next_tokens.asked == ["", "box"]  # "b" was never asked about


def test_the_chain_rule_over_fields_is_exact_and_renormalised() -> None:
    template = canonical_template(BI_ITEM)
    contents = ("apples", "oranges", "apples and oranges")
    first = dict(zip(contents, (0.5, 0.2, 0.1), strict=True))  # 0.2 off the values
    # The basket's value depends on the box's: the product is not of marginals.
    second = {
        "apples": dict(zip(contents, (0.1, 0.8, 0.1), strict=True)),
        "oranges": dict(zip(contents, (0.6, 0.2, 0.2), strict=True)),
        "apples and oranges": dict(zip(contents, (1 / 3, 1 / 3, 1 / 3), strict=True)),
    }

    async def next_tokens(text: str) -> Mapping[str, float]:
        if text == template.before([]):
            return {f'{value}"': p for value, p in first.items()} | {"x": 0.2}
        box = next(value for value in contents if text == template.before([value]))
        return {f'{value}"': p for value, p in second[box].items()}

    reading = asyncio.run(read_distribution(BI_ITEM, template, next_tokens))
    assert reading is not None
    expected = {
        f"b={box}|{basket}": first[box] * second[box][basket] / 0.8
        for box in contents
        for basket in contents
    }
    assert reading.distribution == pytest.approx(expected)
    assert reading.value_mass == pytest.approx(0.8)


def test_no_value_at_all_reads_nothing() -> None:
    reading = asyncio.run(read_distribution(AP_ITEM, canonical_template(AP_ITEM), table({})))
    assert reading is None


def test_templates_are_cut_at_the_values_in_the_schemas_order() -> None:
    item = items("movie", "BDI")[0]
    reply = (
        '```json\n{"desires": {"action": "likes", "romance": "dislikes"},\n'
        ' "beliefs": {"screening05": "action-romance", "screening90": "romance"}}\n```'
    )
    template = locate(reply, fields("movie", "BDI"))
    assert template is not None and template.source == "reply"
    values = ["likes", "dislikes", "action-romance", "romance"]
    assert template.before(values) == reply
    assert template.before(values[:1]).endswith('"romance": "')
    # A value off its enum, a missing field or fields out of order: no template.
    assert locate(reply.replace('"likes"', '"loves"'), fields("movie", "BDI")) is None
    assert locate('{"beliefs": {}}', fields("movie", "BDI")) is None
    canonical = canonical_template(item)
    assert canonical.source == "canonical"
    document = json.loads(canonical.before(values))
    assert parse_answer(item, document) == "b=action-romance|romance/d=likes|dislikes"


# ------------------------------------------------------------------------- the agents


def test_the_agents_spell_their_answers_in_whole_tokens() -> None:
    item = items("container", "BDI")[3]
    wanted = rational_answers("container")[item.item_id]
    language = AnswerText.of(item, wanted)
    assert "".join(TOKEN.findall("apples and oranges")) == "apples and oranges"
    assert TOKEN.findall(' "apples and oranges"') == [" ", '"', "apples", " and", " oranges", '"']
    assert language.next_tokens(canonical_template(item).before([]))
    assert language.next_tokens("no answer starts so") == {}
    # Every prompt names one item; the random agent is seeded by the seed and the item.
    assert all(item_of_prompt()[user_prompt(i)] == i for i in items("movie", "BI"))
    assert distribution("random-agent", item, 1) == distribution("random-agent", item, 1)
    assert distribution("random-agent", item, 1) != distribution("random-agent", item, 2)


def test_the_rational_agents_answers_are_read_exactly_on_every_item() -> None:
    """The walk over its tokens, without Inspect (the next test runs a subset through it):
    every item of both domains read to rounding, every token path followed."""

    async def worst_error() -> float:
        worst = 0.0
        for domain in DOMAINS:
            expected = rational_answers(domain)
            for task in TASKS:
                for item in items(domain, task):
                    language = AnswerText.of(item, expected[item.item_id])

                    async def next_tokens(
                        text: str, language: AnswerText = language
                    ) -> Mapping[str, float]:
                        return language.next_tokens(text)

                    reading = await read_distribution(
                        item, canonical_template(item), next_tokens, floor=1e-15
                    )
                    assert reading is not None, item.item_id
                    read = reading.distribution
                    assert set(read) <= set(expected[item.item_id]), item.item_id
                    worst = max(
                        worst,
                        *(abs(read.get(a, 0.0) - p) for a, p in expected[item.item_id].items()),
                    )
        return worst

    assert asyncio.run(worst_error()) < 1e-14


def test_the_rational_agent_is_coherent_through_inspect(tmp_path: Path) -> None:
    # Every token path followed: the default floor reads answers below about 1e-3 as 0,
    # which leaves Pearson's r at 1 but reorders the near-zero ones for Spearman. The floor
    # is given as `-T floor=1e-15` gives it: as text, which YAML 1.1 does not read as a number.
    # A subset (260 of the 477 items, every task) takes half the time of them all.
    log = run(tmp_path, "tom/rational", domain="container", floor="1e-15", sample=40)
    values = metrics(log)
    for task in ("DI", "BI", "BDI"):
        assert values[f"container_{task}_r"] == pytest.approx(1.0)
        assert values[f"container_{task}_rho"] == pytest.approx(1.0)
        assert values[f"container_{task}_validity"] == 1.0
    for task in TASKS:
        assert values[f"container_{task}_rational_r"] == pytest.approx(1.0)
    assert values["reply_answers"] == values["read"] == values["by_logprobs"] == 1.0
    assert not any(key.startswith("movie") for key in values)
    # The distributions read are the agent's own, to rounding.
    expected = rational_answers("container")
    for record in records(log):
        assert record["distribution"] == pytest.approx(expected[record["item_id"]], abs=1e-14)
        assert record["template"] == "reply" and record["value_mass"] == pytest.approx(1.0)


def test_the_agents_across_domains(tmp_path: Path) -> None:
    rational, random_agent = inspect_eval(
        coherence(task="BI", sample=20),  # the same 20 items in each domain: a third the time
        model=["tom/rational", "tom/random-agent"],
        log_dir=str(tmp_path),
        display="none",
    )
    assert metrics(rational)["BI_cross_domain_r"] == pytest.approx(1.0)
    assert abs(metrics(random_agent)["BI_cross_domain_r"]) < 0.2
    # Without action predictions there is nothing to invert.
    assert not any(key.endswith("_validity") for key in metrics(rational))
    # The report: a row per run and the three panels of the paper's Figure 3.
    report, _ = write_report([tmp_path], report_sections(), tmp_path / "report")
    text = report.read_text()
    assert "## Coherence of action prediction and inference" in text
    assert "tom/rational [default] (coherence, estimator=logprobs, task=BI, sample=20)" in text
    assert "tom/random-agent [default]" in text and "| BI_cross_domain_r |" in text
    # A count among the correlations stays a whole number.
    items = len(rational.samples or [])
    assert f"| items | {items} | {items} |" in text
    assert (tmp_path / "report" / "coherence.png").stat().st_size > 10_000


def test_the_report_pools_the_logs_of_one_run(tmp_path: Path) -> None:
    """The run's metrics are correlations over its items: a run split over two logs is
    reported as the whole run's log reports it, and a sample in both counts once."""
    whole = run(tmp_path / "whole", "tom/random-agent", limit=60, domain="movie", task="AP,BI")
    assert whole.samples is not None and whole.results is not None
    folder = tmp_path / "parts"
    for part, samples in enumerate((whole.samples[:40], whole.samples[20:])):
        log = whole.model_copy(deep=True)
        log.samples = [
            sample.model_copy(update={"uuid": f"{part}-{sample.uuid}"}) for sample in samples
        ]
        log.eval.eval_id = f"part-{part}"
        log.eval.dataset.sample_ids = [sample.id for sample in samples]
        assert log.results is not None
        log.results.completed_samples = log.results.total_samples = len(samples)
        write_eval_log(
            log, str(folder / f"2026-01-0{part + 1}T00-00-00+00-00_coherence_part{part}.eval")
        )
    _, warnings = write_report([folder], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "coherence.csv").to_dict("records")
    expected = metrics(whole)
    assert row["items"] == 60 and set(row) - {"run", "items"} == set(expected)
    for key, value in expected.items():
        assert row[key] == pytest.approx(value), key
    assert any("20 sample(s) also in a later or fuller log of the run" in w for w in warnings)


def test_tasks_and_domains_in_another_order_are_one_run(tmp_path: Path) -> None:
    """As the task reads them: `task=BI,AP` is `task=AP,BI`, and `domain=movie,container`
    is the default."""
    for domain, task in (("container,movie", "AP,BI"), ("movie,container", "BI,AP")):
        run(tmp_path / "logs", "tom/rational", limit=2, domain=domain, task=task)
    write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    runs = pd.read_csv(tmp_path / "report" / "coherence.csv")["run"].tolist()
    assert runs == ["tom/rational [default] (coherence, estimator=logprobs, task=AP,BI)"]


def test_a_run_without_what_an_evaluation_needs_is_said_to_lack_it(tmp_path: Path) -> None:
    """Without AP, no Bayesian correlation or validity; with one domain, no cross-domain
    consistency: each said, so that an absent row is not read as a failure."""
    run(tmp_path / "logs", "tom/rational", limit=4, domain="movie", task="BI")
    run(tmp_path / "logs", "tom/rational", task="AP,BI", sample=8)
    write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    notes = [
        line
        for line in (tmp_path / "report" / "report.md").read_text().splitlines()
        if line.startswith("tom/rational") and ": no " in line
    ]
    one = "tom/rational [default] (coherence, estimator=logprobs, domain=movie, task=BI): no "
    assert notes == [
        f"{one}Bayesian correlation or validity: they need the action predictions (AP) and an "
        "inference task (DI, BI or BDI), and the run has task=BI, domain=movie.",
        f"{one}cross-domain consistency: it needs both domains, and the run has task=BI, "
        "domain=movie.",
    ]
    # Both in its settings, yet too few items to compute them: said as such.
    run(tmp_path / "few", "tom/rational", task="AP,DI", sample=2)
    write_report([tmp_path / "few"], report_sections(), tmp_path / "few-report")
    assert (
        "(coherence, estimator=logprobs, task=AP,DI, sample=2): no Bayesian correlation or "
        "validity: its items could not give them (too few, or answers without variance)."
    ) in (tmp_path / "few-report" / "report.md").read_text()


def test_a_log_that_lost_its_sample_entries_is_named_as_damaged(tmp_path: Path) -> None:
    """Not skipped as if written with --no-log-samples: its header counts samples it lacks."""
    folder = tmp_path / "run"
    run(folder, "tom/random-agent", limit=6, domain="movie", task="AP")
    (log,) = folder.glob("*.eval")
    assert without_sample_entries(log) == 6
    with pytest.raises(InputError) as raised:
        write_report([folder], report_sections(), tmp_path / "report")
    assert str(raised.value) == (
        f"{log}: 6 of the 6 samples it lists have no entry in the file; the log is damaged"
    )


def test_the_report_of_a_run_of_every_task_is_the_logs_own(tmp_path: Path) -> None:
    """Items of every task in one run: their distributions have other answers (actions,
    beliefs, desires), and the report reads each as it was logged."""
    log = run(tmp_path / "logs", "tom/rational", sample=6)
    write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "coherence.csv").to_dict("records")
    for key, value in metrics(log).items():
        assert row[key] == pytest.approx(value, nan_ok=True), key


def test_two_sessions_of_one_run_are_read_from_one_copy(tmp_path: Path) -> None:
    """Logs of one run whose eval metadata differ are two sessions, and both keep their
    samples; a coherence run is one set of answers, so each item is read from the
    preferred log alone, for the answers and the shares alike."""
    whole = run(tmp_path / "whole", "tom/random-agent", limit=30, domain="movie", task="AP,BI")
    folder = tmp_path / "sessions"
    other = whole.model_copy(deep=True)
    for sample in other.samples or []:  # an older session that read nothing
        score = (sample.scores or {})["coherence_scorer"]
        score.value = cast(dict[str, float], score.value) | {"read": 0.0, "reply_answers": 0.0}
        sample.uuid = f"other-{sample.uuid}"
    other.eval.eval_id, other.eval.metadata = "other", {"session": "b"}
    other.eval.created = "2026-01-01T00:00:00+00:00"
    for name, log in (("whole", whole), ("other", other)):
        write_eval_log(log, str(folder / f"2026-01-01T00-00-00+00-00_coherence_{name}.eval"))
    _, warnings = write_report([folder], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "coherence.csv").to_dict("records")
    assert row["items"] == 30
    for key, value in metrics(whole).items():
        assert row[key] == pytest.approx(value), key
    assert any("30 sample(s) also in a later or fuller log of the run" in w for w in warnings)


def test_the_report_of_a_run_with_epochs_and_settings_is_the_logs_own(tmp_path: Path) -> None:
    """With epochs, the log's metrics read each item's first epoch (Inspect's reducer keeps
    its metadata), and so does the report; the rational agent's settings are read from the
    log's metric definitions, whatever package prefix their names carry."""
    (log,) = inspect_eval(
        coherence(domain="container", task="AP,BI", cost=2.0, temperature=1.0),
        model="tom/random-agent",
        limit=20,
        epochs=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.samples is not None and log.location is not None
    for sample in log.samples:  # a second epoch that answers otherwise
        metadata = (sample.scores or {})["coherence_scorer"].metadata or {}
        if sample.epoch == 2 and metadata.get("distribution"):
            metadata["distribution"] = dict.fromkeys(metadata["distribution"], 1.0)
    assert isinstance(log.eval.metrics, list)
    for definition in log.eval.metrics:
        if not isinstance(definition, dict):
            definition.name = f"scorers/{definition.name}"  # as installed from a wheel
    write_eval_log(log, log.location)
    write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    (row,) = pd.read_csv(tmp_path / "report" / "coherence.csv").to_dict("records")
    assert row["items"] == 20
    for key, value in metrics(log).items():
        assert row[key] == pytest.approx(value), key
    assert metric_settings(log.location) == (None, 2.0, 1.0)
    # An item whose first epoch read no distribution is left out, as Inspect leaves it out,
    # though its second epoch read one; its `read` is the mean over its epochs.
    firsts = [sample for sample in log.samples if sample.epoch == 1]
    unread = (firsts[0].scores or {})["coherence_scorer"]
    unread.metadata = (unread.metadata or {}) | {"distribution": None}
    unread.value = cast(dict[str, float], unread.value) | {"read": 0.0}
    write_eval_log(log, log.location)
    write_report([tmp_path / "logs"], report_sections(), tmp_path / "again")
    (row,) = pd.read_csv(tmp_path / "again" / "coherence.csv").to_dict("records")
    answers = run_answers((s.scores or {})["coherence_scorer"].metadata or {} for s in firsts)
    assert len(answers) == 19 and row["read"] == pytest.approx((19 + 0.5) / 20)
    expected = rational_values(answers, 2.0, 1.0)
    assert row["container_AP_rational_r"] == pytest.approx(expected["container_AP_rational_r"])


def test_a_coherence_log_without_samples_is_named_and_skipped(tmp_path: Path) -> None:
    log = run(tmp_path / "logs", "tom/rational", limit=4, domain="movie", task="AP")
    assert log.location is not None
    log.samples = None
    write_eval_log(log, log.location)
    _, warnings = write_report([tmp_path / "logs"], report_sections(), tmp_path / "report")
    assert any("holds no samples" in warning for warning in warnings)
    assert "No coherence run has scored samples" in (tmp_path / "report" / "report.md").read_text()


def test_the_reports_defaults_are_the_tasks() -> None:
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(inspect.unwrap(coherence)).parameters.items()
    }
    for name, default in LABEL_DEFAULTS.items():
        assert str(defaults[name]) == str(default), name


def test_the_random_agent_is_incoherent(tmp_path: Path) -> None:
    # 30 inferences and the 100 action predictions they need: 130 of the 297 items.
    values = metrics(run(tmp_path, "tom/random-agent", domain="movie", task="AP,BI", sample=30))
    assert abs(values["movie_BI_r"]) < 0.3
    assert abs(values["movie_BI_rational_r"]) < 0.3
    assert values["movie_BI_validity"] < 0.8


def test_without_logprobs_the_estimator_falls_back_to_sampling(tmp_path: Path) -> None:
    model = get_model("tom/rational", logprobs=False)
    log = run(tmp_path, model, limit=10, domain="movie", task="AP", samples=20)
    assert metrics(log)["by_logprobs"] == 0.0
    for record in records(log):
        assert record["estimator"] == "sampling" and record["draws"] == 20
        expected = rational_answers("movie")[record["item_id"]]
        top = max(expected, key=lambda answer: expected[answer])
        # The rational agent's choices are at least 99% sure.
        assert record["distribution"].get(top, 0) >= 0.8


# ------------------------------------------------------------------ scripted outputs


def _usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=50, output_tokens=5, total_tokens=55)
    return output


def _reply(text: str, logprobs: Logprobs | None = None) -> ModelOutput:
    message = ChatMessageAssistant(content=text, model="mockllm/model")
    choice = ChatCompletionChoice(message=message, stop_reason="stop", logprobs=logprobs)
    return _usage(ModelOutput(model="mockllm/model", choices=[choice]))


def _step(token: str, top: dict[str, float]) -> Logprob:
    return Logprob(
        token=token,
        logprob=math.log(top[token]),
        top_logprobs=[TopLogprob(token=t, logprob=math.log(p)) for t, p in top.items()],
    )


def test_scripted_samples_give_shares_and_count_bad_replies(tmp_path: Path) -> None:
    replies = ['{"action": "box"}'] * 3 + ['{"action": "basket"}', "I would go to the box."]
    model = get_model("mockllm/model", custom_outputs=[_reply(text) for text in replies])
    log = run(tmp_path, model, 1, domain="container", task="AP", estimator="sampling", samples=5)
    first = records(log)[0]
    assert first["estimator"] == "sampling"
    assert (first["draws"], first["answered_draws"]) == (5, 4)
    assert first["distribution"] == {"box": 0.75, "basket": 0.25}
    assert first["reply_answer"] == "box"


def test_an_output_without_choices_is_an_empty_reply_counted(tmp_path: Path) -> None:
    """A provider's output may hold no choice: it ended the run (an IndexError)."""
    empty = [_usage(ModelOutput(model="mockllm/model", choices=[]))] * 2
    model = get_model("mockllm/model", custom_outputs=empty)
    log = run(tmp_path, model, 1, domain="container", task="AP", estimator="sampling", samples=2)
    first = records(log)[0]
    assert (first["draws"], first["answered_draws"]) == (2, 0)
    assert first["reply"] == "" and first["reply_answer"] is None


def test_scripted_logprobs_score_a_value_of_several_tokens(tmp_path: Path) -> None:
    """The reply says box; basket is spelled "bas" + "ket", which needs a continuation."""
    reply = _reply(
        '{"action": "box"}',
        Logprobs(
            content=[
                _step('{"action": "', {'{"action": "': 1.0}),
                _step("box", {"box": 0.7, "bas": 0.2, "The": 0.0995, "b": 0.0005}),
                _step('"}', {'"}': 0.9, "es": 0.1}),
            ]
        ),
    )
    continuation = _reply(
        "ket",
        Logprobs(content=[_step("ket", {"ket": 0.8, "il": 0.2}), _step('"', {'"': 1.0})]),
    )
    model = get_model("mockllm/model", custom_outputs=[reply, continuation])
    log = run(tmp_path, model, 1, domain="container", task="AP")
    sample = (log.samples or [])[0]
    record = (sample.scores or {})["coherence_scorer"].metadata or {}
    box, basket = 0.7 * 0.9, 0.2 * 0.8 * 1.0
    assert record["distribution"] == pytest.approx(
        {"box": box / (box + basket), "basket": basket / (box + basket)}
    )
    assert (record["continuations"], record["unexpanded"]) == (1, pytest.approx(0.0005))
    # The continuation prefilled the reply so far as the assistant's message.
    prefilled = [e for e in sample.events if e.event == "model"][1].input[-1]
    assert prefilled.role == "assistant" and prefilled.text == '{"action": "bas'


# ------------------------------------------------------------------- prior and errors


def _scores(run_answers: Mapping[str, Mapping[str, float]]) -> list[SampleScore]:
    return [
        SampleScore(
            score=Score(value=1.0, metadata={"item_id": key, "distribution": dict(value)}),
            sample_id=key,
        )
        for key, value in run_answers.items()
    ]


def test_a_prior_changes_the_inversion(tmp_path: Path) -> None:
    scores = _scores(rational_answers("container"))
    uniform = cast(Any, bayesian())(scores)
    assert isinstance(uniform, dict) and uniform["container_DI_r"] == pytest.approx(1.0)
    keys = answers(items("container", "DI")[0])
    prior_file = tmp_path / "prior.yaml"
    prior_file.write_text("\n".join(f"'{k}': {w}" for k, w in zip(keys, (8, 1, 1), strict=True)))
    # The task reads the same prior from a file (and accepts it: DI's keys are all there).
    assert coherence(domain="container", task="AP,DI", prior=str(prior_file)).metrics
    skewed = cast(Any, bayesian)({k: w for k, w in zip(keys, (8.0, 1.0, 1.0), strict=True)})(scores)
    assert isinstance(skewed, dict) and skewed["container_DI_r"] < 0.99


def test_a_prior_over_one_domains_answers_leaves_the_other_uniform() -> None:
    """BI's answers differ between the domains: a prior over ContainerWorld's (which the
    task accepts) weighs ContainerWorld's BI and leaves MovieWorld's uniform."""
    scores = _scores(rational_answers("container") | rational_answers("movie"))
    uniform = cast(Any, bayesian())(scores)
    keys = answers(items("container", "BI")[0])
    assert not set(keys) & set(answers(items("movie", "BI")[0]))
    skewed = cast(Any, bayesian)({key: 1.0 + (index == 0) * 7 for index, key in enumerate(keys)})
    values = skewed(scores)
    assert values["movie_BI_r"] == pytest.approx(uniform["movie_BI_r"])
    assert values["container_BI_r"] != pytest.approx(uniform["container_BI_r"])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"domain": "moon"}, "domain must be among container, movie, not 'moon'"),
        ({"task": "AP,XY"}, "task must be among AP, DI, BI, BDI, not 'XY'"),
        ({"domain": None}, "domain names nothing"),
        ({"task": None}, "task names nothing"),
        ({"domain": 1}, "domain must be among container, movie, not '1'"),
        ({"prior": 1}, "prior: YAML reads the value as the number '1', not a file name"),
        ({"floor": 2}, "floor must be a probability above 0 and below 1, not '2'"),
        ({"floor": "1e-15x"}, "floor must be a probability above 0 and below 1, not '1e-15x'"),
        ({"cost": float("inf")}, "cost must be a number of 0 or more, not 'inf'"),
        # A whole number beyond a float (-T cost=1000...0) is not finite either.
        ({"cost": 10**400}, "cost must be a number of 0 or more, not '1000"),
        ({"cost": True}, "cost must be a number of 0 or more, not 'true'"),
        ({"temperature": 1e-310}, "over temperature 1e-310 is beyond a float"),
        ({"cost": 1e308}, "cost 1e+308 over temperature 0.1 is beyond a float"),
        ({"estimator": "guess"}, "estimator must be one of logprobs, sampling, not 'guess'"),
        ({"samples": 0}, "samples must be a whole number from 1 to 10,000, not '0'"),
        ({"samples": 10**11}, "samples must be a whole number from 1 to 10,000, not '1000"),
        ({"temperature": 0}, "temperature must be a number above 0, not '0'"),
        ({"prior": "/nowhere/prior.yaml"}, "/nowhere/prior.yaml: cannot read"),
    ],
)
def test_bad_parameters_are_one_line_errors(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(PrerequisiteError) as error:
        coherence(**arguments)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "a prior maps answer keys to weights"),
        ("'d=likes|likes': 1", "container DI has no weight for d=dislikes|likes"),
        ("'d=likes|likes': -1", "the weight of d=likes|likes must be a finite number, 0 or"),
        (f"'d=likes|likes': {10**400}", "the weight of d=likes|likes must be a finite number"),
        ("'d=likes|likes': .inf", "the weight of d=likes|likes must be a finite number"),
        ("'d=likes|likes': 1e-3", "container DI has no weight for d=dislikes|likes"),
        ("'d=likes|likes': one", "the weight of d=likes|likes is not a number"),
        (
            "'d=likes|likes': 1\n'd=likes|likes': 2",
            "the key 'd=likes|likes' is given twice (line 2)",
        ),
        ("'d=loves|likes': 1", "d=loves|likes is no answer of the tasks run"),
    ],
)
def test_bad_priors_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    prior_file = tmp_path / "prior.yaml"
    prior_file.write_text(text)
    with pytest.raises(PrerequisiteError, match="coherence: ") as error:
        coherence(domain="container", task="AP,DI", prior=str(prior_file))
    assert message in str(error.value)


def test_every_item_of_both_domains_is_a_sample() -> None:
    task = coherence()
    ids = [sample.id for sample in task.dataset]
    assert len(ids) == len(set(ids)) == 2 * (243 + 162 + 54 + 18)
    assert all(find_item(str(i)).domain in DOMAINS for i in ids)
    template: Template = canonical_template(AP_ITEM)
    assert template.before(["box"]).startswith("{")
