"""`/admin/export`: the study's logs exported in the background, one export at a time, and
the last one kept for download.

A request never waits for an export (replaying 121 participants one process each took
about 5 minutes inside one request). An export runs `tom-eval export` in a process of its
own (Inspect's event loop does not belong in the server's threads), which replays every
participant in one Inspect eval and writes its progress to a file the status page reads.
The finished logs are zipped into the data directory's `exports/` folder (owner-only,
like the rest of it; served only to the admin), replacing the previous export.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tom_eval.files import write_atomically
from tom_eval.json_fields import READ_ERRORS

EXPORTS = "exports"
LATEST = "tom-eval-study-logs.zip"
PROGRESS = "progress.json"


@dataclass(frozen=True)
class ExportStatus:
    running: bool
    done: int
    """Participants replayed so far (of `total`) by the running or the last export."""
    total: int
    latest: Path | None
    """The last finished export's zip, if any."""
    finished: float | None
    """When it was written (seconds since the epoch)."""
    problem: str | None
    """Why the last export failed, or which participants' replays failed."""

    def as_json(self) -> dict[str, object]:
        return {
            "running": self.running,
            "done": self.done,
            "total": self.total,
            "finished": self.finished,
            "problem": self.problem,
            "download": self.latest is not None,
        }


class ExportJob:
    """The data directory's export: started at most once at a time per server."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.folder = data_dir / EXPORTS
        self._running = threading.Lock()
        self._problem: str | None = None

    def start(self) -> bool:
        """Starts an export in the background; False when one is running already."""
        if not self._running.acquire(blocking=False):
            return False
        self.folder.mkdir(mode=0o700, exist_ok=True)
        (self.folder / PROGRESS).unlink(missing_ok=True)
        self._problem = None
        threading.Thread(target=self._run, name="tom-eval export", daemon=True).start()
        return True

    def _run(self) -> None:
        try:
            with tempfile.TemporaryDirectory(dir=self.folder) as work:
                out = Path(work) / "logs"
                command = [sys.executable, "-m", "tom_eval.cli", "export", str(self.data_dir)]
                command += ["--out", str(out), "--progress", str(self.folder / PROGRESS)]
                done = subprocess.run(command, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    # A failed replay still writes the others' logs (exit 2, out written).
                    self._problem = (done.stderr.strip().splitlines() or ["export failed"])[-1]
                if out.is_dir():
                    _zip(out, self.folder / LATEST)
        except OSError as error:
            self._problem = f"export failed: {error}"
        finally:
            self._running.release()

    def status(self) -> ExportStatus:
        latest = self.folder / LATEST
        done, total = _progress(self.folder / PROGRESS)
        return ExportStatus(
            running=self._running.locked(),
            done=done,
            total=total,
            latest=latest if latest.is_file() else None,
            finished=latest.stat().st_mtime if latest.is_file() else None,
            problem=self._problem,
        )


def _zip(logs: Path, target: Path) -> None:
    """Every log under `logs` (failed replays under failed/) into `target`, owner-only,
    written aside and renamed into place."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w") as archive:
            for path in sorted(logs.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(logs).as_posix())
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def write_progress(path: Path, done: int, total: int) -> None:
    """`tom-eval export --progress FILE`: how far the export is, replaced whole (a path
    that cannot be written is a one-line error)."""
    write_atomically(path, json.dumps({"done": done, "total": total, "time": time.time()}))


def is_progress_file(path: Path) -> bool:
    """Whether `path` holds what `write_progress` writes, so an export may replace it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, *READ_ERRORS):
        return False
    return isinstance(data, dict) and set(data) == {"done", "total", "time"}


def _progress(path: Path) -> tuple[int, int]:
    try:
        data = json.loads(path.read_text())
        return int(data["done"]), int(data["total"])
    except (OSError, KeyError, TypeError, *READ_ERRORS):
        return 0, 0
