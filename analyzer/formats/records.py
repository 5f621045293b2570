"""Typed records of a match file: what was written, before any rules are applied.

A reader (:mod:`analyzer.formats.mat`, :mod:`analyzer.formats.sgf`) turns text into a
:class:`MatchRecord` holding :class:`GameRecord` values, each a tuple of actions. Every action
knows its ``side`` (0 = the first player, the left column of a .mat file; 1 = the second) and
where it was written (1-based ``line`` and ``column``). Nothing here checks legality: that is the
job of :mod:`analyzer.analysis.replay`.

>>> roll = Roll(side=0, dice=(3, 1), play="8/5 6/5", line=7, column=6)
>>> roll.text
'31: 8/5 6/5'
>>> game = GameRecord(number=1, line=5, score=(0, 0), actions=(roll,))
>>> game.result is None
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import IO

from analyzer.core.errors import InputError
from analyzer.core.files import atomic_writer
from analyzer.core.variants import DEFAULT_VARIANT, all_specs


@dataclass(frozen=True, slots=True)
class XGAnalysis:
    """eXtreme Gammon's own analysis of one decision, as an ``.xg`` file stores it (XG's numbers,
    in XG's units: equity for money, normalised match equity for a match). ``None``: not analysed.

    ``error``: XG's error of the action taken, as XG stores it (``0`` for the best one; its sign
    for a worse one is not checked on a real file);
    ``luck``: XG's luck of the roll; ``cube_error``: on a roll, XG's error of the cube decision
    just before it (no double); ``equities``: on a cube action, XG's no double, double/take and
    double/pass equities (the doubler's view); ``candidates``: on a roll, the plays XG evaluated
    and their equities, in XG's order; ``level``: XG's analysis level code (0 = 1-ply, ...).

    >>> XGAnalysis(error=-0.012, candidates=(("8/5 6/5", 0.13),)).candidates[0][0]
    '8/5 6/5'
    """

    error: float | None = None
    luck: float | None = None
    cube_error: float | None = None
    equities: tuple[float, float, float] | None = None
    candidates: tuple[tuple[str, float], ...] = ()
    level: int | None = None


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll and the play written after it (``play`` may be empty).

    ``note`` records a marker written instead of a play: ``"cannot move"`` (XG's dance),
    ``"????"`` (rolled, then resigned) or ``"illegal play"`` (Snowie's edited position).

    >>> Roll(side=1, dice=(6, 4), play="", line=3, column=34, note="cannot move").text
    '64: Cannot Move'
    """

    side: int
    dice: tuple[int, int]
    play: str
    line: int = 0
    column: int = 0
    note: str = ""
    play_column: int = 0
    xg: XGAnalysis | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        """The action as a .mat cell would show it."""
        tail = {"cannot move": "Cannot Move", "????": "????"}.get(self.note, self.play)
        return f"{self.dice[0]}{self.dice[1]}: {tail}".rstrip()


@dataclass(frozen=True, slots=True)
class Double:
    """``Doubles => value`` (``kind`` ``"double"``), or a beaver / raccoon (the taker redoubles
    at once and keeps the cube). ``value`` is the new cube value as written (``None`` if absent).

    >>> Double(side=0, value=2, line=9, column=7).text
    'Doubles => 2'
    """

    side: int
    value: int | None
    line: int = 0
    column: int = 0
    kind: str = "double"
    xg: XGAnalysis | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        word = {"double": "Doubles", "beaver": "Beavers", "raccoon": "Raccoons"}[self.kind]
        return f"{word} => {self.value}" if self.value is not None else word


@dataclass(frozen=True, slots=True)
class Take:
    """The double was taken.

    >>> Take(side=1).text
    'Takes'
    """

    side: int
    line: int = 0
    column: int = 0
    xg: XGAnalysis | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        return "Takes"


@dataclass(frozen=True, slots=True)
class Drop:
    """The double was dropped (``Drops``, ``Passes``, ``Rejects``).

    >>> Drop(side=0).text
    'Drops'
    """

    side: int
    line: int = 0
    column: int = 0
    xg: XGAnalysis | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        return "Drops"


@dataclass(frozen=True, slots=True)
class Resign:
    """A resignation line in the loser's cell: ``Resigns``, ``Resigned Game``, ``Losses 3 point``.

    ``points`` is the number written, if any (``Losses``), not trusted as the game value.

    >>> Resign(side=0, points=3).text
    'Losses 3 point'
    """

    side: int
    points: int | None = None
    line: int = 0
    column: int = 0
    word: str = "Losses"

    @property
    def text(self) -> str:
        return f"{self.word} {self.points} point" if self.points is not None else self.word


@dataclass(frozen=True, slots=True)
class Win:
    """``Wins N point(s)[ and the match]`` in the winner's cell; ``points`` as written.

    >>> Win(side=1, points=2, match=True).text
    'Wins 2 points and the match'
    """

    side: int
    points: int | None
    match: bool = False
    line: int = 0
    column: int = 0

    @property
    def text(self) -> str:
        if self.points is None:
            return "Wins"
        unit = "point" if self.points == 1 else "points"
        return f"Wins {self.points} {unit}" + (" and the match" if self.match else "")


Action = Roll | Double | Take | Drop | Resign | Win


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game as written: ``score`` before the game (first player, second player),
    ``variation`` a per-game override (``; [GameVariation "..."]``), the actions in order.

    ``names`` are the names written on the game's score line; ``resigned`` is set by readers
    that know a resignation ended the game even without a resignation line (SGF ``RE[..R]``).
    ``crawford`` is the Crawford flag where the file states it (SGF ``RU[CrawfordGame]``, our
    ``.mat`` tag ``; [CrawfordGame "Yes"]``), ``None`` where it is inferred from the scores.
    ``line`` is the line of the game's start, ``score_line`` that of its score (0 if unknown).
    """

    number: int
    line: int
    score: tuple[int, int]
    actions: tuple[Action, ...] = ()
    variation: str | None = None
    names: tuple[str, str] = ("", "")
    resigned: bool = False
    crawford: bool | None = None
    score_line: int = 0

    @property
    def score_where(self) -> int:
        """The line to name in an error about the score: its own line, else the line after the
        game's start (where a .mat file writes it)."""
        return self.score_line or self.line + 1

    @property
    def result(self) -> Win | None:
        """The last ``Wins`` line of the game, as written (``None`` if there is none)."""
        for act in reversed(self.actions):
            if isinstance(act, Win):
                return act
        return None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match: metadata from the header, the games, and the errors met while reading.

    ``variation`` is the header's ``Variation`` value as written (``None`` if absent);
    :attr:`variant` maps it to one of our rule sets. ``tags`` keeps every header tag in order
    (known ones included), ``comments`` every free ``;`` line. ``errors`` holds
    :class:`~analyzer.core.errors.InputError` values for games that could not be read; those
    games are left out of ``games``.

    >>> MatchRecord(players=("a", "b"), length=7, variation="Plakoto").variant
    'mahbusa'
    >>> MatchRecord(players=("a", "b"), length=7, variation="NackGammon").variant
    'nackgammon'
    """

    players: tuple[str, str]
    length: int
    games: tuple[GameRecord, ...] = ()
    source: str = ""
    index: int = 0
    line: int = 0
    ratings: tuple[str | None, str | None] = (None, None)
    event: str | None = None
    round: str | None = None
    site: str | None = None
    match_id: str | None = None
    date: str | None = None
    time: str | None = None
    variation: str | None = None
    crawford: bool | None = None
    jacoby: bool | None = None
    beaver: bool | None = None
    cube_limit: int | None = None
    tags: tuple[tuple[str, str], ...] = ()
    comments: tuple[str, ...] = ()
    errors: tuple[InputError, ...] = field(default=(), compare=False)

    @property
    def variant(self) -> str:
        """Our rule set for the match: ``standard``, ``dutch``, ``mahbusa``, or the lower-cased
        unknown variation (which the replay rejects)."""
        return variant_of(self.variation)

    def tag(self, name: str) -> str | None:
        """The value of header tag ``name`` (case-insensitive), or ``None``.

        >>> MatchRecord(players=("a", "b"), length=1, tags=(("Site", "X"),)).tag("site")
        'X'
        """
        low = name.lower()
        for key, value in self.tags:
            if key.lower() == low:
                return value
        return None


@dataclass(frozen=True, slots=True)
class MatchStream:
    """A match read one game at a time: ``header`` (a :class:`MatchRecord` without games),
    ``games`` (an iterator: each game once, as the reader reaches it) and ``errors``, the reading
    errors of the match so far (complete once ``games`` is exhausted).

    >>> rec = MatchRecord(players=("a", "b"), length=3, games=(GameRecord(1, 0, (0, 0)),))
    >>> ms = MatchStream.of(rec)
    >>> ms.header.games, [g.number for g in ms.games]
    ((), [1])
    """

    header: MatchRecord
    games: Iterator[GameRecord]
    errors: list[InputError]

    @classmethod
    def of(cls, record: MatchRecord) -> MatchStream:
        """A stream over a record already in memory (a reader that builds whole matches)."""
        return cls(replace(record, games=()), iter(record.games), list(record.errors))


def variant_of(variation: str | None) -> str:
    """Map a ``Variation`` value to a rule-set name.

    >>> variant_of("Backgammon"), variant_of(None), variant_of("Dutch"), variant_of("plakoto")
    ('standard', 'standard', 'dutch', 'mahbusa')
    """
    if variation is None or not variation.strip():
        return DEFAULT_VARIANT
    key = variation.strip().lower()
    return next((s.name for s in all_specs() if s.reads_variation(key)), key)


@dataclass(slots=True)
class CrawfordTracker:
    """The Crawford state of a match of ``length`` points, game after game (``rule`` is the
    header's Crawford flag: ``False`` turns the rule off). :meth:`step` gives a game's
    ``(crawford, post_crawford)``.

    A flag the game states (:attr:`GameRecord.crawford`) stands; otherwise, with the Crawford rule
    on, the first game where exactly one player stands at N-1 is the Crawford game and later games
    with a player at N-1 are post-Crawford (a game whose predecessor already had a player at N-1
    is post-Crawford, so a skipped game does not make a second Crawford game).

    >>> t = CrawfordTracker(3, None)
    >>> [t.step(GameRecord(n, 0, s)) for n, s in enumerate([(0, 0), (2, 1), (2, 2)], 1)]
    [(False, False), (True, False), (False, True)]
    """

    length: int
    rule: bool | None
    seen: bool = False
    prev: tuple[int, int] | None = None

    def step(self, game: GameRecord) -> tuple[bool, bool]:
        n = self.length
        a, b = game.score
        flags = (False, False)
        if not n or self.rule is False or max(a, b) >= n:
            pass
        elif game.crawford is not None:
            self.seen = self.seen or game.crawford
            flags = (game.crawford, not game.crawford and n - 1 in (a, b))
        elif n - 1 in (a, b):
            already = self.seen or (self.prev is not None and n - 1 in self.prev)
            flags = (not already and (a == n - 1) != (b == n - 1), already)
            if a == n - 1 and b == n - 1 and not already:
                flags = (False, True)
            self.seen = True
        self.prev = (a, b)
        return flags

    def needs_statement(self, game: GameRecord) -> bool:
        """Step over ``game`` for a writer: ``True`` when its Crawford flag must be written because
        a reader would infer another one from the scores written (a game left out changes the
        inference); the state then follows the stated flag.

        >>> t = CrawfordTracker(3, None)
        >>> [t.needs_statement(g) for g in (GameRecord(1, 0, (0, 0), crawford=False),
        ...                                 GameRecord(3, 0, (2, 1), crawford=False))]  # game 2 left out
        [False, True]
        """
        trial = CrawfordTracker(self.length, self.rule, self.seen, self.prev)
        inferred, _ = trial.step(GameRecord(game.number, game.line, game.score))
        if game.crawford is None or inferred == game.crawford:
            self.seen, self.prev = trial.seen, trial.prev
            return False
        self.step(game)
        return True


def crawford_flags(length: int, rule: bool | None,
                   games: Iterable[GameRecord]) -> Iterator[tuple[bool, bool]]:
    """``(crawford, post_crawford)`` of each game of a match, in order (:class:`CrawfordTracker`);
    the games are read one at a time, so a long match is not held in memory.

    >>> g = [GameRecord(n, 0, s) for n, s in enumerate([(0, 0), (2, 1), (2, 2)], 1)]
    >>> list(crawford_flags(3, None, g))
    [(False, False), (True, False), (False, True)]
    >>> list(crawford_flags(3, None, [g[0], GameRecord(3, 0, (2, 1), crawford=False)]))
    [(False, False), (False, True)]
    """
    tracker = CrawfordTracker(length, rule)
    for g in games:
        yield tracker.step(g)


def write_records(records: Iterable[MatchRecord], out: str | os.PathLike[str] | IO[str],
                  format_one: Callable[[MatchRecord], str], *, separator: str = "") -> int:
    """Write ``format_one(record)`` for each record to a path (UTF-8, ``\\n`` line ends) or an open
    text handle, with ``separator`` between two records; returns the number of records.

    >>> import io
    >>> buf = io.StringIO()
    >>> recs = [MatchRecord(players=("a", "b"), length=n) for n in (3, 5)]
    >>> write_records(recs, buf, lambda r: f"{r.length} point match\\n", separator="\\n")
    2
    >>> buf.getvalue()
    '3 point match\\n\\n5 point match\\n'
    """
    if isinstance(out, (str, os.PathLike)):  # whole or not at all (OutputError naming the file)

        with atomic_writer(out, special_ok=True) as fh:
            return write_records(records, fh, format_one, separator=separator)
    n = 0
    for rec in records:
        if n and separator:
            out.write(separator)
        out.write(format_one(rec))
        n += 1
    return n
