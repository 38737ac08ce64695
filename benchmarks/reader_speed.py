"""How the reply readers' time grows with a reply's length, on replies made of one fragment
repeated: each fragment reaches one of the readers' rules (a statement, a label, a question,
a remark in parentheses, ...). A reader whose time grows faster than the reply (a pattern
that scans the rest of the text from every position, say) lets one long reply of a model
stall a whole run.

    python benchmarks/reader_speed.py [--sizes 20000,80000] [--runs 3]

For each fragment it prints the milliseconds that the game's readers (`parse_answer`,
`parse_reply`, and `parse_action` in the `action` and the `choice` format) take together at
each size (best of `--runs`), and the growth: the time per character at the largest size
over that at the smallest, about 1 when the time grows linearly and the size ratio when it
grows with the square. A second table does the same for the knowledge tasks' readers
(KNP's `choice_letter`, `open_answer` and `judge_verdict`, IKD's `read_verdict`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.parsing import parse_action, parse_answer, parse_reply
from tom_eval.knowledge.parsing import choice_letter, judge_verdict, open_answer, read_verdict

FRAGMENTS = {
    "plain statement": "the apple is in the box. ",
    "item in a container": "apple in the box ",
    "reasons before a statement": "since the apple moved ",
    "pronoun after a semicolon": "the apple was in the box; ",
    "item or nothing": "either empty or the apple ",
    "empty, and how items left": "empty, Anne moved the apple ",
    "items in and on again": "empty. The ball went into the box, then Bob waved, ",
    "paths with arrows": "empty. apple: box -> bag -> ",
    "relative clauses": "empty. The ball that was put into the box was ",
    "relative clauses between commas": "empty. The ball, which was in the box, was ",
    "A's own belief": "empty, I think. The ball which was in the box has been ",
    "a statement's reasons after a dash": "the box is empty - the apple: moved - ",
    "hedges in another player's answer": "empty - C would probably say the apple, ",
    "a conclusion's reasons after a colon": "No, wait, the box is empty: the apple moved ",
    "what might have been": "empty. If nobody had moved it, the apple would be ",
    "A's beliefs after a conclusion": " I think",
    "held by another container": "the bag has the apple ",
    "container labels": "- Bag: apple\n- Box: ball\n",
    "labels with notes": "Box (at the start): apple\n",
    "item lists": "- apple: box\n",
    "JSON keys": '{"bag": "apple", ',
    "questions": "is it the apple? ",
    "remarks in parentheses": "((apple) ",
    "open parentheses": "(apple ",
    "conclusions in beliefs": "so he thinks ",
    "revisions": "actually, the apple. ",
    "a run of spaces between words": " ",
    "a run of spaces and tabs between words": " \t",
    "a run of spaces after an item": " ",
    "spaced words": "apple   or   ",
    "empty asides after an item": "() ",
    "letters called the best": "B is the best option, since ",
    "leanings": "I think ",
    "revisions without a comma": "No wait ",
    "actions repeated in a revision": "pass or ",
    "the answerer's would": "I would pass, ",
    "would under a condition": "If B had stayed, I'd pass, or maybe ",
    "the answerer's would, unconditioned": "I would surely pass ",
    "a boxed answer left open": " ",
    "boxed answers left open": "\\boxed{\\text{",
    "letters a revision prefers": "A. Actually, D is better. ",
    "revisions that end in instead": "pass instead ",
    "revisions opened by many words": "no, wait, actually, ",
    "actions a revision prefers": "Pass. Actually, Ask(B, bag) is better as ",
    "changes of answer, doubted": "I'd change my answer to ",
    "a letter before its reasons": "Sally left and ",
    "a leaning's letter before its reasons": "the apple was moved ",
    "a sentence's conclusions": "Ask(B, bag) helps, so ",
}
"""Fragments that, repeated, make a long reply for one of the readers' rules."""
KNOWLEDGE_FRAGMENTS = {
    "spaces": " ",
    "spaces, tabs and bold": " \t*_",
    "labels": "Conclusion: Yes. ",
    "bold labels on lines": "\n**Logical Error:** the ",
    "numbered sections": "\n1. Reasoning: ",
    "answer lines": "Answer: A\n",
    "quoted yeses in a conclusion": '"yes" ',
}
"""The same for the knowledge readers: a run of spaces took 44 s at 40,000 characters in
IKD's reader before a pattern for bold labels stopped scanning from every space."""
GAME_OPTIONS = (PASS, Action("ask", "B", "bag"), Action("tell", "B", "bag", "apple"))
"""A choice prompt's options, for the `choice` format's reading of letters."""
OPTIONS = {"A": "Go to the kitchen.", "B": "Go to the garden."}
OPENINGS = {
    "A's beliefs after a conclusion": "So the box is empty",
    "a run of spaces between words": "Pass",
    "a run of spaces and tabs between words": "the box is empty",
    "a run of spaces after an item": "so the apple",
    "empty asides after an item": "the apple ",
    "quoted yeses in a conclusion": "Conclusion: ",
    "actions repeated in a revision": "Ask(B, bag). Actually ",
    "a boxed answer left open": "\\boxed{",
    "revisions opened by many words": "Option A. ",
    "a letter before its reasons": "B, because ",
    "a leaning's letter before its reasons": "I think B because ",
}
"""What a reply says once before its fragment's repeats, where the rule needs it (one
conclusion, then its long tail)."""
CLOSINGS = {
    "a run of spaces between words": "now",
    "a run of spaces and tabs between words": "; actually, the apple",
    "a run of spaces after an item": "empty",
    "empty asides after an item": "empty",
    "revisions opened by many words": "D is better.",
    "changes of answer, doubted": "E, but C stayed.",
    "a sentence's conclusions": "I'll pass.",
}
"""What a reply says once after them: a line's trailing spaces are dropped before reading, so
a run of spaces reaches the readers only between words (before 14-A, patterns for a revision
after a semicolon, a closing statement and an item's path scanned the rest of the run from
every space: "Pass", 20,000 spaces and "now" took 11 s)."""


def game_readers(text: str) -> None:
    parse_answer(text, "action", "box")
    parse_reply(text, "free", "box")
    parse_action(text, "action")
    parse_action(text, "choice", GAME_OPTIONS)


def knowledge_readers(text: str) -> None:
    choice_letter(text, OPTIONS)
    open_answer(text)
    judge_verdict(text)
    read_verdict(text)


def seconds(read: Callable[[str], None], text: str, runs: int) -> float:
    """The least time of `runs` readings of `text` by `read`."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        read(text)
        times.append(time.perf_counter() - started)
    return min(times)


def table(
    fragments: dict[str, str], read: Callable[[str], None], sizes: list[int], runs: int
) -> float:
    """Prints a table of the fragments' times and growths; returns the largest growth."""
    print("| fragment | " + " | ".join(f"{size:,} chars" for size in sizes) + " | growth |")
    print("|---" * (len(sizes) + 2) + "|")
    worst = 0.0
    for name, fragment in fragments.items():
        opening = OPENINGS.get(name, "")
        closing = CLOSINGS.get(name, "")
        texts = [opening + fragment * max(1, size // len(fragment)) + closing for size in sizes]
        times = [seconds(read, text, runs) for text in texts]
        growth = (times[-1] / len(texts[-1])) / (times[0] / len(texts[0]))
        worst = max(worst, growth)
        cells = " | ".join(f"{1000 * taken:.1f} ms" for taken in times)
        print(f"| {name} | {cells} | {growth:.2f} |")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20000,80000", help="reply lengths, characters")
    parser.add_argument("--runs", type=int, default=3, help="readings of each reply (best)")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    square = f"linear about 1; with the square {sizes[-1] / sizes[0]:g}"
    worst = table(FRAGMENTS, game_readers, sizes, args.runs)
    print(f"\nlargest growth, the game's readers: {worst:.2f} ({square})\n")
    worst = table(KNOWLEDGE_FRAGMENTS, knowledge_readers, sizes, args.runs)
    print(f"\nlargest growth, the knowledge readers: {worst:.2f} ({square})")


if __name__ == "__main__":
    main()
