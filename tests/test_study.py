"""The web study without a browser: assignment and persistence (the SQLite store), the
pages and their safety checks (Flask's test client), and export to Inspect logs."""

from __future__ import annotations

import errno
import json
import re
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.log._recorders.eval import ZipLogFile

from conftest import ROOT, played_turn
from tom_eval.cli import main, served_addresses
from tom_eval.errors import InputError
from tom_eval.game.players import respond
from tom_eval.study.app import StudySettings, create_app, next_step
from tom_eval.study.design import STORIES_FILE, StudyDesign, existing_design, open_design
from tom_eval.study.export import export
from tom_eval.study.store import Store
from tom_eval.task_args import NOT_GIVEN

SHORT = {"ids": "12,17,30", "extras": "0A", "reps": 2}
"""Three scenarios per participant: A asks then answers (12), A may tell its teammate (17),
an opponent answers (30); two reps, so two assignments."""
REPS = {1: ["a", "b", "c"], 2: ["d", "e", "f"], 3: ["g", "h", "i"]}
HOUR = 3600.0


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path)


def test_assignment_balances_reps_across_participants(store: Store) -> None:
    reps = [store.enrol(f"p{n}", "s", "", REPS, now=n, timeout=HOUR)[0].rep for n in range(7)]
    assert Counter(reps) == {1: 3, 2: 2, 3: 2}
    assert reps[:3] == [1, 2, 3]


def test_each_order_is_shuffled_once_with_its_recorded_seed(store: Store) -> None:
    import random

    people = [store.enrol(f"p{n}", "s", "", {1: list("abcdefgh")}, n, HOUR)[0] for n in range(6)]
    for person in people:
        expected = list("abcdefgh")
        random.Random(person.order_seed).shuffle(expected)
        assert list(person.order) == expected
    assert len({person.order for person in people}) > 1
    # Enrolling again returns the same assignment, not a new one.
    assert store.enrol("p0", "s", "", {1: list("abcdefgh")}, 99, HOUR) == (people[0], False)


def test_abandoned_assignments_go_to_the_next_participant(store: Store) -> None:
    first, _ = store.enrol("p1", "s", "", REPS, now=0, timeout=HOUR)
    store.enrol("p2", "s", "", REPS, now=1, timeout=HOUR)
    store.enrol("p3", "s", "", REPS, now=2, timeout=HOUR)
    store.touch("p2", now=HOUR)
    store.touch("p3", now=HOUR)
    # p1 has been idle for over an hour: its rep is free again.
    late, _ = store.enrol("p4", "s", "", REPS, now=HOUR + 10, timeout=HOUR)
    assert late.rep == first.rep
    assert (store.participant("p1") or first).status == "abandoned"
    store.touch("p1", now=HOUR + 20)
    assert (store.participant("p1") or first).status == "active"


def test_completed_reps_count_before_unfinished_ones(store: Store) -> None:
    store.enrol("p1", "s", "", {1: ["a"], 2: ["b"]}, 0, HOUR)
    store.add_reply("p1", 0, 0, "a", "prompt", "story", "F", 1, last_step=True)
    store.enrol("p2", "s", "", {1: ["a"], 2: ["b"]}, 2, HOUR)
    store.add_reply("p2", 0, 0, "b", "prompt", "story", "F", 3, last_step=False)
    # One each, but rep 1 is complete and rep 2 is not: rep 2 needs its completion.
    assert store.enrol("p3", "s", "", {1: ["a"], 2: ["b"]}, 4, HOUR)[0].rep == 2


def test_replies_persist_across_restarts_and_are_recorded_once(tmp_path: Path) -> None:
    Store(tmp_path).enrol("p1", "s", "x", REPS, 0, HOUR)
    store = Store(tmp_path)
    assert store.add_reply("p1", 0, 0, "a", "shown text", "digest", "C", 5, last_step=False)
    assert not store.add_reply("p1", 0, 0, "a", "shown text", "digest", "D", 6, last_step=False)
    [reply] = Store(tmp_path).replies("p1")
    assert (reply.reply, reply.prompt, reply.seconds) == ("C", "shown text", 5)


@pytest.mark.parametrize("bad", ["", "../etc", "a/b", "x" * 65, "p 1", "é"])
def test_participant_ids_are_validated(store: Store, bad: str) -> None:
    with pytest.raises(InputError, match="participant id"):
        store.enrol(bad, "s", "", REPS, 0, HOUR)


def test_a_study_keeps_the_parameters_it_was_created_with(tmp_path: Path) -> None:
    created = open_design(tmp_path, dict(SHORT))
    assert open_design(tmp_path, {}) == created
    assert open_design(tmp_path, {"reps": 2}) == created
    with pytest.raises(InputError, match="created with reps=2"):
        open_design(tmp_path, {"reps": 3})
    # The same setting written another way plays the same study.
    assert open_design(tmp_path, {"ids": "30, 12,17", "lineup": "C=honest_opponent"}) == created
    with pytest.raises(InputError, match="created with lineup='default';"):
        open_design(tmp_path, {"ids": SHORT["ids"], "lineup": "C=dishonest_opponent"})
    with pytest.raises(InputError, match="created with seed=0"):
        open_design(tmp_path, {"seed": 1})
    # From a scenario file the stories are the same for any seed; the option order is not.
    scenarios = tmp_path / "s.jsonl"
    assert (
        main(["generate", "--ids", "12", "--extras", "0A", "--reps", "1", "--out", str(scenarios)])
        == 0
    )
    open_design(tmp_path / "file", {"scenario_file": str(scenarios)})
    with pytest.raises(InputError, match="created with seed=0"):
        open_design(tmp_path / "file", {"scenario_file": str(scenarios), "seed": 1})
    with pytest.raises(InputError, match="response_format must be one of"):
        open_design(tmp_path / "other", {"response_format": "essay"})
    assert not (tmp_path / "other").exists()


def test_a_study_whose_scenario_file_was_edited_is_refused(tmp_path: Path) -> None:
    """Participants who played the old stories would be shown others under the same ids."""
    scenarios = tmp_path / "s.jsonl"
    generate = ["generate", "--ids", "12", "--extras", "0A", "--reps", "1", "--out", str(scenarios)]
    assert main(generate) == 0
    data = tmp_path / "study"
    open_design(data, {"scenario_file": str(scenarios)})
    assert main([*generate, "--seed", "9"]) == 0
    with pytest.raises(InputError, match="the study's stories changed since it was created"):
        open_design(data, {"scenario_file": str(scenarios)})
    with pytest.raises(InputError, match="the study's stories changed"):
        existing_design(data)  # as an export reads it
    # A study saved before the digest opens as before.
    (data / STORIES_FILE).unlink()
    assert open_design(data, {"scenario_file": str(scenarios)}).samples


def test_a_design_saved_with_null_for_a_parameter_left_out_still_opens(tmp_path: Path) -> None:
    """Designs saved before NOT_GIVEN hold null for the scenario file; null for any other
    parameter is no value and refused, as before."""
    created = open_design(tmp_path, dict(SHORT))
    saved = json.loads((tmp_path / "study.json").read_text(encoding="utf-8"))
    assert saved["scenario_file"] == NOT_GIVEN
    (tmp_path / "study.json").write_text(json.dumps(saved | {"scenario_file": None}))
    assert open_design(tmp_path, {}).samples.keys() == created.samples.keys()
    (tmp_path / "study.json").write_text(json.dumps(saved | {"reps": None}))
    with pytest.raises(InputError, match=r"study\.json: tom: reps must be"):
        open_design(tmp_path, {})


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Flask, StudyDesign, Store]:
    # A relative data folder, as `tom-eval serve --data-dir study` gives (Flask reads a
    # relative path to download against its package's folder).
    monkeypatch.chdir(tmp_path.parent)
    data = Path(tmp_path.name)
    design = open_design(data, dict(SHORT))
    app = create_app(data, design, StudySettings(admin_token="secret", completion_code="XYZ"))
    return app, design, Store(data)


def start(app: Flask, participant: str, session_id: str = "") -> FlaskClient:
    client = app.test_client()
    page = client.get(f"/?PROLIFIC_PID={participant}&STUDY_ID=s1&SESSION_ID={session_id}")
    assert page.status_code == 200
    reply = client.post(
        "/start", data={"participant": participant, "study_id": "s1", "session_id": session_id}
    )
    assert reply.status_code == 302
    return client


def play_out(
    client: FlaskClient, design: StudyDesign, store: Store, participant: str, policy: str
) -> list[str]:
    """Plays every step with a reference player reading the text the step shows."""
    typed: list[str] = []
    conversation: list[tuple[str, str]] = []
    while (person := store.participant(participant)) and (
        step := next_step(design, person, store.replies(participant))
    ):
        page = client.get("/play").get_data(as_text=True)
        assert f"Scenario {step.position + 1} of 3" in page
        conversation = [] if step.step == 0 else conversation
        conversation.append(("user", step.prompt))
        reply = respond(policy, conversation, 0)
        conversation.append(("assistant", reply))
        form = {"position": str(step.position), "step": str(step.step), "reply": reply}
        assert client.post("/play", data=form).status_code == 302
        typed.append(reply)
    return typed


def metadata(log: EvalLog) -> dict[str, Any]:
    return log.eval.metadata or {}


def test_a_participant_plays_through_and_the_log_scores_what_was_shown(
    study: tuple[Flask, StudyDesign, Store], tmp_path: Path
) -> None:
    app, design, store = study
    oracle = start(app, "p1", "x1")
    assert "RULES" in oracle.get("/instructions").get_data(as_text=True)
    oracle_typed = play_out(oracle, design, store, "p1", "oracle")
    assert len(oracle_typed) == 4  # three actions and one answer (Id 12: A answers)
    done = oracle.get("/done").get_data(as_text=True)
    assert "XYZ" in done
    passer = start(app, "p2", "x2")
    passer_typed = play_out(passer, design, store, "p2", "always-pass")

    written = export(tmp_path, tmp_path / "logs")
    logs = {metadata(log)["participant"]: log for log in map(read_eval_log, map(str, written))}
    assert set(logs) == {"p1", "p2"}
    assert metadata(logs["p1"])["rep"] != metadata(logs["p2"])["rep"]
    for participant, typed in (("p1", oracle_typed), ("p2", passer_typed)):
        log = logs[participant]
        assert log.status == "success" and log.eval.model == "tom/human"
        assert metadata(log)["human"] is True
        samples = log.samples or []
        assert len(samples) == 3
        replies = [m.text for s in samples for m in s.messages if m.role == "assistant"]
        assert sorted(replies) == sorted(typed)
        # Each reply keeps the seconds the person took, as the database recorded them.
        recorded = sorted(round(reply.seconds, 3) for reply in store.replies(participant))
        kept = [
            event.output.metadata["seconds"]
            for sample in samples
            for event in sample.events
            if isinstance(event, ModelEvent) and event.output.metadata
        ]
        assert sorted(kept) == recorded and len(kept) == len(typed)
    for sample in logs["p1"].samples or []:
        value = (sample.scores or {})["tom_scorer"].value
        assert isinstance(value, dict) and value["optimal"] == 1
    assert {played_turn(sample)["executed"] for sample in logs["p2"].samples or []} == {"Pass"}
    # Each person is a row of the report, not a baseline.
    assert (
        main(["report", str(tmp_path / "logs"), "--out", str(tmp_path / "report"), "--quiet"]) == 0
    )
    report = (tmp_path / "report" / "report.md").read_text()
    assert "human:p1" in report and "human:p2" in report and "baseline" not in report


def test_a_reload_shows_the_same_step_and_a_resubmission_records_nothing(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    app, design, store = study
    client = start(app, "p1")
    first = client.get("/play").get_data(as_text=True)
    assert client.get("/play").get_data(as_text=True) == first
    form = {"position": "0", "step": "0", "reply": "F"}
    client.post("/play", data=form)
    client.post("/play", data=form)
    assert len(store.replies("p1")) == 1
    person = store.participant("p1")
    step = next_step(design, person, store.replies("p1")) if person else None
    assert step is not None
    empty = {"position": str(step.position), "step": str(step.step)}
    assert "Please give an answer" in client.post("/play", data=empty).get_data(as_text=True)
    forged = empty | {"reply": "Pass\x00\x1b[2J"}
    assert "Please answer in plain text" in client.post("/play", data=forged).get_data(as_text=True)
    assert len(store.replies("p1")) == 1  # an empty or forged reply is asked again, not recorded


def test_nobody_can_answer_for_someone_else(study: tuple[Flask, StudyDesign, Store]) -> None:
    app, _, store = study
    start(app, "p1", "x1")
    stranger = app.test_client()
    refused = stranger.post("/play", data={"position": "0", "step": "0", "reply": "A"})
    assert refused.status_code == 403
    # The same id from another browser needs the participant's own session id.
    taken = stranger.post("/start", data={"participant": "p1", "study_id": "s1"})
    assert taken.status_code == 403
    assert stranger.post("/play", data={"position": "0", "step": "0"}).status_code == 403
    assert store.replies("p1") == []
    # With the same study link (a participant back on another device) it resumes.
    back = start(app, "p1", "x1")
    assert back.get("/play").status_code == 200


def test_generated_ids_and_malformed_links(study: tuple[Flask, StudyDesign, Store]) -> None:
    app, _, _ = study
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    [generated] = re.findall(r'name="participant" value="(anon-[0-9a-f]+)"', page)
    client.post("/start", data={"participant": generated})
    # Back without an id in the link: the same browser resumes the same participant.
    assert f'value="{generated}"' in client.get("/").get_data(as_text=True)
    assert f'value="{generated}"' not in app.test_client().get("/").get_data(as_text=True)
    assert client.get("/?PROLIFIC_PID=../../study.sqlite").status_code == 400
    assert client.post("/start", data={"participant": "a/b"}).status_code == 400


@pytest.mark.parametrize(
    "path",
    ["/study.sqlite", "/static/../study.sqlite", "/secret_key", "/admin_token", "/study.json"],
)
def test_the_data_directory_is_never_served(
    study: tuple[Flask, StudyDesign, Store], path: str
) -> None:
    app, _, _ = study
    assert app.test_client().get(path).status_code == 404


def test_admin_endpoints_need_the_token(study: tuple[Flask, StudyDesign, Store]) -> None:
    app, _, _ = study
    client = app.test_client()
    assert client.get("/admin/status").status_code == 403
    assert client.get("/admin/status?token=wrong").status_code == 403
    assert client.get("/admin/export", headers={"Authorization": "Bearer no"}).status_code == 403
    start(app, "p1")
    status = client.get("/admin/status", headers={"Authorization": "Bearer secret"}).json
    assert status == {
        "participants": 1,
        "reps": {
            "1": {"active": 1, "complete": 0, "abandoned": 0},
            "2": {"active": 0, "complete": 0, "abandoned": 0},
        },
        "export": {
            "running": False,
            "done": 0,
            "total": 0,
            "finished": None,
            "problem": None,
            "download": False,
        },
    }
    for path in ("/admin/export", "/admin/export.zip"):
        assert client.get(path).status_code == 403
    assert client.post("/admin/export").status_code == 403
    # The token is a bearer token: the header's scheme is part of it.
    assert client.get("/admin/status", headers={"Authorization": "secret"}).status_code == 403


def test_the_status_counts_a_participant_idle_past_the_timeout_as_abandoned(
    study: tuple[Flask, StudyDesign, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the next enrolment will record them, not as active until someone else starts."""
    import time

    app, _, _ = study
    start(app, "p1")
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 121 * 60)  # the default timeout: 120
    status = app.test_client().get("/admin/status?token=secret").json or {}
    assert status["reps"]["1"] == {"active": 0, "complete": 0, "abandoned": 1}


def test_the_export_endpoint_runs_in_the_background_and_serves_the_last_export(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    """No request replays anyone: a POST starts one export process for everybody, the
    status page shows its progress, and the last export is downloaded as a zip."""
    import io
    import zipfile

    app, design, store = study
    play_out(start(app, "p1"), design, store, "p1", "oracle")
    admin = app.test_client()
    assert "No export yet" in admin.get("/admin/export?token=secret").get_data(as_text=True)
    assert admin.get("/admin/export.zip?token=secret").status_code == 404
    started = admin.post("/admin/export?token=secret")
    assert started.status_code == 303 and started.location.endswith("/admin/export?token=secret")
    assert admin.post("/admin/export?token=secret").status_code == 409  # one at a time
    deadline = time.monotonic() + 120

    def export_status() -> dict[str, Any]:
        status: dict[str, Any] = (admin.get("/admin/status?token=secret").json or {})["export"]
        return status

    while (status := export_status())["running"]:
        assert time.monotonic() < deadline, "the export did not finish"
        time.sleep(0.2)
    assert status == {
        "running": False,
        "done": 1,
        "total": 1,
        "finished": status["finished"],
        "problem": None,
        "download": True,
    }
    page = admin.get("/admin/export?token=secret").get_data(as_text=True)
    assert "Last export (1 participants)" in page and "download the logs" in page
    response = admin.get("/admin/export.zip", headers={"Authorization": "Bearer secret"})
    assert response.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(response.data)).namelist()
    assert len(names) == 1 and names[0].endswith(".eval")


def test_export_needs_a_study_and_a_new_folder(
    study: tuple[Flask, StudyDesign, Store], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 2
    assert "nothing: no such folder" in capsys.readouterr().err
    (tmp_path / "nothing").mkdir()
    assert main(["export", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 2
    assert "no study here" in capsys.readouterr().err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "full")]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "full" / "x")]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    # Nobody finished: no logs, unless the unfinished are asked for (their finished
    # scenarios only).
    app, design, store = study
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "empty")]) == 0
    assert "nobody has finished a scenario yet" in capsys.readouterr().err
    client = start(app, "p1")
    for step in range(design.steps((store.participant("p1") or pytest.fail()).order[0])):
        client.post("/play", data={"position": "0", "step": str(step), "reply": "F"})
    capsys.readouterr()
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "none")]) == 0
    assert list((tmp_path / "none").iterdir()) == []
    assert "--include-incomplete would export the finished scenarios of 1 participant(s)" in (
        capsys.readouterr().err
    )
    some = tmp_path / "some"
    assert main(["export", str(tmp_path), "--out", str(some), "--include-incomplete"]) == 0
    [log] = [read_eval_log(str(path)) for path in some.iterdir()]
    assert metadata(log)["status"] == "active"
    assert len(log.samples or []) == 1


def test_an_empty_admin_token_never_opens_the_admin_pages(tmp_path: Path) -> None:
    design = open_design(tmp_path, dict(SHORT))
    with pytest.raises(InputError, match="non-empty admin token"):
        create_app(tmp_path, design, StudySettings(admin_token=""))
    (tmp_path / "admin_token").write_text("")
    from tom_eval.study.app import read_secret

    with pytest.raises(InputError, match="is empty"):
        read_secret(tmp_path / "admin_token", b"fresh")
    app = create_app(tmp_path, design, StudySettings(admin_token="secret"))
    assert app.test_client().get("/admin/status?token=").status_code == 403


def test_secrets_are_made_once_and_kept(tmp_path: Path) -> None:
    from tom_eval.study.app import read_secret

    first = read_secret(tmp_path / "key", b"one")
    assert read_secret(tmp_path / "key", b"two") == first == b"one"
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600
    assert [path.name for path in tmp_path.iterdir()] == ["key"]
    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match="folder: is a folder, not a secret file"):
        read_secret(tmp_path / "folder", b"one")
    (tmp_path / "database").mkdir()
    (tmp_path / "database" / "study.sqlite").mkdir()
    with pytest.raises(InputError, match=r"study\.sqlite: cannot open the study database"):
        Store(tmp_path / "database")


def test_browsers_starting_one_new_id_at_once_cannot_both_own_it(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    app, _, _ = study

    def start_as(session_id: str) -> int:
        client = app.test_client()
        form = {"participant": "same", "study_id": "s1", "session_id": session_id}
        client.post("/start", data=form)
        return client.get("/play").status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = list(pool.map(start_as, [f"x{n}" for n in range(8)]))
    assert sorted(codes) == [200] + [403] * 7


PROXIED = {
    # nginx's default proxy_pass: the Host the app sees is the upstream's, not the
    # participant's; the browser's own headers pass through unchanged.
    "Host": "127.0.0.1:8000",
    "X-Real-IP": "203.0.113.7",
    "Connection": "close",
    "Origin": "https://study.example.org",
    "Referer": "https://study.example.org/?PROLIFIC_PID=p1",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "navigate",
    "Sec-Fetch-Dest": "document",
}


def test_a_participant_behind_a_reverse_proxy_starts_and_submits(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    app, design, store = study
    client = app.test_client()
    form = {"participant": "p1", "study_id": "s1", "session_id": ""}
    assert client.post("/start", data=form, headers=PROXIED).status_code == 302
    step = next_step(design, store.participant("p1") or pytest.fail(), [])
    assert step is not None
    reply = {"position": "0", "step": "0", "reply": "A"}
    assert client.post("/play", data=reply, headers=PROXIED).status_code == 302
    assert len(store.replies("p1")) == 1
    # Another site's form through the same proxy is still refused.
    evil = PROXIED | {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    sibling = PROXIED | {"Origin": "https://evil.example.org", "Sec-Fetch-Site": "same-site"}
    for headers in (evil, sibling, PROXIED | {"Origin": "null", "Sec-Fetch-Site": "cross-site"}):
        assert client.post("/start", data=form, headers=headers).status_code == 403


def test_without_sec_fetch_site_the_public_url_is_the_studys_own(tmp_path: Path) -> None:
    """An older browser sends Origin only: behind a proxy it is the public address."""
    old_browser = {key: value for key, value in PROXIED.items() if not key.startswith("Sec-")}
    form = {"participant": "p1", "study_id": "s1", "session_id": ""}
    design = open_design(tmp_path, dict(SHORT))
    plain = create_app(tmp_path, design, StudySettings(admin_token="secret"))
    assert plain.test_client().post("/start", data=form, headers=old_browser).status_code == 403
    settings = StudySettings(admin_token="secret", public_urls=("https://study.example.org/",))
    public = create_app(tmp_path, design, settings)
    assert public.test_client().post("/start", data=form, headers=old_browser).status_code == 302
    assert public.config["SESSION_COOKIE_SECURE"] is True
    evil = old_browser | {"Origin": "https://evil.example"}
    assert public.test_client().post("/start", data=form, headers=evil).status_code == 403


def test_no_page_can_be_framed_by_another_site(study: tuple[Flask, StudyDesign, Store]) -> None:
    app, _, _ = study
    client = app.test_client()
    for response in (client.get("/?PROLIFIC_PID=p1"), client.get("/play"), client.get("/x")):
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Content-Security-Policy"] == "frame-ancestors 'none'"


def test_the_database_and_every_secret_are_owner_only_in_an_open_folder(tmp_path: Path) -> None:
    from tom_eval.study.app import read_secret

    data = tmp_path / "study"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    (data / "admin_token").write_text("token")
    (data / "admin_token").chmod(0o644)
    app = create_app(data, open_design(data, dict(SHORT)), StudySettings(admin_token="secret"))
    read_secret(data / "admin_token", b"fresh")
    start(app, "p1").post("/play", data={"position": "0", "step": "0", "reply": "A"})
    secret = ["study.sqlite", "study.sqlite-wal", "study.sqlite-shm", "secret_key", "admin_token"]
    # While the database is open, SQLite's journal files exist, with the database's mode.
    with closing(sqlite3.connect(data / "study.sqlite")) as open_database:
        open_database.execute("SELECT COUNT(*) FROM replies").fetchone()
        modes = {name: (data / name).stat().st_mode & 0o777 for name in secret}
    assert modes == dict.fromkeys(secret, 0o600)


def test_forms_posted_from_another_site_are_refused(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    app, _, store = study
    client = app.test_client()
    form = {"participant": "p1", "study_id": "s1"}
    evil = {"Origin": "https://evil.example"}
    assert client.post("/start", data=form, headers=evil).status_code == 403
    fetch = {"Sec-Fetch-Site": "cross-site"}
    assert client.post("/start", data=form, headers=fetch).status_code == 403
    assert store.participant("p1") is None
    # An Origin that is no address at all is not the study's (it was a 500 and a traceback).
    for broken in ("http://[x", "http://[::1"):
        response = client.post("/start", data=form, headers={"Origin": broken})
        assert response.status_code == 403
        assert "can only be sent from its own pages" in response.get_data(as_text=True)
    own = {"Origin": "http://localhost"}
    assert client.post("/start", data=form, headers=own).status_code == 302


def test_a_request_by_a_method_a_page_does_not_take_gets_the_studys_page(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    app, _, _ = study
    response = app.test_client().put("/play")
    assert response.status_code == 405
    assert "The method is not allowed" in response.get_data(as_text=True)
    assert "X-Frame-Options" in response.headers


def test_a_blank_admin_token_in_the_environment_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was taken as the token, so `?token=%20%20%20` opened the admin pages."""
    monkeypatch.setenv("TOM_EVAL_ADMIN_TOKEN", "   ")
    assert main(["serve", "--data-dir", str(tmp_path / "s"), "--port", "0"]) == 2
    assert capsys.readouterr().err.strip() == (
        "tom-eval: error: serve: $TOM_EVAL_ADMIN_TOKEN is blank: unset it for a generated token"
    )
    assert not (tmp_path / "s").exists()


def test_the_addresses_served_are_written_as_a_browser_takes_them() -> None:
    """IPv6 hosts in brackets, and every interface's port for `--host '*'`."""
    one = SimpleNamespace(effective_host="::1", effective_port=8000)
    every = SimpleNamespace(effective_listen=[("0.0.0.0", 41489), ("::", 35475)])
    assert served_addresses(one) == ["http://[::1]:8000/"]
    assert served_addresses(every) == ["http://0.0.0.0:41489/", "http://[::]:35475/"]


def test_the_answer_page_shows_the_chosen_option_in_full(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    app, design, store = study
    client = start(app, "p1")
    while (person := store.participant("p1")) and (
        step := next_step(design, person, store.replies("p1"))
    ):
        if step.step == 1:
            page = client.get("/play").get_data(as_text=True)
            chosen = re.search(r'id="chosen">([^<]+)<', page)
            assert chosen is not None and re.fullmatch(r"[A-Z]\) \S.*", chosen.group(1))
            return
        conversation = [("user", step.prompt)]
        reply = respond("oracle", conversation, 0)
        client.post("/play", data={"position": str(step.position), "step": "0", "reply": reply})
    pytest.fail("no scenario in the study has an answer step")


def test_a_replay_that_fails_keeps_the_others_and_names_the_failed(
    study: tuple[Flask, StudyDesign, Store], tmp_path: Path
) -> None:
    app, design, store = study
    play_out(start(app, "p1"), design, store, "p1", "oracle")
    play_out(start(app, "p2"), design, store, "p2", "oracle")
    with sqlite3.connect(tmp_path / "study.sqlite") as db:
        # The scenario behind p2's first reply changed where no prompt shows it.
        db.execute("UPDATE replies SET story = 'other' WHERE participant = 'p2' AND position = 0")
        db.execute(
            "UPDATE replies SET prompt = 'tampered' WHERE participant = 'p2' AND position = 1"
        )
    out = tmp_path / "logs"
    # As a user runs it (in-process, pytest would catch Inspect's logging): the error in
    # one line, without Inspect's traceback of the failed sample (it is in the log).
    command = [sys.executable, "-m", "tom_eval.cli", "export", str(tmp_path), "--out", str(out)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and "Traceback" not in run.stdout + run.stderr
    assert "hooks enabled" not in run.stdout
    [line] = run.stderr.splitlines()
    assert re.fullmatch(
        re.escape(f"tom-eval: error: {out}: the replay failed for p2 (tom/human: sample ")
        + r"\S+ step \d differs from what the participant was shown \(were the study's task "
        + re.escape(
            f"parameters or scenario file changed?)) (their logs are in {out / 'failed'}); "
            "the other participants' logs are written"
        ),
        line,
    ), line
    [good] = [read_eval_log(str(path)) for path in out.glob("*.eval")]
    assert metadata(good)["participant"] == "p1"
    [bad] = [read_eval_log(str(path)) for path in (out / "failed").glob("*.eval")]
    assert bad.status == "error" and metadata(bad)["participant"] == "p2"


def test_an_export_onto_a_full_disk_writes_nothing_and_says_so(
    study: tuple[Flask, StudyDesign, Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, design, store = study
    play_out(start(app, "p1"), design, store, "p1", "oracle")
    play_out(start(app, "p2"), design, store, "p2", "oracle")
    written: list[str] = []
    write = ZipLogFile._zip_writestr

    def full(log: ZipLogFile, filename: str, data: object) -> None:
        # The disk fills as the second participant's log is written.
        written.append(log._file)
        if len(set(written)) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        write(log, filename, data)

    monkeypatch.setattr(ZipLogFile, "_zip_writestr", full)
    out = tmp_path / "exported"
    # Not "the replay failed for p2", with p2's cut log in out/failed: the disk is at fault.
    with pytest.raises(InputError) as refused:
        export(tmp_path, out)
    assert str(refused.value) == (
        f"{out}: cannot write the participants' logs (No space left on device); nothing is exported"
    )
    assert not out.exists() and not list(tmp_path.glob(".exported*"))


def test_a_second_export_does_not_count_anyone_twice(
    study: tuple[Flask, StudyDesign, Store], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app, design, store = study
    play_out(start(app, "p1"), design, store, "p1", "oracle")
    export(tmp_path, tmp_path / "first")
    export(tmp_path, tmp_path / "second")
    report = tmp_path / "report"
    assert (
        main(["report", str(tmp_path / "first"), str(tmp_path / "second"), "--out", str(report)])
        == 0
    )
    assert "an older log of participant p1; skipped" in capsys.readouterr().err
    assert (
        "| human:p1 [default] (choice, ids=12,17,30, extras=0A, reps=2) | 3 |"
        in (report / "report.md").read_text()
    )


def test_a_reply_too_large_for_the_server_gets_the_studys_page_and_is_not_stored(
    study: tuple[Flask, StudyDesign, Store],
) -> None:
    from tom_eval.study.app import MAX_REQUEST, TOO_LARGE

    app, _, store = study
    client = start(app, "p1")
    form = {"position": "0", "step": "0", "reply": "x" * MAX_REQUEST}
    response = client.post("/play", data=form)
    assert response.status_code == 413
    assert TOO_LARGE.split(":")[0] in response.get_data(as_text=True)
    assert store.replies("p1") == []


def test_a_study_in_a_folder_that_cannot_be_written_is_named_as_such(
    study: tuple[Flask, StudyDesign, Store],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SQLite reads a WAL database through side files it must create beside it: in a folder
    the user cannot write to (a read-only mount), it cannot open it. Root can always write,
    so SQLite's refusal is played here by a connection that gives SQLite's error."""
    import os
    import sqlite3

    class Unopenable:
        row_factory: object = None

        def execute(self, *_: object) -> None:
            raise sqlite3.OperationalError("unable to open database file")

        def close(self) -> None:
            pass

    app, _, _ = study
    start(app, "p1")
    monkeypatch.setattr(sqlite3, "connect", lambda *_, **__: Unopenable())
    monkeypatch.setattr(os, "access", lambda path, mode: mode != os.W_OK)
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "cannot be read in a folder this user cannot write to" in err
    assert "export a copy of the data directory" in err
