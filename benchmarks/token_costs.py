"""Tokens per sample for each response format: what a user pays for a run.

Runs `inspect eval tasks/tom.py -T response_format=F` for each format and model and reads
the model usage Inspect logs per sample: input and output tokens per sample (all of the
sample's calls: the action, and the answer when A must answer) and for a whole default
run, cached prompt tokens included. The reference players count four characters a token
(no tokenizer is downloaded); `gguf/smollm2` reports the count of its own tokenizer, from
llama.cpp. Input tokens are almost all of the cost and depend little on the model: they
are the rules, the story and the question, sent with every call.

Usage: python benchmarks/token_costs.py [--models tom/oracle] [--limit N] [--reps 10]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from inspect_ai.log import EvalLog
from measure import inspect_eval, machine, markdown_table, model_calls

from tom_eval.game.parsing import RESPONSE_FORMATS

COLUMNS = (
    *("model", "format", "samples", "calls per sample", "input tokens per sample"),
    *("output tokens per sample", "total per sample", "total per 1,560 samples"),
)
DEFAULT_SAMPLES = 1560


def usage(log: EvalLog) -> tuple[float, float]:
    """Mean input and output tokens per sample, over every model the sample called."""
    samples = log.samples or []
    # A provider that reuses a cached prompt prefix (llama.cpp does) reports it apart.
    tokens = [
        (use.input_tokens + (use.input_tokens_cache_read or 0), use.output_tokens)
        for sample in samples
        for use in sample.model_usage.values()
    ]
    return (
        sum(t[0] for t in tokens) / len(samples),
        sum(t[1] for t in tokens) / len(samples),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--models", default="tom/oracle")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for model in args.models.split(","):
            for response_format in RESPONSE_FORMATS:
                task_args = ["--model", model, "-T", f"response_format={response_format}"]
                task_args += ["-T", f"reps={args.reps}"]
                if args.limit:
                    task_args += ["--limit", str(args.limit)]
                if response_format == "free" and model.startswith("gguf/"):
                    task_args += ["--max-tokens", "256"]  # room to reason before ACTION:
                log_dir = Path(folder, f"{model.replace('/', '_')}-{response_format}")
                _, log = inspect_eval("tasks/tom.py", log_dir, *task_args)
                samples = len(log.samples or [])
                tokens_in, tokens_out = usage(log)
                total = tokens_in + tokens_out
                rows.append(
                    (
                        *(model, response_format, samples),
                        f"{model_calls(log) / samples:.2f}",
                        f"{tokens_in:,.0f}",
                        f"{tokens_out:,.1f}",
                        f"{total:,.0f}",
                        f"{total * DEFAULT_SAMPLES / 1e6:.2f} M",
                    )
                )
    print(f"machine: {machine()}\n")
    print(markdown_table(COLUMNS, rows))
    print("\ncommand: inspect eval tasks/tom.py --model M -T response_format=F")


if __name__ == "__main__":
    main()
