"""Turn a model's reply into a game action or an answer: lenient about form, never a guess.

Every reply is first cleaned: code-fence lines (```python) are dropped, `*` and backticks
(inline code too) are removed, and each line loses leading bullets, quote marks and
headings (`- `, `> `, `#`). Blank lines are dropped. Nothing here raises on any text: a
reply that cannot be read becomes a ParsedAction/ParsedAnswer with `None` and a one-line
`problem`. Only an unknown `response_format`, a caller's bug, raises ValueError.

Actions (`parse_action`)

* Structured actions are `Ask(player, container)` and `Tell(player, container, contents)`,
  in any case, with any spacing and a closing parenthesis. Each argument may be quoted,
  have punctuation at its ends (`apple.`), or a key (`player=B`, `container: bag`). A
  player may be written `Player B`; the player A itself is never a target. A container
  may carry an article (`the bag`).
* Tell contents are lowercased with articles dropped. A phrase naming exactly one known
  item (`red ball`, `apples`) becomes that item; one naming no item but saying empty
  (nothing, empty, none, no object, not anything) becomes `nothing`; any other phrase is
  kept as a (strange but legal) Tell: `unicorn`, `apple or banana`.
* Structured actions win over the word "pass": `Tell(B, bag, apple). I'll pass on
  explaining.` is the Tell. Without one, a non-negated standalone "pass" is Pass (`Pass.`,
  `I'll pass`, `{"action": "Pass"}`), but not "I won't pass" or "passing".
* A reply naming several different well-formed actions is ambiguous; repeating one is fine.
  Malformed expressions (an echoed `Tell(Player, Container, Contents)`, `Ask(A, bag)`) are
  ignored beside a well-formed one; alone, the first says what is wrong.
* `action` format reads the whole reply and ignores `options`.
* `free` format reads only the last line starting with `ACTION:` (any case); when nothing
  follows the colon, the next line is read instead. Everything else is ignored. With
  `options`, that line follows the `choice` rules, so it may give a letter.
* `choice` format (needs `options`, else it is `action`): options are lettered A, B, C...
  A reply that is only a letter, optionally with `Option`, brackets or punctuation (`b`,
  `(B)`, `B.`, `Option B`), selects it. Otherwise letters count only after a keyword
  (`option C`, `my choice is C`, `the answer is B`, `I choose C`, `Answer: B`), alone on
  a line, or as a line label (`B) ...`, `(B) ...`, `B. ...`, `B - ...`), always
  uppercase, so player names inside `Ask(B, bag)` are never letters. A written-out action
  counts as the option it equals; "pass" counts only when nothing else is named, so
  `B) Pass` is option B. All named options must agree, except that a last line like
  `Answer: X` / `Final answer: X` / `The answer is X` that names an option decides alone,
  and otherwise a first line naming exactly one option does (small models answer first,
  then go on listing options).
  A letter beyond the options or an action not among them is invalid.

Answers (`parse_answer`)

* `free` format reads only the last line starting with `ANSWER:`; the other formats read
  the whole reply, unless its last line is a final-answer line (`Answer: X`), which decides.
* A text naming one known item (maybe repeated, maybe plural) answers that item, even beside
  an empty word or a negation (`not empty: an apple`; `no apple` is also apple, as answers
  are asked to be short). Several items are ambiguous. No item but an empty word answers
  `nothing`.
* Otherwise a phrase of at most three words, after dropping a lead-in (`I think`, `it's`,
  `there is`, `the bag contains`), a trailing `in the bag` and articles, is the answer:
  `There is a unicorn in the bag.` -> `unicorn`. Longer texts and non-answers (`I don't
  know`, `sorry`, `I cannot say`) are invalid.

Replies (`parse_reply`, full game: another player asked A)

* Read like answers; a text naming no item but saying refuse or decline (any form), pass,
  no comment, not telling/saying or won't say/tell is a refusal, which is not a failure.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.world import CONTAINERS, ITEMS, NOTHING, SELF

ResponseFormat = Literal["choice", "action", "free"]
RESPONSE_FORMATS: tuple[str, ...] = ("choice", "action", "free")

_T = TypeVar("_T")
_LETTERS = string.ascii_uppercase
# ASCII: without it, case folding lets the Kelvin sign match "k", so "as\u212a(" would be Ask.
_FLAGS = re.IGNORECASE | re.ASCII
_EDGE_CHARS = " \t\r\n\"'.,;:!?\u2018\u2019\u201c\u201d"
"""Quotes, end punctuation and whitespace around an argument (`str.strip`: linear time)."""

# A fence line is ``` with at most a language tag; "```Pass```" is inline code, kept.
_FENCE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_EMPHASIS = re.compile(r"[*`]+")
_LINE_PREFIX = re.compile(r"^[\s>#-]+")
_LABEL = re.compile(r"(action|answer)\s*:\s*(.*)", _FLAGS)
_FINAL_ANSWER = re.compile(
    r"(?:the\s+|my\s+)?(?:final\s+)?answer\s*(?:is\b\s*:?|[:=-])\s*(.+)", _FLAGS
)

_CALL = re.compile(r"\b(ask|tell)\s*\(([^()]*)\)", _FLAGS)
_ARG_KEY = re.compile(r"^(?:player|container|contents|item)\s*[=:]\s*", _FLAGS)
_PLAYER_PREFIX = re.compile(r"^player\s+", _FLAGS)
_ARTICLES = re.compile(r"\b(?:the|a|an)\b", _FLAGS)
_PASS = re.compile(r"\bpass\b", _FLAGS)
_NEGATED = re.compile(r"(?:\b(?:not|never|cannot)|n't)\s+(?:\w+\s+){0,2}$", _FLAGS)
_NEGATION_WINDOW = 40

_WHOLE_LETTER = re.compile(r"\W*(?:(?:option|choice|letter)\s*)?\(?([a-z])\)?\W*", _FLAGS)
# A letter counts after a keyword ("option C", "my choice is B") or as a whole line or
# line label ("B", "B) Ask(B, bag)"); uppercase only, so prose like "a box" is no letter.
_NAMED_LETTER = re.compile(
    r"\b(?i:option|choice|letter|answer|choose|chose|pick|select|go\s+with)(?i:\s+is|\s*:)?"
    r"\s*(?i:option\s*)?\(?([A-Z])\)?(?![\w(])",
    re.ASCII,
)
_LABEL_LETTER = re.compile(r"^\(?([A-Z])(?:[).:-](?:\s|$)|\s*$)", re.ASCII | re.MULTILINE)

_ITEM = re.compile(rf"\b({'|'.join(ITEMS)})s?\b", _FLAGS)
_EMPTY = re.compile(
    r"\b(?:nothing|empty|none|no\s+(?:object|item|thing)s?|not\s+anything)\b|n't\s+anything\b",
    _FLAGS,
)
_CONTAINER_WORDS = f"(?:{'|'.join(CONTAINERS)})"
_NON_WORD = re.compile(r"[^a-z0-9'\s]+")
_LEAD_IN = re.compile(
    r"^(?:i\s+(?:think|believe|guess)\s+(?:that\s+)?)?"
    rf"(?:(?:the\s+)?(?:{_CONTAINER_WORDS}|it)\s+(?:contains|has|holds)\s+"
    r"|(?:it|there)(?:\s+is|'s)\s+)?"
)
_TRAILING_PLACE = re.compile(rf"\s+(?:in|inside)(?:\s+(?:the\s+)?(?:{_CONTAINER_WORDS}|it))?$")
_NON_ANSWER = re.compile(r"\b(?:know|sure|unsure|unclear|cannot|can't|sorry|unable|idea)\b")
_MAX_PHRASE_WORDS = 3
_REFUSAL = re.compile(
    r"\b(?:refus\w*|declin\w*|pass|no comment|not (?:telling|saying)|won't (?:say|tell))\b",
    _FLAGS,
)


@dataclass(frozen=True, slots=True)
class ParsedAction:
    action: Action | None
    """None when the reply is invalid."""
    problem: str | None = None
    """One short line saying why the reply is invalid; None when it is valid."""

    @property
    def valid(self) -> bool:
        return self.action is not None


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    contents: str | None
    """A canonical item, NOTHING, or a normalised phrase; None when the reply is invalid."""
    problem: str | None = None

    @property
    def valid(self) -> bool:
        return self.contents is not None


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """A's reply to another player's Ask (full game)."""

    contents: str | None
    """What A said is in the container; None when A refused or the reply is unreadable."""
    refused: bool = False
    problem: str | None = None
    """Why the reply is unreadable; None when it is readable or a refusal."""


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    players: frozenset[str]
    containers: frozenset[str]


class _Unparsable(Exception):
    """Why one Ask/Tell expression is not a legal action; always caught in `_parse_call`."""


def option_letter(index: int) -> str:
    """The label of option `index` in a choice prompt: 0 -> "A". Only 26 options have one."""
    if not 0 <= index < len(_LETTERS):
        raise ValueError(f"option index {index} is outside 0..{len(_LETTERS) - 1}")
    return _LETTERS[index]


def parse_action(
    text: str,
    response_format: ResponseFormat,
    options: Sequence[Action] = (),
    players: Sequence[str] = ("B", "C", "D", "N"),
    containers: Sequence[str] = CONTAINERS,
) -> ParsedAction:
    """The action a reply chooses; invalid (never an exception) when it cannot be read."""
    _check_format(response_format)
    vocabulary = _Vocabulary(
        frozenset(player.upper() for player in players),
        frozenset(container.lower() for container in containers),
    )
    lines = _clean_lines(text)
    if not lines:
        return _bad_action("empty reply")
    if response_format == "free":
        focus = _labelled(lines, "action")
        if focus is None:
            return _bad_action("no ACTION: line")
        if not focus:
            return _bad_action("empty ACTION: line")
        lines = focus
    if options and response_format != "action":
        return _parse_choice(lines, options, vocabulary)
    return _parse_written_action("\n".join(lines), vocabulary)


def parse_answer(text: str, response_format: ResponseFormat) -> ParsedAnswer:
    """What a reply says is in the container; invalid (never an exception) when unreadable."""
    focus = _answer_focus(text, response_format)
    if isinstance(focus, ParsedAnswer):
        return focus
    return _answer_in(focus)


def parse_reply(text: str, response_format: ResponseFormat) -> ParsedReply:
    """What A tells a player who asked it: an answer read like `parse_answer`, or a
    refusal (the word refuse or decline, naming no item)."""
    focus = _answer_focus(text, response_format)
    if isinstance(focus, ParsedAnswer):
        return ParsedReply(None, refused=False, problem=focus.problem)
    if _REFUSAL.search(focus) and not _items_in(focus):
        return ParsedReply(None, refused=True)
    answer = _answer_in(focus)
    return ParsedReply(answer.contents, refused=False, problem=answer.problem)


def _answer_focus(text: str, response_format: ResponseFormat) -> str | ParsedAnswer:
    """The part of a reply that holds the answer, or why there is none."""
    _check_format(response_format)
    lines = _clean_lines(text)
    if not lines:
        return ParsedAnswer(None, "empty reply")
    if response_format == "free":
        focus = _labelled(lines, "answer")
        if focus is None:
            return ParsedAnswer(None, "no ANSWER: line")
        if not focus:
            return ParsedAnswer(None, "empty ANSWER: line")
        lines = focus
    else:
        final = _FINAL_ANSWER.fullmatch(lines[-1])
        if final is not None:
            lines = [final.group(1)]
    return "\n".join(lines)


def _check_format(response_format: str) -> None:
    """An unknown format is a caller's bug, not a model's failure, so it raises."""
    if response_format not in RESPONSE_FORMATS:
        raise ValueError(f"unknown response format {response_format!r}")


def _bad_action(problem: str) -> ParsedAction:
    return ParsedAction(None, problem)


def _clean_lines(text: str) -> list[str]:
    """The reply's non-blank lines without markdown, bullets and quote marks."""
    text = _EMPHASIS.sub("", _FENCE.sub("", text))
    lines = (_LINE_PREFIX.sub("", line).strip() for line in text.splitlines())
    return [line for line in lines if line]


def _labelled(lines: list[str], label: str) -> list[str] | None:
    """What follows the last `label:` line (the next line when nothing follows the colon);
    None when no line has the label."""
    for index in range(len(lines) - 1, -1, -1):
        match = _LABEL.match(lines[index])
        if match is None or match.group(1).lower() != label:
            continue
        rest = match.group(2).strip()
        if rest:
            return [rest]
        return lines[index + 1 : index + 2]
    return None


def _parse_written_action(text: str, vocabulary: _Vocabulary) -> ParsedAction:
    calls = [_parse_call(match, vocabulary) for match in _CALL.finditer(text)]
    actions = _distinct(call.action for call in calls if call.action is not None)
    if len(actions) > 1:
        named = ", ".join(str(action) for action in actions)
        return _bad_action(f"ambiguous: several different actions ({named})")
    if actions:
        return ParsedAction(actions[0])
    if calls:
        return calls[0]
    if _says_pass(text):
        return ParsedAction(PASS)
    return _bad_action("no action found")


def _parse_call(match: re.Match[str], vocabulary: _Vocabulary) -> ParsedAction:
    """One `Ask(...)`/`Tell(...)` expression as an action, or why it is not one."""
    kind = match.group(1).lower()
    args = [_strip_arg(arg) for arg in match.group(2).split(",")]
    try:
        return ParsedAction(_build_action(kind, args, vocabulary))
    except _Unparsable as error:
        return _bad_action(str(error))


def _build_action(kind: str, args: list[str], vocabulary: _Vocabulary) -> Action:
    needed = 2 if kind == "ask" else 3
    if len(args) != needed:
        raise _Unparsable(f"{kind.capitalize()} takes {needed} arguments, got {len(args)}")
    player = _player(args[0], vocabulary.players)
    container = _phrase(args[1])
    if container not in vocabulary.containers:
        raise _Unparsable(f"unknown container '{_shorten(args[1])}'")
    if kind == "ask":
        return Action("ask", player, container)
    contents = _phrase(args[2])
    if not contents:
        raise _Unparsable("Tell has no contents")
    return Action("tell", player, container, _canonical_contents(contents))


def _strip_arg(arg: str) -> str:
    """An argument without its key (`player=`), quotes and end punctuation."""
    return _strip_edges(_ARG_KEY.sub("", arg.strip()))


def _strip_edges(text: str) -> str:
    return text.strip(_EDGE_CHARS)


def _player(arg: str, players: frozenset[str]) -> str:
    name = _PLAYER_PREFIX.sub("", arg).strip().upper()
    if name == SELF:
        raise _Unparsable(f"{SELF} cannot address itself")
    if name not in players:
        raise _Unparsable(f"unknown player '{_shorten(arg)}'")
    return name


def _phrase(text: str) -> str:
    """Lowercase, articles and end punctuation dropped, spaces collapsed."""
    return _strip_edges(" ".join(_ARTICLES.sub(" ", text.lower()).split()))


def _shorten(text: str) -> str:
    """Model text fit for a one-line problem."""
    return " ".join(text.split())[:30]


def _canonical_contents(phrase: str) -> str:
    """The item a Tell's contents phrase names, NOTHING, or the phrase itself."""
    items = _items_in(phrase)
    if len(items) == 1:
        return items[0]
    if not items and _EMPTY.search(phrase):
        return NOTHING
    return phrase


def _items_in(text: str) -> list[str]:
    return _distinct(match.group(1).lower() for match in _ITEM.finditer(text))


def _distinct(values: Iterable[_T]) -> list[_T]:
    return list(dict.fromkeys(values))


def _says_pass(text: str) -> bool:
    """Whether a standalone, non-negated "pass" occurs ("I won't pass" is no Pass)."""
    return any(
        _NEGATED.search(text[max(0, match.start() - _NEGATION_WINDOW) : match.start()]) is None
        for match in _PASS.finditer(text)
    )


def _parse_choice(
    lines: list[str], options: Sequence[Action], vocabulary: _Vocabulary
) -> ParsedAction:
    final = _FINAL_ANSWER.fullmatch(lines[-1])
    if final is not None:
        chosen = _choose(final.group(1), options, vocabulary)
        if chosen is not None:
            return chosen
    chosen = _choose("\n".join(lines), options, vocabulary)
    if chosen is not None and chosen.action is None and len(lines) > 1:
        # Small models answer on the first line, then go on listing options: a first line
        # that names exactly one option is the answer.
        first = _choose(lines[0], options, vocabulary)
        if first is not None and first.action is not None:
            return first
    return chosen if chosen is not None else _bad_action("no option letter or action found")


def _choose(text: str, options: Sequence[Action], vocabulary: _Vocabulary) -> ParsedAction | None:
    """The one option `text` names, why it names none validly, or None if it names nothing."""
    whole = _WHOLE_LETTER.fullmatch(text)
    if whole is not None:
        return _by_letter(whole.group(1).upper(), options)
    letters = [match.group(1) for match in _NAMED_LETTER.finditer(text)]
    letters += [match.group(1) for match in _LABEL_LETTER.finditer(text)]
    named = [_by_letter(letter, options) for letter in letters]
    calls = [_parse_call(match, vocabulary) for match in _CALL.finditer(text)]
    named += [_as_option(call.action, options) for call in calls if call.action is not None]
    if not named and calls:
        return calls[0]
    if not named and _says_pass(text):
        named = [_as_option(PASS, options)]
    outcomes = _distinct(named)
    if len(outcomes) > 1:
        labels = ", ".join(str(outcome.action or outcome.problem) for outcome in outcomes)
        return _bad_action(f"ambiguous: several options named ({labels})")
    return outcomes[0] if outcomes else None


def _by_letter(letter: str, options: Sequence[Action]) -> ParsedAction:
    count = min(len(options), len(_LETTERS))
    index = _LETTERS.index(letter)
    if index < count:
        return ParsedAction(options[index])
    return _bad_action(f"no option {letter} (options are A-{option_letter(count - 1)})")


def _as_option(action: Action, options: Sequence[Action]) -> ParsedAction:
    if action in options:
        return ParsedAction(action)
    return _bad_action(f"{action} is not among the options")


def _answer_in(text: str) -> ParsedAnswer:
    items = _items_in(text)
    if len(items) > 1:
        return ParsedAnswer(None, f"ambiguous: names several items ({', '.join(items)})")
    if items:
        return ParsedAnswer(items[0])
    if _EMPTY.search(text):
        return ParsedAnswer(NOTHING)
    phrase = _short_phrase(text)
    if phrase is None:
        return ParsedAnswer(None, "no item named")
    return ParsedAnswer(phrase)


def _short_phrase(text: str) -> str | None:
    """The few words naming an unknown object (`a unicorn`), or None for prose and
    non-answers such as "I don't know"."""
    words = " ".join(_NON_WORD.sub(" ", text.lower().replace("\u2019", "'")).split())
    words = _TRAILING_PLACE.sub("", _LEAD_IN.sub("", words))
    words = " ".join(_ARTICLES.sub(" ", words).split())
    if not words or _NON_ANSWER.search(words) or len(words.split()) > _MAX_PHRASE_WORDS:
        return None
    return words
