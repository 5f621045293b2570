"""Replay a match record through the rules engine, one decision at a time.

:func:`replay_games` takes a :class:`~analyzer.formats.records.MatchRecord` and yields a
:class:`GameReplay` per game: the game's :class:`Decision` values (checker plays, doubles, takes,
drops, resignations), how the game ended and what it was worth, or the error that made the game
unreadable. A bad game is reported and skipped; the next game is replayed from its own score line.

What is checked: every play against the legal plays of its roll (tokens in any order, merged
hops, hits found by the engine, ``*`` optional); a roll written without moves is a dance when
nothing can be played, the one legal play when only one exists, and otherwise a roll followed by
a resignation (as gnubg reads it); cube actions against the owner, the Crawford game (inferred
from the scores) and the variant (no cube in Dutch or Mahbusa); the game value from the board and
the cube, never from the ``Wins`` number, which only classifies a resignation; and the next
game's score line against the computed result.

Around it: :mod:`analyzer.analysis.play_matcher` finds the legal play a text describes,
:mod:`analyzer.analysis.normalise` rewrites a record from its replay and
:mod:`analyzer.analysis.identifiers` gives a decision's gnubg IDs, XGID and key.

>>> from analyzer.formats.mat import read_match_text
>>> text = '''
...  3 point match
...
...  Game 1
...  ann : 0                        bob : 0
...   1) 31: 8/5 6/5                 64: 24/18 13/9
...   2)  Doubles => 2                Drops
...       Wins 1 point
... '''
>>> [m] = read_match_text(text)
>>> [g] = replay_games(m)
>>> [(d.kind, d.player, d.normalised) for d in g.decisions]
[('move', 'ann', '8/5 6/5'), ('move', 'bob', '24/18 13/9'), ('double', 'ann', '2'), ('drop', 'bob', '')]
>>> g.winner, g.points, g.end
(0, 1, 'drop')
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from analyzer.analysis.play_matcher import flipped, legal_rows, play_at, resolve_text
from analyzer.core.errors import (
    AmbiguousPlayError,
    IllegalPlayError,
    InputError,
    ParseError,
    RulesError,
)
from analyzer.core.match import MatchState, beaver, double_refusal, raccoon, refusal_value, take
from analyzer.core.play import Hop, format_play
from analyzer.core.position import Position
from analyzer.core.variants import DEFAULT_VARIANT
from analyzer.formats.records import (
    Action,
    Double,
    Drop,
    GameRecord,
    MatchRecord,
    Resign,
    Roll,
    Take,
    Win,
    crawford_flags,
    variant_of,
)
from analyzer.rules import Variant, find_variant

__all__ = ["Decision", "GameReplay", "decisions", "replay_games"]

_format = functools.lru_cache(maxsize=1 << 16)(format_play)


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a replayed game.

    ``side`` is the player who decided (0 = the first player); ``position`` is the position
    before the decision seen from ``on_roll`` (the player holding the turn: for a take or a drop
    that is the doubler); ``state`` the score and cube at that moment. ``played`` is the text as
    written, ``normalised`` the canonical text: the play in gnubg notation (``""`` for a dance),
    the new cube value for a double or beaver, the resignation's level for a resignation.
    ``result`` is the position after a checker play, still seen from the mover.
    """

    file: str
    match_index: int
    game: int
    move: int
    player: str
    side: int
    kind: str
    dice: tuple[int, int] | None
    played: str
    normalised: str
    position: Position
    on_roll: int
    state: MatchState
    line: int
    column: int
    variant: str = DEFAULT_VARIANT
    result: Position | None = None
    hops: tuple[Hop, ...] = ()

    @property
    def score(self) -> tuple[int, int]:
        """The score before the game (first player, second player)."""
        return self.state.score


@dataclass(frozen=True, slots=True)
class GameReplay:
    """A replayed game. ``error`` is set when the game could not be replayed; its decisions are
    then left out. ``end`` is ``"bearoff"``, ``"drop"``, ``"resign"``, ``"mother"``
    (Mahbusa: the opponent's last checker pinned on his starting point), ``"draw"`` or
    ``"unfinished"``; ``points`` the computed value (cube included); ``score_error`` an
    inconsistency between this result and the next game's score line (the game itself is fine).
    """

    file: str
    match_index: int
    number: int
    line: int
    variant: str
    state: MatchState
    decisions: tuple[Decision, ...] = ()
    winner: int | None = None
    points: int = 0
    end: str = "unfinished"
    resignation: str | None = None
    error: InputError | None = None
    score_error: InputError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.score_error is None


@dataclass
class _Turn:
    """Mutable replay state of one game."""

    pos: Position  # from the side of ``turn`` (or side 0 before the first roll)
    turn: int | None = None
    state: MatchState = MatchState()
    pending_double: int | None = None
    beaver_by: int | None = None  # who beavered (or raccooned) last; the other may still refuse
    pending_resign: Roll | None = None
    over: bool = False
    winner: int | None = None
    points: int = 0
    end: str = "unfinished"
    resignation: str | None = None
    move: int = 0
    resign_index: int | None = None


def _player(record: MatchRecord, game: GameRecord, side: int) -> str:
    return record.players[side] or game.names[side]


def replay_games(record: MatchRecord, games: Iterable[GameRecord] | None = None) -> Iterator[GameReplay]:
    """Replay every game of ``record`` (see the module docstring), or of ``games`` when given (the
    games of a match streamed by the reader: they are read one at a time, with one game of
    lookahead for the score check).

    A game whose score line already reaches the match length is reported as an error on that
    line (the match was over, or the score is wrong) and the next game is replayed as usual.
    """
    for_pairs, for_flags = itertools.tee(record.games if games is None else games)
    flags = crawford_flags(record.length, record.crawford, for_flags)
    for (game, nxt), (crawford, post) in zip(_with_next(for_pairs), flags, strict=True):
        variant_name = variant_of(game.variation) if game.variation else record.variant
        if record.length and max(game.score) >= record.length:
            a, b = game.score
            yield GameReplay(file=record.source, match_index=record.index, number=game.number,
                             line=game.line, variant=variant_name, state=MatchState(),
                             error=RulesError(f"game {game.number} starts at {a}-{b}, but the match ends "
                                              f"at {record.length} points", file=record.source,
                                              line=game.score_where, token=f"{a}-{b}"))
            continue
        try:
            base = MatchState(length=record.length, score=game.score, crawford=crawford,
                              post_crawford=post, jacoby=bool(record.jacoby) and not record.length,
                              beavers=bool(record.beaver) and not record.length,
                              raccoons=bool(record.beaver) and not record.length,
                              cube_limit=_limit(record.cube_limit),
                              crawford_rule=record.crawford is not False or crawford)
        except InputError as err:
            yield GameReplay(file=record.source, match_index=record.index, number=game.number,
                             line=game.line, variant=variant_name, state=MatchState(),
                             error=err.located(file=record.source, line=game.score_where))
            continue
        g = _replay_game(record, game, base, variant_name)
        if (g.error is None and nxt is not None and nxt.number == game.number + 1
                and not (record.length and max(nxt.score) >= record.length)):
            g = replace(g, score_error=_check_next(record, game, g, nxt))
        yield g


def _with_next(games: Iterable[GameRecord]) -> Iterator[tuple[GameRecord, GameRecord | None]]:
    """Each game with the one after it (``None`` after the last)."""
    it = iter(games)
    cur = next(it, None)
    while cur is not None:
        nxt = next(it, None)
        yield cur, nxt
        cur = nxt


def decisions(record: MatchRecord) -> Iterator[Decision]:
    """Every decision of the games that replay without error."""
    for g in replay_games(record):
        if g.error is None:
            yield from g.decisions


def _limit(value: int | None) -> int | None:
    if value is None or value < 1 or value & (value - 1):
        return None
    return value


def _check_next(record: MatchRecord, game: GameRecord, g: GameReplay, nxt: GameRecord) -> InputError | None:
    expect = list(game.score)
    if g.winner is not None:
        expect[g.winner] += g.points
    if tuple(expect) == nxt.score:
        return None
    if not record.length and nxt.score == game.score:
        return None  # money sessions: some producers do not carry the score forward
    if g.end == "unfinished":
        why = f"game {game.number} has no result, but the next score line is {nxt.score[0]}-{nxt.score[1]}"
    else:
        who = _player(record, game, g.winner) if g.winner is not None else "nobody"
        why = (f"game {game.number} ({g.end}, {who} wins {g.points}) gives {expect[0]}-{expect[1]}, "
               f"but the next score line says {nxt.score[0]}-{nxt.score[1]}")
    return RulesError(why, file=record.source, line=nxt.score_where, token=f"{nxt.score[0]}-{nxt.score[1]}")


def _replay_game(record: MatchRecord, game: GameRecord, base: MatchState, variant_name: str) -> GameReplay:
    head = GameReplay(file=record.source, match_index=record.index, number=game.number, line=game.line,
                      variant=variant_name, state=base)
    try:
        rules = find_variant(variant_name)
    except ParseError as err:
        return replace(head, error=err.located(file=record.source, line=game.line))
    if not game.actions:  # a truncated file, or a game started and never played: not a game to skip silently
        return replace(head, error=RulesError(f"game {game.number} has no move", file=record.source,
                                              line=game.score_where, token=f"Game {game.number}"))
    t = _Turn(pos=rules.start(), state=base)
    out: list[Decision] = []
    act: Action | None = None
    try:
        for act in game.actions:
            _step(record, game, rules, t, act, out)
        if t.pending_resign is not None:
            _forced_move_missing(t.pending_resign)
        if game.resigned and not t.over:
            raise RulesError("the game ended by resignation, but no result line was written")
    except InputError as err:
        line = getattr(act, "line", game.line)
        column = getattr(act, "column", None)
        if isinstance(err, (IllegalPlayError, AmbiguousPlayError, ParseError)) and isinstance(act, Roll):
            column = act.play_column or act.column
        return replace(head, error=err.located(file=record.source, line=line, column=column))
    return replace(head, decisions=tuple(out), winner=t.winner, points=t.points, end=t.end,
                   resignation=(t.resignation or "single") if t.end == "resign" else None)


def _forced_move_missing(roll: Roll) -> None:
    raise IllegalPlayError(
        f"no move written for {roll.dice[0]}{roll.dice[1]}, the roll can be played, and no "
        "resignation follows", line=roll.line, column=roll.column, token=roll.text)


def _decision(record: MatchRecord, game: GameRecord, t: _Turn, side: int, kind: str, act: Action,
              *, dice: tuple[int, int] | None = None, played: str, normalised: str,
              result: Position | None = None, on_roll: int | None = None,
              hops: tuple[Hop, ...] = ()) -> Decision:
    t.move += 1
    holder = on_roll if on_roll is not None else (t.turn if t.turn is not None else side)
    pos = t.pos if (t.turn is None or holder == t.turn) else t.pos.flip()
    return Decision(file=record.source, match_index=record.index, game=game.number, move=t.move,
                    player=_player(record, game, side), side=side, kind=kind, dice=dice, played=played,
                    normalised=normalised, position=pos, on_roll=holder, state=t.state,
                    line=act.line, column=act.column, variant=pos.variant, result=result, hops=hops)


def _step(record: MatchRecord, game: GameRecord, rules: Variant, t: _Turn, act: Action,
          out: list[Decision]) -> None:
    side = act.side
    if t.pending_resign is not None:
        roll = t.pending_resign
        ends = (isinstance(act, Win) and act.side != roll.side) or (
            isinstance(act, Resign) and act.side == roll.side)
        if not ends:
            _forced_move_missing(roll)
    if t.over:
        if isinstance(act, Win):
            if t.winner is not None and act.side != t.winner:
                raise RulesError(f"'Wins' written for {_player(record, game, act.side)}, but "
                                 f"{_player(record, game, t.winner)} won the game", token=act.text)
            if t.end == "resign" and t.resignation is None:
                _set_resignation(t, act.points, out)
            return
        if isinstance(act, Resign) and t.end == "resign" and act.side != t.winner:
            return
        raise RulesError("action after the end of the game", token=act.text)
    if not isinstance(act, (Double, Take, Drop)):
        t.beaver_by = None  # the next roll implies that the beaver was accepted
    if isinstance(act, Roll):
        out.extend(_roll(record, game, rules, t, act))
    elif isinstance(act, Double):
        out.extend(_double(record, game, rules, t, act))
    elif isinstance(act, Take):
        if t.pending_double is None and t.beaver_by is not None and side != t.beaver_by:
            # The doubler accepts the beaver (or raccoon): nothing changes.
            out.append(_decision(record, game, t, side, "take", act, played=act.text, normalised="",
                                 on_roll=side))
            t.beaver_by = None
            return
        if t.pending_double is None or t.pending_double == side:
            raise RulesError("'Takes' without a double to take", token=act.text)
        out.append(_decision(record, game, t, side, "take", act, played=act.text, normalised="",
                             on_roll=t.pending_double))
        t.state = take(t.state, side)
        t.pending_double = None
    elif isinstance(act, Drop):
        if t.pending_double is None and t.beaver_by is not None and side != t.beaver_by:
            # The doubler refuses the beaver: he loses half the beavered cube.
            out.append(_decision(record, game, t, side, "drop", act, played=act.text, normalised="",
                                 on_roll=side))
            t.over, t.end, t.winner, t.points = True, "drop", t.beaver_by, refusal_value(t.state)
            t.beaver_by = None
            return
        if t.pending_double is None or t.pending_double == side:
            raise RulesError("'Drops' without a double to drop", token=act.text)
        out.append(_decision(record, game, t, side, "drop", act, played=act.text, normalised="",
                             on_roll=t.pending_double))
        t.over, t.end, t.winner, t.points = True, "drop", 1 - side, t.state.cube
        t.pending_double = None
    elif isinstance(act, Resign):
        _resign(record, game, t, side, act, act.points, out)
    else:
        # A 'Wins' line while the game is still on: the other player resigned.
        if t.pending_double is not None:
            raise RulesError("'Wins' while a double waits for an answer", token=act.text)
        _resign(record, game, t, 1 - side, act, act.points, out)


def _roll(record: MatchRecord, game: GameRecord, rules: Variant, t: _Turn, act: Roll) -> list[Decision]:
    side = act.side
    if t.pending_double is not None:
        raise RulesError("a roll while a double waits for an answer", token=act.text)
    if t.turn is None:
        t.turn = side
        if side == 1:
            t.pos = flipped(t.pos)
    elif side != t.turn:
        raise RulesError(f"{_player(record, game, side)} rolls, but it is "
                         f"{_player(record, game, t.turn)}'s turn", token=act.text)
    dice = act.dice
    if act.note == "????" or (not act.play and act.note == ""):
        plays = legal_rows(rules, t.pos, dice)
        if act.note == "" and len(plays) == 1:
            chosen = play_at(rules, int(plays[0]))  # a dance, or the only legal play (gnubg fills it in)
        else:
            # Rolled, then resigned: the resignation line comes next.
            t.pending_resign = act
            return []
    elif act.note == "cannot move":
        plays = legal_rows(rules, t.pos, dice)
        chosen = play_at(rules, int(plays[0]))
        if len(plays) != 1 or chosen[0]:
            raise IllegalPlayError(f"'Cannot Move' written, but {dice[0]}{dice[1]} can be played",
                                   token=act.text)
    else:
        try:
            chosen = resolve_text(rules, t.pos, dice, act.play)
        except InputError as err:
            raise type(err)(f"{err.message} (roll {dice[0]}{dice[1]})", token=err.token) from None
    hops, result = chosen
    d = _decision(record, game, t, side, "move", act, dice=dice, played=act.play,
                  normalised=_format(hops), result=result, hops=hops)
    out = rules.outcome(result)
    if out is not None:
        t.over = True
        if out.points == 0:
            t.end, t.winner, t.points = "draw", None, 0
        else:
            t.end = "mother" if out.kind == "mother" else "bearoff"
            t.winner = side if out.winner == 0 else 1 - side
            t.points = out.points * t.state.cube
            if t.state.jacoby_active:
                t.points = t.state.cube
    t.pos = flipped(result)
    t.turn = 1 - side
    return [d]


def _double(record: MatchRecord, game: GameRecord, rules: Variant, t: _Turn, act: Double) -> list[Decision]:
    side = act.side
    if not rules.has_cube:
        raise RulesError(f"there is no doubling cube in {rules.name}", token=act.text)
    if t.pending_double is not None and t.pending_double != side:
        # The taker redoubles at once: a beaver (gnubg writes it as a second 'Doubles').
        s = beaver(t.state, side)
        want = s.cube
        if act.value is not None and act.value != want:
            raise RulesError(f"the beaver makes the cube {want}", token=act.text)
        d = _decision(record, game, t, side, "double", act, played=act.text, normalised=str(want),
                      on_roll=t.pending_double)
        t.state = s
        t.pending_double = None
        t.beaver_by = side
        return [d]
    if t.beaver_by is not None and side != t.beaver_by and t.turn == side:
        # The doubler answers the beaver with a raccoon (a third double in gnubg's writing).
        s = raccoon(t.state, side)
        if act.value is not None and act.value != s.cube:
            raise RulesError(f"the raccoon makes the cube {s.cube}", token=act.text)
        d = _decision(record, game, t, side, "double", act, played=act.text, normalised=str(s.cube),
                      on_roll=side)
        t.state = s
        t.beaver_by = side
        return [d]
    if act.kind != "double":
        raise RulesError(f"a {act.kind} needs a double to answer", token=act.text)
    if t.pending_double is not None:
        raise RulesError("a second double before the first was answered", token=act.text)
    if t.turn is None:
        raise RulesError("a double before the opening roll", token=act.text)
    if side != t.turn:
        raise RulesError(f"{_player(record, game, side)} doubles on the opponent's turn", token=act.text)
    why = double_refusal(t.state, side)
    if why:
        why = why.replace(f"player {side}", _player(record, game, side) or f"player {side + 1}")
        raise RulesError(f"illegal double: {why}", token=act.text)
    want = 2 * t.state.cube
    if act.value is not None and act.value != want:
        raise RulesError(f"the cube is on {t.state.cube}, a double makes it {want}", token=act.text)
    d = _decision(record, game, t, side, "double", act, played=act.text, normalised=str(want))
    t.pending_double = side
    return [d]


def _classify(points: int | None, cube: int) -> str | None:
    """gnubg's reading of the number after ``Wins``/``Losses``: up to the cube a single game, up
    to twice the cube a gammon, else a backgammon; ``None`` when no number was written."""
    if points is None:
        return None
    if points <= cube:
        return "single"
    return "gammon" if points <= 2 * cube else "backgammon"


def _set_resignation(t: _Turn, points: int | None, out: list[Decision]) -> None:
    t.resignation = _classify(points, t.state.cube)
    level = {"single": 1, "gammon": 2, "backgammon": 3}[t.resignation or "single"]
    if t.state.jacoby_active:
        level = 1
    t.points = level * t.state.cube
    if t.resign_index is not None and t.resignation is not None:
        out[t.resign_index] = replace(out[t.resign_index], normalised=t.resignation)


def _resign(record: MatchRecord, game: GameRecord, t: _Turn, loser: int, act: Action,
            points: int | None, out: list[Decision]) -> None:
    roll = t.pending_resign
    t.pending_resign = None
    holder = loser if t.turn is None else t.turn
    dice = roll.dice if roll is not None else None
    played = (roll.text + " " if roll is not None else "") + act.text
    t.resign_index = len(out)
    out.append(_decision(record, game, t, loser, "resign", roll or act, dice=dice, played=played.strip(),
                         normalised="single", on_roll=holder))
    t.over, t.end, t.winner = True, "resign", 1 - loser
    _set_resignation(t, points, out)
