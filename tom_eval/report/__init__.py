"""`tom-eval report`: reading Inspect logs into runs, the statistics and chart helpers,
and the writer of report.md. Each task contributes its own section (`<task>/report.py`)
through `section.Section`; nothing here imports a task package."""
