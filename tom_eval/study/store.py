"""The study's persistence: participants, their assignments and every reply, in one SQLite
file in the data directory.

Each write is one transaction, so progress survives a reload, a crash or a restart of the
server, and concurrent requests (the server's threads, or several server processes on one
data directory) never hand out the same assignment twice or record a reply twice.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tom_eval.errors import InputError

DATABASE = "study.sqlite"
PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Prolific ids are 24 hex characters; anything beyond letters, digits, - and _ is refused."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS participants (
    participant TEXT PRIMARY KEY,
    study_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    browser TEXT NOT NULL,
    rep INTEGER NOT NULL,
    order_seed INTEGER NOT NULL,
    sample_order TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'complete', 'abandoned')),
    started REAL NOT NULL,
    last_seen REAL NOT NULL,
    completed REAL
);
CREATE TABLE IF NOT EXISTS replies (
    participant TEXT NOT NULL REFERENCES participants (participant),
    position INTEGER NOT NULL,
    step INTEGER NOT NULL,
    sample_id TEXT NOT NULL,
    prompt TEXT NOT NULL,
    story TEXT NOT NULL,
    reply TEXT NOT NULL,
    answered REAL NOT NULL,
    seconds REAL NOT NULL,
    PRIMARY KEY (participant, position, step)
);
"""


def valid_participant_id(text: str) -> bool:
    return PARTICIPANT_ID.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Participant:
    participant: str
    study_id: str
    session_id: str
    browser: str
    """A secret shared only with the participant's browser (in its signed cookie)."""
    rep: int
    order_seed: int
    order: tuple[str, ...]
    """The sample ids in the order shown, shuffled once with `order_seed`."""
    status: str
    started: float
    last_seen: float
    completed: float | None


@dataclass(frozen=True, slots=True)
class Reply:
    position: int
    step: int
    sample_id: str
    prompt: str
    """The text the participant was shown for this step (what the task asks a model)."""
    story: str
    """A digest of the whole scenario behind it, unseen events included (`story_digest`)."""
    reply: str
    answered: float
    seconds: float
    """Time since the previous reply (or since the study started)."""


class Store:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / DATABASE
        with self._transaction() as db:
            # executescript would commit on its own; the statements run one by one.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One connection per transaction: safe across the server's threads."""
        try:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as error:
            raise InputError(f"{self.path}: cannot open the study database ({error})") from None
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    def participant(self, participant: str) -> Participant | None:
        with self._transaction() as db:
            return _participant(db, participant)

    def participants(self) -> list[Participant]:
        with self._transaction() as db:
            rows = db.execute("SELECT * FROM participants ORDER BY started").fetchall()
        return [_from_row(row) for row in rows]

    def enrol(
        self,
        participant: str,
        study_id: str,
        session_id: str,
        reps: Mapping[int, Sequence[str]],
        now: float,
        timeout: float,
    ) -> tuple[Participant, bool]:
        """The participant, and whether this call created them. A new participant's
        assignment: the rep with the fewest participants who have completed it or are
        still on it, after releasing those idle for over `timeout` seconds (ties: fewer
        completions, then the lower rep). Its samples are shuffled once with a recorded
        seed."""
        if not valid_participant_id(participant):
            raise InputError(f"participant id '{participant}' is not letters, digits, - or _")
        with self._transaction() as db:
            existing = _participant(db, participant)
            if existing is not None:
                return existing, False
            db.execute(
                "UPDATE participants SET status = 'abandoned' "
                "WHERE status = 'active' AND last_seen < ?",
                (now - timeout,),
            )
            load = {rep: [0, 0] for rep in reps}
            for row in db.execute(
                "SELECT rep, status, COUNT(*) AS n FROM participants "
                "WHERE status != 'abandoned' GROUP BY rep, status"
            ):
                if row["rep"] in load:
                    load[row["rep"]][0] += row["n"]
                    load[row["rep"]][1] += row["n"] if row["status"] == "complete" else 0
            rep = min(load, key=lambda r: (load[r][0], load[r][1], r))
            order_seed = secrets.randbelow(2**31)
            order = list(reps[rep])
            random.Random(order_seed).shuffle(order)
            db.execute(
                "INSERT INTO participants VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, NULL)",
                (
                    participant,
                    study_id,
                    session_id,
                    secrets.token_urlsafe(24),
                    rep,
                    order_seed,
                    json.dumps(order),
                    now,
                    now,
                ),
            )
            created = _participant(db, participant)
        assert created is not None
        return created, True

    def touch(self, participant: str, now: float) -> None:
        """The participant is here: an abandoned assignment becomes theirs again."""
        with self._transaction() as db:
            db.execute(
                "UPDATE participants SET last_seen = ?, "
                "status = CASE status WHEN 'abandoned' THEN 'active' ELSE status END "
                "WHERE participant = ?",
                (now, participant),
            )

    def replies(self, participant: str) -> list[Reply]:
        with self._transaction() as db:
            rows = db.execute(
                "SELECT * FROM replies WHERE participant = ? ORDER BY position, step",
                (participant,),
            ).fetchall()
        return [
            Reply(
                row["position"],
                row["step"],
                row["sample_id"],
                row["prompt"],
                row["story"],
                row["reply"],
                row["answered"],
                row["seconds"],
            )
            for row in rows
        ]

    def add_reply(
        self,
        participant: str,
        position: int,
        step: int,
        sample_id: str,
        prompt: str,
        story: str,
        reply: str,
        now: float,
        last_step: bool,
    ) -> bool:
        """Record a reply; False (nothing written) if that step already has one, as when
        a form is submitted twice. `last_step` completes the participant's study."""
        with self._transaction() as db:
            previous = db.execute(
                "SELECT MAX(answered) AS t FROM replies WHERE participant = ?", (participant,)
            ).fetchone()["t"]
            known = _participant(db, participant)
            if known is None:
                return False
            since = previous if previous is not None else known.started
            try:
                db.execute(
                    "INSERT INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        participant,
                        position,
                        step,
                        sample_id,
                        prompt,
                        story,
                        reply,
                        now,
                        now - since,
                    ),
                )
            except sqlite3.IntegrityError:
                return False
            db.execute(
                "UPDATE participants SET last_seen = ?, status = ?, completed = ? "
                "WHERE participant = ?",
                (
                    now,
                    "complete" if last_step else "active",
                    now if last_step else None,
                    participant,
                ),
            )
        return True


def _participant(db: sqlite3.Connection, participant: str) -> Participant | None:
    row = db.execute("SELECT * FROM participants WHERE participant = ?", (participant,)).fetchone()
    return None if row is None else _from_row(row)


def _from_row(row: sqlite3.Row) -> Participant:
    return Participant(
        row["participant"],
        row["study_id"],
        row["session_id"],
        row["browser"],
        row["rep"],
        row["order_seed"],
        tuple(json.loads(row["sample_order"])),
        row["status"],
        row["started"],
        row["last_seen"],
        row["completed"],
    )
