"""Our review of a match as gnubg SGF: the moves, and on them our analysis in gnubg's own
analysis properties (:mod:`analyzer.formats.sgf_writer`), so that GNU Backgammon opens the file and
shows our numbers as if it had made them.

The decisions table of :func:`analyzer.analysis.analyze.analyze_match` is laid onto the actions
of each normalised game, in order: a ``cube`` row goes on the roll after it (no double) or on the
double, a ``checker`` row on its roll (its candidates as gnubg's candidate list, the luck), and
``take`` rows have no analysis in gnubg's files. Candidate plays are turned back into their hops
with the rules; equities stay normalised (EMG, gnubg's unit for plays); the cube's no double and
double/take values go in gnubg's unit, match-winning chance in a match (through the review's
match equity table) and normalised equity in money play. The cubeless chances of a cube decision
are evaluated again at the review's ply (the table keeps only the chance of winning).

A game whose rows do not line up with its actions (it should not happen) is written without
analysis rather than with wrong numbers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

import numpy as np

from analyzer.analysis.normalise import normalised_games
from analyzer.analysis.replay import replay_games
from analyzer.analysis.thresholds import XG, Thresholds
from analyzer.core.errors import InputError
from analyzer.core.files import atomic_writer
from analyzer.core.ids import decode_key
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.core.variants import DEFAULT_VARIANT, has_cube
from analyzer.eval.met import MatchEquityTable, emg_to_mwc, met_by_name
from analyzer.eval.probabilities import Probabilities
from analyzer.eval.protocol import Evaluator
from analyzer.formats.records import Action, Double, Drop, GameRecord, MatchRecord, Roll, Take
from analyzer.formats.sgf_writer import (
    CandidateAnalysis,
    Chances,
    CubeAnalysis,
    NodeAnalysis,
    sgf_chunks,
)
from analyzer.rules import find_variant

__all__ = ["sgf_annotations", "write_analysis_sgf"]

Row = dict[str, Any]

_SAMPLE = """ 1 point match

 Game 1
 ann : 0                        bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
      Wins 1 point
"""


def _chances(p: Probabilities) -> Chances:
    return (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)


def _candidate_chances(c: Mapping[str, Any]) -> Chances:
    return (float(c["win"]), float(c["win_gammon"]), float(c["win_backgammon"]),
            float(c["lose_gammon"]), float(c["lose_backgammon"]))


_MARKS = {"very lucky": 2, "lucky": 1, "unlucky": -1, "very unlucky": -2}


def _checker_node(row: Row, thresholds: Thresholds = XG) -> NodeAnalysis | None:
    """The candidates of a checker row with their hops and the luck of its roll with its mark
    (``None`` for a variant, or a row whose plays do not line up)."""
    cands = row.get("candidates") or []
    if not has_cube(row.get("variant", DEFAULT_VARIANT)) or not cands or not row.get("dice"):
        return None
    dice = (int(row["dice"][0]), int(row["dice"][1]))
    pos = decode_key(row["key"])
    by_text = {lp.text: lp for lp in find_variant(pos.variant).legal_plays(pos, dice)}
    played = by_text.get(row["played"])
    out: list[CandidateAnalysis] = []
    index: int | None = None
    ply = int(row.get("ply") or 0)
    luck = row.get("luck")
    mark = 0 if luck is None else _MARKS.get(thresholds.luck_mark(float(luck)), 0)
    if all(not c["play"] for c in cands):  # a dance: the luck only
        return NodeAnalysis(luck=None if luck is None else float(luck), luck_mark=mark)
    for c in cands:
        lp = by_text.get(c["play"])
        if lp is None or not lp.hops:
            return None
        if played is not None and lp.result == played.result and index is None:
            index = len(out)
        out.append(CandidateAnalysis(tuple((h.source, h.dest) for h in lp.hops), _candidate_chances(c),
                                     float(c["equity"]), ply))
    if index is None:
        return None
    return NodeAnalysis(candidates=tuple(out), played=index, luck=None if luck is None else float(luck),
                        luck_mark=mark)


class _Cubes:
    """Cube values in gnubg's unit, with the chances of the player on roll evaluated again."""

    def __init__(self, engine: Evaluator | None, ply: int, met: MatchEquityTable | None) -> None:
        self.engine, self.ply, self.met = engine, ply, met
        self.chances: dict[Position, Chances] = {}

    def prepare(self, rows: Iterable[Row]) -> None:
        todo = list(dict.fromkeys(decode_key(r["key"]) for r in rows if r["kind"] == "cube"
                                  and r.get("cube_nd") is not None))
        if not todo or self.engine is None:
            return
        boards = np.stack([np.frombuffer(p.board, dtype=np.int8) for p in todo])
        out = self.engine.evaluate_boards(boards, self.ply).tolist()
        self.chances = {p: _chances(Probabilities.from_outcomes(o)) for p, o in zip(todo, out, strict=True)}

    def node(self, row: Row, state: MatchState | None) -> CubeAnalysis | None:
        nd, dt = row.get("cube_nd"), row.get("cube_dt")
        chances = self.chances.get(decode_key(row["key"]))
        if nd is None or dt is None or chances is None:
            return None
        nd, dt = float(nd), float(dt)
        if row["match_length"]:
            if self.met is None or state is None:
                return None
            nd = emg_to_mwc(self.met, state, int(row["side"]), nd)
            dt = emg_to_mwc(self.met, state, int(row["side"]), dt)
        return CubeAnalysis(chances=chances, no_double=nd, double_take=dt, ply=int(row.get("ply") or 0))


def _lay(actions: tuple[Action, ...], rows: list[Row], cubes: _Cubes,
         states: Mapping[int, MatchState], thresholds: Thresholds = XG) -> list[NodeAnalysis | None] | None:
    """The analysis of each action of a game from its rows (``None`` if they do not line up)."""
    out: list[NodeAnalysis | None] = []
    k = 0

    def peek(kind: str, side: int) -> Row | None:
        if k < len(rows) and rows[k]["kind"] == kind and int(rows[k]["side"]) == side:
            return rows[k]
        return None

    for act in actions:
        node: NodeAnalysis | None = None
        if isinstance(act, Roll):
            cube = None
            row = peek("cube", act.side)
            if row is not None and row["played"] in ("no double", "no redouble"):
                cube = cubes.node(row, states.get(int(row["move_no"])))
                k += 1
            row = peek("checker", act.side)
            if row is None:
                if act.note == "????":  # rolled, then resigned: no checker row
                    out.append(None)
                    continue
                return None
            k += 1
            checker = _checker_node(row, thresholds)
            if checker is not None or cube is not None:
                node = NodeAnalysis(candidates=checker.candidates if checker else (),
                                    played=checker.played if checker else None, cube=cube,
                                    luck=checker.luck if checker else None,
                                    luck_mark=checker.luck_mark if checker else 0)
        elif isinstance(act, Double):
            row = peek("cube", act.side)
            if act.kind == "double" and row is not None and row["played"] in ("double", "redouble"):
                k += 1
                cube = cubes.node(row, states.get(int(row["move_no"])))
                node = NodeAnalysis(cube=cube) if cube is not None else None
            elif act.kind != "double" and peek("take", act.side) is not None:
                k += 1  # a beaver or raccoon: an answer row
        elif isinstance(act, (Take, Drop)) and peek("take", act.side) is not None:
            k += 1
        out.append(node)
    return out if k == len(rows) else None


def sgf_annotations(record: MatchRecord, decisions: Iterable[Row], *, engine: Evaluator | None,
                    ply: int, met: MatchEquityTable | None = None,
                    games: Iterable[GameRecord] | None = None,
                    thresholds: Thresholds = XG) -> dict[int, list[NodeAnalysis | None]]:
    """The analysis of each action of each game (by game number) of ``record`` from the rows of
    its decisions table, for :func:`analyzer.formats.sgf_writer.sgf_chunks`. ``games`` are the
    normalised games (computed when not given); ``engine`` and ``ply`` value the cube decisions'
    chances; ``met`` converts cube values to match-winning chance (default: Kazaross-XG2);
    ``thresholds`` mark the lucky and unlucky rolls, as the report marks them.
    A game left out of the result (no rows, or rows that do not line up) is written without
    analysis.

    >>> from analyzer.formats.mat import read_match_text
    >>> [m] = read_match_text(_SAMPLE)
    >>> sgf_annotations(m, [], engine=None, ply=0)
    {}
    """
    rows_by_game: dict[int, list[Row]] = {}
    all_rows = list(decisions)
    for r in all_rows:
        rows_by_game.setdefault(int(r["game"]), []).append(r)
    table = met if met is not None or not record.length else met_by_name()
    cubes = _Cubes(engine, ply, table)
    cubes.prepare(all_rows)
    states: dict[int, dict[int, MatchState]] = {}
    for g in replay_games(record):
        for d in g.decisions:
            states.setdefault(g.number, {}).setdefault(d.move, d.state)
    kept = [g for g in (normalised_games(record) if games is None else games) if isinstance(g, GameRecord)]
    out: dict[int, list[NodeAnalysis | None]] = {}
    for game in kept:
        rows = rows_by_game.get(game.number)
        laid = _lay(game.actions, rows, cubes, states.get(game.number, {}), thresholds) if rows else None
        if laid is not None:
            out[game.number] = laid
    return out


def write_analysis_sgf(items: Iterable[tuple[MatchRecord, Iterable[Row]]], out: str | os.PathLike[str] | IO[str], *,
                       engine: Evaluator | None, ply: int, met: MatchEquityTable | None = None,
                       thresholds: Thresholds = XG) -> tuple[int, int]:
    """Write each match (its normalised games, those that replay) with its review as gnubg SGF to
    a path or an open text handle; returns (games written, games with analysis).

    >>> import io
    >>> from analyzer.formats.mat import read_match_text
    >>> [m] = read_match_text(_SAMPLE)
    >>> buf = io.StringIO()
    >>> write_analysis_sgf([(m, [])], buf, engine=None, ply=0)
    (1, 0)
    >>> buf.getvalue().splitlines()[1]
    ';W[31hefe];B[64aglp])'
    """
    if isinstance(out, (str, os.PathLike)):  # whole or not at all (OutputError naming the file)

        with atomic_writer(out, special_ok=True) as fh:
            return write_analysis_sgf(items, fh, engine=engine, ply=ply, met=met, thresholds=thresholds)
    written = annotated = 0
    for record, rows in items:
        games = [g for g in normalised_games(record) if not isinstance(g, InputError)]
        notes = sgf_annotations(record, rows, engine=engine, ply=ply, met=met, games=games, thresholds=thresholds)
        for chunk in _chunks(record, games, notes):
            out.write(chunk)
        written += len(games)
        annotated += len(notes)
    return written, annotated


def _chunks(record: MatchRecord, games: list[GameRecord],
            notes: Mapping[int, list[NodeAnalysis | None]]) -> Iterator[str]:
    yield from sgf_chunks(record, games, notes)
