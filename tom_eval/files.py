"""Files and folders tom-eval writes where the user says (`--out`): written whole or not
at all, with the user's usual file mode, and any problem one InputError naming the path
(a folder where a file should be, a file on the way to a folder, no permission)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from tom_eval.errors import InputError

FULL_OR_CLOSED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})
"""Write errors of the place the output goes (a full disk, a quota, a read-only one): the
user's to fix, so one line, not a traceback."""


def usual_mode() -> int:
    """The mode a new file of this user gets (0o666 less the umask): `mkstemp` makes its
    files owner-only, which an output file should not stay."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def writable_folder(folder: Path, named: Path | None = None, create: bool = True) -> None:
    """`folder` exists (created with its parents if needed) and can be written in; errors
    name `named` (the file to be written in it), else the folder. With `create` false
    nothing is made: the nearest of the folder and its parents that exists must be a folder
    that can be written in (a command that may still refuse later checks first)."""
    existing = next(ancestor for ancestor in (folder, *folder.parents) if ancestor.exists())
    if not existing.is_dir():
        where = named or folder
        what = "is a file" if existing == where else f"{existing} is a file"
        raise InputError(f"{where}: {what}, not a folder")
    probed = folder if create else existing
    try:
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=probed):
            pass
    except OSError as error:
        raise InputError(
            f"{named or folder}: cannot write in {probed} ({error.strerror})"
        ) from None


def write_atomically(path: Path, text: str) -> None:
    """`text` into `path` through a temporary file in the same folder, renamed into
    place: the file appears whole or not at all, with the usual mode. A symbolic link is
    written through (the file it names is replaced, the link kept); a device, pipe or
    socket is refused, since renaming over it would replace it with a plain file."""
    path = file_to_write(path)
    writable_folder(path.parent, path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.chmod(temporary, usual_mode())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write it ({error.strerror})") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def writable_file(path: Path) -> None:
    """Checks, writing nothing, that `write_atomically` could write `path`: a command checks
    its outputs first, so that a refusal leaves nothing behind."""
    path = file_to_write(path)
    writable_folder(path.parent, path, create=False)


def file_to_write(path: Path) -> Path:
    """The file that writing `path` replaces: the file a symbolic link names; a folder,
    device, pipe or socket is an InputError."""
    if path.is_dir():
        raise InputError(f"{path}: is a folder; give a file name")
    # Checked through the link, named as given: /dev/stdout into a pipe resolves to a
    # /proc name that no longer exists as a path ("pipe:[1775649]").
    if path.exists() and not path.is_file():
        raise InputError(f"{path}: not a regular file (a device, pipe or socket); give a file name")
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    return path
