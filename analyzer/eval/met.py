"""Match equity tables (MET), match-winning chances (MWC) and normalised equity (EMG).

A match equity table gives the chance of winning the match at the start of a game, for every
score. Scores are written as *away* counts: the points each player still needs.

* ``pre_crawford[i][j]``: the MWC of a player ``i + 1`` away against an opponent ``j + 1``
  away before the Crawford game has been played. Row 0 (1-away) holds the Crawford game itself.
* ``post_crawford[k]``: the MWC of the trailer ``k + 1`` away against a leader 1-away, in a
  post-Crawford game.

Two tables are provided (:func:`met_by_name`): the published **Kazaross-XG2** table (the default,
as in gnubg; numbers in ``data/met/kazaross-xg2.json`` with their attribution) and a
**computed** table (:func:`computed_met`, method documented there).

Normalised equity ("EMG", equivalent to money game) maps a MWC linearly onto the money scale of
the current cube: losing the cube value (a single game at this cube) is -1, winning it is +1.
This is gnubg's normalisation (its ``mwc2eq``/``eq2mwc``), which makes errors at different
scores comparable.

>>> met = met_by_name("kazaross-xg2")
>>> round(mwc(met, 2, 4), 5)
0.6687
>>> round(mwc(met, 1, 2, crawford=True), 5), round(mwc(met, 2, 1, post_crawford=True), 5)
(0.67736, 0.48803)
>>> s = MatchState(length=7, score=(5, 3))
>>> round(emg_to_mwc(met, s, 0, mwc_to_emg(met, s, 0, 0.7)), 12)
0.7
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from statistics import NormalDist

from analyzer._resources import data_path
from analyzer.core.match import MatchState
from analyzer.eval.cube_model import even_game_mwc
from analyzer.eval.probabilities import Probabilities

DATA_DIR = data_path("met")
"""Where the published tables live (``data/met`` in the repository, packaged with bgreview)."""

MET_NAMES = ("kazaross-xg2", "computed")
DEFAULT_MET = "kazaross-xg2"


@dataclass(frozen=True, slots=True)
class MatchEquityTable:
    """A match equity table; see the module docstring for the layout.

    ``pre_crawford`` is square (``size`` rows of ``size``), ``post_crawford`` has ``size``
    entries; ``post_crawford[0]`` (both players 1-away) is 0.5.

    >>> t = MatchEquityTable("tiny", ((0.5, 0.7), (0.3, 0.5)), (0.5, 0.49))
    >>> t.size
    2
    """

    name: str
    pre_crawford: tuple[tuple[float, ...], ...]
    post_crawford: tuple[float, ...]
    description: str = ""
    attribution: str = ""
    _fit: list[float] = field(default_factory=list, repr=False, compare=False, hash=False)
    _outcomes: dict[tuple[int, int, bool], dict[int, float]] = field(
        default_factory=dict, repr=False, compare=False, hash=False)
    """Memo of :func:`outcome_mwc`: per (away, away, post-Crawford), the MWC of each game result."""

    def __post_init__(self) -> None:
        n = len(self.pre_crawford)
        if n < 2 or any(len(row) != n for row in self.pre_crawford):
            raise ValueError(f"MET {self.name!r}: the pre-Crawford table must be square, at least 2x2")
        if len(self.post_crawford) < n:
            raise ValueError(f"MET {self.name!r}: the post-Crawford table needs {n} entries")
        for row in self.pre_crawford:
            for v in row:
                if not 0.0 <= v <= 1.0:
                    raise ValueError(f"MET {self.name!r}: value out of range: {v!r}")

    @property
    def size(self) -> int:
        """The longest away count the table holds."""
        return len(self.pre_crawford)


# ---------------------------------------------------------------------- lookups
def mwc(met: MatchEquityTable, away_me: int, away_opp: int, *, crawford: bool = False,
        post_crawford: bool = False) -> float:
    """Match-winning chance of a player ``away_me`` away against one ``away_opp`` away.

    ``away <= 0`` means that player has won the match. With one player 1-away the game is the
    Crawford game unless ``post_crawford`` is set (``crawford`` only states the default
    explicitly). Scores beyond the table are extrapolated (see :func:`_extrapolate`).

    >>> met = met_by_name()
    >>> mwc(met, 0, 3), mwc(met, 4, -1), mwc(met, 1, 1)
    (1.0, 0.0, 0.5)
    >>> round(mwc(met, 3, 1, post_crawford=True), 5)
    0.32264
    """
    if crawford and post_crawford:
        raise ValueError("a game cannot be both the Crawford game and post-Crawford")
    if away_me <= 0:
        return 1.0
    if away_opp <= 0:
        return 0.0
    if post_crawford and (away_me == 1 or away_opp == 1):
        if away_me == 1:
            return 1.0 - _post(met, away_opp)
        return _post(met, away_me)
    if away_me <= met.size and away_opp <= met.size:
        return met.pre_crawford[away_me - 1][away_opp - 1]
    return _extrapolate(met, away_me, away_opp)


def _post(met: MatchEquityTable, trailer_away: int) -> float:
    """MWC of a post-Crawford trailer ``trailer_away`` away (leader 1-away)."""
    n = met.size
    if trailer_away <= n:
        return met.post_crawford[trailer_away - 1]
    # Beyond the table: every two more points multiply the trailer's chance by the ratio seen at
    # the end of the table (he must win about one more doubled game).
    m = n if (trailer_away - n) % 2 == 0 else n - 1
    ratio = met.post_crawford[m - 1] / met.post_crawford[m - 3]
    return met.post_crawford[m - 1] * ratio ** ((trailer_away - m) // 2)


def _extrapolate(met: MatchEquityTable, a: int, b: int) -> float:
    """MWC for scores beyond the table, by a normal approximation anchored on the table.

    The rest of the match is treated as a normal random walk, so the probit of the MWC grows
    like ``f(a, b) = (b - a) / sqrt(a + b)``. ``k`` is fitted (least squares on the probit scale)
    to the table's longest scores, and the value is anchored on the table entry with the same
    score difference nearest to ``(a, b)``::

        MWC(a, b) = Phi(probit(MWC(a0, b0)) + k (f(a, b) - f(a0, b0)))

    which joins the table continuously and keeps the symmetry ``MWC(a, b) + MWC(b, a) = 1``.
    """
    nd = NormalDist()
    n = met.size
    if not met._fit:
        num = den = 0.0
        for d in range(1, min(8, n - 1)):
            v = met.pre_crawford[n - 1 - d][n - 1]  # (n-d) away vs n away
            u = d / math.sqrt(2 * n - d)
            num += u * nd.inv_cdf(v)
            den += u * u
        met._fit.append(num / den)
    k = met._fit[0]
    shift = max(a, b) - n
    a0, b0 = min(max(a - shift, 1), n), min(max(b - shift, 1), n)
    anchor = min(max(met.pre_crawford[a0 - 1][b0 - 1], 1e-9), 1.0 - 1e-9)

    def f(x: int, y: int) -> float:
        return (y - x) / math.sqrt(x + y)

    return nd.cdf(nd.inv_cdf(anchor) + k * (f(a, b) - f(a0, b0)))


# ---------------------------------------------------------------------- scores of a MatchState
def _aways(state: MatchState, player: int) -> tuple[int, int]:
    if state.is_money:
        raise ValueError("money play has no match-winning chances")
    return state.away(player), state.away(1 - player)


def outcome_mwc(met: MatchEquityTable, state: MatchState, player: int) -> Callable[[int], float]:
    """A function giving ``player``'s MWC after this game ends with him winning ``points``
    (negative: losing ``-points``), the cube included.

    Scores reached in or after the Crawford game are read as post-Crawford.

    >>> f = outcome_mwc(met_by_name(), MatchState(length=5, score=(2, 3)), 0)
    >>> round(f(0), 5), f(3), f(-2)
    (0.40053, 1.0, 0.0)
    """
    a, b = _aways(state, player)
    post = state.crawford or state.post_crawford
    memo = met._outcomes.get((a, b, post))
    if memo is None:  # the cube model asks the same few results thousands of times per score
        memo = met._outcomes[(a, b, post)] = {}

    def value(points: int) -> float:
        got = memo.get(points)
        if got is None:
            got = mwc(met, a - points, b, post_crawford=post) if points >= 0 else mwc(met, a, b + points,
                                                                                       post_crawford=post)
            memo[points] = got
        return got

    return value


def mwc_to_emg(met: MatchEquityTable, state: MatchState, player: int, mwc_value: float,
               cube: int | None = None) -> float:
    """Normalised equity (EMG) of ``mwc_value`` for ``player``: -1 = losing ``cube`` points
    (default: the cube in ``state``), +1 = winning them.

    >>> s = MatchState(length=5)
    >>> met = met_by_name()
    >>> mwc_to_emg(met, s, 0, mwc(met, 4, 5)), mwc_to_emg(met, s, 0, mwc(met, 5, 4))
    (1.0, -1.0)
    """
    win, lose = _win_lose(met, state, player, cube)
    return (2.0 * mwc_value - win - lose) / (win - lose)


def emg_to_mwc(met: MatchEquityTable, state: MatchState, player: int, emg: float,
               cube: int | None = None) -> float:
    """The MWC of normalised equity ``emg`` for ``player`` (inverse of :func:`mwc_to_emg`).

    Multiply a money-scale equity in points by ``1 / cube`` first to get its EMG.

    >>> s = MatchState(length=5, score=(3, 3))
    >>> emg_to_mwc(met_by_name(), s, 1, 0.0)
    0.5
    """
    win, lose = _win_lose(met, state, player, cube)
    return lose + (win - lose) * (emg + 1.0) / 2.0


def _win_lose(met: MatchEquityTable, state: MatchState, player: int,
              cube: int | None) -> tuple[float, float]:
    c = state.cube if cube is None else cube
    value = outcome_mwc(met, state, player)
    win, lose = value(c), value(-c)
    if win <= lose:
        raise ValueError("winning and losing the cube give the same MWC: no normalisation")
    return win, lose


# ---------------------------------------------------------------------- tables
def load_met(path: str | Path) -> MatchEquityTable:
    """Read a table from a JSON file with ``name``, ``pre_crawford`` and ``post_crawford``.

    >>> load_met(DATA_DIR / "kazaross-xg2.json").size
    25
    """
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    pre = tuple(tuple(float(v) for v in row) for row in raw["pre_crawford"])
    post = tuple(float(v) for v in raw["post_crawford"])
    return MatchEquityTable(name=str(raw["name"]), pre_crawford=pre, post_crawford=post,
                            description=str(raw.get("title", "")),
                            attribution=str(raw.get("attribution", "")))


def met_by_name(name: str = DEFAULT_MET) -> MatchEquityTable:
    """The table called ``name``: ``"kazaross-xg2"`` (default) or ``"computed"``; loaded once.

    >>> met_by_name("Kazaross-XG2").name, met_by_name("computed").size
    ('kazaross-xg2', 25)
    """
    return _named(name.strip().lower())


@cache
def _named(key: str) -> MatchEquityTable:
    if key == "kazaross-xg2":
        return load_met(DATA_DIR / "kazaross-xg2.json")
    if key == "computed":
        return computed_met()
    raise ValueError(f"unknown match equity table {key!r} (use {', '.join(MET_NAMES)})")


def computed_post_crawford(size: int = 25, gammon_rate: float = 0.29,
                           free_drop: tuple[float, ...] = (0.012, 0.008)) -> tuple[float, ...]:
    """Post-Crawford MWCs of the trailer, 1..``size`` away, from a gammon rate and free drops.

    Model: the trailer doubles at once, so every post-Crawford game is played for 2 points
    (the leader's cube is dead). The trailer wins half the games, a fraction ``gammon_rate`` of
    them as gammons (4 points), and loses the match otherwise::

        post(1) = 1/2,  post(n) = 1/2 ((1 - g) post(n - 2) + g post(n - 4)) - fd(n)
        post(n <= 0) = 1

    At an even away count the leader has a *free drop*: he can refuse one double when the
    trailer's position is good and move to an odd count at no cost. ``free_drop`` holds what
    that option is worth to him at 2-away, 4-away, ... (assumed values, about one to two
    percent; 0 beyond).

    >>> p = computed_post_crawford(6)
    >>> p[0], round(p[1], 3), round(p[2], 4)
    (0.5, 0.488, 0.3225)
    """
    post: list[float] = []

    def at(n: int) -> float:
        return 1.0 if n <= 0 else post[n - 1]

    for n in range(1, size + 1):
        if n == 1:
            post.append(0.5)
            continue
        v = 0.5 * ((1.0 - gammon_rate) * at(n - 2) + gammon_rate * at(n - 4))
        if n % 2 == 0 and n // 2 - 1 < len(free_drop):
            v -= free_drop[n // 2 - 1]
        post.append(v)
    return tuple(post)


def computed_met(size: int = 25, gammon_rate: float = 0.26, cube_life: float = 0.68,
                 post_gammon_rate: float = 0.29) -> MatchEquityTable:
    """Our own match equity table, built by recursion over the score.

    * Post-Crawford entries: :func:`computed_post_crawford`.
    * The Crawford game (one player 1-away) is played without a cube: each side wins half the
      games, a fraction ``gammon_rate`` of them as gammons, and the trailer goes on to a
      post-Crawford score.
    * Any other score: the game is an even position (each side wins half the games, a
      fraction ``gammon_rate`` gammons, no backgammons) with a centred cube, valued by the
      match-play Janowski model of :mod:`analyzer.eval.cube` with cube life ``cube_life``,
      which only needs the entries of scores closer to the end of the match. The value is
      averaged over the two players' points of view, so the table is exactly symmetric.

    >>> t = computed_met(8)
    >>> abs(mwc(t, 3, 5) + mwc(t, 5, 3) - 1.0) < 1e-12
    True
    """
    if size < 2:
        raise ValueError("a match equity table needs at least 2 points")
    post = computed_post_crawford(size, post_gammon_rate)
    pre = [[0.0] * size for _ in range(size)]
    pre[0][0] = 0.5

    def post_at(n: int) -> float:
        return 1.0 if n <= 0 else post[n - 1]

    g = gammon_rate
    for b in range(2, size + 1):  # Crawford game: leader 1-away, trailer b away
        lead = 0.5 + 0.5 * ((1.0 - g) * (1.0 - post_at(b - 1)) + g * (1.0 - post_at(b - 2)))
        pre[0][b - 1] = lead
        pre[b - 1][0] = 1.0 - lead

    def lookup(x: int, y: int) -> float:
        if x <= 0:
            return 1.0
        if y <= 0:
            return 0.0
        return pre[x - 1][y - 1]

    probs = Probabilities(0.5, 0.5 * g, 0.0, 0.5 * g, 0.0)
    for total in range(4, 2 * size + 1):
        for a in range(2, size + 1):
            b = total - a
            if b < a or b > size:
                continue
            mine = even_game_mwc(probs, a, b, lookup, cube_life)
            theirs = even_game_mwc(probs, b, a, lookup, cube_life)
            v = 0.5 * (mine + 1.0 - theirs)
            pre[a - 1][b - 1] = v
            pre[b - 1][a - 1] = 1.0 - v
    return MatchEquityTable(
        name="computed",
        pre_crawford=tuple(tuple(r) for r in pre),
        post_crawford=post,
        description=(f"computed: gammon rate {gammon_rate}, post-Crawford gammon rate {post_gammon_rate}, "
                     f"cube life {cube_life}, Janowski match model"),
    )
