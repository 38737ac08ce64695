"""The Ask/Tell/Pass game: player A watches objects put into and moved between containers
while players come and go, then chooses the action (Pass, Ask, Tell) that best helps its
team, given what each player knows, believes or cannot know.

Inspect-free core, modelled as OpenSpiel models imperfect-information games: `world`
(ground truth and events), `epistemics` (the observer: the only path from the world to
what A perceives), `rules`, `decisions` (the value of every legal action), `oracle`
(`solve`: everything for one scenario), `narration`, `spec` and `mastery` (the spec table
and the mastery categories), `generation`, `validation`, `scenario_file` and `checking`;
`turn` (one turn: legal actions, apply-action, returns), `trial` (one turn as a
conversation), `full_game` and `session` (whole games); `prompts` and `parsing`.

Inspect side: `dataset`, `solver` (one turn, or whole games), `players` (the reference
players `tom/...`), and `report` with its `analysis` and `charts` (the game's section of
`tom-eval report`)."""
