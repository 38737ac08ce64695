"""The reply parser reads realistic model output leniently and never guesses or raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tom_eval.game.decisions import PASS, Action
from tom_eval.game.parsing import (
    RESPONSE_FORMATS,
    ParsedAction,
    ParsedAnswer,
    ResponseFormat,
    option_letter,
    parse_action,
    parse_answer,
)
from tom_eval.game.world import CONTAINERS, ITEMS, NOTHING

PLAYERS = ("B", "C", "D", "N")
FORMATS: tuple[ResponseFormat, ...] = ("choice", "action", "free")


def ask(player: str, container: str) -> Action:
    return Action("ask", player, container)


def tell(player: str, container: str, contents: str) -> Action:
    return Action("tell", player, container, contents)


def ok(action: Action) -> ParsedAction:
    return ParsedAction(action)


def bad(problem: str) -> ParsedAction:
    return ParsedAction(None, problem)


LONG_REASONING = "\n".join(
    [
        "Let me think step by step.",
        "B is my teammate and left the room before C moved the apple.",
        "Option 1: I could Ask(B, bag), but B does not know.",
        "Option 2: Tell(B, bag, banana) would fix B's belief.",
        "I could also pass, which is free, but then B answers wrong.",
        *(f"Step {step}: B still believes the bag holds the apple." for step in range(40)),
        "So telling B is worth the cost.",
        "",
        "ACTION: Tell(B, bag, banana)",
    ]
)

ACTION_CASES: list[tuple[str, ParsedAction]] = [
    ("Pass", ok(PASS)),
    ("Ask(B, bag)", ok(ask("B", "bag"))),
    ("Tell(B, bag, apple)", ok(tell("B", "bag", "apple"))),
    ("ask(b, BAG)", ok(ask("B", "bag"))),
    ("TELL(d, BASKET, STAPLER)", ok(tell("D", "basket", "stapler"))),
    ("Ask(B, the bag)", ok(ask("B", "bag"))),
    ("Tell(B, the bag, an apple)", ok(tell("B", "bag", "apple"))),
    ('Tell("B", \'bag\', "apple")', ok(tell("B", "bag", "apple"))),
    ("Tell(\u201cC\u201d, \u2018box\u2019, \u201corange\u201d)", ok(tell("C", "box", "orange"))),
    ("**Pass**", ok(PASS)),
    ("`Ask(B, box)`", ok(ask("B", "box"))),
    ("```\nTell(C, basket, brick)\n```", ok(tell("C", "basket", "brick"))),
    ("```python\nAsk(D, bag)\n```", ok(ask("D", "bag"))),
    ("```Pass```", ok(PASS)),
    ('```json\n{"action": "Tell(B, box, banana)"}\n```', ok(tell("B", "box", "banana"))),
    ("Tell(B, bag, apple.)", ok(tell("B", "bag", "apple"))),
    ("Tell(B, bag, apple).", ok(tell("B", "bag", "apple"))),
    ("Pass.", ok(PASS)),
    ("  Ask (  B ,   bag  )  ", ok(ask("B", "bag"))),
    ("Ask(B,bag)", ok(ask("B", "bag"))),
    ("Ask(Player B, bag)", ok(ask("B", "bag"))),
    ("Ask(player=B, container=bag)", ok(ask("B", "bag"))),
    ("Tell(N, box, nothing)", ok(tell("N", "box", NOTHING))),
    ("Tell(B, bag, empty)", ok(tell("B", "bag", NOTHING))),
    ("Tell(B, bag, no object)", ok(tell("B", "bag", NOTHING))),
    ("Tell(B, bag, None)", ok(tell("B", "bag", NOTHING))),
    ("Tell(B, bag, red ball)", ok(tell("B", "bag", "ball"))),
    ("Tell(B, bag, the bananas)", ok(tell("B", "bag", "banana"))),
    ("Tell(C, bag, unicorn)", ok(tell("C", "bag", "unicorn"))),
    ("Tell(C, bag, apple or banana)", ok(tell("C", "bag", "apple or banana"))),
    ("Tell(B, bag, apple). I'll pass on explaining.", ok(tell("B", "bag", "apple"))),
    ("I pass.", ok(PASS)),
    ("I'll pass", ok(PASS)),
    ('{"action": "Pass"}', ok(PASS)),
    ('{"action": "Ask(C, basket)"}', ok(ask("C", "basket"))),
    ("Action: Ask(B, bag)", ok(ask("B", "bag"))),
    ("Ask(B, bag)\nAsk(B, bag)", ok(ask("B", "bag"))),
    (
        "The template is Tell(Player, Container, Contents), so: Tell(B, box, ball)",
        ok(tell("B", "box", "ball")),
    ),
    (
        "Ask(B, bag) or Tell(B, bag, apple)",
        bad("ambiguous: several different actions (Ask(B, bag), Tell(B, bag, apple))"),
    ),
    ("Ask(X, bag)", bad("unknown player 'X'")),
    ("Ask(A, bag)", bad("A cannot address itself")),
    ("Ask(B, drawer)", bad("unknown container 'drawer'")),
    ("Ask(B, bag, apple)", bad("Ask takes 2 arguments, got 3")),
    ("Tell(B, bag)", bad("Tell takes 3 arguments, got 2")),
    ('Tell(B, bag, "")', bad("Tell has no contents")),
    ("", bad("empty reply")),
    ("   \n\t\n", bad("empty reply")),
    ("I cannot help with that.", bad("no action found")),
    ("I'm sorry, but I won't pass judgement on this game.", bad("no action found")),
    ("B", bad("no action found")),
    # A JSON object names its action in fields, as structured output does.
    ('{"action": "ask", "player": "B", "container": "bag"}', ok(ask("B", "bag"))),
    ('{"action": "tell", "player": "B"}', bad("no action found")),
    ("Ask B about the bag.", ok(ask("B", "bag"))),
    ("Tell player B that the bag contains a banana.", ok(tell("B", "bag", "banana"))),
    ("I'll tell B the apple is in the box.", ok(tell("B", "box", "apple"))),
    ("asking B would cost 0.5", bad("no action found")),
    ("I am passing the turn", bad("no action found")),
    # 13-A: "no:", "or rather" and "hold on" revise an action too.
    ("Action: Ask(B, bag). No: Pass.", ok(PASS)),
    ("Ask(B, bag) - or rather, Pass.", ok(PASS)),
    ("Pass. Hold on, Ask(B, bag).", ok(ask("B", "bag"))),
    # 14-A: "no wait" revises; an echo of the instruction's list of actions names no action
    # (its Pass read as the choice), but what follows it is read; terminal codes are no text.
    ("Ask(B, bag). No wait, Pass.", ok(PASS)),
    ("Ask(B, bag) - no wait, Pass.", ok(PASS)),
    ("Ask(B, bag); I mean, Pass.", ok(PASS)),
    (
        "Pass, Ask(Player, Container) or Tell(Player, Container, Contents)",
        bad("a copy of the instruction's list of actions, not an action"),
    ),
    (
        "As Pass, Ask(Player, Container) or Tell(Player, Container, Contents):\nAsk(B, bag)",
        ok(ask("B", "bag")),
    ),
    ("\x1b[1mTell(B, bag, apple)\x1b[0m", ok(tell("B", "bag", "apple"))),
    ("\x1b]0;a title\x07Ask(B, bag). I mean Pass.", ok(PASS)),
    (
        "Pass | Ask(Player, Container) | Tell(Player, Container, Contents)",
        bad("a copy of the instruction's list of actions, not an action"),
    ),
    # 14-B: a revision's opening is no word of the action it states (these read as the first).
    ("Ask(B, bag). No wait Pass.", ok(PASS)),
    ("Pass. Actually I'll Ask(B, bag). It costs 0.5 but B knows.", ok(ask("B", "bag"))),
    # An echoed list of actions with a subject is still no action (it may state the rules).
    (
        "On my turn I will Pass, Ask(Player, Container) or Tell(Player, Container, Contents).",
        bad("no action found"),
    ),
    # 14-C: the answerer's own "would" chooses, as "I'd" did (these were only weighed)...
    ("I would pass.", ok(PASS)),
    ("I would Ask(B, bag).", ok(ask("B", "bag"))),
    ("Ask(B, bag) would cost 0.5, so I would pass.", ok(PASS)),
    # ...unless a condition binds it ("I'd" read as a choice), or another player's "would".
    (
        "If B had stayed, I'd Ask(B, bag).",
        bad("no action committed to (only weighed: Ask(B, bag))"),
    ),
    ("If B had stayed, I would Ask(B, bag). But B left, so Pass.", ok(PASS)),
    ("Had C stayed, I'd pass.", bad("no action committed to (only weighed: Pass)")),
    ("I'd pass if nothing had changed.", bad("no action committed to (only weighed: Pass)")),
    (
        "Normally I would pass, but B missed the move. Tell(B, bag, apple).",
        ok(tell("B", "bag", "apple")),
    ),
    ("I'd pass, as it does not matter if B knows.", ok(PASS)),
    # ...a condition opens the sentence or follows the action; a conclusion, an idiom or a
    # condition elsewhere binds nothing (a review's findings on the first form).
    ("Since I'm not sure if B saw the move, I'd Ask(B, bag).", ok(ask("B", "bag"))),
    (
        "B left. If he returns, he'll think the apple is there, so I'd Tell(B, bag, apple).",
        ok(tell("B", "bag", "apple")),
    ),
    ("If it were up to me, I'd pass.", ok(PASS)),
    ("I'd Ask(C, bag) to find out if C saw the move.", ok(ask("C", "bag"))),
    ("Generally asking costs 0.5, so I'd pass.", ok(PASS)),
    (
        "I would Ask(B, bag), unless B left.",
        bad("no action committed to (only weighed: Ask(B, bag))"),
    ),
    # ...and a second review's: a condition after a word or two, "only if", a rule before a
    # comma bind; the answerer's hedges do not.
    ("However, if B had stayed, I would pass.", bad("no action committed to (only weighed: Pass)")),
    (
        "I would Ask(B, bag) only if B had stayed.",
        bad("no action committed to (only weighed: Ask(B, bag))"),
    ),
    (
        "If B is my teammate, I'd Tell(B, bag, apple). Otherwise, I would pass.",
        bad("no action committed to (only weighed: Tell(B, bag, apple), Pass)"),
    ),
    ("Unless I'm missing something, I'd Tell(B, bag, apple).", ok(tell("B", "bag", "apple"))),
    ("If I understand the story correctly, I would Ask(C, bag).", ok(ask("C", "bag"))),
    ("B would pass.", bad("no action committed to (only weighed: Pass)")),
    # 14-C: a boxed answer, "Selected:", a Tell that says a container is empty in words.
    ("B saw it all.\n\n\\boxed{Pass}", ok(PASS)),
    ("**Selected:** Ask(B, bag)\n\nB stayed in the room.", ok(ask("B", "bag"))),
    ("Tell C that the bag is empty.", ok(tell("C", "bag", NOTHING))),
    ("I'd tell B the bag's empty.", ok(tell("B", "bag", NOTHING))),
    # 14-D: "rather", "instead" and "So no." revise (these read as the first action).
    ("Ask(B, bag). Actually, I'd rather pass.", ok(PASS)),
    ("Ask(B, bag). I'll pass instead.", ok(PASS)),
    ("I would Ask(B, bag). So no. I'd rather pass.", ok(PASS)),
    # ...as do an action a revision prefers, "Edit:", a revision in parentheses, changing
    # the answer, and closing labels of a revision.
    ("Pass. Actually, Ask(B, bag) is better.", ok(ask("B", "bag"))),
    ("Ask(B, bag). Wait, Tell(B, bag, apple) would be more useful.", ok(tell("B", "bag", "apple"))),
    ("Action: Pass\n\n(Actually, Ask(C, bag) is better.)", ok(ask("C", "bag"))),
    ("Action: Pass\n\nEdit: actually, Ask(C, bag).", ok(ask("C", "bag"))),
    ("Ask(B, bag). I'm switching my answer to Pass.", ok(PASS)),
    ("Action: Ask(B, bag)\nRevised action: Pass", ok(PASS)),
    ("Action: Ask(B, bag)\nRevision: Pass", ok(PASS)),
    # ...but not an action called better with a "but", an "if" or a doubt after it, or with
    # a sentence after it, "I'd rather" outside a revision, "than" without "rather" (two
    # reviews' findings on the first forms).
    ("Pass. Actually, Ask(B, bag) would be better, but it costs 0.5, so I'll pass.", ok(PASS)),
    ("Pass. Actually, Ask(B, bag) is better, I think, but I'm not sure.", ok(PASS)),
    (
        "Pass. Wait, Ask(B, bag) is better, since B knows, if B is still there.",
        ok(PASS),
    ),
    ("I'd rather Ask(B, bag). But it costs 0.5, so Pass.", ok(PASS)),
    ("Pass. Actually, Ask(B, bag) would be better. But it costs 0.5, so Pass.", ok(PASS)),
    # 14-D: a closing statement that only weighs decides nothing (it read as the Ask).
    ("Final answer: I won't Ask(B, bag). Pass.", ok(PASS)),
    ("Revised: Ask(B, bag) would cost 0.5, so no.\nPass.", ok(PASS)),
    # ...nor a bare "Revised:" that opens reasons (a third review's finding).
    ("Revised: Ask(B, bag) costs 0.5, which is too much. Pass.", ok(PASS)),
    (
        "Pass is worse than Ask(B, bag).",
        bad("ambiguous: several different actions (Pass, Ask(B, bag))"),
    ),
    # ...but not "instead of" (as before).
    ("Ask(B, bag). Pass instead of asking wastes nothing.", ok(ask("B", "bag"))),
    # 14-D: an action one would rather not is weighed, not chosen (both were read: ambiguous).
    ("I'd rather pass than Ask(B, bag).", ok(PASS)),
    # 14-E: an action judged not worth its cost is weighed (these read as the Ask)...
    ("Final answer: Ask(B, bag) is overkill. Pass.", ok(PASS)),
    ("Action: Ask(B, bag) is too costly. Pass.", ok(PASS)),
    ("Ask(B, bag) is a bad idea.", bad("no action committed to (only weighed: Ask(B, bag))")),
    ("Ask(B, bag) would be a mistake.", bad("no action committed to (only weighed: Ask(B, bag))")),
    # ...not one judged otherwise, nor one a judgement goes on to choose (a review's finding).
    ("Final answer: Ask(B, bag) is the best move.", ok(ask("B", "bag"))),
    ("Ask(B, bag) is too risky to skip.", ok(ask("B", "bag"))),
    ("Final answer: Ask(B, bag) would be a mistake not to make.", ok(ask("B", "bag"))),
    # 14-F: of several actions a sentence keeps, those after its conclusion decide (these
    # were ambiguous)...
    ("I'd like to ask B about the bag, but that would cost a point, so I'll pass.", ok(PASS)),
    ("Ask(B, bag) is useful, but it costs 0.5, so Pass.", ok(PASS)),
    (
        "Ask(C, bag) gives information, but C lies, so Tell(B, bag, apple).",
        ok(tell("B", "bag", "apple")),
    ),
    # ...only a conclusion that states one action and nothing else (a review's finding):
    # not a purpose, a consequence or a judgement, nor a sentence whose actions all follow
    # its conclusion.
    (
        "Ask(B, bag) now, so I can Tell(C, bag, nothing) later.",
        bad("ambiguous: several different actions (Ask(B, bag), Tell(C, bag, nothing))"),
    ),
    (
        "Tell(C, bag, nothing), so C will waste a turn and probably Pass.",
        bad("ambiguous: several different actions (Tell(C, bag, nothing), Pass)"),
    ),
    (
        "Tell(B, bag, apple) is good, so Pass is probably worse.",
        bad("ambiguous: several different actions (Tell(B, bag, apple), Pass)"),
    ),
    (
        "B left, so Tell(B, bag, apple) or Pass.",
        bad("ambiguous: several different actions (Tell(B, bag, apple), Pass)"),
    ),
    # 14-F: more such judgements (these read as the Ask)...
    ("Final answer: Ask(B, bag) is unwise. Pass.", ok(PASS)),
    ("Ask(B, bag) is the wrong move, so Pass.", ok(PASS)),
    (
        "Ask(B, bag) would be a poor choice.",
        bad("no action committed to (only weighed: Ask(B, bag))"),
    ),
    # ...not "wrong" said of something else, nor before what it judges.
    ("Tell(B, bag, apple), since what B believes is wrong.", ok(tell("B", "bag", "apple"))),
    ("Ask(B, bag) is wrong to skip.", ok(ask("B", "bag"))),
    # ...nor "is wrong", which may say a Tell's message is false on purpose (a review's
    # finding).
    ("Tell(C, bag, nothing) is wrong, and that's the point.", ok(tell("C", "bag", NOTHING))),
    ("tell C the bag\u2019s empty.", ok(tell("C", "bag", NOTHING))),
    ("Tell B that the bag is empty and that the apple is in the box.", bad("no action found")),
    (
        "Telling C the bag is empty helps if C is my teammate.",
        bad("no action committed to (only weighed: Tell(C, bag, nothing))"),
    ),
    (
        "I'd Ask(B, bag), or maybe Tell(B, bag, apple).",
        bad("no action committed to (only weighed: Ask(B, bag), Tell(B, bag, apple))"),
    ),
]

OPTIONS = (
    PASS,
    ask("B", "bag"),
    ask("C", "bag"),
    tell("B", "bag", "apple"),
    tell("C", "bag", NOTHING),
)
"""A) Pass  B) Ask(B, bag)  C) Ask(C, bag)  D) Tell(B, bag, apple)  E) Tell(C, bag, nothing)"""

CHOICE_CASES: list[tuple[str, ParsedAction]] = [
    ("A", ok(PASS)),
    ("B", ok(ask("B", "bag"))),
    ("C", ok(ask("C", "bag"))),
    ("D", ok(tell("B", "bag", "apple"))),
    # 14-A: a letter after a revision is the one revised to (these all read as the first).
    ("A... or rather C", ok(ask("C", "bag"))),
    ("The answer is A. No wait, C.", ok(ask("C", "bag"))),
    ("I pick B. Hmm, no: C.", ok(ask("C", "bag"))),
    ("B. I mean D", ok(tell("B", "bag", "apple"))),
    # ...but a letter that opens more words is not one, nor a rejected one; a player's letter
    # after a revision, before any choice, revises no choice; "I" is a pronoun.
    ("Option A. Actually, option B would lose.", ok(PASS)),
    ("I choose A. No, B would lose points.", ok(PASS)),
    ("The one who answers is C. Actually, D. So Ask is useless; I choose A.", ok(PASS)),
    ("My teammate is C. No wait, B. So I'll choose D.", ok(tell("B", "bag", "apple"))),
    (
        "B: stayed.\nC: left before the move.\nWait, D: left too.\nSo I pick option B.",
        ok(ask("B", "bag")),
    ),
    ("Option D seems best. Wait, I...", ok(tell("B", "bag", "apple"))),
    # 14-B: a letter called the best or the answer, a leaning and "going with" (no letter read).
    ("B is the best option.", ok(ask("B", "bag"))),
    ("C is my answer, since C stayed in the room.", ok(ask("C", "bag"))),
    ("I think D is best.", ok(tell("B", "bag", "apple"))),
    ("So E is the answer.", ok(tell("C", "bag", NOTHING))),
    ("I think B.", ok(ask("B", "bag"))),
    ("I'd say D.", ok(tell("B", "bag", "apple"))),
    ("Going with C.", ok(ask("C", "bag"))),
    ("B is my teammate. D would be the best move here.", ok(tell("B", "bag", "apple"))),
    (
        "A) Pass: saves points.\nD) Tell(B, bag, apple): fixes B.\n\nD is the best option.",
        ok(tell("B", "bag", "apple")),
    ),
    # ...and revisions in those forms (the first letter stood, or no letter was read).
    ("I think A. No wait, I think D.", ok(tell("B", "bag", "apple"))),
    ("A is the best option. Actually, D is the best option.", ok(tell("B", "bag", "apple"))),
    ("I think A. Wait, B left, so D.", ok(tell("B", "bag", "apple"))),
    ("D. Hmm, actually I think A is best.", ok(PASS)),
    (
        "A would be the best move. On second thought, D would be the best move.",
        ok(tell("B", "bag", "apple")),
    ),
    # ...but not what is said of players, a letter that answers a question about a player
    # (also a bare one: "B." read as B), a possessive, a denied letter or a question.
    ("B is the best person to ask.", bad("no option letter or action found")),
    ("C is the best choice to ask, so I pick B.", ok(ask("B", "bag"))),
    ("B is correct.", bad("no option letter or action found")),
    (
        "I need to tell someone. B is the best choice, since B is on my team.",
        bad("no option letter or action found"),
    ),
    ("Who left the room? I think B.", bad("no option letter or action found")),
    ("Who should I tell? B. So D.", ok(tell("B", "bag", "apple"))),
    # 14-C: "would" of the answerer's choice, recommending, choosing in -ing, "So B it is."
    ("I would choose B.", ok(ask("B", "bag"))),
    ("I would go with option D.", ok(tell("B", "bag", "apple"))),
    (
        "If B were on my team, I'd choose D.",
        bad("no action committed to (only weighed: Tell(B, bag, apple))"),
    ),
    ("If B were on my team, I'd choose D. B is not, so I choose A.", ok(PASS)),
    ("I recommend C.", ok(ask("C", "bag"))),
    ("I'd recommend option E.", ok(tell("C", "bag", NOTHING))),
    ("I'm choosing D.", ok(tell("B", "bag", "apple"))),
    ("Selecting B.", ok(ask("B", "bag"))),
    ("My answer would be C.", ok(ask("C", "bag"))),
    ("So B it is.", ok(ask("B", "bag"))),
    ("D it is, then.", ok(tell("B", "bag", "apple"))),
    ("D or E. I'll say D.", ok(tell("B", "bag", "apple"))),
    ("Nobody left the room.\n\n$\\boxed{A}$", ok(PASS)),
    ("I'm torn, but if I had to pick one, I'd pick B.", ok(ask("B", "bag"))),
    ("What would I do? I'd tell B.\n\nFinal: D", ok(tell("B", "bag", "apple"))),
    ("Recommendation: **C**", ok(ask("C", "bag"))),
    ("Option D it is.", ok(tell("B", "bag", "apple"))),
    (
        "Option B, or maybe option D.",
        bad("no action committed to (only weighed: Ask(B, bag), Tell(B, bag, apple))"),
    ),
    # ...not a player's letter after those words.
    ("I'd recommend telling B. So D.", ok(tell("B", "bag", "apple"))),
    ("So B it is who left.", bad("no option letter or action found")),
    ("Choosing B or D doesn't matter much; I'll pass.", ok(PASS)),
    ("B would believe me, so D.", ok(tell("B", "bag", "apple"))),
    (
        "Tell(C, bag, nothing) helps only if C is my teammate; C is my teammate, so E.",
        ok(tell("C", "bag", NOTHING)),
    ),
    ("B left, so I.", bad("no option letter or action found")),
    # ...not a letter its sentence named before, nor one after a question about a player.
    (
        "The only one who missed it is B, so B. Telling him helps.",
        bad("no option letter or action found"),
    ),
    ("Who should I tell? I'd recommend B.", bad("no option letter or action found")),
    ("Choosing B means paying 0.5 to learn nothing.", bad("no option letter or action found")),
    ("I'd recommend B tell C about the bag.", bad("no option letter or action found")),
    ("My answer would be C, since C saw the move.", ok(ask("C", "bag"))),
    ("I\u2019ll say D.", ok(tell("B", "bag", "apple"))),
    ("Okay, E it is.", ok(tell("C", "bag", NOTHING))),
    ("\\boxed{\\text{Option } B}", ok(ask("B", "bag"))),
    ("I'll go with B's answer: the apple is in the bag.", bad("no option letter or action found")),
    ("B is not the best option.", bad("no option letter or action found")),
    ("B is the best option?", bad("no option letter or action found")),
    ("I think B knows. So D.", ok(tell("B", "bag", "apple"))),
    ("I pick A. Wait, is B there, or C?", ok(PASS)),
    # 14-D: a letter a revision prefers, after a choice (these read as the first letter)...
    ("I think A. Actually D is the best choice.", ok(tell("B", "bag", "apple"))),
    ("Option A. Hmm, no - D is better.", ok(tell("B", "bag", "apple"))),
    ("My answer is A. Wait, actually, C makes more sense.", ok(ask("C", "bag"))),
    ("A. On second thought, D instead.", ok(tell("B", "bag", "apple"))),
    ("Option B. I'll choose C instead.", ok(ask("C", "bag"))),
    ("Answer: B. I'll Ask(C, bag) instead.", ok(ask("C", "bag"))),
    ("I think A. Actually, I'd rather go with D.", ok(tell("B", "bag", "apple"))),
    ("Option A. Actually, make that D.", ok(tell("B", "bag", "apple"))),
    ("Option D. I'll change my answer to E.", ok(tell("C", "bag", NOTHING))),
    ("Answer: C\n\n(Actually, B is better, since the bag was in view.)", ok(ask("B", "bag"))),
    ("Initially: E. Revised: D.", ok(tell("B", "bag", "apple"))),
    # ...not a player's letter, nor one with no choice before it.
    ("Option A. Actually, D is better placed to know.", ok(PASS)),
    ("Option A. Actually, B is the best choice to ask.", ok(PASS)),
    ("My teammate is C. Actually, D is better.", bad("no option letter or action found")),
    ("Who left first? It's B. So I choose A.", ok(PASS)),
    # ...two reviews' findings on the first forms: a player's letter after "it's",
    # "switching to" or a call, or named again; a letter preferred with a "but" or a
    # sentence after it; "the right one"; "but wait" inside a sentence.
    ("A. I thought it was B, but actually it's C.", ok(PASS)),
    ("My answer is A.\nSwitching to B: B saw the apple.", ok(PASS)),
    ("B stayed. Switching to C: C left. I choose E.", ok(tell("C", "bag", NOTHING))),
    ("Tell(C, bag, nothing). Actually, make that B.", ok(tell("C", "bag", NOTHING))),
    ("Tell(C, bag, nothing). Actually, B is better, since B left.", ok(tell("C", "bag", NOTHING))),
    ("A. On second thought, C makes more sense, but it costs too much.", ok(PASS)),
    ("A. Actually D is better. Unfortunately it costs too much.", ok(PASS)),
    ("D. Actually, C is better, since C left too.", ok(tell("B", "bag", "apple"))),
    ("Answer: D\nB missed the move. Switching to C. C saw it.", ok(tell("B", "bag", "apple"))),
    ("A, but wait, I prefer D.", bad("no option letter or action found")),
    ("E. Actually, B is the right one, because B doesn't know.", ok(tell("C", "bag", NOTHING))),
    # ...and a third's: a player named by a pronoun, a letter after "Edit:" alone, another
    # player's "instead", a change with a doubt after it.
    ("D. Actually, C is better, because she also missed the move.", ok(tell("B", "bag", "apple"))),
    ("Tell(B, bag, apple). Edit: C.", ok(tell("B", "bag", "apple"))),
    ("D. B would then Ask(C, bag) instead.", ok(tell("B", "bag", "apple"))),
    ("D. I'd change my answer to E, but C stayed.", ok(tell("B", "bag", "apple"))),
    ("Option A. Actually, C is better than B at remembering.", ok(PASS)),
    # 14-E: a letter that opens the reply before its reasons (these were unread), revised
    # as a letter alone is...
    ("B, because Sally left before the apple moved.", ok(ask("B", "bag"))),
    ("**D** - since my teammate missed the move.", ok(tell("B", "bag", "apple"))),
    ("E, since telling C nothing misleads the opponent.", ok(tell("C", "bag", NOTHING))),
    ("D (because B left).", ok(tell("B", "bag", "apple"))),
    ("D, because B left, so B doesn't know.", ok(tell("B", "bag", "apple"))),
    ("D, because B left. Actually, A.", ok(PASS)),
    ("D, because B left.\n\nWait, actually E, as C is an opponent.", ok(tell("C", "bag", NOTHING))),
    ("E, since C is an opponent. On second thought, D.", ok(tell("B", "bag", "apple"))),
    ("D, because:\n- B left the room\n- B is my teammate", ok(tell("B", "bag", "apple"))),
    # ...not a player given a reason (reasons broken off, a pronoun or the letter again
    # after it in the reply, a parenthesis with more after it), nor notes on several
    # players, nor a letter after the reply's first sentence; read only where nothing else
    # is (a second review: a later choice made these ambiguous).
    (
        "C, because she left, doesn't know where the apple is.",
        bad("no option letter or action found"),
    ),
    ("B - as my teammate - shares my score.", bad("no option letter or action found")),
    ("C, because she's an opponent and might lie. Therefore, B.", ok(ask("B", "bag"))),
    ("D, since he's on the other team. I'll ask B: option B.", ok(ask("B", "bag"))),
    ("C, because C's view is out of date. So A.", ok(PASS)),
    ("C (because of the move) doesn't know. So A.", ok(PASS)),
    ("E, since C lies. D, since B left.", bad("no option letter or action found")),
    (
        "B, since he went out, and C, since she went out too.",
        bad("no option letter or action found"),
    ),
    ("B, as did C.", bad("no option letter or action found")),
    ("Who should I tell? B, because it left.", bad("no option letter or action found")),
    ("Let's see. C, because it moved.", bad("no option letter or action found")),
    (
        "C, since the opponent was out of the room. So I should mislead C: E.",
        bad("no option letter or action found"),
    ),
    (
        "C, as an opponent. I should give them nothing useful: E.",
        bad("no option letter or action found"),
    ),
    ("C, because opponents lie. So B.", ok(ask("B", "bag"))),
    (
        "B, because teammates share points.\nTherefore the best option is D.",
        ok(tell("B", "bag", "apple")),
    ),
    # 14-F: such a letter with no punctuation before its reasons, after "I think" and the
    # like, or with "given that" as the reason's word (these were unread)...
    ("D because B left before the apple moved.", ok(tell("B", "bag", "apple"))),
    ("E since C is an opponent.", ok(tell("C", "bag", NOTHING))),
    ("I think D, because B left before the apple moved.", ok(tell("B", "bag", "apple"))),
    ("I'd say B since Sally left.", ok(ask("B", "bag"))),
    ("D, given that B left the room.", ok(tell("B", "bag", "apple"))),
    ("I think D because B left. Actually, A.", ok(PASS)),
    # ...but not a player given a reason, as above.
    ("B because he is my teammate.", bad("no option letter or action found")),
    ("I think C because C is an opponent.", bad("no option letter or action found")),
    (
        "C because she left, doesn't know where the apple is.",
        bad("no option letter or action found"),
    ),
    ("I believe B since he left has no idea.", bad("no option letter or action found")),
    ("D because B left; C stayed.", bad("no option letter or action found")),
    # ...nor, with no punctuation, a cause or a time (a review's finding).
    ("C because of the absence doesn't know.", bad("no option letter or action found")),
    ("B since the start has been my teammate.", bad("no option letter or action found")),
    ("C given that chance would lie to us.", bad("no option letter or action found")),
    ("I think D because the apple moved.", ok(tell("B", "bag", "apple"))),
    ("C because it stayed knows where the apple is.", bad("no option letter or action found")),
    (
        "B since that moment has believed the apple is in the box.",
        bad("no option letter or action found"),
    ),
    ("D because telling B where the apple is would help.", ok(tell("B", "bag", "apple"))),
    # 14-F: a revision written the same way replaces the letter before it (this was D).
    ("D because B left. Actually, E because C is an opponent.", ok(tell("C", "bag", NOTHING))),
    ("D, because B left. Actually, C because C stayed.", ok(tell("B", "bag", "apple"))),
    # 14-F: what a sentence's conclusion states decides, as in the action format (these read
    # as the Ask, or as only weighed)...
    ("Ask(B, bag) is useful, but it costs 0.5, so Pass.", ok(PASS)),
    ("I could Ask(B, bag), but it isn't worth it, so I pass.", ok(PASS)),
    # ...not what follows from the choice (a review's finding), nor a letter named before it.
    (
        "I'll go with Tell(C, bag, nothing), so C has to pass or guess.",
        ok(tell("C", "bag", NOTHING)),
    ),
    (
        "Tell(B, bag, apple) is strictly better, so pass is dominated.",
        ok(tell("B", "bag", "apple")),
    ),
    # 14-E: a letter's possessive names it as a player, as the letter does (this read as C).
    ("D. Actually, C is better, since C's view is stale.", ok(tell("B", "bag", "apple"))),
    ("b", ok(ask("B", "bag"))),
    ("(B)", ok(ask("B", "bag"))),
    ("B)", ok(ask("B", "bag"))),
    ("B.", ok(ask("B", "bag"))),
    ("**B**", ok(ask("B", "bag"))),
    ("Option B", ok(ask("B", "bag"))),
    ("Answer: B", ok(ask("B", "bag"))),
    ("**Answer:** (E)", ok(tell("C", "bag", NOTHING))),
    ("The answer is B.", ok(ask("B", "bag"))),
    ("I choose option C", ok(ask("C", "bag"))),
    ("I'd pick D, telling my teammate.", ok(tell("B", "bag", "apple"))),
    ("My choice is B", ok(ask("B", "bag"))),
    ("Selected option: C", ok(ask("C", "bag"))),
    ("Letter: D", ok(tell("B", "bag", "apple"))),
    ("B\n\nAsking my teammate is the cheapest way to learn.", ok(ask("B", "bag"))),
    ("B - Ask(B, bag)", ok(ask("B", "bag"))),
    ("I choose a box to look in: the answer is A.", ok(PASS)),
    ("B) Ask(B, bag)", ok(ask("B", "bag"))),
    ("(C) Ask(C, bag)", ok(ask("C", "bag"))),
    ("Ask(B, bag)", ok(ask("B", "bag"))),
    ("Ask(C, the bag)", ok(ask("C", "bag"))),
    ("Pass", ok(PASS)),
    ("Tell(C, bag, apple)", bad("Tell(C, bag, apple) is not among the options")),
    ("F", bad("no option F (options are A-E)")),
    ("Z)", bad("no option Z (options are A-E)")),
    (
        "Option A is free, but option C tells us more.",
        bad("ambiguous: several different actions (Pass, Ask(C, bag))"),
    ),
    (
        "B) Ask(C, bag)",
        bad("ambiguous: several different actions (Ask(B, bag), Ask(C, bag))"),
    ),
    ("Option A is free, but option C tells us more.\nFinal answer: C", ok(ask("C", "bag"))),
    ("A) Pass\nB) Ask(B, bag)\nAnswer: B", ok(ask("B", "bag"))),
    ("I would ask player B about the bag.", ok(ask("B", "bag"))),
    ('{"letter": "D"}', ok(tell("B", "bag", "apple"))),
    ("I'd say so.", bad("no option letter or action found")),
    ("", bad("empty reply")),
]

FREE_CASES: list[tuple[str, ParsedAction]] = [
    ("ACTION: Pass", ok(PASS)),
    ("I could Tell(B, bag, apple)...\nACTION: Pass", ok(PASS)),
    ("ACTION: Tell(B, bag, apple)\nI'll pass on further comment.", ok(tell("B", "bag", "apple"))),
    ("Reasoning...\n**ACTION:** Ask(B, bag)", ok(ask("B", "bag"))),
    ("Reasoning...\n**ACTION: Ask(B, bag)**", ok(ask("B", "bag"))),
    ("Action: Pass", ok(PASS)),
    ("- ACTION: ask(c, BOX)", ok(ask("C", "box"))),
    ("> action: Tell(D, the basket, a brick.)", ok(tell("D", "basket", "brick"))),
    ("ACTION: Ask(B, bag)\nWait, no.\nACTION: Tell(B, bag, ball)", ok(tell("B", "bag", "ball"))),
    ("ACTION:\nAsk(C, basket)", ok(ask("C", "basket"))),
    ("```\nACTION: Pass\n```", ok(PASS)),
    (LONG_REASONING, ok(tell("B", "bag", "banana"))),
    (
        "ACTION: Ask(B, bag) or Tell(B, bag, apple)",
        bad("ambiguous: several different actions (Ask(B, bag), Tell(B, bag, apple))"),
    ),
    # A format slip is read, and marked (the scorer counts it in format_ok).
    ("Tell(B, bag, apple)", ParsedAction(tell("B", "bag", "apple"), slip="no ACTION: line")),
    ("I think I should pass.", ParsedAction(PASS, slip="no ACTION: line")),
    # Unreadable without the line is a slip too: format_ok is not higher for nonsense.
    ("I could ask B. I won't.", ParsedAction(None, "no action found", "no ACTION: line")),
    ("ACTION:", bad("empty ACTION: line")),
    ("ACTION: B", bad("no action found")),
    ("ACTION: Ask(B, cupboard)", bad("unknown container 'cupboard'")),
    ("", bad("empty reply")),
]

ANSWER_CASES: list[tuple[str, ResponseFormat, ParsedAnswer]] = [
    ("apple", "action", ParsedAnswer("apple")),
    ("The apple.", "action", ParsedAnswer("apple")),
    # 14-D: an update in an answer adds to it: it does not take it back, as in an action.
    ("The apple (update: the banana was in the bag).", "action", ParsedAnswer("apple")),
    ("**Banana**", "choice", ParsedAnswer("banana")),
    # 14-C: a boxed answer is its text.
    ("$\\boxed{\\text{apple}}$", "action", ParsedAnswer("apple")),
    ("The box is empty, so \\boxed{nothing}.", "action", ParsedAnswer(NOTHING)),
    ("\\boxed{\\text{}} apple", "action", ParsedAnswer("apple")),
    ("\\boxed{\\emptyset}", "action", ParsedAnswer(NOTHING)),
    ("It contains a red ball.", "action", ParsedAnswer("ball")),
    ("Apples", "action", ParsedAnswer("apple")),
    ("nothing", "action", ParsedAnswer(NOTHING)),
    ("It's empty.", "action", ParsedAnswer(NOTHING)),
    ("None", "choice", ParsedAnswer(NOTHING)),
    ("no object", "action", ParsedAnswer(NOTHING)),
    ("There is nothing in the bag.", "action", ParsedAnswer(NOTHING)),
    ("There isn't anything in it.", "action", ParsedAnswer(NOTHING)),
    ("The apple, I think. Yes, the apple.", "action", ParsedAnswer("apple")),
    # An item said not to be there is not what is there.
    ("Not the apple.", "action", ParsedAnswer(None, "names only what is not there")),
    ("No apple", "action", ParsedAnswer(None, "names only what is not there")),
    (
        "The box doesn't hold the apple.",
        "action",
        ParsedAnswer(None, "names only what is not there"),
    ),
    ("The apple, not the banana.", "action", ParsedAnswer("apple")),
    ("It's not the apple, it's the banana.", "action", ParsedAnswer("banana")),
    ("Nothing, not even the apple.", "action", ParsedAnswer(NOTHING)),
    ("No, apple.", "action", ParsedAnswer("apple")),
    ("Not sure, apple.", "action", ParsedAnswer("apple")),
    ("Not the apple or the banana.", "action", ParsedAnswer(None, "names only what is not there")),
    # A reasoned answer is read at its conclusion, after its last "so" or revision.
    ("The apple was moved to the basket, so the box is empty.", "action", ParsedAnswer(NOTHING)),
    ("It held the apple, so it is not empty.", "action", ParsedAnswer("apple")),
    ("The ball went to the basket. Therefore the apple.", "action", ParsedAnswer("apple")),
    ("Apple. Actually, banana.", "action", ParsedAnswer("banana")),
    ("No, the box is empty.", "action", ParsedAnswer(NOTHING)),
    ("Nothing so far.", "action", ParsedAnswer(NOTHING)),
    # "Not empty" says the opposite of empty, and names nothing that is there.
    ("The box is not empty.", "action", ParsedAnswer(None, "not empty, but no item named")),
    ("a unicorn", "action", ParsedAnswer("unicorn")),
    ("The bag contains a unicorn.", "action", ParsedAnswer("unicorn")),
    ("There's a rubber duck in the bag", "action", ParsedAnswer("rubber duck")),
    ("Maybe the apple.\nFinal answer: the banana", "action", ParsedAnswer("banana")),
    # A closing sentence decides, as a closing line does.
    ("Maybe the apple. Final answer: the banana", "action", ParsedAnswer("banana")),
    ("What is in the bag?", "action", ParsedAnswer(None, "a question, not an answer")),
    ("The apple?", "action", ParsedAnswer("apple")),
    (
        "The answer is D",
        "choice",
        ParsedAnswer(None, "an option letter, not what is in the container"),
    ),
    ("B", "action", ParsedAnswer(None, "an option letter, not what is in the container")),
    ("It held the apple before.\nAnswer: nothing", "action", ParsedAnswer(NOTHING)),
    (
        "apple or banana",
        "action",
        ParsedAnswer(None, "ambiguous: names several items (apple, banana)"),
    ),
    ("I don't know.", "action", ParsedAnswer(None, "no item named")),
    (
        "I am unable to determine this from the information given in the story.",
        "action",
        ParsedAnswer(None, "no item named"),
    ),
    ("", "action", ParsedAnswer(None, "empty reply")),
    ("The apple went to the box.\nANSWER: nothing", "free", ParsedAnswer(NOTHING)),
    ("Thinking about the apple...\n**Answer:** the Orange.", "free", ParsedAnswer("orange")),
    ("ANSWER: brick\nThough it could be the apple.", "free", ParsedAnswer("brick")),
    ("ANSWER: a unicorn", "free", ParsedAnswer("unicorn")),
    ("The bag holds an apple.", "free", ParsedAnswer("apple", slip="no ANSWER: line")),
    ("Hmm, who knows?", "free", ParsedAnswer(None, "a question, not an answer", "no ANSWER: line")),
    ("ANSWER:", "free", ParsedAnswer(None, "empty ANSWER: line")),
    # 14-A: "N/A" (it read as "n"), the format's placeholder, and terminal codes.
    ("N/A", "action", ParsedAnswer(None, "no item named")),
    ("ANSWER: n/a", "free", ParsedAnswer(None, "no item named")),
    ("ANSWER: <contents>", "free", ParsedAnswer(None, "no item named")),
    ("ANSWER: <rubber duck>", "free", ParsedAnswer("rubber duck")),
    ("\x1b[31mapple\x1b[0m", "action", ParsedAnswer("apple")),
    ("", "free", ParsedAnswer(None, "empty reply")),
]


@pytest.mark.parametrize(("reply", "expected"), ACTION_CASES)
def test_action_format(reply: str, expected: ParsedAction) -> None:
    assert parse_action(reply, "action") == expected


@pytest.mark.parametrize(("reply", "expected"), CHOICE_CASES)
def test_choice_format(reply: str, expected: ParsedAction) -> None:
    assert parse_action(reply, "choice", OPTIONS) == expected


@pytest.mark.parametrize(("reply", "expected"), FREE_CASES)
def test_free_format(reply: str, expected: ParsedAction) -> None:
    assert parse_action(reply, "free") == expected


@pytest.mark.parametrize(("reply", "response_format", "expected"), ANSWER_CASES)
def test_answers(reply: str, response_format: ResponseFormat, expected: ParsedAnswer) -> None:
    assert parse_answer(reply, response_format) == expected


def _widened(reply: str) -> str:
    """The reply with every space a run of spaces and tabs (a degenerate model's padding)."""
    return reply.replace(" ", "  \t  " * 50)


@pytest.mark.parametrize(("reply", "expected"), ACTION_CASES)
def test_a_run_of_spaces_reads_as_one_space(reply: str, expected: ParsedAction) -> None:
    """14-A: no reading depends on how wide a space is (several patterns met a long run
    from each of its spaces, in time that grew with its square)."""
    assert parse_action(_widened(reply), "action") == parse_action(reply, "action")


@pytest.mark.parametrize(("reply", "response_format", "expected"), ANSWER_CASES)
def test_a_run_of_spaces_in_an_answer_reads_as_one_space(
    reply: str, response_format: ResponseFormat, expected: ParsedAnswer
) -> None:
    assert parse_answer(_widened(reply), response_format) == expected


def test_choice_without_options_reads_an_action() -> None:
    assert parse_action("Ask(B, bag)", "choice") == ok(ask("B", "bag"))
    assert parse_action("B", "choice") == bad("no action found")


def test_free_format_with_options_accepts_a_letter() -> None:
    assert parse_action("Thinking...\nACTION: C", "free", OPTIONS) == ok(ask("C", "bag"))
    assert parse_action("ACTION: Tell(D, bag, ball)", "free", OPTIONS) == bad(
        "Tell(D, bag, ball) is not among the options"
    )


def test_players_and_containers_can_be_restricted() -> None:
    assert parse_action("Ask(N, bag)", "action", players=("B", "C")) == bad("unknown player 'N'")
    assert parse_action("Ask(b, Bag)", "action", containers=("bag",)) == ok(ask("B", "bag"))
    assert parse_action("Ask(B, box)", "action", containers=("bag",)) == bad(
        "unknown container 'box'"
    )


def test_reasoning_model_with_empty_visible_text_is_invalid_everywhere() -> None:
    for response_format in FORMATS:
        assert parse_action("", response_format, OPTIONS) == bad("empty reply")
        assert parse_answer("", response_format) == ParsedAnswer(None, "empty reply")


def test_validity_follows_the_contents() -> None:
    assert ok(PASS).valid
    assert not bad("empty reply").valid
    assert ParsedAnswer(NOTHING).valid
    assert not ParsedAnswer(None, "empty reply").valid


def test_option_letters() -> None:
    assert [option_letter(index) for index in (0, 1, 2, 25)] == ["A", "B", "C", "Z"]
    for index in (-1, 26):
        with pytest.raises(ValueError, match="outside"):
            option_letter(index)


def test_unknown_format_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="unknown response format"):
        parse_action("Pass", "json")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown response format"):
        parse_answer("apple", "json")  # type: ignore[arg-type]


def test_formats_constant_matches_the_type() -> None:
    assert RESPONSE_FORMATS == FORMATS


# Property tests.

actions = st.one_of(
    st.just(PASS),
    st.builds(ask, st.sampled_from(PLAYERS), st.sampled_from(CONTAINERS)),
    st.builds(
        tell,
        st.sampled_from(PLAYERS),
        st.sampled_from(CONTAINERS),
        st.sampled_from((*ITEMS, NOTHING)),
    ),
)
FRAGMENTS = (
    "Ask(", "Tell(", "Pass", "pass", "B", "A", "C", ",", ")", "(", " ", "\n", "ACTION:",
    "ANSWER:", "Answer: ", "Option ", "the ", "apple", "nothing", "bag", "box", "**", "```",
    "\"", "'", ".", "not ", "Player ", "=", "\u212a", "\u017f", "\u00e9",
)  # fmt: skip
"""Pieces that reach deep into the parser, joined at random."""
WRAPPERS = ("{}", "**{}**", "`{}`", "```\n{}\n```", "> {}", "- {}", "{}.", "  {}  \n")


@settings(max_examples=400, deadline=None)
@given(text=st.text(), response_format=st.sampled_from(FORMATS), with_options=st.booleans())
def test_arbitrary_text_never_raises(
    text: str, response_format: ResponseFormat, with_options: bool
) -> None:
    parsed = parse_action(text, response_format, OPTIONS if with_options else ())
    assert parsed.valid == (parsed.problem is None)
    answer = parse_answer(text, response_format)
    assert answer.valid == (answer.problem is None)


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(FRAGMENTS), max_size=30),
    response_format=st.sampled_from(FORMATS),
    with_options=st.booleans(),
)
def test_action_shaped_noise_never_raises(
    pieces: list[str], response_format: ResponseFormat, with_options: bool
) -> None:
    text = "".join(pieces)
    parsed = parse_action(text, response_format, OPTIONS if with_options else ())
    assert parsed.valid == (parsed.problem is None)
    assert parsed.problem is None or "\n" not in parsed.problem
    answer = parse_answer(text, response_format)
    assert answer.valid == (answer.problem is None)


@given(action=actions)
def test_rendered_actions_round_trip(action: Action) -> None:
    assert parse_action(str(action), "action") == ok(action)
    assert parse_action(f"Thinking...\nACTION: {action}", "free") == ok(action)


@st.composite
def decorated(draw: st.DrawFn, action: Action) -> str:
    """`action` written the way a sloppy model might: articles, `Player`, any case, markdown."""
    if action.kind == "pass":
        text = "Pass"
    else:
        player = draw(st.sampled_from(("{}", "Player {}", '"{}"'))).format(action.player)
        container = draw(st.sampled_from(("", "the ", "'"))) + str(action.container)
        args = [player, container]
        if action.kind == "tell":
            article = draw(st.sampled_from(("", "a ", "an ", "the ")))
            args.append(f"{article}{action.contents}{draw(st.sampled_from(('', '.')))}")
        text = f"{action.kind}({', '.join(args)})"
    cased = "".join(char.upper() if draw(st.booleans()) else char.lower() for char in text)
    return draw(st.sampled_from(WRAPPERS)).format(cased)


@given(data=st.data(), action=actions)
def test_sloppy_actions_round_trip(data: st.DataObject, action: Action) -> None:
    assert parse_action(data.draw(decorated(action)), "action") == ok(action)


@given(data=st.data(), options=st.lists(actions, min_size=1, max_size=26))
def test_option_letters_select_their_option(data: st.DataObject, options: list[Action]) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    letter = option_letter(index)
    assert parse_action(letter, "choice", options) == ok(options[index])
    wrapped = data.draw(st.sampled_from(("({})", "**{}**", "{})", "Answer: {}", "Option {}.")))
    assert parse_action(wrapped.format(letter), "choice", options) == ok(options[index])


# Asked about the box: a conclusion decides only when it is an answer or says what the box
# holds; else the whole reply is read, and prose around an answer does not change it.
CONCLUDED_CASES: list[tuple[str, str | None]] = [
    ("The apple was moved to the basket, so the box is empty.", NOTHING),
    ("Anne took the ball out, so it now holds the apple.", "apple"),
    ("The ball went to the basket, so the apple is still in the box.", "apple"),
    ("Apple? No, banana.", "banana"),
    ("The apple - no, wait, the banana.", "banana"),
    ("Bob took the ball out. Therefore, nothing.", NOTHING),
    # Another container, or a conclusion that answers nothing: the whole reply decides.
    ("The apple went into the box, so the basket is empty.", "apple"),
    ("Stapler. Nobody touched it, so nothing has changed.", "stapler"),
    ("Orange, so nothing else.", "orange"),
    ("The apple, so far as I know; the basket is empty.", "apple"),
    ("The apple is in the box, meaning nothing was moved.", "apple"),
    ("Banana. No-one touched the box; the bag is empty.", "banana"),
    ("apple\n\nI'm not entirely sure, so it could also be empty.", "apple"),
    ("The ball was moved out, so the box might be empty or hold the apple.", None),
    ("Ball\n\n(Anne moved the apple out, so the apple is in the basket.)", "ball"),
    # A conclusion about another container's line or sentence, an answer to an aside or to
    # a question, or narration that goes on after it decides nothing either.
    ("Answer: apple\nReasoning: Anne cleared out the bag, so it is empty now.", "apple"),
    ("- Box: the apple\n- Bag: Bob took everything out, so empty", "apple"),
    ("The apple. Anything else in the box? No, nothing.", "apple"),
    ("Apple\n(Bob took nothing out, so nothing.)", "apple"),
    (
        "The box had the apple. Anne moved it, so the box is empty. Later Carl moved it back.",
        "apple",
    ),
    ("So the box has the apple. Then Bob moved the apple to the basket.", "apple"),
    # A remark after the conclusion leaves it standing (it answered apple, the item named).
    ("Anne moved the apple to the basket, so the box is empty. Bob didn't see it.", NOTHING),
    (
        "Anne moved the apple to the basket, so the box is empty. Bob, who left, still "
        "thinks the apple is in the box.",
        NOTHING,
    ),
    ("The ball was moved out, so the box holds the apple. That's all.", "apple"),
    # Without a conclusion, the last plain statement of what the box holds decides, when no
    # story follows it (a trace names the other items too).
    ("The ball went to the bag. The box contains the banana. The bag contains the ball.", "banana"),
    ("Right now the box is empty; the apple was moved to the basket.", NOTHING),
    ("I think it's the brick. Wait, the brick was moved away. The box has the stapler.", "stapler"),
    ("The stapler used to be in the box. It's in the bag now. The box has nothing.", NOTHING),
    ("Anne moved the apple out. So at the end, the box holds nothing.", NOTHING),
    (
        "The apple was in the box, but Anne moved it to the bag. So there's nothing in the box "
        "now.",
        NOTHING,
    ),
    ("Tracking the box: apple in, apple out, stapler in. Final: stapler.", "stapler"),
    # A conclusion in what a player thinks is not A's: the one before it is read.
    (
        "Anne moved the apple out, so the box is empty. Bob was away, so he thinks it has the "
        "apple.",
        NOTHING,
    ),
    # Not one in what a player thinks, hedged, negated, or followed by more story.
    ("The apple went to the bag. C thinks the box is empty.", "apple"),
    ("The box might contain the ball, or the apple.", None),
    ("The box has the apple. Then Anne moves the apple to the bag.", "apple"),
    # More of the story, second thoughts or another item after it: the whole reply is read.
    ("Anne moved the apple out, so the box is empty. Afterwards, Bob returned the apple.", "apple"),
    (
        "Anne moved the apple out, so the box is empty. Eventually Bob brought the apple back.",
        "apple",
    ),
    ("So the box has the apple. Also the banana that was already there.", None),
    # A statement is read to the end of its clause.
    ("Anne moved the apple to the basket, so the box is empty and the basket has it.", NOTHING),
    # Of a conclusion's statements, the one about the container asked of decides.
    ("Anne moved the apple out, so the basket has the apple and the box has nothing.", NOTHING),
    ("Anne moved the apple out, so the apple is now in the basket and the box is empty.", NOTHING),
    ("The apple is in the box. Wait, no. Nothing.", NOTHING),
    # An answer alone concludes whatever containers the reasoning before it names, unless
    # its line is another container's.
    ("The ball went to the basket, therefore the apple.", "apple"),
    ("The apple was moved to the basket, so nothing.", NOTHING),
    # A statement of what is not there decides nothing: the whole reply names the apple as
    # there and the ball as not.
    ("The box holds the apple, so it is not the ball.", "apple"),
    # Negated empty words say the opposite.
    ("I'm not sure but empty.", NOTHING),
    ("The box isn\u2019t empty.", None),
    ("It's not nothing.", None),
    ("The box isn't empty anymore.", None),
    ("Anne put something in, so the box is no longer empty.", None),
]


@pytest.mark.parametrize(("reply", "contents"), CONCLUDED_CASES)
def test_a_conclusion_decides_only_what_it_says_of_the_container(
    reply: str, contents: str | None
) -> None:
    assert parse_answer(reply, "action", "box").contents == contents


REASONS = (
    "The {other} was moved to the {container}",
    "B saw the {other} go into the {container}",
    "Nobody touched the {other} in the {container}",
)
CONCLUSIONS = {
    "so the {container} holds the {item}.": "{item}",
    "so the {item} is still in the {container}.": "{item}",
    "therefore the {item}.": "{item}",
    "so the {container} is empty.": NOTHING,
    "thus nothing.": NOTHING,
}


@given(
    reasons=st.lists(
        st.tuples(st.sampled_from(REASONS), st.sampled_from(ITEMS), st.sampled_from(CONTAINERS)),
        min_size=1,
        max_size=3,
    ),
    conclusion=st.sampled_from(sorted(CONCLUSIONS)),
    item=st.sampled_from(ITEMS),
    container=st.sampled_from(CONTAINERS),
)
def test_a_reasoned_answer_is_read_at_its_conclusion(
    reasons: list[tuple[str, str, str]], conclusion: str, item: str, container: str
) -> None:
    """Whatever items and containers the reasoning names, the answer is what the conclusion
    says of the container asked about."""
    reasoning = ". ".join(
        reason.format(other=other, container=place) for reason, other, place in reasons
    )
    reply = f"{reasoning}, {conclusion.format(item=item, container=container)}"
    expected = CONCLUSIONS[conclusion].format(item=item)
    assert parse_answer(reply, "action", container) == ParsedAnswer(expected)
    assert parse_answer(reply, "action") == ParsedAnswer(expected)


DENIALS = (
    "Not the {item}.",
    "No {item}.",
    "It isn't the {item}.",
    "The box doesn't hold the {item}.",
    "It doesn't seem to be the {item}.",
    "I don't think it's the {item}.",
    "I doubt it's the {item}.",
    "No longer the {item}.",
    "The {item} isn't in the box anymore.",
    "The {item} is not there.",
    "The {item}? No.",
    "The {item} was in the box, but it isn't anymore.",
    "The box had the {item}, but it's no longer there.",
    "The {item} was in the box; however, it is not in the box now.",
)
"""Replies that name an item only to say it is not in the box."""
ASSERTIONS = (
    "Not sure but the {item}.",
    "I'm not certain, but I think the {item}.",
    "Bob didn't move the {item}, so it's still in the box.",
    "Anne never touched the {item}.",
    "The {item} is not in the basket, it's in the box.",
    "Not the {other}: the {item}.",
    "The {item}, not the {other}.",
    "It's not the {other}, it's the {item}.",
    "Neither the {other} nor the {third}; it's the {item}.",
    "The {other}? No, the {item}.",
    "The {item} is in the box, though it wasn't there at first.",
    "The {item} is in the box, but it is not in the basket.",
    "The {item} is in the box, but it's not the {other}.",
    "The {item}, but it isn't certain.",
    "The {item} is in the box. Bob thinks the {item} is in the bag, but it isn't.",
    # "But it isn't" after what a player thinks, or after "gone", puts the item back.
    "Bob is convinced the {item} is gone, but it isn't! It's right there in the box.",
    "Carol might expect the {item} to be moved, but it isn't. It's in the box.",
    "The {item} is in the box, but it's not there as far as Bob knows.",
    "The {item} is in the box, but it isn't there for Bob: he never saw it arrive.",
    "The {item} is in the box, but it's not, as Bob believes, in the basket.",
)
"""Replies that say the item is in the box, beside a negation of something else."""


@pytest.mark.parametrize("reply", DENIALS)
@pytest.mark.parametrize("item", ITEMS)
def test_an_item_said_not_to_be_there_is_no_answer(reply: str, item: str) -> None:
    assert parse_answer(reply.format(item=item), "action", "box") == ParsedAnswer(
        None, "names only what is not there"
    )


@pytest.mark.parametrize("reply", ASSERTIONS)
@pytest.mark.parametrize("item", ITEMS)
def test_an_item_beside_a_negation_is_the_answer(reply: str, item: str) -> None:
    other, third = [candidate for candidate in ITEMS if candidate != item][:2]
    text = reply.format(item=item, other=other, third=third)
    assert parse_answer(text, "action", "box") == ParsedAnswer(item)


@pytest.mark.parametrize(
    ("reply", "contents"),
    [
        # An item's last mention decides whether it is there.
        ("The apple was in the box, but now there is no apple.", None),
        ("Anne moved the apple to the basket, so the box has no apple in it anymore.", None),
        ("No apple... wait, yes, the apple.", "apple"),
        ("It is the apple. I don't think it's the apple anymore.", None),
        ("The box no longer contains the apple.", None),
        # A denial about another container says nothing of the box, whether the container
        # comes before the item or right after it, or labels its line.
        ("The apple is in the box; the basket has no apple.", "apple"),
        ("The bag has no apple, the box has the banana.", "banana"),
        ("The bag has neither the apple nor the banana; the box has the ball.", "ball"),
        ("There is an apple in the box and no apple in the bag.", "apple"),
        ("- Box: apple\n- Bag: no apple", "apple"),
        # A reply that goes through the containers one by one: only the box's lines count.
        ("- Box: apple\n- Bag: no apple\n- Basket: banana", "apple"),
        ("The box? No apple. The basket? The apple.", None),
        ("The box? The banana. The basket? The apple.", "banana"),
        ("In the box: the banana. In the basket: the apple.", "banana"),
        ("Box? Hmm, Anne moved the apple out, so nothing. Basket? The apple.", NOTHING),
        ("Bag: the ball. Basket: the apple.", None),
        ("What's in the box? The apple. What's in the bag? The banana.", "apple"),
        ("Box -> stapler\nBag -> apple\nBasket -> (empty)", "stapler"),
        ("| Container | Contents |\n|---|---|\n| bag | brick |\n| box | stapler |", "stapler"),
        # A conclusion after the last section ends it, and is read.
        (
            "The box? The apple was moved out of it. The basket? It has the apple now. So the "
            "box is empty.",
            NOTHING,
        ),
        ("- Bag: ball\n- Basket: apple\n\nSo the box has nothing in it.", NOTHING),
        # No section of the box: the whole reply is read, what it says of the others aside.
        ("- Bag: empty; the ball went into the box\n- Basket: the apple", "ball"),
        # One label opens reasoning that goes on: the whole reply is read.
        (
            "The basket: Anne put the apple there, then moved it to the box. So the box has "
            "the apple.",
            "apple",
        ),
        # Nor does what another player does not think.
        ("The apple is in the box. She doesn't think the apple is there.", "apple"),
        # The story told again leaves what was said of an item as it was.
        ("The box has no apple, because Anne moved the apple to the basket.", None),
        ("No apple in the box: Carol moved the apple to the basket.", None),
        ("Not the ball - Anne moved the ball out. The box holds the apple.", "apple"),
        ("Anne put the apple in the box.", "apple"),
    ],
)
def test_an_items_last_mention_about_the_box_decides(reply: str, contents: str | None) -> None:
    assert parse_answer(reply, "action", "box").contents == contents


def test_an_item_denied_beside_an_empty_word_is_nothing() -> None:
    for reply in ("Nothing, not even the apple.", "Empty. No apple.", "No apple, no ball: empty."):
        assert parse_answer(reply, "action", "box") == ParsedAnswer(NOTHING)


def test_an_echoed_option_list_is_no_answer_but_an_answer_before_a_list_is() -> None:
    options = [PASS, Action("ask", "B", "bag"), Action("tell", "B", "bag", "apple")]
    listing = "B) Ask(B, bag)\nC) Tell(B, bag, apple)\nA) Pass"
    assert parse_action(listing, "choice", options) == bad(
        "a list of options, not a choice among them"
    )
    # SmolLM2 echoes options under letters the prompt did not give them.
    echo = "A) Pass\nF) Ask(B, bag)\nG) Ask(D, bag)"
    assert parse_action(echo, "choice", options).action is None
    assert parse_action(f"B\n{listing}", "choice", options) == ok(Action("ask", "B", "bag"))
    assert parse_action(f"{listing}\nAnswer: C", "choice", options) == ok(options[2])
    # A question is no answer.
    assert parse_action("B or C?\nA) Pass\nC) x", "choice", options).action is None


@pytest.mark.parametrize(
    ("reply", "contents"),
    [
        # A statement after its reasons, or with the item as subject.
        (
            "The apple went to the bag. Since the apple left the box and nothing else was put "
            "in, the box is empty.",
            NOTHING,
        ),
        (
            "- The ball is put into the bag.\nAfter these events, nothing remains in the box.",
            NOTHING,
        ),
        ("So the contents of the box: the brick.", "brick"),
        ("So inside the box is the brick, while the banana sits in the bag.", "brick"),
        ("Result: ball in the box, banana in the basket.", "ball"),
        # Another player's view set against the statement.
        ("The box is therefore empty, although B thinks the apple is still in the box.", NOTHING),
        ("The box contains the banana - sorry, I mean the orange.", "orange"),
        ("The apple was in the box; it isn't any more.", None),
        # What the reply says of other containers.
        ("The box? Nothing - it's empty. The bag has the banana.", NOTHING),
        ("The basket has the apple, not the box.", None),
        ("- Basket: empty - Anne moved its apple into the box\n- Bag: ball", "apple"),
        ("The apple is in the basket? No, it's in the box.", "apple"),
        ("Box (what A saw): ball\nBag: nothing\nBasket: banana", "ball"),
        ("Box (B thinks): apple\nBox (now): empty\nBag: ball", NOTHING),
        ("- Box: empty (the brick was moved out)\n- Bag: brick\n- Basket: apple", NOTHING),
        # Remarks after a conclusion.
        (
            "The orange ended up in the box. So: orange. (The ball, by contrast, is in the bag.)",
            "orange",
        ),
        ("So the answer is the banana. Note that C didn't see the banana being placed.", "banana"),
        ("Answer: The box is empty (the ball was moved out to the basket).", NOTHING),
        (
            "The box contains: nothing (the banana went to the bag, and the apple to the basket).",
            NOTHING,
        ),
        # More ways to state what the box holds, or that it is empty.
        (
            "The apple was moved from the bag to the box... the box should contain the apple.",
            "apple",
        ),
        ("So: bag = apple, basket = ball, box = empty.", NOTHING),
        ("Box = \u2205", NOTHING),
        ("The box doesn't contain anything anymore.", NOTHING),
        (
            "At first the box held the apple. Then it was moved to the bag. Currently: the banana.",
            "banana",
        ),
        ("C believes the box holds the orange. In reality, the box is empty.", NOTHING),
        ("The box contains the ball, I believe, though B thinks it contains the apple.", "ball"),
        (
            "The box still contains the orange, though C doesn't know that the banana was removed.",
            "orange",
        ),
        ("The box still contains the orange, but it isn't there any more.", None),
        (
            "<think>\nThe banana starts in the box. B moves it to the basket. Then C puts the "
            "orange in the box. Then the orange... no, the orange stays. Box = orange.\n</think>"
            "\n\nThe box contains the **orange**.",
            "orange",
        ),
        # An item or nothing is undecided; asked as a question, it is not.
        ("Hmm, it's either empty or holds the brick.", None),
        ("The box could hold the apple or nothing.", None),
        ("Is it the apple or nothing? The apple.", "apple"),
        # Only a container said to hold the item now takes it from the box.
        ("The box has the bag's apple now.", "apple"),
        ("What was in the bag - the apple - is now in the box.", "apple"),
        ("It's what was in the bag: the apple.", "apple"),
        ("I only kept track of the bag: it has the apple.", None),
        ('{"bag": "apple", "box": "orange", "basket": null}', "orange"),
        ("The bag had the apple; it isn't there now, it's in the box.", "apple"),
        ("The apple stays in the box. The basket had the ball but Anne took it out.", "apple"),
        ("- Box (from the start): apple\n- Bag: empty", "apple"),
        # A choice between an item and nothing that the reply settles, or another player's.
        ("It's either empty or holds the brick - the brick, since no one moved it.", "brick"),
        ("The brick. B might say it's either empty or the brick.", "brick"),
        ("Not sure whether the apple moved before or after C left: the apple or nothing.", None),
        # What a player missed is a remark; what a player did is more of the story.
        (
            "Anne moved the apple to the basket, so the box is empty. Note that C didn't see "
            "the apple being moved.",
            NOTHING,
        ),
        (
            "Anne moved the apple to the basket, which means the box is empty. Carol saw that "
            "and slipped her banana in.",
            None,
        ),
        # Empty, and the items only in the story of how they left.
        ("Empty. The brick was moved from the box to the basket.", NOTHING),
        ("Currently empty - it used to contain the brick.", NOTHING),
        ("Wait, actually the box is empty. The apple was taken out.", NOTHING),
        ("The box was empty; then Anne put the apple in it.", "apple"),
        (
            "Sally puts the apple in the basket, so the box is empty. Then Anne moves it to the "
            "box.",
            "apple",
        ),
        # 13-A: a hedged empty box, its item named only as it left, is undecided.
        ("Anne moved the apple to the basket, so the box might be empty.", None),
        ("The box was empty, but the brick got moved there.", "brick"),
        ("It was empty, then the apple was moved in.", "apple"),
        ("Empty before, but the ball got put back.", "ball"),
        ("The box is empty, as far as B knows; the ball was moved there after B left.", "ball"),
        ("Box: empty (though the apple was put back in at the end)", "apple"),
        ("Box: empty (nothing was put back after the stapler was removed)", NOTHING),
        ("box = empty? no, box = ball", "ball"),
        ("Unlike the bag, it has the apple.", "apple"),
        ("Empty - the stapler went from the box to the bag.", NOTHING),
        ("Empty now; previously the brick was there.", NOTHING),
        ("It's empty now, but it held the brick at the start.", NOTHING),
        ("Nothing. Anne moved the apple to the basket before Bob came back.", NOTHING),
        ("It is empty now, but the brick went in.", "brick"),
        # An item that went in and on again left: where the story takes it last counts.
        ("The box is empty. The ball went into the box first, then was moved to the bag.", NOTHING),
        ("Empty. Anne put the ball in the box, and then Bob moved it to the bag.", NOTHING),
        ("The box is empty. The ball was moved to the box and then to the bag.", NOTHING),
        ("The box is empty. The ball was put in the box, then taken out of it.", NOTHING),
        ("The box is empty. The ball was moved to the bag and then to the box.", "ball"),
        ("The box is empty. The ball went into the bag first, then was moved to the box.", "ball"),
        ("Empty. Anne put the ball in the box, and then Bob moved the apple to the bag.", None),
        (
            "Empty. The box had the apple, but B took the apple out and placed it in the bag, "
            "and nothing was put back in the box afterwards.",
            NOTHING,
        ),
        ("Empty. Anne put the ball in the box. Then Bob moved it to the bag.", NOTHING),
        (
            "The box is empty.\n- Anne puts the ball in the box.\n- Bob moves the ball to the bag.",
            NOTHING,
        ),
        ("The box is empty. The ball went into the box, then on to the bag.", NOTHING),
        (
            "The box is empty. The ball was moved from the bag to the box, then from the box to "
            "the basket.",
            NOTHING,
        ),
        ("The box is empty. The ball was put in the box, then taken out.", NOTHING),
        # Not a move of the item on: a look, a thought, a try, another thing, or a move back.
        (
            "The box is empty. Anne moved the ball to the bag, and later Bob looked in the box.",
            NOTHING,
        ),
        (
            "The box is empty: Anne moved the ball to the basket, then Bob glanced in the box.",
            NOTHING,
        ),
        ("Empty. Anne put the ball in the box and nobody moved it to the bag.", "ball"),
        ("Empty. Anne put the ball in the box, and Carol thinks Bob moved it to the bag.", "ball"),
        ("Empty. Anne put the ball in the box, then Bob tried to move it to the bag.", "ball"),
        ("Empty. Anne put the ball in the box, then Bob put his coat in the bag.", "ball"),
        ("Empty. Anne put the ball in the box and then went to the basket.", "ball"),
        (
            "Empty. Anne put the ball in the box, and Bob moved it to the bag. Then Carol hid it "
            "in the box.",
            "ball",
        ),
        ("Empty. The ball was put in the box, taken to the bag, then brought back.", "ball"),
        ("The box is empty. The ball was put in the box. It was then moved to the bag.", NOTHING),
        ("The box is empty. The ball was put in the box, but was then moved to the bag.", NOTHING),
        ("The box is empty. Anne put the ball in the box. Later, Bob removed it.", NOTHING),
        (
            "The box is empty. Anne put the ball in the box. Then Bob relocated it to the basket.",
            NOTHING,
        ),
        (
            "The box is empty. The ball was put in the box by Anne, who then moved to the basket.",
            "ball",
        ),
        (
            "Empty. Anne put the ball in the box. Then Bob found a coin and put it in the basket.",
            "ball",
        ),
        (
            "The box is empty. The ball was put in the box, then removed from view when Anne "
            "closed the lid.",
            "ball",
        ),
        (
            "Empty. Anne put the ball in the box, Bob moved it to the bag, then Carol put it "
            "where Anne had left it.",
            "ball",
        ),
        (
            "Empty. The ball went into the box, then Bob moved it to the bag. When Anne comes "
            "back, she will look in the box.",
            NOTHING,
        ),
        (
            "Final answer: The box is empty.\n\n1. B put the brick in the box.\n2. C moved the "
            "brick to the basket.\n3. No other object was put in the box afterward.",
            NOTHING,
        ),
        (
            "There is nothing in the box now. The apple was moved to the basket after it had been "
            "put in the box.",
            NOTHING,
        ),
        (
            "**Nothing.** The brick was first put in the box, then moved to the basket by C.",
            NOTHING,
        ),
        (
            "The box is empty. The stapler was placed in the box by B. D then moved it to the "
            "bag. C still thinks the stapler is in the box.",
            NOTHING,
        ),
        (
            "The box is empty. The ball was put in the box by B. After B left, the ball was moved "
            "out of the box by C and into the bag. B then returned, but the ball remained in the "
            "bag.",
            NOTHING,
        ),
        (
            "Answer: the box is empty.\n\nThe brick was put into the box, and then it was put "
            "into the bag. The bag now has the brick.",
            NOTHING,
        ),
        (
            "The box contains nothing at the moment: the brick was moved from the bag into the "
            "box, and later moved back into the bag.",
            NOTHING,
        ),
        ("Empty - the orange was moved out of the box and into the bag after C left.", NOTHING),
        ("Nothing! The apple went into the box, and then out of the box into the bag.", NOTHING),
        # A code review's cases: denied moves, looks, other players' views, asked statements.
        ("Bob thinks the box is empty, but Anne never moved the apple.", "apple"),
        ("It looks empty, but nobody moved the apple out of it.", "apple"),
        ("Bob thinks the box is empty, but the apple was there all along.", "apple"),
        (
            "Anne took the apple out, so the box is empty. C didn't see Anne put the apple back "
            "in the box.",
            "apple",
        ),
        ("According to C, the box is empty; the apple was moved.", "apple"),
        ("The box has the apple (sorry, I mean the banana).", None),
        ("The apple never left the box: nothing or nobody touched it.", "apple"),
        ("The apple's in the bag.", None),
        ("The box holds the ball; the box is empty?", "ball"),
        # A last held-out review's cases.
        ("The basket has the orange and the brick.", None),
        ("| bag | apple |\n| box | - |\n| basket | ball |\n\nThe box is empty.", NOTHING),
        ("| Container | Contents |\n|---|---|\n| bag | apple |\n| box | - |", NOTHING),
        (
            "The brick went to the basket and the ball into the box. Current contents of the "
            "box: ball.",
            "ball",
        ),
        ("The orange was taken out to the basket. Only the stapler remains in the box.", "stapler"),
        ("Empty now. The brick was in it earlier.", NOTHING),
        ("Initially:\n- apple: box\n- orange: bag\nNow:\n- apple: bag\n- orange: box", "orange"),
        ("- apple: basket\n- orange: box\nSo where is it?\n- apple: bag\n- orange: basket", None),
        # A third adversarial review's cases (8-A read them right).
        ("The apple in the bag was moved to the box.", "apple"),
        ("The ball in the basket went to the box.", "ball"),
        ("First the bag holds the apple. Then Anne moves it to the box.", "apple"),
        ("The bag has the apple - no wait, the box has it.", "apple"),
        ("According to B, the apple is in the bag; really it's in the box.", "apple"),
        ("- Box (not what B believes): apple\n- Bag: empty", "apple"),
        ("Either it's empty or it has the brick. Nobody touched it, so it still has it.", "brick"),
        ("It's either empty or has the brick - the latter.", "brick"),
        ("Empty - the brick went from the box to the bag and came back.", "brick"),
        ("Empty. Bob removed the apple and Carol restored it.", "apple"),
        ("The box should be empty, but Carol slipped the ball in.", "ball"),
        (
            "After the moves, the box is empty as far as B knows, but the apple is still there.",
            "apple",
        ),
        ("Box: empty (except the ball Carol added)", "ball"),
        ("Box: apple (B would say banana, but no)", "apple"),
        ("B's view:\n- apple: box\n- banana: bag", None),
        (
            "| Bag | apple |\n| Box | empty |\n| Basket | banana |\nB still thinks the apple is "
            "in the box.",
            NOTHING,
        ),
        # A closing list of where each item is, not of where they started.
        ("Current locations:\n- apple: basket\n- orange: box\n- ball: bag", "orange"),
        ("Initially:\n- apple: box\n- ball: bag", None),
        ("- apple: box -> basket\n- ball: bag", None),
        # 11-A: an empty box and the paths, told with arrows, that took items out of it.
        ("Apple: box \u2192 bag. Box: empty.", NOTHING),
        ("Empty. apple: box -> bag", NOTHING),
        ("The box is empty: apple: box -> bag.", NOTHING),
        ("The box is empty. The apple went box -> basket.", NOTHING),
        ("Empty. apple -> box, then apple -> bag.", NOTHING),
        ("1) orange -> box\n2) orange: box -> bag\n3) D leaves, D returns\n\nBox: empty", NOTHING),
        (
            "Events:\n- apple -> box\n- apple: box -> bag\n- ball -> basket\nSo the box ends up "
            "with nothing in it.",
            NOTHING,
        ),
        # 11-A: an item that a relative clause puts in, and the main clause moves on.
        ("Nothing. The ball that was put into it was later moved to the bag.", NOTHING),
        ("Nothing. The ball that was put into the box was later moved to the bag.", NOTHING),
        (
            "The box is empty, because the ball that was put into it was later moved to the "
            "basket, and nothing else went in.",
            NOTHING,
        ),
        ("The ball that was put into the box is still there.", "ball"),
        ("Empty. The ball that was put into the box was looked at by C.", "ball"),
        # Not a path someone else believes, whether in an aside or not.
        ("Empty. Reality: apple: box -> bag. B's belief: apple -> box.", NOTHING),
        ("Empty. apple: box -> bag. (B still thinks apple -> box.)", NOTHING),
        # A path told after a player's name was a KeyError: the reply lost its turn.
        ("Empty. C: apple -> bag", NOTHING),
        # A path that ends in the box keeps the item in, and a plain statement of it stands.
        ("Empty. apple -> box", "apple"),
        ("Box: empty. Apple: bag -> box.", "apple"),
        ("The box has the apple: bag -> box.", "apple"),
        ("- apple: box\n- ball: bag\nThen Anne moved the apple to the basket.", None),
        # 12-A: an item's relative clause between commas, or one of where it was, is read past.
        ("Nothing. The ball, which was in the box, was moved to the bag.", NOTHING),
        ("Nothing. The ball, which was put in the box, was moved to the bag.", NOTHING),
        ("Box: empty. The ball which was in the box has been moved to the basket.", NOTHING),
        ("Nothing. The ball, which was in the bag, was moved to the box.", "ball"),
        (
            "Empty. The ball, which was in the box, was moved to the bag, then back to the box.",
            "ball",
        ),
        # 12-A: A's own "I think" states its answer; another hedge or player's belief does not.
        ("Empty, I think. apple: box -> bag.", NOTHING),
        (
            "I believe the box is empty. The apple, which was in the box, was later moved to "
            "the bag.",
            NOTHING,
        ),
        ("The box is empty, I think, but the apple might still be there.", "apple"),
        ("I think B believes the box is empty, but the apple is in the box.", "apple"),
        ("I think the box has either nothing or the ball - the last move is unclear to me.", None),
        ("I think the box is empty. Wait, I think the ball is in the box.", "ball"),
        ("I think the box is empty. The ball was in the box the entire time.", "ball"),
        (
            "The ball was in the box the entire time until C moved it to the bag. Empty now.",
            NOTHING,
        ),
        ("I believe it's empty. The ball was moved to the bag.", NOTHING),
        # 12-A: where an item was first, read past.
        ("Empty. The apple, originally in the box, was moved to the bag.", NOTHING),
        ("Empty. The apple originally in the box has been moved to the bag.", NOTHING),
        ("Nothing. The apple, originally in the bag, was moved to the box.", "apple"),
        # 12-A: a statement's reasons after a colon or a dash.
        ("The box is empty: the apple was moved to the bag.", NOTHING),
        ("The box is empty - the apple was moved to the bag.", NOTHING),
        ("The box is empty \u2014 the apple was moved out of it.", NOTHING),
        ("The box contains: the apple", "apple"),
        ("The box has the apple - the ball was moved to the bag.", "apple"),
        ("The box is empty - wait, no, the apple is still there.", "apple"),
        ("The box is empty - the apple was moved back into it.", "apple"),
        ("The box is empty - B still thinks the apple is there.", NOTHING),
        ("The box is empty: B thinks it has the apple.", NOTHING),
        ("The box is empty: apple: box -> bag, but B thinks apple -> box.", NOTHING),
        # 12-A: "empty" said of the container as it was says nothing of it now.
        ("The ball, which was in the bag, was moved into the empty box.", "ball"),
        # 13-A: a conclusion's reasons after a colon or a dash; not an item's path.
        (
            "I think the apple is in the box. No, wait, the box is empty: the apple was moved "
            "to the bag.",
            NOTHING,
        ),
        ("Therefore the box contains the ball: it was moved there last.", "ball"),
        ("B thinks: apple: bag -> box. Actually: apple: box -> basket. Box: empty.", NOTHING),
        # 13-A: "or rather" revises, and "no:" opens a revision.
        ("The box holds the apple, or rather, the box is empty.", NOTHING),
        ("The box is empty - or rather, it holds the orange now.", "orange"),
        (
            "The apple is in the box, or, rather, the box is now empty: the apple is in the bag.",
            NOTHING,
        ),
        (
            "The orange is in the box. Hmm, actually no: the box is empty - the orange was "
            "moved to the basket.",
            NOTHING,
        ),
        # 13-A: what another player would answer, after a dash or a colon or not, is theirs.
        ("The box is empty - C would say apple.", NOTHING),
        ("The box is empty: C would answer orange.", NOTHING),
        ("Empty. B would say the orange, since he didn't see it moved.", NOTHING),
        ("Empty! But C would probably say brick.", NOTHING),
        # ... but A's own "I'd say" is A's, and so is the empty box it says.
        ("I'd say the ball is in the box. Carol would say the box is empty.", "ball"),
        ("Anne would say the box is empty, but the ball is still there.", "ball"),
        ("My guess would be the apple. Bob would say it's empty.", "apple"),
        ("I would say nothing: the ball was moved out.", NOTHING),
        ("Nothing, I'd say: the ball was moved out.", NOTHING),
        # 13-A: a hedged empty box, its item named only as it left, is undecided; a hedge
        # elsewhere still keeps the item.
        ("I think it might be empty. The apple was moved to the bag.", None),
        ("Probably nothing - C moved the brick from the box into the bag.", None),
        ("Empty. The apple might have been moved back.", "apple"),
        (
            "The box would be empty if Anne had moved the apple, but she never did, so the apple "
            "is still in the box.",
            "apple",
        ),
        # 13-A: what might have been, beside an empty box, is not read; what may yet be
        # leaves it undecided.
        ("Empty. If nobody had touched it, the brick would still be in the box.", NOTHING),
        ("The box is empty, unless Bob put the apple back.", None),
        ("The box is empty, unless B put the apple back.", None),
        ("The box is empty. Unless Bob put the apple back, of course.", None),
        ("The box is empty. If Bob put the apple back, though, it holds the apple.", None),
        (
            "The box is empty. Unless someone put the brick back, which didn't happen, it stays "
            "empty.",
            NOTHING,
        ),
        (
            "The box is empty. The ball would be in it unless someone moved it, and B did move it "
            "to the basket.",
            NOTHING,
        ),
        ("Nothing. The stapler could have stayed in the box if B hadn't returned.", NOTHING),
        ("The box is empty from B's view - he hadn't seen C put the brick into the box.", "brick"),
        ("The box is empty after the move, but B would later put the banana in it.", "banana"),
        # 13-A: another player's hedge leaves A's statement standing; "But" may open it.
        ("The box contains the ball - or the apple, if B thinks he moved it.", None),
        ("The box contains the ball - although Bob might think it's the apple.", "ball"),
        ("If you asked Bob, he'd say the apple. But the box really holds the brick.", "brick"),
        # 13-A: "hold on" revises; a conclusion "or so B thinks" is B's.
        ("Actually, the box is empty: no, hold on, the brick is still there.", "brick"),
        (
            "So the box is empty - or so Bob believes; in reality the stapler is still there.",
            "stapler",
        ),
        ("The apple is in the box. No, scratch that: the box is empty - or so Bob thinks.", None),
        ("Actually, the box is empty - or so B thinks. The ball is still in it.", "ball"),
        ("The box is empty: B moved the ball into the basket instead.", NOTHING),
        (
            "The box holds the banana. Hold on to that thought: C still thinks it's the apple.",
            "banana",
        ),
        # 13-A, from the review of its first form: these read as 12-A read them.
        ("Empty. The apple could still be in the box.", "apple"),
        ("Empty. I would say the apple is in the box.", "apple"),
        ("Empty, but Bob would put the banana back into it later.", "banana"),
        ("Empty, unless I'm mistaken. The apple was moved to the bag.", "apple"),
        ("The box is empty, C would say. The apple was moved to the bag.", "apple"),
        ("If you asked B, the box is empty. The apple was moved to the bag.", "apple"),
        ("Empty, even if Bob looked back. The apple was moved to the bag.", "apple"),
        (
            "What does the box hold now, after everything that happened in the story so far? "
            "Probably empty. The apple was moved to the bag.",
            None,
        ),
        ("The apple is in the box. No, the box is empty - or so Bob thinks.", None),
        (
            "Bob would say the apple, but the box is really empty. The apple was moved to the bag.",
            NOTHING,
        ),
        # 13-A: where an item was first, "originally" or "initially".
        ("Empty. The banana was originally in the box but C moved it to the bag.", NOTHING),
    ],
)
def test_what_a_reply_says_of_the_box_alone_is_its_answer(reply: str, contents: str | None) -> None:
    assert parse_answer(reply, "action", "box").contents == contents
