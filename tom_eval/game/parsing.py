"""Turn a model's reply into a game action or an answer: lenient about form, never a guess.

Every reply is first cleaned: code-fence lines (```python) and terminal codes (ANSI escapes)
are dropped, `*` and backticks (inline code too) are removed, a boxed answer (`\\boxed{A}`)
is its text, each line loses leading bullets, quote marks and headings (`- `, `> `, `#`),
and each run of spaces within a line is one space. Blank lines are dropped. Nothing here
raises on any text: a reply that cannot be read becomes a ParsedAction/ParsedAnswer with
`None` and a one-line `problem`. Only an unknown `response_format`, a caller's bug, raises
ValueError.

Actions (`parse_action`)

* An action is named by a call, `Ask(player, container)` or `Tell(player, container,
  contents)`, in any case, spacing and quoting, with keys (`player=B`), `Player B`, articles
  (`the bag`) and end punctuation; by the word "pass" (not "I won't pass", "pass on
  explaining"); by a whole action in words that names every argument ("ask B about the
  bag", "tell B that the box holds the brick", "tell C the bag is empty"); in `choice`
  format also by an option letter (`B`, `(B)`, `Option B`, `the answer is B`, `going with
  B`, `I think B`, `I recommend B`, `I'm choosing B`, `So B it is`, `B left, so D.`, a line
  label `B) ...`, a sentence that opens by calling it the best or the answer: `B is the best
  option`, `I think D is best`, a letter the reply opens with before its reasons: `B,
  because Sally left.`; uppercase only, so the B of `Ask(B, bag)` is never an option; not a
  letter that answers a question about a player: "Who left? I think B.") or by an option's
  action. A reply that is one JSON object names its action in its fields
  (`{"action": "ask", "player": "B", "container": "bag"}`, `{"letter": "D"}`), as
  structured output does.
* Tell contents are lowercased with articles dropped; a phrase naming exactly one known item
  (`red ball`) is that item, an empty word (nothing, empty, none) `nothing`, anything else is
  kept as a strange but legal Tell (`unicorn`, and `not empty`, which says no item).
* The action is the one the reply finally commits to, read in this order:
  1. a closing statement: the last `Action: X`, `Final answer: X`, `Final: X`, `My move is
     X`, `Revised answer: X` line or sentence that names an action it does not only weigh
     ("Final answer: I won't Ask(B, bag). Pass." leaves the decision to the commitments);
  2. commitments: sentences that state one action and nothing else but lead-ins ("Pass.",
     "I'll Tell(B, bag, apple).", "So D."), outside lists (two or more lines in a row that
     each name a different action or option: an echoed option list is no answer). They
     must agree, unless a revision ("Actually, ...", "Wait - ...", "No wait, ...", "I mean
     ...", "Edit: ...", "(Actually ...)", "... instead.", "I'll change my answer to ...",
     whose opening words are no part of the action: "No wait Pass.") replaces what came
     before; an action it calls better in the reply's last sentence is the one revised to
     ("Pass. Actually, Ask(B, bag) is better."), and in `choice` format so is a letter
     closing it, or one it calls the best, leans to or concludes, or, after a letter chosen,
     one it restates or (in the last sentence) calls better: "A... or rather C" is C, "I
     think A. Wait, B left, so D." and "A - actually, make that D." are D; two different
     commitments are ambiguous, hence invalid;
  3. the last sentence that names an action it does not weigh, doubt or reject ("I could
     Ask(B, bag)", "no need to pass", "Ask(B, bag) would cost 0.5", "Ask(B, bag) is overkill",
     "Ask(B, bag), or maybe ...", "a Tell", "I'd rather pass than Ask(B, bag)", a question;
     the answerer's own "I would" or "I'd" chooses, unless a condition that opens the sentence
     or follows the action binds it: "If B had stayed, I'd Ask(B, bag)", "I would pass if
     nothing had changed", "Normally I would pass");
     several different ones are ambiguous, unless the sentence's last conclusion states one
     and nothing else ("Ask(B, bag) would help, but it costs 0.5, so I'll pass.");
  4. in `choice` format, a letter the reply opens with before its reasons ("D, because B
     left."; not one that may be a player's: "C, because she left.", "C, since the
     opponent left. So I should mislead C: E."), read as the first commitment, which a
     revision may replace ("D, because B left. Actually, A." is A);
  5. otherwise the reply commits to nothing: invalid, with what it only weighed.
  A malformed call (an echoed `Tell(Player, Container, Contents)`, `Ask(A, bag)`) commits to
  nothing; read alone, it says what is wrong. An echo of the instruction's whole list ("Pass,
  Ask(Player, Container) or Tell(Player, Container, Contents)") is dropped before reading: its
  Pass is no choice. "Ask (costs 0.5)" is prose, not a call.
* `free` format reads the last `ACTION:` line (the next line when nothing follows the
  colon); a reply without one is read as above and marked with a `slip`, which the scorer
  counts (`format_ok`). With `options`, the line may give a letter.
* `choice` format (needs `options`, else it is `action`): a letter beyond the options or an
  action not among them is invalid; "pass" counts only where nothing else is named, so
  `B) Pass` is option B. `action` format ignores `options`.

Answers (`parse_answer`)

* `free` format reads the last line starting with `ANSWER:` (without one: as the other
  formats, marked with a `slip`); the other formats read the whole reply, unless its last
  sentence is a final answer (`Answer: X`), which decides. A JSON object gives its
  `contents` (or `answer`) field.
* A question ("What is in the bag?"), an option letter ("The answer is D"), "N/A" or a
  placeholder ("<contents>") is no answer.
* A reply that goes through the containers one by one, two or more of them labelled at the
  start of a line or sentence ("The box? No apple. The basket? The apple.", "- Box:
  banana\n- Basket: apple", "What's in the box? ...", "Box -> ...", "| box | ... |", "Box
  (now): ..."), is read without what it says under another container's label, or under a
  label whose note is another player's view or the start alone ("Box (B thinks): ...", "Box
  (at the start): ..."; not "Box (untouched since the start): ..."), up to a line or
  sentence that opens a conclusion ("So the box is empty."), which is read, or the line
  after a table's rows, read when it states what the container holds. A dash in the
  container's row of a table ("| box | - |") says empty.
* A reasoned answer is read at its conclusion, the part after its last `so`, `therefore`,
  `thus`, `hence`, `which means`, `meaning` or revision (`Actually`, `Wait`, `No,`, `No:`,
  `Correction`, `Scratch that`, `Hold on`, `On second thought`, `Or rather`, `I mean`), when
  that part is an answer alone ("so orange", "Actually, the banana") or states what the
  container asked about holds ("so the box is empty", "so it holds the apple", "so the apple
  is still in the box", "so inside the box is the apple", "so the contents of the box: the
  apple", "Result: apple in the box, ball in the bag"), naming one item or saying empty,
  read to a colon or a dash where its reasons begin ("No, wait, the box is empty: the apple
  was moved" is nothing): "The apple was moved to the basket, so the box is empty" answers
  `nothing`; a statement is read to the end of its clause ("..., so the box is empty and the
  basket has the apple" is nothing), and of several, the one about the container asked of
  decides ("..., so the basket has the apple and the box is empty" is nothing). A conclusion
  about something else ("so nothing has changed", "so the basket is empty" when the box was
  asked about, "so it is empty" in a sentence about the basket), a hedged one ("so it might
  be empty"), one in an aside (in parentheses), one answering a question that offers no item
  ("Anything else? No, nothing") or one that narration follows (a move, "then ...", a second
  thought, another statement of what a container holds, an item named outside what a player
  thinks) decides nothing, and the whole text is read, as follows. Remarks after a
  conclusion leave it standing: "..., so the box is empty. Bob, who left, still thinks the
  apple is there." is nothing, and so are remarks on what a player missed ("Note that C
  didn't see the banana being placed") and on where things are in other containers ("(The
  ball is in the bag.)").
* Without such a conclusion, the last plain statement of what the container asked about
  holds decides, when the story does not go on after it ("The ball went to the bag. The box
  contains the banana. The bag contains the ball." is banana; "Right now the box is empty;
  the apple was moved to the basket." is nothing; "Since the apple left, the box is empty",
  "After these events, nothing remains in the box", "In reality, the box is empty", "But the
  box holds the brick", "the box should contain the apple", "box = empty"): not one hedged
  (but for a hedge in another player's view: "The box contains the ball - although Bob might
  think it's the apple" is ball), negated or in what a player thinks ("C thinks the box is
  empty"; "The box is empty, although B thinks the apple is there" is nothing, and so is
  "The box is empty, I believe, though C doesn't know the apple left"), nor one followed by
  "then", a present-tense move, "also" or a second thought. A conclusion in what a player
  thinks ("..., so C thinks the box is empty") is not A's: the one before it is read;
  "Final:", "Result:", "Summary:" and "Currently:" open one. Then a closing list of where
  each item is ("Current locations:\n- apple: basket\n- orange: box" is orange), not of
  where they started.
* Remarks in parentheses explain: "- Box: empty (the brick was moved out)" is nothing, and
  "Box: orange (it replaced the apple)" is orange, unless an aside denies or takes back.
* A text naming one known item (maybe repeated, maybe plural) answers that item, even beside
  an empty word (`not empty: an apple`). An item it says is not there is not counted: a
  negation before it with only words of being or holding between ("not the apple", "doesn't
  hold an apple", "no longer contains the apple", "neither the apple nor the ball"), the
  answerer's own denied belief ("I don't think it's the apple", "I doubt it's the apple"),
  or a negation after it ("the apple isn't in the box", "The apple? No."). A hedge ("not
  sure but the apple"), what did not happen to the item ("Bob didn't move the apple") or
  what another player does not think ("she doesn't think the apple is there") denies
  nothing. What the reply says of another container is not said of this one: a denial or an
  empty word about the container named right after it ("no apple in the bag"), else the
  nearest before it in its clause ("the bag has no apple", "- Basket: empty"); an item said
  to be in another container ("the apple is in the bag") or held by one now ("The basket has
  the apple, not the box", "- Bag: apple", "the bag: it has the apple"; not "the box has the
  bag's apple", "what was in the bag: the apple" or "the bag had the apple"), in a plain
  statement (not one that moves it, tells another time or another player's view, or takes
  itself back, nor one the story goes on after: "The apple in the bag was moved to the box"
  is apple). Not so for the story told again, nor in what a player thinks. A pronoun later
  in the item's sentence can deny it too ("The apple was in the box, but it isn't any more";
  "...; it isn't"), unless the item was said to be in another container or gone ("Bob thinks
  the apple is missing, but it isn't"), or "there" is a player's view ("there for Bob"). An
  item's last mention decides ("The apple was in the box, but now there is no apple" names
  nothing that is there), except that the story told again ("..., because Anne moved the
  apple to the basket", "the apple was taken") leaves what was said of the item as it was;
  alone, it is read, unless the reply says the container is empty now (not asked, past,
  another player's or a look) and tells only how items left it ("Empty. The brick was moved
  from the box to the basket.", "the stapler went from the box to the bag", "it used to
  contain the brick", "previously the brick was there"; none moved into it or somewhere
  unnamed, "moved there", "put back", nor back, "came back"; no move denied; no hedge but in
  the clause that says empty or in what another player thinks or would answer, "Empty - C
  would probably say the apple"; a player named in the reasons after a colon or a dash tells
  no view of the box, "Empty - C moved the apple"; what might have been is not read, "Empty.
  If nobody had touched it, the brick would still be in the box."): that answers `nothing`,
  or, when the clause that says empty hedges ("I think it might be empty. The apple was
  moved to the bag.") or what may yet be puts an item in ("Empty, unless Bob put the apple
  back"), nothing decided: the reply never said the item is there. An item that went into it
  and on again left it ("The ball went into the box first, then was moved to the bag"; "...
  Then Bob moved it to the bag."; "..., then taken out"): the item's story is read to where
  a move of it ("it", the item, or the item as subject going on) takes it last, not to where
  someone looks, thinks it is or tried to move it, and a move back ("Then Carol hid it in
  the box", "and back") keeps it in; what a player thinks or another container holds now
  names no item of it ("Carol still thinks the stapler is in the box", "the ball remained in
  the bag"). So "The apple, not the banana" is apple, and "Not the apple" alone is no
  answer. Several items are ambiguous, and so is a reply that ends at an item or nothing
  ("it's either empty or the brick"; not asked, not what another player would say, and with
  nothing but doubt after it: "either empty or the brick - the latter" is decided). No item
  but an empty word answers `nothing` ("Nothing, not even the apple", "doesn't contain
  anything", "\u2205"); a negated one ("not empty", "no longer empty") says the opposite, so
  alone it is no answer.
* Otherwise a phrase of at most three words, after dropping a lead-in (`I think`, `it's`,
  `there is`, `the bag contains`), a trailing `in the bag` and articles, is the answer:
  `There is a unicorn in the bag.` -> `unicorn`. Longer texts and non-answers (`I don't
  know`, `sorry`, `I cannot say`) are invalid.

Replies (`parse_reply`, full game: another player asked A)

* Read like answers; a text naming no item but saying refuse or decline (any form), pass,
  no comment, not telling/saying or won't say/tell is a refusal, which is not a failure.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import string
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple, TypeVar

from tom_eval.boxed import unbox
from tom_eval.game.decisions import PASS, Action
from tom_eval.game.world import CHARACTERS, CONTAINERS, ITEMS, NOTHING, SELF

ResponseFormat = Literal["choice", "action", "free"]
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = ("choice", "action", "free")

_T = TypeVar("_T")
_ACTION_KEYS = ("letter", "option", "choice", "action", "answer")
"""Where a JSON reply names its action or option."""
_ANSWER_KEYS = ("contents", "answer", "item")
"""Where a JSON reply names what is in the container."""
_LETTERS = string.ascii_uppercase
# ASCII: without it, case folding lets the Kelvin sign match "k", so "as\u212a(" would be Ask.
_FLAGS = re.IGNORECASE | re.ASCII
_OTHER = f"(?-i:[{''.join(player for player in CHARACTERS if player != SELF)}])"
"""Another player's letter (capitals only: "a" is a word too)."""
_EDGE_CHARS = " \t\r\n\"'.,;:!?\u2018\u2019\u201c\u201d"
"""Quotes, end punctuation and whitespace around an argument (`str.strip`: linear time)."""

# A fence line is ``` with at most a language tag; "```Pass```" is inline code, kept.
_FENCE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_EMPHASIS = re.compile(r"[*`]+")
_TERMINAL_CODE = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # a title (OSC)
    r"|\x1b\[[0-9;?]*[ -/]*[@-~]"  # a colour or a cursor move (CSI)
    r"|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_]"  # a character set, another escape
)
"""A terminal's colour or cursor code (ANSI escape), which a reply copied from a terminal
holds around its words."""
_SPACES = re.compile(r"[^\S\n]+")
"""A run of spaces, tabs or other spaces (the no-break space; not a newline): read as one
space, since no reading depends on how wide it is, and several patterns that meet a long run
retry it from each space (quadratic: "apple", 16,000 spaces and "empty" took 4.9 s)."""
_ECHO_SEPARATOR = r"\s*(?:[,|/]\s*)?(?:or\s+)?"
_FORMAT_ECHO = re.compile(
    rf"\bpass{_ECHO_SEPARATOR}ask\(\s*player\s*,\s*container\s*\){_ECHO_SEPARATOR}"
    r"tell\(\s*player\s*,\s*container\s*,\s*contents\s*\)",
    re.IGNORECASE,
)
"""The instruction's list of the actions ("Pass, Ask(Player, Container) or Tell(Player,
Container, Contents)"), which a reply that echoes the instruction holds: it names no action
(its Pass is the list's, and would otherwise be read as the choice)."""
_LINE_PREFIX = re.compile(r"^[\s>#-]+")
_LABEL = re.compile(r"(action|answer)\s*:\s*(.*)", _FLAGS)
_FINAL_ANSWER = re.compile(
    r"(?:the\s+|my\s+)?(?:final\s+)?answer\s*(?:is\b\s*:?|[:=-])\s*(.+)", _FLAGS
)

_CALL = re.compile(r"\b(ask|tell)\s*\(([^()]*)\)", _FLAGS)
_ARG_KEY = re.compile(r"^(?:player|container|contents|item)\s*[=:]\s*", _FLAGS)
_PLAYER_PREFIX = re.compile(r"^player\s+", _FLAGS)
_ARTICLES = re.compile(r"\b(?:the|a|an)\b", _FLAGS)
_PASS = re.compile(
    r"\bpass\b(?!\s+(?:on\s+(?:\w+ing|further|comment|details|that)|up|along|by|through|over"
    r"|down|away|(?:it|the\s+\w+)\s+(?:on|to|along))\b)",
    _FLAGS,
)
"""The word pass as an action: not "pass on explaining", "pass the ball", "pass up"."""
_NEGATED = re.compile(r"(?:\b(?:not|never|cannot)|n't)\s+(?:\w+\s+){0,2}$", _FLAGS)
_NEGATION_WINDOW = 40
_PLAYER_WORD = r"(?:player\s+)?(?P<player>[BCDN])\b"
_CONTAINER_WORD = r"(?:the\s+)?(?P<container>[a-z]+)"
_WORDED_ASK = re.compile(
    rf"\bask(?:ing)?\s+{_PLAYER_WORD}\s+(?:about|what(?:'s|\s+is)?\s+in)\s+{_CONTAINER_WORD}",
    _FLAGS,
)
_WORDED_TELL = re.compile(
    rf"\btell(?:ing)?\s+{_PLAYER_WORD}\s*[:,]?\s*(?:that\s+)?{_CONTAINER_WORD}\s+"
    r"(?:contains|has|holds)\s+(?:an?\s+|the\s+)?(?P<contents>[a-z]+)",
    _FLAGS,
)
_WORDED_TELL_ITEM = re.compile(
    rf"\btell(?:ing)?\s+{_PLAYER_WORD}\s*[:,]?\s*(?:that\s+)?(?:an?\s+|the\s+)?"
    rf"(?P<contents>[a-z]+)\s+is\s+(?:now\s+)?in\s+{_CONTAINER_WORD}",
    _FLAGS,
)
_WORDED_TELL_EMPTY = re.compile(
    rf"\btell(?:ing)?\s+{_PLAYER_WORD}\s*[:,]?\s*(?:that\s+)?{_CONTAINER_WORD}"
    r"(?:\s+is|['\u2019]s)\s+(?:now\s+)?(?P<contents>empty)\b(?!,?\s+and\s+that\b)",
    _FLAGS,
)
"""Whole actions in words: every argument named ("ask B" alone is a mention, no action)."""
_ONE_WORD = re.compile(r"\s*[\"'\u2018\u201c]?[a-z]*[\"'\u2019\u201d]?\s*", _FLAGS)
_PLACEHOLDER = re.compile(r"\.\.\.|\u2026")
_HEDGE_WINDOW = 60

_THEREFORE = r"so|therefore|thus|hence"
"""Words that open what a reply concludes."""
_I_MEAN = r"\bI\s+meant?\b"
"""A correction of an answer ("the banana - sorry, I mean the orange")."""
_TAKING_BACK = (
    r"actually|wait|hold\s+on(?!\s+to\b)|on\s+second\s+thought|correction|scratch\s+that"
    r"|or,?\s+rather"
)
"""Words that open a revision, also inside a sentence (not "no" or "instead": "Pass - no
need to ask" revises nothing)."""
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+|(?<=[.!?][)\]\"'])\s+|(?<=[a-z][.!?])(?=[A-Z])"
    rf"|(?<!\s)\s*(?:[;\u2014\u2013]|\s--?\s)\s*(?=(?i:{_TAKING_BACK}|no,?\s+wait|{_I_MEAN})\b)"
)
"""Where a sentence ends: after . ! ? and a space, glued to the next ("cost.Pass"), or at a
dash or semicolon that opens a revision ("Ask(B, bag) - actually no, Pass.", "... - no wait,
Pass.", "...; I mean, Pass.")."""
_CLOSING = re.compile(
    rf"(?:(?:{_THEREFORE}|then|ok(?:ay)?)\s*(?:,\s*)?)?(?:the\s+|my\s+)?"
    r"(?:(?:final|chosen|best|optimal|correct|right|revised)\s+)*"
    r"(?:answer|action|choice|decision|move|selection|recommendation"
    r"|(?:final|selected|chosen)(?=\s*:)|(?P<bare>revised|revision)(?=\s*:))"
    r"\s*(?:is\b\s*:?|[:=-])\s*(?P<stated>.+)",
    _FLAGS,
)
"""A closing statement: `Action: X`, `Final answer: X`, `Final: X`, `Selected: X`, `So my
move is X`, `Revised answer: X`; `Revised: X` and `Revision: X` (group `bare`) only when X
is an action alone, since such a label may open reasons ("Revised: Ask(B, bag) costs 0.5.
Pass.")."""
_OPTION_LINE = re.compile(r"\(?([A-Z])(?:\)|[.:]\s)\s*\S", re.ASCII)
"""A line that starts with an option label, as the options of a choice prompt do."""
_WORD = re.compile(r"[a-z']+")
_FILLER = frozenset(
    [
        "i",
        "i'll",
        "ill",
        "i'd",
        "id",
        "would",
        "recommend",
        "choosing",
        "picking",
        "selecting",
        "i'm",
        "im",
        "will",
        "shall",
        "should",
        "must",
        "choose",
        "chose",
        "pick",
        "select",
        "go",
        "going",
        "with",
        "my",
        "final",
        "answer",
        "action",
        "move",
        "choice",
        "decision",
        "selection",
        "is",
        "the",
        "best",
        "optimal",
        "right",
        "correct",
        "so",
        "therefore",
        "thus",
        "hence",
        "then",
        "ok",
        "okay",
        "option",
        "take",
        "play",
        "do",
        "make",
        "let's",
        "lets",
        "me",
        "we",
        "to",
        "be",
        "it",
        "its",
        "it's",
        "that",
        "that's",
        "thats",
        "here",
        "this",
        "turn",
        "round",
        "now",
        "just",
        "simply",
        "yes",
        "a",
        "json",
        "mean",
        "meant",
        "wait",
    ]
)
"""Words a statement of one action may hold besides the action ("So I'll go with Pass.")."""
_REVISION_FILLER = _FILLER | {"rather", "instead", "change", "changing", "switch", "switching"}
"""And in a revision ("Actually, I'd rather pass.", "I'll Ask(C, bag) instead."): alone,
"I'd rather Ask(B, bag)" may be overruled by what follows ("But it costs 0.5, so Pass")."""
_HEDGE_BEFORE = re.compile(
    r"(?:\b(?:could|might|may|if|whether"
    # Not the answerer's own "would" ("I would pass"), which `_conditional` weighs.
    r"|(?<!\bI\s)(?<!\bwe\s)(?<!\banswer\s)(?<!\bchoice\s)would(?!\s+be\s+to\b)"
    r"|instead\s+of|rather\s+than|or\s+(?:maybe|perhaps|possibly)"
    r"|consider(?:ed|ing)?|versus|vs|without|avoid(?:ing)?|unless|not|never"
    r"|no\s+need(?:\s+to)?|no\s+point)\b"
    r"|n't\b|\b(?:a|an|the|this|that|any|each|every)\s+$"
    # The action one would rather not ("I'd rather pass than Ask(B, bag)").
    r"|\brather\b.*\bthan\s*$)",
    _FLAGS,
)
_JOINING = rf"but|{_THEREFORE}|and|then"
"""Words that open a new clause."""
_CLAUSE_END = re.compile(rf"[.,;:!?()\[\]]|\b(?:{_JOINING})\b", _FLAGS)
_NO = r"\bno(?=\s*(?:[,.!;:\u2014\u2013]|-(?!\w))|\s+wait\b)"
"""A "no" that takes back what came before ("No, ...", "no: ...", "no - ..."; not "No-one")."""
_REVISION = re.compile(
    rf"(?:\(\s*)?(?:\b(?:so|then)[\s,]+)?(?:\b(?:{_TAKING_BACK}|hmm+|instead)\b|{_NO}|{_I_MEAN})",
    _FLAGS,
)
"""A sentence that takes back what came before ("No, ...", "So no.", "(Actually, ...", not "No
reason to ...")."""
_EDIT = r"(?:edit|update)(?=\s*:)"
"""A label that revises an action ("Edit: actually, Ask(C, bag)."; not an answer, where an
update may add to it). A letter after it alone is no revised letter ("Tell(B, bag, apple).
Edit: C." may mean a Tell to C)."""
_EDIT_LABEL = re.compile(rf"\(?\s*{_EDIT}", _FLAGS)
_INSTEAD = re.compile(r"\binstead\W*$", _FLAGS)
"""A sentence that ends by taking back what came before ("I'll choose C instead."), unless
another player acts in it (`_OTHERS_ACT`)."""
_OTHERS_ACT = re.compile(
    rf"(?:\b{_OTHER}|\b(?i:he|she|they))\s+(?i:would|will|could|might|may|should|can|then)\b"
)
"""Another player's act ("B would then Ask(C, bag) instead.")."""
_CHANGE = r"(?:chang|switch)(?:e|es|ed|ing)?\s+my\s+(?:answer|choice|pick|selection)\s+to"
"""Words that change a choice ("I'll change my answer to E"; not "switching to C", a
player's view)."""
_CHANGED = re.compile(rf"\b{_CHANGE}\b", _FLAGS)
_DOUBTS = r"but|though|although|except|if|unless"
"""Words after a choice that take it back or bind it ("..., but C stayed", "..., if B left")."""
_DOUBT_AFTER = re.compile(rf"\b(?:{_DOUBTS}|wait)\b", _FLAGS)
"""What doubts a change of the answer after it ("I'd change my answer to E, but C stayed."
changes nothing)."""
_CLAUSE_BREAK = re.compile(
    r"[,;:.!?]|\s[-\u2014\u2013]+\s|\b(?:but|so|since|because|as|therefore|then)\b", _FLAGS
)
"""Where a clause ends: of a revising sentence (a call's own commas aside: see `_revised_to`),
or of an answer (`_clause_around`, `_sentence_clauses`)."""
_NEEDLESS = (
    r"(?:a\s+waste|wasteful|overkill|a\s+mistake|a\s+(?:bad|poor)\s+(?:idea|move|choice|call)"
    r"|unwise|ill-advised|the\s+wrong\s+(?:move|choice|call)"
    r"|too\s+(?:costly|expensive|risky|much))"
    r"(?=\s*(?:[.,;:!)\n]|$)|\s+(?:and|so|but|since|because|given|here|anyway)\b)"
)
"""What judges an action not worth its cost ("is overkill", "would be too costly"), where
the judgement ends: "too risky to skip" and "a mistake not to make" choose it. Not "is
wrong", which may say a Tell's message is false on purpose ("Tell(C, bag, nothing) is wrong,
and that's the point")."""
_HEDGE_AFTER = re.compile(
    r"\s*(?:\?|(?:would|could|might)\s+(?:cost|waste|be\s+(?:pointless|useless|unnecessary|"
    rf"redundant|{_NEEDLESS})\b)|is\s+(?:not|unnecessary|pointless|useless|redundant|{_NEEDLESS})\b"
    r"|isn't|wastes|won't|doesn't|does\s+not|gains?\s+nothing|adds?\s+nothing"
    r"|,?\s*or\s+(?:maybe|perhaps|possibly)\b"
    r"|(?:only\s+)?(?:helps?|works?|makes\s+sense)\s+(?:only\s+)?(?:if|when)\b)",
    _FLAGS,
)
"""What doubts or rejects the action it follows ("Ask(B, bag) would cost 0.5", "Ask(B, bag),
or maybe ...", "telling C the bag is empty helps if C ...")."""
_WOULD = re.compile(r"\bwould\b|(?<=\w)['\u2019]d\b", _FLAGS)
"""A "would", which a condition may bind ("I would", "I'd")."""
_IF = (
    r"(?:if|unless)\b(?!\s+(?:anything|in\s+doubt|it\s+(?:were|was)\s+up\s+to\s+me"
    r"|you\s+ask\s+me|forced\s+to|the\s+goal\s+is|I\s+(?:understand|read|see)\b"
    r"|I(?:'m|\s+am)\s+(?:(?:not\s+)?(?:missing|reading|right|correct|mistaken|wrong)|forced\s+to)"
    r"|I\s+(?:must|had\s+to|have\s+to|were\s+to|need\s+to))\b)"
)
"""The words if and unless as a condition ("if B had stayed"; not the answerer's hedges and
idioms: "if I had to pick one", "if anything", "unless I'm missing something", "if I
understand the story correctly")."""
_OPENING_CONDITION = re.compile(
    rf"\W*(?:(?:\w+(?:\s+\w+)?\s*,|but|and|so|well|now|ok(?:ay)?)\s*)?(?:{_IF}|(?:had|were)\b)",
    _FLAGS,
)
"""A sentence that opens with a condition, maybe after a word or two ("If B had stayed, ...",
"However, if B had stayed, ...", "Had C stayed, ...")."""
_CONDITION_AFTER = re.compile(rf"\s*,?\s*(?:only\s+)?(?:{_IF}|provided\b)", _FLAGS)
"""A condition right after an action ("I would pass if nothing had changed", "... only if")."""
_RULES = r"\b(?:normally|usually|ordinarily|typically|generally|otherwise)\b"
_AS_A_RULE = re.compile(_RULES, _FLAGS)
"""What makes a "would" what the answerer does as a rule, not now ("Normally I'd pass")."""
_RULE_BEFORE = re.compile(rf"{_RULES}[\s,]*(?:I|we)\s*(?:would\b|['\u2019]d\b)", _FLAGS)
"""A rule with a comma before the answerer's "would" ("Otherwise, I would pass")."""
_CONCLUDING = re.compile(rf"\b(?:{_THEREFORE})\b", _FLAGS)
"""A conclusion, which ends what an opening condition binds ("If he returns, ..., so I'd")."""
_NOT_CONCLUDING_BEFORE = re.compile(r"\b(?:if|even|more|less)\s*$", _FLAGS)
_NOT_CONCLUDING_AFTER = re.compile(
    r"(?:is|are|was|were|would|will|does|do|did|can|could|should|shall|must|has|have)\b",
    _FLAGS,
)
"""What makes "so" no conclusion: "if so", "even more so" before it, and a verb before its
subject after it ("and so is Ask(C, bag)", "so should I pass")."""

_LEANING = r"I(?:\s+(?:think|believe|(?:would|will)\s+say|say)|['\u2019](?:d|ll)\s+say)"
"""What opens a choice stated as the answerer's view ("I think B.")."""
_WHOLE_LETTER = re.compile(
    rf"\W*(?:(?:{_THEREFORE}|then|ok(?:ay)?|{_LEANING})\W+)?(?:(?:option|choice|letter)\s*)?"
    r"\(?([a-z])\)?"
    r"(?:\s+it\s+is(?:,?\s+then)?)?\W*",
    _FLAGS,
)
# A letter counts after a keyword ("option C", "my choice is B") or as a whole line or
# line label ("B", "B) Ask(B, bag)"); uppercase only, so prose like "a box" is no letter.
# Not one of alternatives ("choosing B or D") nor a player's letter before a verb ("I'd
# recommend B tell C"), nor a choice weighed ("Choosing B means paying 0.5").
_NAMED_LETTER = re.compile(
    r"\b(?i:option|choice|letter|answer|choos(?:e|ing)|chose|pick(?:ing)?|select(?:ing)?"
    rf"|recommend(?:ing)?|go(?:ing)?\s+with|opt(?:ing)?\s+for|{_CHANGE})"
    r"(?i:\s+(?:is|(?:would|will)\s+be)|\s*:)?"
    r"\s*(?i:option\s*)?\(?([A-Z])\)?(?![\w(]|['\u2019]s\b)"
    r"(?!\s*(?i:or|/)\s*(?i:option\s*)?\(?[A-Z]\b|\s+(?:tell|ask|be|means|costs|wastes)\b)",
    re.ASCII,
)
_PRAISED_LETTER = re.compile(
    rf"(?i:(?:{_THEREFORE}|then|{_LEANING})[\s,]+)?(?i:option\s*)?\(?([A-Z])\)?\s+"
    r"(?i:is|seems|would\s+be)\s+(?i:(?:clearly|definitely|certainly)\s+)?"
    r"(?i:(?:the|my|our)\s+(?:(?:best|optimal|correct|right|final)\s+)?"
    r"(?:option|answer|move|action)|(?:the\s+)?(?:best|optimal)"
    r"(?:\s+(?:option|answer|move|action))?)"
    r"(?=\s*(?:$|[.!,;:(]|\s-+\s|(?i:because|since|as|given|here|overall)\b))",
    re.ASCII,
)
"""A letter a sentence opens by calling it the best or the answer ("B is the best option.",
"C is my answer, since ...", "I think D is best"); not what is said of players ("B is the
best person to ask", "B is correct", "B is the best choice")."""
_REASON = r"(?i:because|since|given\s+that)\b"
_REASON_SUBJECT = (
    r"(?:[A-Z]\w*|(?i:we|it|there|nothing|(?:my|our|the)\s+(?:teammate|team|partner"
    r"|opponent|other\s+team)|(?:ask|tell|pass|mislead|inform)(?:ing)?"
    r"|(?:this|that)(?=\s+(?:is|was|would|will|helps|means|makes|gives|seems)\b|['\u2019]s\b)))\b"
)
_BARE_REASON = rf"\s+(?:(?i:because)(?!\s+(?i:of)\b)|{_REASON}(?=\s+{_REASON_SUBJECT}))"
"""Reasons after a letter with no punctuation before them: "because", but not "because of"
("C because of the absence doesn't know": a player), or "since" or "given that" before a
clause's subject ("D since B left", "D since Sally ...", "E since the opponent ..."), not a
time or a thing ("B since then has ...", "B since that moment ...", "C given that chance
would ...")."""
_REASONED_LETTER = re.compile(
    rf"(?:{_LEANING}\s+)?\(?(?!I\b)([A-Z])\)?"
    rf"(?:(?:(?:\s*,|\s*[\u2014\u2013]+|\s+-+)\s*{_REASON}|{_BARE_REASON})"
    r"(?![^,;\u2014\u2013]*?(?:[,;\u2014\u2013(]|\s-+\s)"
    rf"(?!\s*(?i:{_THEREFORE}|which)\b))[^?]*"
    rf"|\s*\(\s*{_REASON}[^()]*\)[.!]?)$",
    re.ASCII,
)
"""A letter a reply opens with before its reasons ("B, because Sally left.", "D - since
...", "D (because B left).", "I think D since B left."); not a player given a reason ("C,
because B left, doesn't know": reasons broken off by a comma, a dash or a parenthesis, but
before "so" or "which"). Not "as", which also opens a note on a player ("C, as an opponent").
The reply's other sentences decide whether it is read (`opening_letter` in
`_choice_reading`)."""
_REASONS_END = re.compile(rf"[,;:(\u2014\u2013]|\s-+\s|\b(?i:{_THEREFORE}|which)\b")
"""Where the first clause of a letter's reasons ends."""
_SECOND_PREDICATE = re.compile(
    r"\b(?:(?!(?:believ|assum|notic|learn|realiz|expect|hear)ed\b)\w+ed|was|were|is|are|left"
    r"|put|began|came|went|got|stayed|ran|took|gave)"
    r"(?:\s+(?!(?:and|but|or|so|which|who|that|when|while|because|since|if|whether|as|after"
    r"|before|until|where|then|to)\b)[\w'\u2019]+){0,6}?"
    r"\s+(?:has|hasn['\u2019]t|have|haven['\u2019]t|had|hadn['\u2019]t|doesn['\u2019]t"
    r"|didn['\u2019]t|does\s+not|did\s+not|knows|thinks|believes|remains)\b",
    _FLAGS,
)
"""What the player a letter names knows or thinks, said after the reasons' own verb with no
subject of its own ("C since it was moved has not seen it", "B because I put it there
thinks ..."): not "would", which a reason's subject may take ("because telling B where the
apple is would help")."""
_CONCLUDED_LETTER = re.compile(
    rf"[,;:]\s*(?i:{_THEREFORE})\W+(?i:option\s*)?\(?(?!I\b)([A-Z])\)?[.!]?$", re.ASCII
)
"""A letter a sentence concludes with after its reasons ("B left, so D."): uppercase, not the
pronoun I."""
_PREFERRED = (
    r"(?i:(?:is|seems|looks|would\s+be)\s+(?:(?:actually|clearly|definitely|much|far)\s+)?"
    r"(?:(?:the\s+)?better|more\s+(?:useful|helpful)|(?:the\s+)?"
    r"(?:better|best|right|correct|smarter|safer)\s+(?:choice|option|move|answer|call|pick))"
    r"|makes\s+(?:more|the\s+most)\s+sense|instead)"
    r"(?=[\s.!)]*$|\s*(?:[,:]|\s-+\s)?\s*(?i:because|since|as)\b"
    rf"(?![^.!?]*\b(?i:{_DOUBTS}|however|only|not|maybe|might|I\s+think)\b))"
)
"""What a revision says of the choice it prefers (`_PREFERRED_LETTER`, `_revised_to`): at
the sentence's end or before its reasons, with no "but", "if" or doubt after it ("Ask(B,
bag) would be better, but it costs 0.5" prefers nothing)."""
_PREFERRED_AFTER = re.compile(rf"\s*{_PREFERRED}", re.ASCII)
_PREFERRED_LETTER = re.compile(rf"(?i:option\s*)?\(?([A-Z])\)?\s+{_PREFERRED}", re.ASCII)
"""A letter a revision prefers ("Actually, D is better.", "No - D is the right choice.",
"On second thought, D instead."): read only as the revision of a letter chosen before it,
in the reply's last sentence (`_restated_letter`), since out of one "B is the best choice" is
said of a player."""
_PERSON = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their)\b", _FLAGS)
"""A pronoun of a person, which tells that a letter before it is a player."""
_RESTATED_LETTER = re.compile(
    r"(?i:make\s+(?:that|it))\s+(?i:option\s*)?\(?([A-Z])\)?[\s.!]*", re.ASCII
)
"""A letter a revision restates ("Actually, make that D."), read as `_PREFERRED_LETTER` is
(not "it's B", which may answer who left)."""
_WHO_QUESTION = re.compile(
    r"\W*(?:who|whom|whose|which\s+(?:player|teammate|opponent|person)"
    r"|(?:the\s+)?(?:person|player|one)\s+to)\b[^?]*\?",
    _FLAGS,
)
"""A question about a player, which a letter may answer ("Who left?", "The person to tell?")."""
_LABEL_LETTER = re.compile(r"^\(?([A-Z])(?:[).:-](?:\s|$)|\s*$)", re.ASCII | re.MULTILINE)
_REVISION_OPENING = (
    rf"(?i:(?:{_NO}[\s,:]*)?(?:\b(?:{_TAKING_BACK})\b|{_I_MEAN})|{_NO})[\s,:\-\u2014\u2013]*"
)
"""The words that open a revision ("No wait, ", "Actually - ", "I mean ")."""
_REVISION_LEAD = re.compile(rf"\A\(?\s*(?i:hmm+\W*)?(?:{_REVISION_OPENING})+")
_REVISED_LETTER = re.compile(
    _REVISION_OPENING + r"(?i:option\s*)?\(?(?!I\b)([A-Z])\)?(?=\s*(?:$|[,;!?)]|\.(?!\.)))",
    re.ASCII,
)
"""A letter closing a revision ("or rather C", "No wait, C.", "I mean D"), read only as the
revision of a letter committed to before it (`_commitments`): players are letters too ("My
teammate is C. No wait, B."), and "I" is a pronoun ("Wait, I..."). A letter before a colon is
a note on a player ("Wait, D: left too")."""

_ITEM = re.compile(rf"\b({'|'.join(ITEMS)})s?\b", _FLAGS)
_EMPTY = re.compile(
    r"\b(?:nothing|empty|none|no\s+(?:object|item|thing)s?)\b"
    r"|(?:\bnot|n't)\s+(?:(?:contain|hold|have)\s+)?anything\b|\u2205",
    _FLAGS,
)
_CONCLUSION = re.compile(
    rf"\b(?:{_THEREFORE}|which\s+means|meaning|{_TAKING_BACK})\b|{_NO}"
    rf"|\b(?:final|result|conclusion|currently|(?:in\s+)?summary)\s*:|{_I_MEAN}",
    _FLAGS,
)
"""What opens the conclusion of a reasoned answer ("..., so the box is empty", "Final:
stapler", "Currently: the banana") or takes back what came before ("No, ...", "Actually,
...", "sorry, I mean ..."; not "No-one")."""
_CONTAINER_WORDS = f"(?:{'|'.join(CONTAINERS)})"
_DENIED = re.compile(
    r"(?:\b(?:not|never|cannot|neither|nor)|n't)\s+"
    r"(?:(?:be|is|are|ha(?:ve|s|d|ving)|hold(?:s|ing)?|contain(?:s|ing)?|seem\s+to\s+be"
    r"|any|even|the|an?)\s+){0,3}$"
    r"|\bnor\s+(?:is|was)\s+it\s+(?:(?:the|an?)\s+)?$"
    r"|\bI\s+(?:(?:do|would|ca)\s*(?:not|n't)|cannot)\s+"
    r"(?:think|believe|suppose|reckon|expect|say)\b[^,.;:!?\n]*$"
    r"|\bI\s+doubt\b[^,.;:!?\n]*$"
    r"|\bno\s+(?:(?:longer|more)\s+(?:(?:ha(?:ve|s)|hold(?:s)?|contain(?:s)?)\s+)?)?"
    r"(?:(?:the|an?)\s+)?$",
    _FLAGS,
)
"""What before an item says it is not there: "not the apple", "doesn't hold an apple", "nor
is it the apple", "no apple", "no longer holds the apple", "I don't think it's the apple",
"I doubt it's the apple"; not a hedge ("not sure but the apple"), what did not happen to it
("Bob didn't move the apple") or what another player does not think ("she doesn't think the
apple is there")."""
_IN_A_CONTAINER = rf"in(?:side)?\s+(?:the\s+)?(?P<container>{_CONTAINER_WORDS})\b"
_ABSENT = re.compile(
    r"(?:'s|\s+(?:is|are|was|were))?(?:\s+not|n't|\s+no\s+longer)\s+"
    rf"(?:any\s*more\b|there\b|in(?:side)?\s+it\b|{_IN_A_CONTAINER})"
    r"|\s*\?\s*(?:no|nope|not\s+any\s*more|no\s+longer)(?:[,.!]|\s*$)",
    _FLAGS,
)
"""What after an item says it is not there: "the apple isn't in the box", "is not there any
more", "The apple? No."; in another container it may be what this one holds."""
_QUESTION = re.compile(r"(?:^|(?<=[.!?\n]))[^.!?\n]*\?")
"""A sentence that asks ("Is it the apple or nothing?"), which offers, not answers."""
_PLAYERS_VIEW = re.compile(
    rf"\b(?:player\s+)?{_OTHER}\s+(?:\w+\s+){{0,2}}"
    r"(?:say|says|said|think|thinks|thought|believes?|believed|guess(?:es)?|might|may|would)\b",
    _FLAGS,
)
"""Another player's view ("B might say", "C thinks")."""
_ASIDE = re.compile(r"\([^()]*\)")
"""An aside in parentheses, which explains an answer rather than gives it."""
_ASKED = re.compile(r"\s*\?")
_HELD_BY = re.compile(
    rf"(?:\b(?P<container>{_CONTAINER_WORDS})(?:\s*[:?\u2014\u2013-]+\s*it)?\s+"
    r"(?:(?:now|still|only|also)\s+)?(?P<verb>has|holds|contains|had|held|contained)"
    rf"|(?:^|[^\w\s'])[^\w\n]*(?:\d+[.)]\s*)?(?:the\s+)?(?P<label>{_CONTAINER_WORDS})"
    r"[\"'*]*\s*(?:[:=|\u2192]|->))"
    r"[\s\"'*]*(?:(?:the|an?)\s+)?$",
    _FLAGS,
)
"""What right before an item says a container holds it: "the bag has the", "the bag: it has
the" (not "Unlike the bag, it has the"), a label ("- Bag: ", "box -> ", a JSON key)."""
_PAST_HOLDING = frozenset({"had", "held", "contained"})
"""What a container held before, which says nothing of where an item is now."""
_IN_CONTAINER = re.compile(
    rf"(?:'s|\s+(?:is|remains|stays|sits|lies))?\s+(?:(?:still|now)\s+)?{_IN_A_CONTAINER}", _FLAGS
)
"""What after an item says where it is ("the apple in the bag", "the apple's still in the
box")."""
_PRONOUN_ABSENT = re.compile(
    r"(?P<before>[^.!?\n]*?)(?:\b(?:but|though|although|however|yet)\b|;)[\s,]*(?:now\s+)?"
    r"it(?:'s|\s+is)?(?:\s+not|n't|\s+no\s+longer)\s*"
    r"(?=any\s*more\b|there\b(?!\s+(?:for|in|to|as|according)\b)|in(?:side)?\s+it\b"
    rf"|{_IN_A_CONTAINER}|[.;!?]|$)",
    _FLAGS,
)
"""An item said to be there, then not, by a pronoun later in its sentence: "the apple was in
the box, but it isn't any more", "...; it isn't there now"; not "there for Bob" (another
player's view of it)."""
_WOULD_ANSWER = r"(?:would|'d)\s+(?:\w+\s+)?(?:say|answer|guess|pick|choose|reply)\b"
"""What someone would answer ("C would still say", "she'd say")."""
_WOULD_ANSWER_FOUND = re.compile(_WOULD_ANSWER, _FLAGS)
_BELIEF = re.compile(
    r"\b(?:think|thinks|thought|believes?|believed|convinced|expects?|expected|assumes?"
    r"|assumed|supposes?|supposed|imagines?|imagined|might|may|guess(?:es)?)\b"
    rf"|{_WOULD_ANSWER}",
    _FLAGS,
)
"""What a player thinks, might think or would answer ("C would still say the apple")."""
_GONE = re.compile(r"\b(?:gone|missing|lost|mov(?:e|ed)|taken|removed|empty|away|out)\b", _FLAGS)
"""An item said to be gone, which a "but it isn't" after it puts back."""
_CLAUSE = re.compile(rf"[.,;!?()\[\]\n]|\b(?:{_JOINING}|since|because|while)\b", _FLAGS)
_CLAUSE_OR_AFTER = re.compile(rf"{_CLAUSE.pattern}|\bafter\b", _FLAGS)
"""Clauses, and an event told after one that followed it ("moved to the bag after ...")."""
_HAD = re.compile(r"\bhad\s+(?:been\s+)?\w+ed\b|\bhad\s+(?:been\s+)?(?:put|taken)\b", _FLAGS)
"""A move told in the past of the story's past ("it had been put in the box")."""
"""Where a clause ends, for the container it speaks of ("- Bag: no apple" keeps its label)."""
_MOVES = (
    r"mov(?:e|es|ed|ing)|puts?|putting|plac(?:e|es|ed|ing)|t(?:ake|akes|ook|aken|aking)"
    r"|remov(?:e|es|ed|ing)|carri(?:ed|es)|dropped|transferred|swapped"
)
"""Verbs of the story's moves."""
_MOVED_BEFORE = re.compile(rf"\b(?:{_MOVES})\s+(?:(?:the|an?)\s+)?$", _FLAGS)
_MOVED = r"(?:moved|put|placed|taken|removed|carried|transferred|swapped)"
"""The story's moves as participles ("was moved")."""
_AT_FIRST = r"(?:originally|initially|previously|first|once|earlier|at\s+first)"
_WHERE_IT_WAS = (
    rf"(?:\s+(?:(?:that|which)\s+(?:was|had\s+been)\s+(?:{_AT_FIRST}\s+)?|{_AT_FIRST}\s+)"
    rf"(?:there|in\s+it|(?:in|inside)\s+(?:the\s+)?{_CONTAINER_WORDS})\b)?"
)
"""A relative clause or phrase that says where an item was, between it and its move ("the
ball which was in the box | was moved", "the ball originally in the box | was moved"), read
past."""
_MOVED_AFTER = re.compile(
    rf"{_WHERE_IT_WAS}\s+(?:(?:that|which)\s+)?(?:was|had\s+been|has\s+been|got)\s+{_MOVED}\b",
    _FLAGS,
)
"""An item moved in the story ("Anne moved the apple", "the apple was taken", "the apple
that was put", "the apple which was in the box has been moved"), not said to be in or out of
a container."""
_AND = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(?:(?:the|an?)\s+)?", _FLAGS)
"""What joins an item to one before it in a list ("the orange and the brick")."""
_OR = re.compile(r"\s*(?:,\s*)?n?or\s+(?:(?:the|an?)\s+)?", _FLAGS)
"""What joins an item to a denied one, denying it too: "not the apple or the banana"."""
_ITEM_WORDS = f"(?:{'|'.join(ITEMS)})s?"
_HELD_BEFORE = re.compile(
    r"\b(?:used\s+to\s+(?:contain|hold|have|be\s+in)|held|contained|had)\s+(?:(?:the|an?)\s+)?$",
    _FLAGS,
)
"""What a container held before ("it used to contain the brick", "it held the brick")."""
_WENT_AFTER = re.compile(rf"{_WHERE_IT_WAS}\s+(?:went|left|moved)\b", _FLAGS)
"""An item that left ("the stapler went from the box to the bag")."""
_ARROW = r"[^\S\n]*(?:->|=>|\u2192)[^\S\n]*"
_PATH = re.compile(
    # A run of spaces is taken whole ((?!...)): split with _ARROW's own spaces, its splits are
    # tried one by one, in time that grows with the square of the run.
    r"(?:[^\S\n]*:[^\S\n]*(?![^\S\n])|[^\S\n]+(?![^\S\n])(?:(?:moved|went)[^\S\n]+)?"
    rf"(?:from[^\S\n]+)?|(?={_ARROW}))"
    rf"(?:(?:the[^\S\n]+)?{_CONTAINER_WORDS})?(?:{_ARROW}(?:the[^\S\n]+)?(?P<container>{_CONTAINER_WORDS})\b)+",
    _FLAGS,
)
"""The path an item took, told with arrows ("apple: box -> bag", "apple -> bag", "the
apple went box -> basket -> bag"): the last container is where it is."""
_ITEM_PATH = re.compile(rf"{_ITEM.pattern}{_PATH.pattern}", _FLAGS)
_THERE_BEFORE = re.compile(
    r"\s+(?:was|had\s+been)\s+(?:(?:originally|initially|first|previously|once)\s+)?"
    rf"(?:there|in\s+it|(?:in|inside)\s+(?:the\s+)?{_CONTAINER_WORDS})\b"
    r"(?!\s+(?:all\s+along|still|now|the\s+whole)"
    r"|\s+(?:throughout|the\s+entire\s+time|all\s+the\s+time)[^\S\n]*(?:[.;!?\n]|$))",
    _FLAGS,
)
"""An item that was in a container before ("previously the brick was there", "the apple was
in the box, but then Bob moved it"; not "was there all along")."""
_NOT_DONE = re.compile(r"(?:\b(?:not|never|nobody|no\s+one|no-one)|n't)\b[^.;!?\n]*$", _FLAGS)
"""A move denied in the clause before an item ("Anne never moved the apple")."""
_MOVED_INTO = re.compile(
    rf"\b(?:{_MOVES}|went|goes|landed|ended\s+up)\b[^.;!?\n]{{0,80}}?\b(?:(?:to|into|in|inside)\s+(?:the\s+)?"
    rf"(?P<container>{_CONTAINER_WORDS})\b"
    rf"|(?:there|back|in)\b(?!\s+(?:(?:to|into|in)\s+)?(?:the\s+)?{_CONTAINER_WORDS}))",
    _FLAGS,
)
"""A move into a container ("Then Anne moves it to the box", "the ball went into the box"),
or to one unnamed ("the brick was moved there later", "the ball got put back", "it went
in")."""
_MOVE_VERB = re.compile(
    rf"\b(?:{_MOVES}|went|goes|landed|ended\s+up|hid|hidden|toss(?:ed|es)?|threw|thrown|stuck"
    r"|stash(?:ed|es)?|slipped|relocated|shifted|brought|returned|pulled|grabbed)\b",
    _FLAGS,
)
"""Verbs of the story's moves, as the story of an item that left the container tells them
("Then Bob hid it in the bag")."""
_AWAY = (
    r"(?:(?:taken|took|came|removed|pulled)\s+(?:it\s+)?out\b(?!\s+of)"
    rf"|removed(?:\s+it)?\b(?!\s+from\s+(?!(?:the\s+)?(?:{_CONTAINER_WORDS}|it)\b))|elsewhere\b|away\b)"
)
"""A move out of a container to none named ("then taken out", "moved it elsewhere"; not
"removed from view")."""
_PUT_INTO = re.compile(
    rf"\b(?:(?P<out>out\s+of|from)|in|into|inside|to)\s+(?:the\s+)?"
    rf"(?P<container>{_CONTAINER_WORDS}|it)\b|\b(?P<away>{_AWAY})",
    _FLAGS,
)
"""A container an item goes in or to ("was moved from the box to the basket": basket; "put
the apple in it": it), or `out` of, or `away` to none ("then taken out")."""
_ATTEMPT = re.compile(
    r"\b(?:tri(?:ed|es)|try|wants?|wanted|would|could|will|going\s+to|plan(?:s|ned)?"
    r"|pretend(?:s|ed)?|almost|fail(?:s|ed))\b|'ll\b",
    _FLAGS,
)
"""A move only tried, meant or to come ("Bob wanted to move it to the bag", "Anne will put
it back")."""
_ITEM_OR_STOP = re.compile(
    rf"\b(?P<item>{_ITEM_WORDS})\b|\b(?:nothing|none|empty|not|never|nobody|no\s+one)\b|n't\b"
    rf"|{_BELIEF.pattern}|{_ATTEMPT.pattern}",
    _FLAGS,
)
"""Where the story of one item's moves stops: another item is named, or a clause says
nothing, not, what someone thinks or what was only tried ("moved from the box to the basket,
and nothing else went into the box")."""
_MOVE_REACH = 160
"""How far after an item its moves are read (a clause or two: "went into the box first,
then was moved to the bag")."""
_THEN = r"(?:then|later|afterwards|after\s+that|finally|eventually|first|at\s+first|soon)"
_ONWARD_GAP = re.compile(
    rf"[\s,]*(?:(?:and|but)\s+)?(?:{_THEN}\b[\s,]*)*(?:(?:on|back)\s+)?", _FLAGS
)
"""What lies between two containers of one move ("to the box, then to the bag")."""
_ONWARD = re.compile(
    rf"\s*(?:(?:{_THEN}|on|back)\b[\s,]*)*"
    rf"(?:(?:from|out\s+of)\s+(?:the\s+)?{_CONTAINER_WORDS}\s+)?(?:to|into)\s+(?:the\s+)?"
    rf"(?P<container>{_CONTAINER_WORDS})\b",
    _FLAGS,
)
"""A clause that goes on to another container without a verb ("moved to the box and then to
the bag", "then on to the bag", "then from the box to the basket", "then out of the box into
the bag")."""
_BY_ITSELF = re.compile(
    rf"\b{_ITEM_WORDS}{_WHERE_IT_WAS}\s+(?:(?:that|which)\s+)?(?:was|were|got|gets|is|had\s+been"
    r"|has\s+been|went|goes)\b",
    _FLAGS,
)
"""An item as the subject of its move ("the ball was put", "the ball went", "the ball that
was put", "the ball originally in the box was moved")."""
_RELATIVE_MOVE = re.compile(
    rf"\b{_ITEM_WORDS}\s+(?:that|which)\s+(?:was|had\s+been|got)\s+[^.;!?\n]{{0,60}}?"
    rf"\b(?:(?:in|into|to)\s+(?:the\s+)?{_CONTAINER_WORDS}|(?:in|into)\s+it)\b"
    r"(?=\s+(?:was|were|got|had\s+been|has\s+been)\b)",
    _FLAGS,
)
"""A relative clause that moves its item in, before the main clause's verb ("the ball that
was put into the box | was later moved")."""
_SUBJECTLESS = re.compile(
    rf"[\s,;]*(?:(?:{_THEN}|and|but)\b[\s,]*)*(?:(?:was|were|got|had\s+been|has\s+been)\s+)?"
    rf"(?:{_THEN}\s+)?"
    r"(?:mov|tak|carri|transferr|remov|plac|put|dropp|hid|toss|shift|relocat|brought|return|went\b)",
    _FLAGS,
)
"""What goes on with the same subject ("then was moved to the bag", "but later taken
out")."""
_GOING_ON_GAP = re.compile(
    rf"[\s,;]*(?:(?:{_THEN}|and|but|was|were|got|had\s+been)\b[\s,;]*)*", _FLAGS
)
"""Clauses between a move in and one that goes on with its subject ("..., but was then
moved to the bag")."""
_MOVED_ON = re.compile(
    rf"{_MOVE_VERB.pattern}[^.;!?\n]{{0,80}}?\b(?:to|into|in|inside)\s+(?:the\s+)?"
    rf"(?P<container>{_CONTAINER_WORDS})\b",
    _FLAGS,
)
"""A move to a container named ("Bob relocated it to the basket")."""
_REFERS = re.compile(r"\bit\b", _FLAGS)
_OTHER_THING = re.compile(
    rf"\b(?:a|an|his|her|their|some|another)\s+(?!(?:{_ITEM_WORDS}|{_CONTAINER_WORDS})\b)[a-z]+",
    _FLAGS,
)
"""Something else that "it" may stand for ("Bob found a coin and put it in the basket")."""
_LOOK = re.compile(
    r"\b(?:look|search|check|peek|peer|glanc|find|found|see|saw|seen|notic|expect|hop)\w*", _FLAGS
)
"""Words of looking for an item, not moving it ("she will look for it in the box")."""
_BACK_WORD = re.compile(r"\bback\b", _FLAGS)
_BACK_ALONE = re.compile(rf"\s*(?:{_THEN}\s+)?back(?:\s+again)?\s*", _FLAGS)
"""A move back without a verb ("moved to the bag and back")."""
_BY_ME = re.compile(r"\bI(?:\s+(?:\w+\s+)?)?$", _FLAGS)
"""A's own "I" right before a belief word ("I think", "I still believe", "I'd say")."""
_BY_ME_REACH = 40
"""How far before a belief word A's own "I" is looked for (an adverb between them)."""
_MY_BELIEF = (
    r"\bI(?:\s+(?:(?:still|really|do|also|honestly|now)\s+)?(?:think|believe|guess|suppose|reckon)"
    rf"|\s*{_WOULD_ANSWER})"
)
_MY_EMPTY_BELIEF = re.compile(
    rf"{_MY_BELIEF}\b(?=(?:\s+that)?\s+(?:the\s+)?(?:{_CONTAINER_WORDS}|it)\b[^.,;:!?\n]{{0,30}}?"
    r"\b(?:empty|nothing)\b|\s+(?:empty|nothing)\b)"
    r"|(?:(?<=\bempty)|(?<=\bnothing))[^\S\n]*(?:,[^\S\n]*)?"
    rf"{_MY_BELIEF}\b(?=[^\S\n]*(?:[.,;:!?\n\u2014\u2013-]|$))",
    _FLAGS,
)
"""A's own "I think" or "I'd say" of the statement that the box is empty ("I think the box
is empty", "I'd say nothing", "Empty, I think."): A's answer. Not one of something else
("I think the ball is in the box"), nor "I don't think" or another player's view."""
_ATTRIBUTIVE_EMPTY = re.compile(rf"\bempty(?=\s+{_CONTAINER_WORDS}\b)", _FLAGS)
"""An "empty" said of a container as it was ("moved into the empty box")."""
_RELATIVE_COMMAS = re.compile(
    rf"(?P<item>\b{_ITEM_WORDS})\s*,\s*(?P<clause>(?:which|that|{_AT_FIRST})\s+[^,.;:!?\n]{{1,60}}?)"
    r"\s*,(?=\s)",
    _FLAGS,
)
"""An item's relative clause between commas ("The ball, which was in the box, was moved"),
read as one without them, so the item stays the subject of its move."""
_MOVED_FIRST = re.compile(
    rf"{_WHERE_IT_WAS}\s+(?:was|had\s+been|has\s+been|got)\s+{_THEN}\s+{_MOVED}\b", _FLAGS
)
"""An item moved in the story, with a word of time ("the brick was first put")."""
_NOW_IN = re.compile(
    r"\s+(?:is|remained|remains|stayed|stays|sits|sat|lies|ended\s+up|was\s+left)\s+"
    rf"(?:(?:still|now)\s+)?(?:in|inside)\s+(?:the\s+)?(?P<container>{_CONTAINER_WORDS})\b",
    _FLAGS,
)
"""An item said to be in a container now ("the ball remained in the bag")."""
_EARLIER = re.compile(r"\bafter\b[^.;!?\n]{0,60}?\bhad\b", _FLAGS)
"""An event told after one that followed it ("moved to the basket after it had been put in
the box")."""
_NO_MORE = re.compile(r"\bno\s+(?:other|more|further|one|object|item|thing)", _FLAGS)
"""A move that did not happen ("No other object was put in the box")."""
_RETURNED = re.compile(
    rf"(?:\bit|{_ITEM_WORDS})\s+(?:(?!(?-i:[A-Z][a-z]+\b))[^.;!?\n]){{0,60}}?"
    r"\b(?:(?:came|comes|went|goes)\s+(?:back|home)|returned|restored|reinstated|replaced)\b"
    r"|\b(?:returned|restored|reinstated|replaced|undid)\s+(?:it|that|the)\b"
    r"|\b(?:again|still|(?:other|opposite)\s+way|over|across)\b",
    _FLAGS,
)
"""An item that came back or went the other way ("the brick left the box but came back",
"Carol restored it"; not "before Bob came back")."""
_PAST_BEFORE = re.compile(r"\b(?:was|were|been|used\s+to\s+be)\s+(?:\w+\s+)?$", _FLAGS)
_PAST_AFTER = re.compile(
    r"[\s,]*(?:before|at\s+first|at\s+the\s+start|until|earlier|initially|originally)\b", _FLAGS
)
"""What makes an empty word of the past ("was empty", "empty before", "empty until")."""
_PLAYER = re.compile(rf"\b{_OTHER}\b", _FLAGS)
"""Another player named."""
_PLAYER_OR_BELIEF = re.compile(
    rf"\b{_OTHER}\b|\b(?:think|thinks|thought|believes?|believed|belief)\b", _FLAGS
)
"""A lead of another player's view ("According to C, ...", "From B's perspective, ...")."""
_ANOTHERS_OR_SEEMING = re.compile(
    rf"\b{_OTHER}\b|\b(?:think|thinks|thought|believes?|believed|looks?|seems?|appears?)\b",
    _FLAGS,
)
"""Another player, a belief or a look, in a sentence that says empty."""
_WHEN_A_PLAYER = re.compile(
    rf"\b(?:after|when|while|before|once|until|as\s+soon\s+as)\s+(?:player\s+)?{_OTHER}\b", _FLAGS
)
"""A player named only to tell the time ("after C left", "while D was out")."""
_OR_EMPTY = re.compile(
    rf"\b(?:empty|nothing)\s+or\s+(?:\w+\s+){{0,3}}?{_ITEM_WORDS}\b"
    rf"|\b{_ITEM_WORDS}\s+(?:\w+\s+){{0,2}}?or\s+(?:(?:it(?:'s|\s+is)|be)\s+)?(?:empty|nothing)\b",
    _FLAGS,
)
"""An item or nothing, undecided ("either empty or holds the brick", "the ball or nothing";
not "nothing or nobody touched it")."""
_ADDING = re.compile(
    r"\b(?:except|save|other\s+than|apart\s+from|only|plus|but|add(?:s|ed)?|arriv\w*|came"
    r"|until|then|later|at\s+first)\b",
    _FLAGS,
)
"""What in an aside adds to what came before ("except", "but", "Carol added")."""
_DOUBT = re.compile(
    r"\b(?:not\s+(?:sure|certain)|unsure|uncertain|unclear|can't\s+tell|cannot\s+tell"
    r"|don't\s+know|do\s+not\s+know|no\s+idea|depends)\b",
    _FLAGS,
)
"""Doubt after a choice, which leaves it undecided."""
_CHOSEN_ITEM = re.compile(
    rf"^\s*(?:(?:the|an?|it|it's|is|holds?|has|contains?)\s+)*{_ITEM_WORDS}\b", _FLAGS
)
"""The item of a choice between it and nothing ("either empty or [holds the brick]")."""
_ITEM_PLACE = re.compile(
    rf"^[^\S\n]*(?:(?:[-*\u2022]|\d+[.)])[^\S\n]*)?(?:the\s+)?(?P<item>{_ITEM_WORDS})[^\S\n]*"
    r"(?::|->|=>|\u2192|\s[-\u2013\u2014])[^\S\n]*(?:(?:still\s+|now\s+)?in(?:side)?\s+)?"
    rf"(?:the\s+)?(?P<container>{_CONTAINER_WORDS})\b[^\S\n]*(?:\([^()\n]*\))?[.;,]?[^\S\n]*$",
    _FLAGS | re.MULTILINE,
)
"""A line of a list of where each item is ("- orange: box"), with no path ("box -> bag")."""
_TIMES = re.compile(
    r"\b(?:until|later|earlier|previously|last|remembers?|pictures?|look(?:s|ing)?\s+for"
    r"|search(?:es|ing)?\s+for|according|sure|certain|view|mind|perspective|knows?)\b",
    _FLAGS,
)
"""Words of another time or another's view in a sentence that places an item."""
_PAST = re.compile(r"\b(?:when|were|was|if|history)\b", _FLAGS)
"""A heading of another time ("When B left:", "Where things were:")."""
_AT_THE_START = re.compile(
    r"\b(?:initial\w*|start\w*|began|begin\w*|before|first|original\w*)\b", _FLAGS
)
"""A heading of where things were at first ("Initially:", "At the start:")."""
_BARE_ANSWER = re.compile(
    r"(?:(?:probably|likely|just|only|still|now|i\s+(?:think|believe|guess)|it(?:'s|\s+is)"
    r"|(?:the\s+|my\s+)?answer\s+is|(?:it\s+)?must\s+be)\s+)*"
    rf"(?:(?:the|an?)\s+)?(?:{_ITEM_WORDS}|nothing|empty|none)[\s.!)]*",
    _FLAGS,
)
"""A conclusion that is an answer and nothing else ("so orange", "Actually, the banana.")."""
_ADVERB = r"(?:now|still|only|actually|really|currently|itself)"
_CONTAINER_STATEMENT = re.compile(
    rf"(?:(?:the\s+)?(?P<container>{_CONTAINER_WORDS})|it)\s+(?:{_ADVERB}\s+)?"
    r"(?:is|'s|contains|holds|has|(?:should|must)\s+(?:be|contain|hold|have))\b"
    rf"|(?P<equals>{_CONTAINER_WORDS})\s*="
    rf"|(?:the\s+)?(?:(?:current|final|present)\s+)?contents?\s+of\s+(?:the\s+)?"
    rf"(?P<of>{_CONTAINER_WORDS})\s*(?:is\b|are\b|:)"
    rf"|in(?:side)?\s+(?:the\s+)?(?P<inside>{_CONTAINER_WORDS}),?\s+(?:{_ADVERB}\s+)?"
    r"(?:is|are|lies|sits|remains|there(?:'s|\s+is|\s+are))\b"
    rf"|(?:(?:only\s+)?(?:the\s+)?{_ITEM_WORDS}\s+(?:is|remains|stays)|nothing\s+(?:is|remains)"
    rf"|there(?:'s|\s+is)\s+(?:nothing|(?:the|an?)\s+{_ITEM_WORDS}))"
    rf"\s+(?:(?:still|now|left)\s+)?in\s+(?:the\s+)?(?P<place>{_CONTAINER_WORDS})\b"
    rf"|(?:the\s+)?{_ITEM_WORDS}\s+in(?:side)?\s+(?:the\s+)?(?P<at>{_CONTAINER_WORDS})"
    r"(?=\s*(?:[,;.!)]|$)|\s+(?:and|but|while|whereas)\b)",
    _FLAGS,
)
"""A conclusion that states what a container holds ("so the box is empty", "so it holds
the apple", "so the apple is still in the box", "so there's nothing in the box", "so inside
the box is the apple", "so the contents of the box: the apple", "Result: apple in the box,
ball in the bag", "so the box should contain the apple", "So: bag = apple, box = empty"), not
what it might hold. An item in a container without a verb must end its clause: "the apple in
the box was moved" tells the story."""
_STATED_LEAD = re.compile(
    r"[\s\-*\u2022>#]*(?:(?:(?:right\s+now|now|currently|at\s+the\s+end|in\s+the\s+end"
    rf"|finally|{_THEREFORE}|overall|in\s+reality|in\s+fact|actually|really|but|however|yet)\b"
    r"|(?:after|since|because|as|given\s+that|following|from|based\s+on|according\s+to)\b"
    r"[^,.;:!?\n]{1,150},)[\s,:]*)*",
    _FLAGS,
)
"""What may open a plain statement of what a container holds ("Right now the box is empty",
"Since nothing else was put in, the box is empty", "After these events, nothing remains in
the box", "From my perspective, the box holds the orange", "In reality, the box is
empty", "But the box holds the brick")."""
_STATEMENT_BREAK = re.compile(r"([.!?]\s+|\n|;)")
"""Where a plain statement ends (kept, so that positions add up)."""
_GOING_ON = (
    r"then|later|after|afterwards|next|eventually|finally|meanwhile|also|hmm+|sorry|mistake"
    rf"|{_TAKING_BACK}"
)
"""Words after a statement or conclusion that the story goes on, or a second thought."""
_CONTINUED = re.compile(
    rf"\b(?:{_GOING_ON}|moves|puts|places|takes|removes|carries|too|plus|except"
    r"|save|other\s+than|apart\s+from|swap(?:s|ped)?|slipped|tossed|dropped|hid|stashed|snuck"
    r"|added)\b",
    _FLAGS,
)
"""The story going on, or second thoughts, after a statement (not its reasons, told in the
past: "the box is empty; the apple was moved to the basket")."""
_BELIEF_CONCLUSIONS = 3
"""How many conclusions in what a player thinks a reply's own may come before."""
_SETTING_AGAINST = r"[\s,;\-\u2014\u2013]*(?:although|(?:even\s+)?though|whereas"
"""The start of a clause set against a statement (the two patterns below close it)."""
_CONTRAST = re.compile(rf"{_SETTING_AGAINST}|but|while)\b", _FLAGS)
"""What opens a clause that sets another view against a statement."""
_OWN_BELIEF = re.compile(rf"^[\s,]*{_MY_BELIEF}\b", _FLAGS)
"""A's own "I believe" after a statement, which is no other player's view."""
_ANOTHERS_IGNORANCE = re.compile(
    rf"{_SETTING_AGAINST})\s+(?:(?:player\s+)?{_OTHER}|he|she|they)\b",
    _FLAGS,
)
"""What opens another player's view set against a statement ("..., though C doesn't know")."""
_HAD_FIRST = re.compile(r"^\W*had\s", _FLAGS)
"""A condition that did not hold, told by inversion ("Had Carol not taken it out")."""
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|could|would(?!\s+(?:later|then|soon|eventually|afterwards|stay|remain)\b))\b"
    rf"|(?<=\w)'d\b|{_HAD_FIRST.pattern}",
    _FLAGS,
)
"""A clause of a condition or of what would be ("if ...", "it would still be there", "Had
Carol not taken it out"; not "Bob would later put it back" or "it would stay empty until
...", which tell the story)."""
_PUT_BACK = re.compile(
    rf"\b(?:{_MOVES}|brought|returned|slipped|tossed)\b[^.,;:!?\n]{{0,40}}?\bback\b", _FLAGS
)
"""An item put back ("Bob put the apple back", "moved it back in")."""
_CONDITION = re.compile(r"\b(?:if|unless)\b", _FLAGS)
"""A condition's word."""
_UNLESS = re.compile(r"\bunless\b", _FLAGS)
_COUNTERFACTUAL = re.compile(r"\b(?:would|could|had|hadn't)\b|(?<=\w)'d\b", _FLAGS)
"""What makes a condition one that did not hold ("if Anne had put it back")."""
_HEDGED = re.compile(
    r"\b(?:might|may|could|would|probably|perhaps|maybe|possibly|likely|if|unless)\b", _FLAGS
)
_REASONS_MARK = re.compile(r":|\s[-\u2013\u2014]{1,2}\s|[\u2013\u2014]")
"""A colon or a dash, after which a statement may give its reasons."""
_RETRACTION = re.compile(rf"\b(?:{_TAKING_BACK})\b|{_NO}|{_I_MEAN}", _FLAGS)
"""What takes back a statement in its own reasons ("The box is empty: no, wait, ..."; not
"moved to the bag instead")."""
_ALTERNATIVE = re.compile(r"\s*(?:either\s+)?or\b", _FLAGS)
"""An alternative after a dash ("The box contains the ball - or the apple")."""
_OR_SO = re.compile(r"\bor\s+$", _FLAGS)
"""The "or" of "or so B thinks", which ascribes what came before to B."""
_OR_SO_REACH = 10
"""How far before a "so" its "or" is looked for."""
_ASCRIBED = re.compile(
    r"\s*(?:or\s+so|at\s+least|according\s+to|for\b|as\s+far\s+as|from\b|in\s+\w+'s\b)",
    _FLAGS,
)
"""What ascribes a statement to someone, after a dash ("The box is empty - or so B thinks")."""
_BACK_IN = re.compile(r"\b(?:back|return\w*|(?:in|into|to)\s+it)\b", _FLAGS)
"""Words of an item put back, or into "it" (the container)."""
_STATEMENT_END = re.compile(
    r"[,;]|\s(?:and|but|since|unless|until|while|whereas|because|although|though)\b", _FLAGS
)
_MORE_AFTER = re.compile(r"[.!]\s+\S|\n\s*\S")
_NARRATION = re.compile(
    rf"\b(?:{_MOVES}|brought|returned|added"
    rf"|hid|hidden|slipped|stashed|tossed|refilled|back|mixed|wrong|{_GOING_ON})\b",
    _FLAGS,
)
"""More of the story, or second thoughts, after a conclusion: what was concluded may no
longer hold."""
_PERCEIVED = re.compile(
    r"(?:\b(?:not|never)|n't)\s+(?:\w+\s+){0,2}"
    r"(?:see|saw|seen|watch(?:ed)?|notic(?:e|ed)|witness(?:ed)?)\b"
    r"|\b(?:missed|unaware|without\s+seeing)\b",
    _FLAGS,
)
"""A remark on what a player missed of the story ("C didn't see the banana being placed"),
not more of it ("Carol saw that and slipped her banana in", "then B saw Anne move it")."""
_SENTENCE_BREAK = re.compile(r"[.!?]\s+|\n")
_YES_OR_NO_END = re.compile(r"(?:\b(?:no|nope|yes|yeah|yep)\b|[\s,.!\-\u2014\u2013])*$", _FLAGS)
_CONTAINER = re.compile(rf"\b{_CONTAINER_WORDS}\b", _FLAGS)
_CONTAINER_LABEL = re.compile(
    rf"[\W\d]*(?:the\s+)?({_CONTAINER_WORDS})(?:\s*\([^()\n]{{0,60}}\))?\s*[:\-\u2013\u2014]",
    _FLAGS,
)
"""A line about one container ("- Bag: ...", "3. Basket: ...")."""
_SECTION_LABEL = re.compile(
    r"(?:^|(?<=[.!?])|\n)[^\S\n]*(?:(?:[-*\u2022|]|\d+[.)])[^\S\n]*)?"
    r"(?:what(?:'s|\s+is)\s+)?(?:in(?:side)?\s+)?(?:the\s+)?"
    rf"(?P<container>{_CONTAINER_WORDS})(?P<note>\s*\([^()\n]{{0,60}}\))?"
    r"\s*(?:\?|:|\||->|=>|\u2192|\s[-\u2013\u2014]\s)",
    _FLAGS,
)
"""A container opening a line or sentence as a label or a question ("- Bag: ...", "The
basket? ...", "In the box: ...", "What's in the box? ...", "Box -> ...", a table's "| box |",
"Box (now): ...")."""
_OTHERS_VIEW = re.compile(
    rf"^\(\s*(?:player\s+)?{_OTHER}\s*\)$"
    r"|\b(?:think|thinks|believes?|belief|view|perspective|according|expects?|assumes?)\b",
    _FLAGS,
)
"""A label's note that makes its section another player's view ("Box (B's belief): ...")."""
_START_NOTE = re.compile(
    r"\(\s*(?:at\s+(?:the\s+)?(?:start|beginning|first)|initial(?:ly)?|original(?:ly)?|before"
    r"|first|start|beginning)\s*\)",
    _FLAGS,
)
"""A label's note that makes its section what the container held at the start ("Box (at
the start): ..."; not "Box (untouched since the start): ...")."""
_OWN_VIEW = re.compile(
    r"(?-i:\b[AI]\b)|\b(?:me|my|mine|actual(?:ly)?|real(?:ly|ity)?|now|current(?:ly)?|final(?:ly)?"
    r"|not|wrong|regardless|unlike|against|despite|though|otherwise|differs?|whatever|true"
    r"|truth|moves)\b|n't",
    _FLAGS,
)
"""A label's note that makes its section A's own ("Box (what I saw): ...", "Box (now): ...",
"Box (not what B believes): ...")."""
_SECTION_END = re.compile(
    rf"(?:^|(?<=[.!?])|\n)[^\S\n]*(?:{_THEREFORE}|(?:that|this)\s+means"
    r"|in\s+conclusion|overall|finally|final\s+answer|answer|result|conclusion)\b",
    _FLAGS,
)
"""A line or sentence that opens a conclusion, which a container's section does not hold."""
_DASH_ROW = re.compile(
    rf"^[^\S\n]*\|[^\S\n]*(?:the\s+)?(?P<container>{_CONTAINER_WORDS})[^\S\n]*\|"
    r"[^\S\n]*[-\u2013\u2014\u2205]+[^\S\n]*\|",
    _FLAGS | re.MULTILINE,
)
"""A table's row that gives a container a dash, empty ("| box | - |")."""
_TABLE_ROW = re.compile(r"^[^\S\n]*\|.*\|[^\S\n]*$", re.MULTILINE)
"""A table's row, which is no answer of a few words ("| Container | Contents |")."""
_TABLE_END = re.compile(r"(?<=\|)[^\S\n]*\n(?=[^\S\n]*[^|\s])")
"""The end of a table: the line after its last row."""
_IT_IS = re.compile(r"it(?:'s|\s+is)\b", _FLAGS)
_NEGATING = r"(?:\b(?:not|never|no\s+longer)\b|n't)"
_NEGATION = re.compile(_NEGATING, _FLAGS)
_LOOK_BACK = 200
"""How far back, in characters, a reader looks for the clause, sentence or question an item
or a conclusion is in (bounded, so that reading a long reply stays linear)."""
_NOT_EMPTY = re.compile(rf"{_NEGATING}\s+(?:(?!but\b)\w+\s+){{0,2}}$", _FLAGS)
"""What negates an empty word before it ("not empty", "isn't really empty")."""
_NON_WORD = re.compile(r"[^a-z0-9'\s]+")
_LEAD_IN = re.compile(
    r"^(?:i\s+(?:think|believe|guess)\s+(?:that\s+)?)?"
    rf"(?:(?:the\s+)?(?:{_CONTAINER_WORDS}|it)\s+(?:contains|has|holds)\s+"
    r"|(?:it|there)(?:\s+is|'s)\s+)?"
)
_TRAILING_PLACE = re.compile(rf"\s+(?:in|inside)(?:\s+(?:the\s+)?(?:{_CONTAINER_WORDS}|it))?$")
_NON_ANSWER = re.compile(
    r"\b(?:know|sure|unsure|unclear|cannot|can't|sorry|unable|idea|n a|na|not applicable)\b"
)
_MAX_PHRASE_WORDS = 3
_ANGLED = re.compile(r"<\s*contents\s*>", re.IGNORECASE)
"""The format line's placeholder (`ANSWER: <contents>`); "<rubber duck>" is an answer."""
_REFUSAL = re.compile(
    r"\b(?:refus\w*|declin\w*|pass|no comment|nope|secret|rather not|not (?:telling|saying)|"
    r"not going to (?:say|tell)|(?:won't|will not|can't|cannot) (?:say|tell|share))\b",
    _FLAGS,
)
"""A reply that withholds an answer ("I refuse", "It's a secret", "I'd rather not say")."""


@dataclass(frozen=True, slots=True)
class ParsedAction:
    action: Action | None
    """None when the reply is invalid."""
    problem: str | None = None
    """One short line saying why the reply is invalid; None when it is valid."""
    slip: str | None = None
    """A format slip read past (`free` without an ACTION: line): counted, not dropped."""

    @property
    def valid(self) -> bool:
        return self.action is not None


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    contents: str | None
    """A canonical item, NOTHING, or a normalised phrase; None when the reply is invalid."""
    problem: str | None = None
    slip: str | None = None
    """A format slip read past (`free` without an ANSWER: line): counted, not dropped."""

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
    structured = _structured(text, _ACTION_KEYS)
    lines = _clean_lines(structured or text)
    if not lines:
        return _bad_action("empty reply")
    lines = [line for line in (_FORMAT_ECHO.sub("", line).strip() for line in lines) if line]
    if not lines:
        return _bad_action("a copy of the instruction's list of actions, not an action")
    if options and response_format != "action":
        reading = _choice_reading(options, vocabulary)
    else:
        reading = _action_reading(vocabulary)
    # A JSON reply's field is the format's place for the action, as an ACTION: line is.
    if response_format != "free" or structured is not None:
        return _read_reply(lines, reading)
    focus = _labelled(lines, "action")
    if focus is None:
        # A format slip: read the reply's final commitment anyway, and say so, read or not
        # (an unreadable reply without the line slipped too: format_ok counts both).
        return replace(_read_reply(lines, reading), slip="no ACTION: line")
    if not focus:
        return _bad_action("empty ACTION: line")
    return _read_reply(focus, reading)


def parse_answer(
    text: str, response_format: ResponseFormat, container: str | None = None
) -> ParsedAnswer:
    """What a reply says is in `container` (the one asked about; None: any); invalid (never
    an exception) when unreadable."""
    focus = _answer_focus(text, response_format)
    if isinstance(focus, ParsedAnswer):
        return focus
    answer = _answer_in(focus.text, container)
    return replace(answer, slip=focus.slip)


def parse_reply(
    text: str, response_format: ResponseFormat, container: str | None = None
) -> ParsedReply:
    """What A tells a player who asked it about `container`: an answer read like
    `parse_answer`, or a refusal (the word refuse or decline, naming no item)."""
    focus = _answer_focus(text, response_format)
    if isinstance(focus, ParsedAnswer):
        return ParsedReply(None, refused=False, problem=focus.problem)
    if _REFUSAL.search(focus.text) and not _items_in(focus.text):
        return ParsedReply(None, refused=True)
    answer = _answer_in(focus.text, container)
    return ParsedReply(answer.contents, refused=False, problem=answer.problem)


@dataclass(frozen=True, slots=True)
class _Focus:
    text: str
    """The part of a reply that holds the answer."""
    slip: str | None = None


def _answer_focus(text: str, response_format: ResponseFormat) -> _Focus | ParsedAnswer:
    """The part of a reply that holds the answer, or why there is none: in `free` format
    the ANSWER: line (without one, a slip read past), else a closing `Answer: X` line or
    sentence, else the whole reply."""
    _check_format(response_format)
    structured = _structured(text, _ANSWER_KEYS)
    if structured is not None:
        return _Focus(_SPACES.sub(" ", structured))
    lines = _clean_lines(text)
    if not lines:
        return ParsedAnswer(None, "empty reply")
    if response_format == "free":
        focus = _labelled(lines, "answer")
        if focus is not None and not focus:
            return ParsedAnswer(None, "empty ANSWER: line")
        if focus is not None:
            return _Focus(focus[0])
    sentences = _sentences(lines[-1])
    final = _FINAL_ANSWER.fullmatch(sentences[-1]) if sentences else None
    text = final.group(1) if final is not None else "\n".join(lines)
    return _Focus(text, "no ANSWER: line" if response_format == "free" else None)


def _structured(text: str, keys: tuple[str, ...]) -> str | None:
    """A reply that is one JSON object (structured output, or a model's own JSON) as the
    text it stands for: action fields as a call (`{"action": "ask", "player": "B",
    "container": "bag"}` is `Ask(B, bag)`), else the first of `keys` it holds. Reasoning
    fields beside them are not read: the object names its answer."""
    body = _FENCE.sub("", text).strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    fields = {str(key).lower(): value for key, value in data.items()}
    kind = str(fields.get("action", "")).lower()
    names = {"ask": ("player", "container"), "tell": ("player", "container", "contents")}
    args = [fields.get(name) for name in names.get(kind, ())]
    if args and all(isinstance(arg, str) for arg in args):
        return f"{kind.capitalize()}({', '.join(map(str, args))})"
    return next((fields[key] for key in keys if isinstance(fields.get(key), str)), None)


def _check_format(response_format: str) -> None:
    """An unknown format is a caller's bug, not a model's failure, so it raises."""
    if response_format not in RESPONSE_FORMATS:
        raise ValueError(f"unknown response format {response_format!r}")


def _bad_action(problem: str) -> ParsedAction:
    return ParsedAction(None, problem)


def _clean_lines(text: str) -> list[str]:
    """The reply's non-blank lines without markdown, bullets, quote marks and terminal
    codes, each run of spaces one space (`_SPACES`)."""
    text = _EMPHASIS.sub("", _FENCE.sub("", _TERMINAL_CODE.sub("", text)))
    text = unbox(text)
    lines = (_SPACES.sub(" ", _LINE_PREFIX.sub("", line)).strip() for line in text.splitlines())
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


@dataclass(frozen=True, slots=True)
class _Mention:
    """One place a text names an action (a call, the word pass, an option letter)."""

    outcome: ParsedAction
    start: int
    end: int
    letter: bool = False
    """Whether an option letter names it (`choice`)."""


@dataclass(frozen=True)
class _Reading:
    """What a format counts as naming an action: calls and "pass" (`action`), also option
    letters (`choice`, whose option lines may be echoed)."""

    mentions: Callable[[str], list[_Mention]]
    options_listed: bool
    nothing: str
    """The problem of a reply that names nothing."""
    revised_letter: Callable[[str, bool, bool], ParsedAction | None] | None = None
    """The option a letter closing a revision names (`_REVISED_LETTER`; `choice` only), given
    whether the choice revised was a letter and whether the sentence is the reply's last."""
    opening_letter: Callable[[list[str]], ParsedAction | None] | None = None
    """The option a letter opening the reply before its reasons names (`_REASONED_LETTER`;
    `choice` only), given the reply's sentences."""


def _read_reply(lines: list[str], reading: _Reading) -> ParsedAction:
    """The action a reply finally commits to (the module docstring gives the order)."""
    closing = _closing_statement(lines, reading)
    if closing is not None:
        return closing
    listed = _listed_lines(lines, reading)
    sentences = _without_players_named(
        [
            sentence
            for index, line in enumerate(lines)
            if index not in listed
            for sentence in _sentences(line)
        ]
    )
    chosen = _one_committed(_commitments(sentences, reading))
    if chosen is not None:
        return chosen
    for sentence in reversed(sentences):
        if sentence.endswith("?"):
            continue
        concluded = _concluded_commitment(sentence, reading)
        if concluded is not None:
            return concluded
        named = _unhedged(sentence, reading.mentions(sentence))
        if named:
            return _one_of(named)
    # A letter the reply opens with before its reasons may be a player's: it is read only
    # where nothing else is, as the first commitment (which a revision may replace).
    opening = reading.opening_letter(sentences) if reading.opening_letter else None
    if opening is not None:
        return _one_committed(_commitments(sentences, reading, opening)) or opening
    if listed and len(listed) == len(lines):
        return _bad_action("a list of options, not a choice among them")
    weighed = _distinct(
        _labels([mention.outcome])
        for sentence in sentences
        for mention in reading.mentions(sentence)
    )
    if weighed:
        return _bad_action(f"no action committed to (only weighed: {', '.join(weighed)})")
    return _bad_action(reading.nothing)


def _one_committed(committed: list[ParsedAction]) -> ParsedAction | None:
    """The one action committed to, ambiguity when several are, None when none is."""
    if len(committed) > 1:
        return _bad_action(f"ambiguous: commits to several actions ({_labels(committed)})")
    return committed[0] if committed else None


def _without_players_named(sentences: list[str]) -> list[str]:
    """The sentences but for a letter that answers a question about a player ("Who left the
    room? I think B.", "Who should I tell? B.", "Who should I tell? I'd recommend B."): a
    player, not an option. A call still answers ("Who should I ask? Ask(C, bag).")."""
    return [
        sentence
        for index, sentence in enumerate(sentences)
        if not (
            index
            and _WHO_QUESTION.fullmatch(sentences[index - 1])
            and (_is_letter_statement(sentence) or _NAMED_LETTER.search(sentence))
            and not _CALL.search(sentence)
        )
    ]


def _is_letter_statement(text: str) -> bool:
    """Whether a sentence or line is a letter alone or one it calls the best ("B.", "I think
    B.", "B is the best option.")."""
    return bool(_WHOLE_LETTER.fullmatch(text) or _PRAISED_LETTER.match(text))


def _commitments(
    sentences: list[str], reading: _Reading, opening: ParsedAction | None = None
) -> list[ParsedAction]:
    """The different actions the sentences state on their own, in order; a revision
    ("Actually, option D.", "Wait - I saw it myself. Pass.") replaces what came before, and
    a letter closing one revises a choice already made ("A. No wait, C.").
    A bare malformed call ("Ask(X, bag)") commits to nothing (alone, it says what is wrong).
    `opening` is what the first sentence commits to when it states no action alone (a letter
    before its reasons, `_REASONED_LETTER`)."""
    committed: list[ParsedAction] = []
    revising = False
    by_letter = False  # whether the last commitment chose a letter
    for index, sentence in enumerate(sentences):
        revising = revising or _is_revision(sentence)
        # A choice a revision prefers is read in the reply's last sentence only: one after it
        # may take it back ("Actually, Ask(B, bag) is better. But it costs 0.5, so Pass.").
        last = index == len(sentences) - 1
        outcome = _commitment(sentence, reading)
        if outcome is None and index == 0:
            outcome = opening
        if outcome is None and revising:
            outcome = _revised_to(sentence, reading, last)
        if outcome is None and revising and committed and reading.revised_letter:
            outcome = reading.revised_letter(sentence, by_letter, last)
        if outcome is not None and outcome.valid:
            committed = [] if revising else committed
            committed.append(outcome)
            revising = False
            by_letter = outcome is opening or any(
                mention.letter for mention in reading.mentions(sentence)
            )
    return _distinct(committed)


def _revised_to(sentence: str, reading: _Reading, preferring: bool) -> ParsedAction | None:
    """The one action a clause of a revising sentence states on its own ("On second
    thought, option D, since B is asked", "actually no, Pass"). A clause that only names an
    action ("Actually, this is better than Ask(B, bag)", "Hmm, Tell(B, bag, apple) would
    waste 0.5") revises nothing. Each clause is read around its action, so a call's own
    commas do not split it; each clause once, however many actions it names (a long clause
    of repeated actions was read again for each: "Actually " and 2,500 "pass or " took 26 s)."""
    if sentence.endswith("?"):
        return None
    breaks = [(found.start(), found.end()) for found in _CLAUSE_BREAK.finditer(sentence)]
    starts = [start for start, _ in breaks]
    ends = [end for _, end in breaks]
    clauses: dict[tuple[int, int | None], ParsedAction | None] = {}
    for mention in _unhedged(sentence, reading.mentions(sentence)):
        before = bisect.bisect_right(ends, mention.start)
        after = bisect.bisect_left(starts, mention.end)
        span = (ends[before - 1] if before else 0, starts[after] if after < len(starts) else None)
        # An action a revision prefers is the clause's ("Actually, Ask(B, bag) is better.").
        if preferring and _PREFERRED_AFTER.match(sentence, mention.end):
            span = (span[0], mention.end)
        if span not in clauses:
            clause = sentence[span[0] : span[1]].strip()
            # The revision's own opening is no word of the action ("No wait Pass.").
            lead_end = _revision_lead_end(clause)
            clauses[span] = _commitment(clause[lead_end:], reading, _REVISION_FILLER)
    stated = [outcome for outcome in clauses.values() if outcome is not None and outcome.valid]
    found = _distinct(stated)
    return found[0] if len(found) == 1 else None


def _closing_statement(lines: list[str], reading: _Reading) -> ParsedAction | None:
    """What the last closing statement (`Action: X`, `Final answer: X`) says, when it
    names an action and no revision follows it ("Action: Ask(B, bag) - actually, Pass."
    is left to the commitments, which read revisions)."""
    revised = False
    for line in reversed(lines):
        for sentence in reversed(_sentences(line)):
            closing = _CLOSING.fullmatch(sentence)
            stated = closing.group("stated") if closing else ""
            if closing and closing.group("bare") and _commitment(stated, reading) is None:
                stated = ""
            named = reading.mentions(stated) if stated else []
            if named:
                # One that only weighs ("Final answer: I won't Ask(B, bag). Pass.") leaves
                # the decision to the commitments.
                unhedged = _unhedged(stated, named)
                return None if revised or not unhedged else _one_of(unhedged)
            revised = revised or _is_revision(sentence)
    return None


def _is_revision(sentence: str) -> bool:
    """Whether a sentence takes back what came before ("Actually, ...", "Edit: ...", "C
    instead.", "I'll change my answer to E.", not "Wait?")."""
    return sentence[-1] != "?" and bool(
        _REVISION.match(sentence)
        or _EDIT_LABEL.match(sentence)
        or (_INSTEAD.search(sentence) and not _OTHERS_ACT.search(sentence))
        or _changes_answer(sentence)
    )


def _changes_answer(sentence: str) -> bool:
    """Whether a sentence changes the answer with no doubt after it (`_DOUBT_AFTER`; looked
    for once, after the first change, so a long sentence is read in one pass)."""
    change = _CHANGED.search(sentence)
    return change is not None and _DOUBT_AFTER.search(sentence, change.end()) is None


def _listed_lines(lines: list[str], reading: _Reading) -> set[int]:
    """The lines of enumerations: two or more lines in a row, each an option line (`B) ...`)
    or a bare action, naming several different ones (an echoed option list, or candidates
    listed before a choice). One action repeated is no list, nor is a bare letter (`B`)."""
    items: list[object] = []
    for line in lines:
        label = _OPTION_LINE.match(line) if reading.options_listed else None
        label = None if label and _note_on_player(line, label) else label
        bare = None if _is_letter_statement(line) else _commitment(line, reading)
        items.append(label.group(1) if label else bare)
    listed: set[int] = set()
    run: list[int] = []
    for index, item in enumerate([*items, None]):
        if item is not None:
            run.append(index)
            continue
        if len(_distinct(items[i] for i in run)) > 1:
            listed.update(run)
        run = []
    return listed


def _sentences(line: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(line) if part.strip()]


def _commitment(
    sentence: str, reading: _Reading, filler: frozenset[str] = _FILLER
) -> ParsedAction | None:
    """The action a sentence states and nothing else ("Pass.", "I'll Tell(B, bag, apple).",
    "So my move: Ask(B, bag)"): no other word than such lead-ins, no question, no heading
    (a sentence ending in a colon)."""
    if sentence.endswith(("?", ":")):
        return None
    named = reading.mentions(sentence)
    if not named or len(_distinct(mention.outcome for mention in named)) > 1:
        return None
    edges = [
        0,
        *(edge for mention in named for edge in (mention.start, mention.end)),
        len(sentence),
    ]
    rest = " ".join(sentence[edges[i] : edges[i + 1]] for i in range(0, len(edges), 2))
    if any(word not in filler for word in _WORD.findall(rest.lower())):
        return None
    return named[0].outcome


def _concluded_commitment(sentence: str, reading: _Reading) -> ParsedAction | None:
    """The action a sentence's last conclusion states and nothing else, where the sentence
    weighed actions before it ("Ask(B, bag) would help, but it costs 0.5, so I'll pass.");
    not a consequence or another player's move ("..., so next turn I can Tell(C, bag,
    nothing)", "..., so C will Pass"), nor a letter named before it, a player's ("Option D
    tells B, so B."), nor "so" that is no conclusion ("Pass is safe, and so is Ask(C,
    bag).", "...; if so, Ask(C, bag).")."""
    conclusions = list(_CONCLUDING.finditer(sentence))
    if not conclusions:
        return None
    before, rest = sentence[: conclusions[-1].start()], sentence[conclusions[-1].end() :].strip()
    if _NOT_CONCLUDING_BEFORE.search(before) or _NOT_CONCLUDING_AFTER.match(rest):
        return None
    letter = _WHOLE_LETTER.fullmatch(rest)
    if not reading.mentions(before) or (letter and _names_letter(before, letter.group(1).upper())):
        return None
    outcome = _commitment(rest, reading)
    return outcome if outcome is not None and outcome.valid else None


def _unhedged(sentence: str, named: list[_Mention]) -> list[_Mention]:
    """The mentions a sentence does not weigh, doubt or reject ("I could Ask(B, bag)",
    "no need to pass", "Ask(B, bag) would cost 0.5", "If B had stayed, I'd Ask(B, bag)")."""
    # A sentence's opening condition, and where a conclusion after it starts, found once.
    condition = _OPENING_CONDITION.match(sentence)
    concluded = _CONCLUDING.search(sentence, condition.end()) if condition else None
    kept = []
    for mention in named:
        before = sentence[max(0, mention.start - _HEDGE_WINDOW) : mention.start]
        clause = _CLAUSE_END.split(before)[-1]
        if (
            _HEDGE_BEFORE.search(clause) is None
            and _HEDGE_AFTER.match(sentence[mention.end :]) is None
            and not _conditional(sentence, mention, (before, clause), condition, concluded)
        ):
            kept.append(mention)
    return kept


def _conditional(
    sentence: str,
    mention: _Mention,
    before: tuple[str, str],
    condition: re.Match[str] | None,
    concluded: re.Match[str] | None,
) -> bool:
    """Whether the answerer's "would" before a mention is bound to a condition: one that
    opens the sentence (`condition`) with no conclusion (`concluded`, "so") between it and
    the mention ("If B had stayed, I'd Ask(B, bag)."; not "If he returns, he'll think the
    apple is there, so I'd Tell(B, bag, apple)."), one right after the mention ("I would
    pass if nothing had changed", "I would choose D, unless B knows"; not "I'd Ask(C, bag) to
    find out if C saw"), or a rule in its clause ("Normally I'd pass"): what it would do,
    not what it does. `before`: the text within `_HEDGE_WINDOW` before the mention, and its
    last clause (`_unhedged`'s)."""
    window, clause = before
    if _WOULD.search(clause) is None:
        return False
    opened = (
        condition is not None
        and condition.end() <= mention.start
        and (concluded is None or concluded.start() >= mention.start)
    )
    return (
        opened
        or _CONDITION_AFTER.match(sentence, mention.end) is not None
        or _AS_A_RULE.search(clause) is not None
        or _RULE_BEFORE.search(window) is not None
    )


def _one_of(named: list[_Mention]) -> ParsedAction:
    """The one outcome `named` agree on, or why they do not."""
    outcomes = _distinct(mention.outcome for mention in named)
    valid = [outcome for outcome in outcomes if outcome.valid]
    if len(valid) > 1:
        return _bad_action(f"ambiguous: several different actions ({_labels(valid)})")
    return valid[0] if valid else outcomes[0]


def _labels(outcomes: list[ParsedAction]) -> str:
    return ", ".join(str(outcome.action or outcome.problem) for outcome in outcomes)


def _action_reading(vocabulary: _Vocabulary) -> _Reading:
    """Calls and the word pass."""

    def mentions(text: str) -> list[_Mention]:
        passes = [_Mention(ParsedAction(PASS), m.start(), m.end()) for m in _passes(text)]
        return sorted([*_calls(text, vocabulary), *passes], key=lambda mention: mention.start)

    return _Reading(mentions, options_listed=False, nothing="no action found")


def _choice_reading(options: Sequence[Action], vocabulary: _Vocabulary) -> _Reading:
    """Option letters, and calls and "pass" as options; "pass" counts only where nothing
    else is named (`B) Pass` is option B)."""

    def mentions(text: str) -> list[_Mention]:
        whole = _WHOLE_LETTER.fullmatch(text)
        if whole is not None:
            chosen = _by_letter(whole.group(1).upper(), options)
            return [_Mention(chosen, 0, len(text), letter=True)]
        found = [
            _Mention(_by_letter(match.group(1), options), *match.span(1), letter=True)
            for pattern in (_NAMED_LETTER, _LABEL_LETTER)
            for match in pattern.finditer(text)
            if pattern is _NAMED_LETTER or not _note_on_player(text, match)
        ]
        praised = _PRAISED_LETTER.match(text, _revision_lead_end(text))
        if praised is not None:
            chosen = _by_letter(praised.group(1), options)
            found.append(_Mention(chosen, *praised.span(1), letter=True))
        concluded = _CONCLUDED_LETTER.search(text)
        # Not a letter named before in its sentence: a player ("The one who left is B, so B.").
        if concluded is not None and not _names_letter(
            text[: concluded.start(1)], concluded.group(1)
        ):
            chosen = _by_letter(concluded.group(1), options)
            found.append(_Mention(chosen, *concluded.span(1), letter=True))
        for call in _calls(text, vocabulary):
            outcome = call.outcome
            if outcome.action is not None:
                outcome = _as_option(outcome.action, options)
            found.append(_Mention(outcome, call.start, call.end))
        if not found:
            found = [_Mention(_as_option(PASS, options), m.start(), m.end()) for m in _passes(text)]
        # A letter may be both named and a line label ("Answer: B"): one mention a place.
        at = {mention.start: mention for mention in sorted(found, key=lambda m: -m.end)}
        return [at[start] for start in sorted(at)]

    def opening_letter(sentences: list[str]) -> ParsedAction | None:
        """`_REASONED_LETTER` in the first sentence, unless the reply names the letter again
        or a person after it ("C, because she left.", "C, since the opponent left. So I
        should mislead C: E.": a player), or another sentence opens the same way ("E, since
        C lies. D, since B left.": notes on players, or two choices)."""
        found = _reasoned_letter(sentences[0], 0, sentences[1:]) if sentences else None
        if found is None or any(_REASONED_LETTER.match(other) for other in sentences[1:]):
            return None
        return _by_letter(found.group(1), options)

    def revised_letter(sentence: str, after_letter: bool, last: bool) -> ParsedAction | None:
        found = (
            _REVISED_LETTER.search(sentence)
            or _restated_letter(sentence, after_letter, last)
            or _revised_reasoned_letter(sentence)
        )
        return None if found is None else _by_letter(found.group(1), options)

    return _Reading(
        mentions,
        options_listed=True,
        nothing="no option letter or action found",
        revised_letter=revised_letter,
        opening_letter=opening_letter,
    )


def _restated_letter(sentence: str, after_letter: bool, last: bool) -> re.Match[str] | None:
    """A letter a revision calls the best, leans to or concludes ("Actually, D is the best
    option.", "No wait, I think D.", "Wait, B left, so D."), or, after a letter chosen, one
    it restates ("Actually, make that D.") or, in the reply's last sentence, prefers ("No -
    D is better.", "C instead."); after a call such a letter is a player ("Tell(C, bag,
    nothing). Actually, B is better."): uppercase, and not the pronoun I; not in a
    question."""
    start = _revision_lead_end(sentence)
    if not (start or _INSTEAD.search(sentence)) or sentence.endswith("?"):
        return None
    last_clause = _CLAUSE_BREAK.split(sentence.rstrip(".!"))[-1]
    found = (
        _PRAISED_LETTER.match(sentence, start)
        or (after_letter and last and _preferred_letter(sentence, start))
        or (after_letter and _RESTATED_LETTER.fullmatch(sentence, start))
        or _WHOLE_LETTER.fullmatch(sentence, start)
        or _WHOLE_LETTER.fullmatch(last_clause)
    )
    letter = found.group(1) if found else ""
    return found if letter.isupper() and letter != "I" else None


def _preferred_letter(sentence: str, start: int) -> re.Match[str] | None:
    """`_PREFERRED_LETTER` at `start`, unless the sentence names the letter again or a person
    after it: a player ("Actually, C is better, since C left too.", "... since she left")."""
    found = _PREFERRED_LETTER.match(sentence, start)
    if found is None or _names_player(sentence[found.end(1) :], found.group(1)):
        return None
    return found


def _revised_reasoned_letter(sentence: str) -> re.Match[str] | None:
    """A letter a revision opens with before its reasons ("Actually, E because C is an
    opponent."), unless it may be a player's, as in the reply's first sentence."""
    start = _revision_lead_end(sentence)
    return _reasoned_letter(sentence, start) if start else None


def _reasoned_letter(sentence: str, start: int, later: Sequence[str] = ()) -> re.Match[str] | None:
    """`_REASONED_LETTER` at `start`, unless it may be a player's: its reasons go on to say
    what it knows, so the letter is their subject ("C because it stayed knows ...", "B since
    it was moved has not seen it"), or the rest of the sentence or the `later` sentences name
    the letter again or a person ("C, because she left.", "... So I should mislead C: E.")."""
    found = _REASONED_LETTER.match(sentence, start)
    if found is None:
        return None
    after = sentence[found.end(1) :]
    reasons = _REASONS_END.split(after, maxsplit=1)[0]
    if _SECOND_PREDICATE.search(reasons) or any(
        _names_player(text, found.group(1)) for text in (after, *later)
    ):
        return None
    return found


def _names_player(after: str, letter: str) -> bool:
    """Whether the words after a letter name it again or a person: then it is a player's
    ("C is better, since C left too", "C, because she left")."""
    return _names_letter(after, letter) or _PERSON.search(after) is not None


def _names_letter(text: str, letter: str) -> bool:
    """Whether a text names a letter as a word (a player's or an option's), also quoted or
    possessive ("B's")."""
    return re.search(rf"(?<!\w){letter}(?!\w)", text) is not None


def _revision_lead_end(sentence: str) -> int:
    """Where the words after a revision's opening start ("Hmm, actually D ..."): 0 without one."""
    lead = _REVISION_LEAD.match(sentence)
    return lead.end() if lead else 0


def _calls(text: str, vocabulary: _Vocabulary) -> list[_Mention]:
    """`Ask(...)`/`Tell(...)` calls and attempts at one ("Ask (costs 0.5)" is prose, and
    "Tell(C, ...)" a placeholder), and whole actions in words ("ask B about the bag",
    "tell B that the box holds the brick", "tell C the bag is empty"), which must name every
    argument."""
    calls = [
        _Mention(_parse_call(match, vocabulary), match.start(), match.end())
        for match in _CALL.finditer(text)
        if ("," in match.group(2) or _ONE_WORD.fullmatch(match.group(2)))
        and not _PLACEHOLDER.search(match.group(2))
    ]
    worded = []
    for pattern in (_WORDED_ASK, _WORDED_TELL, _WORDED_TELL_ITEM, _WORDED_TELL_EMPTY):
        for match in pattern.finditer(text):
            found = match.groupdict()
            args = [found["player"], found["container"]]
            kind = "tell" if "contents" in found else "ask"
            try:
                action = _build_action(
                    kind, [*args, found.get("contents", "")][: 2 + (kind == "tell")], vocabulary
                )
            except _Unparsable:
                continue
            worded.append(_Mention(ParsedAction(action), match.start(), match.end()))
    # A call written out is not named twice by the words around it.
    worded = [w for w in worded if not any(c.start <= w.start < c.end for c in calls)]
    return sorted([*calls, *worded], key=lambda mention: mention.start)


def _note_on_player(text: str, label: re.Match[str]) -> bool:
    """Whether a line label is a note on a player ("B: left before the move"), not an option
    letter: a player's letter with a colon or a dash, and the rest of its line names no
    action ("B: Pass" still labels option B)."""
    mark = text[label.end(1) : label.end()].strip()
    if label.group(1) not in CHARACTERS or not mark.startswith((":", "-")):
        return False
    rest = text[label.end(1) :].split("\n", 1)[0]
    calls = (_CALL, _WORDED_ASK, _WORDED_TELL, _WORDED_TELL_ITEM)
    return not any(pattern.search(rest) for pattern in calls) and not _passes(rest)


def _passes(text: str) -> list[re.Match[str]]:
    """Each standalone, non-negated "pass" ("I won't pass" is no Pass)."""
    return [
        match
        for match in _PASS.finditer(text)
        if _NEGATED.search(text[max(0, match.start() - _NEGATION_WINDOW) : match.start()]) is None
    ]


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
    if not items and _says_empty(phrase):
        return NOTHING
    return phrase


def _items_in(text: str) -> list[str]:
    return _distinct(match.group(1).lower() for match in _ITEM.finditer(text))


def _asserted_items(text: str, container: str | None) -> list[str]:
    """The items a text names, less those it says are not in `container` (None: any)
    ("The apple, not the banana" is apple; "Not the apple", "not the apple or the banana"
    and "The apple isn't there any more" name none; "The bag has the banana" names none of
    the box). An item's last mention about the
    container decides ("The apple was there, but now there is no apple" names none); the
    story told again ("Anne moved the apple") counts only for an item not otherwise named."""
    last_said: dict[str, bool] = {}
    denied = False
    holder = None
    end = 0
    matches = list(_ITEM.finditer(text))
    for index, match in enumerate(matches):
        following = matches[index + 1] if index + 1 < len(matches) else None
        before = text[max(end, match.start() - _NEGATION_WINDOW) : match.start()]
        denied_before = _DENIED.search(before) is not None or (
            denied and _OR.fullmatch(before) is not None
        )
        after = text[match.end() : following.start() if following else len(text)]
        # "the basket has the orange and the brick": both are the basket's.
        holder = _holder(text, match.start()) or (holder if _AND.fullmatch(before) else None)
        denied = (
            denied_before
            or _absent(text, match.end(), container)
            or _pronoun_absent(after, container, holder.container if holder else None)
        )
        end = match.end()
        item = match.group(1).lower()
        moved = _MOVED_BEFORE.search(before) or _MOVED_AFTER.match(text, end)
        if denied_before:
            if _of_another(text, match, container):
                continue  # "the basket has no apple" says nothing of the box
        elif not (moved or denied or _BELIEF.search(before)) and _held_elsewhere(
            text, match, container, holder, after
        ):
            continue  # nor does "the basket has the apple"
        if moved and not denied:
            # The story told again ("because Anne moved the apple to the basket") leaves
            # what was said of the item as it was; alone, it is all there is to read.
            last_said.setdefault(item, True)
            continue
        last_said[item] = not denied
    return [item for item, there in last_said.items() if there]


def _of_another(text: str, match: re.Match[str], container: str | None) -> bool:
    """Whether what `match` finds (a denied item, an empty word) is spoken of in a container
    other than `container`: one named right after it ("no apple in the bag"), else the
    nearest before it in its clause ("the bag has no apple", "- Bag: empty")."""
    if container is None:
        return False
    named = _named_after(text, match)
    if named is None:
        clause = _CLAUSE.split(text[max(0, match.start() - _LOOK_BACK) : match.start()])[-1]
        found = [found.group().lower() for found in _CONTAINER.finditer(clause)]
        named = found[-1] if found else None
    return named is not None and named != container


def _held_elsewhere(
    text: str, match: re.Match[str], container: str | None, holder: _Holder | None, after: str
) -> bool:
    """Whether the item `match` finds is said to be in a container other than `container`:
    one named right after it ("the apple is in the bag"), else one said to hold it now,
    `holder` ("the bag has the apple", "- Bag: apple"; not "the box has the bag's apple",
    "what was in the bag: the apple" or "the bag had the apple"), unless `after`, the text
    up to the next item, puts it in `container`."""
    if container is None:
        return False
    named = _named_after(text, match)
    if named is None and holder is not None and not holder.past:
        named = holder.container
    return (
        named is not None
        and named != container
        and _plainly_placed(text, match)
        and not _put_in(after, container)
    )


def _plainly_placed(text: str, match: re.Match[str]) -> bool:
    """Whether the sentence of what `match` finds says where things are now, plainly: no
    move, time, correction or other player in it ("The apple in the bag was moved to the
    box", "At first the bag holds the apple", "The bag has the apple - no wait, the box",
    "For B, the bag has the apple"), and no story after it ("... Carol swapped them")."""
    start, end = _sentence_around(text, match)
    sentence = text[start:end]
    return not (
        _NARRATION.search(sentence)
        or _taken_back(sentence)
        or _PLAYER_OR_BELIEF.search(sentence)
        or _AT_THE_START.search(sentence)
        or _TIMES.search(sentence)
        or _story_ends(text) > end
    )


@functools.lru_cache(maxsize=8)
def _story_ends(text: str) -> int:
    """Where the story a reply tells ends: after its last move, time word or second thought
    (-1 without one). Remembered for the last few replies: every item of a reply asks."""
    ends = [found.end() for pattern in (_NARRATION, _CONTINUED) for found in pattern.finditer(text)]
    return max(ends, default=-1)


def _put_in(after: str, container: str) -> bool:
    """Whether the text after an item, up to the next, puts it in `container` ("The ball in
    the basket went to the box", "Bag: apple -> box", "... - the box does")."""
    named = re.escape(container)
    sentence = _SENTENCE_BREAK.split(after, maxsplit=1)[0]
    put = re.compile(
        rf"(?:\b(?:in|into|to|inside)|->|\u2192)\s*(?:the\s+)?{named}\b"
        rf"|\b{named}\s+(?:does|did|has\s+it|holds\s+it)\b",
        _FLAGS,
    )
    # Not where it was ("the banana that used to be in the box").
    return any(
        not _PAST_BEFORE.search(sentence[: found.start()]) for found in put.finditer(sentence)
    )


def _named_after(text: str, match: re.Match[str]) -> str | None:
    """The container named right after what `match` finds ("the apple is still in the
    bag"), unless asked ("The apple is in the basket? No, ...")."""
    after = _IN_CONTAINER.match(text, match.end())
    if after is None or _ASKED.match(text, after.end()):
        return None
    return after.group("container").lower()


class _Holder(NamedTuple):
    """A container said to hold an item, and whether it held it before rather than now."""

    container: str
    past: bool


def _holder(text: str, start: int) -> _Holder | None:
    """The container that, right before an item at `start`, is said to hold it, and whether
    it held it before rather than now ("the bag has the apple", "- Bag: apple", "I looked in
    the bag: it has the apple"; "the bag had the apple")."""
    window = max(0, start - _LOOK_BACK)
    line = text[text.rfind("\n", window, start) + 1 or window : start]
    held = _HELD_BY.search(line)
    if held is None:
        return None
    named = held.group("container") or held.group("label")
    return _Holder(named.lower(), held.group("verb") in _PAST_HOLDING)


def _absent(text: str, position: int, container: str | None) -> bool:
    """Whether what follows an item at `position` says it is not in `container`."""
    absent = _ABSENT.match(text, position)
    if absent is None:
        return False
    named = absent.group("container")
    return named is None or container is None or named.lower() == container


def _pronoun_absent(after: str, container: str | None, holder: str | None) -> bool:
    """Whether `after`, the text from an item to the next, takes it out of `container` by a
    pronoun ("... was in the box, but it isn't any more", "You might think the apple is in
    the box; it isn't"). Not when the item was first said to be in another container ("the
    apple is in the bag, but it isn't", "The bag had the apple; it isn't there now", the
    `holder` named before it), or to be gone: then "but it isn't" puts it back ("Bob thinks
    the apple is missing, but it isn't")."""
    absent = _PRONOUN_ABSENT.match(after)
    if absent is None:
        return False
    if _GONE.search(absent.group("before")):
        return False
    if container is None:
        return True
    named = [found.group().lower() for found in _CONTAINER.finditer(absent.group("before"))]
    named = named or ([holder] if holder else [])
    out_of = absent.group("container")
    return (not named or named[-1] == container) and (out_of is None or out_of.lower() == container)


def _distinct(values: Iterable[_T]) -> list[_T]:
    return list(dict.fromkeys(values))


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


def _answer_in(text: str, container: str | None) -> ParsedAnswer:
    # A typographic apostrophe reads as a plain one.
    text = _own_sections(text.replace("\u2019", "'"), container)
    concluded = _concluded(text, container) or _stated(text, container) or _listed(text, container)
    if concluded is not None:
        return concluded
    outside = _outside_asides(text, container)
    if outside is not None:
        return outside
    items = _asserted_items(text, container)
    emptied = _emptied_answer(text, items, container)
    if emptied is not None:
        return emptied
    if len(items) > 1:
        return ParsedAnswer(None, f"ambiguous: names several items ({', '.join(items)})")
    if items and _undecided(text):
        return ParsedAnswer(None, f"ambiguous: {items[0]} or nothing")
    if items:
        return ParsedAnswer(items[0])
    if _says_empty(text, container) or _empty_row(text, container):
        return ParsedAnswer(NOTHING)
    if _items_in(text):
        return ParsedAnswer(None, "names only what is not there")
    if text.rstrip().endswith("?"):
        return ParsedAnswer(None, "a question, not an answer")
    if _WHOLE_LETTER.fullmatch(text):
        return ParsedAnswer(None, "an option letter, not what is in the container")
    if _EMPTY.search(text):
        return ParsedAnswer(None, "not empty, but no item named")
    phrase = None if _TABLE_ROW.search(text) else _short_phrase(text)
    if phrase is None:
        return ParsedAnswer(None, "no item named")
    return ParsedAnswer(phrase)


def _empty_row(text: str, container: str | None) -> bool:
    """Whether a table's row for `container` holds a dash ("| box | - |")."""
    return any(row.group("container").lower() == container for row in _DASH_ROW.finditer(text))


def _emptied_answer(text: str, items: list[str], container: str | None) -> ParsedAnswer | None:
    """Nothing, when a reply that names `items` says `container` is empty and names them
    only in the story of how they left it (`_emptied`); undecided when it hedges that the
    box is empty ("I think it might be empty. The apple was moved to the bag." never says
    the apple is there); None otherwise."""
    emptied = _emptied(text, container) if items else None
    if emptied == "hedged":
        return ParsedAnswer(None, f"hedged: {' or '.join(items)}, or nothing")
    return ParsedAnswer(NOTHING) if emptied == "empty" else None


def _emptied(text: str, container: str | None) -> Literal["empty", "hedged"] | None:
    """The verdict "empty" when a reply says `container` is empty and names items only
    in the story of how they left it ("Empty. The brick was moved from the box to the
    basket.", "Currently empty - it used to contain the brick", "previously the brick
    was there"): none put in it ("The box was empty; then Anne put the apple in it"),
    none said to be there, no move denied ("Anne never moved the apple"), no doubt and
    no hedge of its own elsewhere ("Empty. The apple might be back in it."). What might
    have been ("Empty. If nobody had touched it, the brick would still be in the box.")
    is not read. "hedged" when the clause that says empty hedges ("Probably empty -
    ...") or what may yet be puts an item in ("Empty, unless Bob put the apple back");
    None otherwise."""
    if container is None:
        return None
    text = _RELATIVE_COMMAS.sub(r"\g<item> \g<clause>", _as_answered(text))
    if _DOUBT.search(text) or _undecided(text):
        return None
    empty = _empty_now(text, container)
    if empty is None:
        return None
    clause = _clause_around(text, empty)
    text, moved_in_if = _without_conditionals(text, clause, container)
    if _hedged_elsewhere(text, clause):
        return None
    if _moved_in(text, container) or _returned(text):  # "Then Anne moves it to the box."
        return None
    ends: dict[str, str] | None = None  # where each item's last path ends, read once
    for match in _ITEM.finditer(text):
        before = text[max(0, match.start() - _NEGATION_WINDOW) : match.start()]
        if _NOT_DONE.search(before):
            return None  # "Anne never moved the apple"
        if _elsewhere_now(text, match, before, container):
            continue  # "Carol still thinks the ball is in the box", "the ball remained in the bag"
        if _PATH.match(text, match.end()):  # "apple: box -> bag"
            ends = _path_ends(text) if ends is None else ends
            # None: the item's paths are all in someone's view ("C: apple -> bag").
            if ends.get(match.group(1).lower()) == container:
                return None
            continue
        moved = (
            _MOVED_BEFORE.search(before)
            or _MOVED_AFTER.match(text, match.end())
            or _MOVED_FIRST.match(text, match.end())
            or _WENT_AFTER.match(text, match.end())
        )
        if moved:
            if _put_last(text, match) in (container, "it"):
                return None
        elif not (_HELD_BEFORE.search(before) or _THERE_BEFORE.match(text, match.end())):
            return None
    return "hedged" if moved_in_if or _HEDGED.search(text, *clause) else "empty"


def _without_conditionals(text: str, kept: tuple[int, int], container: str) -> tuple[str, bool]:
    """A reply without what might have been, blanked so that positions hold, but for the
    clause `kept`: the condition and the "would" or "could" clauses of a sentence that sets
    one that did not hold ("If nobody had touched it, the brick would still be in the box",
    "Had Carol not taken it out, ...", "It could have stayed if B hadn't returned"), and a
    sentence with an open condition that puts an item in ("unless Bob put the apple back",
    "If Bob put it back, though, it holds the apple"), which leaves an empty box undecided
    (the flag). Any other "would", "could" or "if" stays: a hedge."""
    blanked = list(text)
    moves_in = False
    for sentence in _sentence_clauses(text):
        counterfactual = any(_counterfactual(text[start:end]) for start, end in sentence)
        puts_in = _puts_in_if(text, sentence, container)
        moves_in = moves_in or puts_in
        for start, end in sentence:
            outside = end <= kept[0] or start >= kept[1]
            if outside and (puts_in or (counterfactual and _CONDITIONAL.search(text[start:end]))):
                blanked[start:end] = " " * (end - start)
    return "".join(blanked), moves_in


def _puts_in_if(text: str, clauses: list[tuple[int, int]], container: str) -> bool:
    """Whether one of a sentence's `clauses` sets an open condition that puts an item in
    ("unless Bob put the apple back"), not one the sentence denies ("Unless someone put
    the brick back, which didn't happen, ...")."""
    if clauses and _NEGATION.search(text, clauses[0][0], clauses[-1][1]):
        return False
    return any(
        _open_condition(text[start:end]) and _puts_in(text[start:end], container)
        for start, end in clauses
    )


def _sentence_clauses(text: str) -> Iterator[list[tuple[int, int]]]:
    """Where each clause of each sentence of a text starts and ends (at `_CLAUSE_BREAK`)."""
    sentence: list[tuple[int, int]] = []
    start = 0
    for found in _CLAUSE_BREAK.finditer(text):
        sentence.append((start, found.start()))
        start = found.start()
        if found.group() in ".!?":
            yield sentence
            sentence = []
    yield [*sentence, (start, len(text))]


def _counterfactual(clause: str) -> bool:
    """Whether a clause sets a condition that did not hold ("if nobody had touched it",
    "Had Carol not taken it out", "if B hadn't returned")."""
    return _HAD_FIRST.search(clause) is not None or (
        _CONDITION.search(clause) is not None and _COUNTERFACTUAL.search(clause) is not None
    )


def _open_condition(clause: str) -> bool:
    """Whether a clause sets a condition that may hold ("unless Bob put it back", "if Bob
    put it back"), not one that did not ("if Anne had put it back")."""
    return _UNLESS.search(clause) is not None or (
        _CONDITION.search(clause) is not None and _COUNTERFACTUAL.search(clause) is None
    )


def _puts_in(clause: str, container: str) -> bool:
    """Whether a clause puts an item in the container or back ("Bob put the apple back";
    not "Bob looked back" or "the ball would be in it unless someone moved it")."""
    return _moves_into(clause, container) or _PUT_BACK.search(clause) is not None


def _hedged_elsewhere(text: str, empty_clause: tuple[int, int]) -> bool:
    """Whether a reply hedges outside the clause that says the box is empty ("Empty,
    unless I'm mistaken", "Empty. The apple might be back in it.")."""
    return any(
        not empty_clause[0] <= hedge.start() < empty_clause[1] for hedge in _own_hedges(text)
    )


def _own_hedges(text: str) -> Iterator[re.Match[str]]:
    """A reply's hedges, but for those in what another player thinks or would answer
    ("Empty - though Carol would guess the ball", "although B may think it's the apple")."""
    for hedge in _HEDGED.finditer(text):
        start, end = _clause_around(text, hedge)
        beliefs = _BELIEF.finditer(text, start, end)
        if not _not_mine(text, (found for found in beliefs if found.span() != hedge.span())):
            yield hedge


def _as_answered(text: str) -> str:
    """A reply without A's own "I think" where it states that the box is empty ("Empty, I
    think.", "I believe the box is empty"), which is A's answer, not another's view; and
    without "empty" said of a container ("moved into the empty box"), which says nothing of
    it now. Each is blanked to spaces, so the reply keeps its length."""
    text = _MY_EMPTY_BELIEF.sub(lambda found: " " * len(found.group()), text)
    return _ATTRIBUTIVE_EMPTY.sub(lambda found: " " * len(found.group()), text)


def _path_ends(text: str) -> dict[str, str]:
    """Where the last path a text tells of each item ends ("apple -> box, then apple: box
    -> bag": the apple's is the bag), but for a path someone else believes ("B's belief:
    apple -> box", "B still thinks apple -> box")."""
    ends = {}
    for mention in _ITEM.finditer(text):
        path = _PATH.match(text, mention.end())
        before = text[max(0, mention.start() - _NEGATION_WINDOW) : mention.start()]
        if path is not None and not _PLAYER_OR_BELIEF.search(_SENTENCE_BREAK.split(before)[-1]):
            ends[mention.group(1).lower()] = path.group("container").lower()
    return ends


def _returned(text: str) -> bool:
    """Whether a reply tells of an item that came back or stayed ("the brick left the box but
    came back", "the ball is still there"), outside what someone else thinks ("Carol still
    thinks the apple is in the box")."""
    return any(
        _RETURNED.search(sentence)
        for sentence in _SENTENCE_BREAK.split(text)
        if not _anothers_belief(sentence)
    )


def _anothers_belief(sentence: str) -> bool:
    """Whether a sentence tells what someone other than A thinks ("Carol still thinks ...",
    "B would expect ...", "I believe B still thinks ..."; not "I think ...")."""
    return _not_mine(sentence, _BELIEF.finditer(sentence))


def _anothers_answer(text: str) -> bool:
    """Whether a text tells what someone other than A would answer ("Bob would say"; not
    "I'd say")."""
    return _not_mine(text, _WOULD_ANSWER_FOUND.finditer(text))


def _not_mine(text: str, beliefs: Iterable[re.Match[str]]) -> bool:
    """Whether any of `beliefs` (belief words or answers found in `text`) is someone's other
    than A's: not right after A's own "I" ("I think", "I still believe", "I'd say"). Only
    the few characters before each are read, so a long text is read in linear time."""
    return any(
        _BY_ME.search(text, max(0, belief.start() - _BY_ME_REACH), belief.start()) is None
        for belief in beliefs
    )


def _elsewhere_now(text: str, item: re.Match[str], before: str, container: str) -> bool:
    """Whether a reply names `item` (`before`: the text right before it) only in what
    another player thinks ("Carol still thinks the stapler is in the box"; A's own "I think
    the ball is in the box" names it) or as in another container now ("the ball remained in
    the bag", "The bag now has the brick")."""
    if _anothers_belief(_SENTENCE_BREAK.split(before)[-1]):
        return True
    now_in = _NOW_IN.match(text, item.end())
    if now_in is not None:
        return now_in.group("container").lower() != container
    holder = _holder(text, item.start())
    return holder is not None and not holder.past and holder.container != container


def _put_last(text: str, item: re.Match[str]) -> str | None:
    """Where the story, after `item`, takes it last: the first container it goes in or to,
    then each that a later move of it names ("went into the box first, then was moved to the
    bag" is the bag; "... Then Bob moved it to the bag." too), until another item is named
    ("put the ball in the box and the apple in the bag" is the box for the ball); not where
    someone looks ("moved the ball to the bag, and later Bob looked in the box" is the bag).
    None when nowhere, or out of a container last ("put in the box, then taken out of
    it")."""
    reach = min(len(text), item.end() + _MOVE_REACH)
    limit = reach
    for stop in _ITEM_OR_STOP.finditer(text, item.end(), reach):
        named = stop.group("item")
        if named is None or named.lower().rstrip("s") != item.group(1).lower():
            limit = stop.start()
            break
    by_itself = _BY_ITSELF.match(text, item.start()) is not None
    last: re.Match[str] | None = None
    for put in _PUT_INTO.finditer(text, item.end(), limit):
        # A move out without a container carries its own verb ("then Bob took it out").
        gap = text[last.end() : put.end() if put.group("away") else put.start()] if last else ""
        if last is None or _moves_on_to(gap, last, item.group(1), by_itself):
            last = put
    if last is None or last.group("out") or last.group("away"):
        return None
    return last.group("container").lower()


def _moves_on_to(gap: str, last: re.Match[str], item: str, by_itself: bool) -> bool:
    """Whether what lies between a container an item went in or to (`last`) and the next one
    named takes the item on to it: a move without a verb (", then to"), from where it went
    ("out of the box into"), or a move of "it" or the item ("Then Bob moved it to", "Later,
    B moved the ball to"), or, when the item is the subject (`by_itself`), one that goes on
    without another ("..., then was moved to"; not "... by Anne, who then moved to")."""
    if _ONWARD_GAP.fullmatch(gap):
        return True
    if last.group("out") and not _CLAUSE.search(gap):
        return True
    if _MOVE_VERB.search(gap) is None or _EARLIER.search(gap):
        return False  # not "moved to the basket after it had been put in the box"
    return _of_the_item(gap, {item}) or (
        by_itself and _SENTENCE_BREAK.search(gap) is None and _SUBJECTLESS.match(gap) is not None
    )


def _of_the_item(text: str, items: set[str]) -> bool:
    """Whether a text speaks of the items moved: it names one of them, and no other, or says
    "it" with nothing else it could stand for before ("Bob moved it to the bag"; not "Bob
    found a coin and put it in the basket")."""
    named = set(_items_in(text))
    if named:
        return named <= items
    pronoun = _REFERS.search(text)
    return pronoun is not None and not _OTHER_THING.search(text, 0, pronoun.start())


def _moved_in(text: str, container: str | None) -> bool:
    """Whether a clause of a text moves something into `container` or to a place it does not
    name ("Then Anne moves it to the box", "except that the ball was put back", "... and
    then from the bag to the box", "then back in"), and no later clause moves it on ("The
    ball went into the box first, then was moved to the bag") unless a later one again
    moves it back ("Then Carol hid it in the box", "and back"); not a clause that says
    empty or negates ("nothing else went into the box")."""
    if container is None:
        return False
    named = re.escape(container)
    to_container = re.compile(rf"\b(?:to|into)\s+(?:the\s+)?{named}\b|\bback\s+in\b", _FLAGS)
    out_of_container = re.compile(
        rf"\b(?:{_MOVES}|went|goes)\b[^.;!?\n]{{0,40}}?\b(?:out\s+of|from)\s+(?:(?:the\s+)?{named}|it)\b"
        rf"|\b{_AWAY}",
        _FLAGS,
    )
    moved_in: _MoveIn | None = None  # the last move in, until a later clause moves it on
    left: _MoveIn | None = None  # the move in that a later clause moved on, until it is back
    since = ""  # the clauses after the last move in or on
    clauses = (part for whole in _CLAUSE_OR_AFTER.split(text) for part in _relative_parts(whole))
    for clause in clauses:
        if _EMPTY.search(clause) or _NEGATION.search(clause) or _NOT_DONE.search(clause):
            continue
        if _NO_MORE.search(clause):
            continue
        said = since + " " + clause
        earlier = _HAD.search(clause) is not None  # "after it had been put in the box"
        if not earlier and (_moves_into(clause, container) or to_container.search(clause)):
            moved_in, left, since = _MoveIn.of(clause), None, ""
        elif (
            moved_in is not None
            and _takes_on(clause, said, moved_in)
            and (_moves_elsewhere(clause, container) or out_of_container.search(clause))
        ):
            moved_in, left, since = None, moved_in, ""
        elif left is not None and _back(clause, said, left, container):
            moved_in, left, since = left, None, ""
        else:
            since = said[-_LOOK_BACK:]  # bounded: a long reply stays linear
    return moved_in is not None


def _relative_parts(clause: str) -> list[str]:
    """A clause split after a relative clause that moves its item in ("The ball that was
    put into the box | was later moved to the bag"), so the move on is a clause of its own."""
    found = _RELATIVE_MOVE.search(clause)
    return [clause] if found is None else [clause[: found.end()], clause[found.end() :]]


class _MoveIn(NamedTuple):
    """A clause that moves something into the container: the items it names, and whether
    one is its subject ("the ball was put in the box", not "Anne put the ball in the box")."""

    items: set[str]
    by_itself: bool

    @classmethod
    def of(cls, clause: str) -> _MoveIn:
        return cls(set(_items_in(clause)), _BY_ITSELF.search(clause) is not None)


def _takes_on(clause: str, said: str, moved_in: _MoveIn) -> bool:
    """Whether a later clause speaks of what `moved_in` moved (`said`: the clauses since,
    ending with it): it names it or "it", or, after a move with the item as subject and
    nothing between, goes on without one ("The ball was put in the box, then moved to the
    bag"); not what someone thinks or tried ("Carol thinks Bob moved it", "Bob tried to
    move it"), nor another thing ("then Bob put his coat in the bag")."""
    if _BELIEF.search(clause) or _ATTEMPT.search(clause):
        return False
    if _items_in(said) or _REFERS.search(said):
        return _of_the_item(said, moved_in.items)
    return _goes_on(clause, said, moved_in, _SUBJECTLESS) or _goes_on(
        clause, said, moved_in, _ONWARD
    )


def _goes_on(clause: str, said: str, move: _MoveIn, going: re.Pattern[str]) -> bool:
    """Whether `clause` (the end of `said`, the clauses since `move`) goes on with the
    item as its subject, as `going` opens it, with nothing but words of time between."""
    between = said[: len(said) - len(clause)]
    return (
        move.by_itself
        and going.match(clause) is not None
        and _GOING_ON_GAP.fullmatch(between) is not None
    )


def _back(clause: str, said: str, left: _MoveIn, container: str) -> bool:
    """Whether a clause after the item `left` the container moves it back: "and back", or a
    move of it back, into the container or to no container named ("C moved it back", "then
    Carol put it where Anne had left it", "then brought back", "then Carol popped it in the
    box"); not a look, a thought or a try ("she will look in the box", "Carol wanted to move
    it back")."""
    if _BACK_ALONE.fullmatch(clause):
        return True
    if _BELIEF.search(clause) or _ATTEMPT.search(clause) or _LOOK.search(clause):
        return False
    named = {found.group().lower() for found in _CONTAINER.finditer(clause)}
    if named - {container} or not (_MOVE_VERB.search(clause) or named):
        return False
    # "then brought back", not "then returned" (a player who came back)
    subjectless = _goes_on(clause, said, left, _SUBJECTLESS) and _BACK_WORD.search(clause)
    return bool(subjectless) or _of_the_item(said, left.items)


def _moves_into(text: str, container: str | None) -> bool:
    """Whether a text tells of a move into `container` or to a place it does not name."""
    return any(
        moved.group("container") is None or moved.group("container").lower() == container
        for moved in _MOVED_INTO.finditer(text)
    )


def _moves_elsewhere(clause: str, container: str) -> bool:
    """Whether a clause moves something to a container other than `container` ("then was
    moved to the bag", "and then to the basket")."""
    onward = _ONWARD.match(clause)
    return (onward is not None and onward.group("container").lower() != container) or any(
        moved.group("container").lower() != container for moved in _MOVED_ON.finditer(clause)
    )


def _empty_now(text: str, container: str) -> re.Match[str] | None:
    """The empty word by which a reply says `container` is empty now: not asked, not of
    the past ("The box was empty at first", "empty before") and not in a sentence that
    names another player, a belief or a look ("The box is empty, as far as B knows", "The
    box looks empty"), but for a player who only tells the time ("Empty - the orange was
    moved out of the box after C left"), in the reasons after a colon or a dash ("Empty -
    C moved the apple to the bag"; not "Empty - or so B thinks") or in what might be
    ("Empty, unless B put the apple back")."""
    said = _QUESTION.sub(lambda asked: " " * len(asked.group()), text)  # positions hold
    for match in _empty_words(said, container):
        start, end = _sentence_around(said, match)
        reasons = _REASONS_MARK.search(said, match.end(), end)
        if reasons is not None and not _ASCRIBED.match(said, reasons.end()):
            end = reasons.start()
        clause = _clause_around(said, match)
        sentence, _ = _without_conditionals(
            said[start:end], (clause[0] - start, clause[1] - start), container
        )
        sentence = _WHEN_A_PLAYER.sub(" ", sentence)
        if not (
            _PAST_BEFORE.search(said, max(0, match.start() - _NEGATION_WINDOW), match.start())
            or _PAST_AFTER.match(said, match.end())
            or _ANOTHERS_OR_SEEMING.search(sentence)
            or _anothers_answer(said[clause[0] : match.start()])  # "Bob would say it's empty"
        ):
            return match
    return None


def _sentence_around(text: str, match: re.Match[str]) -> tuple[int, int]:
    """Where the sentence `match` is in starts and ends (within the look-back window either
    side: a reply of one endless sentence is read in linear time)."""
    window = max(0, match.start() - _LOOK_BACK)
    breaks = list(_SENTENCE_BREAK.finditer(text, window, match.start()))
    reach = min(len(text), match.end() + _LOOK_BACK)
    after = _SENTENCE_BREAK.search(text, match.end(), reach)
    return breaks[-1].end() if breaks else window, after.start() if after else reach


def _clause_around(text: str, match: re.Match[str]) -> tuple[int, int]:
    """Where the clause `match` is in starts and ends, within its sentence."""
    start, end = _sentence_around(text, match)
    breaks = list(_CLAUSE_BREAK.finditer(text, start, match.start()))
    after = _CLAUSE_BREAK.search(text, match.end(), end)
    return breaks[-1].end() if breaks else start, after.start() if after else end


def _undecided(text: str) -> bool:
    """Whether a reply ends undecided between an item and nothing ("it's either empty or
    holds the brick", "the apple or nothing"): its last such choice, not asked, not what
    another player would say ("B might say it's either empty or the brick"), and nothing
    after it but doubt ("... I can't tell for sure"; "Either empty or the brick - the
    brick, since no one moved it" and "... - the latter" are decided)."""
    said = _QUESTION.sub(" ", text)
    choices = list(_OR_EMPTY.finditer(said))
    if not choices:
        return False
    choice = choices[-1]
    if _PLAYERS_VIEW.search(_SENTENCE_BREAK.split(said[: choice.start()])[-1]):
        return False
    rest = _CHOSEN_ITEM.sub("", said[choice.end() :], count=1)
    return not rest.strip(" \t\r\n.,;:!?-\u2014\u2013") or _DOUBT.search(rest) is not None


def _outside_asides(text: str, container: str | None) -> ParsedAnswer | None:
    """What a reply answers outside its asides in parentheses, which explain the answer
    ("- Box: empty (the brick was moved out)", "Box: orange (it replaced the apple)"): an
    empty word alone, unless an aside moves something in, or one item when no aside
    denies."""
    plain = _without_asides(text)
    if plain == text:
        return None
    asides = _ASIDE.findall(text)
    if not _items_in(plain):
        if not _says_empty(plain, container) or any(
            _moved_in(aside, container) for aside in asides
        ):
            return None  # "Box: empty (though the apple was put back in at the end)"
        return ParsedAnswer(NOTHING)
    if any(_NEGATION.search(aside) for aside in asides):
        return None
    items = _asserted_items(plain, container)
    emptied = _emptied_answer(plain, items, container)  # "Empty. apple: box -> bag. (B ...)"
    if emptied is not None:
        return emptied
    return ParsedAnswer(items[0]) if len(items) == 1 else None


def _without_asides(text: str) -> str:
    """`text` without its asides in parentheses, which explain rather than answer ("The box
    is empty (the ball was moved out)"); an aside that takes back what came before, or adds
    an item to it, stays."""
    return _ASIDE.sub(
        lambda aside: (
            aside.group() if _taken_back(aside.group()) or _adds_an_item(aside.group()) else " "
        ),
        text,
    )


def _taken_back(text: str) -> bool:
    """Whether a text takes back what came before ("no wait, the banana", "I mean the
    banana")."""
    return _REVISION.search(text) is not None or re.search(_I_MEAN, text) is not None


def _adds_an_item(aside: str) -> bool:
    """Whether an aside adds an item to what came before ("(except the ball Carol added)",
    "(but the ball is in it)"), rather than explains it or gives another's view ("(B would
    say banana, but no)")."""
    return (
        bool(_items_in(aside))
        and _ADDING.search(aside) is not None
        and not (_PLAYER_OR_BELIEF.search(aside) or _NEGATION.search(aside) or _taken_back(aside))
    )


def _stated(text: str, container: str | None) -> ParsedAnswer | None:
    """What the last plain statement of what `container` holds says ("The box contains the
    banana.", "Right now the box is empty; the apple was moved to the basket."), when no
    story follows it: a reply that traces the other items too names them, but says which
    is in the box. Not a statement asked, hedged, negated or in what a player thinks ("C
    thinks the box is empty"), and not one the story goes on after ("The box has the apple. Then
    Anne moves it.")."""
    if container is None:
        return None
    stated = None
    end = 0
    pieces = _STATEMENT_BREAK.split(text)
    for index, piece in enumerate(pieces):
        start, end = end, end + len(piece)
        lead = _STATED_LEAD.match(piece)
        statement = _CONTAINER_STATEMENT.match(piece, lead.end() if lead else 0)
        asked = piece.rstrip().endswith("?") or (
            index + 1 < len(pieces) and pieces[index + 1].startswith("?")
        )
        if (
            statement is None
            or _held_in(statement) != container
            or asked  # "box = empty? no, box = ball"
            or (lead and _PLAYER_OR_BELIEF.search(lead.group()))  # "According to C, ..."
        ):
            continue
        explained = piece[: statement.start()] + _without_asides(piece[statement.start() :])
        clause = _STATEMENT_END.split(explained[statement.start() :])[0]
        said = _before_reasons(clause, container)
        # Reasons cut off are not read for a hedge, a belief or a negation of the statement
        # ("The box is empty - B still thinks the apple is there", "... - C would say apple").
        cut = said != clause
        checked = explained[: statement.start() + len(said)] if cut else explained
        clause_end = statement.start() + len(said)
        if (
            any(_own_hedges(checked if cut else piece))
            or _believed(checked, clause_end)
            or _negated(checked, clause_end)
        ):
            continue
        stated = (said, start + statement.end())
    # What follows the statement's verb, its own clause included ("The box contains the
    # banana - sorry, I mean the orange").
    rest = text[stated[1] :] if stated else ""
    if (
        stated is None
        or _CONTINUED.search(rest)
        # "The box is empty. Unless Bob put the apple back, of course."
        or any(_puts_in_if(rest, sentence, container) for sentence in _sentence_clauses(rest))
    ):
        return None
    return _one_answer(_without_paths_elsewhere(stated[0], container), container)


def _before_reasons(clause: str, container: str) -> str:
    """A statement's clause up to a colon or a dash after what it says, where its reasons
    begin ("The box is empty: the apple was moved to the bag." says empty; "The box
    contains: the apple" goes on to say it); whole when what follows may put an item in
    ("The box is empty - the apple was moved back into it."), takes it back ("...: no,
    wait, ...") or is an item's path ("apple: box -> basket")."""
    said = [found.end() for found in (_EMPTY.search(clause), _ITEM.search(clause)) if found]
    mark = _REASONS_MARK.search(clause, min(said)) if said else None
    if mark is None or _PATH.match(clause, min(said)):  # "apple: box -> basket" is a path
        return clause
    reasons = clause[mark.end() :]
    if (
        _moves_into(reasons, container)
        or _BACK_IN.search(reasons)
        or _ASCRIBED.match(reasons)
        or _RETRACTION.search(reasons)  # "The box is empty: no, wait, the brick is there."
        or _ALTERNATIVE.match(reasons)  # "The box contains the ball - or the apple"
    ):
        return clause
    return clause[: mark.start()]


def _without_paths_elsewhere(statement: str, container: str) -> str:
    """A statement without the items it tells a path of to another container ("The box is
    empty: apple: box -> bag" says only empty)."""
    return _ITEM_PATH.sub(
        lambda path: path.group() if path.group("container").lower() == container else " ",
        statement,
    )


def _believed(piece: str, end: int) -> bool:
    """Whether the statement in `piece` that ends at `end` is what a player thinks, or for
    another player ("C thinks the box is empty", "the box has the apple, or so B believes",
    "the box is empty for B"); not when the belief follows a contrast ("The box is empty,
    although B thinks the apple is still there"), after A's own "I believe"."""
    after = _OWN_BELIEF.sub("", piece[end:])
    return _PLAYER_OR_BELIEF.search(piece[:end]) is not None or (
        _PLAYER_OR_BELIEF.search(after) is not None and _CONTRAST.match(after) is None
    )


def _negated(piece: str, end: int) -> bool:
    """Whether the statement in `piece` that ends at `end` is negated, or what follows it
    negates something; not what a player does not know, set against it ("The box still
    contains the orange, though C doesn't know that the banana was removed")."""
    after = _OWN_BELIEF.sub("", piece[end:])
    if _NEGATION.search(piece[:end]):
        return True
    return _NEGATION.search(after) is not None and _ANOTHERS_IGNORANCE.match(after) is None


def _listed(text: str, container: str | None) -> ParsedAnswer | None:
    """The one item a closing list of where each item is puts in `container` ("Current
    locations:\n- apple: basket\n- orange: box"); not a list of where they started, nor one
    the reply goes on after."""
    lines = list(_ITEM_PLACE.finditer(text))
    if container is None or not lines or text[lines[-1].end() :].strip():
        return None
    closing = [lines[-1]]  # the lines that end the reply, one after another
    for line in reversed(lines[:-1]):
        if text[line.end() : closing[0].start()].strip():
            break
        closing.insert(0, line)
    heading = text[: closing[0].start()].rstrip().rsplit("\n", 1)[-1]
    if len(closing) < 2 or any(
        pattern.search(heading) for pattern in (_AT_THE_START, _PLAYER_OR_BELIEF, _TIMES, _PAST)
    ):
        return None  # "Initially:", "B's view:", "Earlier:", "When B left:"
    items = [
        line.group("item").lower()
        for line in closing
        if line.group("container").lower() == container
    ]
    return ParsedAnswer(items[0]) if len(items) == 1 else None


def _one_answer(statement: str, container: str | None) -> ParsedAnswer | None:
    """The one item a statement asserts, or nothing when it names none and says empty."""
    items = _asserted_items(statement, container)
    if len(items) == 1:
        return ParsedAnswer(items[0])
    if not items and _says_empty(statement):
        return ParsedAnswer(NOTHING)
    return None


def _own_sections(text: str, container: str | None) -> str:
    """A reply that goes through the containers one by one, two or more of them labelled
    ("The box? No apple. The basket? The apple.", "- Box: banana\n- Basket: apple"), without
    the sections of the others: what it says under another container's label is not said of
    `container`. A line or sentence that opens a conclusion ("So the box is empty.",
    "Result: ...") ends a section and is kept. A reply with one label at most, or none for
    `container`, is kept whole (a label opening reasoning that goes on to other containers,
    or a list of the other containers that says what went into this one)."""
    labels = list(_SECTION_LABEL.finditer(text))
    named = {label.group("container").lower() for label in labels}
    if container is None or len(labels) < 2 or container not in named:
        return text
    starts = sorted(
        [(label.start(), _section_of(label)) for label in labels]
        + [(opener.start(), container) for opener in _SECTION_END.finditer(text)]
        + [
            (end.start(), _after_table(text, end.end(), container))
            for end in _TABLE_END.finditer(text)
        ],
        key=lambda start: start[0],
    )
    ends = [start for start, _ in starts[1:]] + [len(text)]
    kept = [text[: starts[0][0]]]
    kept += [
        text[start:end] for (start, of), end in zip(starts, ends, strict=True) if of == container
    ]
    return "\n".join(part for part in kept if part.strip())


def _after_table(text: str, start: int, container: str) -> str | None:
    """Whose the line after a table is: the container's when it states what the container
    holds ("| box | - |\nThe box is empty."), else nobody's ("B still thinks ...")."""
    line = text[start:].split("\n", 1)[0]
    lead = _STATED_LEAD.match(line)
    statement = _CONTAINER_STATEMENT.match(line, lead.end() if lead else 0)
    return container if statement is not None and _held_in(statement) == container else None


def _section_of(label: re.Match[str]) -> str | None:
    """The container a section label opens, or None for another player's view of it or
    what it held at the start ("Box (B's belief): ...", "Box (at the start): ...")."""
    note = (label.group("note") or "").strip()
    if not _OWN_VIEW.search(note) and (_OTHERS_VIEW.search(note) or _START_NOTE.fullmatch(note)):
        return None
    return label.group("container").lower()


def _concluded(text: str, container: str | None) -> ParsedAnswer | None:
    """What a reasoned answer concludes after its last `so`, `therefore` or revision, when
    that part is an answer alone ("Actually, banana") or states what `container` (None: any)
    holds, naming one item or saying empty ("The apple was moved to the basket, so the box
    is empty" is nothing, not apple). None otherwise, and the whole text is read: a
    conclusion about something else ("so nothing has changed", "so the basket is empty")
    or a hedged one ("so it might be empty") is no answer."""
    markers = list(_CONCLUSION.finditer(text))
    # What a player thinks ("..., so C thinks the box is empty") is no conclusion of A's:
    # the one before it is read, up to it (of the last few: a reply of thousands of "so he
    # thinks" would be cut thousands of times).
    for _ in range(_BELIEF_CONCLUSIONS):
        if len(markers) < 2 or not _BELIEF.search(_first_sentence(text[markers[-1].end() :])):
            break
        marker = markers.pop()
        if _OR_SO.search(text, max(0, marker.start() - _OR_SO_REACH), marker.start()):
            # "so the box is empty - or so Bob believes" is Bob's; a revision to it that
            # the reply ends on ("No, scratch that: the box is empty - or so Bob thinks")
            # leaves A no answer.
            sentences = _SENTENCE_BREAK.split(text[marker.end() :].strip(), maxsplit=1)
            ends = len(sentences) == 1 or not _items_in(sentences[-1])
            if ends and markers and _RETRACTION.match(text, markers[-1].start()):
                return ParsedAnswer(None, "revised to what another player thinks")
            return None
        text = text[: marker.start()]
    if not markers:
        return None
    marker = markers[-1]
    before = text[: marker.start()]
    conclusion = text[marker.end() :].strip().lstrip(".,;:-\u2014\u2013 ")
    if (
        not conclusion
        or conclusion.endswith("?")
        or before.count("(") > before.count(")")  # an aside
        or _answers_a_question(before)
    ):
        return None
    conclusion = _without_asides(_without_remarks(conclusion, container))
    if container is not None:
        # "No, wait, the box is empty: the apple was moved to the bag." concludes empty.
        conclusion = _before_reasons(conclusion, container)
    if not conclusion:
        return None
    bare = _BARE_ANSWER.fullmatch(conclusion) is not None
    named = None
    if not bare:
        clauses = [clause.strip() for clause in _STATEMENT_END.split(conclusion)]
        statements = [
            (clause, found) for clause in clauses if (found := _CONTAINER_STATEMENT.match(clause))
        ]
        if not statements or statements[0][0] != clauses[0]:
            return None
        # The statement's own clause ("so the box is empty, and the basket has the apple"),
        # or a later one about the container asked of ("so the basket has the apple and the
        # box is empty").
        conclusion, statement = next(
            (pair for pair in statements if _held_in(pair[1]) == container), statements[0]
        )
        named = _held_in(statement)
        # "so it is not the ball" names what is not there; "so the box is empty for B" and
        # "so the box is empty - or so Bob believes" are another's.
        if (
            _NEGATION.search(conclusion)
            or _PLAYER.search(conclusion)
            or _anothers_belief(conclusion)
        ):
            return None
    if container is not None and named is None:
        # "so it's empty" speaks of a container, as "so it holds the apple" does; "so it's
        # the apple" is an answer alone.
        says_it_is_empty = _IT_IS.match(conclusion) is not None and not _items_in(conclusion)
        named = _spoken_of(before, bare and not says_it_is_empty)
    if container is not None and named is not None and named.lower() != container:
        return None
    return _one_answer(conclusion, container)


def _without_remarks(conclusion: str, container: str | None) -> str:
    """The conclusion's first sentence, when the sentences after it are remarks ("..., so
    the box is empty. Bob didn't see it.", "Note that C didn't see the banana being
    placed.", "The ball is in the bag."); empty when they go on with the story (a move,
    "then ...") or say again what a container holds, after which the first may not hold."""
    more = _MORE_AFTER.search(conclusion)
    if more is None:
        return conclusion
    rest = conclusion[more.start() + 1 :]
    concluded = set(_items_in(conclusion[: more.start() + 1]))
    for sentence in (sentence.strip() for sentence in _SENTENCE_BREAK.split(rest)):
        if _elsewhere(sentence, container) or (
            _PERCEIVED.search(sentence)
            and not _CONTINUED.search(sentence)
            and not _moves_into(sentence, container)  # "C didn't see Anne put it back"
        ):
            continue
        if _NARRATION.search(sentence) or _CONTAINER_STATEMENT.match(sentence):
            return ""
        # An item named again is the story's, unless in what a player thinks or the one
        # concluded ("So the answer is the banana. Note that C didn't see the banana.").
        if not _BELIEF.search(sentence) and not set(_items_in(sentence)) <= concluded:
            return ""
    return conclusion[: more.start() + 1]


def _elsewhere(sentence: str, container: str | None) -> bool:
    """Whether a sentence after a conclusion only says where things are in other containers
    ("(The ball, by contrast, is in the bag.)"), which does not touch the conclusion."""
    named = {found.group().lower() for found in _CONTAINER.finditer(sentence)}
    return (
        container is not None
        and bool(named)
        and container not in named
        and not _NARRATION.search(sentence)
    )


def _first_sentence(text: str) -> str:
    return _SENTENCE_BREAK.split(text.strip(), maxsplit=1)[0]


def _held_in(statement: re.Match[str]) -> str | None:
    """The container a statement says what it holds ("the box is empty": box; "it is": None)."""
    named = next(filter(None, statement.groupdict().values()), None)
    return named.lower() if named else None


def _spoken_of(before: str, bare: bool) -> str | None:
    """The container a conclusion without one speaks of: for "so it is empty" or "so it
    holds the apple", the first its sentence names ("Anne cleared out the bag, so it is
    empty"); for an answer alone, the one its line is labelled with ("- Bag: Bob took
    everything, so empty"), since reasoning before an answer names other containers ("The
    ball went to the basket, therefore the apple")."""
    if bare:
        label = _CONTAINER_LABEL.match(before.rsplit("\n", 1)[-1])
        return label.group(1) if label else None
    first = _CONTAINER.search(_SENTENCE_BREAK.split(before)[-1])
    return first.group() if first else None


def _answers_a_question(before: str) -> bool:
    """Whether a conclusion answers a question just asked that offers no item ("Anything
    else in the box? No, nothing."), not the question ("Apple? No, banana.")."""
    # The end alone: stripping a long run of punctuation from every start is quadratic.
    asked = _YES_OR_NO_END.sub("", before[-_LOOK_BACK:])
    if not asked.endswith("?"):
        return False
    return not _items_in(_SENTENCE_BREAK.split(asked[:-1])[-1])


def _says_empty(text: str, container: str | None = None) -> bool:
    """Whether a text says empty: an empty word not negated ("not empty" and "no longer
    empty" say the opposite; "not anything" is itself an empty word), nor in a clause about
    a container other than `container` (None: any) ("- Basket: empty")."""
    return any(_empty_words(text, container))


def _empty_words(text: str, container: str | None) -> Iterator[re.Match[str]]:
    """The empty words of `_says_empty`."""
    for match in _EMPTY.finditer(text):
        negated = _NOT_EMPTY.search(text[max(0, match.start() - _NEGATION_WINDOW) : match.start()])
        if (re.match(r"not\s|n't", match.group(), _FLAGS) or negated is None) and not _of_another(
            text, match, container
        ):
            yield match


def _short_phrase(text: str) -> str | None:
    """The few words naming an unknown object (`a unicorn`), or None for prose and
    non-answers such as "I don't know"."""
    if _ANGLED.fullmatch(text.strip()):
        return None
    words = " ".join(_NON_WORD.sub(" ", text.lower().replace("\u2019", "'")).split())
    words = _TRAILING_PLACE.sub("", _LEAD_IN.sub("", words))
    # Before the articles go: the "a" of "N/A" is no article.
    if _NON_ANSWER.search(words):
        return None
    words = " ".join(_ARTICLES.sub(" ", words).split())
    if not words or len(words.split()) > _MAX_PHRASE_WORDS:
        return None
    return words
