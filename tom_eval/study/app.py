"""The web study (`tom-eval serve`): a Flask app that runs people through the trials of
tasks/tom.py, one scenario per page, and keeps every reply in the data directory.

Routes: `/` (landing: participant id from PROLIFIC_PID, STUDY_ID, SESSION_ID, or a
generated one), `/start`, `/instructions`, `/play` (GET shows the current step, POST
records a reply), `/done` (completion code), and `/admin/status`, `/admin/export` (token).

What a page shows is the text of `trial.Trial`, the same object the task's solver drives,
for the sample and step the database says is next; the reply is stored with that text, and
`tom-eval export` replays it through the task, which refuses any text that differs.

Safety: participant ids are validated; no request names a file; the data directory is
never served (static files come from the package); a signed, HTTP-only, SameSite cookie
binds a browser to one participant, and a reply is accepted only for that participant's
own current step.
"""

from __future__ import annotations

import hmac
import io
import os
import secrets
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response as BaseResponse

from tom_eval.human import RULES_END, STUDY_SENTENCE
from tom_eval.prompts import rules_text, scenario_text
from tom_eval.study.design import StudyDesign
from tom_eval.study.store import Participant, Reply, Store, valid_participant_id
from tom_eval.trial import Trial

SECRET_FILE = "secret_key"


@dataclass(frozen=True)
class StudySettings:
    """What may change between restarts of one study (its design may not)."""

    admin_token: str
    completion_code: str = "COMPLETED"
    completion_url: str | None = None
    """e.g. https://app.prolific.com/submissions/complete?cc={code}"""
    timeout_minutes: float = 120.0


@dataclass(frozen=True)
class Step:
    """The participant's next step: a sample, and its action (0) or answer (1)."""

    position: int
    sample_id: str
    step: int
    trial: Trial

    @property
    def prompt(self) -> str:
        return self.trial.action_prompt if self.step == 0 else self.trial.answer_prompt


def next_step(design: StudyDesign, participant: Participant, replies: list[Reply]) -> Step | None:
    """Where the participant stands, from the replies alone; None when all are done."""
    by_position: dict[int, list[Reply]] = {}
    for reply in replies:
        by_position.setdefault(reply.position, []).append(reply)
    for position, sample_id in enumerate(participant.order):
        done = by_position.get(position, [])
        if len(done) >= design.steps(sample_id):
            continue
        trial = design.trial(sample_id)
        if done:
            trial = trial.act(done[0].reply)
        return Step(position, sample_id, len(done), trial)
    return None


def _check_ids(participant: str, study_id: str, session_id: str) -> None:
    """The participant id is required; the study and session ids may be empty."""
    ids = (participant, study_id or "-", session_id or "-")
    if not all(valid_participant_id(value) for value in ids):
        abort(400, "The study link is malformed: ids are letters, digits, - or _.")


def secret_key(data_dir: Path) -> bytes:
    """The cookie-signing key, kept so that cookies survive a restart."""
    path = data_dir / SECRET_FILE
    write_once(path, secrets.token_bytes(32))
    return path.read_bytes()


def write_once(path: Path, secret: bytes) -> None:
    """Create a secret file readable by its owner only; if it exists (or another server
    just created it), keep it: every server on a data directory must share its secrets."""
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    with os.fdopen(handle, "wb") as file:
        file.write(secret)


def create_app(data_dir: Path, design: StudyDesign, settings: StudySettings) -> Flask:
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key(data_dir),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    store = Store(data_dir)
    total = {rep: len(ids) for rep, ids in design.reps.items()}

    def current() -> Participant:
        """The participant this browser belongs to, or 403."""
        known = store.participant(str(session.get("participant", "")))
        if known is None or not hmac.compare_digest(known.browser, str(session.get("browser"))):
            abort(403, "This browser has no study session. Please start from your study link.")
        return known

    def admin(view: Callable[[], Any]) -> Callable[[], Any]:
        def guarded() -> Any:
            given = request.headers.get("Authorization", "").removeprefix("Bearer ")
            given = given or request.args.get("token", "")
            if not hmac.compare_digest(given.encode(), settings.admin_token.encode()):
                abort(403, "A valid admin token is required.")
            return view()

        guarded.__name__ = view.__name__
        return guarded

    @app.get("/")
    def landing() -> str:
        participant = request.args.get("PROLIFIC_PID", "")
        study_id = request.args.get("STUDY_ID", "")
        session_id = request.args.get("SESSION_ID", "")
        if not participant:
            # Without an id in the link: this browser's participant if it has one (so a
            # generated id can resume), else a new generated id.
            mine = store.participant(str(session.get("participant", "")))
            if mine is not None and hmac.compare_digest(mine.browser, str(session.get("browser"))):
                participant, study_id, session_id = mine.participant, mine.study_id, mine.session_id
            else:
                participant = f"anon-{secrets.token_hex(6)}"
        _check_ids(participant, study_id, session_id)
        return render_template(
            "landing.html", participant=participant, study_id=study_id, session_id=session_id
        )

    @app.post("/start")
    def start() -> BaseResponse:
        participant = request.form.get("participant", "")
        study_id = request.form.get("study_id", "")
        session_id = request.form.get("session_id", "")
        _check_ids(participant, study_id, session_id)
        known = store.participant(participant)
        if known is not None and not _may_resume(known, study_id, session_id):
            abort(403, "This participant id is already in use in another browser.")
        now = time.time()
        known = known or store.enrol(
            participant, study_id, session_id, design.reps, now, settings.timeout_minutes * 60
        )
        store.touch(participant, now)
        session.clear()
        session.update(participant=participant, browser=known.browser)
        session.permanent = True
        started = bool(store.replies(participant))
        return redirect(url_for("play" if started else "instructions"))

    def _may_resume(known: Participant, study_id: str, session_id: str) -> bool:
        """The same browser, or the same study link (Prolific's SESSION_ID is private to
        the participant's session); a generated id resumes only in its own browser."""
        if known.browser == session.get("browser"):
            return True
        return bool(known.session_id) and (known.study_id, known.session_id) == (
            study_id,
            session_id,
        )

    @app.get("/instructions")
    def instructions() -> str:
        participant = current()
        return render_template(
            "instructions.html",
            rules=rules_text(design.lineup, design.rules),
            study_sentence=STUDY_SENTENCE,
            count=total[participant.rep],
        )

    @app.get("/play")
    def play() -> BaseResponse | str:
        return _page(current(), problem=None)

    @app.post("/play")
    def reply() -> BaseResponse | str:
        participant = current()
        step = next_step(design, participant, store.replies(participant.participant))
        posted = (request.form.get("position", ""), request.form.get("step", ""))
        if step is None or posted != (str(step.position), str(step.step)):
            # A stale page (a second tab, the back button, a double click): show where
            # the participant really is; nothing is written.
            return redirect(url_for("play"))
        text = request.form.get("reply", "").strip()
        if not text:
            return _page(participant, problem="Please give an answer before continuing.")
        last = step.position == len(participant.order) - 1 and step.step + 1 == design.steps(
            step.sample_id
        )
        store.add_reply(
            participant.participant,
            step.position,
            step.step,
            step.sample_id,
            step.prompt,
            text,
            time.time(),
            last_step=last,
        )
        return redirect(url_for("play"))

    def _page(participant: Participant, problem: str | None) -> BaseResponse | str:
        step = next_step(design, participant, store.replies(participant.participant))
        if step is None:
            return redirect(url_for("done"))
        store.touch(participant.participant, time.time())
        rules, _, rest = step.trial.action_prompt.partition(RULES_END)
        story = scenario_text(step.trial.solution.observation)
        options: list[tuple[str, str]] = []
        request_text = rest.removeprefix(story.removeprefix("STORY\n")).strip()
        if step.step == 0 and step.trial.response_format == "choice":
            block, _, request_text = request_text.partition("\n\n")
            options = [
                (line.split(")", 1)[0], line) for line in block.splitlines()[1:] if ")" in line
            ]
        return render_template(
            "play.html",
            number=step.position + 1,
            count=len(participant.order),
            rules=rules,
            story=story,
            step=step,
            chosen=None if step.step == 0 else step.trial.raw_action,
            options=options,
            request_text=request_text if step.step == 0 else step.prompt,
            problem=problem,
        )

    @app.get("/done")
    def done() -> str:
        participant = current()
        if participant.status != "complete":
            abort(409, "The study is not finished yet: please go back to it.")
        url = (
            settings.completion_url.format(code=settings.completion_code)
            if settings.completion_url
            else None
        )
        return render_template("done.html", code=settings.completion_code, url=url)

    @app.get("/admin/status")
    @admin
    def status() -> dict[str, Any]:
        people = store.participants()
        return {
            "reps": {
                str(rep): {
                    state: sum(1 for p in people if p.rep == rep and p.status == state)
                    for state in ("active", "complete", "abandoned")
                }
                for rep in design.reps
            },
            "participants": len(people),
        }

    @app.get("/admin/export")
    @admin
    def export() -> Response:
        """Every completed participant's Inspect log, in a zip. The eval runs in its own
        process: Inspect's event loop does not belong in a server thread."""
        with tempfile.TemporaryDirectory() as folder:
            run = subprocess.run(
                [sys.executable, "-m", "tom_eval.cli", "export", str(data_dir), "--out", folder],
                capture_output=True,
                text=True,
                check=False,
            )
            if run.returncode != 0:
                abort(500, f"export failed: {run.stderr.strip()[-500:]}")
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                for path in sorted(Path(folder).iterdir()):
                    archive.write(path, path.name)
        return Response(
            buffer.getvalue(),
            mimetype="application/zip",
            headers={"Content-Disposition": "attachment; filename=tom-eval-study-logs.zip"},
        )

    @app.errorhandler(400)
    @app.errorhandler(403)
    @app.errorhandler(404)
    @app.errorhandler(409)
    @app.errorhandler(500)
    def problem_page(error: Any) -> tuple[str, int]:
        return render_template("message.html", message=error.description), error.code

    return app
