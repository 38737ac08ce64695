"""Boxed answers (`\\boxed{B}`), as models trained on mathematics close a reply: the game's
reader and KNP's read a box's text as the answer. Standard library only."""

from __future__ import annotations

import re

_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
"""A boxed answer (`\\boxed{A}`, `$\\boxed{\\text{apple}}$`): one level of braces inside, so
each character is read once (a first pattern backtracked over a run of spaces in a box left
open: 72 s at 5,000 characters)."""
_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+\s*\{([^{}]*)\}")
"""A command around a boxed answer's text (`\\text{apple}`, `\\mathrm{D}`): the text."""
_LATEX_EMPTY = re.compile(r"\\(?:emptyset|varnothing)(?![a-zA-Z])")
_LATEX_SPACE = re.compile(r"\\[ ,;:!]|~")


def unbox(text: str) -> str:
    """The text with each boxed answer replaced by what it says (`\\boxed{\\text{Option } B}`
    is "Option B", `\\boxed{\\emptyset}` "nothing")."""
    return _BOXED.sub(lambda boxed: _boxed_text(boxed.group(1)), text)


def last_boxed(text: str) -> str | None:
    """What the last boxed answer says; None without one."""
    boxes = [boxed.group(1) for boxed in _BOXED.finditer(text)]
    return _boxed_text(boxes[-1]) if boxes else None


def _boxed_text(inside: str) -> str:
    text = _LATEX_SPACE.sub(" ", _LATEX_COMMAND.sub(r"\1", inside))
    return _LATEX_EMPTY.sub("nothing", text).strip()
