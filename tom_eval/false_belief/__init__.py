"""Kosinski's false-belief battery (PNAS 2024): Unexpected Contents and Unexpected Transfer
tasks, each a false-belief story, three true-belief controls and the reversed version of
all four, with a reality and a belief completion prompt per story. The core (`items`,
`generation`, `item_file`, `prompts`, `parsing`) is Inspect-free; the Inspect side is
`dataset`, `solver`, `players` and `report`."""
