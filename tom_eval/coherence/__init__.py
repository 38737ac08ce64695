"""Coherence of action prediction and mental-state inference (Muchovej, Lee, Royka and
Jara-Ettinger): a model with a causal model of other minds predicts actions from beliefs,
desires and world states, and its inferences of beliefs and desires from an action should be
the Bayesian inversion of those predictions. Two logically equivalent domains (ContainerWorld,
MovieWorld) enumerate every configuration, so each item's answer is a distribution.

The engine is Inspect-free: `worlds` (items and the isomorphism), `prompts` (the paper's
prompts and JSON schemas), `rational` (the reference agent and the exact inversion),
`metrics` (the paper's evaluations over distributions keyed by item id), `parsing`
(a distribution from next-token probabilities, every answer scored exactly), `agents`
(the reference agents as language models) and `prior`. The Inspect layer: `dataset`,
`solver`, `players` (the `tom/rational` and `tom/random-agent` providers) and `report`."""
