"""Training of the evaluation nets: compiled self-play, TD(lambda), supervised rounds.

Run ``python -m bglab --help``. Training needs only numpy and numba.
"""
