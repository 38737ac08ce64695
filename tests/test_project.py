"""The project's own promises: CI runs the README's test command verbatim."""

from __future__ import annotations

import re

from conftest import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    set_up = text[text.index("## Set-up") :]
    blocks = re.findall(r"```bash\n(.*?)```", set_up, re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    (test_command,) = [command for command in readme_commands()[:2] if command.endswith("pytest")]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_the_readme_set_up_is_two_commands() -> None:
    main_job, tests = readme_commands()[:2]
    assert "inspect eval tasks/tom.py --model gguf/smollm2" in main_job
    assert main_job.startswith("python3 -m venv")
    assert tests.endswith("pytest") and "'.[dev," in tests
