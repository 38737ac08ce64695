"""Scorers and metrics of tom-eval's tasks."""
