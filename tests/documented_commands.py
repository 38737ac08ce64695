"""The documentation's commands: every command of README.md, CHANGELOG.md and docs/*.md that
needs no network, no API key and no person, found, made small and run (`tests/test_docs.py`
checks their results).

Commands come from the fenced `bash`, `sh` and `console` blocks (docs/development.md, "The
documentation test", describes the conventions). Each page's commands run in order, in a
folder of their own that links to the repository's tasks, scorers, scenarios, tests and
benchmarks, so that relative paths work and nothing is written into the repository.
`conftest.page_results` starts them with the session, in the background.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    "README.md",
    "CHANGELOG.md",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
]
BIN = Path(sys.executable).parent
LINKED = ("tasks", "scorers", "scenarios", "tests", "benchmarks")
RUN = ("inspect eval", "inspect score", "tom-eval ", "python benchmarks/")
"""Commands the test runs; anything else in a block (pip, pytest, ruff, inspect view) is
set-up or tooling, not a documented result."""
LOCAL_MODELS = ("tom/", "gguf/")
TIMEOUT = 600

BENCHMARK_SIZES = {
    "reference_players.py": "--reps 1 --limit 2",
    "full_games.py": "--games 1 --turns 4",
    "generate_and_check.py": "--runs 1 --scales 1",
    "harness_overhead.py": "--runs 1 --reps 1",
    "garbage_collection.py": "--runs 1 --reps 1",
    "latency_hiding.py": "--latency 0.01 --connections 1 --runs 1",
    # One sample, idle and beside its two busy processes, the provider's defaults only.
    "local_contention.py": "--limit 1 --runs 1 --settings ''",
    "token_costs.py": "--reps 1 --limit 2",
    "surface_cues.py": "",
    "parser_agreement.py": "",
    "load_curves.py": "--reps 1 --ids 12 --levels 0,2",
    # Two participants, and no second export of another revision (an empty --against).
    "study_export.py": "--participants 2 --against ''",
    "edited_logs.py": "--kinds knp --values text",
    "reader_speed.py": "--sizes 1000,2000 --runs 1",
}
"""What makes each benchmark script small (argparse takes the last value of an option)."""
COMPARES_MODELS = {
    "reference_players.py": "tom/random",
    "full_games.py": "tom/oracle",
    "load_curves.py": "tom/bounded:2",
}
"""Scripts that run one `inspect eval` per model of `--models`, and the model they keep."""


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    text: str
    """The command as the page writes it (continuation lines joined)."""
    exit_code: int = 0
    output: tuple[str, ...] = ()
    """Expected output lines (console blocks); `...` matches anything."""


def split_comment(line: str) -> tuple[str, str]:
    """A shell line without its trailing `# comment` (not inside quotes), and the comment."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def blocks(page: str) -> Iterator[tuple[str, int, list[str]]]:
    """Each fenced block of a page: its language, the line number of its first line, its
    lines."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        fence = re.fullmatch(r"```(\w*)\s*", lines[number])
        if not fence:
            number += 1
            continue
        end = next(i for i in range(number + 1, len(lines)) if lines[i].strip() == "```")
        yield fence.group(1), number + 2, lines[number + 1 : end]
        number = end + 1


def block_commands(page: str, language: str, first: int, lines: list[str]) -> list[Command]:
    console = language == "console"
    found: list[tuple[int, str, list[str]]] = []
    """Each command's line number, text and the output lines after it (console)."""
    parts: list[str] = []
    start = first
    for number, line in enumerate(lines, first):
        if not parts:
            if console and not line.startswith("$ "):
                if found:
                    found[-1][2].append(line)
                continue
            start, line = number, line.removeprefix("$ ") if console else line
        if line.rstrip().endswith("\\"):
            parts.append(line.rstrip()[:-1].strip())
            continue
        parts.append(line.strip())
        found.append((start, " ".join(parts), []))
        parts = []
    commands = []
    for number, text, output in found:
        command, comment = split_comment(text)
        code = re.search(r"exit code (\d+)", comment)
        if command:
            exit_code = int(code.group(1)) if code else 0
            commands.append(Command(page, number, command, exit_code, tuple(output)))
    return commands


def page_commands(page: str) -> list[Command]:
    """The commands of a page that the test runs (or skips with a reason)."""
    return [
        command
        for language, first, lines in blocks(page)
        if language in ("bash", "sh", "console")
        for command in block_commands(page, language, first, lines)
        if command.text.removeprefix(".venv/bin/").startswith(RUN)
    ]


def option_values(text: str, *names: str) -> list[str]:
    """The values of `--name value` and `--name=value` (quotes kept)."""
    pattern = rf"(?:{'|'.join(re.escape(n) for n in names)})[ =]('[^']*'|\"[^\"]*\"|\S+)"
    return re.findall(pattern, text)


def models_of(text: str) -> list[str]:
    models = [m for v in option_values(text, "--model", "--models") for m in v.split(",")]
    models += [v.split("=", 1)[-1] for v in option_values(text, "--model-role")]
    models += re.findall(r"model:\s*([^,}\s]+)", " ".join(option_values(text, "--model-spec")))
    return [m.strip("'\"") for m in models]


def skip_reason(command: Command, written_by_skipped: set[str]) -> str | None:
    text = command.text
    if re.search(r"<[^>]+>", text):
        return "has a placeholder to fill in"
    if "scenarios_standardized.json" in text:
        return "reads the reference implementation's scenarios_standardized.json, not in a clone"
    if "tom_llm_logs" in text:
        return "reads the reference implementation's recorded runs, not in a clone"
    paid = [m for m in models_of(text) if not m.startswith(LOCAL_MODELS)]
    if paid:
        return f"needs an API key ({', '.join(paid)})"
    if "tom/human" in models_of(text):
        return "a person types the replies (tests/test_human.py plays them from piped input)"
    if text.startswith("tom-eval serve"):
        return "serves until stopped (tests/test_study.py and test_study_browser.py run it)"
    if text.startswith("tom-eval export"):
        return "needs a study with participants (tests/test_study.py exports one)"
    if re.search(r"tasks/(knp|ikd)\.py", text) and "data_dir=" not in text:
        return "downloads the authors' data (network)"
    if "--sample-id" in text and any(m.startswith("gguf/") for m in models_of(text)):
        return "a real model on a fixed subset, too slow here (--limit cannot shorten --sample-id)"
    used = [
        path for path in written_by_skipped if re.search(rf"(^|\s){re.escape(path)}(\s|$)", text)
    ]
    if used:
        return f"reads {used[0]}, which a skipped command writes"
    return None


def small(text: str) -> str:
    """The command with options appended that make it small."""
    text = text.removeprefix(".venv/bin/")
    if text.startswith("python benchmarks/"):
        script = text.split()[1].removeprefix("benchmarks/")
        text = f"{text} {BENCHMARK_SIZES[script]}".rstrip()
        if script in COMPARES_MODELS:
            # One model of those compared: the last named (the model a command adds to the
            # reference players), else the script's own special case.
            named = option_values(text, "--models")
            text += f" --models {named[0].split(',')[-1] if named else COMPARES_MODELS[script]}"
        return text
    if not text.startswith("inspect eval"):
        return text
    if "tom/flaky" in models_of(text):
        text += " -M backoff=0"  # retry at once instead of Inspect's backoff from 3 s
    if re.search(r"\btasks/tom\.py|\btom_eval/tom\b", text):
        if "mode=game" in text:
            return f"{text} -T games=1 -T turns=4 --limit 1"
        if "--sample-id" not in text and "scenario_file=" not in text:
            text += " -T reps=1"  # (a scenario file is played as it is: reps is refused)
    if "--sample-id" in text:  # Inspect refuses --limit with --sample-id
        return text
    if any(m.startswith("gguf/") for m in models_of(text)):
        # A real model: one sample, and short replies where the task reads only their start.
        # One server thread: two pages run at once on two cores.
        short = "" if "tasks/coherence.py" in text else " --max-tokens 8"
        return f"{text} --limit 1{short} -M threads=1"
    return f"{text} --limit 2"


def collect() -> tuple[list[object], dict[str, list[Command]]]:
    """pytest params (one per command), and each page's commands to run, in order."""
    params: list[object] = []
    runs: dict[str, list[Command]] = {}
    benchmarks_seen: dict[str, str] = {}
    for page in PAGES:
        written_by_skipped: set[str] = set()
        for command in page_commands(page):
            reason = skip_reason(command, written_by_skipped)
            if reason is None and command.text.startswith("python benchmarks/"):
                first = benchmarks_seen.setdefault(command.text, page)
                if first != page:
                    reason = f"the same benchmark command runs for {first}"
            if reason is not None:
                written_by_skipped |= set(option_values(command.text, "--out", "--log-dir"))
            else:
                runs.setdefault(page, []).append(command)
            marks = [pytest.mark.skip(reason=f"{page}:{command.line}: {reason}")] if reason else []
            params.append(
                pytest.param(command, marks=marks, id=f"{page}:{command.line}:{command.text[:60]}")
            )
    return params, runs


PARAMS, RUNS = collect()


@dataclass(frozen=True)
class Result:
    command: str
    code: int
    output: str


def environment() -> dict[str, str]:
    """The environment the commands run in, taken when they start: a test that later sets a
    variable for itself (a download address, a data folder) does not reach them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")}
    return env | {"PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "PYTHONHASHSEED": "0"}


def run_page(
    commands: list[Command], folder: Path, environment: Mapping[str, str], stop: threading.Event
) -> dict[Command, Result]:
    """Each command's result, in order, until `stop` is set (the session ended early)."""
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    env = {**environment, "TOM_EVAL_CACHE": str(folder / "cache")}
    results = {}
    for command in commands:
        if stop.is_set():
            break
        text = small(command.text)
        try:
            done = subprocess.run(
                text,
                shell=True,
                executable="/bin/bash",
                cwd=folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=TIMEOUT,
            )
            results[command] = Result(text, done.returncode, done.stdout)
        except subprocess.TimeoutExpired as expired:
            partial = expired.output if isinstance(expired.output, str) else ""
            results[command] = Result(text, -1, f"timed out after {TIMEOUT} s\n{partial}")
    return results


def cost(page: str) -> float:
    """A rough guess of a page's run time, so that the longest pages start first."""
    seconds = {"gguf/": 20.0, "python benchmarks/": 12.0, "inspect": 4.0, "tom-eval": 1.0}
    return sum(
        next(v for k, v in seconds.items() if k in small(command.text)) for command in RUNS[page]
    )


def documented_command(item: pytest.Item) -> Command | None:
    """The documented command whose test `item` is, if it is one."""
    callspec = getattr(item, "callspec", None)
    command = callspec.params.get("command") if callspec is not None else None
    return command if isinstance(command, Command) else None


def is_command_test(item: pytest.Item) -> bool:
    return documented_command(item) is not None


def selected_pages(items: Sequence[pytest.Item]) -> list[str]:
    """The pages with a command whose test runs, the longest first."""
    wanted = {
        command.page
        for item in items
        if (command := documented_command(item)) and item.get_closest_marker("skip") is None
    }
    return sorted((page for page in RUNS if page in wanted), key=cost, reverse=True)
