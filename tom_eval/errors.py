"""Errors that reach the user as one line (see `cli.main`), and the file names users give."""

import os
from pathlib import Path


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
    path = Path(text).expanduser()
    if path.is_absolute():
        return path
    started_in = Path(os.environ.get("PWD", Path.cwd()))
    return started_in / path if (started_in / path).exists() else path
