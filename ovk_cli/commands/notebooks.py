"""``ovk-check notebooks``: execute the walkthrough notebooks and write them, with outputs, as HTML.

The notebooks are jupytext percent scripts (``notebooks/NN_name.py`` in a source checkout, installed with
the package as ``ovk_cli/walkthroughs/``). Each is converted with jupytext, run top to bottom with
nbclient in its own folder, and exported with nbconvert. Needs the ``notebooks`` extra. The kernel talks to
nbclient over local sockets (IPC) where the platform has them, so it has no unencrypted TCP port to warn about.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ovk_cli.errors import UsageError
from ovk_ref import atomic_file

#: the notebooks installed with the package (in a checkout, ovk_cli/walkthroughs links to notebooks/)
PACKAGED_SOURCE = Path(__file__).resolve().parents[1] / "walkthroughs"
#: the packaged notebooks, else the notebooks folder of a source checkout (a checkout without symbolic links)
DEFAULT_SOURCE = PACKAGED_SOURCE if PACKAGED_SOURCE.is_dir() else Path(__file__).resolve().parents[2] / "notebooks"
#: notebook files are numbered percent scripts; helper modules beside them are not notebooks
PATTERN = "[0-9][0-9]_*.py"
INSTALL_HINT = 'pip install "ovk[notebooks]"'


def register(subparsers) -> None:
    parser = subparsers.add_parser("notebooks", help="execute the walkthrough notebooks and render them to HTML")
    parser.add_argument("--out", type=Path, required=True, help="folder for the HTML files (created if missing)")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                        help=f"folder of the jupytext percent scripts {PATTERN} (default: {DEFAULT_SOURCE})")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")
    parser.set_defaults(run=run)


def notebook_paths(source: Path) -> list[Path]:
    """The numbered notebooks in ``source``, in order; ValueError when there are none."""
    if not source.is_dir():
        raise UsageError(f"--source must be a folder holding the notebooks {PATTERN}, got {source} "
                         "(the default is the notebooks installed with the package, or the notebooks/ folder of "
                         "a source checkout)")
    paths = sorted(source.glob(PATTERN))
    if not paths:
        raise UsageError(f"--source {source} holds no notebook named {PATTERN}")
    return paths


def run(args) -> int:
    paths = notebook_paths(args.source)
    if args.timeout < 1:
        raise UsageError(f"--timeout must be >= 1 second, got {args.timeout}")
    try:
        import jupytext
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
        from nbconvert import HTMLExporter
    except ImportError as error:
        print(f"ovk-check notebooks: error: the notebooks extra is missing ({error}); "
              f"install it with: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from traitlets.config import Config
    args.out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter()
    failures = []
    for path in paths:
        notebook = jupytext.read(path)
        with tempfile.TemporaryDirectory() as sockets:
            transport = {"transport": "ipc", "ip": os.path.join(sockets, "kernel")} if os.name == "posix" else {}
            client = NotebookClient(notebook, timeout=args.timeout, kernel_name="python3",
                                    config=Config({"KernelManager": transport}),
                                    resources={"metadata": {"path": str(path.parent)}})
            try:
                client.execute()
            except CellExecutionError as error:
                failures.append(path.name)
                print(f"FAILED {path.name}:\n{error}", file=sys.stderr)
                continue
        html, _ = exporter.from_notebook_node(notebook)
        target = args.out / f"{path.stem}.html"
        atomic_file.write_text(target, html)
        print(f"wrote {target}")
    if failures:
        print(f"{len(failures)} notebook(s) failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0
