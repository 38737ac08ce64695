"""The `tom-eval` command: generate, check and show scenario files; report on logs; serve
the web study and export its participants' logs; import the reference's recorded runs.

Bad input ends with one line on stderr naming the file, row or scenario, exit code 2,
and no output file; `check` exits 1 when a file disagrees with the engine.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from tom_eval.errors import InputError, refuse_unless_regular
from tom_eval.files import writable_folder
from tom_eval.game import checking
from tom_eval.game.epistemics import observe
from tom_eval.game.generation import generate
from tom_eval.game.narration import narrate, question_line
from tom_eval.game.scenario_file import read_scenarios, write_scenarios
from tom_eval.game.spec import (
    EXTRAS,
    check_mastery_ids,
    default_mastery_file,
    default_spec_file,
    id_ranges,
    parse_extras,
    parse_ids,
    read_mastery,
    read_spec,
    select_rows,
    selects_mastery,
)
from tom_eval.json_fields import INT64_RANGE, fits_int64

DEFAULT_OUT = Path("scenarios.jsonl")
TOKEN_VARIABLE = "TOM_EVAL_ADMIN_TOKEN"
"""The study's admin token, where `serve --admin-token` is not given."""


def path(text: str) -> Path:
    """A path argument: an empty one, which `Path` reads as the current folder (`--out ''`),
    is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is an empty path, which names nothing")
    return Path(text)


def file_path(text: str) -> Path:
    """A path argument naming a file to write: one ending in a slash, `/.` or `/..` names a
    folder (`Path` drops the slash and the dot, and would write a file of the folder's name)."""
    if os.path.basename(text) in ("", ".", "..") and text.strip():
        raise argparse.ArgumentTypeError(f"{text}: a folder's name; give a file name")
    return path(text)


def seed(text: str) -> int:
    """A seed argument: a whole number a log's 64-bit columns hold, as `-T seed=` takes (a
    file generated with a larger one could not be run)."""
    number = int(text)  # argparse reports a ValueError as an invalid seed value
    if not fits_int64(number):
        raise argparse.ArgumentTypeError(f"seed must be {INT64_RANGE}, not {text}")
    return number


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _generate(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    _refuse_overwriting_inputs(
        args.out, args.spec or default_spec_file(), args.mastery or default_mastery_file()
    )
    spec = read_spec(args.spec)
    mastery = read_mastery(args.mastery)
    if args.mastery is not None or selects_mastery(args.ids):
        check_mastery_ids(mastery, spec, args.mastery)
    ids = parse_ids(args.ids, [row.id for row in spec], mastery.mastery_ids)
    rows = select_rows(spec, ids, parse_extras(args.extras), args.spec or default_spec_file())
    generated = generate(rows, args.reps, args.seed)
    write_scenarios(args.out, generated)
    seconds = time.perf_counter() - started
    scenarios = "scenario" if len(generated) == 1 else "scenarios"
    print(f"wrote {len(generated)} {scenarios} to {args.out} in {seconds:.2f} s")
    return 0


def _refuse_overwriting_inputs(out: Path, *inputs: Path) -> None:
    """`--out` must not be a file the command reads (`--out scenarios/spec.csv` would replace
    the shipped table with scenarios)."""
    for given in inputs:
        # realpath, not resolve: a symbolic link to itself is the writer's to refuse.
        if os.path.realpath(out) == os.path.realpath(given):
            raise InputError(f"--out {out}: is the input file {given}; give another name")


def _check(args: argparse.Namespace) -> int:
    spec = read_spec(args.spec) if args.spec else None
    findings = checking.check(read_scenarios(args.file), spec)
    shown = [f for f in findings if not args.summary or f.disagreements]
    _print_lines([*map(checking.describe, shown), checking.summary(findings)])
    return 1 if any(finding.disagreements for finding in findings) else 0


def _print_lines(lines: list[str]) -> None:
    """Print the lines; a reader that stops early (`| head`) leaves the exit code as the
    command's result says, not 0."""
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:
        # Python would meet the broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _show(args: argparse.Namespace) -> int:
    records = read_scenarios(args.file)
    matches = [record for record in records if record.key == args.key]
    if not matches:
        other_case = [record.key for record in records if record.key.lower() == args.key.lower()]
        hint = (
            f"did you mean {other_case[0]}?" if other_case else f"keys look like {records[0].key}"
        )
        raise InputError(f"{args.file}: no scenario '{args.key}' ({hint})")
    observation = observe(matches[0].scenario)
    print(narrate(observation))
    print(question_line(observation))
    return 0


def _report(args: argparse.Namespace) -> int:
    # Imported here: the dataframes and matplotlib take a second to load, which
    # `generate` and `check` should not pay.
    from tom_eval.game import analysis, report
    from tom_eval.registry import report_sections
    from tom_eval.report.writer import write_report

    # Progress bars are for a terminal: piped, they leave blank lines in the output.
    quiet = args.quiet or not sys.stdout.isatty()
    if args.examples < 0:
        raise InputError(f"report: --examples must be 0 or more, got {args.examples}")
    if args.compare and args.logs:
        raise InputError("report: give log directories, or --compare A B, not both")
    if args.compare:
        # Each side is read first: a damaged log is named whichever side holds it.
        first, second = (analysis.load([side], quiet) for side in args.compare)
        sides = [{Path(log).resolve() for log in results.logs} for results in (first, second)]
        if shared := sorted(sides[0] & sides[1]):
            raise InputError(
                f"report: {shared[0]} is on both sides of --compare ({len(shared)} log(s) "
                "are): a run compared with itself differs in nothing"
            )
        for side, results in zip(args.compare, (first, second), strict=True):
            # Comparisons are per scenario Id: whole games have none.
            if results.runs.empty:
                raise InputError(f"{side}: no trial-mode run (--compare reads trial-mode logs)")
            if results.samples["level"].notna().any():
                raise InputError(
                    f"{side}: holds a load ladder, whose samples are load levels that --compare "
                    "would pool by Id: compare ladders by their spans (tom-eval report A B)"
                )
            if not results.games.empty:
                first.warnings.append(f"{side}: game-mode runs are not compared; left out")
            if len(results.runs) > 1:
                runs = ", ".join(results.runs["run"])
                first.warnings.append(f"{side}: pools {len(results.runs)} runs ({runs})")
        ids = [{int(n) for n in results.samples["spec_id"].dropna()} for results in (first, second)]
        if not ids[0] & ids[1]:
            raise InputError(
                f"report: the two sides of --compare share no scenario Id (A has "
                f"{id_ranges(ids[0])}, B {id_ranges(ids[1])}): nothing to compare"
            )
        for warning in first.warnings + second.warnings:
            print(f"tom-eval: warning: {warning}", file=sys.stderr)
        print(f"wrote {report.write_comparison(first, second, args.out)}")
        return 0
    if not args.logs:
        raise InputError("report: give one or more log directories, or --compare A B")
    paths = list(args.logs)
    written, warnings = write_report(paths, report_sections(), args.out, args.examples, quiet)
    for warning in warnings:
        print(f"tom-eval: warning: {warning}", file=sys.stderr)
    print(f"wrote {written}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    # Imported here: Flask and Inspect's dataset load only for the study commands.
    import secrets

    from waitress.server import create_server

    from tom_eval.study.app import StudySettings, create_app, read_secret
    from tom_eval.study.design import TASK_DEFAULTS, open_design

    # Every flag is checked before the study folder is touched: a refused start creates
    # nothing, above all not the study's design (study.json), which later starts must keep.
    if args.admin_token is not None and not args.admin_token.strip():
        # An unset `--admin-token "$TOKEN"` would otherwise start with another token.
        raise InputError(
            "serve: --admin-token is empty: leave it out for $TOM_EVAL_ADMIN_TOKEN or a "
            "generated token"
        )
    if not 0 < args.timeout_minutes < math.inf:
        raise InputError(
            f"serve: --timeout-minutes must be positive and finite, not {args.timeout_minutes}"
        )
    if args.completion_url:
        check_completion_url(args.completion_url)
    token = args.admin_token or os.environ.get(TOKEN_VARIABLE)
    if token is not None and not token.strip():
        raise InputError(f"serve: ${TOKEN_VARIABLE} is blank: unset it for a generated token")
    public_urls = tuple(public_url(url) for url in args.public_url)
    check_address(args.host, args.port)
    writable_folder(args.data_dir, create=False)  # `open_design` makes it, owner-only
    given = {key: getattr(args, key) for key in TASK_DEFAULTS if getattr(args, key) is not None}
    if "scenario_file" in given:
        scenario_file = Path(given["scenario_file"])
        refuse_unless_regular(scenario_file, "the study reads it again at every start")
        given["scenario_file"] = str(scenario_file.resolve())
    design = open_design(args.data_dir, given)
    token_file = args.data_dir / "admin_token"
    where = "as given" if args.admin_token else f"in ${TOKEN_VARIABLE}"
    if not token:
        where = f"in {token_file}"
        token = read_secret(token_file, secrets.token_urlsafe(24).encode()).decode()
    settings = StudySettings(
        admin_token=token,
        completion_code=args.completion_code,
        completion_url=args.completion_url,
        timeout_minutes=args.timeout_minutes,
        public_urls=public_urls,
    )
    server = create_server(
        create_app(args.data_dir, design, settings), host=args.host, port=args.port, threads=8
    )
    served = served_addresses(server)
    url = settings.public_urls[0] if settings.public_urls else served[0]
    scenarios = ", ".join(f"rep {rep}: {len(ids)}" for rep, ids in design.reps.items())
    print(f"study in {args.data_dir} ({scenarios} scenarios per participant)")
    print(
        f"participants open {url} (Prolific: {url}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}})"
    )
    print(f"admin: {url}admin/status?token=... (token {where})")
    print(f"serving on {', '.join(served)}", flush=True)
    server.run()
    return 0


def check_completion_url(url: str) -> None:
    """`--completion-url` may hold `{code}`, as it is, and no other field: a format spec
    (`{code:>999999999}`) or an attribute (`{code.upper}`) would make the link wrong, or
    the page slow to write."""
    from string import Formatter

    try:
        fields = [part[1:] for part in Formatter().parse(url) if part[1] is not None]
        only_code = all(field == ("code", "", None) for field in fields)
    except ValueError:  # an unmatched brace
        only_code = False
    if not only_code:
        raise InputError(f"serve: --completion-url may hold {{code}} and no other braces: {url}")


def served_addresses(server: Any) -> list[str]:
    """Where waitress listens: one address a host names, every interface's for `*` (each
    with the port it got, which --port 0 picks), IPv6 hosts in brackets."""
    listening = getattr(server, "effective_listen", None) or [
        (server.effective_host, server.effective_port)
    ]
    return [
        f"http://{f'[{host}]' if ':' in str(host) else host}:{port}/" for host, port in listening
    ]


def check_address(host: str, port: int) -> None:
    """`--host` and `--port` name an address this machine can listen on now (tried by
    binding a socket to it and letting it go)."""
    import socket

    if not 0 <= port <= 65535:
        raise InputError(f"serve: --port must be between 0 and 65535, not {port}")
    try:
        (family, kind, protocol, _, address), *_ = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM
        )
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except (OSError, UnicodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise InputError(f"serve: cannot listen on {host}:{port} ({reason})") from None


def public_url(text: str) -> str:
    """`--public-url`: an http(s) address with a host, ending in a slash."""
    from urllib.parse import urlparse

    try:
        parts = urlparse(text)
        parts.port  # noqa: B018  (reading it checks it: a port beyond 65535 or not a number)
        address = parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.query
    except ValueError:  # "http://[x"
        address = False
    if not address:
        raise InputError(f"serve: --public-url must be an http(s) address, not {text!r}")
    return text if text.endswith("/") else f"{text}/"


def _check_progress_file(path: Path, data_dir: Path, out: Path) -> None:
    """`export --progress` names a file of its own, which the export replaces as it goes:
    not one in the study's folder (but for its exports, where `serve` keeps it) or the
    export's, nor any other file already there."""
    from tom_eval.files import file_to_write, writable_file
    from tom_eval.study.background import EXPORTS, is_progress_file

    target = Path(os.path.realpath(file_to_write(path)))

    def within(folder: Path) -> bool:
        real = Path(os.path.realpath(folder))
        return target == real or real in target.parents

    if within(out):
        raise InputError(f"--progress {path}: is inside --out; give a file outside it")
    if within(data_dir) and not within(data_dir / EXPORTS):
        raise InputError(f"--progress {path}: is inside the study's folder; give a file outside it")
    if target.exists() and not is_progress_file(target):
        raise InputError(
            f"--progress {path}: exists and is not an export's progress file; give a new name"
        )
    writable_file(path)


def _export(args: argparse.Namespace) -> int:
    from tom_eval.study.background import write_progress
    from tom_eval.study.export import export, unfinished_with_answers

    progress = None if args.progress is None else partial(write_progress, args.progress)
    if args.progress is not None:  # fails before the export starts, and writes nothing
        _check_progress_file(args.progress, args.data_dir, args.out)
    written = export(args.data_dir, args.out, args.include_incomplete, progress)
    if not written:
        started = 0 if args.include_incomplete else unfinished_with_answers(args.data_dir)
        if started is None:
            hint = "; --include-incomplete exports the finished scenarios of those who started"
        elif started:
            hint = (
                f"; --include-incomplete would export the finished scenarios of {started} "
                "participant(s) who have not finished"
            )
        else:
            hint = ", and nobody has finished a scenario yet"
        print(f"tom-eval: warning: no participant has finished{hint}", file=sys.stderr)
    print(f"wrote {len(written)} participant log(s) to {args.out}")
    return 0


def _import_runs(args: argparse.Namespace) -> int:
    # Imported here: Inspect loads only for the commands that run evals.
    from tom_eval.game.importing import import_runs

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    written, skipped = import_runs(args.runs, args.out, args.scenario_file, args.skip_bad, progress)
    for problem in skipped:
        print(f"tom-eval: skipped: {problem}", file=sys.stderr)
    print(f"wrote {len(written)} log(s) to {args.out}")
    return 0


def _false_belief_items(args: argparse.Namespace) -> int:
    from tom_eval.false_belief.generation import generate_items
    from tom_eval.false_belief.item_file import write_items

    items = generate_items(args.contents, args.transfer, args.seed, args.perturbations)
    if not items:
        raise InputError("false-belief-items: --contents and --transfer are both 0")
    write_items(args.out, items)
    tasks = "false-belief task" if len(items) == 1 else "false-belief tasks"
    print(f"wrote {len(items)} {tasks} to {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The `tom-eval` command and its subcommands; a bad flag is one InputError line."""
    parser = _Parser(prog="tom-eval", description="Ask/Tell/Pass Theory-of-Mind scenarios.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    make = commands.add_parser("generate", help="generate scenarios from the spec table")
    make.add_argument("--ids", default="all", help="all (default), mastery, or e.g. 7,8,12-13")
    make.add_argument("--extras", default=",".join(EXTRAS), help="e.g. 0A,1B (default: all four)")
    make.add_argument("--reps", type=int, default=10, help="instances per (Id, Extra); default 10")
    make.add_argument("--seed", type=seed, default=0, help="base seed; default 0")
    make.add_argument("--out", type=file_path, default=DEFAULT_OUT, help=f"default {DEFAULT_OUT}")
    make.add_argument(
        "--spec", type=path, default=None, help="spec table CSV (default: scenarios/spec.csv)"
    )
    make.add_argument(
        "--mastery", type=path, default=None, help="mastery YAML (default: scenarios/mastery.yaml)"
    )
    make.set_defaults(run=_generate)

    check = commands.add_parser("check", help="recompute a scenario file and report disagreements")
    check.add_argument("file", type=path, help="a tom-eval .jsonl file or the reference's JSON")
    check.add_argument(
        "--summary",
        action="store_true",
        help="print only the disagreeing scenarios, each Extra's load and the totals",
    )
    check.add_argument(
        "--spec",
        type=path,
        default=None,
        help=(
            "the spec table it was generated from: every scenario must be one of its rows "
            "(default: ours, whose Ids a file of another table may lack)"
        ),
    )
    check.set_defaults(run=_check)

    show = commands.add_parser("show", help="print a story exactly as player A reads it")
    show.add_argument("file", type=path, help="a tom-eval .jsonl file or the reference's JSON")
    show.add_argument("key", help="scenario key, e.g. 12-0A-r1")
    show.set_defaults(run=_show)

    report = commands.add_parser("report", help="tables, charts and analyses from Inspect logs")
    report.add_argument(
        "logs",
        nargs="*",
        type=path,
        help="Inspect logs of any of the suite's tasks, or folders of them",
    )
    report.add_argument("--out", type=path, required=True, help="folder for report.md, CSVs, PNGs")
    report.add_argument("--examples", type=int, default=5, help="failed examples to print")
    report.add_argument(
        "--compare",
        nargs=2,
        type=path,
        metavar=("A", "B"),
        help="compare two runs or log dirs (writes compare.md and two CSVs in --out)",
    )
    report.add_argument(
        "--quiet", action="store_true", help="no progress while reading logs (none when piped)"
    )
    report.set_defaults(run=_report)

    serve = commands.add_parser("serve", help="run the web study for people to play")
    serve.add_argument("--data-dir", type=path, default=Path("study"), help="default ./study")
    serve.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1")
    serve.add_argument("--port", type=int, default=8000, help="default 8000; 0 picks a free one")
    task = serve.add_argument_group(
        "the study's scenarios (tasks/tom.py parameters; fixed when the study is created)"
    )
    task.add_argument("--ids", help="all (default), mastery, or e.g. 7,8,12-13")
    task.add_argument("--extras", help="e.g. 0A,1B (default: all four)")
    task.add_argument("--reps", type=int, help="reps, one per participant in turn; default 10")
    task.add_argument("--seed", type=int, help="generator seed; default 0")
    task.add_argument("--scenario-file", dest="scenario_file", help="a scenario file to play")
    task.add_argument(
        "--response-format", dest="response_format", choices=("choice", "action", "free")
    )
    task.add_argument("--lineup", help="as the task's lineup parameter")
    task.add_argument("--lose", action="store_const", const=True, help="wrong answers cost 1")
    serve.add_argument("--completion-code", default="COMPLETED", help="shown at the end")
    serve.add_argument(
        "--completion-url", help="link at the end; {code} is replaced by the completion code"
    )
    serve.add_argument(
        "--timeout-minutes",
        type=float,
        default=120.0,
        help="idle time before an assignment is given to someone else (default 120)",
    )
    serve.add_argument("--admin-token", help="default: $TOM_EVAL_ADMIN_TOKEN, else generated")
    serve.add_argument(
        "--public-url",
        action="append",
        default=[],
        help="the address participants open, behind a reverse proxy (repeatable)",
    )
    serve.set_defaults(run=_serve)

    export = commands.add_parser("export", help="write each study participant's Inspect log")
    export.add_argument("data_dir", type=path, help="the study's data directory")
    export.add_argument("--out", type=path, required=True, help="a new folder for the logs")
    export.add_argument(
        "--include-incomplete", action="store_true", help="also those who did not finish"
    )
    export.add_argument(
        "--progress",
        type=file_path,
        help="a JSON file kept up to date with the participants done",
    )
    export.set_defaults(run=_export)

    runs = commands.add_parser(
        "import-runs", help="recorded runs of the reference implementation as Inspect logs"
    )
    runs.add_argument("runs", type=path, nargs="+", help="*_game_data.json files or folders")
    runs.add_argument("--out", type=path, required=True, help="folder for the logs")
    runs.add_argument(
        "--scenario-file",
        type=path,
        help="the reference's scenarios_standardized.json (default: found beside the runs)",
    )
    runs.add_argument(
        "--skip-bad", action="store_true", help="import the readable runs; list the others"
    )
    runs.set_defaults(run=_import_runs)

    battery = commands.add_parser(
        "false-belief-items", help="write generated false-belief tasks to an item file"
    )
    battery.add_argument("--out", type=file_path, required=True, help="a .jsonl item file")
    battery.add_argument("--contents", type=int, default=20, help="default 20")
    battery.add_argument("--transfer", type=int, default=20, help="default 20")
    battery.add_argument("--seed", type=seed, default=0, help="default 0")
    battery.add_argument("--perturbations", action="store_true", help="add the perturbed split")
    battery.set_defaults(run=_false_belief_items)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not arguments:  # the commands, rather than "the following arguments are required"
        parser.print_help(sys.stderr)
        return 2
    # `kill` (SIGTERM) ends a command as Ctrl-C does, so that a pooled generation stops its
    # workers rather than leaving them waiting for work forever.
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        args = parser.parse_args(arguments)
        return int(args.run(args))
    except Terminated:
        print("tom-eval: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except InputError as error:
        print(f"tom-eval: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `| head`) stopped early: not an error of ours.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        # Ctrl-C: each file a command writes is written whole (a report's folder may hold
        # some files of the old report and some of the new).
        print("tom-eval: interrupted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


class Terminated(BaseException):
    """SIGTERM, raised where the command is (a BaseException, as KeyboardInterrupt is: no
    `except Exception` on the way takes it for an error of its own)."""


def _terminate(signum: int, frame: FrameType | None) -> NoReturn:
    raise Terminated


if __name__ == "__main__":
    sys.exit(main())
