"""Errors that reach the user as one line (see `cli.main`)."""


class InputError(Exception):
    """Bad input: a file, row, scenario or argument the user can fix.

    The message names what is wrong and where; the CLI prints it on one line and exits 2.
    """
