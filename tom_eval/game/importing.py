"""`tom-eval import-runs`: runs recorded by the game's reference implementation as Inspect
logs, one per run, through Inspect's own machinery: the registered task (`tom_eval/tom`)
plays the reference's scenario file, and a replay provider (`reference/<model>`) gives the
recorded replies, so every imported sample is scored by the same scorer as a live run and
opens in Inspect View.

The replies were given to the reference's prompts (its rules text, no options, "respond
only with your action" or, in free-response runs, "respond with your action"), so they are
read in the `action` format. The reference never asked the model to answer: when A is the
answerer, the replay answers what the reference's simulation said A answered. Logs are
written to a hidden folder in `out` and moved in only when every run is imported, so a
failure leaves nothing half-written. A run already imported into `out` is skipped, so
importing again after adding runs imports only the new ones and counts none twice; a new
file of a run already imported is refused, since skipping it would lose its replies.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig, ModelUsage, get_model

from tom_eval.errors import InputError, all_logs, refuse_unless_regular
from tom_eval.files import writable_folder
from tom_eval.game.recorded_runs import RecordedRun, RecordedTrial, read_runs
from tom_eval.game.scenario_file import read_scenarios
from tom_eval.providers.base import Arg, LocalProvider, Reply, stop_eval, yes_no

REFERENCE_SCENARIOS = "scenarios_standardized.json"
TASK = "tom_eval/tom"


class ReplayPlayer(LocalProvider):
    """`reference/<model>`: the replies a run recorded, by sample. The model args say how
    the run was configured (they are recorded in the log, not used)."""

    PREFIX: ClassVar[str] = "reference"
    ARGS: ClassVar[Mapping[str, Arg]] = {"reasoning_enabled": Arg(None, yes_no)}
    reasoning_enabled: bool | None

    def setup(self) -> None:
        self.trials: dict[str, RecordedTrial] = {}

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        active = sample_active()
        if not self.trials and active is not None:  # `inspect eval --model reference/...`
            await stop_eval(
                f"{self.name}: replays a recorded run only through tom-eval import-runs"
            )
        trial = self.trials.get(str(active.sample.id)) if active else None
        if trial is None:
            raise RuntimeError(f"{self.name}: no recorded reply for this sample")
        answering = any(message.role == "assistant" for message in input)
        return Reply(trial.answer if answering else trial.reply)

    def usage(self, input: list[ChatMessage], reply: Reply) -> ModelUsage:
        """Replayed, not generated: no tokens (the reference did not record its usage)."""
        return ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)


def find_scenario_file(paths: Sequence[Path]) -> Path:
    """The reference's scenario file beside the runs (its repository keeps it in the folder
    above its logs), else a one-line error asking for --scenario-file."""
    for path in paths:
        folder = path if path.is_dir() else path.parent
        for candidate in (folder / REFERENCE_SCENARIOS, folder.parent / REFERENCE_SCENARIOS):
            if candidate.is_file():
                return candidate
    raise InputError(
        f"no {REFERENCE_SCENARIOS} beside {', '.join(map(str, paths))}: give the reference's "
        "scenario file with --scenario-file"
    )


def import_runs(
    paths: Sequence[Path],
    out: Path,
    scenario_file: Path | None = None,
    skip_bad: bool = False,
    progress: Callable[[str], None] = lambda line: None,
) -> tuple[list[Path], list[str]]:
    """One Inspect log per run in `out`, and what was skipped (with `skip_bad`);
    `progress` hears of each run as it is imported."""
    runs, skipped = read_runs(paths, skip_bad)
    writable_folder(out, create=False)
    imported = already_imported(out)
    for run in runs:
        if run.name in imported:
            log, files = imported[run.name]
            if added := [path for path in run.files if path.name not in files]:
                # Skipped, they would be lost; imported apart, the run would count twice.
                raise InputError(
                    f"{added[0]}: a file of run {run.name}, already imported in {out / log} "
                    f"from {', '.join(sorted(files))}: import all of the run's files together "
                    "into another folder (or delete that log)"
                )
            skipped.append(f"{run.name}: already imported in {log}")
    runs = [run for run in runs if run.name not in imported]
    if not runs:
        return [], skipped
    scenarios = scenario_file or find_scenario_file(paths)
    refuse_unless_regular(scenarios, "each run's replay reads it again")
    questions = {record.key: record.scenario.question for record in read_scenarios(scenarios)}
    playable = []
    for run in runs:
        problem = next(
            (found for trial in run.trials if (found := _mismatch(trial, questions, scenarios))),
            None,
        )
        if problem is None:
            playable.append(run)
        elif skip_bad:
            skipped.append(problem)
        else:
            raise InputError(problem)
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=out))
    except OSError as error:
        raise InputError(f"{out}: cannot write there ({error.strerror or error})") from None
    moved: list[Path] = []
    try:
        logs = []
        for number, run in enumerate(playable, start=1):
            started = time.monotonic()
            try:
                logs.append(_replay(run, scenarios, staging))
            except InputError as error:
                if not skip_bad:
                    raise
                skipped.append(str(error))
                continue
            seconds = time.monotonic() - started
            progress(
                f"{number}/{len(playable)} {run.name}: {len(run.trials)} replies, {seconds:.0f} s"
            )
        # Renames within `out`, which the staging folder's creation proved writable.
        moved = [log.replace(out / log.name) for log in logs]
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if created and not moved and not any(out.iterdir()):
            out.rmdir()
    return moved, skipped


def _mismatch(trial: RecordedTrial, questions: Mapping[str, str], scenarios: Path) -> str | None:
    """Why the trial's scenario in `scenarios` is not the one the run played, if it is not:
    missing, or asking about another container (a scenario file of another seed or tool
    reuses the keys with other stories)."""
    if trial.key not in questions:
        return f"{trial.source}: scenario {trial.key} is not in {scenarios}"
    recorded, ours = trial.question_container, questions[trial.key]
    if recorded is not None and recorded != ours:
        return (
            f"{trial.source}: scenario {trial.key} asked about the {recorded} in the run but "
            f"about the {ours} in {scenarios}: not the scenario file the run played"
        )
    return None


def already_imported(out: Path) -> dict[str, tuple[str, frozenset[str]]]:
    """The runs whose logs `out` already holds (by the run's name), with the log of each
    and the names of the run files it was imported from."""
    found: dict[str, tuple[str, frozenset[str]]] = {}
    if not out.is_dir():
        return found
    for info in list_eval_logs(str(out), recursive=False):
        try:
            metadata = read_eval_log(info.name, header_only=True).eval.metadata or {}
        except Exception:  # not a readable log: `tom-eval report` names it; not ours to judge
            continue
        imported = metadata.get("imported")
        if isinstance(imported, dict) and isinstance(imported.get("run"), str):
            files = frozenset(map(str, imported.get("files") or []))
            found[imported["run"]] = (Path(info.name).name, files)
    return found


def _replay(run: RecordedRun, scenarios: Path, log_dir: Path) -> Path:
    """Play the run's replies through the task; the log's path."""
    reasoning = run.reasoning
    model = get_model(
        run.model,
        config=GenerateConfig(**reasoning.config),
        memoize=False,
        **reasoning.model_args,
    )
    assert isinstance(model.api, ReplayPlayer)
    model.api.trials = {trial.key: trial for trial in run.trials}
    (log,) = all_logs(
        inspect_eval(
            TASK,
            task_args={
                "scenario_file": str(scenarios.resolve()),
                "response_format": "action",
                "lose": run.lose,
            },
            model=model,
            sample_id=[trial.key for trial in run.trials],
            log_dir=str(log_dir),
            display="none",
            metadata=_metadata(run),
        ),
        1,
    )
    if log.status != "success":
        error = log.error.message if log.error else log.status
        raise InputError(f"{run.files[0]}: the replay of run {run.name} failed ({error})")
    return Path(log.location)


def _metadata(run: RecordedRun) -> dict[str, Any]:
    agreed = sum(trial.was_optimal for trial in run.trials)
    return {
        "imported": {
            "run": run.name,
            "files": [path.name for path in run.files],
            "recorded": [time.isoformat() for time in run.recorded],
            "free_response": run.free_response,
            "reference_optimal": agreed / len(run.trials),
        }
    }
