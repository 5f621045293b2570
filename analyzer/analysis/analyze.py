"""Analyse a whole match: every checker play, cube decision and take/pass, plus luck and stats.

:func:`analyze_match` replays a :class:`~analyzer.formats.records.MatchRecord` and returns a
:class:`MatchAnalysis`: the decisions table (schema in :mod:`analyzer.analysis.schema`), the
per-player summary (:mod:`analyzer.analysis.stats`) and the metadata every output records
(engine and nets, ply, move filter, seed, thresholds, MET, equity basis).

What is analysed, as gnubg does it:

* **checker plays**: all legal plays at 0-ply, the filtered candidates deeper and the best few
  (and the played play) at the requested ply; equities are cubeful EMG
  (:mod:`analyzer.analysis.decisions`). Rolls with
  one legal play (dances included) are *forced* and stay out of the rates.
* **cube decisions**: before every roll where the player on roll could double (not before the
  opening roll), No double / Double-take / Double-pass from the probabilities at the requested ply
  (:func:`analyzer.eval.cube.analyze_cube`). Not doubling when doubling was right is a missed
  double, doubling when it was not a wrong double (both the doubler's errors); the answer to a
  double is scored from the taker's side (wrong take, wrong pass).
* **luck** of every roll at 0-ply (:mod:`analyzer.analysis.luck`).

Each game is analysed by the engine of its variant (:class:`analyzer.eval.protocol.Evaluator`), and
the engine's capabilities say what differs: a game whose engine has no cube (``cubeful`` false:
Dutch backgammon and Mahbusa, :mod:`analyzer.analysis.variants`) has checker decisions only, valued
in cubeless expected points of the game, with luck by the same definition; its results count in
points, never in match-winning chance. The settings are checked against those capabilities
(:class:`~analyzer.analysis.settings.ReviewSettings`): a ply deeper than an engine searches is refused. A variant
without an evaluator raises :class:`NoEvaluatorError`.

Games that do not replay are left out and listed in ``summary.match.errors``.

>>> from analyzer.formats.mat import read_match_text
>>> from analyzer.eval.engine import Engine
>>> text = " 3 point match\\n Game 1\\n ann : 0      bob : 0\\n  1) 31: 8/5 6/5   42: 8/4 6/4\\n"
>>> [m] = read_match_text(text)
>>> a = analyze_match(m, ReviewSettings(ply=0), engine=Engine())
>>> a.decisions.select("player", "kind", "played").rows()
[('ann', 'checker', '8/5 6/5'), ('bob', 'cube', 'no double'), ('bob', 'checker', '8/4 6/4')]
>>> sorted(a.summary.as_dict()), a.players[0].decisions
(['match', 'metadata', 'players'], 1)
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import polars as pl

from analyzer._version import ENGINE_NAME, __version__
from analyzer.analysis.confirm import (
    Confirmed,
    Confirmer,
    ConfirmSettings,
    cube_signed,
    doubt,
    rank_floor,
    rank_undecided,
    take_signed,
    wants_checker,
)
from analyzer.analysis.decisions import (
    DEEP_FILTER,
    Candidate,
    CheckerAnalysis,
    CubeScore,
    analyze_checker,
    score_cube,
    score_take,
    to_mwc,
)
from analyzer.analysis.identifiers import decision_ids
from analyzer.analysis.luck import luck_of, mwc_luck, roll_values
from analyzer.analysis.replay import Decision, GameReplay, replay_games
from analyzer.analysis.schema import DECISIONS_SCHEMA
from analyzer.analysis.settings import EngineCapabilities, ReviewSettings, RolloutReview
from analyzer.analysis.stats import player_stats
from analyzer.analysis.summary import (
    AnalysisMetadata,
    AnalysisSummary,
    ConfirmedCounts,
    ConfirmRecord,
    EngineInfo,
    FilterRecord,
    GameResult,
    MatchInfo,
    PlayerStats,
    RolloutRecord,
)
from analyzer.analysis.thresholds import XG, Thresholds
from analyzer.analysis.variants import (
    VARIANT_EQUITY_BASIS,
    NoEvaluatorError,
    load_variant_engine,
    opening_kind,
    variant_luck,
    variant_roll_values,
)
from analyzer.core.ids import encode_key, encode_position_id, match_id_from_state, xgid_from_position
from analyzer.core.match import MatchState, cube_available
from analyzer.core.position import Position
from analyzer.core.variants import has_cube
from analyzer.eval.cube import CubeDecision, analyze_cube
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.engine import Engine
from analyzer.eval.met import MatchEquityTable, met_by_name, mwc, outcome_mwc
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import ANALYSIS_FILTER, Evaluator, MoveFilter
from analyzer.eval.rollout import RolloutSettings, rollout, rollout_cube
from analyzer.formats.records import MatchRecord

__all__ = ["EQUITY_BASIS", "AnalysisSummary", "ConfirmSettings", "MatchAnalysis", "NoEvaluatorError",
           "ReviewSettings", "RolloutReview", "analyze_match"]

SCHEMA_VERSION = 1
EQUITY_BASIS = ("cubeful EMG: cubeless n-ply probabilities turned cubeful with Janowski's cube-life "
                "model (gnubg defaults) at the decision's score and cube; money: per unit cube")

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each analysed decision."""


class _Rollouts:
    """Checker and cube analysis by rollouts with the settings and seed of one analysis."""

    def __init__(self, settings: RolloutReview, seed: int, met: MatchEquityTable | None) -> None:
        self.settings = settings
        self.seed = seed
        self.met = met

    def checker(self, engine: Evaluator, d: Decision, first: CheckerAnalysis) -> CheckerAnalysis:
        """Roll out the best candidates of ``first`` (a 0-ply analysis: at most ``plays`` within
        ``threshold`` of the best) and the played play, with the same dice for all
        (:func:`analyzer.eval.rollout.rollout`): cubeful EMG at the match score, or, when the engine
        has no cube, the points of a cubeless game played out. A forced play is returned as it is."""
        if first.forced:
            return first
        s = self.settings
        assert d.dice is not None
        top = [c for c in first.candidates[: s.plays] if c.equity >= first.best.equity - s.threshold]
        chosen: dict[Position, tuple[str, Position]] = {}
        for c in [*top, first.played]:
            chosen.setdefault(c.result, (c.play, c.result))
        score: dict[str, Any] = {"match": d.state, "player": d.side, "met": self.met} if engine.cubeful else {}
        res = rollout(engine, d.position, s.trials_settings(self.seed), dice=d.dice, plays=list(chosen.values()),
                      **score)
        cands = [Candidate(str(c.play), c.result, float(c.value), c.probabilities, 0) for c in res.candidates]
        cands.sort(key=lambda c: -c.equity)
        mine = next(c for c in cands if c.result == first.played.result)
        return CheckerAnalysis(tuple(cands), mine, first.legal)

    def cube(self, engine: Evaluator, d: Decision) -> CubeDecision:
        """The cube decision of the player on roll from the rolled-out position."""
        return rollout_cube(engine, d.position, d.state, d.on_roll, self.settings.trials_settings(self.seed),
                            met=self.met)


@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    """The analysis of one match: ``decisions`` (one row per decision, schema
    :data:`~analyzer.analysis.schema.DECISIONS_SCHEMA`) and ``summary`` (its metadata, the match
    and the players' statistics, :class:`~analyzer.analysis.summary.AnalysisSummary`;
    ``summary.as_dict()`` is ``summary.json``)."""

    decisions: pl.DataFrame
    summary: AnalysisSummary

    @property
    def metadata(self) -> AnalysisMetadata:
        """How the analysis was made (``summary.metadata``)."""
        return self.summary.metadata

    @property
    def players(self) -> tuple[PlayerStats, ...]:
        """The per-player statistics (``summary.players``)."""
        return self.summary.players

    def worst(self, n: int = 5) -> pl.DataFrame:
        """The ``n`` decisions that lost the most equity (ties in table order), with
        ``rank_decided``: whether the ranking really places each where it stands. It is ``False``
        when a decision's loss and its neighbour's in the ranking (the next one too, past the
        ``n``-th) differ by less than the larger of their standard errors (``loss_se``: a rollout's;
        none for an n-ply value): the order of the two is left to the noise of a rollout.

        >>> rows = pl.DataFrame({"equity_loss": [0.736, 0.6, 0.3, 0.29], "loss_se": [0.233, None, 0.002, 0.004]})
        >>> MatchAnalysis(rows, None).worst(3)["rank_decided"].to_list()  # 736 +- 233 above 600
        [False, False, True]
        >>> MatchAnalysis(rows, None).worst(2)["rank_decided"].to_list()
        [False, False]
        >>> MatchAnalysis(rows.with_columns(loss_se=pl.lit(0.001)), None).worst(3)["rank_decided"].to_list()
        [True, True, True]
        """
        ranked = (self.decisions.with_row_index("_i")
                  .filter(pl.col("equity_loss") > 0)
                  .sort(["equity_loss", "_i"], descending=[True, False])
                  .head(n + 1).drop("_i"))
        loss = ranked["equity_loss"].to_list()
        se = ranked["loss_se"].to_list() if "loss_se" in ranked.columns else [None] * len(loss)
        gap = rank_undecided(loss, se)
        decided = [not ((i > 0 and gap[i - 1]) or (i < len(gap) and gap[i])) for i in range(len(loss))]
        return ranked.with_columns(rank_decided=pl.Series(decided, dtype=pl.Boolean)).head(n)


# ---------------------------------------------------------------------- helpers
def _engine_info(engine: Evaluator | None) -> EngineInfo:
    """What to record of an evaluator (``None``: no standard engine was needed or loaded), as it
    describes itself (:meth:`~analyzer.eval.protocol.Evaluator.describe`).

    >>> _engine_info(None).evaluator is None
    True
    """
    if engine is None:
        return EngineInfo(ENGINE_NAME, __version__)
    info = engine.describe()
    return EngineInfo(ENGINE_NAME, __version__, info.evaluator, info.nets, info.feature_version, info.bearoff)


def _dice_text(dice: tuple[int, int] | None) -> str | None:
    return None if dice is None else f"{dice[0]}{dice[1]}"


def _mwc_before(met: MatchEquityTable, state: MatchState, player: int) -> float:
    return mwc(met, state.away(player), state.away(1 - player), post_crawford=state.post_crawford)


def _game_results(games: list[GameReplay], met: MatchEquityTable | None, *, points: bool = False) -> list[float]:
    """Each player's actual result summed over the analysed games: MWC gained (match) or points
    (money play, or every game with ``points``; a drawn game counts 0)."""
    out = [0.0, 0.0]
    for g in games:
        if g.winner is None or g.points <= 0:
            continue
        for p in (0, 1):
            sign = 1 if p == g.winner else -1
            if points or met is None or g.state.is_money:
                out[p] += sign * g.points
            else:
                after = outcome_mwc(met, g.state, p)(sign * g.points)
                out[p] += after - _mwc_before(met, g.state, p)
    return out


def _game_summaries(games: list[GameReplay], players: list[str]) -> tuple[GameResult, ...]:
    """How each replayed game ended: ``end`` (``bearoff``, ``mother``, ``draw``, ``drop``,
    ``resign``, ``unfinished``), the winner's side and name and the points (cube included)."""
    out = []
    for g in games:
        if g.error is not None:
            continue
        out.append(GameResult(g.number, g.variant, g.end, g.winner,
                              None if g.winner is None else players[g.winner], g.points))
    return tuple(out)


def _final_score(games: list[GameReplay]) -> tuple[int, ...] | None:
    if not games:
        return None
    last = games[-1]
    score = list(last.state.score)
    if last.winner is not None:
        score[last.winner] += last.points
    return tuple(score)


def _previous_points(record: MatchRecord, games: list[GameReplay], index: int) -> int | None:
    """What the game before ``games[index]`` was worth, for who opens the next one (``None`` for
    the first game): its replayed result or, when it did not replay, what the two score lines
    say (the points gained by the one side that gained; 0 when they do not tell a winner).

    ``games`` are :func:`~analyzer.analysis.replay.replay_games` of ``record``, one per game of
    the record and in its order.
    """
    if index == 0:
        return None
    previous = games[index - 1]
    if previous.error is None:
        return previous.points
    before, after = record.games[index - 1], record.games[index]
    if after.number != before.number + 1:
        return 0
    gained = [a - b for a, b in zip(after.score, before.score, strict=True)]
    if min(gained) == 0 and max(gained) > 0:
        return max(gained)
    return 0


def _candidate_dicts(ca: CheckerAnalysis) -> list[dict[str, Any]]:
    return [{"play": c.play, "equity": c.equity, "win": c.probabilities.win,
             "win_gammon": c.probabilities.win_gammon, "win_backgammon": c.probabilities.win_backgammon,
             "lose_gammon": c.probabilities.lose_gammon, "lose_backgammon": c.probabilities.lose_backgammon,
             "draw": c.probabilities.draw}
            for c in ca.candidates]


class _Rows:
    """Builds decision rows with the shared columns filled in."""

    def __init__(self, ply: int, thresholds: Thresholds, met: MatchEquityTable | None, method: str,
                 trials: int | None = None) -> None:
        self.ply = ply
        self.thresholds = thresholds
        self.met = met
        self.method = method
        self.trials = trials
        self.rows: list[dict[str, Any]] = []

    def base(self, d: Decision, kind: str, side: int, player: str) -> dict[str, Any]:
        s = d.state
        return {"file": d.file, "game": d.game, "move_no": d.move, "player": player, "side": side,
                "kind": kind, "variant": d.variant, "dice": None, "match_length": s.length,
                "score_me": s.score[side], "score_opp": s.score[1 - side], "cube": s.cube,
                "candidates": [], "cube_nd": None, "cube_dt": None, "cube_dp": None,
                "cube_action": None, "close": None, "cube_error": None, "luck": None,
                "luck_mwc": None, "ply": self.ply, "method": self.method, "trials": self.trials,
                "loss_se": None, "rank_trials": None, "equity_loss_first": None, "cube_win": None,
                "cube_win_gammon": None, "cube_win_backgammon": None, "cube_lose_gammon": None,
                "cube_lose_backgammon": None, "take_point": None, "gammon_value": None, "gammon_value_taker": None}

    def put(self, row: dict[str, Any], at: int | None) -> int:
        """Append ``row`` (or, with ``at``, put it in place of row ``at``); returns its index."""
        if at is None:
            self.rows.append(row)
            return len(self.rows) - 1
        self.rows[at] = row
        return at

    def confirmed(self, row: dict[str, Any], how: Confirmed | None, first_loss: float) -> None:
        """Mark ``row`` as valued again by the confirmation pass (its first loss kept)."""
        if how is not None:
            row.update(method=how.method, trials=how.trials, loss_se=how.loss_se, rank_trials=how.rank_trials,
                       equity_loss_first=first_loss)

    def losses(self, row: dict[str, Any], state: MatchState, side: int, played: float,
               best: float, *, cubeless: bool = False) -> None:
        loss = max(0.0, best - played)
        row["equity_played"] = played
        row["equity_best"] = best
        row["equity_loss"] = loss
        met = None if cubeless else self.met
        mb, mp = to_mwc(met, state, side, best), to_mwc(met, state, side, played)
        row["mwc_loss"] = None if mb is None or mp is None else max(0.0, mb - mp)
        row["mwc"] = mb
        row["error_class"] = self.thresholds.classify(loss)

    def checker(self, d: Decision, ca: CheckerAnalysis, luck: float, luck_mwc: float | None,
                how: Confirmed | None = None, first_loss: float = 0.0, *, at: int | None = None,
                points_ply: int | None = None) -> int:
        """A checker row. ``points_ply``: the play was valued by an engine without a cube, at that
        ply (a game without a cube: no cube, no IDs but the key, points not EMG)."""
        ids = decision_ids(d)
        cubeless = points_ply is not None
        row = self.base(d, "checker", d.side, d.player)
        row.update(dice=_dice_text(d.dice), position_id=None if cubeless else ids.position_id or None,
                   match_id=None if cubeless else ids.match_id or None, xgid=None if cubeless else ids.xgid or None,
                   key=ids.key, played=ca.played.play, best=ca.best.play, forced=ca.forced, luck=luck,
                   luck_mwc=luck_mwc, win_prob=ca.best.probabilities.win)
        if points_ply is not None:
            row.update(cube=None, ply=points_ply)
            if self.method.endswith("-ply"):
                row["method"] = f"{points_ply}-ply"
        self.losses(row, d.state, d.side, ca.played.equity, ca.best.equity, cubeless=cubeless)
        row["candidates"] = _candidate_dicts(ca)
        self.confirmed(row, how, first_loss)
        return self.put(row, at)

    def cube(self, d: Decision, cd: CubeDecision, score: CubeScore, *, taker: bool,
             how: Confirmed | None = None, first_loss: float = 0.0, at: int | None = None) -> int:
        side = 1 - d.on_roll if taker else d.on_roll
        player = d.player
        row = self.base(d, "take" if taker else "cube", side, player)
        pos = d.position.flip() if taker else d.position
        if has_cube(d.variant):
            if taker:
                ids = decision_ids(d)
                pid, mid, xgid = ids.position_id, ids.match_id, ids.xgid
            else:
                pid = encode_position_id(d.position)
                mid = match_id_from_state(d.state, on_roll=side, game_state=1).encode()
                xgid = str(xgid_from_position(d.position, d.state, mover=side, bottom=1))
            row.update(position_id=pid, match_id=mid, xgid=xgid)
        else:
            row.update(position_id=None, match_id=None, xgid=None)
        win = cd.probabilities.win
        row.update(key=encode_key(pos), played=score.played, best=score.best,
                   forced=not score.close, close=score.close, cube_error=score.cube_error,
                   win_prob=1.0 - win if taker else win, cube_nd=cd.nd, cube_dt=cd.dt, cube_dp=cd.dp,
                   cube_action=cd.action)
        p = cd.probabilities
        row.update(cube_win=p.win, cube_win_gammon=p.win_gammon, cube_win_backgammon=p.win_backgammon,
                   cube_lose_gammon=p.lose_gammon, cube_lose_backgammon=p.lose_backgammon,
                   take_point=cd.take_point, gammon_value=cd.gammons.me_gammon,
                   gammon_value_taker=cd.gammons.opp_gammon)
        self.losses(row, d.state, side, score.equity_played, score.equity_best)
        self.confirmed(row, how, first_loss)
        return self.put(row, at)


def _luck(engine: Evaluator, d: Decision, met: MatchEquityTable | None,
          opening: str | None) -> tuple[float, float | None]:
    """The luck of a decision's roll (:mod:`analyzer.analysis.luck`) and, at a match score, in MWC: for an
    engine with a cube, cubeful at the score (the opening roll against the opponent's rolls); for one
    without, in points of the game (its first roll as the variant's opening ``opening`` says:
    :func:`~analyzer.analysis.variants.opening_kind`), with no MWC."""
    assert d.dice is not None
    first = d.move == 1
    if not engine.cubeful:
        values = variant_roll_values(engine, d.position)
        opp_values = (variant_roll_values(engine, d.position.flip())
                      if first and opening == "die-off" and d.position.flip() != d.position else None)
        return variant_luck(values, d.dice, opening=opening if first else None, opponent=opp_values), None
    values = roll_values(engine, d.position, d.state, d.side, met)
    opp_values = roll_values(engine, d.position.flip(), d.state, 1 - d.side, met) if first else None
    luck = luck_of(values, d.dice, opening=first, opponent=opp_values)
    return luck, mwc_luck(luck, d.state, d.side, met)


def _cube_probabilities(engine: Evaluator, games: list[GameReplay], ply: int) -> dict[Position, Probabilities]:
    """Cubeless probabilities at ``ply`` of every position where a player on roll could double,
    evaluated in one batch (the engine spreads a batch over its threads)."""
    if ply == 0:
        return {}
    todo: dict[Position, None] = {}
    for g in games:
        for d in g.decisions:
            if d.kind in ("move", "double") and d.move > 1 and cube_available(d.state, d.on_roll):
                todo[d.position] = None
    if not todo:
        return {}
    positions = list(todo)
    boards = np.stack([np.frombuffer(p.board, dtype=np.int8) for p in positions])
    out = engine.evaluate_boards(boards, ply).tolist()
    return {p: Probabilities.from_outcomes(o) for p, o in zip(positions, out, strict=True)}


def _confirmed_counts(decisions: pl.DataFrame, thresholds: Thresholds, wanted: int) -> ConfirmedCounts:
    """How many decisions the confirmation pass valued again, by kind and method, how many of them
    changed error class (``downgraded``: a smaller class, ``upgraded``: a bigger one) and how many
    it would have valued again without its limit (``wanted``)."""
    again = decisions.filter(pl.col("equity_loss_first").is_not_null())
    order = {name: i for i, name in enumerate(["none", *(n for n, _ in thresholds.levels)])}
    down = up = 0
    for first, now in again.select("equity_loss_first", "error_class").iter_rows():
        a, b = order[thresholds.classify(first)], order[now]
        down += b < a
        up += b > a
    by_kind = {k: int(n) for k, n in again.group_by("kind").len().iter_rows()}
    by_method = {m: int(n) for m, n in again.group_by("method").len().iter_rows()}
    return ConfirmedCounts(again.height, dict(sorted(by_kind.items())), dict(sorted(by_method.items())), down, up,
                           wanted)


HEADLINE = 5
"""The worst decisions a review shows first (the terminal's table): the confirmation pass values
them all again, past its limit if it must (:meth:`_Jobs.run`)."""


@dataclass(frozen=True, slots=True)
class _Job:
    """A decision the confirmation pass may value again (one row, or a double and its take): the
    first pass's loss, how doubtful its error class is (:func:`~analyzer.analysis.confirm.doubt`, its
    priority), the rows it covers, and the call that values it again and puts its rows in place of
    the first pass's."""

    loss: float
    doubt: float
    rows: tuple[int, ...]
    run: Callable[[], None]
    cube: bool = False
    goal: tuple[Confirmer, int, int] | None = None
    """A checker play: its confirmer, game and move (where a goal for its standard error is set:
    :meth:`_Jobs.settle_ranks`)."""


def _checker_signed(ca: CheckerAnalysis) -> float:
    """A checker play's signed first-pass loss: its loss, or minus the margin of the best play."""
    if ca.loss > 0 or len(ca.candidates) < 2:
        return ca.loss
    return -(ca.candidates[0].equity - ca.candidates[1].equity)


class _Jobs:
    """The decisions the confirmation pass wants, gathered during the first pass and valued again
    after it, the most doubtful first, at most ``limit`` of them, then any that could still be among
    the review's worst. The order changes no value: a decision's rollouts are seeded by its game and
    move alone."""

    def __init__(self, rows: _Rows, thresholds: Thresholds, engine: Evaluator, deep_filter: MoveFilter) -> None:
        """``engine``: the one that values the cube decisions (the checker plays name theirs)."""
        self.rows = rows
        self.thresholds = thresholds
        self.engine = engine
        self.deep_filter = deep_filter
        self.jobs: list[_Job] = []
        self._double: tuple[Confirmer, Decision, CubeDecision, float, int] | None = None
        self.done: set[int] = set()
        """The jobs valued again (indices into ``jobs``)."""

    @property
    def wanted(self) -> int:
        """The rows the pass would value again without a limit."""
        return sum(len(j.rows) for j in self.jobs)

    def checker(self, c: Confirmer, engine: Evaluator, d: Decision, ca: CheckerAnalysis, luck: float,
                luck_mwc: float | None, at: int, points_ply: int | None = None) -> None:
        """A checker play valued by ``engine`` (``points_ply``: as :meth:`_Rows.checker`)."""
        dice = d.dice
        assert dice is not None

        def run() -> None:
            again, how = c.checker(engine, d.position, dice, d.state, d.side, ca, game=d.game, move=d.move,
                                   deep_filter=self.deep_filter)
            self.rows.checker(d, again, luck, luck_mwc, how, ca.loss, at=at, points_ply=points_ply)
        self.jobs.append(_Job(ca.loss, doubt(_checker_signed(ca), "checker", self.thresholds), (at,), run,
                              goal=(c, d.game, d.move)))

    def cube(self, c: Confirmer, d: Decision, first: CubeDecision, loss: float, at: int) -> None:
        """A cube decision where the player did not double (``first``: the first pass's, ``loss`` its
        loss)."""
        def run() -> None:
            cd, how = c.cube(self.engine, d.position, d.state, d.on_roll, game=d.game, move=d.move,
                             played=(False, None))
            self.rows.cube(d, cd, score_cube(cd, False, close_cut=self.thresholds.close_cube), taker=False, how=how,
                           first_loss=loss, at=at)
        self.jobs.append(_Job(loss, doubt(cube_signed(first, False), "cube", self.thresholds), (at,), run, True))

    def double(self, c: Confirmer, d: Decision, first: CubeDecision, loss: float, at: int) -> None:
        """A double: valued again with its take (:meth:`take`), or alone (:meth:`flush_double`)."""
        self.flush_double()
        self._double = (c, d, first, loss, at)

    def take(self, d: Decision, took: bool, loss: float, at: int) -> None:
        """The take or pass of the double before it: both rows from one valuation of the double."""
        self._flush((d, took, loss, at))

    def flush_double(self) -> None:
        """A double without a take row after it, valued again alone."""
        self._flush(None)

    def _flush(self, answer: tuple[Decision, bool, float, int] | None) -> None:
        """The pending double as one decision, with its take or pass (``answer``: the decision, whether
        it took, its first-pass loss and its row) when it had one."""
        if self._double is None:
            return
        c, dd, first_cd, first_double, at_double = self._double
        self._double = None
        doubt_double = doubt(cube_signed(first_cd, True), "cube", self.thresholds)

        def run() -> None:
            cd, how = c.cube(self.engine, dd.position, dd.state, dd.on_roll, game=dd.game, move=dd.move,
                             played=(True, None if answer is None else answer[1]))
            self.rows.cube(dd, cd, score_cube(cd, True, close_cut=self.thresholds.close_cube), taker=False, how=how,
                           first_loss=first_double, at=at_double)
            if answer is not None:
                d, took, first_take, at = answer
                take_how = how if how.take_se is None else dataclasses.replace(
                    how, loss_se=how.take_se, trials=how.trials if how.take_trials is None else how.take_trials)
                self.rows.cube(d, cd, score_take(cd, took), taker=True, how=take_how, first_loss=first_take, at=at)
        if answer is None:
            self.jobs.append(_Job(first_double, doubt_double, (at_double,), run, True))
        else:
            doubt_take = doubt(take_signed(first_cd, answer[1]), "take", self.thresholds)
            self.jobs.append(_Job(max(first_double, answer[2]), max(doubt_double, doubt_take),
                                  (at_double, answer[3]), run, True))

    def run(self, limit: int | None, progress: Progress | None, cube_doubt: float | None = None,
            blunders: bool = False) -> None:
        """Value the decisions again, the most doubtful first (their error class the likeliest to
        change): ``limit`` of them (``None``: all; a double and its take or pass are one), every
        cube decision at least ``cube_doubt`` doubtful (``None``: none past the limit) and, with
        ``blunders``, every one the first pass puts in the worst error class; then the rest by
        first-pass loss, largest first, while the next one's would still place it among the
        :data:`HEADLINE` worst of the review as it stands (so that the worst decisions a review
        shows were all valued again)."""
        worst = self.thresholds.classes[-1]
        order = sorted(range(len(self.jobs)), key=lambda k: (-self.jobs[k].doubt, -self.jobs[k].loss, k))
        chosen, rest = order, []
        if limit is not None:
            chosen, within = [], 0
            for k in order:
                job = self.jobs[k]
                if (job.cube and cube_doubt is not None and job.doubt >= cube_doubt) or \
                        (blunders and self.thresholds.classify(job.loss) == worst):
                    chosen.append(k)
                elif within < limit:
                    chosen.append(k)
                    within += 1
                else:
                    rest.append(k)
            rest.sort(key=lambda k: (-self.jobs[k].loss, k))
        for n, k in enumerate(chosen, 1):
            self.jobs[k].run()
            self.done.add(k)
            if progress is not None:
                progress(n, len(chosen))
        for n, k in enumerate(rest, len(chosen) + 1):
            if self.jobs[k].loss <= self._headline_cut(self.jobs[k].rows):
                break
            self.jobs[k].run()
            self.done.add(k)
            if progress is not None:
                progress(n, n)

    def settle_ranks(self, max_steps: int = 64) -> None:
        """Roll further the checker plays whose rank among the :data:`HEADLINE` worst (and the one
        past them) a rollout's noise decides (:func:`~analyzer.analysis.confirm.rank_undecided`):
        each such play gets as its goal a standard error no larger than the gap to its neighbour, and
        is valued again (its earlier rounds are not replayed) until it reaches it or the confirmation's
        ``rank_max_trials`` games; not where the standard error either of the two can expect at that
        cap (:meth:`_rank_floor`: a cube decision's stays as it is) is still larger than the gap, for
        those games would leave the pair undecided all the same. Repeated while a goal tightens (the
        order may change as the values do); what the cap leaves undecided the worst list marks so.
        Cube decisions are not rolled further. Deterministic: the extra rounds are seeded like the
        first. A decision not valued again that a settled value lets into the :data:`HEADLINE` worst
        is valued again first (the worst a review shows were all valued again)."""
        by_row = {j.rows[0]: j for j in self.jobs if j.goal is not None}
        pending = {i: k for k, j in enumerate(self.jobs) if k not in self.done for i in j.rows}
        for _ in range(max_steps):
            rows = self.rows.rows
            ranked = sorted((i for i, r in enumerate(rows) if r["equity_loss"] > 0),
                            key=lambda i: (-rows[i]["equity_loss"], i))[: HEADLINE + 1]
            first = [pending[i] for i in ranked[:HEADLINE] if i in pending and pending[i] not in self.done]
            if first:
                for k in sorted(set(first)):
                    self.jobs[k].run()
                    self.done.add(k)
                continue
            loss = [float(rows[i]["equity_loss"]) for i in ranked]
            se = [rows[i]["loss_se"] for i in ranked]
            goals: dict[int, float] = {}
            for n, open_ in enumerate(rank_undecided(loss, se)):
                if not open_:
                    continue
                gap = loss[n] - loss[n + 1]
                if max(self._rank_floor(ranked[n], by_row), self._rank_floor(ranked[n + 1], by_row)) > gap:
                    continue  # out of reach: the cap's games would leave the pair undecided
                for m in (n, n + 1):
                    i = ranked[m]
                    job, r = by_row.get(i), rows[i]
                    if job is None or job.goal is None or r["loss_se"] is None or r["loss_se"] <= gap \
                            or r["method"] != "rollout":
                        continue
                    c = job.goal[0]
                    if r["trials"] is not None and r["trials"] >= c.settings.rank_cap:
                        continue
                    goals[i] = min(goals.get(i, gap), gap)
            moved = False
            for i, gap in sorted(goals.items()):
                job = by_row[i]
                assert job.goal is not None
                c, game, move = job.goal
                if (game, move) in c.goals and c.goals[(game, move)] <= gap:
                    continue
                c.goals[(game, move)] = gap
                job.run()
                moved = True
            if not moved:
                return

    def _rank_floor(self, i: int, by_row: dict[int, _Job]) -> float:
        """The standard error row ``i``'s loss would have at the most games :meth:`settle_ranks` may
        give it (:func:`~analyzer.analysis.confirm.rank_floor`): its own where it is not a checker play
        rolled out (a cube decision, an n-ply value: 0 for none), which no further games reduce."""
        r, job = self.rows.rows[i], by_row.get(i)
        se = r["loss_se"]
        if se is None:
            return 0.0
        if job is None or job.goal is None or r["method"] != "rollout" or not r["trials"]:
            return float(se)
        return rank_floor(float(se), int(r["trials"]), job.goal[0].settings.rank_cap)

    def _headline_cut(self, own: tuple[int, ...]) -> float:
        """The smallest loss among the :data:`HEADLINE` worst rows as they stand, ``own`` rows left out
        (0 when fewer)."""
        rows = self.rows.rows
        losses = heapq.nlargest(HEADLINE, (float(r["equity_loss"]) for i, r in enumerate(rows) if i not in own))
        return losses[-1] if len(losses) == HEADLINE else 0.0


# ---------------------------------------------------------------------- the analysis
def _search_workers(settings: ReviewSettings) -> int:
    """The processes that share a cubeless engine's search at 1 and 2 ply in a review (the standard
    engine's own threads do it for its): those of the confirmation, else of the rollouts, else the
    review's ``workers``, else two (the rollouts' default).

    >>> _search_workers(ReviewSettings(confirm=ConfirmSettings(workers=3))), _search_workers(ReviewSettings(workers=1))
    (3, 1)
    """
    if settings.confirm is not None:
        return settings.confirm.workers
    if settings.rollout is not None:
        return settings.rollout.workers
    return settings.workers if settings.workers is not None else RolloutSettings().workers


def analyze_match(record: MatchRecord, settings: ReviewSettings | None = None, *, engine: Evaluator | None = None,
                  variant_engines: Mapping[str, Evaluator] | None = None, progress: Progress | None = None,
                  ply: int | None = None, thresholds: Thresholds | None = None, met: MatchEquityTable | None = None,
                  seed: int | None = None, move_filter: MoveFilter | None = None, deep_filter: MoveFilter | None = None,
                  rollout: RolloutReview | None = None, confirm: ConfirmSettings | None = None) -> MatchAnalysis:
    """Review ``record`` as ``settings`` say (:class:`~analyzer.analysis.settings.ReviewSettings`; see
    the module docstring).

    ``engine`` may be ``None``: the shipped standard engine is then loaded only if the match has
    a standard game that replays (a Dutch or Mahbusa match needs none, and its metadata names
    none). Dutch and Mahbusa games are reviewed with ``variant_engines[variant]``, or else with the
    engine :func:`~analyzer.analysis.variants.load_variant_engine` finds (:class:`NoEvaluatorError`
    when there is none); with ``settings.rollout`` their checker plays are rolled out, cubeless and
    played out (:func:`analyzer.eval.rollout.rollout` of their engine). ``progress(done,
    total)`` is called after each decision.

    The settings are checked against the capabilities of the engines the match's games need
    (:meth:`ReviewSettings.for_engines`): a ply deeper than a variant's engine searches, or a
    truncated rollout of a variant played out, raises :class:`~analyzer.core.errors.SettingsError`
    (a :class:`ValueError`) before any decision is valued.

    ``settings.confirm`` runs the confirmation pass (:mod:`analyzer.analysis.confirm`) over the
    decisions that would be shown as errors, the close ones and every cube decision that was doubled:
    their values are replaced by the stronger method's (rows record ``method``, ``trials``,
    ``loss_se`` and the first pass's loss).

    The keywords ``ply`` to ``confirm`` are the older form of the settings (the Python API's examples
    used ``ply=``): without ``settings`` they make the :class:`ReviewSettings` with those fields,
    checked the same way; with it they raise :class:`TypeError`.
    """
    old = {"ply": ply, "thresholds": thresholds, "met": met, "seed": seed, "move_filter": move_filter,
           "deep_filter": deep_filter, "rollout": rollout, "confirm": confirm}
    if settings is None:
        settings = ReviewSettings(
            ply=2 if ply is None else ply, thresholds=XG if thresholds is None else thresholds, met=met,
            seed=0 if seed is None else seed, move_filter=ANALYSIS_FILTER if move_filter is None else move_filter,
            deep_filter=DEEP_FILTER if deep_filter is None else deep_filter, rollout=rollout, confirm=confirm)
    elif any(v is not None for v in old.values()):
        given = ", ".join(k for k, v in old.items() if v is not None)
        raise TypeError(f"analyze_match takes the settings or their keywords, not both (got settings and {given})")
    games = list(replay_games(record))
    good = [g for g in games if g.error is None]
    engines: dict[str, Evaluator] = dict(variant_engines or {})
    for g in good:
        if not has_cube(g.variant) and g.variant not in engines:
            engines[g.variant] = load_variant_engine(g.variant, _search_workers(settings))
    if engine is None and any(g.variant not in engines for g in good):
        engine = Engine()
    std = cast(Evaluator, engine)  # None only when every game has a variant engine, and then never used

    def engine_of(g: GameReplay) -> Evaluator:
        """The engine of a game's variant: what differs between games, it answers (cube, ply, equity)."""
        return engines.get(g.variant, std)

    settings = settings.for_engines(tuple(sorted({EngineCapabilities.of(engine_of(g)) for g in good},
                                                 key=lambda c: c.variant)))
    ply, thresholds, seed, rollout = settings.ply, settings.thresholds, settings.seed, settings.rollout
    move_filter, deep_filter, confirm = settings.move_filter, settings.deep_filter, settings.confirm
    cubeful_games = [g for g in good if engine_of(g).cubeful]
    cubeless = len(cubeful_games) < len(good) or (not good and not has_cube(record.variant))
    table = settings.met if settings.met is not None else met_by_name()
    match_met = None if not record.length else table
    first_label = f"{ply}-ply" if rollout is None else "rollout"
    rows = _Rows(ply if rollout is None else 0, thresholds, match_met, first_label,
                 None if rollout is None else rollout.trials)
    confirmer = None if confirm is None or rollout is not None else Confirmer(
        confirm, thresholds, seed, match_met, move_filter=move_filter)
    total = sum(len(g.decisions) for g in good)
    done = 0

    rolls = None if rollout is None else _Rollouts(rollout, seed, match_met)
    # the cube valued by the engine's n-ply cubeful search when it offers one (at 0-ply: the cube model)
    search = rolls is None and ply > 0 and engine is not None and engine.cube is not None
    before_roll = _cube_probabilities(std, cubeful_games, ply) if rolls is None and not search else {}

    def cube_of(d: Decision) -> CubeDecision:
        if rolls is not None:
            return rolls.cube(std, d)
        if search:
            return cube_decision_nply(std, d.position, d.state, d.on_roll, ply, met=match_met)
        return analyze_cube(d.position, d.state, d.on_roll, evaluate, met=match_met)

    def evaluate(pos: Position) -> Probabilities:
        got = before_roll.get(pos)
        return got if got is not None else std.evaluate(pos, ply)

    jobs = _Jobs(rows, thresholds, std, deep_filter)
    checker_ply = ply if rolls is None else 0  # rollouts: from the 0-ply ranking
    for index, g in enumerate(games):
        if g.error is not None:
            continue
        game_engine = engine_of(g)
        cubeful = game_engine.cubeful  # without a cube: checker plays only, valued in points of the game
        game_met = match_met if cubeful else None
        points_ply = None if cubeful else checker_ply
        opening = None if cubeful else opening_kind(g.variant, index, _previous_points(record, games, index))
        pending: CubeDecision | None = None
        doubled = False
        for d in g.decisions:
            if d.kind == "move" and d.dice is not None:
                if cubeful and d.move > 1 and not doubled and cube_available(d.state, d.side):
                    cd = cube_of(d)
                    if cd.available:
                        score = score_cube(cd, False, close_cut=thresholds.close_cube)
                        at = rows.cube(d, cd, score, taker=False)
                        if confirmer is not None and score.close:
                            jobs.cube(confirmer, d, cd, score.loss, at)
                doubled = False
                assert d.result is not None
                luck, luck_mwc = _luck(game_engine, d, game_met, opening)
                ca = analyze_checker(game_engine, d.position, d.dice, d.result, d.state, d.side, ply=checker_ply,
                                     met=game_met, move_filter=move_filter, deep_filter=deep_filter)
                if rolls is not None:
                    ca = rolls.checker(game_engine, d, ca)
                at = rows.checker(d, ca, luck, luck_mwc, points_ply=points_ply)
                if confirmer is not None and wants_checker(ca, confirmer.settings):
                    jobs.checker(confirmer, game_engine, d, ca, luck, luck_mwc, at, points_ply=points_ply)
            elif not cubeful:  # no cube: no double, take or pass to value
                pass
            elif d.kind == "double" and d.side == d.on_roll:
                jobs.flush_double()
                pending = cube_of(d)
                if pending.available:
                    score = score_cube(pending, True, close_cut=thresholds.close_cube)
                    at = rows.cube(d, pending, score, taker=False)
                    if confirmer is not None:
                        jobs.double(confirmer, d, pending, score.loss, at)
                doubled = True
            elif d.kind in ("take", "drop") or (d.kind == "double" and d.side != d.on_roll):
                if pending is not None and pending.available:
                    took = d.kind != "drop"
                    score = score_take(pending, took)
                    at = rows.cube(d, pending, score, taker=True)
                    jobs.take(d, took, score.loss, at)
                pending = None
            done += 1
            if progress is not None:
                progress(done, total)
        jobs.flush_double()
    if confirmer is not None:
        jobs.run(confirmer.settings.limit, None if progress is None else lambda n, m: progress(total + n, total + m),
                 confirmer.settings.cube_doubt, confirmer.settings.blunders)
        jobs.settle_ranks()

    decisions = pl.DataFrame(rows.rows, schema=DECISIONS_SCHEMA, orient="row") if rows.rows \
        else pl.DataFrame(schema=DECISIONS_SCHEMA)
    metadata = AnalysisMetadata(
        engine=_engine_info(engine),
        variant_engines={name: _engine_info(e) for name, e in sorted(engines.items())} if engines else None,
        ply=ply if rollout is None else None,
        rollout=None if rollout is None else RolloutRecord(
            trials=rollout.trials, truncate=rollout.truncate, workers=rollout.workers, plays=rollout.plays,
            threshold=rollout.threshold, playing_ply=0,
            variance_reduction=any(engine_of(g).variance_reduction for g in good), seed=seed,
            variants="cubeless, every game played out, no variance reduction, the same dice for every candidate"
            if engines else None),
        variant_ply=ply if rollout is None and engines else None,
        luck_ply=0,
        confirm=None if confirmer is None or confirm is None else ConfirmRecord.from_json(confirm.as_dict()),
        move_filter=FilterRecord(move_filter.count, move_filter.threshold),
        deep_filter=FilterRecord(deep_filter.count, deep_filter.threshold),
        seed=seed,
        thresholds=thresholds.as_dict(),
        met=table.name if record.length and not cubeless else None,
        equity=(VARIANT_EQUITY_BASIS if cubeless and not cubeful_games
                else EQUITY_BASIS + ("; " + VARIANT_EQUITY_BASIS if cubeless else ""))
        + ("; decisions valued by rollouts instead (metadata.rollout)" if rollout is not None else ""),
        cube_model=None if cubeless and not cubeful_games
        else "Janowski cube life (gnubg: 0.68 contact, race 0.55 + 0.00125 x pips in [0.6, 0.7])",
        schema_version=SCHEMA_VERSION,
    )
    players = list(record.players)
    results = _game_results(good, match_met, points=cubeless)
    money = not record.length
    match = MatchInfo(
        file=record.source,
        players=tuple(players),
        length=record.length,
        event=record.event,
        round=record.round,
        date=record.date,
        site=record.site,
        games=len(games),
        games_analysed=len(good),
        score_final=_final_score(good),
        errors=tuple(str(g.error) for g in games if g.error is not None),
        variant=record.variant,
        cube=not cubeless,
        results=_game_summaries(games, players),
        confirmed=_confirmed_counts(decisions, thresholds, jobs.wanted) if confirmer is not None else None,
    )
    summary = AnalysisSummary(metadata, match,
                              player_stats(decisions, thresholds, players, results, money=money or cubeless))
    return MatchAnalysis(decisions, summary)
