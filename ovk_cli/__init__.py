"""ovk_cli: the ``ovk-check`` command line, the top layer (``entry_point``: the console script; ``cli``: the
argparse front and the exit statuses;
``commands``: one module per sub-command; ``parallel``, ``parent_watch``, ``interruption``, ``outputs``: where a run's
work runs, how it stops, where it writes). It imports ``proofs_check``, ``ovk_conform``, ``ovk_experiments`` and
``ovk_fast``; none of them imports it (the import-linter contract in pyproject.toml)."""
