"""The experiments' tolerance (ovk_experiments.protocol.divergence), with its reason."""

#: an online run is reported as diverged from the first round whose squared prediction error exceeds
#: this multiple of the zero predictor's mean error ``mean ||y||^2``. A stable run's errors stay within
#: a small multiple of it (its predictions are shrunk sums of bounded steps), while the paper's
#: non-separable synthetic setting passes 1e50 times it by round 40 (spec E30(a)); 1e6 sits far from both.
DIVERGENCE_FACTOR = 1e6
