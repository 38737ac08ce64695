"""The prompts: the seed's Table 8 (KNP), Table 9 (IKD) and Table 10 (the judge of
open-ended KNP answers) word for word, as the seed prints them (the authors' template files
put the same words in markdown bold); quotation marks are straight, as in those files,
and IKD's closing `<\\story>` is the authors' own. The parts the paper describes but does
not print are ours: the "focus on knowledge" instruction (Figure 4, Table 3 ablation 3),
the highlighted event and knowledge (Table 3 ablations 1 and 2), and the open-ended KNP
question (Table 4)."""

from __future__ import annotations

from string import Template
from typing import Literal

from tom_eval.knowledge.records import KnowledgePlace

KNP_PROMPT = Template(
    """Read the story below and answer the related question.$focus

Story:
$story

Question:
$question

Answers:
$answers

Output Format:
Reasoning:
{The reasoning process}

Answer: {"A" or "B"}"""
)

KNP_OPEN_PROMPT = Template(
    """Read the story below and answer the related question.$focus

Story:
$story

Question:
$question

Output Format:
Reasoning:
{The reasoning process}

Answer: {The action, in one sentence}"""
)

KNP_FOCUS = (
    " Pay attention to what each character knows: a character can only act on information"
    " they could plausibly have at that point in the story."
)

JUDGE_PROMPT = Template(
    """You are an accuracy evaluator. Compare the "Generated Answer" against the "Correct Answer" and the "Incorrect Answer".
- Output "True" if the action in the Generated Answer aligns well with the action in the correct Answer.
- Output "False" if the action in the Generated Answer aligns well with the action in the incorrect Answer.
- Output "NA" if the action in the Generated Answer is unrelated to either.

Input Data:
Question Context: $question_context

Question: $question

Generated Answer: $generated_answer

Correct Answer: $correct_answer
Incorrect Answer: $incorrect_answer

Output (True/False/NA):"""  # noqa: E501 (the seed's lines, unbroken)
)

IKD_PROMPT = Template(
    """Your task is to determine if there are any logical errors in the given story. A logic error is an inconsistency in a storyline that goes against the flow of logic established by the story's plot.

Story:
<story>
$story
<\\story>
$highlights
Notes:
- Focus only on logical errors — not stylistic, grammatical, or moral judgments.$notes

Output Format:
Reasoning: {Explain your reasoning process}

Logical Error: {If a logic error exists, quote the sentences containing the logical error; If not, output "NA"}

Conclusion: {"Yes" if you find a logic error; "No" if no logic error exists}"""  # noqa: E501
)

IKD_FOCUS = (
    "\n- Pay attention to what each character knows: a character cannot state or act on"
    " information they could not plausibly have at that point in the story."
)
HIGHLIGHTED_EVENT = "\nHighlighted event (part of the story):\n<event>\n$event\n</event>\n"
HIGHLIGHTED_KNOWLEDGE = "\nHighlighted $place:\n<knowledge>\n$knowledge\n</knowledge>\n"
KNOWLEDGE_PLACES: dict[KnowledgePlace, str] = {
    "before": "earlier content (part of the story, before the event)",
    "after": "later content (part of the story, after the event)",
    "overlapping": "content (part of the story, overlapping the event)",
    "in_story": "content (part of the story)",
    "not_verbatim": "content (what the story tells, in other words than the story's)",
}
"""The knowledge's heading by where it really stands (`records.knowledge_place`): in the
authors' data it follows the event more often than it precedes it, and is often a summary
that is nowhere verbatim in the story."""
EVENT_NOTE = "\n- Determine whether the highlighted event contains a logical error."
EVENT_AND_KNOWLEDGE_NOTE = (
    "\n- Determine whether the highlighted event contains a logical error given the"
    " highlighted content."
)

Highlight = Literal["none", "error", "error_and_knowledge"]
HIGHLIGHTS: tuple[Highlight, ...] = ("none", "error", "error_and_knowledge")


def knp_prompt(
    story: str, question: str, options: dict[str, str] | None, focus_on_knowledge: bool
) -> str:
    """Table 8 with the options as "A: ..." and "B: ..." lines; without options, the
    open-ended question."""
    focus = KNP_FOCUS if focus_on_knowledge else ""
    if options is None:
        return KNP_OPEN_PROMPT.substitute(focus=focus, story=story, question=question)
    answers = "\n".join(f"{letter}: {text}" for letter, text in options.items())
    return KNP_PROMPT.substitute(focus=focus, story=story, question=question, answers=answers)


def judge_prompt(story: str, question: str, generated: str, correct: str, incorrect: str) -> str:
    return JUDGE_PROMPT.substitute(
        question_context=story,
        question=question,
        generated_answer=generated,
        correct_answer=correct,
        incorrect_answer=incorrect,
    )


def ikd_prompt(
    story: str,
    focus_on_knowledge: bool,
    highlight: Highlight = "none",
    event: str = "",
    knowledge: str = "",
    place: KnowledgePlace = "in_story",
) -> str:
    """Table 9; with `highlight`, the erroneous event (and the story's mention of the
    knowledge, headed by its `place`) shown again after the story, with a note saying
    what to judge."""
    highlights, notes = "", ""
    if highlight != "none":
        highlights = Template(HIGHLIGHTED_EVENT).substitute(event=event)
        notes = EVENT_NOTE
    if highlight == "error_and_knowledge":
        highlights += Template(HIGHLIGHTED_KNOWLEDGE).substitute(
            place=KNOWLEDGE_PLACES[place], knowledge=knowledge
        )
        notes = EVENT_AND_KNOWLEDGE_NOTE
    if focus_on_knowledge:
        notes += IKD_FOCUS
    return IKD_PROMPT.substitute(story=story, highlights=highlights, notes=notes)
