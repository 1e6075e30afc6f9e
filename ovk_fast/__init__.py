"""ovk_fast: a vectorised numpy engine for ONORMA, MONORMA and batch ridge, with ovk_ref's signatures and records.

It passes ``ovk-check conform ovk_fast`` (the golden vectors of ``ovk_conform``) and is
compared with ``ovk_ref`` by property tests. float64 only.
"""
from ovk_fast.batch import batch_ridge
from ovk_fast.monorma import monorma
from ovk_fast.onorma import onorma

__all__ = ["onorma", "monorma", "batch_ridge"]
