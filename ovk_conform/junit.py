"""The report as JUnit XML (``--junit FILE``), the format CI systems (GitLab, Jenkins, GitHub's test reporters)
display: one ``testcase`` per conformance case (``classname`` ``conform.<regime>``, ``name`` ``algorithm:id``),
a ``failure`` with the first divergence and the full message, ``skipped`` for a case outside the declared
scope or the precision class and for a known deviation; and three test cases for the run itself
(``run:seal``, ``run:coverage``, ``run:offered``, ``run:completed``) that fail when the oracle's files changed, the
declared scope does not cover ``--require``, the implementation offers what its declared scope leaves out (PARTIAL,
unless narrowed by ``--require`` or ``--allow-partial``: then said in its ``system-out``), or the run was stopped."""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from ovk_conform import envelope
from ovk_conform.report import Report


def _run_checks(report: Report) -> list:
    """(name, failure message or None) for the checks of the run as a whole."""
    return [("run:seal", report.seal_failure),
            ("run:coverage", "the declared scope lacks " + "; ".join(report.missing) if report.missing else None),
            ("run:offered", report.partial_failure),
            ("run:completed", report.stopped)]


def _properties(suite, report: Report) -> None:
    """The run's level, seed, precision class, scope, coverage, what it offers beyond its scope, the envelope."""
    properties = ElementTree.SubElement(suite, "properties")
    for name, value in (("level", report.level), ("seed", report.seed), ("precision", report.precision),
                        ("scope", report.scope.text() if report.scope else ""),
                        ("coverage", report.coverage.text() if report.coverage else ""),
                        ("precision_class", report.precision_line()), ("offered", report.offered_line() or ""),
                        ("envelope", "\n".join(envelope.coverage_lines(report.envelope)) if report.envelope else ""),
                        ("cannot_see", "; ".join(report.cannot_see))):
        ElementTree.SubElement(properties, "property", name=name, value=str(value))


def _run_checks_cases(suite, report: Report, checks) -> None:
    """A test case per check of the run as a whole (``run:offered`` narrowed: the PARTIAL line in its output)."""
    for name, message in checks:
        case = ElementTree.SubElement(suite, "testcase", classname="conform.run", name=name, time="0.000")
        if name == "run:offered" and message is None and report.partial:
            ElementTree.SubElement(case, "system-out").text = report.offered_line()
        if message is not None:
            ElementTree.SubElement(case, "failure", message=message[:200], type="conformance").text = message


def xml(report: Report) -> str:
    counts = report.counts()
    checks = _run_checks(report)
    failures = counts["fail"] + sum(message is not None for _, message in checks)
    tests = len(report.outcomes) + len(checks)
    skipped = counts["skip"] + counts["xfail"]
    seconds = f"{sum(outcome.seconds for outcome in report.outcomes):.3f}"
    suites = ElementTree.Element("testsuites", name="ovk-check conform", tests=str(tests), failures=str(failures),
                                 errors="0", skipped=str(skipped), time=seconds)
    suite = ElementTree.SubElement(suites, "testsuite", name=f"conform {report.implementation} ({report.level})",
                                   tests=str(tests), failures=str(failures), errors="0", skipped=str(skipped),
                                   time=seconds)
    _properties(suite, report)
    for outcome in report.outcomes:
        case = ElementTree.SubElement(suite, "testcase", classname=f"conform.{outcome.regime}", name=outcome.name,
                                      time=f"{outcome.seconds:.3f}")
        if outcome.status == "fail":
            summary = f"first divergence: {outcome.where}" if outcome.where else outcome.message[:200]
            ElementTree.SubElement(case, "failure", message=summary, type="conformance").text = outcome.message
        elif outcome.status == "skip":
            ElementTree.SubElement(case, "skipped", message=outcome.message)
        elif outcome.status == "xfail":
            ElementTree.SubElement(case, "skipped", message=f"known deviation: {outcome.known_deviation}").text = \
                outcome.message
        elif outcome.status == "xpass":
            ElementTree.SubElement(case, "system-out").text = (
                f"listed as a known deviation ({outcome.known_deviation}) but passes: remove it from the expectations")
    _run_checks_cases(suite, report, checks)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


def stopped(implementation: str, level: str, reason: str) -> str:
    """The JUnit XML of a run stopped before its report existed (Ctrl-C while the expected values were computed):
    one failing test case, ``run:completed``, with the reason, so that a CI system shows why there are no cases."""
    suites = ElementTree.Element("testsuites", name="ovk-check conform", tests="1", failures="1", errors="0",
                                 skipped="0", time="0.000")
    suite = ElementTree.SubElement(suites, "testsuite", name=f"conform {implementation} ({level})", tests="1",
                                   failures="1", errors="0", skipped="0", time="0.000")
    case = ElementTree.SubElement(suite, "testcase", classname="conform.run", name="run:completed", time="0.000")
    ElementTree.SubElement(case, "failure", message=reason[:200], type="conformance").text = reason
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
