"""proofs_check: every claim of the paper as a named, executable check (spec 8-11)."""
