"""The reference: a rational agent's forward model, and the exact Bayesian inversion of any
forward model.

Forward model. The agent acts on its beliefs: it cannot see the true states. A location's
utility is the sum, over the kinds the agent believes it holds, of +1 for a liked kind and
-1 for a disliked one (so a container believed to hold both a liked and a disliked kind is
worth 0), minus `cost` for the far location (the basket fifty steps away; the screening in
90 minutes). The action follows a softmax of utility / `temperature`:

    U(location) = sum(+1 if likes kind else -1 for kind believed there) - cost * far
    P(location) = exp(U(location) / temperature) / sum over both locations

Utilities differ by whole numbers before the cost, so with the default cost of 0.5 the
near location wins ties of liking and no two locations ever tie; the smallest utility gap
is then 0.5, and the default temperature of 0.1 makes it a 99.3% choice (e^5 : 1). Equal
utilities (a cost of 0 or 1 can produce them) give 50/50.

Inversion. P(mental state | action, given) is proportional to P(action | mental state,
given) x prior(mental state), the mental states being an inference item's answers; the
prior is uniform unless given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from math import fsum

from tom_eval.coherence.worlds import (
    INFERENCE_TASKS,
    WORLDS,
    Domain,
    Item,
    Pair,
    answers,
    belief_configurations,
    desire_configurations,
    forward_item,
    items,
    state_configurations,
)

DEFAULT_COST = 0.5
DEFAULT_TEMPERATURE = 0.1


class Unexplained(ValueError):
    """No answer of an inference item gives its observed action any probability (times its
    prior weight), so the posterior is undefined."""


ForwardModel = Mapping[str, Mapping[str, float]]
"""A distribution over actions for each action-prediction item, keyed by item id; any
model's answers to the AP items are one."""


def utility(domain: Domain, beliefs: Pair, desires: Pair, location: str, cost: float) -> float:
    """What going to `location` is worth to an agent with these beliefs and desires."""
    world = WORLDS[domain]
    worth = {"likes": 1.0, "dislikes": -1.0}
    value = {kind: worth[desire] for kind, desire in zip(world.kinds, desires, strict=True)}
    believed = beliefs[world.locations.index(location)]
    far = location == world.locations[1]
    return fsum(value[kind] for kind in world.kinds_in(believed)) - (cost if far else 0.0)


def forward(
    domain: Domain,
    beliefs: Pair,
    desires: Pair,
    states: Pair,
    *,
    cost: float = DEFAULT_COST,
    temperature: float = DEFAULT_TEMPERATURE,
) -> dict[str, float]:
    """P(action | beliefs, desires, states): a softmax of the utilities (module docstring).
    The states are part of the paradigm's input and are checked, but the agent cannot see
    them, so they do not change the prediction."""
    locations = WORLDS[domain].locations
    scaled = _scaled(domain, beliefs, desires, states, cost, temperature)
    top = max(scaled)
    weights = [math.exp(value - top) for value in scaled]
    total = fsum(weights)
    return {place: weight / total for place, weight in zip(locations, weights, strict=True)}


def _log_forward(item: Item, cost: float, temperature: float) -> dict[str, float]:
    """log P(action | the action-prediction item's beliefs, desires and states): `forward`
    in log space, exact where a probability underflows to 0 (a utility gap over the
    temperature above about 745, as a large cost or a near-zero temperature gives)."""
    beliefs, desires = _pair(item.beliefs), _pair(item.desires)
    scaled = _scaled(item.domain, beliefs, desires, item.states, cost, temperature)
    top = max(scaled)
    log_total = top + math.log(fsum(math.exp(value - top) for value in scaled))
    locations = WORLDS[item.domain].locations
    return {place: value - log_total for place, value in zip(locations, scaled, strict=True)}


def _scaled(
    domain: Domain, beliefs: Pair, desires: Pair, states: Pair, cost: float, temperature: float
) -> list[float]:
    """Each location's utility over the temperature, the softmax's input."""
    if temperature <= 0:
        raise ValueError(f"the temperature must be positive, not {temperature}")
    _check(beliefs in belief_configurations(domain), "beliefs", beliefs, domain)
    _check(desires in desire_configurations(), "desires", desires, domain)
    _check(states in state_configurations(domain), "states", states, domain)
    return [
        utility(domain, beliefs, desires, place, cost) / temperature
        for place in WORLDS[domain].locations
    ]


def _check(valid: bool, name: str, value: Pair, domain: Domain) -> None:
    if not valid:
        raise ValueError(f"{value} are no {name} of {WORLDS[domain].title}")


def forward_model(
    domain: Domain, *, cost: float = DEFAULT_COST, temperature: float = DEFAULT_TEMPERATURE
) -> dict[str, dict[str, float]]:
    """The rational forward model over every action-prediction item of the domain."""
    return {
        item.item_id: forward(
            domain,
            _pair(item.beliefs),
            _pair(item.desires),
            item.states,
            cost=cost,
            temperature=temperature,
        )
        for item in items(domain, "AP")
    }


def _pair(pair: Pair | None) -> Pair:
    assert pair is not None, "an action-prediction item gives beliefs and desires"
    return pair


def infer(
    item: Item, model: ForwardModel, prior: Mapping[str, float] | None = None
) -> dict[str, float]:
    """The exact posterior over an inference item's answers given its observed action,
    under `model` (any forward model). `prior` weighs each of the item's answers (weights
    need not sum to 1; keys of other items are ignored); None is uniform. A forward distribution
    that omits the observed action gives it probability 0.

    Raises KeyError when `model` lacks an action-prediction item the inversion needs, and
    ValueError when `prior` lacks one of the item's answers or weighs it below 0;
    `Unexplained` when every answer's weight is 0."""
    action = _action(item)
    return _posterior(
        item,
        {
            answer: _log(model[forward_item(item, answer).item_id].get(action, 0.0))
            + _log(_prior_weight(prior, answer, item))
            for answer in answers(item)
        },
    )


def _log(weight: float) -> float:
    return math.log(weight) if weight > 0 else -math.inf


def _posterior(item: Item, log_weights: Mapping[str, float]) -> dict[str, float]:
    """The answers' weights normalised, from their logarithms (so that weights too small
    for a float still compare); `Unexplained` when every weight is 0."""
    top = max(log_weights.values())
    if top == -math.inf:
        raise Unexplained(f"no answer of {item.item_id} gives its action any probability")
    weights = {answer: math.exp(value - top) for answer, value in log_weights.items()}
    total = fsum(weights.values())
    return {answer: weight / total for answer, weight in weights.items()}


def _action(item: Item) -> str:
    if item.action is None:
        raise ValueError(f"{item.item_id} is not an inference item")
    return item.action


def _prior_weight(prior: Mapping[str, float] | None, answer: str, item: Item) -> float:
    if prior is None:
        return 1.0
    if answer not in prior:
        raise ValueError(f"the prior gives no weight to {answer} (of {item.item_id})")
    if prior[answer] < 0:
        raise ValueError(f"the prior weighs {answer} below 0")
    return prior[answer]


def rational_answers(
    domain: Domain, *, cost: float = DEFAULT_COST, temperature: float = DEFAULT_TEMPERATURE
) -> dict[str, dict[str, float]]:
    """The rational agent's answer to every item of every task, keyed by item id: its
    forward model for AP, the uniform-prior inversion of it for DI, BI and BDI. The
    inversion reads the forward model in log space, so it stays exact when a probability
    underflows to 0."""
    model = forward_model(domain, cost=cost, temperature=temperature)
    log_model = {
        item.item_id: _log_forward(item, cost, temperature) for item in items(domain, "AP")
    }
    inferences = {
        item.item_id: _posterior(
            item,
            {
                answer: log_model[forward_item(item, answer).item_id][_action(item)]
                for answer in answers(item)
            },
        )
        for task in INFERENCE_TASKS
        for item in items(domain, task)
    }
    return {**model, **inferences}
