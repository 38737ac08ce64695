"""Inspect model providers that run in this process: the base every scripted or local
provider shares (`base`), people (`human`, `tom/human`), an unreliable API (`flaky`,
`tom/flaky`) and local GGUF models served by llama.cpp (`gguf`, `gguf/<name>`). The
reference players of each task live with their task (`<task>/players.py`)."""
