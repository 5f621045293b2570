"""Reading a play typed at the board: whole plays, unambiguous partial plays, and why a play is illegal.

A player types a play in gnubg notation (``24/18 13/11``, ``bar/20``, ``6/off``, ``8/5(2)``; Dutch
reserve entries as the ``.mat`` dialect writes them, ``bar/20``, or ``in/20``). The text is matched
against the legal plays of the roll **by the checkers it moves**, the way the replay reads a recorded
play (:meth:`analyzer.rules.Variant.resolve`):

* a text that describes a whole legal play is that play (hits found by the engine, ``*`` optional);
* a text that describes part of legal plays is *completed* when every legal play it can be part of
  ends in the same position, and otherwise kept as a partial play waiting for the rest;
* anything else gets a one-line reason naming the rule that forbids it (:func:`explain_illegal`).

>>> from analyzer.rules import find_variant
>>> from analyzer.core.position import Position
>>> rules = find_variant("standard")
>>> read_play(rules, Position.start(), (3, 1), "8/5 6/5").play.text
'8/5 6/5'
>>> r = read_play(rules, Position.start(), (3, 1), "8/5")
>>> r.status, r.play is None
('partial', True)
>>> read_play(rules, Position.start(), (6, 5), "24/18").status
'partial'
>>> read_play(rules, Position.start(), (5, 2), "24/17").message
'point 17 is blocked (O holds it with 3 checkers)'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations

from analyzer.core.errors import AmbiguousPlayError, IllegalPlayError, ParseError
from analyzer.core.play import BAR, OFF, RESERVE, Hop, Move, parse_play
from analyzer.core.position import Position
from analyzer.rules import LegalPlay, Variant

__all__ = ["PlayInput", "explain_illegal", "read_play"]


@dataclass(frozen=True, slots=True)
class PlayInput:
    """What a typed play is: ``status`` ``"complete"`` (``play`` is the legal play; ``completed``
    when the text was only part of it), ``"partial"`` (part of several legal plays that end in
    different positions: type the rest), ``"ambiguous"`` (a whole play that matches several legal
    plays, listed in ``options``) or ``"illegal"`` (``message`` says why)."""

    status: str
    play: LegalPlay | None = None
    completed: bool = False
    message: str = ""
    options: tuple[str, ...] = field(default=())


def _src(p: int) -> int:
    return BAR if p in (BAR, RESERVE) else p


def _text_delta(moves: Sequence[Move]) -> Counter[int]:
    c: Counter[int] = Counter()
    for mv in moves:
        c[_src(mv.source)] -= mv.count
        c[mv.dest] += mv.count
    return Counter({k: v for k, v in c.items() if v})


def _hops_delta(hops: Sequence[Hop]) -> Counter[int]:
    c: Counter[int] = Counter()
    for h in hops:
        c[_src(h.source)] -= 1
        c[h.dest] += 1
    return Counter({k: v for k, v in c.items() if v})


def _dist(src: int, dest: int) -> int:
    return (25 if src == BAR else src) - dest


def _splits(moves: Sequence[tuple[int, bool]], dice: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to play the moves ``(distance, bears off)`` with some of ``dice``: the dice left
    over by each way (a bear-off may overshoot with its last die)."""
    if not moves:
        return [tuple(sorted(dice))]
    (dist, off), rest = moves[0], moves[1:]
    out: set[tuple[int, ...]] = set()
    for k in range(1, len(dice) + 1):
        for idx in combinations(range(len(dice)), k):
            sub = [dice[i] for i in idx]
            total = sum(sub)
            if total == dist or (off and total > dist and total - max(sub) < dist):
                left = [d for i, d in enumerate(dice) if i not in idx]
                out.update(_splits(rest, left))
    return sorted(out)


def _moves_of(delta: Counter[int]) -> list[list[tuple[int, bool]]]:
    """The ways to pair the sources and destinations of a change of the mover's checkers into
    moves ``(distance, bears off)``; none when they cannot be paired forwards."""
    sources = [p for p, c in sorted(delta.items()) if c < 0 for _ in range(-c)]
    dests = [p for p, c in sorted(delta.items()) if c > 0 for _ in range(c)]
    if len(sources) != len(dests):
        return []
    ways = []
    for perm in sorted(set(permutations(dests))):
        pairs = [(_dist(s, d), d == OFF) for s, d in zip(sources, perm, strict=True)]
        if all(dist > 0 for dist, _ in pairs):
            ways.append(pairs)
    return ways


def _extends(play: LegalPlay, typed: list[tuple[int, bool]], want: Counter[int], dice: Sequence[int]) -> bool:
    """Whether ``play`` is the typed moves (change ``want``) followed by more moves with the dice
    they leave: the rest of the play's change must be playable with those dice."""
    rest = Counter(_hops_delta(play.hops))
    rest.subtract(want)
    rest = Counter({k: v for k, v in rest.items() if v})
    if not rest:
        return False
    unused = len(dice) - len(play.hops)
    for left in _splits(typed, dice):
        for pairs in _moves_of(rest):
            if any(len(after) == unused for after in _splits(pairs, left)):
                return True
    return False


def read_play(rules: Variant, pos: Position, dice: tuple[int, int], text: str) -> PlayInput:
    """Match ``text`` (a whole or partial play) against the legal plays of ``dice`` in ``pos``
    (see the module docstring).

    >>> from analyzer.rules import find_variant
    >>> rules = find_variant("dutch")
    >>> read_play(rules, rules.start(), (4, 2), "bar/21").status  # then in/23, or on to 19
    'partial'
    """
    try:
        moves = parse_play(text)
    except ParseError as err:
        return PlayInput("illegal", message=f"{err.message}: {text.strip()!r}")
    plays = rules.legal_plays(pos, dice)
    if not moves:
        return PlayInput("illegal", message="type a play, e.g. 13/10 6/5")
    want = _text_delta(moves)
    if any(_hops_delta(p.hops) == want for p in plays):
        try:
            return PlayInput("complete", rules.resolve(pos, dice, text))
        except AmbiguousPlayError:
            same = [p.text for p in plays if _hops_delta(p.hops) == want]
            return PlayInput("ambiguous", message="that play can hit in more than one way: mark the hit with *, "
                             "one of " + ", ".join(same), options=tuple(same))
        except IllegalPlayError:
            return PlayInput("illegal", message="the points marked * are not where this play hits")
    all_dice = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    typed = [(_dist(_src(mv.source), mv.dest), mv.dest == OFF) for mv in moves for _ in range(mv.count)]
    why = _step_problem(pos, dice, moves, list(all_dice), [])
    if why:
        return PlayInput("illegal", message=why)
    parts = [p for p in plays if _extends(p, typed, want, all_dice)]
    results = {p.result for p in parts}
    if len(results) == 1:
        return PlayInput("complete", parts[0], completed=True)
    if parts:
        return PlayInput("partial")
    return PlayInput("illegal", message=explain_illegal(rules, pos, dice, moves, plays))


# ---------------------------------------------------------------------- explanations
class _Board:
    """The mover's and opponent's checkers, simulated step by step for an explanation."""

    def __init__(self, pos: Position) -> None:
        self.variant = pos.variant
        self.me = [0, *pos.mover]  # index 1..24
        self.opp = [0, *pos.opponent]
        self.bar = pos.mover_bar
        self.spec = pos.spec
        self.reserve = pos.mover_reserve if self.spec.reserve else 0
        self.can_hit = pos.mover_can_hit
        self.my_pinned = set(pos.pinned_mover)  # my checker pinned under O's stack
        self.opp_pinned = set(pos.pinned_opponent)  # O's checker pinned under my stack

    def movable(self, p: int) -> int:
        return self.me[p] - (1 if p in self.my_pinned else 0)

    def all_home(self) -> bool:
        if self.bar or self.reserve or (self.spec.pins and self.my_pinned):
            return False
        return not any(self.me[p] for p in range(7, 25))

    def highest(self) -> int:
        return max((p for p in range(1, 25) if self.me[p]), default=0)

    def landing(self, p: int) -> str | None:
        """Why a checker may not land on ``p`` now, or ``None`` when it may."""
        o = self.opp[p]
        if self.spec.pins:
            if p in self.my_pinned:
                return f"point {p} is blocked (O's checkers sit on your pinned checker there)"
            if o >= 2:
                return f"point {p} is blocked (O holds it with {o} checkers)"
            return None
        if o >= 2:
            return f"point {p} is blocked (O holds it with {o} checkers)"
        if o == 1 and not self.can_hit:
            return (f"Dutch rule: you may not hit before one of your checkers has reached your home board, "
                    f"so O's blot on {p} blocks you")
        return None

    def step(self, src: int, dest: int) -> None:
        if src == BAR:
            if self.bar:
                self.bar -= 1
            else:
                self.reserve -= 1
        else:
            self.me[src] -= 1
            if src in self.opp_pinned and self.me[src] == 0:
                self.opp_pinned.discard(src)
        if dest != OFF:
            if self.opp[dest] == 1 and not self.spec.pins:
                self.opp[dest] = 0
            elif self.opp[dest] == 1:
                self.opp_pinned.add(dest)
            self.me[dest] += 1
            if 1 <= dest <= 6:
                self.can_hit = True


def _pt(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{dice[0]}-{dice[1]}"


def explain_illegal(rules: Variant, pos: Position, dice: tuple[int, int], moves: Sequence[Move],
                    plays: Sequence[LegalPlay] | None = None) -> str:
    """One line saying which rule forbids the play ``moves`` (parsed text) with ``dice``: a checker
    that is not there or is pinned, a checker on the bar that must enter first, a distance the dice
    do not make, a blocked point, the Dutch hitting lock, bearing off too early, or the rule to use
    both dice (or the larger die, or as many of a double as possible).

    >>> from analyzer.rules import find_variant
    >>> rules = find_variant("standard")
    >>> pos = Position.from_notation("P 24:2 13:5 8:3 6:4 | O 1:2 12:5 17:3 19:5 | bar P1")
    >>> explain_illegal(rules, pos, (3, 1), parse_play("8/5 6/5"))
    'you have a checker on the bar: it must enter before any other checker moves'
    >>> explain_illegal(rules, Position.start(), (5, 5), parse_play("24/14"))
    'point 19 is blocked (O holds it with 5 checkers)'
    """
    if plays is None:
        plays = rules.legal_plays(pos, dice)
    double = dice[0] == dice[1]
    left: list[int] = [dice[0]] * 4 if double else sorted(dice, reverse=True)
    used: list[int] = []
    why = _step_problem(pos, dice, moves, left, used)
    if why:
        return why
    m = max((len(p.hops) for p in plays), default=0)
    if m == 0:
        return f"no checker can move with {_dice_text(dice)}: the roll cannot be played"
    if len(used) < m:
        if double:
            return f"you must play as many of the four {dice[0]}s as you can ({m} here)"
        return "you must use both dice when you can"
    if m == 1 and not double and used and used[0] < max(dice):
        return f"only one die can be played, and then it must be the larger one ({max(dice)}) when it can"
    return f"not a legal play for {_dice_text(dice)}"


def _step_problem(pos: Position, dice: tuple[int, int], moves: Sequence[Move], left: list[int],
                  used: list[int]) -> str | None:
    """The first step of ``moves`` that a rule forbids (see :func:`explain_illegal`), or ``None``;
    ``left`` and ``used`` (the dice) are updated as the steps are played."""
    b = _Board(pos)
    sources = [(_src(mv.source), mv) for mv in moves]
    # checkers on the bar (standard, Dutch) must all enter before anything else moves
    entering = sum(mv.count for s, mv in sources if s == BAR)
    if b.bar and any(s != BAR for s, _ in sources) and entering < b.bar:
        return "you have a checker on the bar: it must enter before any other checker moves"
    order = sorted(sources, key=lambda t: -t[0])
    for src, mv in order:
        name = mv.text or f"{_pt(src)}/{_pt(mv.dest)}"
        for _ in range(mv.count):
            if src == BAR:
                if b.bar == 0 and b.reserve == 0:
                    return ("you have no checker on the bar" if not pos.spec.reserve
                            else "you have no checker on the bar or in the reserve")
            elif b.me[src] == 0:
                return f"you have no checker on {src}"
            elif b.movable(src) == 0:
                return f"your checker on {src} is pinned: it cannot move until O's checkers leave the point"
            why = _walk(b, src, mv, left, used, dice, name)
            if why:
                return why
    return None


def _walk(b: _Board, src: int, mv: Move, left: list[int], used: list[int], dice: tuple[int, int],
          name: str) -> str | None:
    """Move one checker of ``mv`` on ``b`` with dice taken from ``left``; the reason it cannot, or
    ``None`` (then ``b``, ``left`` and ``used`` are updated)."""
    start = 25 if src == BAR else src
    dest = mv.dest
    dist = start - dest
    if not left:
        return f"{name}: no dice left for it (the roll is {_dice_text(dice)})"
    if dest == OFF and not b.all_home():
        return "you may bear off only when all your checkers are in your home board" + (
            " and none of them is pinned" if b.spec.pins and b.my_pinned else "")
    if dest != OFF and b.landing(dest):
        return b.landing(dest)
    best_reason: str | None = None
    tried: list[list[int]] = []
    for k in range(1, len(left) + 1):
        for seq in sorted(set(permutations(left, k)), reverse=True):
            total = sum(seq)
            over = dest == OFF and total > dist and sum(seq[:-1]) < dist
            if total != dist and not over:
                continue
            tried.append(list(seq))
            reason = _path_reason(b, start, dest, seq, mv)
            if reason is None:
                for d in seq:
                    left.remove(d)
                    used.append(d)
                landing = start
                for d in seq:
                    nxt = max(landing - d, 0) if dest == OFF else landing - d
                    b.step(BAR if landing == 25 else landing, nxt if nxt > 0 else OFF)
                    landing = nxt
                return None
            best_reason = best_reason or reason
    if not tried:
        dice_left = " and ".join(str(d) for d in left)
        what = "the dice left" if used else "your dice"
        return f"{name} moves {dist} pips: {what} ({dice_left}) do not make {dist}"
    if len(tried) > 1 and best_reason and "blocked" in best_reason and all(len(s) == 2 for s in tried):
        mids = sorted({start - s[0] for s in tried}, reverse=True)
        if all(_blocked(b, p) for p in mids):
            orders = " or ".join(f"{s[0]} then {s[1]}" for s in tried)
            return (f"{name} moves {dist} pips: with {_dice_text(dice)} that is {orders}, and points "
                    f"{' and '.join(str(p) for p in sorted(mids))} are blocked (O holds them)")
    return best_reason


def _blocked(b: _Board, p: int) -> bool:
    return 1 <= p <= 24 and b.landing(p) is not None


def _path_reason(b: _Board, start: int, dest: int, seq: Sequence[int], mv: Move) -> str | None:
    """Why the checker on ``start`` cannot go to ``dest`` by the dice ``seq`` in order (intermediate
    landings included), or ``None``."""
    p = start
    for i, d in enumerate(seq):
        nxt = p - d
        if nxt <= 0:
            if dest != OFF:
                return f"{mv.text}: cannot move past point 1 without bearing off"
            if i < len(seq) - 1:
                return f"{mv.text}: the checker would be off before the last die"
            if nxt < 0 and any(b.me[q] - (q == start) for q in range(p + 1, 25)):
                return (f"{mv.text}: a die larger than the point bears off only from your highest point "
                        f"({b.highest()})")
            return None
        if mv.via and nxt != dest and i < len(seq) - 1 and not set(mv.via) <= {start - sum(seq[:j + 1])
                                                                            for j in range(len(seq) - 1)}:
            return f"{mv.text}: the dice do not stop on the points you named"
        reason = b.landing(nxt)
        if reason:
            return reason
        p = nxt
    return None

