"""The web study (`tom-eval serve`): a Flask app that runs people through the trials of
tasks/tom.py, one scenario per page, and keeps every reply in the data directory.

Routes: `/` (landing: participant id from PROLIFIC_PID, STUDY_ID, SESSION_ID, or a
generated one), `/start`, `/instructions`, `/play` (GET shows the current step, POST
records a reply), `/done` (completion code), and, with the admin token, `/admin/status`,
`/admin/export` (the export's progress and the last export; POST starts one in the
background) and `/admin/export.zip` (the last export). The participant's pages and the
admin's are two Blueprints; what they share (the store, the design, the settings, the export
job) is the app's `Study`, kept in `app.extensions`.

What a page shows is the text of `trial.Trial`, the same object the task's solver drives,
for the sample and step the database says is next; the reply is stored with that text, and
`tom-eval export` replays it through the task, which refuses any text that differs.

Safety: participant ids are validated; no request names a file; the data directory is
never served (static files come from the package); a signed, HTTP-only, SameSite cookie
binds a browser to one participant, and a reply is accepted only for that participant's
own current step; forms are accepted from the study's own pages only (`from_own_pages`),
also behind a reverse proxy; no page can be framed by another site.
"""

from __future__ import annotations

import functools
import hmac
import os
import re
import secrets
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

from flask import (
    Blueprint,
    Flask,
    Request,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    send_file,
    session,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from tom_eval.errors import InputError
from tom_eval.game.parsing import option_letter
from tom_eval.game.prompts import rules_text, scenario_text
from tom_eval.game.trial import Trial
from tom_eval.providers.human import RULES_END, STUDY_SENTENCE, story_digest
from tom_eval.study.background import ExportJob
from tom_eval.study.design import StudyDesign
from tom_eval.study.store import Participant, Reply, Store, valid_participant_id

SECRET_FILE = "secret_key"
STUDY_EXTENSION = "tom_eval.study"
"""The key of the app's `Study` in `app.extensions`."""
PROBLEM_CODES = (400, 403, 404, 405, 409, 413, 500)
"""The errors shown as the study's own message page."""
SECURITY_HEADERS = {
    # No other site may frame a page (clickjacking a participant's answers).
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    # Study links carry participant ids: other sites are not told them.
    "Referrer-Policy": "same-origin",
}


@dataclass(frozen=True)
class StudySettings:
    """What may change between restarts of one study (its design may not)."""

    admin_token: str
    completion_code: str = "COMPLETED"
    completion_url: str | None = None
    """e.g. https://app.prolific.com/submissions/complete?cc={code}"""
    timeout_minutes: float = 120.0
    public_urls: tuple[str, ...] = ()
    """The addresses participants reach the study at, behind a reverse proxy (e.g.
    https://study.example.org/): forms from their pages are the study's own."""


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


def _chosen(trial: Trial) -> str:
    """The participant's move as they chose it: the option's whole line, or what they typed."""
    raw = trial.raw_action or ""
    letters = [option_letter(index) for index in range(len(trial.options))]
    if raw in letters:
        return f"{raw}) {trial.options[letters.index(raw)]}"
    return raw


def _check_ids(participant: str, study_id: str, session_id: str) -> None:
    """The participant id is required; the study and session ids may be empty."""
    ids = (participant, study_id or "-", session_id or "-")
    if not all(valid_participant_id(value) for value in ids):
        abort(400, "The study link is malformed: ids are letters, digits, - or _.")


def secret_key(data_dir: Path) -> bytes:
    """The cookie-signing key, kept so that cookies survive a restart."""
    return read_secret(data_dir / SECRET_FILE, secrets.token_bytes(32))


def read_secret(path: Path, fresh: bytes) -> bytes:
    """A secret file, created with `fresh` if absent, readable by its owner only (one found
    readable by others is made owner-only). It is written aside and linked into place, so
    a second server starting at the same moment reads a whole secret, never a half-written
    one; an empty file is refused."""
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a secret file")
    if path.exists():
        os.chmod(path, 0o600)
    else:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(handle, "wb") as file:
            file.write(fresh)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another server made it first: every server shares that one
        finally:
            os.unlink(temporary)
    try:
        secret = path.read_bytes().strip()
    except OSError as error:
        raise InputError(
            f"{path}: cannot read ({error.strerror}); delete it to have a new secret made"
        ) from None
    if not secret:
        raise InputError(f"{path}: is empty; delete it to have a new secret made")
    return secret


def origin_of(url: str) -> str:
    """scheme://host[:port] of an address, as a browser's Origin header writes it."""
    parts = urlparse(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def from_own_pages(posted: Request, public_urls: Sequence[str]) -> bool:
    """Whether a form was posted from the study's own pages (a login CSRF check).

    A browser says where a request comes from in Sec-Fetch-Site: same-origin is ours, a
    reverse proxy's rewritten Host (nginx's default) notwithstanding. Without that header
    (older browsers), the Origin must be the address the server sees or a public URL.
    Another site's form, or an opaque "null" origin, is refused; a request with neither
    header (not a browser's form) is left to the SameSite cookie."""
    site = posted.headers.get("Sec-Fetch-Site")
    origin = posted.headers.get("Origin")
    trusted = {origin_of(url) for url in public_urls}
    if site in ("same-origin", "none") or (origin and origin.lower() in trusted):
        return True
    if site is not None:
        return False
    if origin is None:
        return True
    try:
        return urlparse(origin).netloc == posted.host
    except ValueError:  # not an address at all ("http://[x"), so not this study's
        return False


@dataclass(frozen=True)
class Study:
    """What every request of one app needs, kept in `app.extensions` so that the views can
    live at module level and two apps (a test's, a restart's) never share a store."""

    store: Store
    design: StudyDesign
    settings: StudySettings
    totals: Mapping[int, int]
    """How many scenarios a participant of each rep plays."""
    exports: ExportJob


def _study() -> Study:
    """The study of the app handling the current request."""
    study: Study = current_app.extensions[STUDY_EXTENSION]
    return study


def same_site_posts_only() -> None:
    """A form may only be posted from the study's own pages: another site's page must
    not start a session in a participant's browser (login CSRF)."""
    if request.method == "POST" and not from_own_pages(request, _study().settings.public_urls):
        abort(403, "Forms of this study can only be sent from its own pages.")


def security_headers(response: Response) -> Response:
    """Every answer, error pages included, carries SECURITY_HEADERS."""
    response.headers.update(SECURITY_HEADERS)
    return response


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters other than a tab or a line break."""
MAX_REQUEST = 64 * 1024
"""The largest request a page may send (a reply of about 64,000 characters)."""
TOO_LARGE = "That reply is too long for the study: please go back and shorten it."


def problem_page(error: Any) -> tuple[str, int]:
    """An error as a page of the study, in its words, rather than Flask's default page."""
    message = TOO_LARGE if error.code == 413 else error.description
    return render_template("message.html", message=message), error.code


participant_pages = Blueprint("participant", __name__)
"""What a participant sees, from the study link to the completion code."""


def _browsers_participant() -> Participant | None:
    """The participant the signed cookie names, if this browser is the one they started in."""
    known = _study().store.participant(str(session.get("participant", "")))
    if known is None or not hmac.compare_digest(known.browser, str(session.get("browser"))):
        return None
    return known


def _current_participant() -> Participant:
    """The participant this browser belongs to, or 403."""
    known = _browsers_participant()
    if known is None:
        abort(403, "This browser has no study session. Please start from your study link.")
    return known


@participant_pages.get("/")
def landing() -> str:
    participant = request.args.get("PROLIFIC_PID", "")
    study_id = request.args.get("STUDY_ID", "")
    session_id = request.args.get("SESSION_ID", "")
    if not participant:
        # Without an id in the link: this browser's participant if it has one (so a
        # generated id can resume), else a new generated id.
        mine = _browsers_participant()
        if mine is not None:
            participant, study_id, session_id = mine.participant, mine.study_id, mine.session_id
        else:
            participant = f"anon-{secrets.token_hex(6)}"
    _check_ids(participant, study_id, session_id)
    return render_template(
        "landing.html", participant=participant, study_id=study_id, session_id=session_id
    )


@participant_pages.post("/start")
def start() -> BaseResponse:
    study = _study()
    participant = request.form.get("participant", "")
    study_id = request.form.get("study_id", "")
    session_id = request.form.get("session_id", "")
    _check_ids(participant, study_id, session_id)
    now = time.time()
    # One transaction finds or creates the participant, so two browsers starting one
    # new id at once cannot both own it: only the creator skips the resume check.
    known, created = study.store.enrol(
        participant,
        study_id,
        session_id,
        study.design.reps,
        now,
        study.settings.timeout_minutes * 60,
    )
    if not created and not _may_resume(known, study_id, session_id):
        abort(403, "This participant id is already in use in another browser.")
    study.store.touch(participant, now)
    session.clear()
    session.update(participant=participant, browser=known.browser)
    session.permanent = True
    started = bool(study.store.replies(participant))
    return redirect(url_for("participant.play" if started else "participant.instructions"))


def _may_resume(known: Participant, study_id: str, session_id: str) -> bool:
    """The same browser, or the same study link (Prolific's SESSION_ID is private to
    the participant's session); a generated id resumes only in its own browser."""
    if known.browser == session.get("browser"):
        return True
    return bool(known.session_id) and (known.study_id, known.session_id) == (
        study_id,
        session_id,
    )


@participant_pages.get("/instructions")
def instructions() -> str:
    study = _study()
    participant = _current_participant()
    return render_template(
        "instructions.html",
        rules=rules_text(study.design.lineup, study.design.rules),
        study_sentence=STUDY_SENTENCE,
        count=study.totals[participant.rep],
    )


@participant_pages.get("/play")
def play() -> BaseResponse | str:
    return _page(_current_participant(), problem=None)


@participant_pages.post("/play")
def reply() -> BaseResponse | str:
    study = _study()
    participant = _current_participant()
    step = next_step(study.design, participant, study.store.replies(participant.participant))
    posted = (request.form.get("position", ""), request.form.get("step", ""))
    if step is None or posted != (str(step.position), str(step.step)):
        # A stale page (a second tab, the back button, a double click): show where
        # the participant really is; nothing is written.
        return redirect(url_for("participant.play"))
    text = request.form.get("reply", "").strip()
    if not text:
        return _page(participant, problem="Please give an answer before continuing.")
    if _CONTROL.search(text):
        # No keyboard types one: a hand-made request, whose reply would be read as a move.
        return _page(participant, problem="Please answer in plain text.")
    study.store.add_reply(
        participant.participant,
        step.position,
        step.step,
        step.sample_id,
        step.prompt,
        story_digest((study.design.samples[step.sample_id].metadata or {})["story"]),
        text,
        time.time(),
        last_step=_is_last(study.design, participant, step),
    )
    return redirect(url_for("participant.play"))


def _is_last(design: StudyDesign, participant: Participant, step: Step) -> bool:
    """Whether a reply to this step is the participant's last one: it completes them."""
    last_scenario = step.position == len(participant.order) - 1
    return last_scenario and step.step + 1 == design.steps(step.sample_id)


@dataclass(frozen=True)
class PageText:
    """A step's prompt cut into what the play page shows apart: the rules, the story, the
    options to click (a choice action only) and the request under them."""

    rules: str
    story: str
    options: list[tuple[str, str]]
    request_text: str


def page_text(step: Step) -> PageText:
    """The parts of the step's prompt, cut where the task's own prompt puts them."""
    rules, _, rest = step.trial.action_prompt.partition(RULES_END)
    story = scenario_text(step.trial.solution.observation)
    options: list[tuple[str, str]] = []
    request_text = rest.removeprefix(story.removeprefix("STORY\n")).strip()
    if step.step == 0 and step.trial.response_format == "choice":
        block, _, request_text = request_text.partition("\n\n")
        options = [(line.split(")", 1)[0], line) for line in block.splitlines()[1:] if ")" in line]
    return PageText(rules, story, options, request_text if step.step == 0 else step.prompt)


def _page(participant: Participant, problem: str | None) -> BaseResponse | str:
    """The participant's next step, or the way to the completion code when none is left."""
    study = _study()
    step = next_step(study.design, participant, study.store.replies(participant.participant))
    if step is None:
        return redirect(url_for("participant.done"))
    study.store.touch(participant.participant, time.time())
    text = page_text(step)
    return render_template(
        "play.html",
        number=step.position + 1,
        count=len(participant.order),
        rules=text.rules,
        story=text.story,
        step=step,
        chosen=None if step.step == 0 else _chosen(step.trial),
        options=text.options,
        request_text=text.request_text,
        problem=problem,
    )


@participant_pages.get("/done")
def done() -> str:
    settings = _study().settings
    participant = _current_participant()
    if participant.status != "complete":
        abort(409, "The study is not finished yet: please go back to it.")
    url = (
        settings.completion_url.format(code=settings.completion_code)
        if settings.completion_url
        else None
    )
    return render_template("done.html", code=settings.completion_code, url=url)


admin_pages = Blueprint("admin", __name__, url_prefix="/admin")
"""The researcher's pages, each behind the admin token."""

Answer = TypeVar("Answer")


def _admin_only(view: Callable[[], Answer]) -> Callable[[], Answer]:
    """The view, answering 403 unless the request carries the admin token (as a bearer
    token or, for a browser, as `?token=`). A wrapper, not a before_request hook: Flask
    answers OPTIONS before any view runs, and that answer reveals nothing."""

    @functools.wraps(view)
    def guarded() -> Answer:
        header = request.headers.get("Authorization", "")
        given = header.removeprefix("Bearer ") if header.startswith("Bearer ") else ""
        given = given or request.args.get("token", "")
        token = _study().settings.admin_token
        if not given or not hmac.compare_digest(given.encode(), token.encode()):
            abort(403, "A valid admin token is required.")
        return view()

    return guarded


@admin_pages.get("/status")
@_admin_only
def status() -> dict[str, Any]:
    study = _study()
    people = study.store.participants(time.time() - study.settings.timeout_minutes * 60)
    return {
        "reps": {
            str(rep): {
                state: sum(1 for p in people if p.rep == rep and p.status == state)
                for state in ("active", "complete", "abandoned")
            }
            for rep in study.design.reps
        },
        "participants": len(people),
        "export": study.exports.status().as_json(),
    }


@admin_pages.get("/export")
@_admin_only
def export_status() -> str:
    """The running export's progress, the last export, and a button for a new one."""
    job = _study().exports.status()
    finished = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(job.finished or 0))
    token = request.args.get("token", "")
    return render_template("export.html", status=job, finished=finished, token=token)


@admin_pages.post("/export")
@_admin_only
def start_export() -> BaseResponse:
    """Starts an export in the background (409 while one runs)."""
    if not _study().exports.start():
        abort(409, "An export is already running; its progress is on /admin/export.")
    token = request.args.get("token")
    target = (
        url_for("admin.export_status", token=token) if token else url_for("admin.export_status")
    )
    return redirect(target, 303)


@admin_pages.get("/export.zip")
@_admin_only
def download_export() -> Response:
    """The last finished export: one Inspect log per participant, in a zip."""
    latest = _study().exports.status().latest
    if latest is None:
        abort(404, "No export yet: start one on /admin/export.")
    # Flask reads a relative path against the package's folder, not the working directory.
    return send_file(latest.resolve(), mimetype="application/zip", as_attachment=True)


def create_app(data_dir: Path, design: StudyDesign, settings: StudySettings) -> Flask:
    """The study's web app: the participant's pages, the admin page and the export,
    storing replies under `data_dir` (docs/study.md)."""
    if not settings.admin_token:
        raise InputError("the study needs a non-empty admin token")
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key(data_dir),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        # Behind HTTPS the cookie never travels over plain HTTP.
        SESSION_COOKIE_SECURE=any(url.startswith("https:") for url in settings.public_urls),
        MAX_CONTENT_LENGTH=MAX_REQUEST,
    )
    app.extensions[STUDY_EXTENSION] = Study(
        store=Store(data_dir),
        design=design,
        settings=settings,
        totals={rep: len(ids) for rep, ids in design.reps.items()},
        exports=ExportJob(data_dir),
    )
    app.before_request(same_site_posts_only)
    app.after_request(security_headers)
    app.register_blueprint(participant_pages)
    app.register_blueprint(admin_pages)
    for code in PROBLEM_CODES:
        app.register_error_handler(code, problem_page)
    return app
