from __future__ import annotations

import pytest

from tom_eval.game.world import (
    Enter,
    InvalidEvent,
    Leave,
    Move,
    Put,
    Room,
    Scenario,
    apply_event,
    with_events,
)

EVERYONE = frozenset("ABCD")


def story(*events: Put | Move | Leave | Enter, present: frozenset[str] = EVERYONE) -> Scenario:
    return Scenario(present, tuple(events), "bag", "A")


def test_a_valid_story_replays_to_its_final_room() -> None:
    final = story(Put("B", "apple", "bag"), Move("C", "apple", "bag", "box"), Leave("D")).rooms[-1]
    assert final.holding("bag") is None
    assert final.holding("box") == "apple"
    assert final.present == frozenset("ABC")


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ((Leave("B"), Put("B", "apple", "bag")), "B acts while absent"),
        ((Leave("B"), Leave("B")), "B acts while absent"),
        ((Enter("B"),), "B enters but is already in the room"),
        ((Put("B", "apple", "bag"), Put("C", "ball", "bag")), "into the full bag"),
        ((Put("B", "apple", "bag"), Move("C", "ball", "bag", "box")), "which holds apple"),
        (
            (Put("B", "apple", "bag"), Put("C", "ball", "box"), Move("C", "apple", "bag", "box")),
            "full box",
        ),
        ((Put("B", "apple", "bag"), Put("C", "apple", "box")), "already in the bag"),
        ((Put("Z", "apple", "bag"),), "unknown character 'Z'"),
        ((Put("B", "pear", "bag"),), "unknown item 'pear'"),
        ((Put("B", "apple", "crate"),), "unknown container 'crate'"),
    ],
)
def test_impossible_events_are_rejected_with_the_reason(
    events: tuple[Put, ...], problem: str
) -> None:
    with pytest.raises(InvalidEvent, match=problem):
        story(*events).rooms  # noqa: B018 - replaying raises


def test_unknown_character_present_initially_is_rejected() -> None:
    with pytest.raises(InvalidEvent, match="unknown character 'Q'"):
        story(present=frozenset("AQ")).rooms  # noqa: B018


def test_rooms_are_immutable_values() -> None:
    room = Room.initial(EVERYONE)
    after = apply_event(room, Put("A", "ball", "box"))
    assert room.holding("box") is None and after.holding("box") == "ball"


def test_an_edited_story_replays_only_after_what_it_kept() -> None:
    """`with_events` reuses the rooms a story shares with the one it came from; the result is
    the full replay, and an impossible edit still fails when the rooms are read."""
    original = story(Put("B", "apple", "bag"), Leave("C"), Move("B", "apple", "bag", "box"))
    _ = original.rooms
    inserted = (Leave("D"), Enter("D"))
    events = original.events[:2] + inserted + original.events[2:]
    edited = with_events(original, events, 2)
    assert edited == story(*events)
    assert edited.rooms == story(*events).rooms
    impossible = with_events(original, (*original.events, Put("C", "ball", "box")), 3)
    with pytest.raises(InvalidEvent, match="C acts while absent"):
        impossible.rooms  # noqa: B018 - replaying raises
    assert with_events(story(), (Leave("B"),), 0).rooms == story(Leave("B")).rooms
