"""The :class:`Variant` interface that every game implements, and the values it returns."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from analyzer.core import layout as L
from analyzer.core.errors import AmbiguousPlayError, IllegalPlayError, ParseError
from analyzer.core.play import BAR, OFF, RESERVE, Hop, Move, format_play, parse_play
from analyzer.core.position import Position
from analyzer.core.variants import VariantSpec

if TYPE_CHECKING:
    from analyzer.rules.kernel import Workspace


@dataclass(frozen=True, slots=True)
class LegalPlay:
    """One legal play: the hops of one way to play it and the position it produces.

    ``result`` is still seen from the side that moved (call ``result.flip()`` to hand the turn
    over). Two plays are the same play exactly when their results are equal.
    """

    hops: tuple[Hop, ...]
    result: Position
    text: str = field(default="", compare=False)
    """Canonical notation (gnubg style); ``""`` for the empty play (a pass). Filled in from
    ``hops`` when not given."""

    def __post_init__(self) -> None:
        if not self.text and self.hops:
            object.__setattr__(self, "text", format_play(self.hops))

    @property
    def dice_used(self) -> int:
        return len(self.hops)


_H0 = 2 * L.NSLOTS  # where a listing row's hops start, and their count (after 4 x 3)


class PlayListing:
    """The legal plays of one roll as arrays, in the move generator's order, all views of one block
    (n x :data:`~analyzer.rules.kernel.LISTING_WIDTH` int8, as the compiled listing fills it):
    ``boards`` (n x 64 int8, each result still seen from the side that moved), ``flipped`` (the same
    with the opponent on roll), ``hops`` (n x 4 x 3 int8: from, to, hit, in play order) and
    ``counts`` (the hops of each play). Play objects, texts and positions are made only on request,
    for the plays that need them (:meth:`Variant.listing`).

    >>> from analyzer.rules import Standard
    >>> lst = Standard().listing(Position.start(), (3, 1))
    >>> len(lst), [lst.text(i) for i in lst.order()[:2]]
    (16, ['13/10 6/5', '13/10 8/7'])
    >>> lst.play(lst.order()[0]) == Standard().legal_plays(Position.start(), (3, 1))[0]
    True
    >>> lst.hops.shape, lst.counts.tolist()[:3], lst.flipped[0].tobytes() == lst.result(0).flip().board
    ((16, 4, 3), [2, 2, 2], True)
    """

    __slots__ = ("block", "variant")

    def __init__(self, variant: str, block: np.ndarray) -> None:
        self.variant = variant
        self.block = block

    @property
    def boards(self) -> np.ndarray:
        """The results (n x 64), still seen from the side that moved."""
        return self.block[:, : L.NSLOTS]

    @property
    def flipped(self) -> np.ndarray:
        """The results with the opponent on roll (n x 64)."""
        return self.block[:, L.NSLOTS: _H0]

    @property
    def hops(self) -> np.ndarray:
        """The hops of each play (n x 4 x 3: from, to, hit, in play order; zero beyond its count)."""
        return self.block[:, _H0: _H0 + 12].reshape(-1, 4, 3)

    @property
    def counts(self) -> np.ndarray:
        """How many hops each play has."""
        return self.block[:, _H0 + 12]

    def __len__(self) -> int:
        return int(self.block.shape[0])

    def result(self, i: int) -> Position:
        """The position play ``i`` reaches (still seen from the side that moved)."""
        return Position(self.block[i, : L.NSLOTS].tobytes(), self.variant)

    def play_hops(self, i: int) -> tuple[Hop, ...]:
        """The hops of play ``i``, in play order."""
        row = self.block[i].tolist()
        return tuple(Hop(*row[k: k + 3]) for k in range(_H0, _H0 + 3 * row[_H0 + 12], 3))

    def text(self, i: int) -> str:
        """The canonical notation of play ``i`` (``""`` for the empty play)."""
        hops = self.play_hops(i)
        return format_play(hops) if hops else ""

    def play(self, i: int) -> LegalPlay:
        """Play ``i`` as a :class:`LegalPlay`."""
        hops = self.play_hops(i)
        return LegalPlay(hops, self.result(i), format_play(hops) if hops else "")

    def sort_key(self, i: int) -> tuple[int, str, bytes]:
        """Where play ``i`` stands in :meth:`Variant.legal_plays`' order: the most dice used first,
        then by text, then by the resulting board."""
        return (-int(self.block[i, _H0 + 12]), self.text(i), self.block[i, : L.NSLOTS].tobytes())

    def order(self) -> list[int]:
        """The plays' indices in :meth:`Variant.legal_plays`' order."""
        return sorted(range(len(self)), key=self.sort_key)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: ``winner`` is 0 for the position's mover, 1 for its opponent.

    ``points`` is the game value before the cube (1 single, 2 gammon/mars/mother, 3 backgammon,
    0 for a draw); ``kind`` names it.
    """

    winner: int
    points: int
    kind: str


def race_outcome(pos: Position, mars_name: str = "mars") -> Outcome | None:
    """The 1-or-2 result of games without a backgammon (Dutch, Mahbusa): once a side has borne
    off all 15 it wins 1, or 2 when the loser has borne off none.

    >>> race_outcome(Position.from_notation("P | O 19:15 | off P15", "mahbusa"))
    Outcome(winner=0, points=2, kind='mars')
    """
    for winner, won, loser_off in ((0, pos.mover_off, pos.opponent_off), (1, pos.opponent_off, pos.mover_off)):
        if won == L.CHECKERS:
            return Outcome(winner, 2, mars_name) if loser_off == 0 else Outcome(winner, 1, "single")
    return None


_local = threading.local()


def work_buffers() -> Workspace:
    """This thread's work buffers of the compiled generator (imported on first use: one-off
    queries through :meth:`Variant.reference_plays` never load the compiler)."""
    ws = getattr(_local, "ws", None)
    if ws is None:
        from analyzer.rules.kernel import Workspace

        ws = Workspace()
        _local.ws = ws
    return ws


def check_dice(dice: tuple[int, int] | list[int]) -> tuple[int, int]:
    """Validate a roll.

    >>> check_dice((3, 1))
    (3, 1)
    """
    if len(dice) != 2:
        raise ParseError("a roll has two dice", token=str(dice))
    a, b = int(dice[0]), int(dice[1])
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ParseError("dice must be 1 to 6", token=f"{dice[0]}{dice[1]}")
    return a, b


class Variant:
    """Rules of one game; options are engine flags.

    A subclass sets ``spec`` (its facts, :mod:`analyzer.core.variants`); the other class
    attributes are copied from it when the class is made.

    >>> from analyzer.rules import Mahbusa
    >>> Mahbusa.name, Mahbusa.aliases, Mahbusa.has_cube, Mahbusa.spec.letter
    ('mahbusa', ('plakoto',), False, 'M')
    """

    spec: ClassVar[VariantSpec]
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    code: ClassVar[int] = L.VAR_STANDARD
    has_cube: ClassVar[bool] = False
    opener_rerolls: ClassVar[bool] = True
    winner_opens_next: ClassVar[bool] = False
    max_points: ClassVar[int] = 2

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if isinstance(spec, VariantSpec):
            cls.name = spec.name
            cls.aliases = spec.names[1:]
            cls.code = spec.code
            cls.has_cube = spec.has_cube
            cls.opener_rerolls = spec.opener_rerolls
            cls.winner_opens_next = spec.winner_opens_next
            cls.max_points = spec.max_points

    def __init__(self, options: int = 0) -> None:
        self.options = options

    def __repr__(self) -> str:
        return f"{type(self).__name__}(options={self.options})"

    def next_opener(self, previous: Outcome | None) -> int | None:
        """Who opens the next game of a series: 0 or 1 (the players of ``previous``, whose
        ``winner`` is 0 or 1), or ``None`` for an opening roll of one die each.

        In Mahbusa the winner opens by rolling both dice (``docs/rules.md`` §3.2, M16); after a
        draw, and in the other games, a fresh opening roll decides.

        >>> from analyzer.rules import Mahbusa, Standard
        >>> Mahbusa().next_opener(Outcome(1, 2, "mother")), Standard().next_opener(Outcome(1, 1, "single"))
        (1, None)
        >>> Mahbusa().next_opener(Outcome(0, 0, "draw")) is None
        True
        """
        if previous is None or not self.winner_opens_next or previous.points == 0:
            return None
        return previous.winner

    # ------------------------------------------------------------------ positions
    def start(self) -> Position:
        """The initial position."""
        return Position.start(self.name)

    def _check(self, pos: Position) -> None:
        if pos.variant != self.name:
            raise ParseError(f"a {pos.variant} position given to the {self.name} rules")

    # ------------------------------------------------------------------ move generation
    def legal_results(self, pos: Position, dice: tuple[int, int]) -> np.ndarray:
        """The distinct resulting boards of every legal play, as an ``(n, 64)`` int8 array.

        A roll that cannot be played gives one row: the unchanged position.
        """
        self._check(pos)
        d1, d2 = check_dice(dice)
        ws = work_buffers()
        board = np.frombuffer(pos.board, dtype=np.int8)
        n = ws.generate(board, d1, d2, self.code, self.options)
        return ws.pool[ws.results[:n]].copy()

    def roll_results(self, pos: Position,
                     rolls: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`legal_results` of every roll of ``rolls`` in one compiled call: ``(boards, flipped,
        starts)``, roll ``r``'s results (still seen from the mover; ``flipped``: the opponent on roll)
        at rows ``starts[r]:starts[r + 1]``.

        >>> from analyzer.rules import Standard
        >>> boards, flipped, starts = Standard().roll_results(Position.start(), [(3, 1), (6, 6)])
        >>> starts.tolist(), (boards[16:] == Standard().legal_results(Position.start(), (6, 6))).all()
        ([0, 16, 27], np.True_)
        """
        self._check(pos)
        dice = [check_dice(d) for d in rolls]
        d1s = np.array([d[0] for d in dice], np.int64)
        d2s = np.array([d[1] for d in dice], np.int64)
        return work_buffers().list_rolls(np.frombuffer(pos.board, dtype=np.int8), d1s, d2s, self.code, self.options)

    def legal_plays(self, pos: Position, dice: tuple[int, int]) -> list[LegalPlay]:
        """Every legal play, one per distinct resulting position, sorted by their text.

        An unplayable roll gives a single empty play whose result is ``pos`` itself.
        """
        listing = self.listing(pos, dice)
        plays = [listing.play(i) for i in range(len(listing))]
        plays.sort(key=lambda p: (-len(p.hops), p.text, p.result.board))
        return plays

    def listing(self, pos: Position, dice: tuple[int, int]) -> PlayListing:
        """Every legal play as arrays, in the move generator's order (:class:`PlayListing`: the
        same plays as :meth:`legal_plays`, whose order :meth:`PlayListing.order` gives); no object
        is made for a play until asked for."""
        self._check(pos)
        d1, d2 = check_dice(dice)
        blk = work_buffers().list_results(np.frombuffer(pos.board, dtype=np.int8), d1, d2, self.code, self.options)
        return PlayListing(self.name, blk)

    def reference_plays(self, pos: Position, dice: tuple[int, int]) -> list[LegalPlay]:
        """The same plays as :meth:`legal_plays`, from the plain-Python reference generator
        (:mod:`analyzer.rules.reference`): slower in bulk, but it needs no compiler, so a single
        query starts fast.

        >>> from analyzer.rules import Standard
        >>> len(Standard().reference_plays(Position.start(), (3, 1)))
        16
        """
        self._check(pos)
        from analyzer.rules.reference import reference_plays

        found = reference_plays(pos, check_dice(dice), self.options)
        plays = [LegalPlay(hops, Position(board, self.name)) for board, hops in found.items()]
        plays.sort(key=lambda p: (-len(p.hops), p.text, p.result.board))
        return plays

    # ------------------------------------------------------------------ results of games
    def outcome(self, pos: Position) -> Outcome | None:
        """The result of the game if it is over in ``pos``, else ``None``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ reading recorded plays
    def resolve(self, pos: Position, dice: tuple[int, int], text: str) -> LegalPlay:
        """Find the one legal play that the recorded ``text`` describes.

        Tokens may come in any order, with merged hops, ``(n)`` counts, ``bar``/``25``,
        ``off``/``0``, with or without ``*``. The play is matched by the checkers it moves;
        when several legal plays move the same checkers (hits on the way), the one whose hits
        are at points the text names or marks is chosen.
        """
        moves = parse_play(text)
        plays = self.legal_plays(pos, dice)
        if not moves:
            if len(plays) == 1 and not plays[0].hops:
                return plays[0]
            raise IllegalPlayError("no move recorded, but the roll can be played", token=text)
        want = _text_delta(moves)
        named: set[int] = set()
        marked: set[int] = set()
        for mv in moves:
            named.update(mv.via)
            if mv.dest != OFF:
                named.add(mv.dest)
            marked.update(mv.marked)
        cands = [p for p in plays if _play_delta(pos, p) == want]
        if not cands:
            raise IllegalPlayError("not a legal play for this roll", token=text)
        if len(cands) == 1:
            return cands[0]
        scored = []
        for p in cands:
            hits = {h.dest for h in p.hops if h.hit}
            if not hits <= (named | marked):
                continue
            scored.append(((len(marked & hits), len(named & hits)), p))
        if not scored:
            raise IllegalPlayError("not a legal play for this roll", token=text)
        best = max(s for s, _ in scored)
        top = [p for s, p in scored if s == best]
        if len(top) > 1:
            raise AmbiguousPlayError(
                "the play matches several legal plays: " + ", ".join(p.text for p in top), token=text)
        return top[0]


def _text_delta(moves: list[Move]) -> Counter[int]:
    c: Counter[int] = Counter()
    for mv in moves:
        src = BAR if mv.source in (BAR, RESERVE) else mv.source
        c[src] -= mv.count
        c[mv.dest] += mv.count
    return Counter({k: v for k, v in c.items() if v})


def _play_delta(before: Position, play: LegalPlay) -> Counter[int]:
    c: Counter[int] = Counter()
    for h in play.hops:
        src = BAR if h.source in (BAR, RESERVE) else h.source
        c[src] -= 1
        c[h.dest] += 1
    return Counter({k: v for k, v in c.items() if v})
