"""Errors that reach the user as one line (see `cli.main`), and the file names users give."""

import os
import stat
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class InputError(Exception):
    """Bad input: a file, row, scenario or argument the user can fix.

    The message names what is wrong and where; the CLI prints it on one line and exits 2.
    """

    def __str__(self) -> str:
        # Messages quote what the user gave, which may hold line breaks: shown escaped, the
        # message stays on one line.
        return super().__str__().replace("\r", "\\r").replace("\n", "\\n")


def user_path(text: str) -> Path:
    """A path as the user meant it: relative to the directory `inspect eval` was started in
    ($PWD), since Inspect runs a task from the task file's own directory."""
    if "\0" in text:
        raise InputError(f"{text!r} is not a file name (it holds a NUL character)")
    try:
        path = Path(text).expanduser()
    except RuntimeError:  # "~nobody/x": no such user, so no home folder
        raise InputError(f"{text}: no such user's home folder") from None
    if path.is_absolute():
        return path
    started_in = Path(os.environ.get("PWD", Path.cwd()))
    return started_in / path if (started_in / path).exists() else path


def read_user_text(path: Path, where: str | None = None) -> str:
    """The text of a file the user gave, without the byte-order mark some editors write;
    one that cannot be read (missing, a folder, a device, not UTF-8) is an InputError naming it
    (`where`, or the path)."""
    return user_text(read_user_bytes(path, where), where or str(path))


def read_user_bytes(path: Path, where: str | None = None) -> bytes:
    """The bytes of a file the user gave, read once (a pipe cannot be read twice)."""
    refuse_device(path, where)
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError(f"{where or path}: cannot read ({error.strerror or error})") from None


def user_text(data: bytes, where: str) -> str:
    """`data` as UTF-8 text without a byte-order mark, line ends read as a text file reads
    them (each \\r\\n or \\r a \\n); InputError naming `where` if it is not UTF-8."""
    try:
        return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as error:
        if data.startswith(ZIP_MAGIC):
            raise InputError(f"{where}: a zip archive (an Inspect .eval log?), not text") from None
        raise InputError(f"{where}: not UTF-8 text ({error.reason})") from None


ZIP_MAGIC = b"PK\x03\x04"
"""How a zip archive, such as an Inspect .eval log, begins."""


def refuse_device(path: Path, where: str | None = None) -> None:
    """A device (/dev/zero, /dev/urandom, a terminal) is refused before it is read: reading
    one would not end, or would fill the memory. A pipe is a file for this purpose."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # the read that follows names the problem
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise InputError(f"{where or path}: a device, not a file")


def refuse_unless_regular(path: Path, why: str) -> None:
    """A file read more than once must be a regular file: a pipe (`<(...)`) gives nothing
    the second time, and its /dev/fd name means nothing to a later process. `why` says
    what reads it again."""
    if path.exists() and not path.is_file():
        raise InputError(f"{path}: not a regular file; {why}")


def all_logs(logs: list[T], expected: int) -> list[T]:
    """The logs of an `eval()` call that ran `expected` tasks. Inspect ends a run on Ctrl-C
    itself and returns fewer (none): that is the user's interrupt, raised again as one, so
    the command stops with its one line rather than a traceback."""
    if len(logs) != expected:
        raise KeyboardInterrupt
    return logs
