"""New false-belief tasks in Kosinski's design (PNAS 2024, Studies 1 and 2), generated
rather than shipped: the paper's 40 items are not ours to copy, and fresh ones cannot have
been seen in training.

How an item is made:

1. Its vocabulary and wording are drawn from the pools below with a `random.Random`
   seeded by a string of (seed, family, number), so an item depends on nothing else and
   is the same on every machine.
2. Each story is a small world (`ContentsWorld`, `TransferWorld`): what the container
   holds and what its label says, what the protagonist sees, reads or is told; or where
   the object starts and ends and whether the protagonist watches the move or hears of
   it. A condition is one such world; its reversal is the same world with the two key
   words exchanged.
3. Sentences are rendered from the world; the expected first words are derived from the
   world by `answers`, never written down per condition.
4. `verify` checks every item before it is returned: equal key-word counts in every story
   (the paper's word-frequency control), key words absent from the prompts, reversals
   that are exact key-word swaps, and answers that match the worlds.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import permutations
from typing import Literal

from tom_eval.errors import InputError
from tom_eval.false_belief.items import (
    CONDITIONS,
    PERTURBATIONS,
    Completion,
    Family,
    Item,
    Story,
    distinguishable,
    mentions,
    reverse,
    wrong_answer,
)

# ---------------------------------------------------------------------------- worlds


@dataclass(frozen=True, slots=True)
class ContentsWorld:
    """An Unexpected Contents story: a labelled container and what the protagonist learns
    about it. The defaults are the false-belief story."""

    contents: str
    other: str
    """The key word the container does not hold."""
    labelled_right: bool = False
    opened: bool = False
    see_through: bool = False
    literate: bool = True
    told: bool = False
    """Someone the protagonist believes says what is inside and to ignore the label."""
    filled_it: bool = False
    """The protagonist filled the container and wrote its label."""

    @property
    def label(self) -> str:
        return self.contents if self.labelled_right else self.other


@dataclass(frozen=True, slots=True)
class TransferWorld:
    """An Unexpected Transfer story: the protagonist puts an object in `start`, and a second
    character takes it out and puts it in `other` (or back in `start`). The defaults are
    the false-belief story."""

    start: str
    other: str
    moved: bool = True
    watched: bool = False
    told: bool = False

    @property
    def end(self) -> str:
        return self.other if self.moved else self.start


World = ContentsWorld | TransferWorld


def world(family: Family, condition: str, key_words: tuple[str, str], reversed_: bool) -> World:
    """The world a story of `condition` describes: the false-belief world with the one
    change the condition makes. `key_words` are the item's (true contents, label) or (new
    location, original location); a reversed story exchanges them."""
    if condition not in CONDITIONS[family] + PERTURBATIONS[family]:
        raise ValueError(f"not a {family} condition: {condition}")
    first, second = (key_words[1], key_words[0]) if reversed_ else key_words
    if family == "contents":
        return ContentsWorld(
            contents=first,
            other=second,
            labelled_right=condition == "correct_label",
            opened=condition == "open_container",
            see_through=condition == "transparent_container",
            literate=condition != "cannot_read",
            told=condition == "informed_protagonist",
            filled_it=condition == "own_label",
        )
    return TransferWorld(
        start=second,
        other=first,
        moved=condition != "no_transfer",
        watched=condition == "present_protagonist",
        told=condition == "informed_protagonist",
    )


def answers(world: World) -> tuple[str, str | None]:
    """The first words that answer the reality and the belief prompt.

    A protagonist believes what they saw for themselves (inside the container, through its
    sides, when filling it, or the move itself); failing that, what someone they trust
    told them; failing that, what the label says if they can read it. With none of these
    no key word is right."""
    if isinstance(world, TransferWorld):
        knows_the_move = world.watched or world.told
        return world.end, world.end if knows_the_move else world.start
    if world.opened or world.see_through or world.filled_it or world.told:
        return world.contents, world.contents
    return world.contents, world.label if world.literate else None


# ---------------------------------------------------------------------------- vocabulary


@dataclass(frozen=True, slots=True)
class Person:
    name: str
    pronoun: Literal["he", "she"]

    @property
    def object(self) -> str:
        return "him" if self.pronoun == "he" else "her"

    @property
    def possessive(self) -> str:
        return "his" if self.pronoun == "he" else "her"

    @property
    def reflexive(self) -> str:
        return f"{self.object}self"


@dataclass(frozen=True, slots=True)
class Container:
    noun: str
    opaque: str
    """What it is made of in every story but the transparent one."""
    clear: str


@dataclass(frozen=True, slots=True)
class Goods:
    """A kind of contents: nouns of one kind, any two of which make a key-word pair, and
    the containers they plausibly come in."""

    nouns: tuple[str, ...]
    containers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Thing:
    """An object that is moved: an animal jumps out of a place, a thing falls out."""

    noun: str
    activity: str
    """What the protagonist comes back to do with it."""
    animal: bool


_PEOPLE = tuple(
    Person(name, "she")
    for name in (
        "Amara", "Beatriz", "Chloe", "Dana", "Elif", "Fatima", "Greta", "Hana", "Ingrid",
        "Julia", "Keiko", "Lena", "Maya", "Nadia", "Olga", "Priya", "Sofia", "Tara",
        "Yasmin", "Zoe",
    )
) + tuple(
    Person(name, "he")
    for name in (
        "Ahmed", "Bruno", "Carlos", "Dmitri", "Emil", "Felix", "Gabriel", "Hugo", "Ivan",
        "Jonas", "Kenji", "Luca", "Marco", "Nikhil", "Omar", "Pablo", "Rafael", "Samir",
        "Tomas", "Yusuf",
    )
)  # fmt: skip

_CONTAINERS = {
    container.noun: container
    for container in (
        Container("bag", "paper", "clear plastic"),
        Container("box", "cardboard", "clear plastic"),
        Container("jar", "ceramic", "glass"),
        Container("tub", "opaque plastic", "clear plastic"),
        Container("canister", "metal", "glass"),
        Container("packet", "foil", "clear plastic"),
        Container("pouch", "leather", "clear plastic"),
        Container("case", "wooden", "glass"),
        Container("bottle", "metal", "glass"),
        Container("jug", "clay", "glass"),
        Container("flask", "steel", "glass"),
        Container("pot", "clay", "glass"),
        Container("sack", "burlap", "clear plastic"),
        Container("bin", "metal", "clear plastic"),
        Container("bucket", "metal", "clear plastic"),
        Container("envelope", "brown paper", "clear plastic"),
        Container("crate", "wooden", "clear plastic"),
    )
}

# Every phrase is agnostic of number ("It contains no rice", "It contains no socks"), so a
# reversal can swap a mass noun for a plural without changing any other word.
_GOODS = (
    Goods(
        ("pretzels", "raisins", "almonds", "crackers", "cookies", "peanuts", "toffees",
         "jellybeans", "marshmallows", "walnuts", "cashews", "gummy bears", "dried figs"),
        ("bag", "box", "jar", "tub", "canister", "packet", "pouch"),
    ),
    Goods(
        ("lemonade", "milk", "apple juice", "orange juice", "grape juice", "iced tea", "cocoa",
         "cola", "coffee", "olive oil", "vinegar", "maple syrup", "soy sauce"),
        ("bottle", "jug", "flask", "jar"),
    ),
    Goods(
        ("buttons", "beads", "marbles", "crayons", "pencils", "stickers", "stamps",
         "paperclips", "ribbons", "seashells", "coins", "dice", "erasers", "pebbles",
         "thumbtacks"),
        ("box", "case", "pouch", "jar", "tub", "bag"),
    ),
    Goods(
        ("socks", "gloves", "mittens", "scarves", "towels", "sweaters", "napkins",
         "handkerchiefs", "bandanas", "ties", "belts", "pyjamas"),
        ("bag", "box", "sack", "bin", "crate"),
    ),
    Goods(
        ("screws", "nails", "bolts", "washers", "hinges", "springs", "magnets", "batteries",
         "fuses", "light bulbs", "rivets", "hooks"),
        ("box", "case", "tub", "bin", "bucket", "jar", "canister", "pouch"),
    ),
    Goods(
        ("rice", "flour", "sugar", "salt", "oats", "lentils", "beans", "pasta", "cornflakes",
         "breadcrumbs", "semolina", "barley", "couscous", "chickpeas"),
        ("jar", "canister", "tub", "bag", "sack", "box", "pot"),
    ),
    Goods(
        ("sunflower seeds", "tomato seeds", "carrot seeds", "pumpkin seeds", "poppy seeds",
         "lettuce seeds", "basil seeds", "onion seeds", "melon seeds", "radish seeds"),
        ("packet", "envelope", "pouch", "jar", "box"),
    ),
)  # fmt: skip

_PLACES = (
    "on the kitchen table", "in the garage", "under the stairs", "in the attic",
    "on a park bench", "in the hallway", "on the doorstep", "in the school library",
    "behind the sofa", "on a shelf in the shed", "in the back seat of the car",
    "on the office desk", "in the basement", "in a waiting room", "on the train",
    "in the laundry room", "beside the front door", "at the bus stop",
)  # fmt: skip
_RELATIONS = (
    "cousin", "neighbour", "aunt", "uncle", "grandmother", "grandfather", "older brother",
    "older sister", "best friend", "teacher", "roommate", "colleague", "mother", "father",
    "landlady",
)  # fmt: skip

_THINGS = (
    Thing("cat", "play with the cat", animal=True),
    Thing("kitten", "cuddle the kitten", animal=True),
    Thing("puppy", "take the puppy for a walk", animal=True),
    Thing("rabbit", "feed the rabbit", animal=True),
    Thing("frog", "show the frog to a friend", animal=True),
    Thing("hamster", "give the hamster some water", animal=True),
    Thing("squirrel", "feed the squirrel some nuts", animal=True),
    Thing("ferret", "play with the ferret", animal=True),
    Thing("guinea pig", "brush the guinea pig", animal=True),
    Thing("toad", "show the toad to a neighbour", animal=True),
    Thing("mouse", "feed the mouse", animal=True),
    Thing("lizard", "take a photo of the lizard", animal=True),
    Thing("grasshopper", "let the grasshopper go in the garden", animal=True),
    Thing("ball", "play with the ball", animal=False),
    Thing("book", "read the book", animal=False),
    Thing("scarf", "wear the scarf", animal=False),
    Thing("phone", "call a friend on the phone", animal=False),
    Thing("wallet", "pay with the money in the wallet", animal=False),
    Thing("teddy bear", "hug the teddy bear", animal=False),
    Thing("doll", "play with the doll", animal=False),
    Thing("flashlight", "use the flashlight", animal=False),
    Thing("hat", "wear the hat", animal=False),
    Thing("notebook", "write in the notebook", animal=False),
    Thing("camera", "take pictures with the camera", animal=False),
    Thing("watch", "wear the watch", animal=False),
    Thing("harmonica", "play the harmonica", animal=False),
)
# Consonant-initial, single words: "a box and a basket" stays grammatical when swapped.
_ANIMAL_PLACES = (
    "box", "basket", "crate", "hamper", "cage", "suitcase", "wardrobe", "cupboard",
    "drawer", "bucket", "chest", "trunk",
)  # fmt: skip
_THING_PLACES = (
    "box", "basket", "drawer", "cupboard", "crate", "chest", "suitcase", "backpack",
    "wardrobe", "cabinet", "hamper", "trunk", "locker", "bag", "bucket", "sack",
)  # fmt: skip
_ROOMS = (
    "living room", "kitchen", "bedroom", "garage", "attic", "classroom", "office",
    "hallway", "playroom", "basement", "shed", "studio", "cabin", "barn", "workshop",
)  # fmt: skip
_ERRANDS = (
    "goes to school", "goes to work", "goes to the market", "goes for a swim",
    "goes to the dentist", "goes out for a walk", "goes to the library",
    "goes to football practice", "goes to visit a friend", "goes to the bakery",
    "goes to a piano lesson", "goes to the gym", "goes to the post office",
    "goes to the cinema", "goes to the park", "goes to a meeting", "goes jogging",
    "goes to the pharmacy",
)  # fmt: skip

# ---------------------------------------------------------------------------- wording
# Each story draws one wording per slot; its conditions and reversals share it, so they
# differ only where their worlds differ.

_CONTENTS_OPENINGS = (
    "Here is {a_container} filled with {contents}.",
    "There is {a_container} {place}, and it is filled with {contents}.",
    "Someone has left {a_container} full of {contents} {place}.",
)
_CONTENTS_NOT_OTHER = (
    "It contains no {other}.",
    "It has no {other} in it at all.",
    "There is not a trace of {other} in the {container}.",
)
_LABELS = (  # (label wrong, label right)
    ('Yet, the label on the {container} says "{label}" and not "{unlabel}".',
     'The label on the {container} says "{label}" and not "{unlabel}".'),
    ('Still, the {container} is labelled "{label}", not "{unlabel}".',
     'The {container} is labelled "{label}", not "{unlabel}".'),
    ('Oddly, its label reads "{label}" rather than "{unlabel}".',
     'Its label reads "{label}" rather than "{unlabel}".'),
)  # fmt: skip
_FINDINGS = (
    ("{name} finds the {container}.", "{Pro} has never seen it before."),
    ("{name} comes across the {container}.", "{Pro} has never seen this {container} before."),
    ("{name} notices the {container}.", "It is the first time {pro} has seen it."),
)
_CONTENTS_REALITY = (
    "{name} opens the {container} and looks inside. {Pro} can clearly see that it is full of",
    "{name} opens the {container} and peers inside. {Pro} can plainly see that it is full of",
    "{name} opens the {container} to look inside. {Pro} can clearly see that it is full of",
)
_CONTENTS_BELIEF = (
    "{name} calls a friend to tell them that {pro} has just found {a_noun} full of",
    "{name} phones a friend to say that {pro} has just found {a_noun} full of",
    "{name} texts a friend to say that {pro} has just found {a_noun} full of",
)

_TRANSFER_OPENINGS = (
    "In the {room}, there are {name}, {mover}, {a_object}, a {start} and a {other}.",
    "{name} and {mover} are in the {room} with {a_object}, a {start} and a {other}.",
)
_PUTS = (
    "{name} puts the {object} in the {start} and closes it.",
    "{name} takes the {object}, puts it in the {start} and shuts it.",
    "{name} places the {object} in the {start} and closes it.",
)
_RETURNS = (
    "Later, {name} comes back and wants to {activity}.",
    "When {name} comes back, {pro} wants to {activity}.",
    "{name} returns after a while and wants to {activity}.",
)
_TRANSFER_REALITY = {
    True: ("The {object} jumps out of the", "The {object} leaps out of the"),
    False: ("The {object} falls out of the", "The {object} tumbles out of the"),
}
_TRANSFER_BELIEF = (
    "{name} will look for the {object} in the",
    "{name} is going to look for the {object} in the",
    "{name} will search for the {object} in the",
)


def _article(phrase: str) -> str:
    return f"{'an' if phrase[0] in 'aeiou' else 'a'} {phrase}"


@dataclass(frozen=True, slots=True)
class ContentsScene:
    """What an Unexpected Contents item draws once: who, what, where, and its wording."""

    protagonist: Person
    container: Container
    place: str
    relation: str
    opening: str
    not_other: str
    labels: tuple[str, str]
    finding: tuple[str, str]


@dataclass(frozen=True, slots=True)
class TransferScene:
    """What an Unexpected Transfer item draws once: who, what, where, and its wording."""

    protagonist: Person
    mover: Person
    thing: Thing
    room: str
    errand: str
    mover_errand: str
    opening: str
    put: str
    comeback: str


def _person_slots(person: Person) -> dict[str, str]:
    return {
        "name": person.name,
        "pro": person.pronoun,
        "Pro": person.pronoun.capitalize(),
        "obj": person.object,
        "pos": person.possessive,
        "self": person.reflexive,
    }


def _contents_slots(scene: ContentsScene, material: str) -> dict[str, str]:
    noun = scene.container.noun
    return _person_slots(scene.protagonist) | {
        "container": noun,
        "a_container": _article(f"{material} {noun}"),
        "a_noun": _article(noun),
        "place": scene.place,
        "relation": scene.relation,
    }


def _contents_sentences(world: ContentsWorld, scene: ContentsScene) -> tuple[str, ...]:
    material = scene.container.clear if world.see_through else scene.container.opaque
    unlabel = world.other if world.labelled_right else world.contents
    slots = _contents_slots(scene, material) | {
        "contents": world.contents,
        "other": world.other,
        "label": world.label,
        "unlabel": unlabel,
    }
    wrong_label, right_label = scene.labels
    sentences = [
        scene.opening,
        scene.not_other,
        right_label if world.labelled_right else wrong_label,
    ]
    if world.filled_it:
        sentences += [
            '{name} filled the {container} with {contents} {self} and wrote "{label}" on'
            " the label as a joke.",
            "Today {name} finds the {container} again, where {pro} left it.",
        ]
    else:
        sentences += scene.finding
    if not world.literate:
        sentences.append("{name} cannot read.")
    if world.opened:
        sentences.append("{name} opens the {container} and looks inside.")
    elif world.see_through:
        sentences.append(
            "{name} does not open the {container}, but {pro} looks through its clear sides."
        )
    else:
        sentences.append("{name} does not open the {container} and does not look inside.")
    sentences.append("{name} reads the label." if world.literate else "{name} looks at the label.")
    if world.told:
        sentences += [
            "{name}'s {relation} calls {obj} and tells {obj} that the {container} has {contents}"
            ' in it, and that {pro} should ignore the label that says "{label}".',
            "{name} believes {pos} {relation}.",
        ]
    return tuple(sentence.format_map(slots) for sentence in sentences)


def _transfer_sentences(world: TransferWorld, scene: TransferScene) -> tuple[str, ...]:
    protagonist, mover, thing = scene.protagonist, scene.mover, scene.thing
    slots = _person_slots(protagonist) | {
        "mover": mover.name,
        "room": scene.room,
        "object": thing.noun,
        "a_object": _article(thing.noun),
        "start": world.start,
        "other": world.other,
        "end": world.end,
        "errand": scene.errand,
        "mover_errand": scene.mover_errand,
        "activity": thing.activity,
    }
    sentences = [scene.opening, scene.put]
    if world.watched:
        while_ = "While {name} watches"
    else:
        sentences.append("{Pro} leaves the {room} and {errand}.")
        while_ = "While {name} is away"
    if world.moved:
        sentences += [
            while_ + ", {mover} takes the {object} out of the {start} and puts it in the {other}.",
            "{mover} closes the {other}.",
        ]
    else:
        # Kosinski's no-transfer story names the original place twice more; here the
        # object goes back "where it was", so both places are named equally often.
        handling = "plays with it" if thing.animal else "looks at it"
        sentences += [
            while_ + ", {mover} takes the {object} out, " + handling + " for a little while,"
            " and puts it back where it was.",
            "{mover} does not touch the {other}.",
        ]
    if world.watched:
        sentences.append("Then {name} {errand}, and {mover} {mover_errand}.")
    else:
        sentences.append("{mover} leaves the {room} and {mover_errand}.")
    sentences.append(scene.comeback)
    if world.told:
        sentences += [
            "{mover} calls {name} and tells {obj} that the {object} is no longer in the"
            " {start}: it is now in the {end}.",
            "{name} believes {mover}.",
        ]
    return tuple(sentence.format_map(slots) for sentence in sentences)


# ---------------------------------------------------------------------------- items


@cache
def _pairs(words: tuple[str, ...]) -> list[tuple[str, str]]:
    """The ordered key-word pairs `words` offer."""
    return [pair for pair in permutations(words, 2) if distinguishable(*pair)]


def _contents_item(number: int, seed: int, perturbations: bool) -> Item:
    rng = random.Random(f"tom-eval:false-belief:{seed}:contents:{number}")
    goods = rng.choice(_GOODS)
    key_words = rng.choice(_pairs(goods.nouns))
    scene = ContentsScene(
        protagonist=rng.choice(_PEOPLE),
        container=_CONTAINERS[rng.choice(goods.containers)],
        place=rng.choice(_PLACES),
        relation=rng.choice(_RELATIONS),
        opening=rng.choice(_CONTENTS_OPENINGS),
        not_other=rng.choice(_CONTENTS_NOT_OTHER),
        labels=rng.choice(_LABELS),
        finding=rng.choice(_FINDINGS),
    )
    slots = _contents_slots(scene, scene.container.opaque)
    stems = (
        rng.choice(_CONTENTS_REALITY).format_map(slots),
        rng.choice(_CONTENTS_BELIEF).format_map(slots),
    )
    conditions = CONDITIONS["contents"] + (PERTURBATIONS["contents"] if perturbations else ())

    def render(story_world: World) -> tuple[str, ...]:
        assert isinstance(story_world, ContentsWorld)
        return _contents_sentences(story_world, scene)

    return _item(f"contents-{number:02d}", "contents", key_words, conditions, stems, render)


def _transfer_item(number: int, seed: int) -> Item:
    rng = random.Random(f"tom-eval:false-belief:{seed}:transfer:{number}")
    thing = rng.choice(_THINGS)
    key_words = rng.choice(_pairs(_ANIMAL_PLACES if thing.animal else _THING_PLACES))
    protagonist, mover = rng.sample(_PEOPLE, 2)
    errand, mover_errand = rng.sample(_ERRANDS, 2)
    scene = TransferScene(
        protagonist=protagonist,
        mover=mover,
        thing=thing,
        room=rng.choice(_ROOMS),
        errand=errand,
        mover_errand=mover_errand,
        opening=rng.choice(_TRANSFER_OPENINGS),
        put=rng.choice(_PUTS),
        comeback=rng.choice(_RETURNS),
    )
    slots = _person_slots(protagonist) | {"object": thing.noun}
    stems = (
        rng.choice(_TRANSFER_REALITY[thing.animal]).format_map(slots),
        rng.choice(_TRANSFER_BELIEF).format_map(slots),
    )

    def render(story_world: World) -> tuple[str, ...]:
        assert isinstance(story_world, TransferWorld)
        return _transfer_sentences(story_world, scene)

    return _item(
        f"transfer-{number:02d}", "transfer", key_words, CONDITIONS["transfer"], stems, render
    )


def _item(
    item_id: str,
    family: Family,
    key_words: tuple[str, str],
    conditions: tuple[str, ...],
    stems: tuple[str, str],
    render: Callable[[World], tuple[str, ...]],
) -> Item:
    """Every condition's story and its reversal, answers derived from their worlds."""
    stories = []
    for condition in conditions:
        for reversed_ in (False, True):
            story_world = world(family, condition, key_words, reversed_)
            reality, belief = answers(story_world)
            stories.append(
                Story(
                    condition,
                    reversed_,
                    render(story_world),
                    Completion(
                        "reality", stems[0], reality, wrong_answer(key_words, reality, reversed_)
                    ),
                    Completion(
                        "belief", stems[1], belief, wrong_answer(key_words, belief, reversed_)
                    ),
                )
            )
    return Item(item_id, family, key_words, tuple(stories))


MAX_ITEMS = 100_000
"""The most tasks one call generates (about 0.5 ms and 5 kB each, all held in memory)."""


def generate_items(
    contents: int = 20, transfer: int = 20, seed: int = 0, perturbations: bool = False
) -> list[Item]:
    """`contents` Unexpected Contents then `transfer` Unexpected Transfer items, numbered
    from 1. Item n is the same whatever the counts, and the same on every machine.

    `perturbations` adds the contents items' Ullman-style alterations (transparent
    container, protagonist who cannot read, label written by the protagonist), each with
    its reversal; the standard stories are unchanged by it."""
    for name, count in (("contents", contents), ("transfer", transfer)):
        if count < 0:
            raise InputError(f"{name} must be a whole number of 0 or more, not {count}")
    if contents + transfer > MAX_ITEMS:
        raise InputError(
            f"{contents:,} contents + {transfer:,} transfer tasks is more than the {MAX_ITEMS:,} "
            "generated at once (they are held in memory, about 5 kB each): ask for fewer"
        )
    items = [_contents_item(number, seed, perturbations) for number in range(1, contents + 1)]
    items += [_transfer_item(number, seed) for number in range(1, transfer + 1)]
    for item in items:
        problems = verify(item)
        if problems:
            raise RuntimeError(f"generator bug, {item.item_id} (seed {seed}): {problems[0]}")
    return items


# ---------------------------------------------------------------------------- checks


def verify(item: Item) -> list[str]:
    """The design's invariants that `item` breaks (none for a sound item)."""
    first, second = item.key_words
    problems = []
    if not distinguishable(first, second):
        problems.append(f"key words '{first}' and '{second}' share a first word")
    expected_stories = Counter(
        (condition, reversed_)
        for condition in CONDITIONS[item.family]
        for reversed_ in (False, True)
    )
    found = Counter((story.condition, story.reversed) for story in item.standard)
    if found != expected_stories:
        problems.append(
            f"standard stories are {sorted(found.elements())}, not the 4 conditions x 2"
        )
    versions = Counter((story.condition, story.reversed) for story in item.stories)
    problems += [
        f"{condition} appears {count} times"
        for (condition, _), count in versions.items()
        if count > 1
    ]
    originals = {(story.condition, story.reversed): story for story in item.stories}
    for story in item.stories:
        where = f"{story.condition}{' reversed' if story.reversed else ''}"
        if story.condition not in CONDITIONS[item.family] + PERTURBATIONS[item.family]:
            problems.append(f"{where}: not a {item.family} condition")
            continue
        counts = (mentions(story.text, first), mentions(story.text, second))
        if counts[0] != counts[1]:
            problems.append(f"{where}: '{first}' occurs {counts[0]} times, '{second}' {counts[1]}")
        for completion in story.prompts:
            if mentions(completion.stem, first) or mentions(completion.stem, second):
                problems.append(f"{where}: the {completion.kind} prompt names a key word")
        expected = answers(world(item.family, story.condition, item.key_words, story.reversed))
        for completion, answer in zip(story.prompts, expected, strict=True):
            if completion.expected != answer:
                problems.append(
                    f"{where}: {completion.kind} expects {completion.expected!r}, the story"
                    f" implies {answer!r}"
                )
            if completion.wrong != wrong_answer(item.key_words, answer, story.reversed):
                problems.append(f"{where}: {completion.kind} has wrong answer {completion.wrong!r}")
        if split_sentences(story.text) != story.sentences:
            problems.append(f"{where}: its text does not split back into its sentences")
        counterpart = originals.get((story.condition, not story.reversed))
        if counterpart is None:
            problems.append(f"{where}: no {'original' if story.reversed else 'reversed'} version")
        elif not story.reversed and reverse(story, item.key_words) != counterpart:
            problems.append(f"{where}: the reversed story is not this one with the keys swapped")
    return problems


# ---------------------------------------------------------------------------- sentences

_BOUNDARY = re.compile("[.!?][\"\u201d\u2019')]?(\\s+)(?=[\"\u201c\u2018'(]?[A-Z0-9])")
"""The end of a sentence and the space after it (group 1), before a capital or a digit."""
_ABBREVIATIONS = ("Mr.", "Mrs.", "Ms.", "Dr.", "St.", "Prof.")


def split_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a story: split after ., ! or ? (and a closing quote) where the
    next sentence starts with a capital or a digit, except after a title such as "Mr."."""
    sentences: list[str] = []
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        end = boundary.start(1)
        if not text.endswith(_ABBREVIATIONS, 0, end):
            sentences.append(text[start:end])
            start = boundary.end(1)
    sentences.append(text[start:])
    return tuple(sentence.strip() for sentence in sentences if sentence.strip())
