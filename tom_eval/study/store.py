"""The study's persistence: participants, their assignments and every reply, in one SQLite
file in the data directory.

Each write is one transaction, so progress survives a reload, a crash or a restart of the
server, and concurrent requests (the server's threads, or several server processes on one
data directory) never hand out the same assignment twice or record a reply twice.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tom_eval.errors import InputError
from tom_eval.json_fields import READ_ERRORS

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


STATUSES = ("active", "complete", "abandoned")
_IDLE = "status = 'active' AND last_seen < ?"
"""The participants idle past the timeout (the parameter: now minus the timeout), who count
as abandoned: their assignment goes to the next to enrol unless they come back."""
TEXT, WHOLE, TIME = (str,), (int,), (float,)
PARTICIPANT_TYPES = {
    "participant": TEXT,
    "study_id": TEXT,
    "session_id": TEXT,
    "browser": TEXT,
    "rep": WHOLE,
    "order_seed": WHOLE,
    "sample_order": TEXT,
    "status": TEXT,
    "started": TIME,
    "last_seen": TIME,
    "completed": (float, type(None)),
}
REPLY_TYPES = {
    "position": WHOLE,
    "step": WHOLE,
    "sample_id": TEXT,
    "prompt": TEXT,
    "story": TEXT,
    "reply": TEXT,
    "answered": TIME,
    "seconds": TIME,
}
"""The columns this version reads, with their types: a database lacking one is of another
schema; a value of another type is a bad row."""
_COLUMNS = {"participants": list(PARTICIPANT_TYPES), "replies": ["participant", *REPLY_TYPES]}


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
    def __init__(self, data_dir: Path, read_only: bool = False) -> None:
        """The study's database: created (owner-only) if absent, unless `read_only`, which
        opens an existing one and changes nothing (`tom-eval export`)."""
        self.path = data_dir / DATABASE
        self.read_only = read_only
        if read_only:
            self._check_schema()
            return
        _owner_only(self.path)
        with self._transaction() as db:
            # executescript would commit on its own; the statements run one by one.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One connection per transaction: safe across the server's threads. A file that
        is no SQLite database is an InputError naming it."""
        try:
            if self.read_only:
                # mode=rw: never create the file; a deferred transaction: never write.
                uri = f"{self.path.resolve().as_uri()}?mode=rw"
                db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
            else:
                db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as error:
            raise InputError(f"{self.path}: cannot open the study database ({error})") from None
        try:
            db.row_factory = sqlite3.Row
            if not self.read_only:
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            unwritable = self.read_only and not os.access(self.path.parent, os.W_OK)
            if isinstance(error, sqlite3.OperationalError) and unwritable:
                # The study's WAL journal is read through files SQLite keeps beside it.
                raise InputError(
                    f"{self.path}: cannot be read in a folder this user cannot write to "
                    "(SQLite keeps its -wal and -shm files beside the database): export a copy "
                    "of the data directory"
                ) from None
            raise InputError(f"{self.path}: not a readable study database ({error})") from None
        finally:
            db.close()

    def _check_schema(self) -> None:
        """The tables and columns this version reads: another schema is refused."""
        if not self.path.is_file():
            raise InputError(f"{self.path}: no study database (nobody has taken part yet?)")
        with self._transaction() as db:
            for table, columns in _COLUMNS.items():
                found = {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}
                if not found:
                    raise InputError(f"{self.path}: holds no study (no table '{table}')")
                if missing := [column for column in columns if column not in found]:
                    raise InputError(
                        f"{self.path}: not a study database of this version (table "
                        f"'{table}' lacks {', '.join(missing)})"
                    )

    def participant(self, participant: str) -> Participant | None:
        with self._transaction() as db:
            return self._one(db, participant)

    def participants(self, idle_before: float | None = None) -> list[Participant]:
        """Every participant, in enrolment order. With `idle_before`, one still active but
        last seen before it counts as abandoned, as the next enrolment will record it."""
        with self._transaction() as db:
            rows = db.execute("SELECT * FROM participants ORDER BY started").fetchall()
            query = f"SELECT participant FROM participants WHERE {_IDLE}"
            idle = (
                set()
                if idle_before is None
                else {row[0] for row in db.execute(query, (idle_before,))}
            )
        people = [self._from_row(row) for row in rows]
        return [replace(p, status="abandoned") if p.participant in idle else p for p in people]

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
            existing = self._one(db, participant)
            if existing is not None:
                return existing, False
            db.execute(
                f"UPDATE participants SET status = 'abandoned' WHERE {_IDLE}", (now - timeout,)
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
            created = self._one(db, participant)
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
        where = f"{self.path}: participant {participant}"
        return [Reply(**_typed(where, row, REPLY_TYPES)) for row in rows]

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
            known = self._one(db, participant)
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

    def _one(self, db: sqlite3.Connection, participant: str) -> Participant | None:
        query = "SELECT * FROM participants WHERE participant = ?"
        row = db.execute(query, (participant,)).fetchone()
        return None if row is None else self._from_row(row)

    def _from_row(self, row: sqlite3.Row) -> Participant:
        """A participant's row, each field of its type: a row that is not (edited by hand,
        or written by something else) is an InputError naming the participant."""
        where = f"{self.path}: participant {row['participant']!r}"
        fields = _typed(where, row, PARTICIPANT_TYPES)
        try:
            order = json.loads(fields.pop("sample_order"))
        except READ_ERRORS:
            order = None
        if not isinstance(order, list) or not all(isinstance(item, str) for item in order):
            raise InputError(f"{where}: sample_order is not a list of sample ids")
        if fields["status"] not in STATUSES:
            raise InputError(f"{where}: unknown status {fields['status']!r}")
        # The id names the participant's files in an export: only ids the study makes.
        if not valid_participant_id(fields["participant"]):
            raise InputError(f"{where}: the id is not letters, digits, - or _")
        return Participant(**fields, order=tuple(order))


def _typed(where: str, row: sqlite3.Row, kinds: Mapping[str, tuple[type, ...]]) -> dict[str, Any]:
    """The row's columns named in `kinds`, each one of its types (an int is a float too):
    a value of another type is an InputError naming the column."""
    values = {}
    for column, allowed in kinds.items():
        value = row[column]
        if float in allowed and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, allowed):
            names = " or ".join("NULL" if kind is type(None) else kind.__name__ for kind in allowed)
            raise InputError(f"{where}: {column} is {value!r}, not {names}")
        values[column] = value
    return values


def _owner_only(path: Path) -> None:
    """The database file (and so the journal files SQLite gives its mode) readable by the
    owner only, even in a data directory others may read."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(path, 0o600)
    except OSError as error:
        raise InputError(f"{path}: cannot open the study database ({error.strerror})") from None
