"""Reading replies: the KNP answer letter, the IKD conclusion and quoted error, the judge's
verdict, and the word-level IoU of a quote with the gold span. Nothing here raises on any
text: a reply that cannot be read gives None, which the scorers count as invalid."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from tom_eval.boxed import last_boxed, unbox

CURLY_QUOTES = "\u2018\u2019\u201c\u201d"
_WORD = re.compile(r"[^\W_]+(?:['\u2019\-][^\W_]+)*")
_WRAPPING = " \t\r\n*_`\"'{}[]()<>#:.,;!" + CURLY_QUOTES
_BOLD = r"[ \t*_]*"
_COLON = "[:\uff1a]"
"""A colon, or the full-width one."""


def words(text: str) -> list[str]:
    """Lower-case words (letters and digits of any script, inner apostrophes and hyphens
    kept, curly apostrophes read as straight ones)."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def word_iou(gold: str, quote: str) -> float:
    """Intersection over union of the two texts' words, counted with multiplicity (the
    seed's section 3.2: IoU "at the word level"); 0 when either is empty."""
    ours, theirs = Counter(words(gold)), Counter(words(quote))
    if not ours or not theirs:
        return 0.0
    return sum((ours & theirs).values()) / sum((ours | theirs).values())


_LINE_START = r"(?:^|\n)[ \t>#\-*_]*"
"""The start of a line, with the markdown a heading or a list item opens with."""


def _after_label(reply: str, label: str, line_start: bool = False) -> str | None:
    """The text after the last `label:` (markdown bold allowed around the label and the
    colon), or after the last heading that is the label alone ("### Conclusion"), to the
    end of the reply; None without one."""
    found = _last_label(reply, label, line_start)
    return reply[found.end() :] if found else None


def _last_label(reply: str, label: str, line_start: bool = False) -> re.Match[str] | None:
    """The last `label:` or heading of the label alone (`_after_label`)."""
    start = _LINE_START if line_start else r"(?<![A-Za-z])"
    # The bold closing after the colon ("**Answer:**") is the label's, not the answer's.
    # No bold before the label: bold opening it is read past, since a match may start at
    # the label itself, and a pattern for it starts a scan at every space of a long run of
    # spaces (quadratic: 40,000 spaces took 44 s); `_LINE_START` already holds bold.
    labelled = rf"{start}(?i:{label}){_BOLD}{_COLON}{_BOLD}"
    heading = rf"{_LINE_START}(?i:{label}){_BOLD}(?=\n)"
    found = list(re.finditer(f"{labelled}|{heading}", reply))
    return found[-1] if found else None


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def _clean(text: str) -> str:
    return text.strip(_WRAPPING)


# ------------------------------------------------------------------------------------ KNP

ChoiceMethod = Literal[
    "answer_line", "answer_line_text", "bare_letter", "stated", "option_text", "mention"
]
_LETTER = re.compile(r"(?:(?i:option|choice)\s*)?([AB])(?![A-Za-z0-9])")
_STANDALONE = re.compile(r"(?<![A-Za-z])[AB](?![A-Za-z])")
_EITHER = re.compile(
    r"(?<![A-Za-z])[AB][\"'\u201d\u2019)\s]*(?:or|and|/)[\s\"'\u201c\u2018(]*[AB](?![A-Za-z])"
)
"""Both letters side by side ("A" or "B"), as in a copy of the format line."""
_QUOTES = "\"'\u201c\u2018"
_STATED = re.compile(
    rf"(?i:answer is|answer would be|choose|chooses|pick|select|go with)[\s{_QUOTES}(*]*"
    r"(?:(?i:option|choice)\s*)?([AB])(?![A-Za-z0-9])"
)
"""A letter the reply commits to: "the answer is "A"", "I choose B"."""
_LABEL = re.compile(rf"[\s*_#>{_QUOTES}(]*([AB])[\s*_{_QUOTES}]*[:)]")
"""A reply that opens as the prompt lists the options: "A: ...", "(B) ..."."""
_MENTION = re.compile(r"(?:(?i:option|choice)[\s\"'\u201c\u2018(*]*|\()([AB])(?![A-Za-z0-9])")


def choice_letter(reply: str, options: dict[str, str]) -> tuple[str | None, ChoiceMethod | None]:
    """(letter, how it was read) of a reply to the seed's Table 8 prompt, or (None, None).

    In order: the last "Answer:" line (without one, the last boxed answer, `\\boxed{B}`), as
    a letter ("Answer: B", "**Answer:** {"B"}", "Answer: Option B") or as the text of one
    option; a reply that is only a letter; the
    letter the reply commits to, by opening with it as the options are listed ("A: ...")
    or by stating it ("the answer is "A"", "I choose B"); a reply that quotes exactly one
    option's text; one letter named as "option B" or "(B)". A commitment beats a quoted
    option, which reasoning quotes to reject as often as to choose. A reply that sets the
    letters side by side ("A" or "B") commits to neither, and one that labels one option
    with the other's text ("A: <B's text>") contradicts itself: both are unread. An
    article "A" in running text is never read as a letter.
    """
    labelled = _after_label(reply, "answer")
    line = _first_line(labelled) if labelled is not None else last_boxed(reply)
    if line is not None:
        line = _clean(unbox(line))
        answered = _answer_line(line, options)
        if answered[0] is not None:
            return answered
        # An Answer line that commits to nothing is no answer, unless it is a copy of the
        # format line ("A" or "B"): the reasoning's letters are not read in its place.
        if not _EITHER.search(line):
            return None, None
    if _clean(reply) in ("A", "B"):
        return _clean(reply), "bare_letter"
    either = _EITHER.search(reply) is not None
    label = _LABEL.match(reply)
    if label is not None:
        labelled = _quoted_option(reply[label.end() :], options, prefix=True)
        if labelled not in (None, label.group(1)):
            return None, None
    stated = {
        found.group(1) for found in _STATED.finditer(reply) if not _negated(reply, found.start())
    } | ({label.group(1)} if label else set())
    if len(stated) == 1 and not either:
        return stated.pop(), "stated"
    quoted = _quoted_option(reply, options, prefix=False)
    if quoted is not None and not stated:
        return quoted, "option_text"
    named = set(_MENTION.findall(reply))
    if len(named) == 1 and not either and not stated:
        return named.pop(), "mention"
    return None, None


def _answer_line(line: str, options: dict[str, str]) -> tuple[str | None, ChoiceMethod | None]:
    """The letter an Answer line commits to: an option's text it opens with, a letter it
    opens with ("B", "Option B", "b"), the one letter it does not negate ("Probably B",
    "B (not A)"), or the one option's text it holds."""
    by_text = _quoted_option(line, options, prefix=True)
    if by_text is not None:
        return by_text, "answer_line_text"
    match = _LETTER.match(line)
    # A copy of the format line ("A" or "B") names both letters and answers nothing.
    if match and len(set(_STANDALONE.findall(line))) == 1:
        return match.group(1), "answer_line"
    alone = re.fullmatch(r"(?:(?i:option|choice)\s*)?([abAB])", line)
    if alone:
        return alone.group(1).upper(), "answer_line"
    kept = {
        found.group() for found in _STANDALONE.finditer(line) if not _negated(line, found.start())
    }
    if len(kept) == 1 and not _EITHER.search(line):
        return kept.pop(), "answer_line"
    held = _quoted_option(line, options, prefix=False)
    return (held, "answer_line_text") if held is not None else (None, None)


_NEGATION = re.compile(
    r"(?i:\bnot|\bnever|n't|\brather than|\binstead of|\bover|\bmistake to|\bwrong to|"
    r"\bavoid(?:s|ing)?|\bagainst)[\s(\"'*]*(?:(?i:option|choice)\s*)?$"
)
"""What makes the letter (or the statement of one) after it a rejected one ("not A", "rather
than option A", "it would be a mistake to pick A")."""


def _negated(text: str, at: int) -> bool:
    """Whether the letter (or statement) at `at` is negated by the words just before it."""
    return _NEGATION.search(text[max(0, at - 30) : at]) is not None


def _quoted_option(text: str, options: dict[str, str], prefix: bool) -> str | None:
    """The one option whose words begin `text` (prefix) or stand in it, if only one does.
    When one option's words hold the other's ("Go to the kitchen" and "Go to the kitchen
    and look in the fridge"), the shorter is found inside the longer: the longer is the one
    said, unless the shorter is found apart from it too."""
    said = " ".join(words(text))
    texts = {
        letter: wanted for letter, option in options.items() if (wanted := " ".join(words(option)))
    }
    found = _holding(said, texts, prefix)
    if len(found) > 1:
        longest = max(found, key=lambda letter: len(texts[letter]))
        rest = "" if prefix else f" {said} ".replace(f" {texts[longest]} ", " ").strip()
        shorter = {letter: texts[letter] for letter in found if letter != longest}
        found = [longest] if not _holding(rest, shorter, prefix) else found
    return found[0] if len(found) == 1 else None


def _holding(said: str, texts: dict[str, str], prefix: bool) -> list[str]:
    """The letters whose words begin `said` (prefix) or stand in it."""
    return [
        letter
        for letter, wanted in texts.items()
        if (said.startswith(wanted) if prefix else f" {wanted} " in f" {said} ")
    ]


def open_answer(reply: str) -> str:
    """The predicted action of an open-ended reply: what follows its last "Answer:" to the
    end of its paragraph or the next section ("Reasoning:", "Explanation:"), so that the
    judge rates the action and not the reasoning after it; what comes before the label
    when no words follow it ("He walks north.\nAnswer:"; "Answer:" alone predicts nothing);
    else the whole reply."""
    label = _last_label(reply, "answer")
    if label is None:
        return reply.strip()
    answer = re.split(_SECTION_END, reply[label.end() :].strip(), maxsplit=1)[0].strip()
    if not words(answer):
        return reply[: label.start()].strip(" \t\r\n*_#>")
    # The label took the opening of a bold answer ("**Answer:** **Walk.**"): its closing is
    # the one left unpaired ("Walk to the **kitchen**" keeps both).
    for mark in ("**", "__"):
        if answer.endswith(mark) and answer.count(mark) % 2:
            answer = answer.removesuffix(mark).strip()
    return answer


_SECTION_END = rf"\n[ \t]*\n|{_LINE_START}(?i:reasoning|explanation|justification){_BOLD}{_COLON}"
"""Where an answer ends: a blank line, or a line opening another section."""


# ------------------------------------------------------------------------------------ IKD

VerdictMethod = Literal["conclusion", "logical_error"]
_NO_ERRORS = re.compile(
    r"no|none of the (?:sentences?|statements?|events?|above)(?: .*)?|(?:there (?:is|are|was|"
    r"were) |(?:the|this) story (?:contains|has) )?no (?:logical )?(?:errors?|"
    r"inconsistenc(?:y|ies)|contradictions?|issues?|problems?)(?: .*)?|(?:the|this) story is "
    r"(?:logically |internally )?(?:consistent|coherent)(?: and (?:consistent|coherent))?"
)
"""A denial in words (over the section's lower-case words): "No", "None of the
sentences...", "No logical errors", "There are no logical errors: ...", "The story contains
no logical errors", "The story is logically consistent" (and nothing after it: "The story
is consistent until..." claims an error)."""
_NOTHING_FOUND = re.compile(
    r"(?:n[./ ]?a\.?|none|nothing|not applicable)(?:\s*(?:\n|$)|\s*[.,;:!?(\u2013\u2014]|"
    r"\s+-|\s+(?:found|identified|detected|noted|observed|present|exists?|to report|here|"
    r"whatsoever|at all|that (?:i|we) (?:can|could) (?:see|find|identify|detect)|stands? out|"
    r"seems?|appears?|in (?:the|this) (?:story|text))\b)"
)
"""A denial opening with "NA", "None" or "Nothing" (over the section's lower-case text
without markdown emphasis): the word alone on its line, then punctuation ("None. The story
is consistent", "NA - no inconsistencies"), or words saying nothing was found ("None found
in this story", "Nothing stands out"). A story sentence runs on ("Nothing in his face
surprised her...", "None of the guests saw her leave")."""
_QUOTED = re.compile(
    "[\"'\u201c\u2018]([^\"'\u201c\u201d\u2018\u2019\n]*)[\"'\u201d\u2019]"
    "\\s*(?:$|\n|[-.;:!?(\u2013\u2014])"
)
"""A section's first quoted text, followed by the end of the line or punctuation but a
comma ('"NA" - the story is consistent', not '"No", said Mary')."""
_DENIALS = re.compile(
    r"(?:na|n a|none|nothing|not applicable|no)(?: (?:logical )?(?:errors?|"
    r"inconsistenc(?:y|ies)|contradictions?)(?: (?:found|identified|detected))?)?"
)
"""What quoted text may say for "no error": "NA", as the format asks, or "No logical errors
found"; a quoted sentence that says more is the story's ("Nothing here had changed")."""
_QUOTE_MARKS = "\"'\u201c\u2018"
_PLACEHOLDER = (
    "if a logic error exists quote the sentences containing the logical error if not output na"
)
"""The words of the format's whole placeholder for the section, which a copy of the format
holds: it quotes nothing and denies nothing."""


@dataclass(frozen=True)
class Verdict:
    """A reply to the seed's Table 9 prompt."""

    error_found: bool | None
    """True for "Yes" (a logic error), False for "No"; None when the reply commits to
    neither."""
    quote: str
    """The text under "Logical Error" ('' for NA or when absent)."""
    method: VerdictMethod | None


def read_verdict(reply: str) -> Verdict:
    """The verdict the reply commits to: its last "Conclusion:" (Yes or No); without one,
    its "Logical Error:" section, labelled at the start of a line as the format asks (NA,
    or a denial such as "None found", means No; a quote means Yes); else none. A label in
    running prose ("There are no logical errors: the story is consistent.") is not the
    format's section, and is never read as a quote."""
    quote = logical_error(reply)
    conclusion = _after_label(reply, "conclusion")
    if conclusion is not None:
        verdict = _concluded(_first_line(conclusion))
        if verdict is not None:
            return Verdict(verdict, quote or "", "conclusion")
    quote = logical_error(reply, line_start=True)
    if quote is None:
        return Verdict(None, "", None)
    return Verdict(bool(quote), quote, "logical_error")


_YES_NO = re.compile(r"(?<![A-Za-z])(?i:(yes|no))(?![A-Za-z])")
_QUOTED_YES = re.compile(r"(?i)[\"\u201c]yes[\"\u201d]")
_QUOTED_NO = re.compile(r"(?i)[\"\u201c]no[\"\u201d]")
_LINE_OPENING = r"[-*\d.)\s]*"
"""What may stand before a Conclusion line's answer: a bullet, a number, bold."""
_BOTH = re.compile(
    _LINE_OPENING + r"(?i:yes[\s\"'\u201d*]*(?:/|and|or|&)[\s\"'\u201c*]*no|"
    r"no[\s\"'\u201d*]*(?:/|and|or|&)[\s\"'\u201c*]*yes)[\s\"'\u201d*]*(?:$|[.,;!?)\]}])"
)
"""Both answers side by side opening the line ("Yes and No", "Yes/No", "No or yes?"), which
commits to neither; "Yes, and no one could have known" says Yes, and so do "Yes (the format
asks for Yes or No)" and a copied label answered, "Yes or No: Yes"."""
_NOT_APPLICABLE = re.compile(r"n a|na|not applicable")
"""A Conclusion of "N/A" (over its lower-case words): the format asks NA of the Logical Error
section alone, so as a Conclusion it answers neither Yes nor No."""


def _concluded(text: str) -> bool | None:
    """The Yes (True) or No (False) a Conclusion line commits to: its first word, else the
    only one of the two it names ("On balance, no."), else the same in words ("The story
    contains a logical error", "The story is consistent"); None for neither, both ("Yes and
    No"), one negated ("Not yes"), "N/A", or a copy of the format line."""
    if _copies_format(text):
        return None
    line = _clean(text)
    if _BOTH.match(line):
        return None
    first = re.match(rf"{_LINE_OPENING}(?i:(yes|no))(?![A-Za-z])", line)
    if first:
        return first.group(1).lower() == "yes"
    named = {
        found.group(1).lower()
        for found in _YES_NO.finditer(line)
        if not _negated(line, found.start())
    }
    if named:
        return named == {"yes"} if len(named) == 1 else None
    said = " ".join(words(line))
    if _AN_ERROR.fullmatch(said):
        return True
    return False if _denies(line) and not _NOT_APPLICABLE.fullmatch(said) else None


def _copies_format(text: str) -> bool:
    """Whether a Conclusion line copies the prompt's format line ('{"Yes" if you find a logic
    error; "No" if ...}'): a quoted "No" after a quoted "Yes". Two searches, where one pattern
    with `.*` between them retried the rest of the line from every quoted "yes"."""
    yes = _QUOTED_YES.search(text)
    return yes is not None and _QUOTED_NO.search(text, yes.end()) is not None


_AN_ERROR = re.compile(
    r"(?:there (?:is|are|was|were)|(?:the|this) story (?:contains|has|includes)|i (?:found|"
    r"find|see)) (?:an?|one|some|several|at least one) (?:\w+ )?(?:logic(?:al)? )?(?:errors?|"
    r"inconsistenc(?:y|ies)|contradictions?|mistakes?)(?: .*)?"
)
"""A claim of an error in words (over the line's lower-case words): "The story contains a
logical error", "There is a subtle inconsistency: ...", "I found one contradiction"."""


def logical_error(reply: str, line_start: bool = False) -> str | None:
    """The quoted sentences under the last "Logical Error:" (to the next "Conclusion:" or
    "Reasoning:"), '' for NA or a denial; None when there is no such section. The label is
    looked for at the start of a line, then (unless `line_start`) anywhere."""
    section = _after_label(reply, r"logical\s+errors?", line_start=True)
    if section is None and not line_start:
        section = _after_label(reply, r"logical\s+errors?")
    if section is None:
        return None
    end = re.search(
        rf"{_LINE_START}(?:\d+[.)]{_BOLD})?(?i:conclusion|reasoning){_BOLD}"
        rf"(?:{_COLON}|(?=\n))",
        section,
    )
    text = section[: end.start()] if end else section
    if _PLACEHOLDER in " ".join(words(text)):
        return None
    quote, opening = _clean(text), text.lstrip(" \t\r\n*_>-")
    if opening.startswith(tuple(_QUOTE_MARKS)):
        # Sentences in quotation marks are the story's, whatever their first word, but a
        # quoted denial is a denial, whatever follows it ('"NA" - the story is consistent').
        first = _QUOTED.match(opening)
        said = " ".join(words(first.group(1) if first else text))
        return "" if _DENIALS.fullmatch(said) else quote
    return "" if _denies(text) else quote


def _denies(text: str) -> bool:
    """Whether `text` says there is no error (`_NO_ERRORS`, `_NOTHING_FOUND`)."""
    plain = re.sub(r"[*_]+", "", _clean(text).lower())
    return bool(_NO_ERRORS.fullmatch(" ".join(words(text))) or _NOTHING_FOUND.match(plain))


# ---------------------------------------------------------------------------------- judge

JudgeVerdict = Literal["True", "False", "NA"]
_VERDICTS: dict[str, JudgeVerdict] = {"true": "True", "false": "False", "na": "NA", "n/a": "NA"}
_JUDGE = re.compile(r"(?<![A-Za-z/])(True|False|NA|N/A)(?![A-Za-z/])")
"""A verdict, not one of the prompt's label ("Output (True/False/NA):") copied."""


def judge_verdict(reply: str) -> JudgeVerdict | None:
    """The judge's True, False or NA (seed Table 10): its last non-empty line when that is
    one of them (alone or after a label), else its first line when that is one or opens
    with one before punctuation ("True. The answer matches; it is not False."), else the
    one verdict the reply names and does not negate (N/A read as NA; "Not True" names
    none); None otherwise."""
    lines = [_clean(line).lower() for line in reply.splitlines() if _clean(line)]
    if not lines:
        return None
    # The last line alone, or after its label ("Output (True/False/NA): True"), then the
    # first line alone ("True." before an explanation that names another verdict), then its
    # first word before punctuation ("True. It is not False").
    for said in (lines[-1], _clean(lines[-1].rsplit(":", 1)[-1]), lines[0]):
        if said in _VERDICTS:
            return _VERDICTS[said]
    opening = re.match(r"(true|false|na|n/a)[.!:;,]", lines[0])
    if opening:
        return _VERDICTS[opening.group(1)]
    named = {
        _VERDICTS[found.group(1).lower()]
        for found in _JUDGE.finditer(reply)
        if not _negated(reply, found.start())
    }
    return named.pop() if len(named) == 1 else None
