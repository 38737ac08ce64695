"""Reference players of the knowledge tasks, the floor and ceiling rows of KNP and IKD:

* `tom/gold` plays each record's own answer: on KNP the option without the knowledge the
  character cannot have (in open-ended form its text, and as the judge it accepts exactly
  that text); on IKD "No" for an original story and, for an erroneous one, "Yes" with the
  gold error span quoted. It scores 1.0 on every metric: the scorer's ceiling.
* `tom/always-a` always answers A (KNP): half right under the counterbalanced order.
* `tom/always-leak` always chooses the action that uses the knowledge (KNP): 0.
* `tom/always-yes` and `tom/always-no` always call the story erroneous or consistent
  (IKD): the judgment biases at their extremes.

Like the other reference players they look the answer up in the running sample's metadata
(a gold player of a fixed data set knows its key); asked to play a task they cannot play,
they end the eval in one line.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.log._samples import sample_active
from inspect_ai.model import ChatMessage, GenerateConfig

from tom_eval.providers.base import LocalProvider, Reply, Unplayable

OPEN_KNP = "knp -T open_ended=true"
POLICIES: dict[str, tuple[str, ...]] = {
    "gold": ("knp", OPEN_KNP, "ikd"),
    "always-a": ("knp",),
    "always-leak": ("knp",),
    "always-yes": ("ikd",),
    "always-no": ("ikd",),
}
"""Each player, and the tasks it plays."""
JUDGE_MARK = "You are an accuracy evaluator."
"""How the judge's prompt (Table 10) begins."""


def knp_reply(policy: str, metadata: dict[str, Any], prompt: str) -> str:
    options = metadata.get("options")
    right = str(metadata["answer_without_knowledge"])
    if options is None:  # the open-ended question, and its judge
        if OPEN_KNP not in POLICIES[policy]:
            raise Unplayable(f"tom/{policy} cannot play {OPEN_KNP}: it plays knp")
        if prompt.startswith(JUDGE_MARK):
            return "True" if f"Generated Answer: {right}\n" in prompt else "False"
        return f"Answer: {right}"
    letter = {
        "gold": metadata["correct_letter"],
        "always-a": "A",
        "always-leak": next(k for k, v in options.items() if v != right),
    }[policy]
    return f"Answer: {letter}"


def ikd_reply(policy: str, metadata: dict[str, Any]) -> str:
    erroneous = metadata["kind"] == "error"
    says_error = {"gold": erroneous, "always-yes": True, "always-no": False}[policy]
    # Only the gold player knows where the error is; a baseline quotes nothing.
    quote = str(metadata.get("gold") or "NA") if policy == "gold" and erroneous else "NA"
    return f"Conclusion: {'Yes' if says_error else 'No'}\nLogical Error: {quote}"


class KnowledgePlayer(LocalProvider):
    """`tom/gold`, `tom/always-a`, `tom/always-leak`, `tom/always-yes`, `tom/always-no`."""

    def plays(self) -> tuple[str, ...]:
        return POLICIES[self.model_name]

    async def reply(self, input: list[ChatMessage], config: GenerateConfig) -> Reply:
        active = sample_active()
        metadata = (active.sample.metadata or {}) if active else {}
        knp = "answer_without_knowledge" in metadata
        ikd = metadata.get("kind") in ("original", "error")
        if not (knp and "knp" in self.plays()) and not (ikd and "ikd" in self.plays()):
            raise self.unplayable()
        if knp:
            return Reply(knp_reply(self.model_name, metadata, input[-1].text))
        return Reply(ikd_reply(self.model_name, metadata))
