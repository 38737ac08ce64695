"""Knowledge-state tasks of Yang et al., "Are LLMs Smarter Than Chimpanzees?" (2026): KNP
(knowledge-sensitive next-action prediction) and IKD (implausible knowledge detection), on
the authors' Act-on-Known data, which is downloaded at run time and never shipped.
The core (`records`, `source`, `manifest`, `prompts`, `parsing`) is Inspect-free; the
Inspect side is `dataset`, `players`, `metrics` and `report`."""
