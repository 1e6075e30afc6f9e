"""The tutorials' code does what their text says (docs/tutorials/): the ten-line engine of "Certify your engine"
passes the oracle's quick level, and the off-by-one the tutorial plants makes it fail."""
import re
import types
from pathlib import Path

import ovk_conform

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "certify-your-engine.md"


def tutorial_engine(edit=lambda source: source) -> types.ModuleType:
    """The tutorial's ``my_engine.py`` as a module, its source passed through ``edit`` first."""
    source = re.search(r"```python\n(# my_engine\.py.*?)```", TUTORIAL.read_text(encoding="utf-8"), re.DOTALL).group(1)
    module = types.ModuleType("my_engine")
    exec(compile(edit(source), "my_engine.py", "exec"), module.__dict__)   # noqa: S102 - the page's own code
    return module


def test_the_tutorial_engine_conforms_at_the_quick_level():
    report = ovk_conform.run(tutorial_engine(), level="quick", seed=1)
    assert report.passed, [outcome.case for outcome in report.outcomes if outcome.status == "fail"]
    assert any(outcome.status == "pass" and outcome.algorithm == "onorma" for outcome in report.outcomes)


def test_the_off_by_one_the_tutorial_plants_is_caught():
    def off_by_one(source):
        assert "eta / np.sqrt(t + 1)" in source
        return source.replace("eta / np.sqrt(t + 1)", "eta / np.sqrt(t + 2)")
    report = ovk_conform.run(tutorial_engine(off_by_one), level="quick", seed=1)
    assert not report.passed
    failed = [outcome for outcome in report.outcomes if outcome.status == "fail"]
    assert failed and failed[0].diverging_field == "predictions" and failed[0].diverging_round is not None
