"""MkDocs hooks of the documentation site (mkdocs.yml; docs/releasing.md says how the site is built).

The site is built from docs/ as it is; this module adds the pages that live elsewhere or are generated at build
time, so that nothing is copied into the repository:

* ``index.md`` from README.md and ``changelog.md`` from CHANGELOG.md, their links rewritten for the site;
* ``notebooks/NN_*.py``: the walkthrough notebooks (jupytext percent scripts), which mkdocs-jupyter executes and
  renders with their figures;
* ``reference/cli.md``: every sub-command's ``--help``, from the argparse parsers of ``ovk_cli.cli``;
* ``repository/PATH``: a file outside docs/ that a page links to (``../tools/x.json``), served as it is.

A link out of docs/ is rewritten to its ``repository/`` copy, so MkDocs checks it like any other (``strict``).
"""
from __future__ import annotations

import argparse
import io
import os
import posixpath
import re
from contextlib import redirect_stdout
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
#: the walkthrough notebooks rendered as pages (walkthrough_display.py is their helper module, not a notebook)
NOTEBOOKS = "notebooks/[0-9][0-9]_*.py"
#: where files outside docs/ that a page links to are served
REPOSITORY = "repository"
#: pages made from files outside docs/: their site path and their path in the repository
OUTSIDE_PAGES = {"index.md": "README.md", "changelog.md": "CHANGELOG.md"}
LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")


def _site_target(target: str, source: str) -> str | None:
    """Where the relative link ``target`` of the repository file ``source`` points on the site (a path relative to
    the page), or None when it needs no rewriting (an absolute address, or a file inside docs/)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
        return None
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    page_dir = posixpath.dirname(_site_path(source))
    if resolved.startswith("docs/"):
        site = resolved.removeprefix("docs/")
    elif resolved in OUTSIDE_PAGES.values():
        site = next(page for page, path in OUTSIDE_PAGES.items() if path == resolved)
    elif resolved == "notebooks":
        site = "notebooks/index.md"
    else:
        site = f"{REPOSITORY}/{resolved}"
    return posixpath.relpath(site, page_dir or ".")


def _site_path(source: str) -> str:
    """The site path of the repository file ``source`` (docs/x.md is x.md; README.md is index.md)."""
    if source.startswith("docs/"):
        return source.removeprefix("docs/")
    if re.fullmatch(NOTEBOOKS.replace("[0-9]", r"\d").replace("*", ".*"), source):
        return source
    return next((page for page, path in OUTSIDE_PAGES.items() if path == source), f"{REPOSITORY}/{source}")


def rewrite_links(markdown: str, source: str) -> str:
    """``markdown`` of the repository file ``source`` with every relative link pointing where the site has it."""
    def replace(match):
        target = _site_target(match.group(2), source)
        return match.group(0) if target is None else f"{match.group(1)}{target}{match.group(3)}"
    return LINK.sub(replace, markdown)


def outside_targets(markdown: str, source: str) -> set[str]:
    """The repository paths outside docs/ (and other than README and CHANGELOG) that ``markdown`` links to."""
    found = set()
    for target in LINK.findall(markdown):
        site = _site_target(target[1], source)
        if site is not None:
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), target[1]))
            if not resolved.startswith("docs/") and resolved not in OUTSIDE_PAGES.values() and resolved != "notebooks":
                found.add(resolved)
    return found


def cli_reference() -> str:
    """The command-line reference: ``ovk-check --help`` and every sub-command's, as argparse prints them."""
    os.environ["COLUMNS"] = "100"   # argparse wraps to the terminal: the same page on every machine
    from ovk_cli import cli
    parser = cli.build_parser()
    parts = ["# Command-line reference", "",
             "Generated from the argparse parsers of `ovk_cli` when the site is built: what `ovk-check --help` and "
             "`ovk-check COMMAND --help` print. Exit codes and what each command is for: "
             "[the guide](../guide.md#the-commands).", "", "## ovk-check", "", "```text", parser.format_help().rstrip(),
             "```", ""]
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    for name, subparser in commands.choices.items():
        parts += [f"## ovk-check {name}", "", "```text", subparser.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def notebooks_index(paths: list[Path]) -> str:
    lines = ["# Walkthrough notebooks", "",
             "Six walkthroughs, executed when the site is built: every cell asserts what it shows, so a page here is "
             "a story that still holds. Their sources are jupytext percent scripts in `notebooks/` (installed with "
             "the package: `ovk-check notebooks --out DIR` renders them to HTML).", ""]
    for path in paths:
        title = _notebook_title(path)
        lines.append(f"- [{title}]({path.name})")
    return "\n".join(lines) + "\n"


def _notebook_title(path: Path) -> str:
    heading = re.search(r"^# # (.+)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return heading.group(1).strip() if heading else path.stem


def on_config(config):
    """The notebooks import their helper module (notebooks/walkthrough_display.py): the kernels mkdocs-jupyter
    starts to execute them find it on their path."""
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "notebooks"), os.environ.get("PYTHONPATH")]))
    return config


@event_priority(50)   # before mkdocs-jupyter's on_files, which turns the notebooks into pages
def on_files(files, config):
    """Add the pages and files that do not live in docs/."""
    for page, source in OUTSIDE_PAGES.items():
        text = rewrite_links((ROOT / source).read_text(encoding="utf-8"), source)
        files.append(File.generated(config, page, content=text))
    notebooks = sorted(ROOT.glob(NOTEBOOKS))
    for path in notebooks:   # a File of the repository's folder (mkdocs-jupyter reads it through src_dir)
        files.append(File(f"notebooks/{path.name}", src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    files.append(File.generated(config, "notebooks/index.md", content=notebooks_index(notebooks)))
    with redirect_stdout(io.StringIO()):
        files.append(File.generated(config, "reference/cli.md", content=cli_reference()))
    served, pending = set(), {Path(file.abs_src_path).relative_to(ROOT).as_posix() for file in files
                              if file.src_uri.endswith(".md") and file.abs_src_path
                              and Path(file.abs_src_path).is_relative_to(ROOT)} | set(OUTSIDE_PAGES.values())
    while pending:   # the files outside docs/ that a page links to, and those that they link to, and so on
        source = pending.pop()
        for path in sorted(outside_targets((ROOT / source).read_text(encoding="utf-8"), source) - served):
            if (ROOT / path).is_file():
                served.add(path)
                files.append(File.generated(config, f"{REPOSITORY}/{path}", abs_src_path=str(ROOT / path)))
                if path.endswith(".md"):
                    pending.add(path)
    return files


def on_page_markdown(markdown, page, config, files):
    """Links out of docs/ point at their ``repository/`` copies (README and CHANGELOG were rewritten in on_files;
    a notebook is not Markdown)."""
    path = page.file.abs_src_path
    if path and Path(path).is_relative_to(ROOT):
        return rewrite_links(markdown, Path(path).relative_to(ROOT).as_posix())
    return markdown


NOTEBOOK_HREF = re.compile(r'href="([^":#]+\.md)(#[^"]*)?"')


def on_post_page(output, page, config):
    """A notebook's Markdown links are written for the repository (``../docs/proofs.md``): point them at the pages
    the site has (``../proofs.html``)."""
    if not page.file.src_uri.endswith(".py"):
        return output

    def replace(match):
        target = _site_target(match.group(1), page.file.src_uri)
        if target is None:
            return match.group(0)
        target = target.removesuffix(".md") + (".html" if not config["use_directory_urls"] else "/")
        return f'href="{target}{match.group(2) or ""}"'
    return NOTEBOOK_HREF.sub(replace, output)
