"""The sealed reference: every expected value is fixed before the implementation is given a case, the oracle's
files are digested and compared with the installed RECORD and at the end of the run, a swapped compiled cache
is refused, and the implementation's worker process holds nothing of the oracle but the protocol."""
import base64
import hashlib
import importlib
import json
import marshal
import os
import sys
from pathlib import Path

import pytest

from ovk_cli import cli
from ovk_conform import fresh, run, seal
from ovk_conform.hosts import InProcessHost, WorkerHost
from ovk_conform.manifest import IntegrityError

ADVERSARIES = Path(__file__).parent / "adversaries"


class RecordingHost(InProcessHost):
    """ovk_ref, logging when it is asked to declare and to compute."""

    def __init__(self, log):
        import ovk_ref
        super().__init__(ovk_ref)
        self.log = log

    def declare(self):
        self.log.append("declare")
        return super().declare()

    def call(self, case, limit=None, warm_up=True):
        self.log.append("call")
        return super().call(case, limit, warm_up)


def test_every_expected_value_is_fixed_before_the_first_case_is_sent(monkeypatch):
    log = []
    reference = fresh.reference_case

    def logged(*args, **kwargs):
        log.append("reference")
        return reference(*args, **kwargs)
    monkeypatch.setattr(fresh, "reference_case", logged)
    report = run(host=RecordingHost(log), level="quick", seed=4, fuzz=5, algorithms=("onorma",))
    assert report.passed and log.count("reference") == 5
    last_reference = max(index for index, entry in enumerate(log) if entry == "reference")
    assert log[0] == "declare" and last_reference < log.index("call")


def test_the_seal_names_a_file_changed_added_or_removed_during_the_run(tmp_path, monkeypatch):
    for package in seal.PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "module.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(seal, "_package_folder", lambda name: tmp_path / name)
    monkeypatch.setattr(seal, "import_reference", lambda: None)
    sealed = seal.Seal()
    assert sealed.changes("during the run") is None and sealed.account()["files"] == 2
    (tmp_path / "ovk_ref" / "module.py").write_text("VALUE = 2\n")
    (tmp_path / "ovk_conform" / "extra.py").write_text("")
    (tmp_path / "ovk_conform" / "module.py").unlink()
    assert sealed.changes("during the run") == ("the oracle's files changed during the run: changed ovk_ref/module.py; "
                                                "removed ovk_conform/module.py; added ovk_conform/extra.py")


def test_installed_files_that_differ_from_the_record_refuse_to_start(tmp_path, monkeypatch):
    (tmp_path / "ovk_ref").mkdir()
    (tmp_path / "ovk_conform").mkdir()
    (tmp_path / "ovk_ref" / "onorma.py").write_text("edited after installation\n")
    monkeypatch.setattr(seal, "_package_folder", lambda name: tmp_path / name)
    monkeypatch.setattr(seal, "import_reference", lambda: None)
    installed = hashlib.sha256(b"as installed\n").hexdigest()
    monkeypatch.setattr(seal, "record_hashes", lambda: {"ovk_ref/onorma.py": installed})
    with pytest.raises(IntegrityError, match="differ from the distribution's RECORD: changed ovk_ref/onorma.py"):
        seal.Seal()
    monkeypatch.setattr(seal, "record_hashes",
                        lambda: {"ovk_ref/onorma.py": hashlib.sha256(b"edited after installation\n").hexdigest()})
    assert seal.Seal().checked_against.startswith("equal to the installed distribution's RECORD")


def test_record_hashes_are_read_as_pip_writes_them(monkeypatch):
    class Entry:
        parts = ("ovk_ref", "onorma.py")
        hash = type("Hash", (), {"mode": "sha256",
                                 "value": base64.urlsafe_b64encode(hashlib.sha256(b"x").digest()).rstrip(b"=").decode()})

    class Distribution:
        files = [Entry()]
    monkeypatch.setattr(seal.importlib.metadata, "distribution", lambda name: Distribution())
    assert seal.record_hashes() == {"ovk_ref/onorma.py": hashlib.sha256(b"x").hexdigest()}


def test_a_swapped_compiled_cache_is_refused(tmp_path, monkeypatch):
    package = tmp_path / "sealed_package"
    package.mkdir()
    source = package / "__init__.py"
    source.write_text("ANSWER = 42\n")
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.parent.mkdir()
    status = os.stat(source)
    header = (importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + int(status.st_mtime).to_bytes(4, "little")
              + status.st_size.to_bytes(4, "little"))
    # the cache of another source, stamped with this source's mtime and size: Python loads it
    cached.write_bytes(header + marshal.dumps(compile("ANSWER = 41\n", str(source), "exec")))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    module = importlib.import_module("sealed_package")
    try:
        assert module.ANSWER == 41          # the swapped code runs under the unchanged source
        monkeypatch.setattr(seal, "PACKAGES", ("sealed_package",))
        assert seal.compiled_cache_mismatches() == [str(cached)]
        cached.write_bytes(header + marshal.dumps(compile(source.read_bytes(), str(source), "exec", dont_inherit=True)))
        assert seal.compiled_cache_mismatches() == []
    finally:
        del sys.modules["sealed_package"]


def test_the_oracle_as_installed_here_is_sealed_and_unchanged_by_a_run(tmp_path):
    path = tmp_path / "report.json"
    assert cli.main(["conform", "ovk_fast", "--level", "quick", "--fuzz", "2", "--json", str(path)]) == 0
    account = json.loads(path.read_text())["seal"]
    assert account["failure"] is None and account["files"] > 50 and len(account["digest"]) == 64


def test_the_worker_process_loads_nothing_of_the_oracle_but_the_protocol(tmp_path, monkeypatch):
    (tmp_path / "reports_its_modules.py").write_text(
        "import sys\n"
        "def conformance_scope():\n"
        "    return {'algorithms': {'onorma': {}}, 'modules': sorted(name for name in sys.modules\n"
        "                                                        if name.startswith(('proofs_check', 'ovk')))}\n"
        "def onorma(*args, **kwargs):\n"
        "    raise NotImplementedError\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    with WorkerHost("reports_its_modules") as host:
        declaration = host.declare()
    assert declaration.scope["modules"] == []      # the protocol's two modules are loaded beside, not imported
