"""ovk_experiments: the paper's experiments (Figures 1-2, Table 3) rerun on data that installs with the project.

Protocol and every choice the paper leaves open: spec E30 and ``ovk_experiments.experiments.settings``.
Entry point: ``ovk-check reproduce`` (``ovk_cli/commands/reproduce.py``).
"""
