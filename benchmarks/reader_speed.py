"""How the reply readers' time grows with a reply's length, on replies made of one fragment
repeated: each fragment reaches one of the readers' rules (a statement, a label, a question,
a remark in parentheses, ...). A reader whose time grows faster than the reply (a pattern
that scans the rest of the text from every position, say) lets one long reply of a model
stall a whole run.

    python benchmarks/reader_speed.py [--sizes 20000,80000] [--runs 3]

For each fragment it prints the milliseconds that `parse_answer`, `parse_reply` and
`parse_action` take together at each size (best of `--runs`), and the growth: the time per
character at the largest size over that at the smallest, about 1 when the time grows
linearly and the size ratio when it grows with the square.
"""

from __future__ import annotations

import argparse
import time

from tom_eval.game.parsing import parse_action, parse_answer, parse_reply

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
}
"""Fragments that, repeated, make a long reply for one of the readers' rules."""
OPENINGS = {"A's beliefs after a conclusion": "So the box is empty"}
"""What a reply says once before its fragment's repeats, where the rule needs it (one
conclusion, then its long tail)."""


def seconds(text: str, runs: int) -> float:
    """The least time of `runs` readings of `text` by the three readers."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        parse_answer(text, "action", "box")
        parse_reply(text, "free", "box")
        parse_action(text, "action")
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20000,80000", help="reply lengths, characters")
    parser.add_argument("--runs", type=int, default=3, help="readings of each reply (best)")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    print("| fragment | " + " | ".join(f"{size:,} chars" for size in sizes) + " | growth |")
    print("|---" * (len(sizes) + 2) + "|")
    worst = 0.0
    for name, fragment in FRAGMENTS.items():
        opening = OPENINGS.get(name, "")
        texts = [opening + fragment * max(1, size // len(fragment)) for size in sizes]
        times = [seconds(text, args.runs) for text in texts]
        growth = (times[-1] / len(texts[-1])) / (times[0] / len(texts[0]))
        worst = max(worst, growth)
        cells = " | ".join(f"{1000 * taken:.1f} ms" for taken in times)
        print(f"| {name} | {cells} | {growth:.2f} |")
    print(
        f"\nlargest growth: {worst:.2f} (linear about 1; with the square {sizes[-1] / sizes[0]:g})"
    )


if __name__ == "__main__":
    main()
