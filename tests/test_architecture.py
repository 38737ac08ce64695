"""The layout is the architecture (docs/architecture.md): checked from the imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

TASK_PACKAGES = ("game", "false_belief", "coherence", "knowledge")
SHARED_NAMES = ("prompts", "parsing", "dataset", "players", "report")
"""Modules every evaluation package has, with the same role everywhere."""
CORE = {
    "game": (
        "world epistemics rules decisions oracle narration spec mastery generation ladder "
        "span validation scenario_file checking turn trial full_game session recorded_runs "
        "prompts parsing"
    ),
    "false_belief": "items generation item_file prompts parsing",
    "coherence": "worlds rational metrics prior prompts parsing agents",
    "knowledge": "records source manifest prompts parsing",
}
"""The Inspect-free core of each package: the engine, its prompts and its parsing."""
TOP = {
    "__init__",
    "boxed",
    "cli",
    "errors",
    "files",
    "intervals",
    "json_fields",
    "probabilities",
    "progress",
    "refusal",
    "registry",
    "sampling",
    "task_args",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Every module of tom_eval, tasks and scorers, and the project modules it imports
    anywhere in its body (in functions too)."""
    files = [p for top in ("tom_eval", "tasks", "scorers") for p in (ROOT / top).rglob("*.py")]
    modules = {module_name(path): path for path in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = {target for target in found if target in modules and target != name}
    return graph


def assert_acyclic(graph: dict[str, set[str]]) -> None:
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for target in sorted(graph.get(node, set())):
            if state.get(target) == "open":
                cycle = [*path[path.index(target) :], target]
                raise AssertionError(f"import cycle: {' -> '.join(cycle)}")
            if target not in state:
                visit(target, [*path, target])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def package(module: str) -> str:
    """`tom_eval.game` for `tom_eval.game.world`; a top-level module or folder as it is."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "tom_eval" else parts[0]


def test_no_module_imports_itself_back() -> None:
    assert_acyclic(imports())


def test_no_package_imports_itself_back() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in imports().items():
        outside = {package(target) for target in targets} - {package(module)}
        packages.setdefault(package(module), set()).update(outside)
    assert_acyclic(packages)


def test_the_report_knows_no_task() -> None:
    graph = imports()
    report = [module for module in graph if module.startswith("tom_eval.report")]
    for module in report:
        tasks = [t for t in graph[module] if t.split(".")[1] in (*TASK_PACKAGES, "study")]
        assert not tasks, f"{module} imports {tasks}"


def test_the_top_holds_packages_and_the_shared_modules() -> None:
    modules = {path.stem for path in (ROOT / "tom_eval").glob("*.py")}
    assert modules == TOP
    packages = {path.parent.name for path in (ROOT / "tom_eval").glob("*/__init__.py")}
    assert packages == {*TASK_PACKAGES, "providers", "report", "study"}


def test_every_evaluation_has_the_same_shape() -> None:
    for package in TASK_PACKAGES:
        present = {path.stem for path in (ROOT / "tom_eval" / package).glob("*.py")}
        missing = set(SHARED_NAMES) - present
        assert not missing, f"tom_eval/{package} lacks {sorted(missing)}"
        assert set(CORE[package].split()) <= present


def test_the_cores_are_inspect_free() -> None:
    modules = [
        f"tom_eval.{package}.{name}" for package, names in CORE.items() for name in names.split()
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "    assert 'inspect_ai' not in sys.modules, name\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]


def test_no_module_defines_a_name_twice() -> None:
    """A module-level name bound twice silently replaces the first (ruff flags it only for
    imports and functions): a second `_MOVE_VERB` in the answer reader once changed
    readings far from where it was written."""
    files = [p for top in ("tom_eval", "tasks", "scorers") for p in (ROOT / top).rglob("*.py")]
    twice = []
    for path in files:
        bound: list[str] = []
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign):
                bound += [target.id for target in node.targets if isinstance(target, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                bound.append(node.target.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.append(node.name)
        twice += [f"{module_name(path)}.{name}" for name in set(bound) if bound.count(name) > 1]
    assert not twice


def test_every_scorer_loads_from_its_file() -> None:
    """`inspect score LOG --scorer scorers/tom.py@tom_scorer` loads the file as a module that
    `sys.modules` does not hold, where a dataclass of the file cannot read its own annotations
    (it failed so): each scorer file loads and makes its scorers the way Inspect does."""
    from inspect_ai._eval.loader import scorer_from_spec
    from inspect_ai.scorer._scorer import ScorerSpec

    made = []
    for path in sorted((ROOT / "scorers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in tree.body:
            if isinstance(function, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", "") == "scorer"
                for d in function.decorator_list
            ):
                spec = ScorerSpec(scorer=f"{path}@{function.name}")
                made.append(scorer_from_spec(spec, task_path=None))
    assert len(made) >= 7
