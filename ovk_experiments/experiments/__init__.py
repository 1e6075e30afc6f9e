"""The experiments of the paper: its settings, kernels, one learner per run, Figure 1 and Figure 2 (Table 3 = their timings)."""
