"""Where the Act-on-Known data comes from: the authors' repository at a pinned commit,
downloaded once into a cache, or a local copy (`-T data_dir=`). The repository has no
licence, so tom-eval ships none of it.

A copy is a folder in the repository's layout (`Data/KNP/qa_N.json`,
`Data/IKD/original/story_N.json`, `Data/IKD/errors/erroneous_story_N.json`) with, beside
`Data/`, a manifest `SHA256SUMS` in `sha256sum` format (so `sha256sum -c SHA256SUMS` checks
it too), written from the download after every file has been read and checked as a record.

Two checksum lists guard the data:
* the published one, `act-on-known.sha256` in this package: the sha256 of each of the
  1,500 files at the pinned commit, written from a clone by `python -m
  tom_eval.knowledge.manifest CLONE`. A download (from GitHub or a mirror) is checked
  against it before anything is cached, and the cache at every load, so the first
  download is verified, not trusted. While it lists no file of a subset, that subset's
  first download is trusted on first use, with a warning saying so;
* the cache's own `SHA256SUMS`, which every load verifies too (and a `data_dir` copy that
  carries one): a damaged or edited copy stops the run, naming the file.
A `data_dir` copy is the user's own (a subset, a fixture, an edited copy) and is not held
to the published list.

A download goes to a temporary folder beside the cache, is checked, and is renamed into
place in one step, so the cache never holds half a download.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tom_eval.errors import InputError, read_user_text

REPOSITORY = "DingyiYang/Act-on-Known"
COMMIT = "ffae95d4a4032207ffbacaba1eb573284cd551da"
"""The commit the data is pinned to (2026-03-23)."""
DEFAULT_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}"
URL_VARIABLE = "TOM_EVAL_KNOWLEDGE_URL"
"""Another base URL (an http(s) mirror or a file:// copy) in the repository's layout."""
CACHE_VARIABLE = "TOM_EVAL_CACHE"
MANIFEST = "SHA256SUMS"
PUBLISHED = "act-on-known.sha256"
"""The published checksums, a file of this package."""
TIMEOUT = 60.0
CONNECTIONS = 8
LOCAL_HINT = "-T data_dir=DIR reads a local copy"
LARGEST_NUMBER = 1_000_000
"""The largest number a data file may have (the authors' go to 500)."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Folder:
    """One folder of numbered JSON files, e.g. Data/KNP/qa_1.json ... qa_500.json."""

    path: str
    prefix: str
    count: int

    def name(self, number: int) -> str:
        return f"{self.path}/{self.prefix}{number}.json"

    def names(self) -> list[str]:
        return [self.name(number) for number in range(1, self.count + 1)]

    def files(self, root: Path) -> list[tuple[int, Path]]:
        """The numbered files present under `root`, in number order."""
        pattern = re.compile(rf"{re.escape(self.prefix)}([1-9][0-9]*)\.json")
        folder = root / self.path
        found = [
            (int(match.group(1)), path)
            for path in (folder.iterdir() if folder.is_dir() else ())
            if (match := pattern.fullmatch(path.name))
        ]
        for number, path in found:
            if number > LARGEST_NUMBER:
                # An item's number goes into its sample id and metadata, where a log's
                # tables hold 64-bit integers at most.
                raise InputError(
                    f"{path}: numbered beyond any data file ({number:,} > {LARGEST_NUMBER:,})"
                )
        return sorted(found)


@dataclass(frozen=True)
class Subset:
    """What one task reads: KNP, or IKD's originals and erroneous stories."""

    name: str
    folders: tuple[Folder, ...]

    def names(self) -> list[str]:
        return [name for folder in self.folders for name in folder.names()]

    def owns(self, name: str) -> bool:
        return any(name.startswith(f"{folder.path}/") for folder in self.folders)


KNP_FILES = Folder("Data/KNP", "qa_", 500)
ORIGINAL_FILES = Folder("Data/IKD/original", "story_", 500)
ERROR_FILES = Folder("Data/IKD/errors", "erroneous_story_", 500)
KNP = Subset("KNP", (KNP_FILES,))
IKD = Subset("IKD", (ORIGINAL_FILES, ERROR_FILES))

Check = Callable[[Path, str], object]
"""Reads a copy at `root` as records, naming files after `origin`; raises InputError."""


def data_root(subset: Subset, data_dir: Path | None, check: Check) -> tuple[Path, str]:
    """The folder to read `subset` from and how to name it in messages: the user's copy
    (its manifest verified when it has one), else the cache, downloaded if absent."""
    if data_dir is not None:
        root = local_root(data_dir)
        if (root / MANIFEST).exists():
            verify(root, subset, complete=False)
        return root, str(root)
    base_url = os.environ.get(URL_VARIABLE) or DEFAULT_URL
    return cached(subset, base_url.rstrip("/"), check), base_url.rstrip("/")


def local_root(data_dir: Path) -> Path:
    """A clone of the repository (the folder holding Data/) or its Data folder itself."""
    if not data_dir.is_dir():
        problem = "a file, not a folder" if data_dir.exists() else "no such folder"
        raise InputError(f"data_dir {data_dir}: {problem}")
    if (data_dir / "Data").is_dir():
        return data_dir
    if data_dir.name == "Data":
        return data_dir.parent
    raise InputError(f"data_dir {data_dir}: no Data folder (expected a copy of {REPOSITORY})")


def cache_root() -> Path:
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tom-eval"


def cache_folder(subset: Subset, base_url: str) -> Path:
    """Named by the pinned commit; a copy from another URL is kept apart, by its digest."""
    key = COMMIT if base_url == DEFAULT_URL else f"url-{_digest(base_url.encode())[:16]}"
    return cache_root() / "act-on-known" / key / subset.name


def cached(subset: Subset, base_url: str, check: Check) -> Path:
    """The folder holding `subset`, downloaded from `base_url` and checked by `check` the
    first time (staged, then renamed into place, so a failed download leaves nothing)."""
    final = cache_folder(subset, base_url)
    if not final.exists():
        try:
            staging = _staging_folder(final.parent, prefix=f".{subset.name}-")
        except OSError as error:
            raise InputError(
                f"cannot write the cache {final.parent}: {error.strerror} "
                f"(set {CACHE_VARIABLE}, or {LOCAL_HINT})"
            ) from None
        try:
            download(subset, base_url, staging)
            if not verify_published(staging, subset, base_url, "nothing was cached"):
                logger.warning(
                    f"{subset.name}: no published checksums ship with this tom-eval "
                    f"({PUBLISHED} lists none): the download from {base_url} is trusted on "
                    "first use"
                )
            check(staging, base_url)
            write_manifest(staging, subset.names())
            _move_into_place(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            _remove_if_empty(final.parent)
    redo = f"delete {final} to download again"
    verify(final, subset, complete=True)
    verify_published(final, subset, str(final), redo)
    return final


def _staging_folder(parent: Path, prefix: str, attempts: int = 3) -> Path:
    """A new folder in `parent` (made with its parents) to download into. Another process
    whose first download failed removes the empty `parent` (`_remove_if_empty`); when it
    does so between the two steps here, they are taken again."""
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    except FileNotFoundError:
        if attempts == 1:
            raise
        return _staging_folder(parent, prefix, attempts - 1)


def _remove_if_empty(folder: Path) -> None:
    """A failed first download leaves no empty folders of its own behind (the cache's root
    stays; a folder holding a copy, or another process's download, is kept)."""
    with contextlib.suppress(OSError):
        folder.rmdir()
        folder.parent.rmdir()


def _move_into_place(staging: Path, final: Path) -> None:
    """Atomic; when another process finished the same download first, its copy stays."""
    try:
        staging.rename(final)
    except OSError:
        if not final.exists():
            raise


def download(subset: Subset, base_url: str, target: Path) -> None:
    """Every file of `subset` into `target`. The first file alone, so that a missing
    network fails at once; the rest concurrently, stopping at the first failure."""
    first, *rest = subset.names()
    _save(target, first, fetch(f"{base_url}/{first}"))
    with ThreadPoolExecutor(CONNECTIONS) as pool:
        futures = {pool.submit(fetch, f"{base_url}/{name}"): name for name in rest}
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = [future for future in done if future.exception() is not None]
        if failed:
            pool.shutdown(cancel_futures=True)
            failed[0].result()
        for future, name in futures.items():
            _save(target, name, future.result())


def fetch(url: str) -> bytes:
    """The body at `url`; any network or HTTP failure is one InputError naming the URL."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as error:
        raise InputError(
            f"cannot download {url}: HTTP {error.code} {error.reason} "
            f"(check {URL_VARIABLE}; {LOCAL_HINT})"
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise InputError(f"cannot download {url}: {reason} (no network? {LOCAL_HINT})") from None


def _save(target: Path, name: str, body: bytes) -> None:
    path = target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


def manifest_lines(root: Path, names: list[str]) -> str:
    """`sha256sum` lines of the files `names` under `root`."""
    return "".join(f"{_digest((root / name).read_bytes())}  {name}\n" for name in names)


def write_manifest(root: Path, names: list[str]) -> None:
    (root / MANIFEST).write_text(manifest_lines(root, names), encoding="utf-8")


def read_manifest(root: Path) -> dict[str, str]:
    """name -> sha256 hex digest."""
    manifest = root / MANIFEST
    return parse_manifest(read_user_text(manifest), str(manifest))


def parse_manifest(text: str, where: str) -> dict[str, str]:
    """name -> sha256 hex digest of `sha256sum` lines; lines starting with # are comments."""
    entries: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"([0-9a-f]{64}) [ *](.+)", line.strip())
        if not match:
            raise InputError(f"{where}, line {number}: not '<sha256>  <file>'")
        entries[match.group(2)] = match.group(1)
    return entries


def published_digests() -> dict[str, str]:
    """The published checksums shipped with tom-eval (empty until they are written)."""
    text = (resources.files(__package__) / PUBLISHED).read_text(encoding="utf-8")
    return parse_manifest(text, PUBLISHED)


def verify_published(root: Path, subset: Subset, origin: str, redo: str) -> bool:
    """Every file of `subset` under `root` has its published checksum (the files named
    after `origin` in errors); False when none is published for the subset."""
    published = {name: digest for name, digest in published_digests().items() if subset.owns(name)}
    if not published:
        return False
    for name in subset.names():
        if name not in published:
            raise InputError(f"{origin}/{name}: not in the published {PUBLISHED}; {redo}")
        if _digest((root / name).read_bytes()) != published[name]:
            raise InputError(
                f"{origin}/{name}: not the authors' file at commit {COMMIT[:12]} (its sha256 "
                f"differs from the published {PUBLISHED}); {redo}"
            )
    return True


def verify(root: Path, subset: Subset, complete: bool) -> None:
    """Every file of `subset` listed in the manifest is present with its checksum and every
    such file present is listed; with `complete`, all of the subset's files are listed."""
    manifest = root / MANIFEST
    listed = {name: digest for name, digest in read_manifest(root).items() if subset.owns(name)}
    redo = f"delete {root} to download again" if complete else "restore the copy"
    if complete and sorted(listed) != sorted(subset.names()):
        raise InputError(
            f"{manifest}: lists {len(listed)} {subset.name} files, expected "
            f"{len(subset.names())}; {redo}"
        )
    for name in _present(root, subset):
        if name not in listed:
            raise InputError(f"{root / name}: not in {manifest}")
    for name, digest in listed.items():
        path = root / name
        if not path.is_file():
            raise InputError(f"{path}: missing (listed in {manifest}); {redo}")
        if _digest(path.read_bytes()) != digest:
            raise InputError(f"{path}: checksum mismatch with {manifest}; {redo}")


def _present(root: Path, subset: Subset) -> Iterator[str]:
    for folder in subset.folders:
        for number, _ in folder.files(root):
            yield folder.name(number)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
