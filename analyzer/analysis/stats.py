"""Per-player statistics of a decisions table: error counts, error rate, PR, ratings, luck.

Definitions (gnubg-referee notes §5, conventions Part 2):

* *unforced* decisions: checker plays with more than one legal play, plus close or actual cube
  decisions (a no-double is close when optimal - min(DT, DP) < 0.16; doubles, takes and passes
  are actual decisions).
* *mean error* (gnubg's error rate, shown there as mEMG per decision): total EMG lost divided by
  the unforced decisions. *PR* (XG's Performance Rating) is 500 times the same mean; the data
  keeps the raw mean (``pr_raw``) and the renderers multiply.
* ratings: the XG scale names PR bands, the gnubg scale names bands of the mean error.
* luck (:mod:`analyzer.analysis.luck`): each roll's luck is gnubg's (EMG at the roll's own
  score and cube); the totals add it up in the match's currency: ``luck_mwc`` (MWC, gnubg's "luck
  cost") in a match, ``luck_points`` (luck x cube) in money play. ``luck`` (EMG) is that total
  divided by the match's stake (:func:`luck_stake`: the MWC, or points, one EMG of luck was worth
  on average over the match's rolls), so EMG and MWC totals always have the same sign; it equals
  gnubg's "Luck total EMG" (``luck_gnubg_emg``, the plain sum of the rolls' EMG) when every roll
  has the same stake. ``luck_rate`` is ``luck`` per roll. The luck-adjusted result is gnubg's:
  actual result - own luck + the opponent's luck, in MWC for a match and in points for money play.

>>> xg_rating(0.004), xg_rating(0.03)
('World Champ', 'Intermediate')
>>> gnubg_rating(0.004), gnubg_rating(0.04)
('World class', 'Awful!')
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from analyzer.analysis.summary import PlayerStats
from analyzer.analysis.thresholds import NO_ERROR, Thresholds

__all__ = ["CUBE_ERROR_KINDS", "GNUBG_SCALE", "LUCK_SCALE", "XG_APPROXIMATE", "XG_SCALE", "fibs_rating",
           "fibs_rating_losses", "fibs_slopes", "gnubg_rating", "luck_at_stake", "luck_rating", "luck_stake",
           "player_stats", "xg_rating"]

XG_SCALE: tuple[tuple[float, str], ...] = (
    (2.5, "World Champ"),
    (5.0, "World Class"),
    (7.5, "Expert"),
    (12.5, "Advanced"),
    (17.5, "Intermediate"),
    (22.5, "Casual"),
    (30.0, "Beginner"),
    (float("inf"), "Distracted"),
)
"""XG's rating bands: (upper PR bound, name). A PR exactly on a bound takes the next band."""

XG_APPROXIMATE = frozenset({"Intermediate", "Casual", "Beginner", "Distracted"})
"""XG band names below Advanced whose bounds are not confirmed by a primary source."""

GNUBG_SCALE: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
    (float("inf"), "Awful!"),
)
"""gnubg's ratings (``analysis.c``): (upper bound of the mean EMG error per decision, name)."""


LUCK_SCALE: tuple[tuple[float, str], ...] = (
    (-0.06, "Go to bed"),
    (-0.03, "Bad dice, man!"),
    (0.03, "None"),
    (0.06, "Good dice, man!"),
    (float("inf"), "Go to Las Vegas"),
)
"""gnubg's luck ratings (its manual, "Luck analysis"): (upper bound of the luck per roll in EMG, name)."""

FIBS_RATING_OFFSET = 2050.0
"""gnubg's default rating offset: the estimated FIBS rating of a player who makes no error."""

FIBS_CHECKER_SLOPE = (8794.9, 25531.7)
"""Rating points lost per EMG of mean error per unforced checker play in an N-point match:
``a + b / N`` with ``(a, b)`` this pair. Fitted to the "Chequerplay errors rating loss" that gnubg 1.07
prints for matches of 3, 5, 7, 9, 11, 13 and 17 points (``tests/test_fibs_rating.py`` holds its figures):
the slope falls with the length (17,305 at 3 points, 12,458 at 7, 10,296 at 17), and this form gives it
within 0.15% at every length measured."""

FIBS_CUBE_SLOPE = (860.0, -508.8)
"""Rating points lost per EMG of mean error per close or actual cube decision, ``a + b / N`` as for
:data:`FIBS_CHECKER_SLOPE`, fitted to gnubg 1.07's "Cube errors rating loss" at the same lengths (690 at 3
points, 788 at 7, 830 at 17; within 0.2%)."""


def luck_rating(luck_per_roll: float) -> str:
    """gnubg's name for a player's luck: the mean luck of his rolls (EMG per roll).

    >>> luck_rating(0.0), luck_rating(-0.045), luck_rating(0.07), luck_rating(-0.08)
    ('None', 'Bad dice, man!', 'Go to Las Vegas', 'Go to bed')
    """
    return next(name for bound, name in LUCK_SCALE if luck_per_roll < bound)


def fibs_slopes(length: int) -> tuple[float, float]:
    """The rating points a mean EMG error per decision costs in a ``length``-point match, checker play
    and cube decisions (gnubg 1.07's, fitted: :data:`FIBS_CHECKER_SLOPE`, :data:`FIBS_CUBE_SLOPE`).

    >>> [round(x) for x in fibs_slopes(7)], [round(x) for x in fibs_slopes(3)]
    ([12442, 787], [17305, 690])
    """
    n = float(max(length, 1))
    return (FIBS_CHECKER_SLOPE[0] + FIBS_CHECKER_SLOPE[1] / n, FIBS_CUBE_SLOPE[0] + FIBS_CUBE_SLOPE[1] / n)


def fibs_rating_losses(checker_mean: float | None, cube_mean: float | None, length: int) -> tuple[float, float]:
    """The rating points that checker play and cube errors cost on the FIBS scale, as gnubg's
    "Chequerplay errors rating loss" and "Cube errors rating loss": each mean error per decision
    (EMG) times the slope of the match length (:func:`fibs_slopes`).

    >>> [round(x, 1) for x in fibs_rating_losses(0.419 / 60, 0.196 / 6, 7)]  # gnubg: 86.9 and 25.7
    [86.9, 25.7]
    """
    checker_slope, cube_slope = fibs_slopes(length)
    return ((checker_mean or 0.0) * checker_slope, (cube_mean or 0.0) * cube_slope)


def fibs_rating(checker_mean: float | None, cube_mean: float | None, length: int) -> float:
    """An estimated rating on the FIBS scale from the errors of one match, as gnubg's "Error based
    abs. FIBS rating": 2050 minus :func:`fibs_rating_losses`.

    >>> round(fibs_rating(0.419 / 60, 0.196 / 6, 7), 1)  # gnubg 1.07 prints 1937.4 for the sample
    1937.4
    """
    checker, cube = fibs_rating_losses(checker_mean, cube_mean, length)
    return FIBS_RATING_OFFSET - checker - cube


def xg_rating(mean_error: float) -> str:
    """XG's name for a mean error per unforced decision (PR = 500 x ``mean_error``).

    >>> xg_rating(0.0)
    'World Champ'
    >>> xg_rating(0.1)
    'Distracted'
    """
    pr = 500.0 * mean_error
    return next(name for bound, name in XG_SCALE if pr < bound)


def gnubg_rating(mean_error: float) -> str:
    """gnubg's rating of a mean error per decision (EMG; gnubg shows it x1000 as mEMG).

    >>> gnubg_rating(0.0019), gnubg_rating(0.002)
    ('Supernatural', 'World class')
    """
    return next(name for bound, name in GNUBG_SCALE if mean_error < bound)


def _is_money(decisions: pl.DataFrame, money: bool | None) -> bool:
    """``money`` as given, or else whether no row has an MWC luck (money play, the cubeless variants)."""
    if money is not None:
        return money
    return "luck_mwc" not in decisions.columns or decisions["luck_mwc"].null_count() == decisions.height


def _luck_unit(money: bool) -> pl.Expr:
    """A roll's luck in the match's currency: MWC in a match, points (luck x cube) in money play."""
    if money:
        return pl.col("luck") * pl.col("cube").fill_null(1)
    return pl.col("luck_mwc")


def luck_stake(decisions: pl.DataFrame, *, money: bool | None = None) -> float | None:
    """What one EMG of luck was worth in this match, on average over the luck of all its rolls
    (both players): the sum of the rolls' absolute luck in MWC (money: points) divided by the sum
    of their absolute luck in EMG. ``None`` when no roll had any luck. ``money`` defaults to
    whether no row has an MWC luck.

    Every roll at one stake gives that stake: 0.5 MWC per EMG in a 1-point match, the cube in money.

    >>> df = pl.DataFrame({"luck": [0.2, -0.1, None], "luck_mwc": [0.1, -0.05, None], "cube": [1, 1, 1]})
    >>> luck_stake(df), luck_stake(df, money=True), luck_stake(df.head(0), money=False)
    (0.5, 1.0, None)
    """
    money = _is_money(decisions, money)
    got = decisions.select(_luck_unit(money).abs().sum().alias("unit"),
                           pl.col("luck").filter(_luck_unit(money).is_not_null()).abs().sum().alias("emg"))
    unit, emg = (float(v or 0.0) for v in got.row(0))
    return unit / emg if emg > 0.0 and unit > 0.0 else None


def luck_at_stake(decisions: pl.DataFrame, *, money: bool | None = None) -> pl.Series:
    """Each row's luck in EMG at the match's stake (:func:`luck_stake`): the luck in the match's
    currency divided by the stake. Its running sum per player ends at the player's ``luck``
    (the cumulative luck of a chart); null where the row has no luck.

    >>> df = pl.DataFrame({"luck": [0.2, -0.1], "luck_mwc": [0.3, -0.05], "cube": [4, 1]})
    >>> luck_stake(df) == (0.3 + 0.05) / (0.2 + 0.1)
    True
    >>> [round(x, 3) for x in luck_at_stake(df)]  # 0.3 / (7/6), -0.05 / (7/6)
    [0.257, -0.043]
    """
    money = _is_money(decisions, money)
    rate = luck_stake(decisions, money=money)
    unit = decisions.select(_luck_unit(money).alias("luck")).to_series()
    return unit * 0.0 if rate is None else unit / rate


def _counted() -> pl.Expr:
    """Rows that count in the rates: unforced checker plays, close or actual cube decisions."""
    checker = pl.col("kind") == "checker"
    return (checker & ~pl.col("forced")) | (~checker & pl.col("close").fill_null(False))


def _aggregates(decisions: pl.DataFrame) -> pl.DataFrame:
    checker = pl.col("kind") == "checker"
    counted = _counted()
    return (
        decisions.group_by("side")
        .agg(
            pl.len().alias("decisions"),
            counted.sum().alias("unforced"),
            (checker & ~pl.col("forced")).sum().alias("checker_unforced"),
            (~checker & counted).sum().alias("cube_decisions"),
            pl.col("equity_loss").sum().alias("total_error"),
            pl.col("equity_loss").filter(checker).sum().alias("checker_error"),
            pl.col("equity_loss").filter(~checker).sum().alias("cube_error"),
            pl.col("mwc_loss").sum().alias("total_mwc_loss"),
            pl.col("luck").sum().alias("luck_gnubg_emg"),
            pl.col("luck_mwc").sum().alias("luck_mwc"),
            _luck_unit(True).sum().alias("luck_points"),
            pl.col("luck").is_not_null().sum().alias("rolls"),
        )
        .sort("side")
    )


def _class_counts(decisions: pl.DataFrame, thresholds: Thresholds, side: int, cube: bool) -> dict[str, int]:
    kind = pl.col("kind") != "checker" if cube else pl.col("kind") == "checker"
    got = (decisions.filter((pl.col("side") == side) & kind & (pl.col("error_class") != NO_ERROR))
           .group_by("error_class").len())
    counts = {str(k): int(v) for k, v in got.iter_rows()}
    return {name: counts.get(name, 0) for name in thresholds.classes}


CUBE_ERROR_KINDS = ("missed double", "wrong double", "wrong take", "wrong pass",
                    "missed double below CP", "missed double above CP",
                    "wrong double below DP", "wrong double above TG")
"""Cube error counts of the summary; the last four split missed and wrong doubles as gnubg does:
below/above the cash point (the proper answer was take/pass), below the double point (no double
was right) or above the too-good point (playing on was right)."""


def _cube_error_detail() -> pl.Expr:
    err = pl.col("cube_error")
    passes = pl.col("cube_dt") > pl.col("cube_dp")
    return (pl.when(err == "missed double").then(pl.when(passes).then(pl.lit("missed double above CP"))
                                                  .otherwise(pl.lit("missed double below CP")))
            .when(err == "wrong double").then(pl.when(pl.col("cube_nd") > pl.col("cube_dp"))
                                               .then(pl.lit("wrong double above TG"))
                                               .otherwise(pl.lit("wrong double below DP")))
            .otherwise(pl.lit(None, pl.String)))


def _cube_errors(decisions: pl.DataFrame, side: int) -> dict[str, int]:
    mine = decisions.filter((pl.col("side") == side) & pl.col("cube_error").is_not_null())
    counts = {str(k): int(v) for k, v in mine.group_by("cube_error").len().iter_rows()}
    detail = mine.select(_cube_error_detail().alias("d")).drop_nulls().group_by("d").len()
    counts.update({str(k): int(v) for k, v in detail.iter_rows()})
    return {k: counts.get(k, 0) for k in CUBE_ERROR_KINDS}


def _ratio(total: float, n: int) -> float | None:
    return total / n if n else None


def player_stats(decisions: pl.DataFrame, thresholds: Thresholds, names: Sequence[str],
                 actual: Sequence[float] | None = None, *, money: bool = False) -> tuple[PlayerStats, ...]:
    """The statistics of each player (side 0 then 1) from a decisions table.

    ``actual`` is each player's actual result (MWC gained in a match, points won in money play);
    without it the luck-adjusted result is left ``None``.

    >>> from analyzer.analysis.schema import empty_decisions
    >>> from analyzer.analysis.thresholds import XG
    >>> p = player_stats(empty_decisions(), XG, ["ann", "bob"])
    >>> p[0].name, p[0].decisions, p[0].pr_raw, p[0].checker
    ('ann', 0, None, {'error': 0, 'blunder': 0})
    """
    agg = {int(r["side"]): r for r in _aggregates(decisions).iter_rows(named=True)}
    rate = luck_stake(decisions, money=money)
    units: list[float] = []
    for side in (0, 1):
        r = agg.get(side, {})
        luck_mwc = None if money else float(r.get("luck_mwc") or 0.0)
        units.append(float(r.get("luck_points") or 0.0) if money else (luck_mwc or 0.0))
    out: list[PlayerStats] = []
    for side in (0, 1):
        r = agg.get(side, {})
        unforced = int(r.get("unforced") or 0)
        checker_n = int(r.get("checker_unforced") or 0)
        cube_n = int(r.get("cube_decisions") or 0)
        total = float(r.get("total_error") or 0.0)
        mean = _ratio(total, unforced)
        luck_total = 0.0 if rate is None else units[side] / rate
        rolls = int(r.get("rolls") or 0)
        res = None if actual is None else float(actual[side])
        out.append(PlayerStats(
            name=names[side],
            side=side,
            decisions=int(r.get("decisions") or 0),
            unforced=unforced,
            checker_unforced=checker_n,
            cube_decisions=cube_n,
            checker=_class_counts(decisions, thresholds, side, cube=False),
            cube=_class_counts(decisions, thresholds, side, cube=True),
            cube_errors=_cube_errors(decisions, side),
            total_error=total,
            checker_error=float(r.get("checker_error") or 0.0),
            cube_error=float(r.get("cube_error") or 0.0),
            total_mwc_loss=None if money else float(r.get("total_mwc_loss") or 0.0),
            mean_error=mean,
            checker_mean_error=_ratio(float(r.get("checker_error") or 0.0), checker_n),
            cube_mean_error=_ratio(float(r.get("cube_error") or 0.0), cube_n),
            pr_raw=mean,
            rating_xg=None if mean is None else xg_rating(mean),
            rating_xg_approximate=mean is not None and xg_rating(mean) in XG_APPROXIMATE,
            rating_gnubg=None if mean is None else gnubg_rating(mean),
            rolls=rolls,
            luck=luck_total,
            luck_rate=luck_total / rolls if rolls else None,
            luck_gnubg_emg=float(r.get("luck_gnubg_emg") or 0.0),
            luck_mwc=None if money else float(r.get("luck_mwc") or 0.0),
            luck_points=float(r.get("luck_points") or 0.0) if money else None,
            actual_result=res,
            luck_adjusted_result=None if res is None else res - units[side] + units[1 - side],
            result_unit="points" if money else "mwc",
        ))
    return tuple(out)
