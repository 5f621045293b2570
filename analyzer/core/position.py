"""Positions of every variant, stored from the side on roll.

A :class:`Position` is a small immutable value: 64 bytes in the layout of
:mod:`analyzer.core.layout` and the name of its variant. Points are numbered 1..24 from the
mover's side; the opponent's checkers are given on the same numbering.

>>> pos = Position.start()
>>> pos.mover[23], pos.mover[12], pos.mover[7], pos.mover[5]
(2, 5, 3, 5)
>>> pos.pips()
(167, 167)
>>> pos.flip() == pos
True
>>> Position.from_notation("P 13:1 1:14 | O 24:13 7:2").mover_off
0
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from analyzer.core import layout as L
from analyzer.core.errors import ParseError, PositionError
from analyzer.core.variants import _SPECS as _variant_table
from analyzer.core.variants import DEFAULT_VARIANT, VariantSpec, variant_spec
from analyzer.core.variants import canonical_variant as canonical_variant

if TYPE_CHECKING:
    from numpy.typing import NDArray

VARIANTS = _variant_table.keys()
"""The canonical variant names (a live view of :mod:`analyzer.core.variants`)."""


PointCounts = Sequence[int] | Mapping[int, int]


def _counts(spec: PointCounts | None, what: str) -> list[int]:
    out = [0] * 25  # index 1..24
    if spec is None:
        return out
    if isinstance(spec, Mapping):
        for p, n in spec.items():
            if not 1 <= int(p) <= 24:
                raise PositionError(f"{what}: point out of range", token=str(p))
            out[int(p)] = int(n)
    else:
        vals = list(spec)
        if len(vals) != 24:
            raise PositionError(f"{what}: expected 24 point counts, got {len(vals)}")
        for i, n in enumerate(vals):
            out[i + 1] = int(n)
    for p in range(1, 25):
        if out[p] < 0:
            raise PositionError(f"{what}: negative count on point {p}", token=str(out[p]))
    return out


@dataclass(frozen=True, slots=True)
class Position:
    """A position of ``variant``, seen from the side on roll (see :mod:`analyzer.core.layout`)."""

    board: bytes
    variant: str = DEFAULT_VARIANT

    def __post_init__(self) -> None:
        if len(self.board) != L.NSLOTS:
            raise PositionError(f"a position has {L.NSLOTS} bytes, got {len(self.board)}")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_array(cls, arr: NDArray[np.int8] | Sequence[int], variant: str = DEFAULT_VARIANT) -> Position:
        """Wrap a 64-slot array (layout of :mod:`analyzer.core.layout`)."""
        a = np.asarray(arr, dtype=np.int8)
        return cls(a.tobytes(), variant)

    @classmethod
    def start(cls, variant: str = DEFAULT_VARIANT) -> Position:
        """The initial position of ``variant``.

        >>> Position.start("mahbusa").mover[23]
        15
        >>> Position.start("dutch").mover_reserve
        15
        """
        spec = variant_spec(variant)
        return cls.from_points(dict(spec.start), {25 - p: n for p, n in spec.start}, mover_reserve=spec.start_reserve,
                               opponent_reserve=spec.start_reserve, variant=spec.name)

    @classmethod
    def from_points(
        cls,
        mover: PointCounts | None,
        opponent: PointCounts | None,
        *,
        mover_bar: int = 0,
        opponent_bar: int = 0,
        mover_off: int | None = None,
        opponent_off: int | None = None,
        mover_reserve: int = 0,
        opponent_reserve: int = 0,
        mover_can_hit: bool | None = None,
        opponent_can_hit: bool | None = None,
        pinned_mover: Iterable[int] = (),
        pinned_opponent: Iterable[int] = (),
        variant: str = DEFAULT_VARIANT,
        game_end: bool = False,
        validate: bool = True,
    ) -> Position:
        """Build a position from point counts (24 counts or a ``{point: count}`` mapping).

        Counts include pinned checkers (Mahbusa). Borne-off counts default to what makes 15.
        Dutch lock flags default to "may hit" when the side has a checker in its home board.

        >>> Position.from_points({6: 15}, {19: 15}).mover_off
        0
        """
        spec = variant_spec(variant)
        m = _counts(mover, "mover")
        o = _counts(opponent, "opponent")
        pm = sorted(set(int(p) for p in pinned_mover))
        po = sorted(set(int(p) for p in pinned_opponent))
        arr = np.zeros(L.NSLOTS, dtype=np.int16)
        for p in range(1, 25):
            if p in pm and p in po:
                raise PositionError(f"point {p} cannot hold pinned checkers of both sides")
            if p in pm:  # a mover checker pinned under the opponent's stack
                if m[p] != 1 or o[p] < 1:
                    raise PositionError(f"pinned mover checker on {p} needs one mover and an opponent stack")
                arr[p] = -o[p]
                arr[L.PIN0 + p] = -1
            elif p in po:
                if o[p] != 1 or m[p] < 1:
                    raise PositionError(f"pinned opponent checker on {p} needs one opponent and a mover stack")
                arr[p] = m[p]
                arr[L.PIN0 + p] = 1
            else:
                if m[p] and o[p]:
                    raise PositionError(f"point {p} holds checkers of both sides")
                arr[p] = m[p] - o[p]
        arr[L.MOVER_BAR] = mover_bar
        arr[L.OPP_BAR] = opponent_bar
        arr[L.MOVER_RES] = mover_reserve
        arr[L.OPP_RES] = opponent_reserve
        on_m = sum(m) + mover_bar + mover_reserve
        on_o = sum(o) + opponent_bar + opponent_reserve
        arr[L.MOVER_OFF] = L.CHECKERS - on_m if mover_off is None else mover_off
        arr[L.OPP_OFF] = L.CHECKERS - on_o if opponent_off is None else opponent_off
        if spec.hit_lock:
            if mover_can_hit is None:
                mover_can_hit = any(m[p] for p in range(1, 7))
            if opponent_can_hit is None:
                opponent_can_hit = any(o[p] for p in range(19, 25))
            arr[L.MOVER_CAN_HIT] = int(mover_can_hit)
            arr[L.OPP_CAN_HIT] = int(opponent_can_hit)
        arr[L.GAME_END] = int(game_end)
        if np.any(np.abs(arr) > 127):
            raise PositionError("checker count out of range")
        pos = cls(arr.astype(np.int8).tobytes(), spec.name)
        if validate:
            pos.validate()
        return pos

    # ------------------------------------------------------------------ access
    def array(self) -> NDArray[np.int8]:
        """A fresh writable int8 array of the 64 slots."""
        return np.frombuffer(self.board, dtype=np.int8).copy()

    def _slot(self, i: int) -> int:
        v = self.board[i]
        return v - 256 if v > 127 else v

    @property
    def mover(self) -> tuple[int, ...]:
        """The mover's checkers on points 1..24 (index 0 = point 1), pinned ones included."""
        a = np.frombuffer(self.board, dtype=np.int8)
        counts = np.maximum(a[1:25], 0) + (a[L.PIN0 + 1 : L.PIN0 + 25] == -1)
        return tuple(counts.tolist())

    @property
    def opponent(self) -> tuple[int, ...]:
        """The opponent's checkers on the mover's points 1..24, pinned ones included."""
        a = np.frombuffer(self.board, dtype=np.int8)
        counts = np.maximum(-a[1:25].astype(np.int16), 0) + (a[L.PIN0 + 1 : L.PIN0 + 25] == 1)
        return tuple(counts.tolist())

    @property
    def mover_bar(self) -> int:
        return self._slot(L.MOVER_BAR)

    @property
    def opponent_bar(self) -> int:
        return self._slot(L.OPP_BAR)

    @property
    def mover_off(self) -> int:
        return self._slot(L.MOVER_OFF)

    @property
    def opponent_off(self) -> int:
        return self._slot(L.OPP_OFF)

    @property
    def mover_reserve(self) -> int:
        return self._slot(L.MOVER_RES)

    @property
    def opponent_reserve(self) -> int:
        return self._slot(L.OPP_RES)

    @property
    def spec(self) -> VariantSpec:
        """The facts of this position's variant (:mod:`analyzer.core.variants`).

        >>> Position.start("dutch").spec.has_cube
        False
        """
        return _variant_table.get(self.variant) or variant_spec(self.variant)

    @property
    def mover_can_hit(self) -> bool:
        return not self.spec.hit_lock or bool(self._slot(L.MOVER_CAN_HIT))

    @property
    def opponent_can_hit(self) -> bool:
        return not self.spec.hit_lock or bool(self._slot(L.OPP_CAN_HIT))

    @property
    def pinned_mover(self) -> tuple[int, ...]:
        """Points (mover's numbering) where a mover checker is pinned under the opponent."""
        return tuple(p for p in range(1, 25) if self._slot(L.PIN0 + p) == -1)

    @property
    def pinned_opponent(self) -> tuple[int, ...]:
        """Points (mover's numbering) where an opponent checker is pinned under the mover."""
        return tuple(p for p in range(1, 25) if self._slot(L.PIN0 + p) == 1)

    @property
    def game_end_flag(self) -> bool:
        """True when the game ended by a special rule (Mahbusa mother win or draw)."""
        return bool(self._slot(L.GAME_END))

    # ------------------------------------------------------------------ derived values
    def flip(self) -> Position:
        """The same position seen from the other side.

        >>> p = Position.from_notation("P 13:1 1:14 | O 24:13 7:2")
        >>> p.flip().flip() == p
        True
        """
        a = np.frombuffer(self.board, dtype=np.int8)
        b = np.zeros(L.NSLOTS, dtype=np.int8)
        b[1:25] = -a[24:0:-1]
        b[L.OPP_BAR] = a[L.MOVER_BAR]
        b[L.MOVER_BAR] = a[L.OPP_BAR]
        b[L.MOVER_OFF] = a[L.OPP_OFF]
        b[L.OPP_OFF] = a[L.MOVER_OFF]
        b[L.MOVER_RES] = a[L.OPP_RES]
        b[L.OPP_RES] = a[L.MOVER_RES]
        b[L.MOVER_CAN_HIT] = a[L.OPP_CAN_HIT]
        b[L.OPP_CAN_HIT] = a[L.MOVER_CAN_HIT]
        b[L.PIN0 + 1 : L.PIN0 + 25] = -a[L.PIN0 + 24 : L.PIN0 : -1]
        b[L.GAME_END] = a[L.GAME_END]
        return Position(b.tobytes(), self.variant)

    def pips(self) -> tuple[int, int]:
        """Pip counts (mover, opponent); bar and reserve checkers count 25.

        >>> Position.start("dutch").pips()
        (375, 375)
        """
        m, o = self.mover, self.opponent
        pm = sum((i + 1) * n for i, n in enumerate(m)) + 25 * (self.mover_bar + self.mover_reserve)
        po = sum((24 - i) * n for i, n in enumerate(o)) + 25 * (self.opponent_bar + self.opponent_reserve)
        return pm, po

    def validate(self) -> None:
        """Raise :class:`PositionError` if the position is impossible in its variant."""
        a = np.frombuffer(self.board, dtype=np.int8).astype(np.int16)
        v = self.variant
        spec = _variant_table.get(v)
        if spec is None:
            raise PositionError("unknown variant", token=v)
        for name, val in (("mover bar", a[L.MOVER_BAR]), ("opponent bar", a[L.OPP_BAR]),
                          ("mover off", a[L.MOVER_OFF]), ("opponent off", a[L.OPP_OFF]),
                          ("mover reserve", a[L.MOVER_RES]), ("opponent reserve", a[L.OPP_RES])):
            if val < 0:
                raise PositionError(f"{name} is negative", token=str(int(val)))
        m_total = sum(self.mover) + a[L.MOVER_BAR] + a[L.MOVER_OFF] + a[L.MOVER_RES]
        o_total = sum(self.opponent) + a[L.OPP_BAR] + a[L.OPP_OFF] + a[L.OPP_RES]
        if m_total != L.CHECKERS:
            raise PositionError(f"the side on roll has {m_total} checkers, not 15")
        if o_total != L.CHECKERS:
            raise PositionError(f"the opponent has {o_total} checkers, not 15")
        if ((not spec.reserve and (a[L.MOVER_RES] or a[L.OPP_RES]))
                or (not spec.hit_lock and (a[L.MOVER_CAN_HIT] or a[L.OPP_CAN_HIT]))):
            raise PositionError(f"{v} positions have no reserve or hitting lock")
        if not spec.pins and np.any(a[L.PIN0 + 1 : L.PIN0 + 25]):
            raise PositionError(f"{v} positions have no pinned checkers")
        if not spec.bar and (a[L.MOVER_BAR] or a[L.OPP_BAR]):
            raise PositionError(f"{v} has no bar")
        if np.any(a[57:]):
            raise PositionError("unused position slots must be zero")
        if a[L.GAME_END] and not spec.mother_rule:
            enders = " and ".join(s.name for s in _variant_table.values() if s.mother_rule)
            raise PositionError(f"only {enders} games end by a special rule")
        if a[L.GAME_END] and not (self._mother_rule_ended(0) or self._mother_rule_ended(1)):
            raise PositionError(f"a {v} game ends by a special rule only when a mother is pinned")
        if a[L.MOVER_OFF] == L.CHECKERS and a[L.OPP_OFF] == L.CHECKERS:
            raise PositionError("both sides have borne off all their checkers")

    def _mother_rule_ended(self, pinner: int) -> bool:
        """Whether the mother rule ends the game in favour of ``pinner`` (0 mover, 1 opponent) or as
        a draw: the other side's mother is pinned on the pinner's last point and the pinner's own
        start is empty or holds his pinned mother (``docs/rules.md`` §3.2 rules 8-9)."""
        pos = self if pinner == 0 else self.flip()
        if 1 not in pos.pinned_opponent:
            return False
        return 24 in pos.pinned_mover or pos.mover[23] == 0

    def game_over(self) -> str | None:
        """Why the game is already over in this position, or ``None`` while it goes on.

        A game is over once a side has borne off all 15 checkers, or, in Mahbusa, once it ended by
        the mother rule (the ``game_end`` flag). Such a position can be drawn and keyed, but it is
        no position to play, evaluate or double in.

        >>> Position.start().game_over() is None
        True
        >>> Position.from_notation("P | O 19:5 | off P15 O10").game_over()
        'the side on roll has borne off all 15 checkers'
        >>> Position.from_notation("P | O 19:5 | off P15 O10").flip().game_over()
        'the opponent has borne off all 15 checkers'
        """
        if self.mover_off == L.CHECKERS:
            return "the side on roll has borne off all 15 checkers"
        if self.opponent_off == L.CHECKERS:
            return "the opponent has borne off all 15 checkers"
        if self.game_end_flag:
            return "the game ended by the mother rule"
        return None

    def require_in_play(self) -> Position:
        """Return ``self`` when the game goes on; raise :class:`PositionError` when it is over.

        >>> Position.from_notation("P 8:14 1:1+o | O 20:14 | over", "mahbusa").require_in_play()
        Traceback (most recent call last):
        ...
        analyzer.core.errors.PositionError: not a position to play: the game ended by the mother rule
        """
        why = self.game_over()
        if why is not None:
            raise PositionError(f"not a position to play: {why}")
        return self

    # ------------------------------------------------------------------ text forms
    def to_notation(self) -> str:
        """The test notation of ``docs/rules.md`` §0.2.

        >>> Position.start().to_notation()
        'P 24:2 13:5 8:3 6:5 | O 19:5 17:3 12:5 1:2'
        """
        m, o = self.mover, self.opponent
        pm, po = set(self.pinned_mover), set(self.pinned_opponent)
        ptoks = []
        otoks = []
        for p in range(24, 0, -1):
            if p in pm:
                continue  # shown with the opponent's stack as "+p"
            if m[p - 1]:
                ptoks.append(f"{p}:{m[p - 1] - (0 if p not in po else 0)}" + ("+o" if p in po else ""))
        for p in range(24, 0, -1):
            if p in po:
                continue
            if o[p - 1]:
                otoks.append(f"{p}:{o[p - 1]}" + ("+p" if p in pm else ""))
        # In "+o"/"+p" form the count is the top stack only.
        ptoks = [t if not t.endswith("+o") else _top_form(t, m) for t in ptoks]
        otoks = [t if not t.endswith("+p") else _top_form(t, o) for t in otoks]
        parts = ["P " + " ".join(ptoks) if ptoks else "P", "O " + " ".join(otoks) if otoks else "O"]
        if self.mover_bar or self.opponent_bar:
            parts.append(f"bar P{self.mover_bar} O{self.opponent_bar}")
        if self.mover_off or self.opponent_off:
            parts.append(f"off P{self.mover_off} O{self.opponent_off}")
        spec = self.spec
        if spec.reserve:
            parts.append(f"res P{self.mover_reserve} O{self.opponent_reserve}")
        if spec.hit_lock:
            parts.append("unlocked" if self.mover_can_hit else "locked")
            parts.append("ounlocked" if self.opponent_can_hit else "olocked")
        if self.game_end_flag:
            parts.append("over")
        return " | ".join(parts)

    @classmethod
    def from_notation(cls, text: str, variant: str = DEFAULT_VARIANT) -> Position:
        """Parse the test notation of ``docs/rules.md`` §0.2.

        >>> Position.from_notation("P 14:1 10:1+o 1:13 | O 21:14", "mahbusa").pinned_opponent
        (10,)
        """
        variant = canonical_variant(variant)
        m: dict[int, int] = {}
        o: dict[int, int] = {}
        pm: list[int] = []
        po: list[int] = []
        kw: dict[str, Any] = {}
        for part in text.split("|"):
            toks = part.split()
            if not toks:
                continue
            head = toks[0]
            if head in ("P", "O"):
                for t in toks[1:]:
                    mt = re.fullmatch(r"(\d+):(\d+)(\+[op])?", t)
                    if not mt:
                        raise ParseError("bad point entry in position notation", token=t)
                    p, n, extra = int(mt.group(1)), int(mt.group(2)), mt.group(3)
                    own, other = (m, o) if head == "P" else (o, m)
                    own[p] = own.get(p, 0) + n
                    if extra:
                        other[p] = other.get(p, 0) + 1
                        (po if head == "P" else pm).append(p)
            elif head in ("bar", "off", "res"):
                for t in toks[1:]:
                    mt = re.fullmatch(r"([PO])(\d+)", t)
                    if not mt:
                        raise ParseError(f"bad {head} entry in position notation", token=t)
                    side = "mover" if mt.group(1) == "P" else "opponent"
                    key = {"bar": "bar", "off": "off", "res": "reserve"}[head]
                    kw[f"{side}_{key}"] = int(mt.group(2))
            elif head in ("locked", "unlocked"):
                kw["mover_can_hit"] = head == "unlocked"
            elif head in ("olocked", "ounlocked"):
                kw["opponent_can_hit"] = head == "ounlocked"
            elif head == "over":
                kw["game_end"] = True
            else:
                raise ParseError("unknown section in position notation", token=head)
        return cls.from_points(m, o, pinned_mover=pm, pinned_opponent=po, variant=variant, **kw)

    def __repr__(self) -> str:
        return f"Position.from_notation({self.to_notation()!r}, {self.variant!r})"


def flip_boards(boards: NDArray[np.int8]) -> NDArray[np.int8]:
    """Flip many 64-slot boards at once (``(n, 64)`` int8): each seen from the other side.

    >>> b = np.stack([np.frombuffer(Position.from_notation("P 13:1 1:14 | O 24:13 7:2").board, np.int8)])
    >>> Position(flip_boards(b)[0].tobytes()) == Position.from_notation("P 13:1 1:14 | O 24:13 7:2").flip()
    True
    """
    a = np.asarray(boards, dtype=np.int8)
    out = np.zeros_like(a)
    out[:, 1:25] = -a[:, 24:0:-1]
    out[:, L.OPP_BAR] = a[:, L.MOVER_BAR]
    out[:, L.MOVER_BAR] = a[:, L.OPP_BAR]
    for x, y in ((L.MOVER_OFF, L.OPP_OFF), (L.MOVER_RES, L.OPP_RES), (L.MOVER_CAN_HIT, L.OPP_CAN_HIT)):
        out[:, x] = a[:, y]
        out[:, y] = a[:, x]
    out[:, L.PIN0 + 1 : L.PIN0 + 25] = -a[:, L.PIN0 + 24 : L.PIN0 : -1]
    out[:, L.GAME_END] = a[:, L.GAME_END]
    return out


def _top_form(tok: str, counts: tuple[int, ...]) -> str:
    p = int(tok.split(":")[0])
    return f"{p}:{counts[p - 1]}{tok[-2:]}"
