"""The reference as a CI correctness oracle: golden vectors, regimes, fresh cases, hosts, a sealed reference.

``run(implementation, level=...)`` checks the stored cases of a level and fresh cases drawn from a seed inside
the scope the implementation declares; ``assert_conforms`` and ``parametrize_with_vectors`` put that into a
pytest suite; ``ovk-check conform MODULE[:ATTR]`` (or ``--command CMD``) runs an implementation in processes of
its own. The protocol is in ``protocol.py`` (Python) and ``wire.py`` (any language; JSON Schemas in
``schemas/``), the declared scope in ``scope.py``, the vector format in ``vectors.py``, the tolerance policy in
``tolerance.py``, the seal in ``seal.py``; ``python -m ovk_conform.generate`` regenerates the
vectors.
"""
from ovk_conform.manifest import load_cases
from ovk_conform.protocol import load_implementation
from ovk_conform.pytest_helpers import (
           assert_conforms,
           parametrize_with_vectors,
)
from ovk_conform.report import Outcome, Report
from ovk_conform.runner import check_case, run
from ovk_conform.scope import Scope
from ovk_conform.vectors import VECTORS_VERSION, Case

__all__ = ["run", "check_case", "assert_conforms", "parametrize_with_vectors", "load_cases", "load_implementation",
           "Case", "Outcome", "Report", "Scope", "VECTORS_VERSION"]
