"""Streaming reader of the JellyFish ``.mat`` match text, in every dialect of our corpus.

Dialects: gnubg (``25``/``0``, ``*``, cells at columns 6 and 34), eXtreme Gammon / Backgammon
Studio (``bar``/``off``, ``(n)``, combined hops, right cell at column 41, ``Cannot Move``,
``????``), Backgammon Galaxy (no ``*``, ``Losses`` lines, capped ``Wins``), and our own Dutch
and Mahbusa records (``; [Variation "Dutch"]``, per-game ``; [GameVariation "..."]``).

:func:`read_matches` yields one :class:`~analyzer.formats.records.MatchRecord` at a time; a
file may hold several matches (each starts at its ``N point match`` line, header lines in front
of it belong to it). A game that cannot be read is left out and its error, with file, line,
column and the offending token, is stored in ``MatchRecord.errors``; reading goes on.

>>> import io
>>> text = '''; [Player 1 "ann"]
... ; [Player 2 "bob"]
...
...  3 point match
...
...  Game 1
...  ann : 0                        bob : 0
...   1) 31: 8/5 6/5                 64: 24/18 13/9
...   2)  Doubles => 2                Drops
...       Wins 1 point
... '''
>>> [m] = read_matches(io.StringIO(text))
>>> m.players, m.length, len(m.games)
(('ann', 'bob'), 3, 1)
>>> [(type(a).__name__, a.side) for a in m.games[0].actions]
[('Roll', 0), ('Roll', 1), ('Double', 0), ('Drop', 1), ('Win', 0)]
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import IO, AnyStr, cast

from analyzer._read import open_regular
from analyzer.core.errors import InputError, ParseError
from analyzer.core.play import parse_move
from analyzer.formats.records import (
    Action,
    Double,
    Drop,
    GameRecord,
    MatchRecord,
    MatchStream,
    Resign,
    Roll,
    Take,
    Win,
)

__all__ = ["MAX_ERRORS", "MAX_LINE", "read_match_text", "read_matches", "stream_matches"]

MAX_LINE = 4096
"""Longest line read; longer ones are cut and reported (a match file has short lines)."""
MAX_ERRORS = 50
"""After this many errors in one file the rest of the file is skipped."""
MAX_NUMBER = 2**31 - 1
"""Largest game number and match length read (the tables store them as 32-bit integers)."""

_MATCH_RE = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*game\s+(\d+)\s*$", re.IGNORECASE)
_TAG_RE = re.compile(r'^[;#]\s*\[\s*([^"\]]*?)\s*"(.*)"\s*\]\s*$')
_ROW_RE = re.compile(r"^(\s*\d+\))")
_SCORE_RE = re.compile(r"^(\s*)(.*?)\s*:\s*(\d+)(\s+)(.*?)\s*:\s*(\d+)\s*$")
_TOKEN_RE = re.compile(r"\S+")
_DICE_RE = re.compile(r"^(\d)(\d):(.*)$")
_NUM_RE = re.compile(r"^\d+$")
_ROWNUM_RE = re.compile(r"^\d+\)$")
# The common shapes of a move token; anything else goes through parse_move for its exact error.
_MOVE_RE = re.compile(r"^(?:bar|\d{1,2})(?:/\d{1,2}\*?)*/(?:\d{1,2}|off)\*?(?:\(\d\))?\*?$", re.IGNORECASE)

_DOUBLE_WORDS = {"doubles": "double", "double": "double", "redoubles": "double",
                 "beavers": "beaver", "beaver": "beaver", "raccoons": "raccoon", "raccoon": "raccoon"}
_TAKE_WORDS = {"takes", "take", "accepts"}
_DROP_WORDS = {"drops", "drop", "passes", "pass", "rejects", "refuses"}
_STARTERS = set(_DOUBLE_WORDS) | _TAKE_WORDS | _DROP_WORDS | {"wins", "losses", "resigns", "resigned"}

Source = str | os.PathLike[str] | IO[str] | IO[bytes]


@dataclass
class _GameBuilder:
    number: int
    line: int
    score: tuple[int, int] | None = None
    names: tuple[str, str] = ("", "")
    split: int = 20
    variation: str | None = None
    crawford: bool | None = None
    score_line: int = 0
    actions: list[Action] = field(default_factory=list)
    bad: bool = False

    def build(self) -> GameRecord:
        assert self.score is not None
        return GameRecord(number=self.number, line=self.line, score=self.score,
                          actions=tuple(self.actions), variation=self.variation, names=self.names,
                          crawford=self.crawford, score_line=self.score_line)


@dataclass
class _MatchBuilder:
    source: str
    index: int
    line: int = 0
    length: int | None = None
    tags: list[tuple[str, str]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    games: int = 0  # games read (good or bad)
    errors: list[InputError] = field(default_factory=list)
    first_names: tuple[str, str] | None = None
    started: bool = False  # its header was given out

    def empty(self) -> bool:
        return self.length is None and not self.games and not self.errors and not self.tags

    def build(self) -> MatchRecord:
        tags = dict((k.lower(), v) for k, v in self.tags)
        names = self.first_names or ("", "")
        p1 = tags.get("player 1", names[0])
        p2 = tags.get("player 2", names[1])
        limit = tags.get("cubelimit")
        return MatchRecord(
            players=(p1, p2), length=self.length or 0, games=(), source=self.source,
            index=self.index, line=self.line,
            ratings=(tags.get("player 1 elo"), tags.get("player 2 elo")),
            event=tags.get("event"), round=tags.get("round"), site=tags.get("site"),
            match_id=tags.get("match id"), date=tags.get("eventdate"), time=tags.get("eventtime"),
            variation=tags.get("variation"), crawford=_flag(tags.get("crawford")),
            jacoby=_flag(tags.get("jacoby")), beaver=_flag(tags.get("beaver")),
            cube_limit=int(limit) if limit is not None and limit.strip().isdigit() else None,
            tags=tuple(self.tags), comments=tuple(self.comments), errors=tuple(self.errors))


def _flag(value: str | None) -> bool | None:
    if value is None:
        return None
    v = value.strip().lower()
    if v in ("on", "yes", "true", "1"):
        return True
    if v in ("off", "no", "false", "0"):
        return False
    return None


class _TooManyErrors(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Event:
    """What the reader found: a match's header (``start``, games still to come), a game, or the
    match's end (``end``, the whole header); ``errors`` is the match's live error list."""

    kind: str
    item: MatchRecord | GameRecord
    errors: list[InputError]


class _Reader:
    def __init__(self, name: str) -> None:
        self.name = name
        self.index = 0
        self.match = _MatchBuilder(name, 0)
        self.game: _GameBuilder | None = None
        self.pending_tags: list[tuple[str, str]] = []
        self.pending_comments: list[str] = []
        self.errors = 0
        self.events: list[_Event] = []
        self.structure = False  # a match or game line was seen
        self.preamble: list[tuple[int, int, str]] = []  # unreadable lines before that
        self.preamble_count = 0
        self.lines = 0  # lines read so far
        self.bad_match = False  # a match whose header could not be read: its games are skipped

    # ------------------------------------------------------------------ errors
    def error(self, message: str, line: int, column: int | None, token: str | None) -> None:
        err = ParseError(message, file=self.name, line=line, column=column, token=token)
        self.match.errors.append(err)
        if self.game is not None:
            self.game.bad = True
        self.errors += 1
        if self.errors >= MAX_ERRORS:
            self.match.errors.append(ParseError(
                f"more than {MAX_ERRORS} errors, the rest of the file is skipped",
                file=self.name, line=line))
            raise _TooManyErrors

    # ------------------------------------------------------------------ structure
    def start_events(self) -> None:
        m = self.match
        if not m.started:
            m.started = True
            self.events.append(_Event("start", m.build(), m.errors))

    def end_game(self) -> None:
        g = self.game
        if g is None:
            return
        self.game = None
        self.match.games += 1
        if g.score is None and not g.bad:
            g.bad = True
            self.error(f"game {g.number} has no score line", g.line, None, f"Game {g.number}")
        self.start_events()
        if not g.bad and g.score is not None:
            self.events.append(_Event("game", g.build(), self.match.errors))

    def end_match(self) -> None:
        self.end_game()
        m = self.match
        if not m.empty():
            if not m.games and not m.errors:  # a header, or a match line, and no game after it
                what = (f"no game in the {m.length} point match" if m.length is not None
                        else "no match in the file: header lines only, no 'N point match' or 'Game N' line")
                m.errors.append(ParseError(what, file=self.name, line=m.line or 1))
            self.start_events()
            self.events.append(_Event("end", m.build(), m.errors))
            self.index += 1
        self.match = _MatchBuilder(self.name, self.index)

    def start_match(self, length: int, lineno: int) -> None:
        if self.match.length is not None or self.match.games or self.game is not None:
            self.end_match()
        self.match.length = length
        self.match.line = lineno
        self.take_pending()

    def take_pending(self) -> None:
        self.match.tags.extend(self.pending_tags)
        self.match.comments.extend(self.pending_comments)
        self.pending_tags = []
        self.pending_comments = []

    # ------------------------------------------------------------------ lines
    def feed(self, text: str, lineno: int) -> None:
        self.lines = lineno
        stripped = text.strip()
        if not stripped:
            return
        if stripped[0] in ";#":
            self.header_line(stripped, lineno)
            return
        m = _MATCH_RE.match(text)
        if m:
            self.found_structure()
            length = int(m.group(1))
            self.start_match(length if length <= MAX_NUMBER else 0, lineno)
            self.bad_match = length > MAX_NUMBER  # its games are left out, with this one error
            if self.bad_match:
                self.error(f"match length over {MAX_NUMBER}", lineno, m.start(1) + 1, m.group(1)[:20])
            return
        m = _GAME_RE.match(text)
        if m:
            self.found_structure()
            self.end_game()
            if self.bad_match or int(m.group(1)) > MAX_NUMBER:
                if not self.bad_match:
                    self.error(f"game number over {MAX_NUMBER}", lineno, m.start(1) + 1, m.group(1)[:20])
                self.game = _GameBuilder(0, lineno, bad=True)
                return
            if self.match.length is None:
                # A game without a match line (a .gam file): one game of a money session.
                self.match.length = 0
                self.match.line = lineno
                self.take_pending()
            elif self.pending_tags or self.pending_comments:
                self.take_pending()
            self.game = _GameBuilder(int(m.group(1)), lineno)
            return
        g = self.game
        if g is None:
            if not self.structure:
                self.preamble_count += 1
                if len(self.preamble) < MAX_ERRORS:
                    self.preamble.append((lineno, _first_col(text), stripped[:40]))
                return
            self.error("unexpected line outside a game", lineno, _first_col(text), stripped[:40])
            return
        if g.bad:
            return
        if g.score is None:
            self.score_line(g, text, lineno)
            return
        m = _ROW_RE.match(text)
        start = m.end() if m else 0
        try:
            self.row(g, text, start, lineno)
        except ParseError as err:
            self.error(err.message, lineno, err.column, err.token)

    def header_line(self, stripped: str, lineno: int) -> None:
        m = _TAG_RE.match(stripped)
        if m:
            key, value = m.group(1), m.group(2)
            if key.lower() == "gamevariation" and self.game is not None:
                self.game.variation = value
                return
            if key.lower() == "crawfordgame" and self.game is not None:
                flag = _flag(value)
                if flag is None:
                    self.error("expected Yes or No", lineno, 1, value[:20])
                self.game.crawford = flag
                return
            if self.match.games or self.game is not None:
                self.pending_tags.append((key, value))  # header of the next match
            else:
                self.match.tags.append((key, value))
            return
        comment = stripped[1:].strip()
        if self.match.games or self.game is not None:
            self.pending_comments.append(comment)
        else:
            self.match.comments.append(comment)

    def score_line(self, g: _GameBuilder, text: str, lineno: int) -> None:
        m = _SCORE_RE.match(text)
        if not m:
            self.error("expected the score line '<name> : <score>  <name> : <score>'",
                       lineno, _first_col(text), text.strip()[:60])
            return
        g.score = (int(m.group(3)), int(m.group(6)))
        g.score_line = lineno
        g.names = (m.group(2).split(",")[0].strip(), m.group(5).split(",")[0].strip())
        right = m.start(5) if m.group(5) else m.start(6) - 3
        g.split = (6 + right) // 2
        if self.match.first_names is None:
            self.match.first_names = g.names

    def row(self, g: _GameBuilder, text: str, start: int, lineno: int) -> None:
        toks = [(t.group(0), t.start()) for t in _TOKEN_RE.finditer(text, start)]
        i = 0
        count = 0
        while i < len(toks):
            if _ROWNUM_RE.match(toks[i][0]):  # Galaxy repeats the row number in the right cell
                i += 1
                continue
            # The first action sits in the cell its column shows; any later one is the right cell.
            side = (1 if toks[i][1] >= g.split else 0) if count == 0 else 1
            act, i = self.action(toks, i, side, lineno)
            if isinstance(act, Win) and g.actions and isinstance(g.actions[-1], Resign):
                # Galaxy writes 'Wins' far right after a 'Losses' cell: the winner is the other one.
                act = Win(side=1 - g.actions[-1].side, points=act.points, match=act.match,
                          line=act.line, column=act.column)
            g.actions.append(act)
            count += 1

    def action(self, toks: list[tuple[str, int]], i: int, side: int, lineno: int) -> tuple[Action, int]:
        tok, col = toks[i]
        column = col + 1
        low = tok.lower()
        m = _DICE_RE.match(tok)
        if m:
            d1, d2 = int(m.group(1)), int(m.group(2))
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise ParseError("dice must be 1 to 6", column=column, token=tok)
            moves: list[str] = []
            note = ""
            play_col = 0
            rest = m.group(3)
            j = i + 1
            pending = [(rest, col + 3)] if rest else []
            while True:
                if pending:
                    t, c = pending.pop()
                elif j < len(toks):
                    t, c = toks[j]
                    tl = t.lower()
                    if _DICE_RE.match(t) or tl in _STARTERS or _ROWNUM_RE.match(t):
                        break
                    j += 1
                else:
                    break
                tl = t.lower()
                marker = ""
                if tl == "cannot" and j < len(toks) and toks[j][0].lower() == "move":
                    j += 1
                    marker = "cannot move"
                elif set(t) == {"?"}:
                    marker = "????"
                if marker:
                    if moves or note:
                        raise ParseError(f"'{t}' after a move or marker", column=c + 1, token=t)
                    note = marker
                    continue
                if tl == "illegal":
                    raise ParseError("'Illegal play' (an edited position) is not supported",
                                     column=c + 1, token=t)
                if note:
                    raise ParseError("move after a no-move marker", column=c + 1, token=t)
                if not _MOVE_RE.match(t):
                    try:
                        parse_move(t)
                    except ParseError as err:
                        raise ParseError(err.message, column=c + 1, token=t) from None
                if not moves:
                    play_col = c + 1
                moves.append(t)
            return Roll(side=side, dice=(d1, d2), play=" ".join(moves), line=lineno, column=column,
                        note=note, play_column=play_col), j
        if low in _DOUBLE_WORDS:
            value: int | None = None
            j = i + 1
            if j < len(toks) and toks[j][0] == "=>":
                j += 1
                if j < len(toks) and _NUM_RE.match(toks[j][0]):
                    value = int(toks[j][0])
                    j += 1
                else:
                    raise ParseError("expected the cube value after '=>'", column=column, token=tok)
            elif j < len(toks) and toks[j][0].startswith("=>") and _NUM_RE.match(toks[j][0][2:]):
                value = int(toks[j][0][2:])
                j += 1
            return Double(side=side, value=value, line=lineno, column=column, kind=_DOUBLE_WORDS[low]), j
        if low in _TAKE_WORDS:
            return Take(side=side, line=lineno, column=column), i + 1
        if low in _DROP_WORDS:
            return Drop(side=side, line=lineno, column=column), i + 1
        if low in ("wins", "losses"):
            j = i + 1
            points: int | None = None
            if j < len(toks) and _NUM_RE.match(toks[j][0]):
                points = int(toks[j][0])
                j += 1
                if j < len(toks) and toks[j][0].lower() in ("point", "points", "pt", "pts"):
                    j += 1
            elif low == "losses":
                raise ParseError("expected a number after 'Losses'", column=column, token=tok)
            else:
                raise ParseError("expected a number after 'Wins'", column=column, token=tok)
            if low == "losses":
                return Resign(side=side, points=points, line=lineno, column=column, word="Losses"), j
            match = False
            if [t.lower() for t, _ in toks[j:j + 3]] == ["and", "the", "match"]:
                match = True
                j += 3
            return Win(side=side, points=points, match=match, line=lineno, column=column), j
        if low == "resigns":
            return Resign(side=side, line=lineno, column=column, word="Resigns"), i + 1
        if low == "resigned":
            j = i + 1
            word = "Resigned"
            if j < len(toks) and toks[j][0].lower() in ("game", "match"):
                word += " " + toks[j][0].capitalize()
                j += 1
            return Resign(side=side, line=lineno, column=column, word=word), j
        raise ParseError("unreadable action", column=column, token=tok)

    def found_structure(self) -> None:
        if self.structure:
            return
        self.structure = True
        junk, self.preamble = self.preamble, []
        for lineno, col, token in junk:
            self.error("unexpected line outside a game", lineno, col, token)

    def binary(self, lineno: int) -> None:
        """Binary data at line ``lineno``: the one error of the file (the unreadable lines before it are
        not reported again as a text that is no match file: one file, one reason)."""
        if not self.structure:
            self.preamble = []
        self.error("binary data, not a match file", lineno, None, None)

    # ------------------------------------------------------------------ driving
    def finish(self) -> None:
        if not self.structure and self.preamble:
            lineno, col, token = self.preamble[0]
            self.error(f"not a match file: no 'N point match' or 'Game N' line in "
                       f"{self.preamble_count} unreadable lines", lineno, col, token)
        self.end_match()
        if self.index == 0:  # nothing at all: an empty file, or blank lines only
            self.match.errors.append(ParseError(
                "no match in the file: it is empty" if self.lines == 0 else
                f"no match in the file: {self.lines} blank lines", file=self.name, line=1))
            self.end_match()


def _first_col(text: str) -> int:
    return len(text) - len(text.lstrip()) + 1


def _is_binary(raw: bytes) -> bool:
    if b"\x00" in raw:
        return True
    ctrl = sum(1 for b in raw if b < 32 and b not in (9, 10, 12, 13))
    return ctrl > 2 and ctrl * 10 > len(raw)


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _name_of(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def read_matches(source: Source, *, name: str | None = None) -> Iterator[MatchRecord]:
    """Read every match of a ``.mat`` file, a path or an open handle (text or binary).

    Lines are decoded as UTF-8 (a BOM is skipped; other bytes fall back to Windows-1252),
    CRLF and CR-only line ends are accepted. A file that holds binary data, UTF-16 or UTF-32
    is reported as one error on an empty record, and so is a file with no match in it. Memory
    use does not grow with the number of matches in the file (:func:`stream_matches` keeps it
    flat within a match too).

    >>> import io
    >>> data = b"\\xef\\xbb\\xbf 1 point match\\r\\n\\r\\n Game 1\\r\\n a : 0   b : 0\\r\\n"
    >>> [m] = read_matches(io.BytesIO(data))
    >>> m.length, m.games[0].score
    (1, (0, 0))
    """
    games: list[GameRecord] = []
    for ev in _events(source, name):
        if ev.kind == "game":
            assert isinstance(ev.item, GameRecord)
            games.append(ev.item)
        elif ev.kind == "end":
            assert isinstance(ev.item, MatchRecord)
            yield replace(ev.item, games=tuple(games), errors=tuple(ev.errors))
            games = []


def stream_matches(source: Source, *, name: str | None = None) -> Iterator[MatchStream]:
    """Read the matches of a ``.mat`` file one game at a time: each :class:`MatchStream` gives
    the match's header, then its games as they are read (take them all before asking for the
    next match), and the errors met so far. Memory stays flat however many games a match has.

    >>> import io
    >>> text = " 3 point match\\n Game 1\\n a : 0   b : 0\\n Game 2\\n a : 1   b : 0\\n"
    >>> [(ms.header.length, [g.score for g in ms.games]) for ms in stream_matches(io.StringIO(text))]
    [(3, [(0, 0), (1, 0)])]
    """
    events = _events(source, name)
    for ev in events:
        if ev.kind == "start":
            assert isinstance(ev.item, MatchRecord)
            stream = MatchStream(ev.item, _games_until_end(events), ev.errors)
            yield stream
            for _ in stream.games:  # what the caller left unread
                pass


def _games_until_end(events: Iterator[_Event]) -> Iterator[GameRecord]:
    for ev in events:
        if ev.kind == "end":
            return
        assert isinstance(ev.item, GameRecord)
        yield ev.item


def _events(source: Source, name: str | None) -> Iterator[_Event]:
    label = name if name is not None else _name_of(source)
    if isinstance(source, (str, os.PathLike)):
        with open_regular(source) as fh:
            yield from _read_handle(fh, label)
        return
    yield from _read_handle(source, label)


def read_match_text(text: str, *, name: str = "<text>") -> list[MatchRecord]:
    """Read matches from a string (a convenience for tests and small inputs).

    >>> read_match_text(" 0 point match")[0].length
    0
    """
    return list(read_matches(io.StringIO(text), name=name))


_CHUNK = 1 << 16
_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _lines(first: AnyStr, fh: IO[AnyStr], nl: AnyStr, cr: AnyStr) -> Iterator[tuple[AnyStr, bool]]:
    """The lines of a handle whose first chunk ``first`` was already read, without their ends,
    each with ``True`` when it was longer than :data:`MAX_LINE` (then only its head is given).

    Lines end at ``\n`` (``\r\n`` included) or, in a file with no ``\n`` at all, at ``\r``
    (old Mac line ends). Memory stays bounded whatever the line lengths.
    """
    empty = first[:0]
    sep: AnyStr | None = None
    buf, head, long = empty, empty, False
    chunk = first
    while chunk:
        buf += chunk
        if sep is None:
            sep = nl if nl in buf else (cr if cr in buf[:-1] else None)
        if sep is not None:
            done = buf.split(sep)
            buf = done.pop()
            for line in done:
                if long:
                    yield head, True
                    long = False
                elif len(line) > MAX_LINE:
                    yield line[:20], True
                else:
                    yield line.rstrip(cr), False
        if len(buf) > MAX_LINE:  # skip the rest of a long line, keep its head for the message
            if not long:
                head, long = buf[:20], True
            buf = empty
        chunk = fh.read(_CHUNK)
    if long:
        yield head, True
    elif buf:
        yield buf.rstrip(cr), False


def _read_handle(fh: IO[str] | IO[bytes], label: str) -> Iterator[_Event]:
    rd = _Reader(label)
    first = fh.read(_CHUNK)
    try:
        if isinstance(first, bytes):
            for bom, name in _BOMS:
                if first.startswith(bom):
                    rd.error(f"the file is {name} text; save it as UTF-8", 1, 1, None)
                    raise _TooManyErrors
            if first.startswith(b"\xef\xbb\xbf"):
                first = first[3:]
        elif first.startswith("\ufeff"):
            first = first[1:]
        lines: Iterator[tuple[str | bytes, bool]]
        if isinstance(first, bytes):
            lines = _lines(first, cast(IO[bytes], fh), b"\n", b"\r")
        else:
            lines = _lines(first, cast(IO[str], fh), "\n", "\r")
        for lineno, (raw, long) in enumerate(lines, start=1):
            if isinstance(raw, bytes):
                if _is_binary(raw):
                    rd.binary(lineno)
                    break
                text = _decode(raw)
            else:
                text = str(raw)
                if "\x00" in text:
                    rd.binary(lineno)
                    break
            if long:
                rd.error(f"line longer than {MAX_LINE} characters", lineno, MAX_LINE, text + "...")
                continue
            rd.feed(text, lineno)
            if rd.events:
                yield from rd.events
                rd.events = []
    except _TooManyErrors:
        pass
    try:
        rd.finish()
    except _TooManyErrors:
        rd.end_match()
    yield from rd.events
