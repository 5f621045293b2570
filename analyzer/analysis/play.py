"""A match against the engine: the play loop of ``bgreview play``, as a library object.

:class:`PlaySession` holds a match (standard backgammon, Dutch backgammon or Mahbusa) between a person
(player 0, the left column of the record) and our engine (player 1). It takes the person's text
commands (:meth:`PlaySession.handle`), makes the engine's moves one action at a time
(:meth:`PlaySession.advance`) and says what to show (:class:`Reply`, :meth:`PlaySession.view`); it never
prints. Every completed action is written at once, atomically, to the match file in our ``.mat``
dialect, so an interrupted session leaves a readable record that :meth:`PlaySession.resume` continues
and ``bgreview analyze`` reviews.

Dice come from a seeded generator (roll ``k`` of game ``g`` is drawn from ``seed/g/k``, so a resumed
match gets the same dice; the seed is written in a comment line of the record) or are typed in
(``manual_dice``).

Commands: a play in gnubg notation (whole, or a part that is completed when only one legal play
contains it, or kept until the rest is typed), ``undo`` (takes back the last part of a play being
typed), ``hint`` (the engine's ranked plays, or its cube advice before the roll), ``roll``,
``double``, ``take``, ``pass``, ``resign [single|gammon|backgammon]`` and ``quit``.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "m.mat")
>>> s = PlaySession.new(PlayOptions(variant="mahbusa", length=1, level="advanced", seed=3), path)
>>> s.awaiting in ("engine", "move", "roll")
True
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from analyzer.analysis.decisions import hint
from analyzer.analysis.normalise import normalised_games, plain_play
from analyzer.analysis.play_input import read_play
from analyzer.core.errors import InputError, ParseError
from analyzer.core.files import OutputError, atomic_write
from analyzer.core.match import (
    MatchState,
    cube_refusal,
    is_match_over,
    next_game,
    take,
)
from analyzer.core.position import Position
from analyzer.core.variants import DEFAULT_VARIANT, variant_spec
from analyzer.eval.cube import CubeDecision
from analyzer.eval.cube_search import cube_decision_nply
from analyzer.eval.engine import Engine
from analyzer.eval.met import met_by_name
from analyzer.eval.protocol import Evaluator
from analyzer.eval.variants.engine import engine_for
from analyzer.formats.mat import read_matches
from analyzer.formats.mat_writer import format_match
from analyzer.formats.records import Action, Double, Drop, GameRecord, MatchRecord, Roll, Take, Win
from analyzer.rules import LegalPlay, Outcome, Variant, find_variant

__all__ = ["LEVELS", "Level", "LevelEngine", "PlayOptions", "PlaySession", "Reply", "SessionView", "HintRow",
           "review_plan"]

HUMAN, ENGINE = 0, 1
RESIGN_LEVELS = {"single": 1, "gammon": 2, "mars": 2, "backgammon": 3}


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength: the engine's search depth and the standard deviation of the noise added
    to each candidate's equity before it picks the best (0 = its true choice)."""

    name: str
    ply: int
    noise: float


LEVELS: dict[str, Level] = {
    "beginner": Level("beginner", 0, 0.12),
    "intermediate": Level("intermediate", 0, 0.05),
    "advanced": Level("advanced", 0, 0.015),
    "world-class": Level("world-class", 2, 0.0),
}
"""The levels of ``bgreview play`` (``bench/play_levels.py`` measures them against each other)."""


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """The settings of a match: ``length`` 0 is a money session (standard only), ``hint_ply`` the
    depth of ``hint`` (the world-class level plays ``hint``'s best play at its own ply)."""

    variant: str = DEFAULT_VARIANT
    length: int = 3
    level: str = "advanced"
    seed: int = 0
    manual_dice: bool = False
    player: str = "you"
    hint_ply: int = 2

    def checked(self) -> PlayOptions:
        """These options, validated (``variant`` made canonical); raises :class:`InputError`.

        >>> PlayOptions(variant="plakoto").checked().variant
        'mahbusa'
        """
        spec = variant_spec(self.variant)
        variant = spec.name
        if self.level not in LEVELS:
            raise ParseError("unknown level (use " + ", ".join(LEVELS) + ")", token=self.level)
        if self.length < 0 or self.length > 64:
            raise ParseError("the match length must be 1 to 64 points, or 0 for money", token=str(self.length))
        if self.length == 0 and not spec.has_cube:
            raise ParseError("money play needs the doubling cube: Dutch and Mahbusa are played to a length",
                             token=variant)
        if not 0 <= self.hint_ply <= 2:
            raise ParseError("hint ply must be 0, 1 or 2", token=str(self.hint_ply))
        name = " ".join(self.player.split()) or "you"
        if len(name) > 24 or not name.isprintable() or '"' in name or ":" in name:
            raise ParseError("a player name is at most 24 printable characters, without quotes or colons",
                             token=name[:24])
        return replace(self, variant=variant, player=name)


def review_plan(hint_ply: int, requested: int | None = None) -> tuple[int, str]:
    """The depth of the review ``play`` offers at the end of a match, and the line that says
    what it is. By default it reviews at ``hint``'s depth (``hint_ply``), so that the review and
    the hints agree; it skips the confirmation pass (rollouts of the errors, minutes on a laptop)
    and says so. A ``requested`` depth below ``hint``'s is named a quick review that may
    contradict ``hint``.

    >>> review_plan(2)
    (2, "review at 2-ply, the depth of 'hint' (no rollout confirmation: 'bgreview analyze' gives the full review)")
    >>> review_plan(2, 0)[1]
    "quick review at 0-ply: 'hint' (2-ply) may rank the plays differently; 'bgreview analyze' gives the full review"
    """
    ply = hint_ply if requested is None else requested
    if ply < hint_ply:
        return ply, (f"quick review at {ply}-ply: 'hint' ({hint_ply}-ply) may rank the plays differently; "
                     "'bgreview analyze' gives the full review")
    return ply, (f"review at {ply}-ply, the depth of 'hint' (no rollout confirmation: 'bgreview analyze' "
                 "gives the full review)")


@dataclass(frozen=True, slots=True)
class HintRow:
    """One line of a hint: a play (or a cube action) with the mover's equity and its difference
    from the best (``equity`` is cubeful EMG in standard games, cubeless points in the others)."""

    rank: int
    play: str
    equity: float
    diff: float
    ply: int
    result: Position | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class Reply:
    """What to show after a command or an engine action: ``messages`` (plain text lines, from the
    record's names: print them without markup), ``hint`` rows, and ``redraw`` when the board
    changed."""

    messages: list[str] = field(default_factory=list)
    hint: list[HintRow] | None = None
    redraw: bool = False


@dataclass(frozen=True, slots=True)
class SessionView:
    """The board as the person sees it: ``position`` from the person's side (the person is the
    side on roll of this position, drawn at the bottom), ``dice`` the roll the person has to play,
    the score and cube, the names, and the part of a play typed so far."""

    position: Position
    dice: tuple[int, int] | None
    state: MatchState
    names: tuple[str, str]
    game: int
    partial: str
    awaiting: str
    prompt: str


class LevelEngine:
    """The engine's decisions at one level, over the standard or a variant evaluator."""

    def __init__(self, variant: str, level: Level, rng: random.Random, std: Evaluator | None = None,
                 var: Evaluator | None = None) -> None:
        self.variant = variant
        self.cubeful = variant_spec(variant).has_cube  # a game with the cube is played by the standard evaluator
        self.level = level
        self.rng = rng
        if self.cubeful:
            if std is None:
                std = Engine()
            self.std: Evaluator = std
        else:
            if var is None:
                var = engine_for(variant)
            self.var: Evaluator = var

    # ------------------------------------------------------------------ checker plays
    def ranked(self, pos: Position, dice: tuple[int, int], state: MatchState, player: int,
               ply: int) -> list[HintRow]:
        """The plays of ``dice`` best first at ``ply`` (standard: cubeful, as ``bgreview position``
        ranks them; the variants: cubeless points, as ``bgreview hint``)."""
        if self.cubeful:
            met = None if state.is_money else met_by_name()
            cands = hint(self.std, pos, dice, state, player, ply=ply, met=met)
            rows = [(c.play, c.equity, c.ply, c.result) for c in cands]
        else:
            rows = [(r.play, r.equity, r.ply, r.result) for r in self.var.rank_plays(pos, dice, ply)]
        best = rows[0][1] if rows else 0.0
        return [HintRow(i, play, eq, eq - best, p, res) for i, (play, eq, p, res) in enumerate(rows, 1)]

    def choose(self, rules: Variant, pos: Position, dice: tuple[int, int], state: MatchState,
               player: int) -> LegalPlay:
        """The engine's play: the best at the level's ply, or at 0-ply the best after noise."""
        plays = rules.legal_plays(pos, dice)
        if len(plays) == 1:
            return plays[0]
        if self.level.noise == 0.0:
            want = self.ranked(pos, dice, state, player, self.level.ply)[0].result
        else:
            eng = self.std if self.cubeful else self.var
            ranked = eng.rank_plays(pos, dice, 0)
            scored = [(r.equity + self.rng.gauss(0.0, self.level.noise), i) for i, r in enumerate(ranked)]
            want = ranked[max(scored)[1]].result
        return next(p for p in plays if p.result == want)

    # ------------------------------------------------------------------ the cube (standard only)
    def cube(self, pos: Position, state: MatchState, player: int, ply: int | None = None) -> CubeDecision:
        """The cube decision of ``player`` on roll in ``pos`` (seen from him) at ``ply`` (default:
        the level's)."""
        met = None if state.is_money else met_by_name()
        return cube_decision_nply(self.std, pos, state, player, self.level.ply if ply is None else ply, met=met)

    def _noise(self) -> float:
        return self.rng.gauss(0.0, self.level.noise) if self.level.noise else 0.0

    def doubles(self, pos: Position, state: MatchState) -> bool:
        """Whether the engine (on roll in ``pos``) doubles."""
        if state.length and state.cube >= state.away(ENGINE):
            return False  # a dead cube: winning the game at this cube already wins the match
        d = self.cube(pos, state, ENGINE)
        if not d.available or d.dt is None or d.dp is None:
            return False
        if not self.level.noise:
            return bool(d.double)
        return bool(min(d.dt, d.dp) + self._noise() > d.nd)

    def takes(self, pos: Position, state: MatchState) -> bool:
        """Whether the engine takes the person's double (``pos`` seen from the person)."""
        d = self.cube(pos, state, HUMAN)
        if d.dt is None or d.dp is None:
            return True
        return bool(d.dt + self._noise() <= d.dp)

    def accepts(self, pos: Position, points: int) -> bool:
        """Whether the engine (``pos`` seen from it, before its roll or after the person's) accepts
        a resignation worth ``points`` before the cube: when that is at least what it expects to win."""
        eng = self.std if self.cubeful else self.var
        p = eng.evaluate(pos, 0)
        expect = p.win + p.win_gammon + getattr(p, "win_backgammon", 0.0)
        return bool(points >= expect - 1e-9)


def _act(name: str, verb: str) -> str:
    """``name`` and ``verb`` agreeing: ``you roll``, ``bob rolls``.

    >>> _act("you", "pass"), _act("bgreview-advanced", "pass")
    ('you pass', 'bgreview-advanced passes')
    """
    if name == "you":
        return f"{name} {verb}"
    return f"{name} {verb}{'es' if verb.endswith('ss') else 's'}"


def _atomic_write(path: Path, text: str) -> None:
    atomic_write(path, text)


def _refuse_existing(path: str | os.PathLike[str]) -> None:
    """Raise :class:`~analyzer.core.files.OutputError` when ``path`` exists: a new match never replaces a file."""
    if os.path.lexists(path):
        name = os.fspath(path)
        raise OutputError(f"already exists; 'bgreview play --resume {name}' continues the match in it, another "
                          "--save starts a new one", file=name)


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


_COMMENT_RE = re.compile(r"^bgreview play: level=(\S+) seed=(-?\d+) dice=(seeded|manual)(?: hint_ply=(\d))?$")


class PlaySession:
    """A match between a person and the engine (see the module docstring).

    ``awaiting`` says what comes next: ``"engine"`` (call :meth:`advance`), ``"roll"`` (the person
    may roll or double), ``"move"`` (a play for :attr:`dice`), ``"answer"`` (take or pass the
    engine's double), ``"dice"`` (type the dice of the next roll), ``"next"`` (a game is over: any
    input starts the next) or ``"over"`` (the match is over, or the person quit).
    """

    def __init__(self, options: PlayOptions, path: str | os.PathLike[str], *, std_engine: Evaluator | None = None,
                 variant_engine: Evaluator | None = None) -> None:
        self.options = options.checked()
        self.path = Path(path)
        self.rules = find_variant(self.options.variant)
        self.level = LEVELS[self.options.level]
        self.engine = LevelEngine(self.options.variant, self.level, random.Random(f"{self.options.seed}/noise"),
                                  std_engine, variant_engine)
        self.names = (self.options.player, f"bgreview-{self.level.name}")
        self.state = MatchState(length=self.options.length)
        self.games: list[GameRecord] = []
        self.game_no = 0
        self.game_score = self.state.score
        self.actions: list[Action] = []
        self.pos = self.rules.start()
        self.turn: int | None = None
        self.dice: tuple[int, int] | None = None
        self.partial: list[str] = []
        self.awaiting = "engine"
        self.dice_for: int | None = None  # manual dice: whose roll is typed next (None: the opening)
        self.opening_pending = False
        self.last_outcome: Outcome | None = None
        self.quit = False
        self._replaying = False
        self._pending_answer = False
        self.greeting: list[str] = []
        """What happened when the session started (the opening roll), for the first screen."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, options: PlayOptions, path: str | os.PathLike[str], *, replace: bool = False,
            **engines: Evaluator | None) -> PlaySession:
        """A new match written to ``path``, its first game started. An existing ``path`` is refused
        (:class:`~analyzer.core.files.OutputError`) unless ``replace``."""
        if not replace:
            _refuse_existing(path)
        s = cls(options, path, **engines)
        s.greeting = s._start_game().messages
        s._save()
        return s

    @classmethod
    def resume(cls, path: str | os.PathLike[str], *, save_to: str | os.PathLike[str] | None = None,
               level: str | None = None, **engines: Evaluator | None) -> PlaySession:
        """Continue the match saved in ``path`` (written by a session: its comment line gives the
        level, the seed and the dice mode) from its last completed action; raises
        :class:`InputError` naming the file and line for a file that cannot be continued, and
        :class:`~analyzer.core.files.OutputError` when ``save_to`` is another file that exists."""
        name = os.fspath(path)
        if save_to is not None and os.path.lexists(save_to) and not _same_file(save_to, name):
            _refuse_existing(save_to)
        try:
            records = list(read_matches(name))
        except OSError as e:
            raise InputError(e.strerror or "cannot read the file", file=name) from None
        if len(records) != 1:
            raise InputError(f"expected one match, found {len(records)}", file=name)
        rec = records[0]
        # a match saved before its first play has a match line and no game yet: that is fine here
        problems = [e for e in rec.errors if rec.games or not e.message.startswith("no game in the")]
        if problems:
            raise problems[0]
        found = next((m for m in (_COMMENT_RE.match(c) for c in rec.comments) if m), None)
        if found is None:
            raise InputError("not a match saved by bgreview play (no 'bgreview play:' comment line)", file=name,
                             line=1)
        opts = PlayOptions(variant=rec.variant, length=rec.length, level=level or found.group(1),
                           seed=int(found.group(2)), manual_dice=found.group(3) == "manual",
                           player=rec.players[0] or "you", hint_ply=int(found.group(4) or 2))
        s = cls(opts, save_to if save_to is not None else name, **engines)
        games = []
        for item in normalised_games(rec):
            if isinstance(item, InputError):
                raise item
            games.append(item)
        s._replaying = True
        for g in games:
            s._replay_game(g, name)
        s._replaying = False
        if not s._match_done():
            s.greeting = [f"resumed {name}: game {s.game_no}" if s.game_no else f"resumed {name}"]
            if s.game_no == 0 or s.awaiting in ("next", "over"):
                s.greeting += s._start_game().messages
            elif s.awaiting == "engine" and s.turn == HUMAN and not s._pending_answer:
                reply = Reply()
                s._roll_for_turn(reply)  # the person's turn: the same seeded dice as before
                s.greeting += reply.messages
        else:
            s.awaiting = "over"
        s._save()
        return s

    def _replay_game(self, g: GameRecord, name: str) -> None:
        if self.game_no and self.awaiting not in ("next", "over"):
            raise InputError(f"game {self.game_no} is unfinished, but game {g.number} follows", file=name)
        self._begin(g.number)
        if g.score != self.state.score:
            raise InputError(f"game {g.number} starts at {g.score[0]}-{g.score[1]}, but the games before give "
                             f"{self.state.score[0]}-{self.state.score[1]}", file=name)
        opening = None
        if self.rules.next_opener(self.last_outcome) is None and not self.rules.opener_rerolls:
            opening = self._opening(Reply())[1]  # the first roll of the game is the opening roll
        for act in g.actions:
            if isinstance(act, Roll):
                self._check_seeded_roll(act, opening, g.number, name)
                self._set_turn(act.side)
                play = self.rules.resolve(self.pos, act.dice, act.play)
                self._commit_play(act.side, act.dice, play, Reply())
            elif isinstance(act, Double):
                self._record(Double(act.side, 2 * self.state.cube))
            elif isinstance(act, Take):
                self._record(Take(act.side))
                self.state = take(self.state, act.side)
            elif isinstance(act, Drop):
                self._record(Drop(act.side))
            elif isinstance(act, Win) and self.awaiting not in ("next", "over"):
                self._record(act)
                self._finish(act.side, act.points or 0, Reply(), written=True)
        if self.awaiting in ("next", "over"):
            return
        last = g.actions[-1]
        self.awaiting = "engine"
        if isinstance(last, Double) and last.side == ENGINE:
            self.awaiting = "answer"
        elif isinstance(last, Double):  # the engine had not answered yet: it answers on resuming
            self._pending_answer = True

    # ------------------------------------------------------------------ the record
    def record(self) -> MatchRecord:
        """The match so far as a record (games with at least one action)."""
        games = list(self.games)
        if self.actions and (not games or games[-1].number != self.game_no):
            games.append(self._current_game())
        o = self.options
        comment = (f"bgreview play: level={o.level} seed={o.seed} dice={'manual' if o.manual_dice else 'seeded'}"
                   f" hint_ply={o.hint_ply}")
        return MatchRecord(players=self.names, length=o.length, games=tuple(games),
                           variation=variant_spec(o.variant).record_name, comments=(comment,),
                           tags=(("Player 1", self.names[0]), ("Player 2", self.names[1]),
                                 ("Variation", variant_spec(o.variant).record_name)))

    def _current_game(self) -> GameRecord:
        return GameRecord(self.game_no, 0, self.game_score, tuple(self.actions))

    def _save(self) -> None:
        if self._replaying:
            return
        _atomic_write(self.path, format_match(self.record()))

    def _record(self, act: Action) -> None:
        self.actions.append(act)
        self._save()

    # ------------------------------------------------------------------ games
    def _match_done(self) -> bool:
        return is_match_over(self.state)

    def _check_seeded_roll(self, act: Roll, opening: tuple[int, int] | None, game: int, name: str) -> None:
        """Refuse a saved roll that is not the one the seed gives (a save whose seed line, or whose rolls,
        were changed: resuming it would go on with other dice than the match had)."""
        if self.options.manual_dice:
            return
        k = sum(isinstance(a, Roll) for a in self.actions)
        expected = opening if k == 0 and opening is not None else self._seeded_dice()
        if sorted(act.dice) != sorted(expected):
            raise InputError(f"game {game}, roll {k + 1}: {act.dice[0]}{act.dice[1]} is not the roll seed "
                             f"{self.options.seed} gives ({expected[0]}{expected[1]}): the seed line or the "
                             "rolls of this save were changed", file=name, line=act.line)

    def _begin(self, number: int) -> None:
        self.game_no = number
        self.game_score = self.state.score
        self.actions = []
        self.pos = self.rules.start()
        self.turn = None
        self.dice = None
        self.partial = []
        self.awaiting = "engine"

    def _start_game(self) -> Reply:
        self._begin(self.game_no + 1)
        reply = Reply(redraw=True)
        reply.messages.append(self._game_title())
        opener = self.rules.next_opener(self.last_outcome)
        if self.options.manual_dice:
            self.opening_pending = opener is None
            self.dice_for = opener
            if opener is not None:
                self._set_turn(opener)
            self.awaiting = "dice"
            return reply
        if opener is None:
            opener, dice = self._opening(reply)
            self._set_turn(opener)
            if dice is not None:
                self._give_dice(dice, reply)
                return reply
        else:
            self._set_turn(opener)
            reply.messages.append(f"{self.names[opener]} won the last game: {_act(self.names[opener], 'open')}")
        self._roll_for_turn(reply)
        return reply

    def _game_title(self) -> str:
        s = self.state
        if s.is_money:
            return f"Game {self.game_no} (money)"
        score = f"{self.names[0]} {s.score[0]} - {self.names[1]} {s.score[1]}, {s.length}-point match"
        return f"Game {self.game_no}: {score}" + (", Crawford game" if s.crawford else "")

    def _opening(self, reply: Reply) -> tuple[int, tuple[int, int] | None]:
        """Seeded opening roll: who opens, and the dice he plays (``None`` when he rolls again)."""
        rng = random.Random(f"{self.options.seed}/{self.game_no}/opening")
        while True:
            mine, theirs = rng.randint(1, 6), rng.randint(1, 6)
            if mine != theirs:
                break
            reply.messages.append(f"opening roll: both roll {mine}, roll again")
        opener = HUMAN if mine > theirs else ENGINE
        reply.messages.append(f"opening roll: {self.names[0]} {mine}, {self.names[1]} {theirs}: "
                              f"{_act(self.names[opener], 'open')}")
        if self.rules.opener_rerolls:
            return opener, None
        return opener, ((mine, theirs) if opener == HUMAN else (theirs, mine))

    def _set_turn(self, side: int) -> None:
        if self.turn is None:
            self.turn = side
            if side == ENGINE:
                self.pos = self.pos.flip()

    def _seeded_dice(self) -> tuple[int, int]:
        k = sum(isinstance(a, Roll) for a in self.actions)
        rng = random.Random(f"{self.options.seed}/{self.game_no}/{k}")
        return rng.randint(1, 6), rng.randint(1, 6)

    def _can_double(self, side: int) -> bool:
        if not self.rules.has_cube or not any(isinstance(a, Roll) for a in self.actions):
            return False
        return cube_refusal(self.state, side) is None

    def _roll_for_turn(self, reply: Reply) -> None:
        """The side on turn is before its roll: ask the person, or roll for him, or hand over to the engine."""
        assert self.turn is not None
        if self.turn == ENGINE:
            self.awaiting = "engine"
            return
        if self._can_double(HUMAN):
            self.awaiting = "roll"
            return
        self._roll(HUMAN, reply)

    def _roll(self, side: int, reply: Reply) -> None:
        if self.options.manual_dice:
            self.dice_for = side
            self.awaiting = "dice"
            return
        self._give_dice(self._seeded_dice(), reply)

    def _give_dice(self, dice: tuple[int, int], reply: Reply) -> None:
        """The side on turn has rolled ``dice``: the person gets to play them (a roll with no
        choice is played for him); the engine plays at its next :meth:`advance`."""
        assert self.turn is not None
        self.dice = dice
        self.partial = []
        if self.turn == ENGINE:
            self.awaiting = "engine"
            return
        plays = self.rules.legal_plays(self.pos, dice)
        who = self.names[HUMAN]
        if len(plays) == 1:
            if not plays[0].hops:
                reply.messages.append(f"{_act(who, 'roll')} {dice[0]}{dice[1]}: no legal play")
            else:
                reply.messages.append(f"{_act(who, 'roll')} {dice[0]}{dice[1]}: the only play is {plays[0].text}")
            self._commit_play(HUMAN, dice, plays[0], reply)
            return
        reply.messages.append(f"{_act(who, 'roll')} {dice[0]}{dice[1]}")
        reply.redraw = True
        self.awaiting = "move"

    def _commit_play(self, side: int, dice: tuple[int, int], play: LegalPlay, reply: Reply) -> None:
        self._record(Roll(side, dice, plain_play(play.hops)))
        self.dice = None
        self.partial = []
        reply.redraw = True
        out = self.rules.outcome(play.result)
        self.pos = play.result.flip()
        self.turn = 1 - side
        if out is not None:
            if out.points == 0:
                self._draw(reply)
                return
            winner = side if out.winner == 0 else 1 - side
            self._finish(winner, out.points * self.state.cube, reply, kind=out.kind)
            return
        self.awaiting = "engine"
        if self.turn == HUMAN and not self._replaying:
            self._roll_for_turn(reply)

    def _draw(self, reply: Reply) -> None:
        reply.messages.append(f"Game {self.game_no} is a draw (both mothers pinned): it is played again")
        self.games.append(self._current_game())
        self.last_outcome = Outcome(0, 0, "draw")
        self.awaiting = "next"

    def _finish(self, winner: int, points: int, reply: Reply, *, kind: str = "", written: bool = False) -> None:
        """The game is over: ``winner`` scores ``points`` (the cube included)."""
        after = list(self.state.score)
        after[winner] += points
        decided = bool(self.state.length) and after[winner] >= self.state.length
        if not written:
            self.actions.append(Win(winner, points, match=decided))
        self.games.append(self._current_game())
        self._save()
        unit = "point" if points == 1 else "points"
        how = f" ({kind})" if kind and kind != "single" else ""
        reply.messages.append(f"{_act(self.names[winner], 'win')} {points} "
                              f"{unit}{how}")
        self.last_outcome = Outcome(winner, points, kind or "single")
        self.state = next_game(self.state, winner, points)
        reply.redraw = True
        if decided:
            reply.messages.append(f"{_act(self.names[winner], 'win')} the "
                                  f"match {self.state.score[0]}-{self.state.score[1]}")
            self.awaiting = "over"
        else:
            self.awaiting = "next"

    # ------------------------------------------------------------------ the engine
    def advance(self) -> Reply:
        """One action of the engine (a double, a roll and its play, or its answer): call while
        :attr:`awaiting` is ``"engine"``."""
        reply = Reply()
        if self.awaiting != "engine":
            return reply
        assert self.turn is not None
        if self._pending_answer:  # resumed after the person's double
            self._pending_answer = False
            self.actions.pop()
            return self._double()
        if self.turn == HUMAN:  # the person's turn starts (after resuming)
            self._roll_for_turn(reply)
            return reply
        eng = self.names[ENGINE]
        if self.dice is None:
            if self._can_double(ENGINE) and self.engine.doubles(self.pos, self.state):
                cube = 2 * self.state.cube
                self._record(Double(ENGINE, cube))
                reply.messages.append(f"{eng} doubles to {cube}")
                reply.redraw = True
                self.awaiting = "answer"
                return reply
            self._roll(ENGINE, reply)
            if self.awaiting == "dice":
                return reply
            assert self.dice is not None
        dice = self.dice
        play = self.engine.choose(self.rules, self.pos, dice, self.state, ENGINE)
        reply.messages.append(f"{eng} rolls {dice[0]}{dice[1]}: " + (play.text or "no legal play"))
        self._commit_play(ENGINE, dice, play, reply)
        return reply

    # ------------------------------------------------------------------ the person
    def view(self) -> SessionView:
        """The board from the person's side, with what the session waits for."""
        pos = self.pos if self.turn in (None, HUMAN) else self.pos.flip()
        return SessionView(pos, self.dice if self.turn == HUMAN else None, self.state, self.names, self.game_no,
                           " ".join(self.partial), self.awaiting, self.prompt())

    def prompt(self) -> str:
        """The prompt for the person's next input."""
        if self.awaiting == "move" and self.dice is not None:
            so_far = f" (so far: {' '.join(self.partial)}; 'undo' takes it back)" if self.partial else ""
            return f"your play for {self.dice[0]}{self.dice[1]}{so_far}"
        if self.awaiting == "roll":
            return "roll, double, hint, resign or quit (Enter rolls)"
        if self.awaiting == "answer":
            return f"{self.names[ENGINE]} doubles to {2 * self.state.cube}: take or pass"
        if self.awaiting == "dice":
            if self.opening_pending:
                return f"opening roll: {self.names[HUMAN]}'s die then {self.names[ENGINE]}'s (e.g. 52)"
            who = self.names[self.dice_for] if self.dice_for is not None else "?"
            return f"dice for {who} (e.g. 31)"
        if self.awaiting == "next":
            return "Enter starts the next game (or quit)"
        return ""

    def handle(self, text: str) -> Reply:
        """Act on one line the person typed; the reply says what happened (an illegal or unknown
        input gets a one-line reason and changes nothing)."""
        words = text.strip().split()
        cmd = words[0].lower() if words else ""
        if self.awaiting == "over":
            return Reply(["the match is over"])
        if cmd in ("quit", "q", "exit"):
            self.quit = True
            self.awaiting = "over"
            return Reply([f"match saved to {self.path}"])
        if self.awaiting == "next":
            if self._match_done():
                self.awaiting = "over"
                return Reply()
            return self._start_game()
        if cmd in ("resign", "r") and self.awaiting in ("roll", "move", "answer"):
            return self._resign(words[1:])
        if self.awaiting == "dice":
            return self._typed_dice(text)
        if self.awaiting == "roll":
            return self._before_roll(cmd)
        if self.awaiting == "answer":
            return self._answer(cmd)
        if self.awaiting == "move":
            return self._move(text, cmd)
        return Reply([f"it is {self.names[ENGINE]}'s turn"])

    def hint(self) -> list[HintRow]:
        """The engine's ranked plays of the person's roll at the hint ply (:attr:`PlayOptions.hint_ply`),
        or before the roll its cube advice (the cube action and its equities)."""
        if self.awaiting == "move" and self.dice is not None:
            return self.engine.ranked(self.pos, self.dice, self.state, HUMAN, self.options.hint_ply)
        if self.awaiting in ("roll", "answer") and self.rules.has_cube:
            pos = self.pos  # seen from the side on turn, the doubler
            player = HUMAN if self.awaiting == "roll" else ENGINE
            d = self.engine.cube(pos, self.state, player, self.options.hint_ply)
            rows = [("no double", d.nd), ("double, take", d.dt), ("double, pass", d.dp)]
            vals = [(n, v) for n, v in rows if v is not None]
            best = d.best
            if self.awaiting == "answer":  # the taker's side
                vals = [("take", -(d.dt or 0.0)), ("pass", -(d.dp or 0.0))]
                best = max(v for _, v in vals)
            vals.sort(key=lambda t: -t[1])
            return [HintRow(i, f"{n} ({d.action})" if i == 1 else n, v, v - best, self.options.hint_ply)
                    for i, (n, v) in enumerate(vals, 1)]
        return []

    def _before_roll(self, cmd: str) -> Reply:
        if cmd in ("", "roll"):
            reply = Reply()
            self._roll(HUMAN, reply)
            return reply
        if cmd in ("double", "d"):
            return self._double()
        if cmd == "hint":
            return Reply(hint=self.hint())
        if cmd == "undo":
            return Reply(["nothing to undo: the last play is committed (written to the match file)"])
        return Reply([f"unknown command {cmd!r}: roll, double, hint, resign or quit"])

    def _double(self) -> Reply:
        why = cube_refusal(self.state, HUMAN)
        if why:
            return Reply([f"you may not double: {why.replace('player 0', 'you')}"])
        reply = Reply(redraw=True)
        cube = 2 * self.state.cube
        self._record(Double(HUMAN, cube))
        eng = self.names[ENGINE]
        if self.engine.takes(self.pos, self.state):
            self._record(Take(ENGINE))
            self.state = take(self.state, ENGINE)
            reply.messages.append(f"you double to {cube}: {eng} takes")
            self._roll(HUMAN, reply)
        else:
            self._record(Drop(ENGINE))
            reply.messages.append(f"you double to {cube}: {eng} passes")
            self._finish(HUMAN, self.state.cube, reply)
        return reply

    def _answer(self, cmd: str) -> Reply:
        reply = Reply(redraw=True)
        if cmd in ("take", "t"):
            self._record(Take(HUMAN))
            self.state = take(self.state, HUMAN)
            reply.messages.append(f"you take: the cube is {self.state.cube}, yours")
            self.awaiting = "engine"
            return reply
        if cmd in ("pass", "drop", "p"):
            self._record(Drop(HUMAN))
            reply.messages.append("you pass")
            self._finish(ENGINE, self.state.cube, reply)
            return reply
        if cmd == "hint":
            return Reply(hint=self.hint())
        return Reply([f"{self.names[ENGINE]} doubled: answer take or pass (or resign, hint, quit)"])

    def _resign(self, args: list[str]) -> Reply:
        word = args[0].lower() if args else "single"
        if word not in RESIGN_LEVELS:
            return Reply([f"resign what? single, {'gammon or backgammon' if self.rules.has_cube else 'or mars'}"])
        level = RESIGN_LEVELS[word]
        if level > self.rules.max_points:
            return Reply([f"{self.rules.name} has no {word}"])
        points = level * self.state.cube
        pos = self.pos if self.turn == ENGINE else self.pos.flip()  # the engine judges from its side
        if self.engine.accepts(pos, level):
            reply = Reply(redraw=True)
            reply.messages.append(f"you resign {word}: {self.names[ENGINE]} accepts")
            self.dice = None
            self.partial = []
            self._finish(ENGINE, points, reply)
            return reply
        return Reply([f"you resign {word}: {self.names[ENGINE]} declines (it expects more); play on"])

    def _typed_dice(self, text: str) -> Reply:
        m = re.fullmatch(r"\s*([1-6])\s*[-,]?\s*([1-6])\s*", text)
        if not m:
            return Reply([f"dice are two numbers 1 to 6, e.g. 31 or 3-1: {text.strip()!r}"])
        a, b = int(m.group(1)), int(m.group(2))
        reply = Reply()
        if self.opening_pending:
            if a == b:
                return Reply([f"both rolled {a}: roll the opening again"])
            opener = HUMAN if a > b else ENGINE
            self.opening_pending = False
            self._set_turn(opener)
            reply.messages.append(f"opening roll: {self.names[0]} {a}, {self.names[1]} {b}: "
                                  f"{_act(self.names[opener], 'open')}")
            if self.rules.opener_rerolls:
                self.dice_for = opener
                return reply
            self._give_dice((a, b) if opener == HUMAN else (b, a), reply)
            return reply
        self._give_dice((a, b), reply)
        return reply

    def _move(self, text: str, cmd: str) -> Reply:
        assert self.dice is not None
        if cmd == "hint":
            return Reply(hint=self.hint())
        if cmd == "undo":
            if not self.partial:
                return Reply(["nothing to undo: no part of this play is typed yet (a finished play is committed)"])
            gone = self.partial.pop()
            return Reply([f"taken back: {gone}"])
        if cmd in ("roll", "double", "take", "pass"):
            return Reply([f"you have rolled {self.dice[0]}{self.dice[1]}: type your play"])
        if not cmd:
            return Reply(["type your play (or hint, undo, resign, quit)"])
        typed = " ".join([*self.partial, text.strip()])
        got = read_play(self.rules, self.pos, self.dice, typed)
        if got.status == "illegal":
            return Reply([f"illegal: {got.message}"])
        if got.status == "ambiguous":
            return Reply([f"ambiguous: {got.message}"])
        if got.status == "partial":
            self.partial.append(text.strip())
            return Reply([f"so far {typed}: type the rest (or 'undo')"])
        assert got.play is not None
        reply = Reply()
        dice = self.dice
        if got.completed:
            reply.messages.append(f"you play {got.play.text} (completed from {typed})")
        else:
            reply.messages.append(f"you play {got.play.text}")
        self._commit_play(HUMAN, dice, got.play, reply)
        return reply

