"""Every call the docs show (`` `ovk_ref.NAME.NAME(...)` ``) works as a reader types it: ``import ovk_ref`` and then
the dotted name, attribute by attribute (docs/guide.md showed ``ovk_ref.monorma.r_range(...)``, but
``ovk_ref.monorma`` is the function, and a new user got an AttributeError)."""
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ovk_ref", "ovk_fast", "ovk_conform", "proofs_check", "ovk_experiments")
CALL = re.compile(r"`((?:" + "|".join(PACKAGES) + r")(?:\.\w+)+)\(")


def resolves(name: str) -> bool:
    """Whether ``name`` is a callable reached attribute by attribute from its package, importing a submodule only
    where the package has no attribute of that name (``ovk_experiments.reproduce.reproduce``; a function that
    shadows its module, as ``ovk_ref.monorma`` does, has no ``r_range``)."""
    parts = name.split(".")
    value = importlib.import_module(parts[0])
    for index, attribute in enumerate(parts[1:], start=2):
        if not hasattr(value, attribute):
            try:
                importlib.import_module(".".join(parts[:index]))
            except ImportError:
                return False
        if not hasattr(value, attribute):
            return False
        value = getattr(value, attribute)
    return callable(value)


def test_every_call_the_docs_show_resolves_from_the_package_as_typed():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = {(page.name, match) for page in pages for match in CALL.findall(page.read_text(encoding="utf-8"))}
    assert shown, "no call found: the pattern no longer matches the docs"
    broken = sorted((page, name) for page, name in shown if not resolves(name))
    assert not broken, f"calls in the docs that fail as typed: {broken}"
