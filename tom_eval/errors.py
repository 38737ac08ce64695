"""Errors that reach the user as one line (see `cli.main`)."""


class InputError(Exception):
    """Bad input: a file, row, scenario or argument the user can fix.

    The message names what is wrong and where; the CLI prints it on one line and exits 2.
    """

    def __str__(self) -> str:
        # Messages quote what the user gave, which may hold line breaks: shown escaped, the
        # message stays on one line.
        return super().__str__().replace("\r", "\\r").replace("\n", "\\n")
