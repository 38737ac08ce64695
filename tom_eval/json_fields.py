"""Typed access to the fields of a JSON object read from a user's file, failing with one
line that names the place (file, line or item) and the problem; and reading a user's YAML
file (the mastery categories, a prior) the same way."""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Any, NoReturn

from tom_eval.errors import InputError, read_user_text

LARGEST = 2**63
"""Whole numbers lie in [-LARGEST, LARGEST): a log's values are read back into 64-bit
columns (`tom-eval report`), which cannot hold a larger one."""
INT64_RANGE = "from -2**63 to 2**63 - 1"


def fits_int64(number: int) -> bool:
    """Whether a 64-bit column holds `number` (see LARGEST)."""
    return -LARGEST <= number < LARGEST


def yaml_text(value: object) -> str:
    """A value YAML read, as text near what was written: YAML reads `true`, `yes` and `on`
    as True (and `false`, `no`, `off` as False), which an error shows as `true` (`false`),
    not Python's `True`; and `~` or `null` as None, which an error shows as `null`."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def as_number(value: object) -> float | None:
    """A number as YAML gives it, as a float: an int, a float, or text that Python reads as
    a number (YAML 1.1 reads `1e-15` as text; it wants `1.0e-15`); a whole number beyond a
    float's range is infinite. Anything else is None (true and false too)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None
    except OverflowError:  # only an int overflows
        return math.inf if int(value) > 0 else -math.inf


def finite_number(value: object) -> float | None:
    """`as_number` when finite, else None."""
    number = as_number(value)
    return number if number is not None and math.isfinite(number) else None


READ_ERRORS = (ValueError, RecursionError)
"""What `json.loads` (and `yaml.safe_load`, for RecursionError) raise on text they refuse:
a syntax error (JSONDecodeError, a ValueError), nesting deeper than Python's recursion
limit, or an integer longer than Python's conversion limit."""


def json_problem(error: ValueError | RecursionError, one_line: bool = False) -> str:
    """What is wrong with text `json.loads` refused, in words (`one_line`: without the
    line number, for a file of JSON lines)."""
    if isinstance(error, json.JSONDecodeError):
        where = f"column {error.colno}" if one_line else f"line {error.lineno} column {error.colno}"
        return f"invalid JSON at {where} ({error.msg})"
    if isinstance(error, RecursionError):
        return "nested too deeply to read"
    return f"holds a number longer than {sys.get_int_max_str_digits()} digits"


def load_json(text: str, where: str, one_line: bool = False) -> Any:
    """`json.loads`, with any refusal an InputError naming `where`."""
    try:
        return json.loads(text)
    except READ_ERRORS as error:
        raise InputError(f"{where}: {json_problem(error, one_line)}") from None


def content_digest(content: object) -> str:
    """The SHA-256 of what was read from a user's file or folder (its repr), which the eval
    metadata keeps: one content given by two paths, or saved again, has one digest, and
    `tom-eval report` tells apart two of one name by it. A mapping is given as sorted items,
    so that its order does not count."""
    return hashlib.sha256(repr(content).encode()).hexdigest()


def read_yaml(path: Path) -> Any:
    """A YAML file's document, with any refusal an InputError naming the file and saying
    what is wrong (where YAML can tell: the line and column of a cut-off file)."""
    # Imported here: PyYAML takes about 10 ms to load, which `tom-eval check` need not pay.
    import yaml

    text = read_user_text(path)

    class UniqueKeys(yaml.SafeLoader):
        """YAML keeps the last of two equal keys; a file that gives one twice holds a typo."""

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *anchor`: its keys may be overridden on purpose
            key = loader.construct_object(key_node)
            if not isinstance(key, Hashable):
                continue  # construct_mapping refuses it, in its words
            if key in seen:
                line = key_node.start_mark.line + 1
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is given twice (line {line})"
                )
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node)

    UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        return yaml.load(text, Loader=UniqueKeys)
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to read") from None
    except ValueError as error:  # a value YAML types but cannot build, e.g. 2024-13-01
        raise InputError(f"{path}: not valid YAML ({error})") from None
    except yaml.YAMLError as error:
        raise InputError(f"{path}: not valid YAML ({' '.join(str(error).split())})") from None


class JsonFields:
    def __init__(self, where: str, data: Any) -> None:
        self.where = where
        if not isinstance(data, dict):
            self.fail(f"expected an object, got {type(data).__name__}")
        self.data: dict[str, Any] = data

    def fail(self, problem: str) -> NoReturn:
        raise InputError(f"{self.where}: {problem}")

    def get(self, name: str) -> Any:
        if name not in self.data:
            self.fail(f"missing '{name}'")
        return self.data[name]

    def text(self, name: str, blank: bool = True) -> str:
        """A non-empty string; with `blank=False`, not only white space either."""
        value = self.get(name)
        if not isinstance(value, str) or not (value if blank else value.strip()):
            self.fail(f"'{name}' must be a non-empty string, got {value!r}")
        return value

    def integer(self, name: str) -> int:
        value = self.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(f"'{name}' must be an integer, got {value!r}")
        if not fits_int64(value):
            self.fail(f"'{name}' must be an integer {INT64_RANGE}, got {value}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        value = self.data.get(name, default)
        if not isinstance(value, bool):
            self.fail(f"'{name}' must be true or false, got {value!r}")
        return value

    def choice(self, name: str, allowed: tuple[str, ...]) -> str:
        value = self.text(name)
        if value not in allowed:
            self.fail(f"unknown {name} '{value}' (allowed: {', '.join(allowed)})")
        return value

    def array(self, name: str, empty: bool = True) -> list[Any]:
        value = self.get(name)
        if not isinstance(value, list):
            self.fail(f"'{name}' must be a list, got {type(value).__name__}")
        if not empty and not value:
            self.fail(f"'{name}' must be a non-empty list")
        return value

    def texts(self, name: str, blank: bool = True) -> list[str]:
        """A list of strings; with `blank=False`, a non-empty list of non-blank strings."""
        values = self.array(name, empty=blank)
        if not all(isinstance(value, str) and (blank or value.strip()) for value in values):
            self.fail(f"'{name}' must list {'' if blank else 'non-empty '}strings")
        return values

    def mapping(self, name: str) -> dict[str, Any]:
        value = self.get(name)
        if not isinstance(value, dict):
            self.fail(f"'{name}' must be an object, got {type(value).__name__}")
        return value
