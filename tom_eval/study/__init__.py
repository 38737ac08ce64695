"""The web study: people play the trials of tasks/tom.py in a browser (`tom-eval serve`),
and each participant's replies become an Inspect log (`tom-eval export`)."""
