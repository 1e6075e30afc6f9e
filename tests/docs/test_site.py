"""The documentation site (mkdocs.yml, tools/docs_site.py) builds with every warning an error, its internal links
resolve, and in a real headless browser (Debian's Chromium) its formulas are typeset and a notebook's figure is drawn.

The build executes the first walkthrough notebook (the others are rendered unexecuted here: tests/notebooks executes
them all). The build's log and the browser's screenshots are kept as artefacts in ``$OVK_ARTEFACTS`` (default:
``ovk-artefacts`` in the system's temporary folder; the test prints where).
"""
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the module's build runs in its first test (a notebook executed, the references generated): minutes on a loaded
#: machine, beyond the suite's limit per test (pyproject)
pytestmark = pytest.mark.timeout(1800)
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
#: the notebook the test build executes; the page and the figure the browser checks
EXECUTED = "notebooks/01_kernels.html"
ARTEFACTS = Path(os.environ.get("OVK_ARTEFACTS", Path(tempfile.gettempdir()) / "ovk-artefacts"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built into a temporary folder: (its folder, the build's log)."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -c constraints.txt -e \".[test]\"")
    folder = tmp_path_factory.mktemp("site") / "site"
    environment = {**os.environ, "OVK_DOCS_EXECUTE_IGNORE": "notebooks/0[2-9]_*.py", "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=900)
    log = done.stdout + done.stderr
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    (ARTEFACTS / "site-build.log").write_text(log)
    assert done.returncode == 0, log[-6000:]
    return folder, log


def test_the_site_builds_strictly_with_every_page(site):
    folder, log = site
    assert not re.search(r"^(WARNING|ERROR)", log, flags=re.MULTILINE), log
    for page in ("index.html", "changelog.html", "tutorials/check-the-paper.html", "reference/cli.html",
                 "reference/python.html", EXECUTED, "notebooks/06_monorma_guarantees.html", "verdicts.html"):
        assert (folder / page).is_file(), page
    cli_page = (folder / "reference/cli.html").read_text()
    assert all(f"ovk-check {command}" in cli_page for command in ("verify", "conform", "certify-theorem2"))
    assert "assert_conforms" in (folder / "reference/python.html").read_text()
    assert "What changed for users" not in (folder / "index.html").read_text()


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        for name in ("href", "src"):
            if attributes.get(name) and tag in ("a", "img", "link", "script"):
                self.targets.append(attributes[name])


def broken_links(folder: Path) -> list[str]:
    """The links of the built pages to a file of the site that does not exist."""
    broken = []
    for page in folder.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for target in parser.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or not parts.path or target.startswith(("data:", "#")):
                continue
            base = folder if parts.path.startswith("/") else page.parent   # 404.html links from the site's root
            if not (base / unquote(parts.path).lstrip("/")).exists():
                broken.append(f"{page.relative_to(folder)}: {target}")
    return broken


def test_every_internal_link_of_the_site_resolves(site):
    folder, _ = site
    assert broken_links(folder) == []


def test_a_broken_internal_link_is_caught(tmp_path):
    """Planted: a page linking to a page and an image that the site does not have."""
    (tmp_path / "a.html").write_text('<a href="b.html#x">b</a><a href="missing.html">m</a><img src="img/no.png">'
                                     '<a href="https://example.org/">out</a>')
    (tmp_path / "b.html").write_text("<p>b</p>")
    assert sorted(broken_links(tmp_path)) == ["a.html: img/no.png", "a.html: missing.html"]


#: run in the page by the browser: how many formulas KaTeX typeset (and failed to), how many figures were drawn
PROBE = """<!doctype html><meta charset="utf-8"><pre id="result">pending</pre>
<iframe id="page" src="PAGE" width="1280" height="2000"></iframe>
<script>
document.getElementById("page").addEventListener("load", () => setTimeout(() => {
  const page = document.getElementById("page").contentDocument;
  const figures = [...page.querySelectorAll("img")].filter(image => image.src.startsWith("data:image/png"));
  document.getElementById("result").textContent = JSON.stringify({
    formulas: page.querySelectorAll(".katex").length, errors: page.querySelectorAll(".katex-error").length,
    figures: figures.length, drawn: figures.filter(image => image.complete && image.naturalWidth > 0).length});
}, 3000));
</script>"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


def _serve(folder: Path):
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _chromium(*arguments, timeout=180) -> str:
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-dev-shm-usage", "--virtual-time-budget=15000", *arguments],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (Debian: apt-get install chromium)")
@pytest.mark.parametrize("page, figures", [("tutorials/check-the-paper.html", False), (EXECUTED, True)])
def test_formulas_and_a_notebook_figure_render_in_a_browser(site, page, figures):
    folder, _ = site
    (folder / "probe.html").write_text(PROBE.replace("PAGE", page))
    server = _serve(folder)
    try:
        dom = _chromium("--dump-dom", f"http://127.0.0.1:{server.server_port}/probe.html")
        result = json.loads(re.search(r'<pre id="result">(.*?)</pre>', dom, flags=re.DOTALL).group(1))
        screenshot = ARTEFACTS / f"site-{Path(page).stem}.png"
        _chromium(f"--screenshot={screenshot}", "--window-size=1280,1800",
                  f"http://127.0.0.1:{server.server_port}/{page}")
    finally:
        server.shutdown()
        server.server_close()
        (folder / "probe.html").unlink()
    print(f"screenshot: {screenshot}")
    assert result["formulas"] > 5 and result["errors"] == 0, result
    if figures:
        assert result["figures"] >= 1 and result["drawn"] == result["figures"], result
    assert screenshot.stat().st_size > 10_000
