"""The Act-on-Known data: reading the files and their quirks, the local copy and its
manifest, and the download into the cache from a local web server standing in for GitHub
(checksums, a missing file, a bad file, no network; nothing half-written)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from inspect_ai._util.error import PrerequisiteError
from knowledge_support import FIXTURES, QUIRKS, metrics, scripted, serve

from conftest import ROOT, inspect_eval
from tasks.knp import knp
from tom_eval.errors import InputError
from tom_eval.knowledge import manifest, source
from tom_eval.knowledge.dataset import DATA_DIGEST
from tom_eval.knowledge.records import (
    gold_span,
    knowledge_place,
    read_ikd,
    read_knp,
    tagged_spans,
)
from tom_eval.knowledge.source import (
    COMMIT,
    DEFAULT_URL,
    KNP_FILES,
    MANIFEST,
    Folder,
    Subset,
    cache_folder,
    data_root,
)

SMALL_KNP = Subset("KNP", (Folder("Data/KNP", "qa_", 6),))
"""The fixture's six KNP files, as if they were the whole subset."""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(source.CACHE_VARIABLE, str(folder))
    return folder


def copy_of_fixtures(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES, tmp_path / "copy"))


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def refused_download(
    served: Path, subset: Subset, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str]:
    """(the URL `served` was at, the one-line error) of a download that fails."""
    with serve(served) as url:
        monkeypatch.setenv(source.URL_VARIABLE, url)
        with pytest.raises(InputError) as raised:
            data_root(subset, None, read_knp)
    return url, str(raised.value)


def leftovers(cache: Path) -> list[str]:
    return sorted(str(path.relative_to(cache)) for path in cache.rglob("*") if path.is_file())


# ---------------------------------------------------------------------------- reading


def test_the_knp_fixture_reads_as_items() -> None:
    items = read_knp(FIXTURES, "fixtures").items
    assert [item.number for item in items] == [1, 2, 3, 4, 5, 6]
    assert [item.genre for item in items] == ["fantasy"] * 2 + ["kids"] * 2 + ["mystery", "romance"]
    assert items[2].answer_without_knowledge.startswith("Look in the kitchen cupboards")


def test_a_repeated_record_is_read_once_and_named(caplog: pytest.LogCaptureFixture) -> None:
    """The authors' qa_72.json is byte-identical to qa_18.json; the quirks fixture's qa_4
    to its qa_2."""
    data = read_knp(QUIRKS, "quirks")
    assert [item.number for item in data.items] == [1, 2, 3]
    assert data.duplicates == {"Data/KNP/qa_4.json": "Data/KNP/qa_2.json"}
    assert read_knp(FIXTURES, "fixtures").duplicates == {}
    task = knp(data_dir=str(QUIRKS))
    assert len(task.dataset) == 3
    assert task.metadata is not None and task.metadata["distinct_records"] == 3
    assert task.metadata["duplicates"] == data.duplicates
    assert "1 file(s) repeat another file's record and are read once" in caplog.text
    assert "Data/KNP/qa_4.json = Data/KNP/qa_2.json); 3 distinct records" in caplog.text


def test_where_the_knowledge_stands_relative_to_the_error() -> None:
    story = "Ann hid the key. Bob took the key. Cal saw it. \u2018Bob\u2019 left."
    assert knowledge_place(story, "Ann hid the key.", "Bob took the key.", "") == "before"
    assert knowledge_place(story, "cal  SAW it", "Bob took the key.", "") == "after"
    assert knowledge_place(story, "took the key. Cal", "Bob took", "") == "overlapping"
    assert knowledge_place(story, "'bob' left", "Nobody.", "Ann hid") == "after"
    assert knowledge_place(story, "Ann hid the key.", "Nobody.", "") == "in_story"
    assert knowledge_place(story, "Dee knew where the key was.", "Bob", "") == "not_verbatim"


def test_erroneous_stories_are_matched_to_originals_by_opening_not_by_number() -> None:
    data = read_ikd(FIXTURES, "fixtures")
    assert [story.number for story in data.originals] == [1, 2, 3]
    errors = {story.number: story for story in data.errors}
    assert {n: story.base_story for n, story in errors.items()} == {1: 3, 2: 1, 3: 2, 4: 1}
    # erroneous_story_1 has no genre of its own: its original's.
    assert errors[1].genre == "romance" and errors[3].genre == "kids"


def test_the_gold_span_prefers_a_verbatim_tagged_span_then_the_error_field() -> None:
    errors = {story.number: story for story in read_ikd(FIXTURES, "fixtures").errors}
    assert {n: story.gold_source for n, story in errors.items()} == {
        1: "tagged",
        2: "tagged",  # its error field is a paraphrase, not in the story
        3: "error_field",  # its tagged span differs from the story's words
        4: "none",  # empty error field and a malformed closing tag
    }
    assert errors[2].gold.startswith("Jonah said he had been reading by the fire")
    assert errors[4].gold == "" and "<error>" not in errors[4].event


def test_tagged_spans_and_the_fallbacks() -> None:
    assert tagged_spans("a <error>one</error> b <ERROR> two <error> c") == ["one", "two"]
    assert tagged_spans("<modified>changed</modified>") == ["changed"]
    assert gold_span("X said hi. Y left.", "<error>Y  left.</error>", "") == ("Y left.", "tagged")
    assert gold_span("Y went.", "<error>Y left.</error>", "Y went.") == ("Y went.", "error_field")
    assert gold_span("Z.", "<error>Y left.</error>", "") == ("Y left.", "tagged_not_verbatim")
    assert gold_span("Z.", "none", "Y went.") == ("Y went.", "error_field_not_verbatim")
    assert gold_span("Z.", "<error>Y</eror>", " ") == ("", "none")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "qa_3.json: not JSON (Expecting property name"),
        ('["a list"]', "qa_3.json: expected an object, got list"),
        ('{"genre": "kids"}', "qa_3.json: missing 'story'"),
    ],
)
def test_a_malformed_file_is_named_with_its_problem(
    tmp_path: Path, content: str, problem: str
) -> None:
    copy = copy_of_fixtures(tmp_path)
    (copy / KNP_FILES.name(3)).write_text(content)
    with pytest.raises(InputError, match=problem.replace("(", r"\(")):
        read_knp(copy, str(copy))


def test_an_unreadable_file_or_manifest_is_named(tmp_path: Path) -> None:
    copy = copy_of_fixtures(tmp_path)
    (copy / KNP_FILES.name(3)).write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match=r"qa_3\.json: not UTF-8 text"):
        read_knp(copy, str(copy))
    (copy / KNP_FILES.name(3)).unlink()
    (copy / KNP_FILES.name(3)).mkdir()
    with pytest.raises(InputError, match=r"qa_3\.json: cannot read \(Is a directory\)"):
        read_knp(copy, str(copy))
    (copy / MANIFEST).write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match=r"SHA256SUMS: not UTF-8 text"):
        data_root(source.KNP, copy, read_knp)


def test_an_item_whose_two_answers_agree_is_refused(tmp_path: Path) -> None:
    copy = copy_of_fixtures(tmp_path)
    path = copy / KNP_FILES.name(2)
    record = json.loads(path.read_text())
    record["answer_with_knowledge"] = record["answer_without_knowledge"].upper()
    path.write_text(json.dumps(record))
    with pytest.raises(InputError, match=r"qa_2\.json: the two answers are the same"):
        read_knp(copy, str(copy))


# ------------------------------------------------------------------------- local copies


def test_a_local_copy_is_the_repository_or_its_data_folder(tmp_path: Path) -> None:
    assert data_root(source.KNP, FIXTURES, read_knp) == (FIXTURES, str(FIXTURES))
    assert data_root(source.KNP, FIXTURES / "Data", read_knp)[0] == FIXTURES
    with pytest.raises(InputError, match="no such folder"):
        data_root(source.KNP, tmp_path / "absent", read_knp)
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="file: a file, not a folder"):
        data_root(source.KNP, tmp_path / "file", read_knp)
    with pytest.raises(InputError, match="no Data folder"):
        data_root(source.KNP, tmp_path, read_knp)
    (tmp_path / "Data").mkdir()
    with pytest.raises(InputError, match=r"no Data/KNP/qa_N\.json files"):
        read_knp(tmp_path, str(tmp_path))


def test_a_local_copy_with_a_manifest_is_verified(tmp_path: Path) -> None:
    copy = copy_of_fixtures(tmp_path)
    source.write_manifest(copy, SMALL_KNP.names())
    assert data_root(source.KNP, copy, read_knp)[0] == copy
    (copy / KNP_FILES.name(4)).write_text("{}")
    with pytest.raises(InputError, match=r"qa_4\.json: checksum mismatch with .*SHA256SUMS"):
        data_root(source.KNP, copy, read_knp)
    (copy / KNP_FILES.name(4)).unlink()
    with pytest.raises(InputError, match=r"qa_4\.json: missing \(listed in"):
        data_root(source.KNP, copy, read_knp)
    (copy / KNP_FILES.name(9)).write_text("{}")
    with pytest.raises(InputError, match=r"qa_9\.json: not in .*SHA256SUMS"):
        data_root(source.KNP, copy, read_knp)
    (copy / MANIFEST).write_text("not a checksum line\n")
    with pytest.raises(InputError, match=r"SHA256SUMS, line 1: not '<sha256>  <file>'"):
        data_root(source.KNP, copy, read_knp)


# ----------------------------------------------------------------------------- download


def test_the_default_cache_is_named_by_the_pinned_commit(cache: Path) -> None:
    assert cache_folder(source.IKD, DEFAULT_URL) == cache / "act-on-known" / COMMIT / "IKD"
    assert DEFAULT_URL.endswith(f"/{source.REPOSITORY}/{COMMIT}")
    # Another URL's copy is kept apart.
    assert cache_folder(source.IKD, "file:///x").parent.name.startswith("url-")


def test_a_download_is_cached_with_its_manifest_and_verified_later(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve(FIXTURES) as url:
        monkeypatch.setenv(source.URL_VARIABLE, url)
        root, origin = data_root(SMALL_KNP, None, read_knp)
    assert origin == url and root == cache_folder(SMALL_KNP, url)
    assert leftovers(cache) == sorted(
        [str(root.relative_to(cache) / name) for name in SMALL_KNP.names()]
        + [str(root.relative_to(cache) / MANIFEST)]
    )
    assert (root / KNP_FILES.name(1)).read_bytes() == (FIXTURES / KNP_FILES.name(1)).read_bytes()
    # The server is gone: the cache serves.
    assert data_root(SMALL_KNP, None, read_knp)[0] == root
    (root / KNP_FILES.name(5)).write_bytes(b"{}")
    with pytest.raises(InputError) as raised:
        data_root(SMALL_KNP, None, read_knp)
    assert str(raised.value) == (
        f"{root / KNP_FILES.name(5)}: checksum mismatch with {root / MANIFEST}; "
        f"delete {root} to download again"
    )


def test_a_file_missing_upstream_leaves_nothing_in_the_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    larger = Subset("KNP", (Folder("Data/KNP", "qa_", 7),))
    url, message = refused_download(FIXTURES, larger, monkeypatch)
    assert message == (
        f"cannot download {url}/Data/KNP/qa_7.json: HTTP 404 File not found "
        f"(check {source.URL_VARIABLE}; -T data_dir=DIR reads a local copy)"
    )
    assert not list(cache.rglob("*"))  # not even an empty folder


def test_a_malformed_download_is_refused_and_not_cached(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = copy_of_fixtures(tmp_path)
    (copy / KNP_FILES.name(6)).write_text("{")
    url, message = refused_download(copy, SMALL_KNP, monkeypatch)
    assert message.startswith(f"{url}/Data/KNP/qa_6.json: not JSON")
    assert not list(cache.rglob("*"))  # not even an empty folder


def test_a_cache_folder_removed_by_another_process_is_made_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another process's failed first download removes the empty folder (its clean-up)
    # just after this one made it: the folder is made again and the download goes on.
    make_folder = tempfile.mkdtemp

    def removed_first(prefix: str, dir: str) -> str:
        monkeypatch.setattr(tempfile, "mkdtemp", make_folder)
        Path(dir).rmdir()
        return make_folder(prefix=prefix, dir=dir)

    monkeypatch.setattr(tempfile, "mkdtemp", removed_first)
    with serve(FIXTURES) as url:
        monkeypatch.setenv(source.URL_VARIABLE, url)
        root, _ = data_root(SMALL_KNP, None, read_knp)
    assert (root / MANIFEST).is_file()


def test_no_network_says_so_in_one_line(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv(source.URL_VARIABLE, url)
    with pytest.raises(PrerequisiteError) as raised:
        knp()
    message = str(raised.value.message)
    assert message.startswith(f"knp: cannot download {url}/Data/KNP/qa_1.json: ")
    assert message.endswith("Connection refused (no network? -T data_dir=DIR reads a local copy)")
    assert not list(cache.rglob("*"))  # not even an empty folder


def test_a_cache_that_cannot_be_written_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv(source.CACHE_VARIABLE, str(tmp_path / "file"))
    with pytest.raises(InputError, match=r"^cannot write the cache .*file/act-on-known/"):
        data_root(SMALL_KNP, None, read_knp)


def test_the_command_line_prints_one_line_and_fails(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    env = os.environ | {
        source.URL_VARIABLE: url,
        source.CACHE_VARIABLE: str(tmp_path / "cache"),
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "400",
    }
    inspect = Path(sys.executable).parent / "inspect"
    command = [str(inspect), "eval", "tasks/knp.py", "--model", "mockllm/model"]
    done = subprocess.run(
        [*command, "--log-dir", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    [line] = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    assert line.startswith(f"knp: cannot download {url}/Data/KNP/qa_1.json")


def test_the_task_downloads_the_whole_subset_and_runs(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fake repository of 500 distinct KNP files (the fixture's six, numbered) over HTTP."""
    fake = tmp_path / "fake"
    fixtures = [json.loads((FIXTURES / KNP_FILES.name(n)).read_text()) for n in range(1, 7)]
    for number in range(1, KNP_FILES.count + 1):
        path = fake / KNP_FILES.name(number)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = fixtures[number % 6] | {
            "question": f"{fixtures[number % 6]['question']} ({number})"
        }
        path.write_text(json.dumps(record))
    with serve(fake) as url:
        monkeypatch.setenv(source.URL_VARIABLE, url)
        task = knp()
    assert len(task.dataset) == 500
    assert len(leftovers(cache)) == 501
    (log,) = inspect_eval(
        task,
        model=scripted(lambda prompt: "Answer: A"),
        limit=4,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    metadata = log.eval.metadata or {}
    assert re.fullmatch("[0-9a-f]{64}", metadata.pop(DATA_DIGEST))
    assert metadata == {"source": url, "distinct_records": 500, "duplicates": {}}
    assert metrics(log, "invalid")["mean"] == 0.0


# ------------------------------------------------------------------- published checksums


def digests_of(root: Path, subset: Subset) -> dict[str, str]:
    return source.parse_manifest(source.manifest_lines(root, subset.names()), "test")


def test_the_shipped_checksums_list_every_file_or_none() -> None:
    """Filled from a clone (never by hand), the list is complete; until then it is empty
    and says why."""
    published = source.published_digests()
    assert published == {} or sorted(published) == sorted(source.KNP.names() + source.IKD.names())
    assert COMMIT == "ffae95d4a4032207ffbacaba1eb573284cd551da"


def test_a_download_is_verified_against_the_published_checksums(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(source, "published_digests", lambda: digests_of(FIXTURES, SMALL_KNP))
    tampered = copy_of_fixtures(tmp_path)
    record = json.loads((tampered / KNP_FILES.name(3)).read_text())
    (tampered / KNP_FILES.name(3)).write_text(json.dumps(record | {"genre": "romance"}))
    url, message = refused_download(tampered, SMALL_KNP, monkeypatch)
    assert message == (
        f"{url}/Data/KNP/qa_3.json: not the authors' file at commit {COMMIT[:12]} (its "
        "sha256 differs from the published act-on-known.sha256); nothing was cached"
    )
    assert not list(cache.rglob("*"))  # not even an empty folder
    with serve(FIXTURES) as url:
        monkeypatch.setenv(source.URL_VARIABLE, url)
        root, _ = data_root(SMALL_KNP, None, read_knp)
    assert "trusted on first use" not in caplog.text
    # A cache edited along with its own SHA256SUMS is still caught, at every load.
    (root / KNP_FILES.name(2)).write_text("{}")
    source.write_manifest(root, SMALL_KNP.names())
    with pytest.raises(InputError, match=r"/Data/KNP/qa_2\.json: not the authors' file at"):
        data_root(SMALL_KNP, None, read_knp)


def test_without_published_checksums_the_first_download_is_trusted_with_a_warning(
    cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(source, "published_digests", dict)
    with serve(FIXTURES) as url:
        monkeypatch.setenv(source.URL_VARIABLE, url)
        data_root(SMALL_KNP, None, read_knp)
    assert f"the download from {url} is trusted on first use" in caplog.text


def fake_clone(folder: Path) -> Path:
    """A git repository in the authors' layout with 1,500 distinct files made from ours."""
    bases = {
        subset_folder: [json.loads(path.read_text()) for _, path in subset_folder.files(FIXTURES)]
        for subset in (source.KNP, source.IKD)
        for subset_folder in subset.folders
    }
    for subset_folder, records in bases.items():
        for number in range(1, subset_folder.count + 1):
            record = dict(records[number % len(records)])
            record["story"] = f"{record['story']} ({number})"
            path = folder / subset_folder.name(number)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record))
    for command in (["init", "-q"], ["add", "Data"], ["commit", "-qm", "data"]):
        subprocess.run(
            ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *command],
            check=True,
        )
    return folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_published_checksums_are_written_from_a_clone_at_the_pinned_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = fake_clone(tmp_path / "clone")
    out = tmp_path / "act-on-known.sha256"
    assert manifest.main([str(clone), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"tom_eval.knowledge.manifest: error: {clone}: at commit "
        f"{manifest._git(clone, 'rev-parse', 'HEAD')}, not {COMMIT}; check that commit out\n"
    )
    monkeypatch.setattr(manifest, "COMMIT", manifest._git(clone, "rev-parse", "HEAD"))
    (clone / KNP_FILES.name(7)).write_text("{}")
    assert manifest.main([str(clone), "--out", str(out)]) == 2
    assert "Data differs from the commit" in capsys.readouterr().err
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "Data"], check=True)
    assert manifest.main([str(clone), "--out", str(out)]) == 0
    assert not out.with_name(f".{out.name}").exists() and not list(tmp_path.glob(".act-*"))
    written = source.parse_manifest(out.read_text(), str(out))
    assert sorted(written) == sorted(source.KNP.names() + source.IKD.names())
    assert written[KNP_FILES.name(7)] == digests_of(clone, source.KNP)[KNP_FILES.name(7)]
    assert out.read_text().startswith("# The sha256 of each of the 1,500 data files")
