"""The two isomorphic domains as data, every item of the four tasks, and the isomorphism.

ContainerWorld: John stands by a closed box; a covered basket is fifty steps away. Each
container holds apples, oranges, or apples and oranges; John believes each container holds
one of the same three; he likes or dislikes apples and oranges (never dislikes both); he goes
to the box or the basket. MovieWorld is the same structure at a film festival: screenings in
5 and 90 minutes, action / romance / action-romance movies, desires towards action and
romance movies, and the action is the screening (05 or 90).

Item counts per domain (`ITEM_COUNTS`), from 9 belief, 3 desire and 9 state configurations
and 2 actions:

    AP   beliefs x desires x states = 9 x 3 x 9 = 243 items, each over 2 actions
    DI   beliefs x states x action  = 9 x 9 x 2 = 162 items, each over 3 desire configurations
    BI   desires x states x action  = 3 x 9 x 2 =  54 items, each over 9 belief configurations
    BDI  states x action            =     9 x 2 =  18 items, each over 27 belief-desire ones

Ids are readable and stable, e.g. ``container/AP/b=apples|oranges/d=likes|dislikes/s=apples|
apples and oranges`` and ``movie/DI/b=action|romance/s=romance|action/a=05``: the domain, the
task, then the given beliefs (b), desires (d), states (s) and action (a), each pair listing
the near container (box, 5 minutes) before the far one, and the desires in the order of
`World.kinds`. An inference item's answers are keyed the same way (``d=likes|dislikes``,
``b=apples|oranges``, ``b=apples|oranges/d=likes|dislikes``); an action prediction's answers
are the actions themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from itertools import product
from typing import Literal

Domain = Literal["container", "movie"]
Task = Literal["AP", "DI", "BI", "BDI"]
InferenceTask = Literal["DI", "BI", "BDI"]
DOMAINS: tuple[Domain, ...] = ("container", "movie")
TASKS: tuple[Task, ...] = ("AP", "DI", "BI", "BDI")
INFERENCE_TASKS: tuple[InferenceTask, ...] = ("DI", "BI", "BDI")

Pair = tuple[str, str]
"""Two values: one per container (near first) for beliefs and states, one per kind (in
`World.kinds` order) for desires."""

DESIRES: tuple[str, str] = ("likes", "dislikes")


@dataclass(frozen=True, slots=True)
class World:
    domain: Domain
    title: str
    locations: Pair
    """Where the agent can go, near (no cost) first; these are also the actions."""
    kinds: Pair
    """The two things the agent likes or dislikes."""
    both: str
    """The contents that hold both kinds."""

    @property
    def contents(self) -> tuple[str, str, str]:
        """What a container can hold (or be believed to hold)."""
        return (*self.kinds, self.both)

    def kinds_in(self, contents: str) -> tuple[str, ...]:
        """The kinds a container with these contents holds."""
        if contents == self.both:
            return self.kinds
        if contents in self.kinds:
            return (contents,)
        raise ValueError(f"{self.title} has no contents {contents!r}")


CONTAINER_WORLD = World(
    "container", "ContainerWorld", ("box", "basket"), ("apples", "oranges"), "apples and oranges"
)
MOVIE_WORLD = World("movie", "MovieWorld", ("05", "90"), ("action", "romance"), "action-romance")
WORLDS: dict[Domain, World] = {"container": CONTAINER_WORLD, "movie": MOVIE_WORLD}

CONTAINER_TO_MOVIE: dict[str, str] = {
    "box": "05",
    "basket": "90",
    "apples": "action",
    "oranges": "romance",
    "apples and oranges": "action-romance",
    "likes": "likes",
    "dislikes": "dislikes",
}
"""The isomorphism, value by value: the near container is the screening in 5 minutes, the
far one the screening in 90 minutes, apples are action movies, oranges romance movies.
No value names two things within a domain, so one table translates every field."""
MOVIE_TO_CONTAINER: dict[str, str] = {movie: box for box, movie in CONTAINER_TO_MOVIE.items()}

ITEM_COUNTS: dict[Task, int] = {"AP": 243, "DI": 162, "BI": 54, "BDI": 18}
"""Items per task in each domain (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One query: the configuration given to the model; its answers are what is left out
    (the action for AP, the desires for DI, the beliefs for BI, both for BDI)."""

    domain: Domain
    task: Task
    states: Pair
    beliefs: Pair | None = None
    desires: Pair | None = None
    action: str | None = None

    @property
    def item_id(self) -> str:
        segments: list[str] = [self.domain, self.task]
        if self.beliefs is not None:
            segments.append(_segment("b", self.beliefs))
        if self.desires is not None:
            segments.append(_segment("d", self.desires))
        segments.append(_segment("s", self.states))
        if self.action is not None:
            segments.append(f"a={self.action}")
        return "/".join(segments)


def _segment(letter: str, pair: Pair) -> str:
    return f"{letter}={pair[0]}|{pair[1]}"


# ------------------------------------------------------------------------- enumeration


def belief_configurations(domain: Domain) -> tuple[Pair, ...]:
    """What the agent may believe each container holds: 3 x 3 = 9."""
    contents = WORLDS[domain].contents
    return tuple(product(contents, contents))


def desire_configurations() -> tuple[Pair, ...]:
    """Likes or dislikes towards each kind, never dislikes both: 3 (the same in both
    domains, since the two attitudes are the same words)."""
    return tuple(pair for pair in product(DESIRES, DESIRES) if pair != ("dislikes", "dislikes"))


def state_configurations(domain: Domain) -> tuple[Pair, ...]:
    """What each container truly holds: 3 x 3 = 9."""
    return belief_configurations(domain)


def actions(domain: Domain) -> Pair:
    return WORLDS[domain].locations


@cache
def items(domain: Domain, task: Task) -> tuple[Item, ...]:
    """Every item of a task, in an order shared by both domains (so the isomorphism maps
    the n-th item of one onto the n-th of the other)."""
    all_beliefs, all_desires = belief_configurations(domain), desire_configurations()
    all_states, all_actions = state_configurations(domain), actions(domain)
    if task == "AP":
        return tuple(
            Item(domain, task, states, beliefs=beliefs, desires=desires)
            for beliefs, desires, states in product(all_beliefs, all_desires, all_states)
        )
    if task == "DI":
        return tuple(
            Item(domain, task, states, beliefs=beliefs, action=action)
            for beliefs, states, action in product(all_beliefs, all_states, all_actions)
        )
    if task == "BI":
        return tuple(
            Item(domain, task, states, desires=desires, action=action)
            for desires, states, action in product(all_desires, all_states, all_actions)
        )
    return tuple(
        Item(domain, task, states, action=action)
        for states, action in product(all_states, all_actions)
    )


@cache
def _items_by_id() -> dict[str, Item]:
    return {
        item.item_id: item for domain in DOMAINS for task in TASKS for item in items(domain, task)
    }


def find_item(item_id: str) -> Item:
    """The item with this id; raises KeyError for an id no item has."""
    return _items_by_id()[item_id]


def is_item_id(value: object) -> bool:
    """Whether `value` is the id of an item (a log's, read back)."""
    return isinstance(value, str) and value in _items_by_id()


# ----------------------------------------------------------------------------- answers


def mental_state_key(beliefs: Pair | None, desires: Pair | None) -> str:
    """The answer key of a mental state: ``b=...|...``, ``d=...|...`` or both."""
    given = (("b", beliefs), ("d", desires))
    return "/".join(_segment(letter, pair) for letter, pair in given if pair is not None)


def mental_state(answer: str) -> tuple[Pair | None, Pair | None]:
    """The beliefs and desires an answer key names (the inverse of `mental_state_key`)."""
    values = dict(segment.split("=") for segment in answer.split("/"))
    beliefs, desires = values.get("b"), values.get("d")
    return (
        None if beliefs is None else _pair(beliefs),
        None if desires is None else _pair(desires),
    )


def answers(item: Item) -> tuple[str, ...]:
    """The keys of the distribution an item asks for, in a fixed order (beliefs vary
    slowest in BDI)."""
    if item.task == "AP":
        return actions(item.domain)
    all_beliefs = belief_configurations(item.domain) if item.task in ("BI", "BDI") else (None,)
    all_desires = desire_configurations() if item.task in ("DI", "BDI") else (None,)
    return tuple(
        mental_state_key(beliefs, desires) for beliefs, desires in product(all_beliefs, all_desires)
    )


def logged_answer_problem(
    item_id: str, distribution: Mapping[str, object], reply_answer: str | None = None
) -> str | None:
    """What is wrong with a logged distribution (and reply answer) for the item: an answer
    that is not one of the item's, or a probability not from 0 to 1; None when nothing is.
    Only a log edited by hand holds one, and the run's figures would join it to the item's
    other answers, so the scorer and the report both refuse it."""
    own = answers(find_item(item_id))
    given = [*distribution, *filter(None, [reply_answer])]
    foreign = [answer for answer in given if answer not in own]
    if foreign:
        return f"the logged answer {foreign[0]!r:.60} is not one of item {item_id}'s"
    for answer, probability in distribution.items():
        if not _probability(probability):
            return f"the logged probability of {answer!r:.60} is {probability!r}, not from 0 to 1"
    return None


def _probability(value: object) -> bool:
    # NaN fails both comparisons; a bool is a JSON true or false, not a number.
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def forward_item(item: Item, answer: str) -> Item:
    """The action-prediction item that an inference item becomes once `answer` (one of its
    mental states) fills in what it leaves out; its prediction is that mental state's
    likelihood of the observed action."""
    if item.task == "AP" or item.action is None:
        raise ValueError(f"{item.item_id} is not an inference item")
    beliefs, desires = mental_state(answer)
    return Item(
        item.domain,
        "AP",
        item.states,
        beliefs=beliefs or item.beliefs,
        desires=desires or item.desires,
    )


def _pair(text: str) -> Pair:
    first, second = text.split("|")
    return (first, second)


# -------------------------------------------------------------------------- isomorphism


def counterpart(item: Item) -> Item:
    """The isomorphic item in the other domain."""
    domain: Domain = "movie" if item.domain == "container" else "container"
    table = _table(item.domain)
    return Item(
        domain,
        item.task,
        _translate(item.states, table),
        beliefs=None if item.beliefs is None else _translate(item.beliefs, table),
        desires=None if item.desires is None else _translate(item.desires, table),
        action=None if item.action is None else table[item.action],
    )


def counterpart_answer(item: Item, answer: str) -> str:
    """`answer` of `item` translated to the same answer of `counterpart(item)`."""
    table = _table(item.domain)
    if item.task == "AP":
        return table[answer]
    segments = (segment.split("=") for segment in answer.split("/"))
    return "/".join(
        _segment(letter, _translate(_pair(values), table)) for letter, values in segments
    )


def _table(domain: Domain) -> dict[str, str]:
    return CONTAINER_TO_MOVIE if domain == "container" else MOVIE_TO_CONTAINER


def _translate(pair: Pair, table: dict[str, str]) -> Pair:
    return (table[pair[0]], table[pair[1]])
