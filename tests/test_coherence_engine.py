"""The coherence engine (Inspect-free part): the enumerations and the isomorphism,
the paper's prompts, the rational agent and the exact inversion against hand-computed
numbers, and every metric on the reference agents and on known values."""

from __future__ import annotations

import decimal
import json
import math
import random

import pytest

from tom_eval.coherence.metrics import (
    Answers,
    bayesian_evaluation,
    cross_domain_consistency,
    pearson,
    produces,
    ranks,
    rational_agreement,
    spearman,
    validity,
)
from tom_eval.coherence.parsing import parse_answer
from tom_eval.coherence.prompts import (
    components,
    fields,
    schema,
    system_prompt,
    user_prompt,
)
from tom_eval.coherence.rational import (
    Unexplained,
    forward,
    infer,
    rational_answers,
    utility,
)
from tom_eval.coherence.worlds import (
    DOMAINS,
    INFERENCE_TASKS,
    ITEM_COUNTS,
    TASKS,
    WORLDS,
    Domain,
    InferenceTask,
    Item,
    Task,
    answers,
    belief_configurations,
    counterpart,
    counterpart_answer,
    desire_configurations,
    find_item,
    forward_item,
    items,
    mental_state,
    mental_state_key,
    state_configurations,
)

# ------------------------------------------------------------------------- enumeration


@pytest.mark.parametrize("domain", DOMAINS)
def test_configuration_and_item_counts(domain: Domain) -> None:
    assert len(belief_configurations(domain)) == 9
    assert len(desire_configurations()) == 3
    assert ("dislikes", "dislikes") not in desire_configurations()
    assert len(state_configurations(domain)) == 9
    counts = {task: len(items(domain, task)) for task in TASKS}
    assert counts == ITEM_COUNTS == {"AP": 9 * 3 * 9, "DI": 9 * 9 * 2, "BI": 3 * 9 * 2, "BDI": 18}
    answer_counts = {task: len(answers(items(domain, task)[0])) for task in TASKS}
    assert answer_counts == {"AP": 2, "DI": 3, "BI": 9, "BDI": 27}


def test_ids_are_unique_readable_and_found() -> None:
    every = [item for domain in DOMAINS for task in TASKS for item in items(domain, task)]
    assert len({item.item_id for item in every}) == len(every) == 2 * sum(ITEM_COUNTS.values())
    assert all(find_item(item.item_id) == item for item in every)
    item = Item(
        "container",
        "AP",
        ("apples", "apples and oranges"),
        beliefs=("apples", "oranges"),
        desires=("likes", "dislikes"),
    )
    assert item.item_id == (
        "container/AP/b=apples|oranges/d=likes|dislikes/s=apples|apples and oranges"
    )
    assert find_item("movie/DI/b=action|romance/s=romance|action/a=05").action == "05"
    with pytest.raises(KeyError):
        find_item("movie/DI/b=apples|romance/s=romance|action/a=05")


def test_answers_name_mental_states_and_fill_forward_items() -> None:
    item = find_item("container/DI/b=apples|oranges/s=oranges|apples/a=basket")
    assert answers(item) == ("d=likes|likes", "d=likes|dislikes", "d=dislikes|likes")
    assert forward_item(item, "d=dislikes|likes").item_id == (
        "container/AP/b=apples|oranges/d=dislikes|likes/s=oranges|apples"
    )
    joint = "b=apples and oranges|oranges/d=likes|dislikes"
    assert mental_state(joint) == (("apples and oranges", "oranges"), ("likes", "dislikes"))
    assert mental_state_key(*mental_state(joint)) == joint


@pytest.mark.parametrize("task", TASKS)
def test_isomorphism_is_an_order_preserving_bijection(task: Task) -> None:
    containers, movies = items("container", task), items("movie", task)
    assert tuple(counterpart(item) for item in containers) == movies
    assert tuple(counterpart(item) for item in movies) == containers
    for item in containers:
        translated = [counterpart_answer(item, answer) for answer in answers(item)]
        assert translated == list(answers(counterpart(item)))
        assert [counterpart_answer(counterpart(item), a) for a in translated] == list(answers(item))


def test_isomorphism_example() -> None:
    item = find_item("container/BDI/s=apples|apples and oranges/a=box")
    assert counterpart(item).item_id == "movie/BDI/s=action|action-romance/a=05"
    answer = "b=oranges|apples and oranges/d=dislikes|likes"
    assert counterpart_answer(item, answer) == "b=romance|action-romance/d=dislikes|likes"


# The MovieWorld sentences that an item's ContainerWorld values become, written out here
# apart from the prompt module's tables.
MOVIE_GENRE = {
    "apples": "an action",
    "oranges": "a romance",
    "apples and oranges": "an action-romance",
}
MOVIE_SCREENING = {"box": "5", "basket": "90"}


def _movie_sentences(item: Item) -> list[str]:
    sentences = []
    if item.beliefs is not None:
        near, far = (MOVIE_GENRE[value] for value in item.beliefs)
        sentences.append(
            f"Alex believes that the screening starting in 5 minutes is {near} movie and that "
            f"the screening starting in 90 minutes is {far} movie."
        )
    if item.desires is not None:
        sentences.append(
            f"Alex {item.desires[0]} action movies and he {item.desires[1]} romance movies."
        )
    near, far = (MOVIE_GENRE[value] for value in item.states)
    sentences.append(
        f"There is {near} movie starting in 5 minutes and {far} movie starting in 90 minutes."
    )
    if item.action is not None:
        sentences.append(
            "Alex wants to watch a screening, so he goes to the screening starting in "
            f"{MOVIE_SCREENING[item.action]} minutes."
        )
    return sentences


@pytest.mark.parametrize("task", TASKS)
def test_isomorphism_maps_every_prompt_to_the_other_domains(task: Task) -> None:
    for item in items("container", task):
        movie_prompt = user_prompt(counterpart(item))
        for sentence in _movie_sentences(item):
            assert sentence in movie_prompt
        assert len(components(item)) == len(components(counterpart(item)))


# ------------------------------------------------------------------------------ prompts

CONTAINER_CONTEXT = "John is standing in the corner of a large room."
MOVIE_CONTEXT = (
    "Alex is at a foreign film festival. He has a surface-level understanding of the local "
    "language, but doesn't know enough to be conversational. This film festival only screens "
    "movies which are 120 minutes long."
)


def test_user_prompts_use_the_papers_sentences_in_fig_9a_order() -> None:
    # Fig. 10B, with the actions component that Fig. 9A puts in every inference prompt.
    bdi = find_item("container/BDI/s=apples|apples/a=box")
    assert user_prompt(bdi) == (
        "John is standing in the corner of a large room. Within arm's reach, there is a closed "
        "box. The closed box is filled with apples. In the opposite corner, about fifty steps "
        "away, there is a covered basket. The covered basket is filled with apples. John wants "
        "to eat fruit, so he goes to the box and takes the fruit inside. What are John's "
        "beliefs and desires?"
    )
    # Fig. 11B, likewise.
    movie = find_item("movie/BDI/s=romance|action-romance/a=90")
    assert user_prompt(movie) == (
        f"{MOVIE_CONTEXT} There is a romance movie starting in 5 minutes and an action-romance "
        "movie starting in 90 minutes. Alex wants to watch a screening, so he goes to the "
        "screening starting in 90 minutes. What are Alex's beliefs and desires?"
    )
    ap = find_item("container/AP/b=apples and oranges|oranges/d=dislikes|likes/s=oranges|apples")
    assert components(ap) == (
        CONTAINER_CONTEXT,
        "John believes that the closed box has apples and oranges and that the covered basket "
        "has oranges.",
        "John dislikes apples and he likes oranges.",
        "Within arm's reach, there is a closed box. The closed box is filled with oranges. In "
        "the opposite corner, about fifty steps away, there is a covered basket. The covered "
        "basket is filled with apples.",
        "He wants to eat a single piece of fruit. Which container would John take fruit from?",
    )
    di = find_item("movie/DI/b=action|romance/s=action-romance|romance/a=05")
    assert components(di)[1:] == (
        "Alex believes that the screening starting in 5 minutes is an action movie and that the "
        "screening starting in 90 minutes is a romance movie.",
        "There is an action-romance movie starting in 5 minutes and a romance movie starting "
        "in 90 minutes.",
        "Alex wants to watch a screening, so he goes to the screening starting in 5 minutes.",
        "What are Alex's desires?",
    )
    bi = find_item("movie/BI/d=likes|dislikes/s=action|action/a=90")
    assert components(bi)[1] == "Alex likes action movies and he dislikes romance movies."
    assert components(bi)[-1] == "What are Alex's beliefs?"
    movie_ap = items("movie", "AP")[0]
    assert user_prompt(movie_ap).endswith(
        "He wants to watch a movie. Which screening should Alex go to?"
    )


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize(
    ("task", "text"),
    [
        ("AP", "the action someone you're observing would take"),
        ("DI", "the desires of someone you're observing"),
        ("BI", "the beliefs of someone you're observing"),
        ("BDI", "the beliefs and desires of someone you're observing"),
    ],
)
def test_system_prompt_is_the_task_text_and_schema(domain: Domain, task: Task, text: str) -> None:
    prompt = system_prompt(domain, task)
    head = f"Your task is to tell us {text} using the JSON Schema provided below.\n\n"
    assert prompt.startswith(head)
    assert json.loads(prompt[len(head) :]) == schema(domain, task)


def test_schemas_and_fields() -> None:
    assert [(f.name, f.values) for f in fields("container", "BDI")] == [
        ("desires.apples", ("likes", "dislikes")),
        ("desires.oranges", ("likes", "dislikes")),
        ("beliefs.box", ("apples", "oranges", "apples and oranges")),
        ("beliefs.basket", ("apples", "oranges", "apples and oranges")),
    ]
    assert [(f.name, f.values) for f in fields("movie", "AP")] == [("action", ("05", "90"))]
    movie_bi = schema("movie", "BI")
    beliefs = _node(movie_bi, "beliefs")
    assert _node(beliefs, "screening90") == {
        "type": "string",
        "enum": ["action", "romance", "action-romance"],
    }
    assert beliefs["required"] == ["screening05", "screening90"]
    assert movie_bi["required"] == ["beliefs"]
    assert movie_bi["additionalProperties"] is False
    container_bdi = schema("container", "BDI")
    assert _node(container_bdi, "desires")["required"] == ["apples", "oranges"]
    assert container_bdi["required"] == ["desires", "beliefs"]


def _node(parent: dict[str, object], name: str) -> dict[str, object]:
    properties = parent["properties"]
    assert isinstance(properties, dict)
    child = properties[name]
    assert isinstance(child, dict)
    return child


def test_parse_answer() -> None:
    item = find_item("container/BDI/s=apples|apples/a=box")
    document = {
        "desires": {"apples": "likes", "oranges": "dislikes"},
        "beliefs": {"box": "apples and oranges", "basket": "oranges"},
    }
    assert parse_answer(item, document) == "b=apples and oranges|oranges/d=likes|dislikes"
    assert parse_answer(items("movie", "AP")[0], {"action": "90"}) == "90"
    both_disliked = {**document, "desires": {"apples": "dislikes", "oranges": "dislikes"}}
    for wrong in (both_disliked, {"desires": document["desires"]}, {**document, "beliefs": "box"}):
        with pytest.raises(ValueError):
            parse_answer(item, wrong)
    with pytest.raises(ValueError, match="not one of"):
        parse_answer(items("movie", "AP")[0], {"action": "5"})


def test_rational_forward_model_by_hand() -> None:
    # Believes the box holds apples, the basket oranges; likes apples, dislikes oranges:
    # U(box) = +1, U(basket) = -1 - 0.5 = -1.5, so P(box) = 1 / (1 + e^(-2.5 / 0.1)).
    prediction = forward(
        "container", ("apples", "oranges"), ("likes", "dislikes"), ("oranges", "oranges")
    )
    assert prediction["box"] == pytest.approx(1 / (1 + math.exp(-25)))
    # Box believed to hold both (+1 - 1 = 0), basket apples (+1 - 0.5): P(basket) = 1/(1+e^-5).
    mixed = ("apples and oranges", "apples")
    assert forward("container", mixed, ("likes", "dislikes"), ("apples", "apples"))["basket"] == (
        pytest.approx(1 / (1 + math.exp(-5)))
    )
    # A cost of 1 makes the two equal: 50/50.
    tie = forward("container", mixed, ("likes", "dislikes"), ("apples", "apples"), cost=1.0)
    assert tie == pytest.approx({"box": 0.5, "basket": 0.5})
    # The agent acts on beliefs, not on states it cannot see.
    beliefs, desires = ("romance", "action"), ("dislikes", "likes")
    assert (
        len(
            {
                tuple(forward("movie", beliefs, desires, s).items())
                for s in state_configurations("movie")
            }
        )
        == 1
    )
    with pytest.raises(ValueError):
        forward("movie", ("apples", "action"), desires, ("action", "action"))
    with pytest.raises(ValueError):
        forward("movie", beliefs, desires, ("action", "action"), temperature=0)


def test_inversion_of_a_hand_made_forward_model() -> None:
    item = find_item("container/DI/b=apples|oranges/s=oranges|apples/a=basket")
    base = "container/AP/b=apples|oranges/d={}/s=oranges|apples"
    model = {
        base.format("likes|likes"): {"box": 0.7, "basket": 0.3},
        base.format("likes|dislikes"): {"box": 0.9, "basket": 0.1},
        base.format("dislikes|likes"): {"box": 0.2, "basket": 0.8},
    }
    # Uniform prior: .3, .1, .8 over their sum 1.2.
    assert infer(item, model) == pytest.approx(
        {"d=likes|likes": 0.25, "d=likes|dislikes": 1 / 12, "d=dislikes|likes": 2 / 3}
    )
    # Prior 2 : 1 : 1 gives weights .6, .1, .8 over 1.5.
    prior = {"d=likes|likes": 2.0, "d=likes|dislikes": 1.0, "d=dislikes|likes": 1.0}
    assert infer(item, model, prior) == pytest.approx(
        {"d=likes|likes": 0.4, "d=likes|dislikes": 1 / 15, "d=dislikes|likes": 8 / 15}
    )
    with pytest.raises(ValueError, match="prior"):
        infer(item, model, {"d=likes|likes": 1.0})
    with pytest.raises(KeyError):
        infer(item, {base.format("likes|likes"): {"basket": 1.0}})
    never = {key: {"box": 1.0} for key in model}
    with pytest.raises(Unexplained):
        infer(item, never)


def test_validity_by_hand() -> None:
    item_id = "container/DI/b=apples|oranges/s=oranges|apples/a=basket"
    base = "container/AP/b=apples|oranges/d={}/s=oranges|apples"
    model = {
        base.format("likes|likes"): {"box": 0.4, "basket": 0.6},
        base.format("likes|dislikes"): {"box": 0.9, "basket": 0.1},
        base.format("dislikes|likes"): {"box": 0.5, "basket": 0.5},  # a tie produces both
    }
    for inference, valid in [
        ({"d=likes|likes": 0.2, "d=likes|dislikes": 0.7, "d=dislikes|likes": 0.1}, 0.0),
        ({"d=likes|likes": 0.7, "d=likes|dislikes": 0.2, "d=dislikes|likes": 0.1}, 1.0),
        ({"d=likes|likes": 0.1, "d=likes|dislikes": 0.2, "d=dislikes|likes": 0.7}, 1.0),
        # likes|dislikes and likes|likes tie as most likely; one of the two is valid.
        ({"d=likes|likes": 0.4, "d=likes|dislikes": 0.4, "d=dislikes|likes": 0.2}, 0.5),
    ]:
        result = validity({**model, item_id: inference}, "container", "DI")
        assert (result.valid, result.explicable, result.items) == (valid, 1, 1)
    # No desire makes the basket most likely: inexplicable, so left out of the share.
    hopeless = {key: {"box": 0.9, "basket": 0.1} for key in model}
    result = validity({**hopeless, item_id: {"d=likes|likes": 1.0}}, "container", "DI")
    assert (result.explicable, result.items) == (0, 1)
    assert math.isnan(result.share)
    assert produces({"box": 0.5, "basket": 0.5}, "box")
    assert not produces({"box": 0.49, "basket": 0.51}, "box")


@pytest.mark.parametrize(("cost", "temperature"), [(0.5, 0.1), (75.0, 0.1), (0.5, 0.0006)])
def test_the_rational_inversion_is_exact_where_the_softmax_underflows(
    cost: float, temperature: float
) -> None:
    # Above a utility gap of about 745 temperatures a location's probability is 0 as a
    # float; the posterior is still defined. Compare every inference with 60-digit decimals.
    for domain in DOMAINS:
        reference = rational_answers(domain, cost=cost, temperature=temperature)
        for task in INFERENCE_TASKS:
            for item in items(domain, task):
                exact = _exact_inversion(item, cost, temperature)
                assert reference[item.item_id] == pytest.approx(exact, rel=1e-9, abs=1e-300)


def _exact_inversion(item: Item, cost: float, temperature: float) -> dict[str, float]:
    """The rational agent's uniform-prior posterior for `item`, in 60-digit decimals."""
    assert item.action is not None
    with decimal.localcontext() as context:
        context.prec = 60
        likelihoods = {}
        for answer in answers(item):
            ap = forward_item(item, answer)
            assert ap.beliefs is not None and ap.desires is not None
            scaled = {
                place: decimal.Decimal(utility(item.domain, ap.beliefs, ap.desires, place, cost))
                / decimal.Decimal(temperature)
                for place in WORLDS[item.domain].locations
            }
            total = sum(value.exp() for value in scaled.values())
            likelihoods[answer] = scaled[item.action].exp() / total
        evidence = sum(likelihoods.values())
        return {answer: float(value / evidence) for answer, value in likelihoods.items()}


# ---------------------------------------------------------------- reference players

RATIONAL: Answers = {**rational_answers("container"), **rational_answers("movie")}


def _random_run(seed: int) -> Answers:
    """Every item of both domains answered with an independent random distribution."""
    rng = random.Random(seed)
    run = {}
    for domain in DOMAINS:
        for task in TASKS:
            for item in items(domain, task):
                weights = [rng.random() for _ in answers(item)]
                total = sum(weights)
                run[item.item_id] = {
                    a: w / total for a, w in zip(answers(item), weights, strict=True)
                }
    return run


RANDOM = _random_run(9)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("task", INFERENCE_TASKS)
def test_rational_agent_is_coherent_with_itself(domain: Domain, task: InferenceTask) -> None:
    bayesian = bayesian_evaluation(RATIONAL, domain, task)
    assert bayesian.pearson == pytest.approx(1.0)
    assert bayesian.spearman == pytest.approx(1.0)
    assert bayesian.items == ITEM_COUNTS[task]
    assert bayesian.pairs == ITEM_COUNTS[task] * len(answers(items(domain, task)[0]))
    result = validity(RATIONAL, domain, task)
    assert result.share == 1.0
    # DI: with the same contents believed in both places and the far one chosen, no desire
    # explains the action (9 x 3 x 1 = 27 items); BI and BDI can always explain it.
    inexplicable = 27 if task == "DI" else 0
    assert (result.explicable, result.items) == (
        ITEM_COUNTS[task] - inexplicable,
        ITEM_COUNTS[task],
    )
    agreement = rational_agreement(RATIONAL, domain, task)
    assert agreement.pearson == pytest.approx(1.0)


@pytest.mark.parametrize("task", TASKS)
def test_rational_agent_is_consistent_across_domains(task: Task) -> None:
    consistency = cross_domain_consistency(RATIONAL, task)
    assert consistency.pearson == pytest.approx(1.0)
    assert consistency.spearman == pytest.approx(1.0)
    assert consistency.items == ITEM_COUNTS[task]


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("task", INFERENCE_TASKS)
def test_random_agent_is_incoherent(domain: Domain, task: InferenceTask) -> None:
    bayesian = bayesian_evaluation(RANDOM, domain, task)
    assert abs(bayesian.pearson) < 0.3
    assert abs(bayesian.spearman) < 0.3
    assert validity(RANDOM, domain, task).share < 0.8
    assert abs(rational_agreement(RANDOM, domain, task).pearson) < 0.3


@pytest.mark.parametrize("task", TASKS)
def test_random_agent_is_inconsistent_across_domains(task: Task) -> None:
    assert abs(cross_domain_consistency(RANDOM, task).pearson) < 0.3


def test_metrics_skip_missing_items() -> None:
    empty = bayesian_evaluation({}, "movie", "BI")
    assert (empty.items, empty.pairs) == (0, 0)
    assert math.isnan(empty.pearson)
    assert math.isnan(validity({}, "movie", "BI").share)
    # Inferences without their forward items are left out, not guessed.
    inferences_only = {key: value for key, value in RATIONAL.items() if "/AP/" not in key}
    assert bayesian_evaluation(inferences_only, "container", "DI").items == 0
    movie_only = {key: value for key, value in RATIONAL.items() if key.startswith("movie/")}
    assert cross_domain_consistency(movie_only, "AP").items == 0


# ---------------------------------------------------------------------------- statistics


def test_pearson_and_spearman_known_values() -> None:
    xs, ys = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 5.0, 4.0, 5.0]
    # Deviations (-2, -1, 0, 1, 2) and (-2, 0, 1, 0, 1): 6 / sqrt(10 x 6).
    assert pearson(xs, ys) == pytest.approx(6 / math.sqrt(60))
    # Ranks of ys with ties averaged: (1, 2.5, 4.5, 2.5, 4.5); 7 / sqrt(10 x 9).
    assert ranks(ys) == [1.0, 2.5, 4.5, 2.5, 4.5]
    assert spearman(xs, ys) == pytest.approx(7 / math.sqrt(90))
    assert pearson(xs, [-x for x in xs]) == pytest.approx(-1.0)
    # Spearman sees only order: any increasing transform correlates perfectly.
    assert spearman(xs, [math.exp(x) for x in xs]) == 1.0
    assert pearson(xs, [math.exp(x) for x in xs]) < 1.0
    assert ranks([3.0, 3.0, 3.0]) == [2.0, 2.0, 2.0]


def test_degenerate_correlations() -> None:
    assert math.isnan(pearson([0.1, 0.1, 0.1], [1.0, 2.0, 3.0]))
    assert math.isnan(spearman([1.0, 2.0, 3.0], [0.5, 0.5, 0.5]))
    assert math.isnan(pearson([1.0], [2.0]))
    assert math.isnan(spearman([], []))
    with pytest.raises(ValueError):
        pearson([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        pearson([1.0, math.nan], [1.0, 2.0])
    with pytest.raises(ValueError):
        spearman([1.0, 2.0, 3.0], [1.0, 2.0])
