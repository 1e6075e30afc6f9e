"""Every test is collected once: a test module that imports a test function (``from test_x import test_y``) makes
pytest collect it a second time, under the importing module; import the module and call ``test_x.test_y`` instead."""
import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def imported_tests(source: str) -> list[str]:
    """The names a module's ``from ... import`` statements bind that pytest would collect as tests."""
    return [alias.asname or alias.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)
            for alias in node.names if (alias.asname or alias.name).startswith(("test", "Test"))]


def test_no_test_module_imports_a_test_under_a_collected_name():
    found = {str(path.relative_to(TESTS)): names for path in sorted(TESTS.rglob("*.py"))
             if (names := imported_tests(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_an_imported_test_is_caught():
    """Planted: the import that made eight tests run twice (tests/ref/test_ref_learner_state.py, before)."""
    assert imported_tests("from test_ref_checkpoint import test_resumed, STATE\nimport test_ref_checkpoint\n"
                          "from x import TestCase as Base, helper\n") == ["test_resumed"]
