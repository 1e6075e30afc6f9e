"""ovk_fast computes in float64 only; ``precision`` exists for ovk_ref's signature."""


def float64_only(precision) -> None:
    if precision is not None:
        raise ValueError(f"precision must be None: ovk_fast computes in float64 only (use ovk_ref for "
                         f"precision={precision!r})")
