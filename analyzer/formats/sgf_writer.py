"""Writer of gnubg's backgammon SGF (``GM[6]``): one game tree per game, only the properties gnubg
needs (``FF GM CA AP MI PW PB DT RU RE`` and the moves), see ``docs/formats.md`` §2.

Plays must be written one hop per die (as :func:`analyzer.analysis.replay.normalise` leaves them);
a resignation is the ``R`` of ``RE``, taken from ``GameRecord.resigned``.

An analysis can go with the moves, in gnubg's own analysis properties (as gnubg 1.08 writes
them, ``E ver 3`` evaluations), so that gnubg shows it as its own: per roll ``A[k]`` and one
``[...]`` per candidate play (its hops, the five chances win, win gammon, win backgammon, lose
gammon, lose backgammon, its equity, the ply), ``k`` the candidate played, ``LU`` the luck and
``GW``/``GB`` the roll's mark (lucky for White or unlucky for Black is ``GW[1]``, very: ``[2]``);
per cube decision ``DA`` (the chances, the cubeless equity, and the no double and double/take
values in gnubg's unit: match-winning chance in a match, equity in money play). See
:class:`NodeAnalysis`; :func:`analyzer.analysis.sgf_export.sgf_annotations` makes them from a
review.

>>> from analyzer.formats.records import GameRecord, MatchRecord, Roll, Double, Drop, Win
>>> acts = (Roll(0, (3, 1), "8/5 6/5"), Roll(1, (4, 1), "24/23 13/9"), Double(0, 2), Drop(1), Win(0, 1))
>>> m = MatchRecord(players=("ann", "bob"), length=3, games=(GameRecord(1, 0, (0, 0), acts),))
>>> print(format_sgf(m))
(;FF[4]GM[6]CA[UTF-8]AP[bgreview]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]RE[W+1]
;W[31hefe];B[41ablp];W[double];B[drop])
<BLANKLINE>
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from analyzer.core.errors import ParseError
from analyzer.core.play import BAR, OFF, RESERVE, parse_play
from analyzer.core.variants import find_spec
from analyzer.formats.records import Action, Double, Drop, GameRecord, MatchRecord, Roll, Take, Win, write_records

__all__ = ["CandidateAnalysis", "CubeAnalysis", "NodeAnalysis", "format_sgf", "sgf_chunks", "sgf_letter",
           "write_sgf"]

Chances = tuple[float, float, float, float, float]
"""win, win gammon, win backgammon, lose gammon, lose backgammon (gammons include backgammons)."""


@dataclass(frozen=True, slots=True)
class CandidateAnalysis:
    """One candidate play of a roll: its ``hops`` ((source, dest) in the mover's points, 25 the
    bar, 0 off, one per die), the mover's cubeless ``chances`` after it, its ``equity``
    (normalised, as gnubg's), and the ``ply`` it was evaluated at."""

    hops: tuple[tuple[int, int], ...]
    chances: Chances
    equity: float
    ply: int = 0


@dataclass(frozen=True, slots=True)
class CubeAnalysis:
    """A cube decision: the cubeless ``chances`` of the player on roll, and his ``no_double`` and
    ``double_take`` values in gnubg's unit (match-winning chance in a match, normalised equity in
    money play); gnubg derives double/pass and the proper action itself."""

    chances: Chances
    no_double: float
    double_take: float
    ply: int = 0


@dataclass(frozen=True, slots=True)
class NodeAnalysis:
    """What goes on one node (one action) of a game tree: the candidates of a roll and the index
    of the one played, the cube decision before it (or of a double), the luck of the roll."""

    candidates: tuple[CandidateAnalysis, ...] = ()
    played: int | None = None
    cube: CubeAnalysis | None = None
    luck: float | None = None
    luck_mark: int = 0
    """The roll's mark for the roller: 2 very lucky, 1 lucky, 0 none, -1 unlucky, -2 very unlucky
    (gnubg's ``GW``/``GB``, "good for White/Black": it counts its marked rolls from them alone)."""



def sgf_letter(point: int, side: int) -> str:
    """The SGF letter of our point ``point`` (mover's view) for ``side`` (0 = White).

    >>> sgf_letter(6, 0), sgf_letter(13, 1), sgf_letter(25, 1), sgf_letter(0, 0)
    ('f', 'l', 'y', 'z')
    """
    if point in (BAR, RESERVE):
        return "y"
    if point == OFF:
        return "z"
    if not 1 <= point <= 24:
        raise ParseError("point out of range for SGF", token=str(point))
    k = point - 1 if side == 0 else 24 - point
    return chr(ord("a") + k)


def _escape(text: str) -> str:
    r"""A property value as SGF writes it: ``\`` and ``]`` escaped (every text value goes through here).

    >>> print(_escape("2024]PB[evil\\"))
    2024\]PB[evil\\
    """
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _move(roll: Roll) -> str:
    letters = []
    for mv in parse_play(roll.play):
        if mv.via:
            raise ParseError("SGF moves are one hop per die; normalise the record first", token=mv.text)
        letters.append((sgf_letter(mv.source, roll.side) + sgf_letter(mv.dest, roll.side)) * mv.count)
    return f"{roll.dice[0]}{roll.dice[1]}" + "".join(letters)


def _num(x: float) -> str:
    return f"{x:.6f}" if math.isfinite(x) else "0.000000"


def _cubeless(c: Chances) -> float:
    win, wg, wbg, lg, lbg = c
    return 2.0 * win - 1.0 + wg + wbg - lg - lbg


def _analysis_props(node: NodeAnalysis, side: int) -> str:
    """The analysis properties of a node (``DA``, ``A``, ``LU`` and the roll's mark ``GW``/``GB``),
    as gnubg writes them.

    >>> cand = CandidateAnalysis(((8, 5), (6, 5)), (0.52, 0.16, 0.01, 0.14, 0.01), 0.088, 2)
    >>> cube = CubeAnalysis((0.5, 0.13, 0.0, 0.14, 0.0), 0.5003, 0.479, 2)
    >>> print(_analysis_props(NodeAnalysis((cand,), 0, cube, 0.05), 0))  # doctest: +NORMALIZE_WHITESPACE
    DA[E ver 3 2C 1 0.000000 1 0.500000 0.130000 0.000000 0.140000 0.000000 -0.010000 0.500300
       0.500000 0.130000 0.000000 0.140000 0.000000 -0.010000 0.479000]A[0][hefe E ver 3 0.520000
       0.160000 0.010000 0.140000 0.010000 0.088000 2C 0 1 0.000000 1]LU[0.050000]
    >>> unlucky, lucky = NodeAnalysis(luck=-0.4, luck_mark=-1), NodeAnalysis(luck=0.7, luck_mark=2)
    >>> _analysis_props(unlucky, 0), _analysis_props(lucky, 1)
    ('LU[-0.400000]GB[1]', 'LU[0.700000]GB[2]')
    """
    out = ""
    if node.cube is not None:
        c = node.cube
        probs = " ".join(_num(x) for x in c.chances) + " " + _num(_cubeless(c.chances))
        out += (f"DA[E ver 3 {c.ply}C 1 0.000000 1 {probs} {_num(c.no_double)} {probs} "
                f"{_num(c.double_take)}]")
    if node.candidates and node.played is not None:
        out += f"A[{node.played}]"
        for cand in node.candidates:
            letters = "".join(sgf_letter(a, side) + sgf_letter(b, side) for a, b in cand.hops)
            probs = " ".join(_num(x) for x in cand.chances)
            out += f"[{letters} E ver 3 {probs} {_num(cand.equity)} {cand.ply}C 0 1 0.000000 1]"
    if node.luck is not None and math.isfinite(node.luck):
        out += f"LU[{_num(node.luck)}]"
    if node.luck_mark:
        good_for = side if node.luck_mark > 0 else 1 - side
        out += f"G{'W' if good_for == 0 else 'B'}[{min(abs(node.luck_mark), 2)}]"
    return out


def format_game(record: MatchRecord, game: GameRecord, first: bool,
                analysis: Sequence[NodeAnalysis | None] | None = None) -> str:
    """One game tree; ``analysis`` (one entry per action of the game, or ``None``) adds gnubg's
    analysis properties to the nodes."""
    root = (f"(;FF[4]GM[6]CA[UTF-8]AP[bgreview]MI[length:{record.length}][game:{game.number - 1}]"
            f"[ws:{game.score[0]}][bs:{game.score[1]}]PW[{_escape(record.players[0] or game.names[0])}]"
            f"PB[{_escape(record.players[1] or game.names[1])}]")
    if first and record.date:
        root += f"DT[{_escape(record.date.replace('.', '-'))}]"
    if first and record.event:
        root += f"EV[{_escape(record.event)}]"
    rules = []
    if record.length and record.crawford is not False:
        rules.append("Crawford")
        if game.crawford:
            rules.append("CrawfordGame")
    spec = find_spec(record.variant if game.variation is None else game.variation)
    variant = spec.sgf_rules if spec is not None else None
    if variant:
        rules.append(variant)
    if rules:
        root += f"RU[{':'.join(rules)}]"
    nodes: list[str] = []
    for i, act in enumerate(game.actions):
        colour = "W" if act.side == 0 else "B"
        if isinstance(act, Win):
            if act.points is not None:
                root += f"RE[{colour}+{act.points}{'R' if game.resigned else ''}]"
            continue
        node = _node(act, colour)
        if node is None:
            continue
        extra = analysis[i] if analysis is not None and i < len(analysis) else None
        nodes.append(node + (_analysis_props(extra, act.side) if extra is not None else ""))
    return root + "\n" + "".join(nodes) + ")\n"


def _node(act: Action, colour: str) -> str | None:
    if isinstance(act, Roll):
        return f";{colour}[{_move(act)}]"
    if isinstance(act, Double):
        return f";{colour}[double]"
    if isinstance(act, Take):
        return f";{colour}[take]"
    if isinstance(act, Drop):
        return f";{colour}[drop]"
    return None


def format_sgf(record: MatchRecord) -> str:
    """The whole match as SGF text."""
    return "".join(sgf_chunks(record, record.games))


def sgf_chunks(header: MatchRecord, games: Iterable[GameRecord],
               analysis: Mapping[int, Sequence[NodeAnalysis | None]] | None = None) -> Iterator[str]:
    """The SGF text of a match, one game tree at a time (``header``'s own games are ignored);
    ``analysis`` maps a game number to the analysis of its actions."""
    for i, g in enumerate(games):
        yield format_game(header, g, i == 0, None if analysis is None else analysis.get(g.number))


def write_sgf(records: Iterable[MatchRecord], out: str | os.PathLike[str] | IO[str]) -> int:
    """Write matches to a path or an open text handle; returns their number."""
    return write_records(records, out, format_sgf)
