"""Rooms with one purpose: no shipped module imports another module's private names, and no shipped name is used by
the tests alone (what only the tests use lives in tests/, e.g. tests/shared/). Each rule with a planted offence."""
import ast
import collections
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ovk_ref", "ovk_fast", "ovk_conform", "ovk_experiments", "proofs_check", "ovk_cli")
#: code outside the packages that uses them (a name used there is used)
OTHERS = ("tools", "notebooks", "benchmarks", "examples")
#: (importing module, imported module): the helpers of the stored cases, which the regimes build on (left private
#: while issue 33 rewrites the regimes' envelope: 144 call sites)
PRIVATE_IMPORTS_KEPT = {("ovk_conform/regimes.py", "ovk_conform.cases")}
#: names the tests alone call that are no test helpers: the learners' public ``predict_one`` (river's API), and claim
#: checks, which the ``@claim`` decorator registers
USED_BY_TESTS_ALONE = {"predict_one", "psd", "scalar_norma"}


def _shipped() -> list:
    return [path for package in PACKAGES for path in (ROOT / package).rglob("*.py")]


def private_imports(path: Path, source: str) -> list:
    """``from X import _name`` of a project module X in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGES):
            found += [(str(path), node.module, alias.name) for alias in node.names
                      if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


def _uses(paths) -> collections.Counter:
    counter = collections.Counter()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name):
                counter[node.id] += 1
            elif isinstance(node, ast.Attribute):
                counter[node.attr] += 1
            elif isinstance(node, ast.alias):
                counter[(node.asname or node.name).split(".")[-1]] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"[A-Za-z_]\w*", node.value):
                counter[node.value] += 1      # getattr(module, "name"), __all__
    return counter


def defined(source: str) -> list:
    """The module-level functions, classes (and their methods) and names a module defines."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
            if isinstance(node, ast.ClassDef):
                names += [item.name for item in node.body if isinstance(item, ast.FunctionDef) and not item.name.startswith("__")]
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
    return names


def used_by_tests_alone(shipped: list, others: list, tests: list) -> set:
    uses, test_uses = _uses(shipped + others), _uses(tests)
    return {name for path in shipped for name in defined(path.read_text()) if not uses[name] and test_uses[name]}


def test_no_module_imports_another_modules_private_names():
    found = [(path, module, name) for path in _shipped() for path, module, name in private_imports(path, path.read_text())]
    assert {(str(Path(path).relative_to(ROOT)), module) for path, module, _ in found} <= PRIVATE_IMPORTS_KEPT, found


def test_no_shipped_name_is_used_by_the_tests_alone():
    others = [path for folder in OTHERS for path in (ROOT / folder).rglob("*.py")]
    tests = list((ROOT / "tests").rglob("*.py"))
    assert used_by_tests_alone(_shipped(), others, tests) <= USED_BY_TESTS_ALONE


def test_planted_offences_are_found(tmp_path):
    assert private_imports(Path("m.py"), "from proofs_check.claims.monorma import _explicit_gammas\n") == [
        ("m.py", "proofs_check.claims.monorma", "_explicit_gammas")]
    shipped, tests = tmp_path / "shipped.py", tmp_path / "test_it.py"
    shipped.write_text("def helper():\n    return 1\n\n\ndef used():\n    return 2\n\n\nRESULT = used()\n")
    tests.write_text("from shipped import helper\n\n\ndef test_helper():\n    assert helper() == 1\n")
    assert used_by_tests_alone([shipped], [], [tests]) == {"helper"}
