"""Typed access to the fields of a JSON object read from a user's file, failing with one
line that names the place (file, line or item) and the problem."""

from __future__ import annotations

from typing import Any, NoReturn

from tom_eval.errors import InputError


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
