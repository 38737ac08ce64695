"""Replies that reason before they act, written for this project in the shapes strong
models use (none is copied from a recorded run): the action stated last, in a closing
line, in a final sentence, first and then justified; other actions weighed, rejected or
named in prose on the way; replies that commit to two actions, or to none.

Each case is (reply, response format, expected action or None). Choice-format cases use
`OPTIONS`. The story behind them: A saw C put a banana in the bag while B was out; B is
A's teammate, C and D the opponents."""

from __future__ import annotations

from tom_eval.game.decisions import PASS, Action

ASK_B = Action("ask", "B", "bag")
ASK_C = Action("ask", "C", "bag")
TELL_B = Action("tell", "B", "bag", "banana")
TELL_B_BOX = Action("tell", "B", "box", "apple")
TELL_D = Action("tell", "D", "bag", "stapler")
ASK_D_BOX = Action("ask", "D", "box")

OPTIONS = (PASS, ASK_B, ASK_C, TELL_B, TELL_D)
"""A) Pass  B) Ask(B, bag)  C) Ask(C, bag)  D) Tell(B, bag, banana)  E) Tell(D, bag, stapler)"""

Case = tuple[str, str, Action | None]

FINAL_LINE: list[Case] = [
    (
        "B left before the banana went in, so B thinks the bag is empty.\n\nTell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "Let me think.\nI am asked, and I saw the banana go in.\nNo action helps.\n\nPass",
        "action",
        PASS,
    ),
    (
        "B was outside when C moved things. I only believe what is in the bag.\nAsk(B, bag)",
        "action",
        ASK_B,
    ),
    (
        "**Analysis**\n- B: believes the bag is empty (left before the put)\n- C: knows\n- D: "
        "knows\n\n**Decision**\nTell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "Reasoning: my teammate will answer and is wrong. Telling costs 0.5 but earns 1.\n"
        "Tell(B, bag, banana).",
        "action",
        TELL_B,
    ),
    ("Everyone saw everything, so everyone knows.\n\n**Pass**", "action", PASS),
    (
        "1. B left.\n2. C put a banana in the bag.\n3. B came back.\n4. B is asked about the bag.\n"
        "B believes the bag is empty, which is false.\n`Tell(B, bag, banana)`",
        "action",
        TELL_B,
    ),
    ("Opponents ignore what I tell them, so lying to D gains nothing.\nPass.", "action", PASS),
    (
        "The question goes to me. I was out when the box changed, B stayed in.\nAsk(B, box)\n",
        "action",
        Action("ask", "B", "box"),
    ),
    (
        "Tell would cost 0.5, ask would cost 0.5, passing is free, and B already knows.\n\nPass",
        "action",
        PASS,
    ),
    (
        "Since I left the room and B stayed, B knows better than I do.\n\n```\nAsk(B, bag)\n```",
        "action",
        ASK_B,
    ),
    ("Hmm. C answers, and C saw it all. Nothing I do changes C's answer.\n> Pass", "action", PASS),
    (
        "B's belief: nothing in the bag (wrong).\nMy belief: banana (certain).\nAction -> "
        "Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    ("Thinking it over, the cheapest correct play is to stay put.\n\nPass", "action", PASS),
    (
        "B will be asked. B was away for the move from box to bag. I watched it.\n\n"
        "Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "We are asked about the box; D moved the apple out of it after I left.\n"
        "I cannot know what is there now, but D was inside the whole time. D is an opponent, "
        "though, and may lie.\nPass",
        "action",
        PASS,
    ),
    (
        "Key facts:\n* teammate B: out during the put\n* me: saw the put\nConclusion follows.\n"
        "Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "I saw C put the banana in. B did not. B answers. So B needs the information.\n"
        "Tell(B, Bag, Banana)",
        "action",
        TELL_B,
    ),
    (
        "Step 1: who answers? Me.\nStep 2: do I know? Yes.\nStep 3: anything to gain? No.\nPass",
        "action",
        PASS,
    ),
    (
        "I'm uncertain about the bag because I stepped out while C was inside. My teammate "
        "stayed and saw everything.\n\nAsk(B, bag)",
        "action",
        ASK_B,
    ),
    (
        "B knows the truth already (B watched the move), so telling B is wasted.\nPass",
        "action",
        PASS,
    ),
    (
        "The opponent who answers already believes something false; a lie changes nothing.\nPASS",
        "action",
        PASS,
    ),
    (
        "B put the apple in the box and left; D then moved it. B still believes the box holds "
        "the apple... wait, no: I am asked about the bag, which B never saw filled.\n"
        "Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "Let me reason about each player.\nB: out at the put, believes empty.\nC: in, knows.\n"
        "D: in, knows.\nThe answerer is B.\n\nTell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    ("No one can mislead me here and my answer is certain.\n\nPass.", "action", PASS),
    (
        "Because I was outside, I do not know what is in the bag; my teammate does.\n"
        "Ask(Player B, the bag)",
        "action",
        ASK_B,
    ),
    (
        "A move I could not see may have happened while I was gone, and B was there.\nask(b, bag)",
        "action",
        ASK_B,
    ),
    ("Nothing changed while anyone was out.\n\n*Pass*", "action", PASS),
    (
        "All four of us watched every event, so there is nothing to fix.\n\n## Action\nPass",
        "action",
        PASS,
    ),
    (
        "B missed the banana going in. B will answer wrong unless told.\n\nTell(B, bag, a banana)",
        "action",
        TELL_B,
    ),
]

FINAL_SENTENCE: list[Case] = [
    (
        "B left before C put the banana in, so B believes the bag is empty. I'll tell B: "
        "Tell(B, bag, banana).",
        "action",
        TELL_B,
    ),
    ("I could tell B, but B already knows. Pass.", "action", PASS),
    ("Asking B would cost half a point and B knows no more than I do. I pass.", "action", PASS),
    (
        "Telling D a lie cannot work, because D ignores the other team. So I'll pass.",
        "action",
        PASS,
    ),
    ("I was out when the bag changed. B was in. Therefore I will Ask(B, bag).", "action", ASK_B),
    ("The only useful move is to correct my teammate, so Tell(B, bag, banana).", "action", TELL_B),
    ("It is my own answer and I am sure of it. Passing is best, so: Pass.", "action", PASS),
    (
        "Since B is wrong about the bag and B answers, I should Tell(B, bag, banana).",
        "action",
        TELL_B,
    ),
    ("B has no idea what's in the bag. My move is Tell(B, bag, banana).", "action", TELL_B),
    ("There is nothing to gain by spending points, so I'll just pass this turn.", "action", PASS),
    (
        "I watched C put the banana in the bag while B was away; B will be asked, and B "
        "believes it is empty, so the best action is Tell(B, bag, banana).",
        "action",
        TELL_B,
    ),
    (
        "D answers and D saw everything; nothing I say changes that. Pass is the best move.",
        "action",
        PASS,
    ),
    (
        "I left, so I don't know; B stayed, so B knows. The right call is Ask(B, bag).",
        "action",
        ASK_B,
    ),
    (
        "Even a lie to C would be ignored, since opponents never believe us. I choose to pass.",
        "action",
        PASS,
    ),
    (
        "B's belief is false, and B is the one asked, which is why I Tell(B, bag, banana).",
        "action",
        TELL_B,
    ),
    ("B saw the move, so B already knows; a Tell would only cost us. I will pass.", "action", PASS),
    (
        "My answer is certain and nothing an opponent says matters to me. Final decision: pass.",
        "action",
        PASS,
    ),
    (
        "The bag changed while I was out and B was in the room the whole time. Ask(B, bag) it is.",
        "action",
        ASK_B,
    ),
    ("Since I can't be sure and B can, I'll go with Ask(B, bag).", "action", ASK_B),
    ("Everything happened in front of everyone.Pass", "action", PASS),
]

CLOSING_STATEMENT: list[Case] = [
    ("B did not see the banana go in.\n\nAction: Tell(B, bag, banana)", "action", TELL_B),
    (
        "Ask(B, bag) would cost 0.5 and B knows nothing more.\n\n**Final answer:** Pass",
        "action",
        PASS,
    ),
    (
        "I could Tell(B, bag, banana) or Ask(B, bag).\nB already knows though.\nFinal Answer: Pass",
        "action",
        PASS,
    ),
    ("Considering Tell(D, bag, stapler) as a bluff: useless.\n**Action:** Pass", "action", PASS),
    ("My teammate is wrong.\n### Final action\nAction: Tell(B, bag, banana)", "action", TELL_B),
    (
        "Weighing Pass (free) against Tell (0.5, but +1 if B answers right).\n"
        "My action: Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "Options:\n- Pass: B answers wrong, 0.\n- Tell(B, bag, banana): +0.5 net.\n"
        "- Ask(B, bag): useless.\n\nDecision: Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    ("I'm not sure what is in the bag.\nFinal answer: Ask(B, bag)", "action", ASK_B),
    ("The answerer knows. So my move is: Pass", "action", PASS),
    ("Tell(B, bag, banana)? No, B saw it.\nAnswer: Pass", "action", PASS),
    ("B left; C put the banana; B returned.\n**Action: Tell(B, bag, banana)**", "action", TELL_B),
    (
        "Candidates: Ask(B, bag), Ask(C, bag), Pass.\nC may lie. B knows.\nChosen action: "
        "Ask(B, bag)",
        "action",
        ASK_B,
    ),
    (
        "I saw nothing of the box after I left.\n\nFinal action: Ask(B, box)",
        "action",
        Action("ask", "B", "box"),
    ),
    ("Lying to the opponent is pointless under the trust rule.\n\nAction = Pass", "action", PASS),
    ('{"reasoning": "B missed the put", "action": "Tell(B, bag, banana)"}', "action", TELL_B),
    (
        "Let me reconsider. Tell(B, bag, banana) helps only if B answers; C answers.\n"
        "Final answer: Pass.",
        "action",
        PASS,
    ),
    ("Analysis done.\nSo the final answer is Ask(B, bag).", "action", ASK_B),
    ("Reasoning: nothing to fix.\nMy final move - Pass", "action", PASS),
    ("B thinks the bag is empty.\nAction:\nTell(B, bag, banana)", "action", TELL_B),
    (
        "* Ask(C, bag): C is an opponent, might lie.\n* Ask(B, bag): B was out too.\n\n"
        "**Final Answer: Pass**",
        "action",
        PASS,
    ),
    ("Given everything above, the best action is: Tell(B, bag, banana)", "action", TELL_B),
    ("The optimal action is Pass.", "action", PASS),
    (
        "Action: Ask(B, bag)\nReason: I was out when C put something in the bag; B was not.",
        "action",
        ASK_B,
    ),
    ("Action: Pass\nWhy: everyone saw every event.", "action", PASS),
    (
        "Tell(B, bag, banana)\n\nThat was my first thought, but B saw the banana.\n"
        "Final answer: Pass",
        "action",
        PASS,
    ),
]

ACTION_FIRST: list[Case] = [
    ("Pass. No need to Ask (costs 0.5).", "action", PASS),
    (
        "Tell(B, bag, banana) — B left before the banana was put in and is the one asked.",
        "action",
        TELL_B,
    ),
    ("Pass.\n\nB saw everything, and telling or asking would only cost points.", "action", PASS),
    (
        "Ask(B, bag). I left the room while C was inside, so I can't be sure; B stayed.",
        "action",
        ASK_B,
    ),
    (
        "Tell(B, bag, banana)\n\nRationale: B believes the bag is empty. Asking B would cost "
        "0.5 and tell us nothing.",
        "action",
        TELL_B,
    ),
    ("Pass - asking B would cost half a point and B knows less than I do.", "action", PASS),
    (
        "**Pass**\n\nExplanation: I am the answerer and I witnessed every event. A Tell to D "
        "could not change my answer.",
        "action",
        PASS,
    ),
    ("Tell(B, bag, banana). Passing would leave B answering 'nothing'.", "action", TELL_B),
    ("Pass. Lying to C is pointless: C ignores us.", "action", PASS),
    ("Ask(B, bag)\n\nWhy not Tell? I don't know the contents myself.", "action", ASK_B),
    ("Pass\n\n(Ask costs 0.5 points; no one knows more than me.)", "action", PASS),
    ("Tell(B, bag, banana) - since a Pass would let B answer wrong.", "action", TELL_B),
    (
        "Pass. There is no benefit in Tell(D, bag, stapler) since D won't believe me.",
        "action",
        PASS,
    ),
    (
        "Ask(B, bag) because I was outside and B was in the room; Tell is impossible without "
        "knowing.",
        "action",
        ASK_B,
    ),
    ("I'll pass. Asking B would cost 0.5 points and gain nothing.", "action", PASS),
]

WEIGHED_THEN_CHOSEN: list[Case] = [
    (
        "Option 1: Ask(B, bag) - useless, B knows less than me.\nOption 2: Tell(B, bag, banana) "
        "- B is the answerer and is wrong.\nOption 3: Pass - B answers wrong.\n\n"
        "I'll go with Tell(B, bag, banana).",
        "action",
        TELL_B,
    ),
    (
        "I considered Ask(B, bag), but B was out too. I considered Tell(D, bag, stapler), "
        "but D ignores me.\nPass",
        "action",
        PASS,
    ),
    (
        "Should I Tell(B, bag, banana)? B already saw it. Should I Ask(C, bag)? C may lie.\nPass.",
        "action",
        PASS,
    ),
    ("Instead of Ask(B, bag), I'll simply pass, since B knows no more than I do.", "action", PASS),
    ("Asking is pointless, telling is pointless.\nPass", "action", PASS),
    (
        "If I pass, B answers 'empty' and we get nothing. If I Tell(B, bag, banana), we net "
        "+0.5.\nTell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    ("I won't Tell(D, bag, stapler): D would ignore it. I won't ask either.\nPass", "action", PASS),
    ("Rather than pass, I should Tell(B, bag, banana).", "action", TELL_B),
    (
        "Not Ask(C, bag) — C might lie. Ask(B, bag) — B stayed in the room.\nAsk(B, bag)",
        "action",
        ASK_B,
    ),
    (
        "Tell(B, bag, banana) would help only if B were asked; C is asked. Tell(B, bag, "
        "banana) would cost 0.5 for nothing.\nSo: Pass",
        "action",
        PASS,
    ),
    (
        "Ask (costs 0.5 points) makes sense only if someone knows more than me. Nobody does.\nPass",
        "action",
        PASS,
    ),
    (
        "Passing costs nothing but loses the point. Asking B would cost 0.5, and B is wrong. "
        "Telling B fixes it.\nTell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    (
        "Hmm, Ask(B, bag)? B wasn't there.\nTell(B, bag, banana)? B is not the answerer.\nPass.",
        "action",
        PASS,
    ),
    (
        "A lie like Tell(D, bag, stapler) is tempting but pointless under the rules.\n\nI pass.",
        "action",
        PASS,
    ),
    ("Without asking B I cannot be sure, and B stayed in the room.\nAsk(B, bag)", "action", ASK_B),
    (
        "Compare: Pass = 0; Tell(B, bag, banana) = -0.5 + 1 = +0.5. Tell wins.\n"
        "Tell(B, bag, banana)",
        "action",
        TELL_B,
    ),
    ("There's no need to Tell(B, bag, banana): B watched. Pass.", "action", PASS),
    (
        "Asking C is risky because opponents may lie, and Ask(B, bag) is useless because B "
        "left before me.\nPass",
        "action",
        PASS,
    ),
    (
        "I was going to Ask(B, bag), but I realise I saw the final move myself.\n**Pass**",
        "action",
        PASS,
    ),
    (
        "Pass would leave B wrong; Ask(B, bag) wastes points. Tell(B, bag, banana) is the play.",
        "action",
        TELL_B,
    ),
]

PROSE_MENTIONS: list[Case] = [
    ("Pass. No need to Ask (costs 0.5).", "action", PASS),
    ("Asking B would cost half a point. Passing costs nothing. Pass.", "action", PASS),
    ("An Ask (0.5 points) buys nothing here. Pass", "action", PASS),
    ("Ask (cost 0.5) is wasteful; Tell (cost 0.5) too.\n\nPass", "action", PASS),
    (
        "The Tell (Player, Container, Contents) format would let me lie, but lies fail.\nPass",
        "action",
        PASS,
    ),
    ("telling B would cost 0.5 and B already knows\nPass", "action", PASS),
    ("Tell(B, ...) would be wasted; Ask(C, ...) might be a lie.\nPass", "action", PASS),
    (
        "Asking (which costs 0.5) is the only way to learn the contents.\nAsk(B, bag)",
        "action",
        ASK_B,
    ),
    ("I could ask or tell (each costs 0.5).\nTell(B, bag, banana)", "action", TELL_B),
    ("Pass (no cost). An Ask (0.5) or a Tell (0.5) changes nothing.", "action", PASS),
]

TWO_COMMITMENTS: list[Case] = [
    ("Pass.\n\nB is the answerer.\n\nTell(B, bag, banana).", "action", None),
    ("Ask(B, bag). Tell(B, bag, banana).", "action", None),
    ("Ask(B, bag) or Tell(B, bag, banana)", "action", None),
    ("I'll pass.\nI'll Ask(B, bag).", "action", None),
    ("Tell(B, bag, banana) and Ask(C, bag)", "action", None),
    ("Either Ask(B, bag) or Pass.", "action", None),
    ("B\n\nOption D.", "choice", None),
    ("Option B, or maybe option D.", "choice", None),
    ("Tell(B, bag, banana)\nPass", "action", None),
    ("My action: Ask(B, bag) and Tell(B, bag, banana)", "action", None),
]

NO_COMMITMENT: list[Case] = [
    ("I could Ask(B, bag), but I'm not sure it's worth it.", "action", None),
    ("Should I Tell(B, bag, banana)?", "action", None),
    ("Hmm, let me think about whether B saw the banana go in.", "action", None),
    ("I would ask player B about the bag, or maybe tell them.", "action", None),
    ("Tell(B, bag, banana) would cost 0.5.", "action", None),
    ("It's not clear whether to Ask(B, bag) or not.", "action", None),
    ("No need to Tell(B, bag, banana).", "action", None),
    ("I'm thinking about the best action. Let me reconsider what each player saw.", "action", None),
]

EMPTY_VISIBLE: list[Case] = [
    ("", "action", None),
    ("   \n\n  ", "choice", None),
    ("", "free", None),
]

CHOICE_REASONING: list[Case] = [
    (
        "B left before the banana was put in, so B believes the bag is empty. B is asked.\n\nD",
        "choice",
        TELL_B,
    ),
    (
        "Option B asks my teammate, who was also out. Option D tells B the truth.\nAnswer: D",
        "choice",
        TELL_B,
    ),
    (
        "I know the bag holds a banana and I am the answerer. Nothing to gain.\n\n**A**",
        "choice",
        PASS,
    ),
    (
        "Let me go through the options:\nA) Pass - B answers wrong\nB) Ask(B, bag) - useless\n"
        "C) Ask(C, bag) - C may lie\nD) Tell(B, bag, banana) - fixes B\nE) Tell(D, bag, stapler)"
        " - pointless\n\nThe answer is D.",
        "choice",
        TELL_B,
    ),
    ("I was out; B stayed in. Asking B is best.\nMy choice: B", "choice", ASK_B),
    ("Nobody can change my answer, and lying to D is useless. I choose option A.", "choice", PASS),
    ("D tells my teammate the truth, which is what B needs.\nD", "choice", TELL_B),
    (
        "Option C would ask an opponent who may lie; option B asks my teammate who saw it.\n"
        "Final answer: B",
        "choice",
        ASK_B,
    ),
    ("Since B is the answerer and wrong, I pick D.", "choice", TELL_B),
    ("**Reasoning:** everyone saw everything.\n**Answer:** (A)", "choice", PASS),
    ("Telling D something false (option E) cannot work. Passing is free.\n\nA", "choice", PASS),
    ("Option D. B missed the banana.", "choice", TELL_B),
    ("D) Tell(B, bag, banana)\n\nB left before C put the banana in.", "choice", TELL_B),
    ("B was in the room when the bag changed; I was not. B) Ask(B, bag)", "choice", ASK_B),
    (
        "A is free, B and C cost 0.5 and teach me nothing, D fixes my teammate. So D.",
        "choice",
        TELL_B,
    ),
    ("The correct option is A.", "choice", PASS),
    ("I'd go with B, since my teammate stayed in the room.", "choice", ASK_B),
    ("Tell(B, bag, banana)", "choice", TELL_B),
    ("After weighing A against D, D wins: B answers and is wrong.\n\nD", "choice", TELL_B),
    ("Pass is option A. I take it, since nothing helps.", "choice", PASS),
    ("B\n\nActually, option D: B is the answerer.", "choice", TELL_B),
]

FREE_SLIPS: list[Case] = [
    ("B left before the banana went in; B answers. Tell(B, bag, banana)", "free", TELL_B),
    ("I know, and I answer. Pass.", "free", PASS),
    ("Reasoning first: I was out, B was in.\n\nAsk(B, bag)", "free", ASK_B),
    ("Final answer: Tell(B, bag, banana)", "free", TELL_B),
    ("Nothing to gain.\n**Pass**", "free", PASS),
    ("B saw it. I could Tell(B, bag, banana), but that wastes 0.5.\n\nPass", "free", PASS),
    ("Let me think... B doesn't know.\nTell(B, bag, banana).", "free", TELL_B),
    ("I was outside when the box changed.\nAsk(B, box)", "free", Action("ask", "B", "box")),
    ("Everyone knows. I'll pass.", "free", PASS),
    ("Hmm, hard to say what the best action is.", "free", None),
]

FREE_TAGGED: list[Case] = [
    ("I could Tell(B, bag, banana), but B saw it.\nACTION: Pass", "free", PASS),
    (
        "B missed the put.\n\nACTION: Tell(B, bag, banana)\n\n(I pass on further comment.)",
        "free",
        TELL_B,
    ),
    ("Thinking: Ask(C, bag) risks a lie.\nACTION: Ask(B, bag)", "free", ASK_B),
    ("**ACTION:** Tell(B, bag, a banana)", "free", TELL_B),
    ("Long analysis...\nACTION: Pass. Asking would cost 0.5.", "free", PASS),
    ("ACTION: Tell(D, bag, stapler)", "free", TELL_D),
    ("Let me reason.\nACTION: I will pass this turn.", "free", PASS),
    ("ACTION: Pass (no need to Ask (costs 0.5))", "free", PASS),
]

REVISED: list[Case] = [
    ("Ask(B, bag).\nWait - I saw the move myself. Pass.", "action", PASS),
    ("Pass.\n\nActually, B needs to know.\n\nTell(B, bag, banana).", "action", TELL_B),
    ("Tell(B, bag, banana)\nNo - B watched C put it there. Pass.", "action", PASS),
    ("Option B.\nOn second thought, option D, since B is the one asked.", "choice", TELL_B),
    ("I'll pass.\nHmm, B was out during the put. Tell(B, bag, banana)", "action", TELL_B),
    # A revision inside one sentence, after a dash or a semicolon.
    ("Ask(B, bag) - actually no, Pass.", "action", PASS),
    ("I'll Tell(B, bag, banana) \u2014 wait, B saw it. Pass.", "action", PASS),
    ("Pass; on second thought, Tell(B, bag, banana).", "action", TELL_B),
    # A revision after a closing statement replaces it; a retraction alone does not.
    ("Action: Ask(B, bag) -- actually, Pass.", "action", PASS),
    ("Final answer: Pass.\nWait, B was out. Tell(B, bag, banana).", "action", TELL_B),
    ("Action: Ask(B, bag). Actually, I am sure of it.", "action", ASK_B),
    # A sentence that opens like a revision but only weighs an action revises nothing.
    ("Pass.\nNo reason to Ask(B, bag): I saw the move myself.", "action", PASS),
    ("Pass. Hmm, Tell(B, bag, banana) costs 0.5 for nothing.", "action", PASS),
    ("I'll Tell(B, bag, banana). Actually, this is better than Ask(B, bag).", "action", TELL_B),
    ("Tell(B, bag, banana). Instead, C will probably pass.", "action", TELL_B),
    ("I'll Tell(B, bag, banana). No one else needs to Ask(B, bag).", "action", TELL_B),
    ("Pass. Actually, Tell(B, bag, banana) would just waste 0.5.", "action", PASS),
    ("Ask(B, bag). No, Pass.", "action", PASS),
    # A note on a player ("B: ...") is no option letter, unless its line names an action.
    ("B: left before the banana went in.\n\nTell(B, bag, banana)", "choice", TELL_B),
    ("B: left before the banana went in.\nSo I should tell B about it.", "choice", None),
    ("C: saw it all, so no need to ask.\nD", "choice", TELL_B),
    ("B: Ask(B, bag)", "choice", ASK_B),
    # "would be to" states the choice rather than weighing it.
    ("Therefore the best action would be to Tell(B, bag, banana).", "action", TELL_B),
]

ECHOED_OPTIONS: list[Case] = [
    ("A) Pass\nB) Ask(B, bag)\nC) Ask(C, bag)", "choice", None),
    ("A) Pass\nF) Ask(B, bag)\nG) Ask(D, bag)", "choice", None),
    ("D) Tell(B, bag, banana)\nE) Tell(D, bag, stapler)\nA) Pass", "choice", None),
    ("- Pass\n- Ask(B, bag)\n- Tell(B, bag, banana)", "action", None),
    ("D\nA) Pass\nB) Ask(B, bag)", "choice", TELL_B),
]

CORPUS: list[Case] = [
    *FINAL_LINE,
    *FINAL_SENTENCE,
    *CLOSING_STATEMENT,
    *ACTION_FIRST,
    *WEIGHED_THEN_CHOSEN,
    *PROSE_MENTIONS,
    *TWO_COMMITMENTS,
    *NO_COMMITMENT,
    *EMPTY_VISIBLE,
    *CHOICE_REASONING,
    *FREE_SLIPS,
    *FREE_TAGGED,
    *REVISED,
    *ECHOED_OPTIONS,
]
