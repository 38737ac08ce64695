"""The web study end to end in real browsers: two people at once, through a reload, a
server restart and someone else opening one of their links, then their exported logs,
scored by the task's scorer and reported beside a model's run.

The participants play reference policies from what the page shows, so their replies are
known and the logs must hold exactly them. Needs Debian's chromium and its chromedriver
(CI installs them; elsewhere the test skips without them). Nothing touches the network.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlparse

import pytest
from inspect_ai.log import EvalLog, read_eval_log
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from conftest import ROOT, http_server
from tom_eval.game.players import respond
from tom_eval.study.store import Store

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
TASK_ARGS = {"ids": "12,17,30", "extras": "0A", "reps": "2"}
"""Three scenarios a participant, one of them (12) with an answer step; two assignments."""
CODE = "CODE"
SERVING = re.compile(r"^serving on (http://\S+/)$", re.MULTILINE)
WAIT = 30.0
"""Seconds a page, or the server's start, may take."""


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Server:
    process: subprocess.Popen[bytes]
    url: str

    def stop(self) -> None:
        stop(self.process)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[Path], Server]]:
    """Starts `tom-eval serve` on a data directory (again after a stop, as after a crash);
    every server started is stopped at the end, whatever happened."""
    started: list[subprocess.Popen[bytes]] = []

    def start(data_dir: Path) -> Server:
        out, err = (tmp_path / f"serve-{len(started)}.{name}" for name in ("out", "err"))
        args = ["--data-dir", str(data_dir), "--port", "0", "--completion-code", CODE]
        args += [f"--{key}={value}" for key, value in TASK_ARGS.items()]
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "tom_eval.cli", "serve", *args],
                cwd=tmp_path,
                stdout=stdout,
                stderr=stderr,
            )
        started.append(process)
        return Server(process, _serving_url(process, out, err))

    yield start
    for process in started:
        stop(process)


def _serving_url(process: subprocess.Popen[bytes], out: Path, err: Path) -> str:
    """The URL of the server's `serving on` line, which it prints once it listens."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = SERVING.search(out.read_text())
        if found:
            return found[1]
        if process.poll() is not None:
            pytest.fail(f"tom-eval serve exited with {process.returncode}: {err.read_text()}")
        time.sleep(0.1)
    pytest.fail(f"tom-eval serve printed no 'serving on' line in {WAIT} s: {err.read_text()}")


@pytest.fixture
def browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], webdriver.Chrome]]:
    """Opens a headless chromium with a profile of its own (its own cookies, as on another
    person's computer); all are closed at the end."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists():
            reason = f"{path} is absent (apt-get install chromium chromium-driver)"
            if os.environ.get("CI"):
                pytest.fail(f"{reason}: CI installs it, so the browser test must run there")
            pytest.skip(reason)
    # Selenium Manager must never look for a browser or driver to download.
    monkeypatch.setenv("SE_OFFLINE", "true")
    drivers: list[webdriver.Chrome] = []

    def open_browser() -> webdriver.Chrome:
        options = Options()
        options.binary_location = str(CHROMIUM)
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={tmp_path / f'profile-{len(drivers)}'}")
        driver = webdriver.Chrome(
            service=Service(executable_path=str(CHROMEDRIVER)), options=options
        )
        drivers.append(driver)
        return driver

    yield open_browser
    for driver in drivers:
        driver.quit()


def text(driver: webdriver.Chrome, element_id: str) -> str:
    """An element's text as in the HTML, shown or not (the rules are in a closed <details>).
    A page without it fails the test with what the page says instead."""
    found = driver.find_elements(By.ID, element_id)
    if not found:
        shown = driver.find_element(By.TAG_NAME, "body").text[:500]
        pytest.fail(f"{driver.current_url} has no #{element_id}; it shows: {shown}")
    return found[0].get_attribute("textContent") or ""


def click_through(driver: webdriver.Chrome, element_id: str) -> None:
    """Click a button and wait for the page it leads to."""
    button = driver.find_element(By.ID, element_id)
    button.click()
    WebDriverWait(driver, WAIT).until(lambda _: gone(button))


def gone(element: WebElement) -> bool:
    """Whether an element left the document: Selenium's `staleness_of` misses the form
    in which Chromium sometimes says so ("Node ... does not belong to the document")."""
    try:
        element.is_enabled()
    except WebDriverException:
        return True
    return False


def study_link(url: str, participant: str, session_id: str) -> str:
    return f"{url}?PROLIFIC_PID={participant}&STUDY_ID=s1&SESSION_ID={session_id}"


@dataclass
class Participant:
    """One person in one browser, playing a reference policy from what the pages show."""

    name: str
    policy: str
    driver: webdriver.Chrome
    prompt: str = ""
    """The first prompt of the current scenario, rebuilt from its action page."""
    replies: dict[str, list[str]] = field(default_factory=dict)
    answer_pages: dict[str, str] = field(default_factory=dict)
    """The answer page's request, by the scenario's first prompt."""
    """What was submitted, by each scenario's first prompt."""
    pages: list[int] = field(default_factory=list)
    """The scenario number of each page answered."""

    def place(self) -> tuple[str, str]:
        return text(self.driver, "progress"), text(self.driver, "story")

    def done(self) -> bool:
        return self.driver.current_url.endswith("/done")

    def answer_page(self) -> None:
        """Reply to the page as the policy replies to the same text as a model's prompt."""
        progress = re.fullmatch(r"Scenario (\d) of 3", text(self.driver, "progress"))
        assert progress is not None
        self.pages.append(int(progress[1]))
        labels = self.driver.find_elements(By.CSS_SELECTOR, "#options label")
        if labels:
            options = [(label.get_attribute("textContent") or "").strip() for label in labels]
            self.prompt = "\n\n".join(
                [
                    text(self.driver, "rules"),
                    text(self.driver, "story"),
                    "OPTIONS\n" + "\n".join(options),
                    text(self.driver, "request"),
                ]
            )
            reply = respond(self.policy, [("user", self.prompt)], 0)
            self.driver.find_element(By.ID, f"option-{reply}").click()
            self.replies[self.prompt] = [reply]
        else:
            [action] = self.replies[self.prompt]
            # The answer page shows the chosen option's whole line.
            assert text(self.driver, "chosen").startswith(f"{action}) ")
            asked = text(self.driver, "request")
            conversation = [("user", self.prompt), ("assistant", action), ("user", asked)]
            reply = respond(self.policy, conversation, 0)
            self.driver.find_element(By.ID, "reply").send_keys(reply)
            self.replies[self.prompt].append(reply)
            self.answer_pages[self.prompt] = asked
        click_through(self.driver, "submit")


def join(
    driver: webdriver.Chrome, url: str, name: str, session_id: str, policy: str
) -> Participant:
    driver.get(study_link(url, name, session_id))
    assert text(driver, "participant") == name
    click_through(driver, "start")
    click_through(driver, "begin")
    return Participant(name, policy, driver)


def run(*args: str, cwd: Path) -> None:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_two_participants_play_at_once_through_a_reload_a_restart_and_an_intruder(
    tmp_path: Path, serve: Callable[[Path], Server], browser: Callable[[], webdriver.Chrome]
) -> None:
    data = tmp_path / "study"
    server = serve(data)
    p1 = join(browser(), server.url, "p1", "x1", "oracle")
    p2 = join(browser(), server.url, "p2", "x2", "always-pass")
    people = (p1, p2)
    for person in people:
        person.answer_page()

    # A reload shows the same page again and records nothing.
    before = p1.place()
    p1.driver.refresh()
    assert p1.place() == before
    assert len(Store(data).replies("p1")) == 1

    # After a restart (a new port), the browsers' cookies still hold their sessions.
    places = [person.place() for person in people]
    server.stop()
    server = serve(data)
    for person in people:
        person.driver.get(f"{server.url}play")
    assert [person.place() for person in people] == places

    # Someone else with p1's id but not p1's session id is turned away, and p1 plays on.
    intruder = browser()
    intruder.get(study_link(server.url, "p1", "wrong"))
    click_through(intruder, "start")
    assert "already in use" in text(intruder, "message")
    intruder.get(f"{server.url}play")
    assert "no study session" in text(intruder, "message")
    p1.driver.refresh()
    assert p1.place() == places[0]

    while not all(person.done() for person in people):
        for person in people:
            if not person.done():
                person.answer_page()
    for person in people:
        assert text(person.driver, "code") == CODE
        # Scenario 12 takes two pages, the others one; numbers never go back.
        assert sorted(person.pages) == person.pages and len(person.pages) == 4
        assert set(person.pages) == {1, 2, 3}

    logs = tmp_path / "logs"
    run(sys.executable, "-m", "tom_eval.cli", "export", str(data), "--out", str(logs), cwd=tmp_path)
    exported = [read_eval_log(path, resolve_attachments=True) for path in sorted(logs.iterdir())]
    by_name = {str(log.eval.metadata["participant"]): log for log in exported if log.eval.metadata}
    assert sorted(by_name) == ["p1", "p2"] and len(exported) == 2
    for person in people:
        check_log(by_name[person.name], person)
    assert {log.eval.metadata["rep"] for log in exported if log.eval.metadata} == {1, 2}

    oracle_logs, report = tmp_path / "oracle-logs", tmp_path / "report"
    task_args = [arg for key, value in TASK_ARGS.items() for arg in ("-T", f"{key}={value}")]
    run(
        *(sys.executable, "-m", "inspect_ai", "eval", "tasks/tom.py", "--model", "tom/oracle"),
        *(*task_args, "--log-dir", str(oracle_logs), "--display", "none"),
        cwd=ROOT,
    )
    report_args = ("report", str(logs), str(oracle_logs), "--out", str(report))
    run(sys.executable, "-m", "tom_eval.cli", *report_args, cwd=tmp_path)
    written = (report / "report.md").read_text()
    for name in ("human:p1", "human:p2", "tom/oracle"):
        assert name in written


def check_log(log: EvalLog, person: Participant) -> None:
    """The log replays what the browser submitted, in the scenarios its pages showed
    (the page's rebuilt prompt is the task's own), and the oracle scores optimal."""
    assert log.eval.model == "tom/human"
    samples = log.samples or []
    assert len(samples) == 3
    shown: dict[str, list[str]] = {}
    for sample in samples:
        assert sample.error is None
        user = [message.text for message in sample.messages if message.role == "user"]
        if user[0] in person.answer_pages:
            # The answer page showed the log's second message, word for word.
            assert user[1] == person.answer_pages[user[0]]
        shown[user[0]] = [
            message.text for message in sample.messages if message.role == "assistant"
        ]
        assert sample.scores is not None
        value = sample.scores["tom_scorer"].value
        assert isinstance(value, dict)
        if person.policy == "oracle":
            assert value["optimal"] == 1
    assert shown == person.replies


class _Proxy(BaseHTTPRequestHandler):
    """A reverse proxy as nginx's `proxy_pass http://UPSTREAM;` is by default: the request
    goes on with Host set to the upstream's address (and X-Real-IP added); every other
    header, the browser's Origin and Sec-Fetch-* among them, passes through."""

    upstream = ""

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {key: value for key, value in self.headers.items() if key.lower() != "host"}
        headers |= {"Host": urlparse(self.upstream).netloc, "X-Real-IP": self.client_address[0]}
        connection = http.client.HTTPConnection(urlparse(self.upstream).netloc, timeout=WAIT)
        connection.request(self.command, self.path, body or None, headers)
        answer = connection.getresponse()
        content = answer.read()
        self.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)
        connection.close()

    do_GET = do_POST = _forward

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged."""


@contextmanager
def listening(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    with http_server(handler) as port:
        yield f"http://localhost:{port}/"


def test_a_participant_behind_a_reverse_proxy_plays_and_another_site_cannot_post(
    tmp_path: Path, serve: Callable[[Path], Server], browser: Callable[[], webdriver.Chrome]
) -> None:
    """The browser opens the proxy's address (localhost:P); the study sees the upstream's
    Host (127.0.0.1:Q). Its forms are the study's own all the same; a page of another
    site posting to the proxy is refused."""
    data = tmp_path / "study"
    server = serve(data)
    proxy = type("Proxy", (_Proxy,), {"upstream": server.url})
    with listening(proxy) as public:
        person = join(browser(), public, "p1", "x1", "oracle")
        while not person.done():
            person.answer_page()
        assert text(person.driver, "code") == CODE

        form = (
            f'<form id="evil" method="post" action="{public}start">'
            '<input name="participant" value="victim"><input name="study_id" value="s1">'
            "</form><script>document.getElementById('evil').submit()</script>"
        )
        page = type("Evil", (_Page,), {"html": form.encode()})
        with listening(page) as evil:
            victim = browser()
            victim.get(evil.replace("localhost", "127.0.0.1"))
            WebDriverWait(victim, WAIT).until(lambda driver: "/start" in driver.current_url)
            assert "only be sent from its own pages" in text(victim, "message")
    assert Store(data).participant("victim") is None


class _Page(BaseHTTPRequestHandler):
    html = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(self.html)))
        self.end_headers()
        self.wfile.write(self.html)

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged."""
