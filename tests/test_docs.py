"""The documentation's commands work: every command of README.md, CHANGELOG.md and docs/*.md
that needs no network, no API key and no person runs, on small sizes, and exits as its page
says (`documented_commands` finds, shrinks and runs them; `conftest.page_results` starts them
with the session, beside the other tests). A test per command reports its result.
"""

from __future__ import annotations

import re
from concurrent.futures import Future
from pathlib import Path

import pytest
from documented_commands import PAGES, PARAMS, RUNS, Command, Result

from conftest import ROOT


def matches(expected: tuple[str, ...], output: str) -> bool:
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    if len(lines) != len(expected):
        return False
    patterns = [
        ".*".join(re.escape(part) for part in line.rstrip().split("...")) for line in expected
    ]
    return all(re.fullmatch(p, line) for p, line in zip(patterns, lines, strict=True))


@pytest.mark.parametrize("command", PARAMS)
def test_the_documented_command_works(
    command: Command, page_results: dict[str, Future[dict[Command, Result]]]
) -> None:
    result = page_results[command.page].result()[command]
    tail = "\n".join(result.output.splitlines()[-30:])
    assert result.code == command.exit_code, (
        f"{command.page} line {command.line}: `{result.command}` exited {result.code}, "
        f"not {command.exit_code}:\n{tail}"
    )
    if command.output:
        assert matches(command.output, result.output), (
            f"{command.page} line {command.line}: `{result.command}` printed\n{result.output}\n"
            "not\n" + "\n".join(command.output)
        )


def test_the_pages_have_commands_to_run() -> None:
    assert set(RUNS) >= {"README.md", "docs/game.md", "docs/knowledge.md", "docs/reports.md"}


def test_the_docs_name_no_file_a_clone_lacks() -> None:
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for name in ("../shared", "REFERENCE_NOTES", "TOM_GAME"):
            assert name not in text, f"{page} mentions {name}"


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_the_docs_links_resolve() -> None:
    for page in PAGES:
        path = ROOT / page
        text = path.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            linked = (path.parent / target) if target else path
            assert linked.exists(), f"{page} links to missing {target}"
            if anchor:
                assert anchor in anchors(linked), f"{page} links to missing {target}#{anchor}"
