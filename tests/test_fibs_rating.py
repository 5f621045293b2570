"""The estimated FIBS rating against the figures GNU Backgammon 1.07 prints (``show statistics match``).

Each row is one player of one corpus match, analysed by gnubg at 0-ply (referee output, recorded once):
match length, unforced moves, checker "Error total EMG", its "Chequerplay errors rating loss", close or
actual cube decisions, cube "Error total EMG" and its "Cube errors rating loss". Our losses come from
the mean errors alone, as gnubg's do; the slopes were fitted to these lengths, so this checks the fit
and the formula (mean error per decision times a slope of the length), not one constant.
"""

from __future__ import annotations

import pytest

from analyzer.analysis.stats import fibs_rating, fibs_rating_losses

# length, unforced, checker error, checker loss, close cube decisions, cube error, cube loss (gnubg 1.07)
GNUBG = [
    (3, 80, 0.630, 136.3, 8, 0.170, 14.6),
    (3, 67, 0.771, 199.1, 15, 0.106, 4.9),
    (5, 36, 0.379, 146.4, 8, 0.010, 0.9),
    (5, 39, 0.276, 98.3, 9, 0.755, 63.7),
    (9, 31, 0.385, 144.3, 18, 0.438, 19.6),
    (9, 33, 0.210, 73.9, 6, 0.106, 14.2),
    (11, 186, 1.598, 95.5, 36, 0.955, 21.6),
    (11, 185, 2.526, 151.8, 18, 0.113, 5.1),
    (13, 198, 1.113, 60.5, 18, 0.228, 10.4),
    (13, 208, 1.293, 66.9, 23, 0.118, 4.2),
    (17, 137, 3.491, 262.4, 43, 2.207, 42.7),
    (17, 180, 1.572, 89.9, 28, 0.348, 10.3),
    (7, 60, 0.419, 86.9, 6, 0.196, 25.7),  # the shipped 7-point sample
]


@pytest.mark.parametrize(("length", "unforced", "checker_error", "checker_loss", "close", "cube_error", "cube_loss"),
                         GNUBG)
def test_rating_losses_match_gnubg(length: int, unforced: int, checker_error: float, checker_loss: float,
                                   close: int, cube_error: float, cube_loss: float) -> None:
    checker, cube = fibs_rating_losses(checker_error / unforced, cube_error / close, length)
    # gnubg prints one decimal of figures computed from error totals it prints to three decimals
    assert checker == pytest.approx(checker_loss, rel=0.004, abs=0.2)
    assert cube == pytest.approx(cube_loss, rel=0.01, abs=0.2)


def test_shorter_matches_cost_more_per_checker_error() -> None:
    # gnubg: 0.01 EMG a move costs 173 points at 3 points, 103 at 17 (not the square-root scaling of
    # a FIBS rating difference, which would make longer matches cost more)
    losses = [fibs_rating_losses(0.01, 0.0, n)[0] for n in (3, 5, 7, 9, 11, 13, 17)]
    assert losses == sorted(losses, reverse=True)
    assert fibs_rating(0.0, 0.0, 5) == 2050.0
