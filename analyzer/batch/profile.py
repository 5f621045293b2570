"""A player's profile from a batch dataset: where the equity goes, beside the archive's other players.

:func:`player_profile` reads an analysis dataset written by :func:`analyzer.batch.run_batch` lazily
(polars scans of the part files: only the columns it needs, one pass) and returns a
:class:`Profile`: the player's loss in mEMG per decision (1000 x the mean EMG loss per unforced
decision, ``bgreview analyze``'s "error rate") and in share of his total loss, split five ways
(:data:`DIMENSIONS`):

* ``theme`` — the position's theme from the decider's side (the dataset's ``theme`` column,
  :func:`analyzer.analysis.themes.player_theme`; computed from the key for older datasets);
* ``kind`` — checker play, double (the cube decisions before a roll), take/pass;
* ``cube error`` — missed doubles, wrong doubles, wrong takes, wrong passes: the loss of those
  errors per decision of their kind (doubles: cube decisions; takes and passes: take decisions);
* ``score`` — the score situation (:func:`score_situation`): money, DMP, Crawford, post-Crawford,
  gammon-go, gammon-save (both: ``gammon-go and save``), other match scores;
* ``away`` — the score as ``n-away/m-away`` (the decider's first), or ``money``;
* ``phase`` — contact, race or bear-off (the dataset's ``phase`` column).

Every class carries the number of decisions behind it, a 95% confidence interval of the mean
(normal approximation: mean +- 1.96 standard errors of the per-decision losses), the median of the
archive's other players who have at least :data:`MIN_PEER_DECISIONS` decisions in the class, the
share of those players who lose more per decision (``better_than``), the player's figure in the
earlier and later half of his matches (by date, then file and match), and his worst decisions
there, each with the link to its match report (``matches/<part>/report.html#d-<n>``, as
``bgreview report`` writes them). :attr:`Profile.trend` is the player's figure by month (by match
order when the matches carry no date), and :attr:`Profile.summary` a paragraph in words made from
these figures alone.

A player's name is matched without regard to case ("Lasse" and "lasse" are one player), as in the
report's players table. Dutch and Mahbusa decisions are valued in points of a cubeless game, not EMG:
a profile covers one variant (by default the one the player has most decisions in) and says its
unit.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     player_profile(tmp, "lasse")
Traceback (most recent call last):
...
FileNotFoundError: ...: not an analysed batch dataset (run `bgreview batch` without --replay-only)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.themes import player_theme
from analyzer.core.errors import InputError
from analyzer.core.ids import decode_key

from .layout import DECISIONS_DIR, MATCHES_TABLE

__all__ = ["DIMENSIONS", "MIN_PEER_DECISIONS", "ClassFigure", "Profile", "ProfileData", "TrendPoint",
           "WorstDecision", "ci95", "load_profile_data", "player_profile", "profile_table", "score_situation"]

DIMENSIONS = ("kind", "cube error", "theme", "score", "away", "phase")
"""The ways a profile splits the loss, in the order it lists them."""

MIN_PEER_DECISIONS = 10
"""Other players with fewer decisions than this in a class are left out of its median and percentile."""

SITUATIONS = ("money", "DMP", "Crawford", "post-Crawford", "gammon-go", "gammon-save", "gammon-go and save",
              "match")
"""The score situations of :func:`score_situation`."""

_KINDS = {"checker": "checker play", "cube": "double", "take": "take/pass"}
_CUBE_ERRORS = ("missed double", "wrong double", "wrong take", "wrong pass")
_NEEDED = ("file", "match_index", "game", "move_no", "player", "side", "kind", "variant", "dice", "key", "phase",
           "match_length", "score_me", "score_opp", "cube", "played", "best", "equity_loss", "error_class",
           "forced", "cube_error", "close", "xgid", "position_id", "match_id")


@dataclass(frozen=True, slots=True)
class WorstDecision:
    """One of the player's costliest decisions in a class, with what identifies it and its report link."""

    file: str
    match_index: int
    game: int
    move_no: int
    kind: str
    dice: str | None
    played: str
    best: str
    equity_loss: float
    key: str
    xgid: str | None
    position_id: str | None
    match_id: str | None
    match_length: int
    score_me: int
    score_opp: int
    cube: int | None
    link: str | None
    """The decision in its match report, relative to the report folder; ``None`` without a part."""


@dataclass(frozen=True, slots=True)
class ClassFigure:
    """The player's figures in one class of one dimension (losses in the profile's unit, EMG or points)."""

    dimension: str
    label: str
    decisions: int
    total_loss: float
    memg: float
    """1000 x the mean loss per decision."""
    ci_low: float
    ci_high: float
    share: float
    """The class's share of the player's total loss (0..1)."""
    errors: int
    peers: int
    peer_median: float | None
    better_than: float | None
    """Share of the ``peers`` (0..1) who lose more per decision in the class."""
    early: float | None
    late: float | None
    worst: tuple[WorstDecision, ...] = ()


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """The player's figure over one period (``YYYY-MM``, or ``match N-M`` without dates)."""

    period: str
    matches: int
    decisions: int
    memg: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Profile:
    """What :func:`player_profile` returns (see the module docstring)."""

    player: str
    names: tuple[str, ...]
    variant: str
    unit: str
    matches: int
    decisions: int
    total_loss: float
    memg: float
    ci_low: float
    ci_high: float
    errors: int
    peers: int
    peer_median: float | None
    better_than: float | None
    classes: tuple[ClassFigure, ...]
    trend: tuple[TrendPoint, ...]
    trend_by: str
    summary: str
    interval: str = "95% normal approximation of the mean (mean +- 1.96 standard errors)"
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The profile as plain data (``--format json``)."""
        return asdict(self)

    def dimension(self, name: str) -> list[ClassFigure]:
        """The classes of one dimension, largest share first."""
        return [c for c in self.classes if c.dimension == name]


def ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95% interval by the normal approximation (mean +- 1.96 standard
    errors, the sample standard deviation over sqrt(n)); one value gives an interval of that value alone.

    >>> [round(x, 4) for x in ci95([0.0, 0.0, 0.03, 0.01])]
    [0.01, -0.0039, 0.0239]
    """
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def score_situation(length: pl.Expr, me: pl.Expr, opp: pl.Expr, cube: pl.Expr, kind: pl.Expr,
                    crawford: pl.Expr, post_crawford: pl.Expr) -> pl.Expr:
    """The score situation of a decision as a polars expression (one of :data:`SITUATIONS`).

    ``money`` (length 0); ``DMP`` (both 1-away); ``Crawford`` and ``post-Crawford`` (the game's flags);
    else, with ``c`` the cube at stake (cube and take decisions: the cube once doubled, else the
    cube; 1 without a cube), ``gammon-go`` when a gammon wins the match for the decider and a single
    game does not (``c < need <= 2c``), ``gammon-save`` when the same holds for the opponent, both
    ``gammon-go and save``, else ``match``.

    >>> df = pl.DataFrame({"l": [0, 7, 7, 7, 7, 5], "me": [0, 6, 6, 5, 3, 3], "opp": [0, 6, 3, 3, 5, 3],
    ...                    "cube": [1, 1, 1, 1, 1, 2], "kind": ["checker"] * 5 + ["cube"],
    ...                    "c": [False, False, True, False, False, False], "p": [False] * 6})
    >>> df.select(score_situation(*[pl.col(c) for c in df.columns])).to_series().to_list()
    ['money', 'DMP', 'Crawford', 'gammon-go', 'gammon-save', 'match']
    """
    need_me, need_opp = length - me, length - opp
    at_stake = pl.when(kind.is_in(["cube", "take"])).then(2 * cube.fill_null(1)).otherwise(cube.fill_null(1))
    go = (need_me > at_stake) & (need_me <= 2 * at_stake)
    save = (need_opp > at_stake) & (need_opp <= 2 * at_stake)
    return (pl.when(length == 0).then(pl.lit("money"))
            .when((need_me == 1) & (need_opp == 1)).then(pl.lit("DMP"))
            .when(crawford.fill_null(False)).then(pl.lit("Crawford"))
            .when(post_crawford.fill_null(False) | (need_me == 1) | (need_opp == 1)).then(pl.lit("post-Crawford"))
            .when(go & save).then(pl.lit("gammon-go and save"))
            .when(go).then(pl.lit("gammon-go"))
            .when(save).then(pl.lit("gammon-save"))
            .otherwise(pl.lit("match")))


def _theme_of_keys(keys: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for k in keys:
        try:
            out[k] = player_theme(decode_key(k))
        except (InputError, ValueError):
            out[k] = None
    return out


def _crawford_inferred(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Crawford flags for a dataset written before the columns existed: the first game of a match
    with a side 1-away is the Crawford game, the later ones with a side 1-away post-Crawford."""
    one_away = (pl.col("match_length") > 0) & (
        (pl.col("match_length") - pl.col("score_me") == 1) ^ (pl.col("match_length") - pl.col("score_opp") == 1))
    first = pl.col("game").filter(one_away).min().over("file", "match_index")
    return lf.with_columns((one_away & (pl.col("game") == first)).alias("crawford"),
                           (one_away & (pl.col("game") > first)).alias("post_crawford"))


def _load(dataset: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The unforced decisions of every player (the columns the profile needs) and the matches table."""
    parts = dataset / DECISIONS_DIR
    matches_path = dataset / f"{MATCHES_TABLE}.parquet"
    if not matches_path.exists() or not any(parts.glob("*.parquet")):
        raise FileNotFoundError(f"{dataset}: not an analysed batch dataset (run `bgreview batch` without "
                                "--replay-only)")
    lf = pl.scan_parquet(parts / "*.parquet", include_file_paths="_path")
    names = lf.collect_schema().names()
    if "equity_loss" not in names:
        raise FileNotFoundError(f"{dataset}: not an analysed batch dataset (run `bgreview batch` without "
                                "--replay-only)")
    extra = [c for c in ("theme", "crawford", "post_crawford") if c in names]
    lf = lf.select(*_NEEDED, *extra, "_path")
    # the decision's number in its match report (report.js opens #d-N): rows the report folds away
    # (cube decisions neither close nor doubled nor an error) do not count
    folded = ((pl.col("kind") == "cube") & (pl.col("error_class").fill_null("none") == "none")
              & pl.col("played").is_in(["no double", "no redouble"])
              & pl.when(pl.col("close").is_not_null()).then(~pl.col("close")).otherwise(pl.col("forced")))
    lf = lf.with_columns(((~folded).cast(pl.Int32).cum_sum().over("_path") - 1).alias("_anchor"))
    if "crawford" not in names or "post_crawford" not in names:
        lf = _crawford_inferred(lf.drop("crawford", "post_crawford", strict=False))
    lf = lf.filter(~pl.col("forced").fill_null(False) & pl.col("equity_loss").is_not_null())
    frame = lf.with_columns(
        pl.col("_path").str.split("/").list.last().alias("part"),
        pl.col("player").str.strip_chars().str.to_lowercase().alias("_who"),
        pl.col("kind").replace_strict(_KINDS, default=pl.col("kind"), return_dtype=pl.String).alias("kind_label"),
        score_situation(pl.col("match_length"), pl.col("score_me"), pl.col("score_opp"), pl.col("cube"),
                        pl.col("kind"), pl.col("crawford"), pl.col("post_crawford")).alias("score"),
        pl.when(pl.col("match_length") == 0).then(pl.lit("money"))
        .otherwise(pl.format("{}-away/{}-away", pl.col("match_length") - pl.col("score_me"),
                             pl.col("match_length") - pl.col("score_opp"))).alias("away"),
        *[pl.when(pl.col("kind") != ("cube" if "double" in name else "take")).then(pl.lit(None, pl.String))
          .otherwise(pl.lit(name)).alias(f"_ce:{name}") for name in _CUBE_ERRORS],
    ).drop("_path").collect()
    if "theme" not in frame.columns or frame["theme"].null_count():
        keys = frame.filter(pl.col("theme").is_null()) if "theme" in frame.columns else frame
        themes = _theme_of_keys(keys["key"].drop_nulls().unique().to_list())
        computed = pl.col("key").replace_strict(themes, default=None, return_dtype=pl.String)
        frame = frame.with_columns((pl.coalesce(pl.col("theme"), computed) if "theme" in frame.columns
                                    else computed).alias("theme"))
    matches = pl.read_parquet(matches_path, columns=["file", "match_index", "part", "date"])
    return frame, matches


@dataclass
class ProfileData:
    """A dataset's unforced decisions as a profile reads them (:func:`load_profile_data`): load once,
    profile many players (the report's sections)."""

    dataset: Path
    frame: pl.DataFrame
    matches: pl.DataFrame
    _per: dict[tuple[str, str], pl.DataFrame] = field(default_factory=dict)

    def per_player(self, variant: str, column: str) -> pl.DataFrame:
        """Decisions and mEMG per decision of every player (``_who``) and class of ``column``."""
        key = (variant, column)
        if key not in self._per:
            frame = self.frame.filter(pl.col("variant") == variant)
            if column == "_all":
                frame = frame.with_columns(pl.lit("all").alias("_all"))
            loss = pl.col("equity_loss")
            if column.startswith("_ce:"):  # a cube error's loss per decision of its kind
                loss = pl.when(pl.col("cube_error") == column[4:]).then(loss).otherwise(0.0)
            self._per[key] = frame.group_by("_who", column).agg(pl.len().alias("n"), (1000.0 * loss.mean()).alias("m"))
        return self._per[key]

    def players(self) -> list[str]:
        """Every player's name (the most frequent spelling of each), most decisions first."""
        counts = self.frame.group_by("_who", "player").len().sort(["len", "player"], descending=[True, False])
        return counts.unique("_who", keep="first", maintain_order=True)["player"].to_list()


def load_profile_data(dataset: str | Path) -> ProfileData:
    """Read ``dataset`` for :func:`player_profile` (raises :class:`FileNotFoundError` when it is
    not an analysed batch dataset)."""
    frame, matches = _load(Path(dataset))
    return ProfileData(Path(dataset), frame, matches)


def _median(values: Sequence[float]) -> float | None:
    """The median of sorted ``values`` (``None`` when empty)."""
    n = len(values)
    if not n:
        return None
    return float(values[n // 2]) if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def _peer_stats(frame: pl.DataFrame, column: str, who: str,
                per: pl.DataFrame | None = None) -> dict[str, tuple[int, float | None, float | None]]:
    """Per class: peers counted, their median mEMG and the share of them above ``who``'s figure."""
    if per is None:
        per = frame.group_by("_who", column).agg(pl.len().alias("n"),
                                                 (1000.0 * pl.col("equity_loss").mean()).alias("m"))
    mine = {r[column]: r["m"] for r in per.filter(pl.col("_who") == who).iter_rows(named=True)}
    others = per.filter((pl.col("_who") != who) & (pl.col("n") >= MIN_PEER_DECISIONS))
    out: dict[str, tuple[int, float | None, float | None]] = {}
    for label, group in others.group_by(column):
        values = sorted(group["m"].to_list())
        lab = label[0]
        me = mine.get(lab)
        median = _median(values)
        above = sum(1 for v in values if v > me) / len(values) if me is not None and values else None
        out[str(lab)] = (len(values), median, above)
    return out


def _worst(rows: pl.DataFrame, reports: dict[str, str], top: int) -> tuple[WorstDecision, ...]:
    out = []
    for r in rows.filter(pl.col("equity_loss") > 0).sort(["equity_loss", "file", "match_index", "game", "move_no"],
                       descending=[True, False, False, False, False]).head(top).iter_rows(named=True):
        part = r["part"]
        base = reports.get(part, f"matches/{part.removesuffix('.parquet')}/report.html")
        out.append(WorstDecision(
            file=r["file"], match_index=r["match_index"], game=r["game"], move_no=r["move_no"], kind=r["kind"],
            dice=r["dice"], played=r["played"], best=r["best"], equity_loss=float(r["equity_loss"]), key=r["key"],
            xgid=r["xgid"], position_id=r["position_id"], match_id=r["match_id"], match_length=r["match_length"],
            score_me=r["score_me"], score_opp=r["score_opp"], cube=r["cube"], link=f"{base}#d-{r['_anchor']}"))
    return tuple(out)


def _classes(mine: pl.DataFrame, frame: pl.DataFrame, who: str, total: float, late_from: int,
             reports: dict[str, str], top: int, data: ProfileData, variant: str) -> list[ClassFigure]:
    out: list[ClassFigure] = []
    for dim, column in (("kind", "kind_label"), ("theme", "theme"), ("score", "score"), ("away", "away"),
                        ("phase", "phase")):
        peers = _peer_stats(frame, column, who, data.per_player(variant, column))
        for (label,), group in mine.group_by(column):
            if label is None:
                continue
            losses = group["equity_loss"].to_list()
            mean, lo, hi = ci95(losses)
            early = group.filter(pl.col("_rank") < late_from)["equity_loss"]
            late = group.filter(pl.col("_rank") >= late_from)["equity_loss"]
            n_peers, median, above = peers.get(str(label), (0, None, None))
            out.append(ClassFigure(
                dim, str(label), len(losses), float(sum(losses)), 1000 * mean, 1000 * lo, 1000 * hi,
                float(sum(losses)) / total if total > 0 else 0.0,
                int((group["error_class"].fill_null("none") != "none").sum()), n_peers, median, above,
                1000 * float(early.mean()) if early.len() else None,  # type: ignore[arg-type]
                1000 * float(late.mean()) if late.len() else None,  # type: ignore[arg-type]
                _worst(group, reports, top)))
    # cube errors: their loss per decision of their kind (doubles per cube decision, takes per take decision)
    for name in _CUBE_ERRORS:
        parent = "cube" if "double" in name else "take"
        base_rows = mine.filter(pl.col("kind") == parent)
        if base_rows.height == 0:
            continue
        losses = base_rows.select(pl.when(pl.col("cube_error") == name).then(pl.col("equity_loss"))
                                  .otherwise(0.0)).to_series().to_list()
        hit = base_rows.filter(pl.col("cube_error") == name)
        if hit.height == 0:
            continue
        mean, lo, hi = ci95(losses)
        per = data.per_player(variant, f"_ce:{name}") if f"_ce:{name}" in frame.columns else None
        n_peers, median, above = _peer_stats(frame, f"_ce:{name}", who, per).get(name, (0, None, None))
        early_l = [v for v, r in zip(losses, base_rows["_rank"].to_list(), strict=True) if r < late_from]
        late_l = [v for v, r in zip(losses, base_rows["_rank"].to_list(), strict=True) if r >= late_from]
        out.append(ClassFigure(
            "cube error", name, base_rows.height, float(sum(losses)), 1000 * mean, 1000 * lo, 1000 * hi,
            float(sum(losses)) / total if total > 0 else 0.0, hit.height, n_peers, median, above,
            1000 * sum(early_l) / len(early_l) if early_l else None,
            1000 * sum(late_l) / len(late_l) if late_l else None, _worst(hit, reports, top)))
    order = {d: i for i, d in enumerate(DIMENSIONS)}
    return sorted(out, key=lambda c: (order[c.dimension], -c.total_loss, c.label))


def _trend(mine: pl.DataFrame) -> tuple[tuple[TrendPoint, ...], str]:
    dated = mine.filter(pl.col("date").is_not_null())
    if dated.height * 2 >= mine.height and dated.height:
        groups = dated.with_columns(pl.col("date").str.slice(0, 7).alias("_period"))
        by = "month"
    else:
        size = max(1, math.ceil(mine["_rank"].n_unique() / 12))
        groups = mine.with_columns(pl.format("match {}-{}", (pl.col("_rank") // size) * size + 1,
                                             (pl.col("_rank") // size + 1) * size).alias("_period"),
                                   (pl.col("_rank") // size).alias("_o"))
        by = "match"
    points = []
    sort_col = "_period" if by == "month" else "_o"
    for (period,), g in groups.sort(sort_col).group_by("_period", maintain_order=True):
        mean, lo, hi = ci95(g["equity_loss"].to_list())
        points.append(TrendPoint(str(period), g.select(pl.struct("file", "match_index").n_unique()).item(),
                                 g.height, 1000 * mean, 1000 * lo, 1000 * hi))
    return tuple(points), by


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _trend_words(first: TrendPoint, last: TrendPoint) -> str:
    """How the figure moved from ``first`` to ``last``: "went down" or "went up" only when the
    difference is outside the noise of the two periods (1.96 standard errors of the difference, the
    standard errors read back from the 95% intervals), else "stayed level within the noise".

    >>> a = TrendPoint("2024-01", 10, 900, 10.5, 9.5, 11.5)
    >>> _trend_words(a, TrendPoint("2024-06", 10, 900, 10.5, 9.5, 11.5))
    'stayed level within the noise'
    >>> _trend_words(a, TrendPoint("2024-06", 10, 900, 7.0, 6.0, 8.0))
    'went down'
    """
    se_first = (first.ci_high - first.ci_low) / (2 * 1.96)
    se_last = (last.ci_high - last.ci_low) / (2 * 1.96)
    diff = last.memg - first.memg
    if abs(diff) <= 1.96 * math.hypot(se_first, se_last):
        return "stayed level within the noise"
    return "went down" if diff < 0 else "went up"


def _summary(p: Profile) -> str:
    """A paragraph in words, from the profile's figures alone."""
    if p.decisions == 0:
        return f"{p.player} has no unforced decision in this dataset."
    unit = "mEMG" if p.unit == "EMG" else "thousandths of a point"
    s = [f"Over {p.decisions:,} unforced decision{'s' if p.decisions != 1 else ''} in {p.matches:,} "
         f"match{'es' if p.matches != 1 else ''}, {p.player} lost "
         f"{p.memg:.1f} {unit} per decision (95% interval {p.ci_low:.1f} to {p.ci_high:.1f})"]
    if p.peer_median is not None and p.better_than is not None:
        s[0] += (f"; the median of the archive's {p.peers} other player{'s' if p.peers != 1 else ''} with "
                 f"{MIN_PEER_DECISIONS} or more "
                 f"decisions is {p.peer_median:.1f}, and {_pct(p.better_than)} of them lose more")
    s[0] += "."
    kinds = [c for c in p.dimension("kind") if c.total_loss > 0]
    if kinds:
        k = kinds[0]
        s.append(f"Most of the loss is in {k.label if k.label != 'double' else 'doubling decisions'} "
                 f"({_pct(k.share)} of it, {k.memg:.1f} {unit} per decision over {k.decisions:,}).")
    errs = [c for c in p.dimension("cube error") if c.total_loss > 0]
    if errs:
        e = errs[0]
        worse_at = [c for c in p.dimension("score") if c.decisions >= MIN_PEER_DECISIONS
                    and c.peer_median is not None and c.memg > c.peer_median]
        text = f"The costliest cube error is the {e.label} ({e.errors} of them, {_pct(e.share)} of the loss)"
        if worse_at:
            w = max(worse_at, key=lambda c: c.memg - (c.peer_median or 0.0))
            text += (f"; by score, the loss per decision is furthest above the other players' median at "
                     f"{w.label} scores ({w.memg:.1f} against {w.peer_median:.1f}, {w.decisions:,} decisions)")
        s.append(text + ".")
    themes = [c for c in p.dimension("theme") if c.decisions >= MIN_PEER_DECISIONS and c.peer_median is not None]
    if themes:
        worst = max(themes, key=lambda c: c.memg - (c.peer_median or 0.0))
        best = min(themes, key=lambda c: c.memg - (c.peer_median or 0.0))
        if worst.memg > (worst.peer_median or 0.0):
            s.append(f"By theme, {worst.label} costs the most beside the others: {worst.memg:.1f} {unit} per "
                     f"decision against a median of {worst.peer_median:.1f} ({worst.decisions:,} decisions, "
                     f"interval {worst.ci_low:.1f} to {worst.ci_high:.1f}).")
        if best is not worst and best.memg < (best.peer_median or 0.0):
            s.append(f"The strongest theme is {best.label} ({best.memg:.1f} against {best.peer_median:.1f}).")
    top = max(p.dimension("theme"), key=lambda c: c.share, default=None)
    if top is not None and top.share > 0:
        s.append(f"The theme with the largest share of the loss is {top.label} ({_pct(top.share)}).")
    if len(p.trend) >= 2:
        first, last = p.trend[0], p.trend[-1]
        s.append(f"From {first.period} to {last.period} the figure {_trend_words(first, last)}, from "
                 f"{first.memg:.1f} to {last.memg:.1f} ({first.decisions:,} and {last.decisions:,} decisions).")
    return " ".join(s)


def player_profile(dataset: str | Path | ProfileData, player: str, *, variant: str | None = None,
                   top: int = 3) -> Profile:
    """The profile of ``player`` in the analysis dataset ``dataset`` (a folder, or its
    :func:`load_profile_data`; see the module docstring): ``variant`` the game it covers (default
    the one the player has most decisions in), ``top`` the worst decisions kept per class.

    Raises :class:`FileNotFoundError` when ``dataset`` is not an analysed batch dataset and
    :class:`LookupError` when no unforced decision of ``player`` is in it.
    """
    data = dataset if isinstance(dataset, ProfileData) else load_profile_data(dataset)
    frame, matches = data.frame, data.matches
    who = player.strip().lower()
    own = frame.filter(pl.col("_who") == who)
    if not own.height:
        raise LookupError(f"{data.dataset}: no analysed decision of player {player!r}")
    if variant is None:
        variant = str(own["variant"].mode().sort()[0])
    frame = frame.filter(pl.col("variant") == variant)
    mine = own.filter(pl.col("variant") == variant)
    if mine.height == 0:
        raise LookupError(f"{data.dataset}: no analysed {variant} decision of player {player!r}")
    order = (mine.select("file", "match_index").unique()
             .join(matches.select("file", "match_index", "date"), on=["file", "match_index"], how="left")
             .sort(["date", "file", "match_index"], nulls_last=True)
             .with_row_index("_rank").with_columns(pl.col("_rank").cast(pl.Int64)))
    mine = mine.join(order, on=["file", "match_index"], how="left")
    n_matches = order.height
    late_from = n_matches // 2
    reports = {str(p): f"matches/{str(p).removesuffix('.parquet')}/report.html" for p in matches["part"].to_list()
               if p is not None}
    losses = mine["equity_loss"].to_list()
    total = float(sum(losses))
    mean, lo, hi = ci95(losses)
    overall = _peer_stats(frame, "_all", who, data.per_player(variant, "_all")).get("all", (0, None, None))
    classes = _classes(mine, frame, who, total, late_from, reports, top, data, variant)
    trend, by = _trend(mine)
    names = tuple(sorted(mine["player"].unique().to_list()))
    shown = max(names, key=lambda n: (int((mine["player"] == n).sum()), n))
    profile = Profile(player=shown, names=names, variant=variant, unit="EMG" if variant == "standard" else "points",
                      matches=n_matches, decisions=mine.height, total_loss=total, memg=1000 * mean,
                      ci_low=1000 * lo, ci_high=1000 * hi,
                      errors=int((mine["error_class"].fill_null("none") != "none").sum()), peers=overall[0],
                      peer_median=overall[1], better_than=overall[2], classes=tuple(classes), trend=trend,
                      trend_by=by, summary="")
    return replace(profile, summary=_summary(profile))


def profile_table(profile: Profile) -> pl.DataFrame:
    """The classes of ``profile`` as one table (``--format csv`` and the terminal table): dimension,
    class, decisions, errors, mEMG per decision, its interval, share of the loss, the other players'
    median and count, the share of them who lose more, earlier and later halves.

    Every figure stays a float; rounding is the renderer's.
    """
    rows = [{"dimension": c.dimension, "class": c.label, "decisions": c.decisions, "errors": c.errors,
             "memg": c.memg, "ci_low": c.ci_low, "ci_high": c.ci_high, "share": c.share,
             "peer_median": c.peer_median, "peers": c.peers, "better_than": c.better_than,
             "early": c.early, "late": c.late} for c in profile.classes]
    schema = {"dimension": pl.String(), "class": pl.String(), "decisions": pl.Int64(), "errors": pl.Int64(),
              "memg": pl.Float64(), "ci_low": pl.Float64(), "ci_high": pl.Float64(), "share": pl.Float64(),
              "peer_median": pl.Float64(), "peers": pl.Int64(), "better_than": pl.Float64(),
              "early": pl.Float64(), "late": pl.Float64()}
    return pl.DataFrame(rows, schema=schema, orient="row")
