"""Inspect tasks of tom-eval: thin files, parameters in, Task out."""
