"""tasks/tom.py end to end through Inspect, with scripted replies and the reference players.

Scripted replies carry token usage, so no tokenizer is downloaded: nothing needs the network.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import score as inspect_score
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Scorer
from knowledge_support import FIXTURES

from conftest import REFERENCE_SCENARIOS, ROOT, inspect_eval, played_turn, require_shared
from scorers.coherence import coherence_scorer
from scorers.false_belief import false_belief_scorer
from scorers.game import game_scorer
from scorers.ikd import ikd_scorer
from scorers.knp import knp_judge_scorer, knp_scorer
from scorers.tom import tom_scorer
from tasks.coherence import coherence
from tasks.false_belief import false_belief
from tasks.ikd import ikd as ikd_task
from tasks.knp import knp as knp_task
from tasks.tom import tom
from tom_eval.game import analysis
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.parsing import ResponseFormat, option_letter
from tom_eval.game.prompts import PromptView, read_prompt
from tom_eval.game.solver import CANCELLED
from tom_eval.game.world import ITEMS, NOTHING

# Id 12: Self answers, Ask Teammate is optimal. Id 17: Teammate answers, Tell Teammate.
# Id 27: an opponent answers, Pass is optimal.
THREE = {"ids": "12,17,27", "extras": "0A", "reps": 1}

Policy = Callable[[PromptView], Action | str]


def scripted(policy: Policy, answers: str = "reply") -> Model:
    """A model that plays `policy` (an Action, or raw text to send as is) and answers with
    what a player replied to it, else "nothing"."""

    def reply(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        user = [message.text for message in messages if message.role == "user"]
        view = read_prompt(user[0])
        if len(user) > 1 and "ANSWER PHASE" in user[-1]:
            told = [re.search(r"contains (?:an? )?(\w+)\.", text) for text in user[1:]]
            contents = next((m[1] for m in told if m), "nothing") if answers == "reply" else answers
            text = (
                f"Let me think.\nANSWER: {contents}" if view.response_format == "free" else contents
            )
        else:
            choice = policy(view)
            text = choice if isinstance(choice, str) else render(choice, view)
        output = ModelOutput.from_content(model="mockllm/model", content=text)
        output.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return output

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def render(action: Action, view: PromptView) -> str:
    if view.response_format == "choice":
        return option_letter(view.options.index(action))
    if view.response_format == "free":
        return f"B was away, so...\n**ACTION:** {action}"
    return str(action)


def by_hand(view: PromptView) -> Action:
    """Ask in Id 12, Tell in Id 17, and lie to the answering opponent in Id 27."""
    observation = view.observation
    question, answerer = observation.question, observation.answerer
    if answerer == "A":
        return Action("ask", "B", question)
    items = [event.item for event in observation.events if hasattr(event, "item")]
    if answerer == "B":
        return Action("tell", "B", question, items[-1])
    # The choice format's lie: a Tell to the answerer of something A does not believe
    # (A's belief is what every Tell to the teammate says).
    believed = {option.contents for option in view.options if option.player == "B"}
    lies = [
        option
        for option in view.options
        if option.kind == "tell" and option.player == answerer and option.contents not in believed
    ]
    return lies[0] if lies else Action("tell", answerer, question, "stapler")


def run(tmp_path: Path, model: Model | str, **task_args: Any) -> EvalLog:
    options = {key: task_args.pop(key) for key in ("epochs", "max_samples") if key in task_args}
    (log,) = inspect_eval(
        tom(**task_args), model=model, log_dir=str(tmp_path), display="none", **options
    )
    assert log.status == "success", log.error
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    """The figures a run shows (`tom_scorer.<metric>`), and those `tom-eval report` computes
    from its samples (`report.<summary or mastery column>`)."""
    assert log.results is not None
    shown = {
        f"{score.name}.{name}": metric.value
        for score in log.results.scores
        for name, metric in score.metrics.items()
    }
    results = analysis.load([Path(log.location)])
    (summary,) = analysis.summary(results).to_dict("records")
    overall = analysis.mastery(results).query("scope == 'Overall'")
    (mastery,) = overall.to_dict("records")
    reported = {f"report.{key}": value for key, value in (mastery | summary).items()}
    return shown | reported


@pytest.mark.parametrize("response_format", ["choice", "action", "free"])
def test_always_passing_scores_exactly(tmp_path: Path, response_format: ResponseFormat) -> None:
    got = metrics(
        run(tmp_path, scripted(lambda view: PASS), response_format=response_format, **THREE)
    )
    assert got["tom_scorer.balanced_accuracy"] == pytest.approx(1 / 3)
    assert got["tom_scorer.optimal"] == pytest.approx(1 / 3)
    assert got["report.expected_Pass"] == 1.0 and got["report.expected_Ask Teammate"] == 0.0
    assert got["tom_scorer.valid"] == 1.0
    assert got["tom_scorer.regret"] == pytest.approx(1 / 3)  # 0.5 in Ids 12 and 17
    # Id 12: A answers "nothing", wrong. Id 17: B believes something false. Id 27: Red scores.
    assert got["tom_scorer.points"] == pytest.approx(-1 / 3)
    assert got["tom_scorer.answer_correct"] == 0.0
    assert got["tom_scorer.lies_okay"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("response_format", ["choice", "action", "free"])
def test_asking_telling_and_lying_score_exactly(
    tmp_path: Path, response_format: ResponseFormat
) -> None:
    log = run(tmp_path, scripted(by_hand), response_format=response_format, **THREE)
    got = metrics(log)
    assert got["tom_scorer.optimal"] == pytest.approx(2 / 3)
    assert got["tom_scorer.balanced_accuracy"] == pytest.approx(2 / 3)
    assert got["tom_scorer.lies_okay"] == 1.0  # the lie to the answering opponent counts here
    assert got["report.lie_to_opponent"] == pytest.approx(1 / 3)
    assert got["report.strategic_lies"] == 1.0  # Id 27 rewards the lie
    # The lie costs 0.5 and changes nothing.
    assert got["tom_scorer.regret"] == pytest.approx(1 / 6)
    assert got["tom_scorer.answer_correct"] == 1.0  # A asked B, who knows
    assert got["report.answer_valid"] == 1.0
    assert got["report.id_12"] == 1.0 and got["report.id_27"] == 0.0
    # Id 12: +1 - 0.5; Id 17: B adopts the Tell, +1 - 0.5; Id 27: the opponent ignores the lie.
    assert got["tom_scorer.points"] == pytest.approx((0.5 + 0.5 - 1.5) / 3)
    records = {sample.id: played_turn(sample) for sample in log.samples or []}
    assert records["12-0A-r1"]["reply"] is not None


@pytest.mark.parametrize(
    ("response_format", "reply"),
    [("choice", "I'd rather not say."), ("action", ""), ("free", "Hard to say what is best.")],
)
def test_unreadable_replies_are_counted_not_dropped(
    tmp_path: Path, response_format: ResponseFormat, reply: str
) -> None:
    log = run(tmp_path, scripted(lambda view: reply), response_format=response_format, **THREE)
    got = metrics(log)
    assert len(log.samples or []) == 3
    assert got["tom_scorer.valid"] == 0.0 and got["tom_scorer.optimal"] == 0.0
    assert got["tom_scorer.regret"] == pytest.approx(1 / 3)  # played as Pass
    for sample in log.samples or []:
        assert sample.scores is not None and sample.scores["tom_scorer"].answer == "invalid"


def test_a_free_reply_without_its_action_line_is_read_and_the_slip_counted(
    tmp_path: Path,
) -> None:
    tagged = metrics(
        run(tmp_path, scripted(lambda view: f"ACTION: {PASS}"), response_format="free", **THREE)
    )
    assert tagged["report.format_ok"] == 1.0
    log = run(
        tmp_path,
        scripted(lambda view: f"Nothing to gain.\n{PASS}"),
        response_format="free",
        **THREE,
    )
    got = metrics(log)
    assert got["tom_scorer.valid"] == 1.0 and got["report.format_ok"] == 0.0
    for sample in log.samples or []:
        assert played_turn(sample)["slips"] == ["no ACTION: line"]
    # The other formats ask for no tagged line: nothing to count.
    assert math.isnan(
        metrics(run(tmp_path, scripted(lambda view: PASS), **THREE))["report.format_ok"]
    )


def test_the_lose_rule_sets_points_and_regret(tmp_path: Path) -> None:
    got = metrics(run(tmp_path, scripted(lambda view: PASS), lose=True, **THREE))
    # Passing where Ask or Tell were worth +0.5 now risks -1: regret 1.5 in Ids 12 and 17.
    assert got["tom_scorer.regret"] == pytest.approx(1.0)
    assert got["tom_scorer.points"] == pytest.approx(-1.0)


def test_a_scenario_file_where_a_saw_no_item_plays(tmp_path: Path) -> None:
    """A leaves before C puts the apple: A believes the bag is empty and has seen no item,
    yet the choice format still offers a lie to the answering opponent."""
    story = {
        "key": "39-0A-r1",
        "id": 39,
        "extra": "0A",
        "rep": 1,
        "seed": 0,
        "answerer_role": "Opponent",
        "spec_action": "Pass",
        "labels": {"self": "Believes X", "teammate": "Knows Truth", "opponent": "Knows Truth"},
        "containers": ["bag", "box", "basket"],
        "present_initially": ["A", "B", "C", "D"],
        "events": [
            {"type": "leave", "actor": "A"},
            {"type": "put", "actor": "C", "item": "apple", "container": "bag"},
        ],
        "question": "bag",
        "answerer": "C",
    }
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(story) + "\n")
    log = run(tmp_path, "tom/random", scenario_file=str(path))
    options = played_turn((log.samples or [])[0])["options"]
    assert len(options) == 8 and any(
        o.startswith("Tell(C, bag, ") and not o.endswith("nothing)") for o in options
    )


def test_a_log_scores_again_from_its_logged_turns(tmp_path: Path) -> None:
    """The turn goes from solver to scorer in memory; `inspect score --action append` reads
    it back from the earlier score and scores it the same, and without that score says why."""
    log = run(tmp_path, "tom/no-tom", ids="12,17", extras="0A", reps=1)
    again = inspect_score(log, tom_scorer(), action="append", display="none")
    assert again.results is not None
    by_name = {score.name: score.metrics for score in again.results.scores}
    assert {name: m.value for name, m in by_name["tom_scorer1"].items()} == {
        name: m.value for name, m in by_name["tom_scorer"].items()
    }
    with pytest.raises(PrerequisiteError, match="no played turn to score"):
        inspect_score(log, tom_scorer(), action="overwrite", display="none")


def test_a_turn_a_time_limit_cancels_is_scored_as_far_as_it_went(tmp_path: Path) -> None:
    """`--time-limit` cancels the sample inside the call: the turn kept before it is
    scored, the reply unreadable (it was a run error: "no played turn to score")."""
    slow = get_model("tom/oracle", latency=2.0)
    (log,) = inspect_eval(
        tom(ids="12", extras="0A", reps=1),
        model=slow,
        log_dir=str(tmp_path),
        display="none",
        time_limit=1,
    )
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    assert sample.limit is not None and sample.limit.type == "time"
    turn = played_turn(sample)
    assert turn["action"] is None and turn["action_problem"] == CANCELLED


@pytest.mark.parametrize(
    ("limits", "calls"),
    [({"token_limit": 5}, 0), ({"token_limit": 15}, 1), ({"message_limit": 3}, 1)],
)
def test_a_turn_a_sample_limit_stops_is_scored_as_no_reply(
    tmp_path: Path, limits: dict[str, int], calls: int
) -> None:
    """`--token-limit`, `--message-limit`: the turn is kept, its stopped replies unreadable
    (a reply before the limit counts); it was a run error ("no played turn to score")."""
    (log,) = inspect_eval(
        tom(ids="12", extras="0A", reps=1),
        model=scripted(by_hand),
        log_dir=str(tmp_path),
        display="none",
        **limits,
    )
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    assert sample.limit is not None and sample.scores is not None
    turn = played_turn(sample)
    assert (turn["action"] is not None) == (calls == 1) and turn["answer"] is None
    stopped = turn["answer_problem"] if calls else turn["action_problem"]
    assert stopped.startswith("no reply: the sample stopped at its ")
    value = sample.scores["tom_scorer"].value
    assert isinstance(value, dict) and value["answer_valid"] == 0.0


@pytest.mark.parametrize("response_format", ["action", "free"])
def test_a_tell_of_an_item_the_game_lacks_is_scored_not_refused(
    tmp_path: Path, response_format: ResponseFormat
) -> None:
    """A model's output, not a log edited by hand: played, scored as not optimal (the
    run went on to an error before), and scored again the same."""
    pear = scripted(lambda view: Action("tell", "B", view.observation.question, "pear"))
    log = run(tmp_path, pear, response_format=response_format, **THREE)
    got = metrics(log)
    assert got["tom_scorer.valid"] == 1.0 and got["tom_scorer.optimal"] == 0.0
    for sample in log.samples or []:
        action = played_turn(sample)["action"]
        assert action.startswith("Tell(B, ") and action.endswith(", pear)")
    again = inspect_score(log, tom_scorer(), action="append", display="none")
    assert again.results is not None
    by_name = {score.name: score.metrics for score in again.results.scores}
    assert by_name["tom_scorer1"]["optimal"].value == 0.0


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            lambda sample: sample.scores["tom_scorer"].metadata.update(action="Fly(me, moon)"),
            "the logged turn's action: not a canonical action: 'Fly(me, moon)'",
        ),
        (
            lambda sample: sample.scores["tom_scorer"].metadata.update(blue=[1]),
            "the logged turn's 'blue' is [1]: input should be a valid number",
        ),
        (lambda sample: sample.metadata.update(story={"a": 1}), "missing 'containers'"),
        # Read as true before: the turn was scored again under the other rules.
        (
            lambda sample: sample.metadata.update(lose="false"),
            "the metadata's 'lose' is 'false': input should be a valid boolean",
        ),
    ],
)
def test_a_log_edited_by_hand_is_refused_when_scored_again(
    tmp_path: Path, edit: Callable[[Any], None], said: str
) -> None:
    log = run(tmp_path, "tom/no-tom", ids="12", extras="0A", reps=1)
    edit((log.samples or [])[0])
    with pytest.raises(PrerequisiteError) as raised:
        inspect_score(log, tom_scorer(), action="append", display="none")
    message = str(raised.value.message)
    assert message.startswith("sample 12-0A-r1: ") and message.endswith("; was the log edited?")
    assert said in message


def test_a_reply_with_half_a_surrogate_pair_is_read_and_the_run_logged(tmp_path: Path) -> None:
    """A reply holding a lone surrogate (half of an emoji's UTF-16 pair) goes back to the
    model as input for A's answer; Inspect could not write that input as UTF-8 and failed
    the whole run. The run is logged, and the reply read as given."""
    log = run(tmp_path, scripted(lambda view: "Pass \ud83d"), ids="12", extras="0A", reps=1)
    [sample] = log.samples or []
    assert sample.scores is not None and sample.scores["tom_scorer"].answer == "Pass"
    assert sample.messages[2].text == "Pass \ufffd"


LOG_OF: dict[str, tuple[Callable[[], Task], str]] = {
    "false_belief": (lambda: false_belief(contents=1, transfer=0), "tom/belief-oracle"),
    # KNP's samples carry a story of their own.
    "knp": (lambda: knp_task(data_dir=str(FIXTURES), genre="kids"), "tom/gold"),
    "trial": (lambda: tom(ids="12", extras="0A", reps=1), "tom/oracle"),
    "game": (lambda: tom(mode="game", games=1, turns=4, ids="7-24", reps=2), "tom/oracle"),
    "coherence": (lambda: coherence(task="BI"), "tom/rational"),
    "ikd": (lambda: ikd_task(data_dir=str(FIXTURES)), "tom/gold"),
}
"""A one-sample log of each kind, to score with another task's scorer."""


@pytest.fixture(scope="module")
def one_sample_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    folder = tmp_path_factory.mktemp("logs")
    return {
        kind: inspect_eval(task(), model=model, log_dir=str(folder), display="none", limit=1)[0]
        for kind, (task, model) in LOG_OF.items()
    }


@pytest.mark.parametrize(
    ("kind", "scorer", "said"),
    [
        ("false_belief", tom_scorer, "not a sample of tasks/tom.py (no story, lose and neutral"),
        ("knp", tom_scorer, "tom_scorer scores the logs of tasks/tom.py"),
        ("game", tom_scorer, "a whole game of tasks/tom.py (-T mode=game): score it with"),
        ("trial", game_scorer, "a trial of tasks/tom.py, not a whole game: score it with"),
        ("knp", game_scorer, "not a sample of tasks/tom.py -T mode=game (no stories,"),
        ("trial", knp_scorer, "not a sample of tasks/knp.py (no correct_letter and options"),
        ("trial", knp_judge_scorer, "knp_judge_scorer scores the logs of tasks/knp.py"),
        ("knp", ikd_scorer, "not a sample of tasks/ikd.py (no kind in its metadata)"),
        ("trial", false_belief_scorer, "not a sample of tasks/false_belief.py (no family,"),
        ("trial", coherence_scorer, "not a sample of tasks/coherence.py (no item_id in its"),
    ],
)
def test_another_tasks_log_is_refused_by_a_scorer_in_one_line(
    one_sample_logs: dict[str, EvalLog], kind: str, scorer: Callable[[], Scorer], said: str
) -> None:
    """`inspect score` of a log with another task's scorer says so in one line, naming the
    scorer that scores it where the log is the game's, instead of a KeyError in the scorer."""
    with pytest.raises(PrerequisiteError) as raised:
        inspect_score(one_sample_logs[kind], scorer(), action="append", display="none")
    assert said in str(raised.value.message)
    assert "\n" not in str(raised.value.message)


def _first_turn_with(**changes: object) -> Callable[[Any], None]:
    """An edit of a game's log: its first logged turn with `changes`, and no other turn."""
    return lambda sample: sample.store.update(
        {"GameLog:turns": [dict(sample.store["GameLog:turns"][0]) | changes]}
    )


def _first_prompt_with(**changes: object) -> Callable[[Any], None]:
    """An edit of a false-belief log: its first logged prompt with `changes`, and no other."""
    key = "FalseBeliefRecord:completions"
    return lambda sample: sample.store.update({key: [dict(sample.store[key][0]) | changes]})


@pytest.mark.parametrize(
    ("kind", "scorer", "edit", "said"),
    [
        (
            "game",
            game_scorer,
            _first_turn_with(blue="x"),
            "the logged turn 1's 'blue' is 'x': input should be a valid number",
        ),
        (
            "game",
            game_scorer,
            _first_turn_with(number=9),
            "the logged turn 1 is numbered 9, not 1, in a game of 4 turns",
        ),
        (
            "game",
            game_scorer,
            _first_turn_with(owner="Z"),
            "the logged turn 1 is Z's on",
        ),
        (
            "game",
            game_scorer,
            lambda sample: sample.store.update({"GameLog:turns": "x"}),
            "the logged GameLog's 'turns' is 'x': input should be a valid list",
        ),
        # Read as true before: the game was scored again under the other rules.
        (
            "game",
            game_scorer,
            lambda sample: sample.metadata.update(lose="false"),
            "the metadata's 'lose' is 'false': input should be a valid boolean",
        ),
        (
            "game",
            game_scorer,
            lambda sample: sample.metadata.update(stories=[{"key": "12-0A-r1"}]),
            "the metadata's story 1 has no 'id'",
        ),
        # The schedule's error, which names no sample of its own.
        (
            "game",
            game_scorer,
            lambda sample: sample.metadata.update(turns=6),
            "turns must be a positive multiple of 4",
        ),
        (
            "false_belief",
            false_belief_scorer,
            lambda sample: sample.store.update(
                {"FalseBeliefRecord:completions": [{"correct": "false"}]}
            ),
            "the logged prompt 1 has no 'story'",
        ),
        (
            "false_belief",
            false_belief_scorer,
            _first_prompt_with(correct="false"),
            "the logged prompt 1's 'correct' is 'false': input should be a valid boolean",
        ),
        # Counted in no condition's share, without a word.
        (
            "false_belief",
            false_belief_scorer,
            _first_prompt_with(condition="xx"),
            "the logged prompt 1's 'condition' is 'xx': none of the battery's",
        ),
        (
            "coherence",
            coherence_scorer,
            lambda sample: sample.metadata.update(item_id="nope"),
            "'item_id' is 'nope', the id of no item",
        ),
        (
            "coherence",
            coherence_scorer,
            lambda sample: sample.store.update({"CoherenceRecord:distribution": {"a": "b"}}),
            """'distribution["a"]' is 'b': input should be a valid number""",
        ),
        # A KeyError in the engine, or a regret for an action the story has not.
        (
            "trial",
            tom_scorer,
            lambda sample: sample.scores["tom_scorer"].metadata.update(action="Ask(B, attic)"),
            "the logged turn's action 'Ask(B, attic)' is not one of the story's",
        ),
        (
            "game",
            game_scorer,
            _first_turn_with(action="Ask(Z, box)"),
            "the logged turn 1's action 'Ask(Z, box)' is not one of the story's",
        ),
        # Read as a game without a turn: win, tie and loss all 0. (A game without a winner
        # is one a cancelling limit stopped, scored as it stood: test_game_task.py.)
        (
            "game",
            game_scorer,
            lambda sample: sample.store.pop("GameLog:turns"),
            "the logged GameLog has no 'turns'",
        ),
        # Passed the model's own lax check, then a TypeError.
        (
            "game",
            game_scorer,
            lambda sample: sample.store.update({"GameLog:blue": "7"}),
            "the logged GameLog's 'blue' is '7': input should be a valid number",
        ),
        # The run's correlations ended in a ValueError.
        (
            "coherence",
            coherence_scorer,
            lambda sample: sample.store.update(
                {
                    "CoherenceRecord:distribution": dict.fromkeys(
                        sample.store["CoherenceRecord:distribution"], math.nan
                    )
                }
            ),
            "is nan, not from 0 to 1",
        ),
        # Scored as an original story without a word.
        (
            "ikd",
            ikd_scorer,
            lambda sample: sample.metadata.update(kind="erroneous"),
            "the metadata's 'kind' is 'erroneous': input should be 'original' or 'error'",
        ),
        # Left out of localisation without a word.
        (
            "ikd",
            ikd_scorer,
            lambda sample: sample.metadata.update(kind="error") or sample.metadata.pop("gold", 0),
            "an erroneous story's metadata has no 'gold'",
        ),
    ],
)
def test_a_log_edited_by_hand_is_refused_by_each_scorer_in_one_line(
    one_sample_logs: dict[str, EvalLog],
    kind: str,
    scorer: Callable[[], Scorer],
    edit: Callable[[Any], None],
    said: str,
) -> None:
    """A log edited by hand and scored again ended in a TypeError, KeyError or ValueError
    deep in the game's, false belief's or coherence's scorer, or, for "false" as text, was
    scored as true without a word."""
    log = one_sample_logs[kind].model_copy(deep=True)
    sample = (log.samples or [])[0]
    edit(sample)
    with pytest.raises(PrerequisiteError) as raised:
        inspect_score(log, scorer(), action="append", display="none")
    message = str(raised.value.message)
    assert message.startswith(f"sample {sample.id}: ") and message.endswith("; was the log edited?")
    assert said in message and "\n" not in message


@pytest.mark.parametrize(
    ("kind", "scorer"),
    [
        ("game", game_scorer),
        ("false_belief", false_belief_scorer),
        ("coherence", coherence_scorer),
        ("ikd", ikd_scorer),
        ("knp", knp_scorer),
    ],
)
def test_a_log_as_written_scores_again_the_same(
    one_sample_logs: dict[str, EvalLog], kind: str, scorer: Callable[[], Scorer]
) -> None:
    """The checks of a log scored again pass what the task wrote, and change no score."""
    log = one_sample_logs[kind].model_copy(deep=True)
    [name] = (log.samples or [])[0].scores or {}
    again = inspect_score(log, scorer(), action="overwrite", display="none")
    before, after = (
        (sample.samples or [])[0].scores or {} for sample in (one_sample_logs[kind], again)
    )
    assert json.dumps(after[name].value) == json.dumps(before[name].value)
    assert json.dumps(after[name].metadata) == json.dumps(before[name].metadata)


def test_metrics_stay_right_with_epochs(tmp_path: Path) -> None:
    """Three epochs play Pass, then by hand, then an unreadable reply, for each sample: the
    metrics must average the epochs per sample, not break on the reduced values."""
    calls: Counter[str] = Counter()

    def rotate(view: PromptView) -> Action | str:
        key = str(view.observation)
        calls[key] += 1
        plays: list[Action | str] = [PASS, by_hand(view), "???"]
        return plays[(calls[key] - 1) % 3]

    log = run(
        tmp_path, scripted(rotate), response_format="action", epochs=3, max_samples=1, **THREE
    )
    got = metrics(log)
    assert got["tom_scorer.optimal"] == pytest.approx(1 / 3)
    assert got["tom_scorer.balanced_accuracy"] == pytest.approx(1 / 3)
    assert got["tom_scorer.valid"] == pytest.approx(2 / 3)
    assert got["tom_scorer.regret"] == pytest.approx((1 / 3 + 1 / 3 + 1 / 6) / 3)
    assert got["tom_scorer.lies_okay"] == pytest.approx((1 / 3 + 1 / 3 + 2 / 3) / 3)
    assert got["report.strategic_lies"] == pytest.approx(1 / 3)


def test_the_oracle_is_perfect_and_baselines_are_what_they_claim(tmp_path: Path) -> None:
    args = {"ids": "mastery", "extras": "0A,1B", "reps": 2}
    oracle = metrics(run(tmp_path / "oracle", "tom/oracle", **args))
    assert oracle["tom_scorer.optimal"] == 1.0 and oracle["tom_scorer.balanced_accuracy"] == 1.0
    assert oracle["tom_scorer.regret"] == 0.0 and oracle["tom_scorer.valid"] == 1.0
    passing = metrics(run(tmp_path / "pass", "tom/always-pass", **args))
    assert passing["tom_scorer.balanced_accuracy"] == pytest.approx(1 / 3)
    assert passing["tom_scorer.optimal"] == pytest.approx(
        84 / 104
    )  # the share of Pass-optimal specs
    no_tom = metrics(run(tmp_path / "no-tom", "tom/no-tom", **args))
    assert no_tom["tom_scorer.optimal"] == passing["tom_scorer.optimal"]


def test_the_reference_scenario_file_plays(tmp_path: Path) -> None:
    path = require_shared(REFERENCE_SCENARIOS)
    log = run(tmp_path, "tom/oracle", scenario_file=str(path), extras="1B", ids="12,13,17")
    assert len(log.samples or []) == 30
    assert metrics(log)["tom_scorer.optimal"] == 1.0


def test_samples_carry_every_analysis_factor(tmp_path: Path) -> None:
    log = run(tmp_path, "tom/oracle", **THREE)
    sample = (log.samples or [])[0]
    assert sample.id == "12-0A-r1"
    for key in (
        "id",
        "extra",
        "answerer",
        "label_self",
        "label_teammate",
        "label_opponent",
        "expected_action",
        "mastery_categories",
        "ect",
        "visible_events",
        "margin",
    ):
        assert key in sample.metadata
    assert sample.metadata["mastery_categories"] == [
        "Self: Knowledge vs Belief",
        "Teammate vs Opponent",
        "Teammate vs Opponent (lies okay)",
    ]
    assert math.isnan(metrics(log)["report.gratuitous_lie_rate"])


def inspect_cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "inspect_ai", "eval", *args, "--display", "plain"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_entry_point_and_one_line_errors(tmp_path: Path) -> None:
    ok = inspect_cli(
        "tom_eval/tom",
        "--model",
        "tom/always-pass",
        "-T",
        "ids=12,17",
        "-T",
        "extras=0A",
        "-T",
        "reps=1",
        "--log-dir",
        str(tmp_path),
    )
    assert ok.returncode == 0, ok.stderr
    bad = inspect_cli(
        "tasks/tom.py", "--model", "tom/oracle", "-T", "ids=99", "--log-dir", str(tmp_path)
    )
    assert bad.returncode != 0
    assert "tom: unknown Id 99" in bad.stdout + bad.stderr
    assert "Traceback" not in bad.stdout + bad.stderr


@pytest.mark.parametrize("response_format", ["choice", "action", "free"])
def test_structured_output_asks_for_a_schema_and_reads_the_json(
    tmp_path: Path, response_format: ResponseFormat
) -> None:
    log = run(tmp_path, "tom/oracle", structured=True, response_format=response_format, **THREE)
    got = metrics(log)
    assert got["tom_scorer.optimal"] == 1.0 and got["tom_scorer.valid"] == 1.0
    if response_format == "free":
        assert got["report.format_ok"] == 1.0  # the JSON field is the format's place
    for sample in log.samples or []:
        events = [event for event in sample.events if event.event == "model"]
        schema = events[0].config.response_schema
        assert schema is not None and schema.json_schema.properties is not None
        fields = set(schema.json_schema.properties)
        if response_format == "choice":
            letters = schema.json_schema.properties["letter"].enum
            assert letters == [option_letter(i) for i in range(len(played_turn(sample)["options"]))]
        else:
            assert {"action", "player", "container", "contents"} <= fields
        assert ("reasoning" in fields) == (response_format == "free")
        assert json.loads(sample.messages[2].text)  # the reply is the JSON it was asked for


def test_the_structured_answer_offers_the_items_a_knows_of_and_nothing(tmp_path: Path) -> None:
    """The answer schema's `contents` is an enum (no option letter): the items A saw or was
    told, in the order of ITEMS, then the game's word for an empty container."""
    log = run(tmp_path, scripted(by_hand), structured=True, response_format="action", **THREE)
    answered = [s for s in log.samples or [] if played_turn(s)["answerer"] == "A"]
    assert answered  # Id 12: A answers
    for sample in answered:
        answer_turn = [event for event in sample.events if event.event == "model"][1]
        schema = answer_turn.config.response_schema
        assert schema is not None and schema.json_schema.properties is not None
        observation = read_prompt(sample.messages[1].text).observation
        known = {getattr(event, "item", None) for event in observation.events}
        known.add(played_turn(sample)["reply"])
        expected = [item for item in ITEMS if item in known] + [NOTHING]
        assert schema.json_schema.properties["contents"].enum == expected
        assert played_turn(sample)["answer_problem"] is None


def test_structured_output_is_for_trial_mode(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError, match="structured output is for trial mode"):
        tom(mode="game", structured=True)
    with pytest.raises(PrerequisiteError, match="structured must be true or false"):
        tom(structured="maybe")  # type: ignore[arg-type]
