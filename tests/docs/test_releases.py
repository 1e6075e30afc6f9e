"""Releases (docs/releasing.md): one version everywhere it is named, a changelog in the form of Keep a Changelog
built by towncrier from the news fragments of changelog.d/, and a README whose every link resolves."""
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import ovk_ref
from ovk_cli import cli

ROOT = Path(__file__).resolve().parents[2]
#: the kinds of news fragment, the sections of Keep a Changelog that the project uses
KINDS = ("added", "changed", "removed", "fixed")
FRAGMENT_NAME = re.compile(rf"^[1-9]\d*\.({'|'.join(KINDS)})(\.[2-9]|\.[1-9]\d+)?\.md$")
#: files of changelog.d/ that are not fragments (towncrier's `ignore`)
NOT_FRAGMENTS = ("README.md",)
RELEASE_HEADING = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$")
KEEP_A_CHANGELOG_SECTIONS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def fragment_problems(directory: Path) -> list[str]:
    """The files of ``directory`` that towncrier would not read as a news fragment of a known kind."""
    return [path.name for path in sorted(directory.iterdir())
            if path.name not in NOT_FRAGMENTS and not FRAGMENT_NAME.match(path.name)]


def releases(changelog: str) -> list[tuple]:
    """``[((major, minor, patch), date), ...]`` in the order of the released sections of ``changelog``."""
    matches = [RELEASE_HEADING.match(line) for line in changelog.splitlines()]
    return [(tuple(int(part) for part in match.groups()[:3]), match.group(4)) for match in matches if match]


def test_the_version_is_named_once_and_everything_agrees(capsys):
    """pyproject reads ovk_ref.__version__; the installed metadata (what reports record) and --version agree."""
    tomllib = pytest.importorskip("tomllib")   # Python 3.11 on
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ovk_ref.__version__"}
    assert metadata.version("ovk") == ovk_ref.__version__, (
        "the installed metadata names another version: reinstall, pip install -c constraints.txt -e \".[test]\"")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.split()[:2] == ["ovk-check", ovk_ref.__version__]


def test_the_changelog_has_the_form_of_keep_a_changelog():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [line for line in changelog.splitlines() if line.startswith("## ")]
    assert headings[0] == "## [Unreleased]"
    assert all(RELEASE_HEADING.match(heading) for heading in headings[1:]), headings
    assert changelog.index("<!-- towncrier release notes start -->") < changelog.index(headings[1])
    found = releases(changelog)
    assert found and [version for version, _ in found] == sorted((version for version, _ in found), reverse=True)
    assert [date for _, date in found] == sorted((date for _, date in found), reverse=True)
    sections = {line[4:] for line in changelog.splitlines() if line.startswith("### ")}
    assert sections <= set(KEEP_A_CHANGELOG_SECTIONS), sections


def test_the_version_is_released_or_the_next_one():
    """The version is the newest release's, or a later one whose section the fragments will make."""
    newest = releases((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))[0][0]
    version = tuple(int(part) for part in ovk_ref.__version__.split("."))
    assert version >= newest


def test_every_news_fragment_is_named_for_towncrier():
    assert fragment_problems(ROOT / "changelog.d") == []


def test_a_misnamed_fragment_is_caught(tmp_path):
    """Planted: fragments of an unknown kind, without an issue, or with a counter of 1 or no extension."""
    for name in ("36.added.md", "36.added.2.md", "36.feature.md", "added.md", "36.added.1.md", "36.fixed", "README.md"):
        (tmp_path / name).write_text("x\n")
    assert fragment_problems(tmp_path) == ["36.added.1.md", "36.feature.md", "36.fixed", "added.md"]


@pytest.mark.skipif(shutil.which("towncrier", path=str(Path(sys.executable).parent)) is None,
                    reason="towncrier is in the test extra: pip install -c constraints.txt -e \".[test]\"")
def test_towncrier_drafts_the_next_section_from_every_fragment():
    """The draft (which writes nothing) has the release heading and every fragment's text under its kind."""
    towncrier = shutil.which("towncrier", path=str(Path(sys.executable).parent))
    done = subprocess.run([towncrier, "build", "--draft", "--version", "9.9.9"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    draft = done.stdout
    fragments = [path for path in (ROOT / "changelog.d").iterdir() if path.name not in NOT_FRAGMENTS]
    if not fragments:
        assert "No significant changes" in draft
        return
    assert re.search(r"^## \[9\.9\.9\] - \d{4}-\d{2}-\d{2}$", draft, flags=re.MULTILINE), draft
    flat = " ".join(draft.split())
    for path in fragments:
        kind = path.name.split(".")[1]
        section = flat.split(f"### {kind.capitalize()}", 1)[1].split("###", 1)[0]
        assert " ".join(path.read_text(encoding="utf-8").split()) in section, path.name


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file, or whose ``#anchor`` in a Markdown file, does not exist."""
    broken = []
    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path = (page.parent / target) if target else page
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md":
            text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
            anchors = {_slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}
            if anchor not in anchors:
                broken.append(f"{target}#{anchor}")
    return broken


@pytest.mark.parametrize("page", ["README.md", "CHANGELOG.md", "docs/releasing.md"])
def test_every_link_of_the_front_pages_resolves_anchors_included(page):
    assert broken_links(ROOT / page) == []


def test_a_broken_link_or_anchor_is_caught(tmp_path):
    """Planted: a link to a missing file and one to a heading that the target does not have."""
    (tmp_path / "target.md").write_text("# Title\n\n## Prop. 2(iv) corrected: the tight bound\n")
    page = tmp_path / "page.md"
    page.write_text("[a](target.md#prop-2iv-corrected-the-tight-bound) [b](missing.md) [c](target.md#nowhere)\n")
    assert broken_links(page) == ["missing.md", "target.md#nowhere"]


def test_the_readme_keeps_no_history():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"^## .*(changed|changelog|release|history)", readme, flags=re.MULTILINE | re.IGNORECASE)
    assert "(CHANGELOG.md)" in readme
