"""Writing a run out: the CSV rows, the PNG figures, the Markdown report and the paper's claims it is judged against."""
