"""Writes the published checksums (`act-on-known.sha256`) from a clone of the authors'
repository at the pinned commit:

    git clone https://github.com/DingyiYang/Act-on-Known
    git -C Act-on-Known checkout ffae95d4a4032207ffbacaba1eb573284cd551da
    python -m tom_eval.knowledge.manifest Act-on-Known

The clone must be at that commit with its Data folder as committed, hold all 1,500 files,
and every file must read as a record; anything else is a one-line error (exit 2) and
nothing is written. The list is written aside and renamed into place.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tom_eval.errors import InputError
from tom_eval.files import write_atomically
from tom_eval.knowledge.records import read_ikd, read_knp
from tom_eval.knowledge.source import COMMIT, IKD, KNP, PUBLISHED, REPOSITORY, manifest_lines

HEADER = f"""\
# The sha256 of each of the 1,500 data files of {REPOSITORY} at commit
# {COMMIT}, in sha256sum format, written by
# python -m tom_eval.knowledge.manifest from a clone at that commit. tom-eval checks every
# download and every load of its cache against them.
"""
DEFAULT_OUT = Path(__file__).with_name(PUBLISHED)


def write_published(clone: Path, out: Path) -> int:
    """The checksums of the clone's data files into `out`; how many files it lists."""
    if not (clone / "Data").is_dir():
        raise InputError(f"{clone}: no Data folder (expected a clone of {REPOSITORY})")
    head = _git(clone, "rev-parse", "HEAD")
    if head != COMMIT:
        raise InputError(f"{clone}: at commit {head}, not {COMMIT}; check that commit out")
    if _git(clone, "status", "--porcelain", "--", "Data"):
        raise InputError(f"{clone}: Data differs from the commit; restore it (git checkout Data)")
    names = KNP.names() + IKD.names()
    missing = [name for name in names if not (clone / name).is_file()]
    if missing:
        raise InputError(f"{clone}: {len(missing)} data file(s) missing, e.g. {missing[0]}")
    read_knp(clone, str(clone))
    read_ikd(clone, str(clone))
    write_atomically(out, HEADER + manifest_lines(clone, names))
    return len(names)


def _git(clone: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(clone), *args], capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise InputError(f"cannot run git: {error.strerror}") from None
    if done.returncode != 0:
        problem = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise InputError(f"{clone}: not a git clone ({problem})")
    return done.stdout.strip()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tom_eval.knowledge.manifest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("clone", type=Path, help=f"a clone of {REPOSITORY} at {COMMIT[:12]}")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT}")
    args = parser.parse_args(argv)
    try:
        count = write_published(args.clone, args.out)
    except InputError as error:
        print(f"tom_eval.knowledge.manifest: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote the checksums of {count} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
