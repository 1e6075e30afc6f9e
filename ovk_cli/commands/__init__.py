"""Sub-commands of ``ovk-check``; each module has ``register(subparsers)`` that adds its parser
with ``set_defaults(run=function)``, where ``function(args) -> int`` is the exit code."""
