"""The paper's prompts, built from its components (appendix, Figs. 8-11), and the JSON
fields each task's answer fills.

System prompt (Fig. 8A): the task text of Fig. 8B and the task's JSON schema. User prompt
(Fig. 9A): the components, in the task's order, joined by single spaces (as in the full
examples of Figs. 10B and 11B), with the sentences of Figs. 9B and 9C.

Where the appendix is ambiguous or inconsistent, this module chooses as follows.

- Belief enums list all three contents. The abbreviated schemas of Figs. 8D and 10A list
  only two (apples, oranges), but the domain's beliefs range over three, and the BI and BDI
  distributions are over 9 and 27 configurations.
- The schema is a complete JSON Schema (object types, every field required, no additional
  properties), so that it can also serve as a structured-output schema; the figures show it
  abbreviated. Its fields are those of the figures: ``desires.<kind>``,
  ``beliefs.<box|basket>`` or ``beliefs.<screening05|screening90>``, and ``action`` for AP
  (the figures show no AP schema), with the domain's actions (box/basket, 05/90) as values.
  BDI lists desires before beliefs, as Fig. 10A does.
- DI, BI and BDI include the "actions" component, as Fig. 9A says; Figs. 10B and 11B
  (BDI) leave it out, which would leave the action to be explained unstated.
- "He wants to eat a single piece of fruit." and "He wants to watch a movie." open the AP
  query only: Figs. 10B and 11B end with the BDI query alone.
- Apostrophes are straight (Figs. 10 and 11), not the typographic ones of Figs. 8 and 9;
  "you're observing" is kept in the task texts (Fig. 8B), which Fig. 10A drops.
- MovieWorld's action 05 reads "5 minutes" in the actions sentence, as the screenings
  are named everywhere else; genres take their article ("an action movie").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeVar

from tom_eval.coherence.worlds import (
    DESIRES,
    WORLDS,
    Domain,
    Item,
    Task,
    mental_state,
)

_Value = TypeVar("_Value")

SYSTEM_TEMPLATE = "Your task is to tell us {task} using the JSON Schema provided below.\n\n{schema}"
TASK_TEXTS: dict[Task, str] = {
    "AP": "the action someone you're observing would take",
    "DI": "the desires of someone you're observing",
    "BI": "the beliefs of someone you're observing",
    "BDI": "the beliefs and desires of someone you're observing",
}
"""Fig. 8B."""

COMPONENTS: dict[Task, tuple[str, ...]] = {
    "AP": ("context", "beliefs", "desires", "states", "query"),
    "DI": ("context", "beliefs", "states", "actions", "query"),
    "BI": ("context", "desires", "states", "actions", "query"),
    "BDI": ("context", "states", "actions", "query"),
}
"""The user prompt's components per task, in order (Fig. 9A)."""


@dataclass(frozen=True, slots=True)
class Wording:
    """A domain's prompt components (Fig. 9B or 9C). The beliefs and states templates take
    `near` and `far` (each a contents phrase), desires `first` and `second` (attitudes
    towards the two kinds), actions `action` (an action phrase)."""

    context: str
    beliefs: str
    desires: str
    states: str
    actions: str
    queries: dict[Task, str]
    contents_phrases: dict[str, str]
    action_phrases: dict[str, str]
    belief_fields: tuple[str, str]
    """The schema's names for the two containers' beliefs (Figs. 8D and 10A)."""


WORDINGS: dict[Domain, Wording] = {
    "container": Wording(
        context="John is standing in the corner of a large room.",
        beliefs=(
            "John believes that the closed box has {near} and that the covered basket has {far}."
        ),
        desires="John {first} apples and he {second} oranges.",
        states=(
            "Within arm's reach, there is a closed box. The closed box is filled with {near}. "
            "In the opposite corner, about fifty steps away, there is a covered basket. "
            "The covered basket is filled with {far}."
        ),
        actions="John wants to eat fruit, so he goes to the {action} and takes the fruit inside.",
        queries={
            "AP": (
                "He wants to eat a single piece of fruit. "
                "Which container would John take fruit from?"
            ),
            "DI": "What are John's desires?",
            "BI": "What are John's beliefs?",
            "BDI": "What are John's beliefs and desires?",
        },
        contents_phrases={
            "apples": "apples",
            "oranges": "oranges",
            "apples and oranges": "apples and oranges",
        },
        action_phrases={"box": "box", "basket": "basket"},
        belief_fields=("box", "basket"),
    ),
    "movie": Wording(
        context=(
            "Alex is at a foreign film festival. He has a surface-level understanding of the "
            "local language, but doesn't know enough to be conversational. This film festival "
            "only screens movies which are 120 minutes long."
        ),
        beliefs=(
            "Alex believes that the screening starting in 5 minutes is {near} movie and that "
            "the screening starting in 90 minutes is {far} movie."
        ),
        desires="Alex {first} action movies and he {second} romance movies.",
        states=(
            "There is {near} movie starting in 5 minutes and {far} movie starting in 90 minutes."
        ),
        actions=(
            "Alex wants to watch a screening, so he goes to the screening starting in "
            "{action} minutes."
        ),
        queries={
            "AP": "He wants to watch a movie. Which screening should Alex go to?",
            "DI": "What are Alex's desires?",
            "BI": "What are Alex's beliefs?",
            "BDI": "What are Alex's beliefs and desires?",
        },
        contents_phrases={
            "action": "an action",
            "romance": "a romance",
            "action-romance": "an action-romance",
        },
        action_phrases={"05": "5", "90": "90"},
        belief_fields=("screening05", "screening90"),
    ),
}


# --------------------------------------------------------------------------- user prompt


def components(item: Item) -> tuple[str, ...]:
    """The user prompt's sentences, component by component (Fig. 9A's order)."""
    wording = WORDINGS[item.domain]
    phrase = wording.contents_phrases
    rendered = []
    for component in COMPONENTS[item.task]:
        if component == "context":
            rendered.append(wording.context)
        elif component == "beliefs":
            near, far = _given(item.beliefs, "beliefs", item)
            rendered.append(wording.beliefs.format(near=phrase[near], far=phrase[far]))
        elif component == "desires":
            first, second = _given(item.desires, "desires", item)
            rendered.append(wording.desires.format(first=first, second=second))
        elif component == "states":
            near, far = item.states
            rendered.append(wording.states.format(near=phrase[near], far=phrase[far]))
        elif component == "actions":
            action = _given(item.action, "action", item)
            rendered.append(wording.actions.format(action=wording.action_phrases[action]))
        else:
            rendered.append(wording.queries[item.task])
    return tuple(rendered)


def _given(value: _Value | None, name: str, item: Item) -> _Value:
    if value is None:
        raise ValueError(f"{item.item_id} gives no {name}")
    return value


def user_prompt(item: Item) -> str:
    return " ".join(components(item))


# ------------------------------------------------------------------ schema and fields


@dataclass(frozen=True, slots=True)
class Field:
    """One string the answer fills: its dotted path in the JSON answer and its allowed
    values (the schema's enum), over which a field's probabilities are renormalised."""

    name: str
    values: tuple[str, ...]

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.name.split("."))


def fields(domain: Domain, task: Task) -> tuple[Field, ...]:
    """The fields of a task's answer, in the schema's order."""
    world, wording = WORLDS[domain], WORDINGS[domain]
    action = (Field("action", world.locations),)
    desires = tuple(Field(f"desires.{kind}", DESIRES) for kind in world.kinds)
    beliefs = tuple(Field(f"beliefs.{name}", world.contents) for name in wording.belief_fields)
    by_task: dict[Task, tuple[Field, ...]] = {
        "AP": action,
        "DI": desires,
        "BI": beliefs,
        "BDI": desires + beliefs,
    }
    return by_task[task]


def schema(domain: Domain, task: Task) -> dict[str, object]:
    """The task's JSON Schema: nested objects of string enums, one per field."""
    tree: dict[str, object] = {}
    for field in fields(domain, task):
        *parents, leaf = field.path
        node = tree
        for parent in parents:
            child = node.setdefault(parent, {})
            assert isinstance(child, dict)
            node = child
        node[leaf] = field
    return _object_schema(tree)


def _object_schema(tree: dict[str, object]) -> dict[str, object]:
    """An object whose properties are `tree`'s: a Field becomes a string enum, a nested
    dict an object; every property is required and no other is allowed."""
    properties: dict[str, object] = {}
    for name, child in tree.items():
        if isinstance(child, Field):
            properties[name] = {"type": "string", "enum": list(child.values)}
        else:
            assert isinstance(child, dict)
            properties[name] = _object_schema(child)
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def system_prompt(domain: Domain, task: Task) -> str:
    return SYSTEM_TEMPLATE.format(
        task=TASK_TEXTS[task], schema=json.dumps(schema(domain, task), indent=2)
    )


# ------------------------------------------------------------------- answers and fields


def answer_fields(item: Item, answer: str) -> dict[str, str]:
    """The value each field takes in `answer` (one of `answers(item)`), by field name."""
    names = [field.name for field in fields(item.domain, item.task)]
    if item.task == "AP":
        return dict(zip(names, (answer,), strict=True))
    beliefs, desires = mental_state(answer)
    values = (*(desires or ()), *(beliefs or ()))  # the schema's order: desires first
    return dict(zip(names, values, strict=True))
