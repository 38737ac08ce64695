"""The project's own promises: CI runs the README's test command verbatim."""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import pytest
import yaml

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


def test_the_register_entry_names_every_task_with_its_samples() -> None:
    """eval.yaml: every task file, and the default sample counts of the tasks that build
    their samples offline (KNP and IKD download theirs: 500 and 1,000 in the paper)."""
    from tasks.coherence import coherence
    from tasks.false_belief import false_belief
    from tasks.tom import VERSION, tom

    entry = yaml.safe_load((ROOT / "eval.yaml").read_text())
    listed = {task["name"]: task for task in entry["tasks"]}
    assert {Path(task["file"]).stem for task in entry["tasks"]} == {
        path.stem for path in (ROOT / "tasks").glob("*.py") if path.stem != "__init__"
    }
    for name, build in (("tom", tom), ("false_belief", false_belief), ("coherence", coherence)):
        assert len(build().dataset) == listed[name]["dataset_samples"], name
    assert entry["version"] == VERSION
    assert {"title", "description", "group", "contributors", "version"} <= set(entry)


@pytest.mark.parametrize(
    "script",
    sorted(
        path.name
        for path in (ROOT / "benchmarks").glob("*.py")
        if path.name not in ("measure.py", "trivial_task.py")  # a module and a task, no CLI
    ),
)
def test_every_benchmark_prints_its_usage(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/development.md promises `--help` on each script: a usage line and a whole
    sentence saying what it measures, not its first line cut short."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    monkeypatch.setattr(sys, "argv", [script, "--help"])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(ROOT / "benchmarks" / script), run_name="__main__")
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: {script}")
    description = text.split("\n\n")[1]
    assert description.rstrip().endswith((".", ")", ":")), description
