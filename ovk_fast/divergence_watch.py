"""Divergence in the vectorised engine: the rows of each block of rounds are checked as ovk_ref checks each
round (``ovk_ref.divergence``: same fields, same test), so both engines report the same ``diverged_at``."""
from __future__ import annotations

from ovk_fast.literal_range import magnitude
from ovk_ref import divergence


class DivergenceWatch:
    """First divergent round of a run; warns once or raises as the checked learner's options say."""

    def __init__(self, checked):
        self.algorithm, self.bound, self.on_divergence = checked.algorithm, checked.divergence_bound, checked.on_divergence
        self.diverged_at = None

    def rounds(self, start: int, stop: int, fields: dict, squared_norms: dict) -> None:
        """Check rows ``start..stop-1`` (0-based rounds) of the record arrays."""
        if self.diverged_at is not None or self._within(start, stop, fields, squared_norms):
            return
        found = divergence.first_divergent({name: values[start:stop] for name, values in fields.items()},
                                           {name: values[start:stop] for name, values in squared_norms.items()},
                                           self.bound)
        if found is not None:
            self.diverged_at = start + found[0] + 1
            divergence.report(self.algorithm, self.diverged_at, found[1], self.bound, self.on_divergence, stacklevel=4)

    def _within(self, start: int, stop: int, fields: dict, squared_norms: dict) -> bool:
        """Every entry of the rows is finite and within the bound: the largest magnitude of each field is (NaN
        where one is NaN, ``literal_range.magnitude``), two reductions a field where ``first_divergent`` takes a
        dozen numpy calls."""
        limits = [(fields, self.bound), (squared_norms, None if self.bound is None else self.bound * self.bound)]
        for group, limit in limits:
            for values in group.values():
                largest = magnitude(values[start:stop])
                if not (largest < float("inf") and (limit is None or largest <= limit)):     # NaN: False
                    return False
        return True
