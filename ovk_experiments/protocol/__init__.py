"""The paper's protocol: half split, scaling fitted on the training half, errors, CV of the batch lam, divergence."""
