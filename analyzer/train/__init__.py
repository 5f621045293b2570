"""Training of the evaluation nets: compiled self-play, TD(lambda), supervised rounds.

Run ``python -m analyzer.train --help``. Training needs only numpy and numba.
"""
