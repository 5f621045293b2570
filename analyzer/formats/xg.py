"""Reader of eXtreme Gammon's binary match files (``.xg``) into the records of
:mod:`analyzer.formats.records`.

The layout is the one XG published ("XG file format", extremegammon.com, 2013; little-endian,
Delphi record alignment):

* a 8,232-byte ``RGMH`` header (magic, version, header size, thumbnail offset and size, game
  GUID, four 1,024-character UTF-16 strings), then an optional JPEG thumbnail;
* a zlib archive (ZLibArchive 1.52): the archived files, their registry (532-byte entries:
  name, path, sizes, start, CRC-32, compression flag), and a 36-byte trailer at the very end
  (CRC-32 of the archive, file count, version, registry size, archive size, registry
  compressed);
* in the archive, ``temp.xg``: the game file, 2,560-byte records, each with its type at byte 8
  (0 match header, 1 game header, 2 cube, 3 move, 4 game footer, 5 match footer); ``temp.xgi``
  (first and last record again), ``temp.xgr`` (rollouts, 2,184-byte records) and ``temp.xgc``
  (RTF comments).

Player 1 of the file is side 0 (the left column of a .mat file). A move record's checker moves
are the mover's own points counted from 0 (``24`` is the bar, a negative "to" is off), up to
four (from, to) pairs ended by ``-1``. A cube record stands for every cube decision XG saw:
``Double`` 1 when the player doubled, ``Take`` 0 pass, 1 take, 2 beaver; after a beaver
``BeaverR`` 0 pass, 1 take, 2 raccoon, after a raccoon ``RaccoonR`` 0 pass, 1 take.

Everything is read into memory and checked before use: a file that is not XG's, or whose archive
is damaged or truncated (a CRC that does not match, a size or offset out of range, zlib data
that does not inflate), gives one :class:`~analyzer.core.errors.ParseError` naming the file; a
record that cannot be read names its record number, and leaves its game out (the other games
are read). The record number stands in the ``line`` of the actions, so a replay error of an
``.xg`` file reads ``file.xg:RECORD: ...``.

XG's own analysis, where the file has it, is kept on the actions
(:class:`~analyzer.formats.records.XGAnalysis`): the error of every play and cube action, the
luck of every roll, the equities of the candidates and of the cube actions.

>>> [m] = read_xg("tests/data/xg/example.xg")   # a container with no game records in it
>>> print(m.errors[0])  # doctest: +ELLIPSIS
tests/data/xg/example.xg: not a game file: the archived file 'temp.xg' in it holds 578 bytes...
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import struct
import zlib
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from typing import IO

from analyzer._read import open_regular
from analyzer.core.errors import InputError, ParseError
from analyzer.core.ids import XGID
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
    XGAnalysis,
)

__all__ = ["HEADER_SIZE", "MAX_FILE", "RECORD_SIZE", "XGContainer", "is_xg", "read_container",
           "read_xg", "stream_xg", "xgp_xgid"]

Source = str | os.PathLike[str] | IO[bytes]
_Fail = Callable[..., ParseError]

MAGIC = b"RGMH"
HEADER_SIZE = 8232
"""Size of XG's RichGameHeader (the ``RGMH`` header)."""
RECORD_SIZE = 2560
"""Size of one record of the game file ``temp.xg``."""
TRAILER_SIZE = 36
ENTRY_SIZE = 532
MAX_FILE = 256 << 20
"""Largest archived file inflated (256 MiB: about 100,000 records, a very long session)."""
MAX_TOTAL = 256 << 20
"""Most bytes inflated from one archive, all its files together (an archive of 64 files of 256 MiB each
would otherwise hold 16 GiB); the readers inflate only the files they use (the game file)."""
GAME_FILE = "temp.xg"
"""The archived file that holds the game records (a part of the ``.xg`` file, never a file on disk)."""
MAX_INPUT = 512 << 20
MAX_ERRORS = 50
MATCH_MAGIC = 0x494C4D44  # "DMLI", the match header's check value
NOT_ANALYSED = -1000.0
UNLIMITED = 99999  # XG's match length of a money session

_VARIATIONS = {0: "Backgammon", 1: "NackGammon", 2: "HyperGammon", 3: "LongGammon"}
_KINDS = {0: "match header", 1: "game header", 2: "cube", 3: "move", 4: "game footer",
          5: "match footer"}
_STANDARD_START = {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}


@dataclass(frozen=True, slots=True)
class XGContainer:
    """The parts of an ``.xg`` file: header strings, thumbnail and the archived files by name
    (lower case: ``temp.xg``, ``temp.xgi``, ``temp.xgr``, ``temp.xgc``)."""

    header_version: int
    game_name: str
    save_name: str
    level_name: str
    comments: str
    thumbnail: bytes
    files: dict[str, bytes] = field(default_factory=dict)


def is_xg(path: str | os.PathLike[str]) -> bool:
    """Whether a file starts with XG's ``RGMH`` magic.

    >>> is_xg("tests/data/xg/example.xg")
    True
    """
    with open_regular(path) as fh:
        return fh.read(4) == MAGIC


# ----------------------------------------------------------------------------- container
def _u32(data: bytes, off: int) -> int:
    return int(struct.unpack_from("<I", data, off)[0])


def _i32(data: bytes, off: int) -> int:
    return int(struct.unpack_from("<i", data, off)[0])


def _f64(data: bytes, off: int) -> float:
    return float(struct.unpack_from("<d", data, off)[0])


def _f32(data: bytes, off: int) -> float:
    return float(struct.unpack_from("<f", data, off)[0])


def _wide(data: bytes, off: int, chars: int) -> str:
    raw = data[off:off + 2 * chars]
    text = raw.decode("utf-16-le", errors="replace")
    return _clean(text.split("\0", 1)[0])


def _short(data: bytes, off: int, size: int) -> str:
    n = min(data[off], size)
    return _clean(data[off + 1:off + 1 + n].decode("cp1252", errors="replace"))


def _clean(text: str) -> str:
    """A one-line text: control characters become spaces (a record field is one line)."""
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in text).strip()


def read_container(data: bytes, name: str = "<xg>", *, wanted: Collection[str] | None = None) -> XGContainer:
    """Split the bytes of an ``.xg`` file into its parts, checking every size, offset and CRC.
    Only the archived files named in ``wanted`` (default: all) are inflated, at most
    :data:`MAX_TOTAL` bytes in all, checked against the sizes the registry states before any is inflated.

    Raises :class:`~analyzer.core.errors.ParseError` (naming ``name``) for a file that is not
    XG's or is damaged.

    >>> with open("tests/data/xg/example.xg", "rb") as fh:
    ...     c = read_container(fh.read(), "example.xg")
    >>> sorted(c.files), len(c.files["temp.xg"])
    (['temp.xg', 'temp.xgi'], 578)
    """
    def bad(message: str, token: str | None = None) -> ParseError:
        return ParseError(message, file=name, token=token)

    if data[:4] != MAGIC:
        raise bad("not an XG file: it does not start with 'RGMH'", token=data[:4].decode("latin-1"))
    if len(data) < HEADER_SIZE:
        raise bad(f"truncated XG file: {len(data):,} bytes, shorter than its "
                  f"{HEADER_SIZE:,}-byte header")
    version, hsize = _u32(data, 4), _u32(data, 8)
    thumb_size = _u32(data, 20)  # the thumbnail follows the header (its offset field at 12 is not needed)
    if not 40 <= hsize <= len(data):
        raise bad(f"damaged XG header: header size {hsize:,} (file of {len(data):,} bytes)")
    start = hsize + thumb_size
    if start > len(data):
        raise bad(f"truncated XG file: its {thumb_size:,}-byte thumbnail runs past the end "
                  f"({len(data):,} bytes)")
    thumbnail = data[hsize:start] if thumb_size else b""
    strings = [_wide(data, 40 + 2048 * i, 1024) if hsize >= 40 + 2048 * (i + 1) else ""
               for i in range(4)]
    files = _archive(memoryview(data)[start:], bad, wanted)
    return XGContainer(header_version=version, game_name=strings[0], save_name=strings[1],
                       level_name=strings[2], comments=strings[3], thumbnail=thumbnail, files=files)


def _part(fname: str) -> str:
    """How a message names an archived file: a part of the user's ``.xg`` file, not a file of its own."""
    return f"the archived file {fname or '?'!r}"


def _archive(payload: memoryview, fail: _Fail, wanted: Collection[str] | None = None) -> dict[str, bytes]:
    if len(payload) < TRAILER_SIZE:
        raise fail(f"truncated XG file: {len(payload):,} bytes after the header, too few for "
                   f"the archive's {TRAILER_SIZE}-byte trailer")
    end = len(payload) - TRAILER_SIZE
    crc, count, _version, reg_size, arc_size, reg_packed = struct.unpack_from("<Iiiiii", payload, end)
    if not 1 <= count <= 64:
        raise fail(f"damaged XG archive: {count} files in its trailer (truncated file?)")
    if reg_size <= 0 or arc_size < 0 or reg_size + arc_size > end:
        raise fail(f"damaged XG archive: registry of {reg_size:,} and data of {arc_size:,} bytes "
                   f"do not fit in {end:,} bytes (truncated file?)")
    reg_start = end - reg_size
    arc_start = reg_start - arc_size
    if zlib.crc32(payload[arc_start:end]) != crc:
        raise fail("damaged XG archive: its CRC-32 does not match (the file is corrupt or truncated)")
    registry = bytes(payload[reg_start:end])
    if reg_packed:  # (room for padding after the entries)
        registry = _inflate(registry, count * ENTRY_SIZE + 65536, "the archive registry", fail)
    if len(registry) < count * ENTRY_SIZE:
        raise fail(f"damaged XG archive: a registry of {len(registry):,} bytes for {count} files")
    entries: list[tuple[str, int, int, int, int, bool]] = []
    for k in range(count):
        e = registry[k * ENTRY_SIZE:(k + 1) * ENTRY_SIZE]
        fname = e[1:1 + min(e[0], 255)].decode("latin-1").lower()
        osize, csize, fstart, fcrc = struct.unpack_from("<iiiI", e, 512)
        packed = e[528] == 0
        if (osize < 0 or osize > MAX_FILE or csize < 0 or fstart < 0
                or fstart + csize > arc_size):
            raise fail(f"damaged XG archive: entry {k + 1} ({_part(fname)}) has size {osize:,}, "
                       f"packed size {csize:,} at {fstart:,}, outside the archive's {arc_size:,} bytes")
        if wanted is None or fname in wanted:
            entries.append((fname, osize, csize, fstart, fcrc, packed))
    total = sum(e[1] for e in entries)
    if total > MAX_TOTAL:  # refused before anything is inflated
        raise fail(f"damaged XG archive: its files would inflate to {total:,} bytes in all, more than the "
                   f"{MAX_TOTAL >> 20} MiB read from one file")
    files: dict[str, bytes] = {}
    for fname, osize, csize, fstart, fcrc, packed in entries:
        blob = payload[arc_start + fstart:arc_start + fstart + csize]
        content = _inflate(blob, osize, _part(fname), fail) if packed else bytes(blob)
        if len(content) != osize:
            raise fail(f"damaged XG archive: {_part(fname)} gives {len(content):,} bytes, its entry "
                       f"says {osize:,}")
        if zlib.crc32(content) != fcrc:
            raise fail(f"damaged XG archive: the CRC-32 of {_part(fname)} does not match")
        files[fname] = content
    return files


def _inflate(blob: bytes | memoryview, size: int, what: str, fail: _Fail) -> bytes:
    """``blob`` inflated, at most ``size`` bytes (a zip bomb stops there)."""
    d = zlib.decompressobj()
    try:
        out = d.decompress(blob, size + 1)
    except zlib.error as err:
        raise fail(f"damaged XG archive: {what} does not inflate ({err})") from None
    if len(out) > size:
        raise fail(f"damaged XG archive: {what} inflates past {size:,} bytes")
    if not d.eof:
        raise fail(f"damaged XG archive: {what} ends before its zlib stream does (truncated)")
    return bytes(out)


# ----------------------------------------------------------------------------- records
class _RecordError(ParseError):
    """An error in one record: the game it belongs to is left out."""


def _date(days: float) -> tuple[str | None, str | None]:
    """XG's TDateTime (days since 1899-12-30) as ``("YYYY.MM.DD", "HH.MM")``.

    >>> _date(45147.75)
    ('2023.08.09', '18.00')
    >>> _date(0.0)
    (None, None)
    """
    if not math.isfinite(days) or not 1.0 <= days < 2_958_465.0:
        return None, None
    when = _dt.datetime(1899, 12, 30) + _dt.timedelta(days=days)
    when = (when + _dt.timedelta(seconds=30)).replace(second=0, microsecond=0)
    return when.strftime("%Y.%m.%d"), when.strftime("%H.%M")


def _err(value: float) -> float | None:
    return None if not math.isfinite(value) or value <= NOT_ANALYSED + 1e-6 else value


def _side(active: int, rec: int, kind: str) -> int:
    if active == 1:
        return 0
    if active == -1:
        return 1
    raise _RecordError(f"record {rec} ({kind}): the player is {active}, not 1 or -1",
                       line=rec, token=str(active))


def _play(moves: list[int], rec: int, what: str = "move") -> str:
    """XG's (from, to) pairs, the mover's points from 0 (24 the bar, < 0 off), as our play text.

    >>> _play([7, 2, 5, 2, -1, 1, 2, 1], 1), _play([24, 21, 3, -1, -1, 0, 0, 0], 1)
    ('8/3 6/3', '25/22 4/0')
    """
    parts: list[str] = []
    for k in range(0, 8, 2):
        a, b = moves[k], moves[k + 1]
        if a == -1:
            break
        if not 0 <= a <= 24 or not -7 <= b <= 23 or b >= a:
            raise _RecordError(f"record {rec} ({what}): checker move {a}->{b} is not a move",
                               line=rec, token=f"{a},{b}")
        parts.append(f"{a + 1}/{b + 1 if b >= 0 else 0}")
    return " ".join(parts)


@dataclass
class _Game:
    number: int
    rec: int
    score: tuple[int, int]
    crawford: bool | None
    actions: list[Action] = field(default_factory=list)
    pending_cube: float | None = None


@dataclass
class _Reader:
    name: str
    games: list[GameRecord] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    game: _Game | None = None
    skipping: bool = False
    ended: bool = False
    length: int = 0
    crawford_rule: bool = False
    players: tuple[str, str] = ("", "")
    final: tuple[int, int] | None = None
    unshown: int = 0

    def error(self, err: InputError) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(err.located(file=self.name))
        else:
            self.unshown += 1

    def all_errors(self) -> tuple[InputError, ...]:
        """The errors kept, and a last one that counts those left out past :data:`MAX_ERRORS`."""
        if not self.unshown:
            return tuple(self.errors)
        more = ParseError(f"... and {self.unshown:,} more errors (the first {MAX_ERRORS} are shown)", file=self.name)
        return (*self.errors, more)

    def close_game(self) -> None:
        g, self.game = self.game, None
        if g is None:
            return
        self.games.append(GameRecord(number=g.number, line=g.rec, score=g.score, actions=tuple(g.actions),
                                     names=self.players, crawford=g.crawford, score_line=g.rec))

    # -- one record of each kind
    def game_header(self, r: bytes, rec: int) -> None:
        self.close_game()
        self.skipping = False
        s1, s2 = _i32(r, 12), _i32(r, 16)
        number = _i32(r, 48)
        if not (0 <= s1 < 1 << 20 and 0 <= s2 < 1 << 20):
            raise _RecordError(f"record {rec} (game header): score {s1}-{s2} is not a score",
                               line=rec, token=f"{s1}-{s2}")
        if not 0 < number < 1 << 31:
            raise _RecordError(f"record {rec} (game header): game number {number}", line=rec,
                               token=str(number))
        start = struct.unpack_from("<26b", r, 21)
        if any(start) and any(start[i] != _STANDARD_START.get(i, 0) for i in range(26)):
            raise _RecordError(f"record {rec} (game header): game {number} starts from a set-up "
                               "position, which is not supported", line=rec, token=f"game {number}")
        crawford = bool(r[20]) if self.length and self.crawford_rule else None
        self.game = _Game(number=number, rec=rec, score=(s1, s2), crawford=crawford)

    def cube(self, r: bytes, rec: int) -> None:
        g = self._current(rec, "cube")
        doubled, answer = _i32(r, 16), _i32(r, 20)
        err_cube, err_take = _err(_f64(r, 200)), _err(_f64(r, 216))
        if doubled != 1:  # no double (or no cube decision at all): XG's verdict goes on the roll
            g.pending_cube = err_cube
            return
        side = _side(_i32(r, 12), rec, "cube")
        level = abs(_i32(r, 32))
        if level > 30:
            raise _RecordError(f"record {rec} (cube): cube at 2^{level}", line=rec, token=str(_i32(r, 32)))
        value = 2 ** (level + 1)
        equities = (_f32(r, 152), _f32(r, 156), _f32(r, 160))
        has_eq = all(math.isfinite(x) for x in equities) and err_cube is not None
        g.actions.append(Double(side=side, value=value, line=rec,
                                xg=XGAnalysis(error=err_cube, equities=equities if has_eq else None)))
        taker = 1 - side
        if answer == 1:
            g.actions.append(Take(side=taker, line=rec, xg=XGAnalysis(error=err_take)))
        elif answer == 0:
            g.actions.append(Drop(side=taker, line=rec, xg=XGAnalysis(error=err_take)))
        elif answer == 2:  # beaver: the doubler accepts (1), refuses (0) or raccoons (2)
            g.actions.append(Double(side=taker, value=value * 2, line=rec, kind="beaver",
                                    xg=XGAnalysis(error=err_take)))
            reply, last = _i32(r, 24), _i32(r, 28)
            if reply == 0:
                g.actions.append(Drop(side=side, line=rec))
            elif reply == 1:
                g.actions.append(Take(side=side, line=rec))
            elif reply == 2:  # raccoon: the beaverer accepts (1) or refuses (0)
                g.actions.append(Double(side=side, value=value * 4, line=rec, kind="raccoon"))
                g.actions.append(Take(side=taker, line=rec) if last == 1 else Drop(side=taker, line=rec))
            else:
                raise _RecordError(f"record {rec} (cube): answer {reply} to a beaver (0 pass, "
                                   "1 take, 2 raccoon)", line=rec, token=str(reply))
        elif answer != -1:
            raise _RecordError(f"record {rec} (cube): answer {answer} to a double (0 pass, 1 take, "
                               "2 beaver)", line=rec, token=str(answer))

    def move(self, r: bytes, rec: int) -> None:
        g = self._current(rec, "move")
        side = _side(_i32(r, 64), rec, "move")
        dice = (_i32(r, 100), _i32(r, 104))
        if dice == (0, 0) and _i32(r, 68) == -1:  # no roll and no play: nothing happened
            return
        if not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
            raise _RecordError(f"record {rec} (move): dice {dice[0]}-{dice[1]} are not a roll",
                               line=rec, token=f"{dice[0]}{dice[1]}")
        moves = list(struct.unpack_from("<8i", r, 68))
        play = _play(moves, rec)
        n = _i32(r, 124 + 64)
        candidates: list[tuple[str, float]] = []
        if 0 < n <= 32:
            for k in range(n):
                cand = list(struct.unpack_from("<8b", r, 124 + 900 + 8 * k))
                equity = _f32(r, 124 + 1284 + 28 * k + 24)
                try:
                    text = _play(cand, rec, "candidate")
                except _RecordError:
                    text = ""  # XG's placeholder for "no legal move"
                if math.isfinite(equity):
                    candidates.append((text, equity))
        elif n != 0 and _err(_f64(r, 2312)) is not None:
            raise _RecordError(f"record {rec} (move): {n} candidate plays (at most 32)", line=rec,
                               token=str(n))
        xg = XGAnalysis(error=_err(_f64(r, 2312)), luck=_err(_f64(r, 2320)),
                        cube_error=g.pending_cube, candidates=tuple(candidates),
                        level=_i32(r, 2472) if _err(_f64(r, 2312)) is not None else None)
        g.pending_cube = None
        g.actions.append(Roll(side=side, dice=(dice[0], dice[1]), play=play, line=rec,
                              note="" if play else "cannot move", xg=xg))

    def game_footer(self, r: bytes, rec: int) -> None:
        g = self._current(rec, "game footer")
        f1, f2 = _i32(r, 12), _i32(r, 16)
        winner_code, points, term = _i32(r, 24), _i32(r, 28), _i32(r, 32)
        gained = (f1 - g.score[0], f2 - g.score[1])
        if gained[0] > 0 and gained[1] == 0:
            winner = 0
        elif gained[1] > 0 and gained[0] == 0:
            winner = 1
        elif winner_code in (1, -1) and gained == (0, 0):
            winner = 0 if winner_code == 1 else 1
        else:
            raise _RecordError(f"record {rec} (game footer): score {g.score[0]}-{g.score[1]} "
                               f"becomes {f1}-{f2} (winner {winner_code})", line=rec,
                               token=f"{f1}-{f2}")
        won = points if points > 0 else max(gained)
        if not 0 < won < 1 << 20:
            raise _RecordError(f"record {rec} (game footer): {won} points won", line=rec, token=str(won))
        kind = term % 100 if term >= 0 else -1
        if term >= 100:  # resigned (100..) or settled (1000..)
            loser = 1 - winner
            last = g.actions[-1] if g.actions else None
            if isinstance(last, Roll) and last.side == loser and not last.play:
                g.actions[-1] = replace(last, note="????")  # rolled, then resigned
            g.actions.append(Resign(side=loser, line=rec, word="Resigns"))
        elif kind not in (0, 1, 2, 3):
            raise _RecordError(f"record {rec} (game footer): end of game {term} (0 drop, 1-3 "
                               "single to backgammon, +100 resigned)", line=rec, token=str(term))
        final = f1 if winner == 0 else f2
        match_won = bool(self.length) and final >= self.length
        g.actions.append(Win(side=winner, points=won, match=match_won, line=rec))
        self.close_game()

    def _current(self, rec: int, kind: str) -> _Game:
        if self.game is None:
            raise _RecordError(f"record {rec} ({kind}): outside a game (no game header before it)",
                               line=rec, token=kind)
        return self.game


def _header(r: bytes, name: str) -> tuple[MatchRecord, int]:
    """The match of a match header record (record 1), and its file version."""
    version = _i32(r, 552)
    if _u32(r, 556) != MATCH_MAGIC:
        raise ParseError("record 1 (match header): its check value is not XG's ('DMLI'): not an "
                         "XG game file", file=name, line=1, token=r[556:560].decode("latin-1"))
    unicode = version >= 24
    p1 = (_wide(r, 880, 129) if unicode else "") or _short(r, 9, 40)
    p2 = (_wide(r, 1138, 129) if unicode else "") or _short(r, 50, 40)
    event = (_wide(r, 622, 129) if unicode else "") or _short(r, 136, 128)
    place = (_wide(r, 1396, 129) if unicode else "") or _short(r, 283, 128)
    rnd = (_wide(r, 1654, 129) if unicode else "") or _short(r, 417, 128)
    transcriber = _wide(r, 1960, 129) if version >= 30 else ""
    raw_length = _i32(r, 92)
    if raw_length == UNLIMITED:
        length = 0
    elif 0 <= raw_length < 1 << 20:
        length = raw_length
    else:
        raise ParseError(f"record 1 (match header): match length {raw_length}", file=name, line=1,
                         token=str(raw_length))
    variation_code = _i32(r, 96)
    variation = _VARIATIONS.get(variation_code, f"XG variation {variation_code}")
    crawford, jacoby, beaver = bool(r[100]), bool(r[101]), bool(r[102])
    elo = (_f64(r, 104), _f64(r, 112))
    exp = (_i32(r, 120), _i32(r, 124))
    date, time = _date(_f64(r, 128))
    cube_limit = _cube_limit(_i32(r, 612)) if version >= 8 else None
    ratings = tuple(f"{e:.2f}/{x}" if math.isfinite(e) and e > 0 else None for e, x in zip(elo, exp, strict=True))
    tags: list[tuple[str, str]] = [("Site", "eXtreme Gammon")]
    for key, value in (("Event", event), ("Round", rnd), ("Place", place), ("Player 1", p1),
                       ("Player 2", p2), ("Player 1 Elo", ratings[0]), ("Player 2 Elo", ratings[1]),
                       ("EventDate", date), ("EventTime", time), ("Variation", variation)):
        if value:
            tags.append((key, value))
    if length:
        tags.append(("Crawford", "On" if crawford else "Off"))
    else:
        tags += [("Jacoby", "On" if jacoby else "Off"), ("Beaver", "On" if beaver else "Off")]
    if cube_limit:
        tags.append(("CubeLimit", str(cube_limit)))
    if transcriber:
        tags.append(("Transcriber", transcriber))
    record = MatchRecord(players=(p1, p2), length=length, source=name, line=1,
                         ratings=(ratings[0], ratings[1]), event=event or None, round=rnd or None,
                         site="eXtreme Gammon", date=date, time=time,
                         variation=None if variation_code == 0 else variation,
                         crawford=crawford if length else None,
                         jacoby=None if length else jacoby, beaver=None if length else beaver,
                         cube_limit=cube_limit, tags=tuple(tags))
    return record, version


def _cube_limit(raw: int) -> int | None:
    """XG's cube limit: up to 15 read as a power of two (as an XGID's last field), above as the
    value itself; the larger reading of the two, since a limit only refuses cubes.

    >>> _cube_limit(10), _cube_limit(1024), _cube_limit(0)
    (1024, 1024, None)
    """
    if 0 < raw <= 15:
        return 1 << raw
    return raw if 15 < raw < 1 << 20 else None


def _read_games(game_file: bytes, name: str) -> MatchRecord:
    if len(game_file) % RECORD_SIZE or not game_file:
        raise ParseError(f"not a game file: {_part(GAME_FILE)} in it holds {len(game_file):,} bytes, not whole "
                         f"{RECORD_SIZE:,}-byte records (damaged, or not a match)", file=name)
    count = len(game_file) // RECORD_SIZE
    first = game_file[:RECORD_SIZE]
    if first[8] != 0:
        raise ParseError(f"record 1 is a {_KINDS.get(first[8], f'type {first[8]}')} record, not "
                         "the match header", file=name, line=1, token=str(first[8]))
    header, _version = _header(first, name)
    rd = _Reader(name=name, length=header.length, crawford_rule=bool(header.crawford),
                 players=header.players)
    for k in range(1, count):
        rec = k + 1
        r = game_file[k * RECORD_SIZE:(k + 1) * RECORD_SIZE]
        kind = r[8]
        if rd.ended:
            rd.error(ParseError(f"record {rec}: {count - k} records after the match footer",
                                line=rec, token=_KINDS.get(kind, str(kind))))
            break
        try:
            if kind == 1:
                rd.game_header(r, rec)
            elif rd.skipping and kind in (2, 3, 4):
                continue
            elif kind == 2:
                rd.cube(r, rec)
            elif kind == 3:
                rd.move(r, rec)
            elif kind == 4:
                rd.game_footer(r, rec)
            elif kind == 5:
                rd.close_game()
                rd.ended = True
            elif kind == 0:
                raise _RecordError(f"record {rec}: a second match header (one match per file)",
                                   line=rec, token="match header")
            else:
                raise _RecordError(f"record {rec}: record type {kind} is not read (a game XG "
                                   "marks as missing, or an unknown record)", line=rec, token=str(kind))
        except _RecordError as err:
            if rd.game is not None:
                err.message += f"; game {rd.game.number} left out"
            rd.error(err)
            rd.game = None
            rd.skipping = True
    rd.close_game()
    return replace(header, games=tuple(rd.games), errors=rd.all_errors())


# ----------------------------------------------------------------------------- positions
def xgp_xgid(source: Source, *, name: str | None = None) -> XGID:
    """The position an XG position file (``.xgp``; an ``.xg`` file too: its last position) holds,
    as an XGID: the board of the last move or cube record, the player on roll, the dice (``D``
    when a double waits for an answer), cube, score, match length and Crawford flag.

    Raises :class:`~analyzer.core.errors.ParseError` naming the file when there is no position.

    >>> str(xgp_xgid("tests/data/xg/position.xgp"))  # bob (player 2, on top) to play 42
    'XGID=ab----E-C---eD---c-d----B-:1:1:-1:42:1:2:0:5:10'
    >>> xgp_xgid("tests/data/xg/example.xg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: tests/data/xg/example.xg: not a position file: the archived file 'temp.xg' ...
    """
    label = name if name is not None else (
        os.fspath(source) if isinstance(source, (str, os.PathLike)) else str(getattr(source, "name", "<xg>")))
    try:
        files = read_container(_load(source, label), label, wanted=(GAME_FILE,)).files
        game_file = files.get(GAME_FILE, b"")
        if len(game_file) % RECORD_SIZE or not game_file:
            raise ParseError(f"not a position file: {_part(GAME_FILE)} in it holds {len(game_file):,} bytes, not whole "
                             f"{RECORD_SIZE:,}-byte records", file=label)
        header, _version = _header(game_file[:RECORD_SIZE], label)
        score, crawford, last, rec_no = (0, 0), False, b"", 0
        for k in range(1, len(game_file) // RECORD_SIZE):
            r = game_file[k * RECORD_SIZE:(k + 1) * RECORD_SIZE]
            if r[8] == 1:
                score, crawford = (_i32(r, 12), _i32(r, 16)), bool(r[20])
            elif r[8] in (2, 3):
                last, rec_no = r, k + 1
        if not last:
            raise ParseError("no position in the XG file (no move or cube record)", file=label)
        if last[8] == 3:
            board, active, cube_b = struct.unpack_from("<26b", last, 9), _i32(last, 64), _i32(last, 108)
            d1, d2 = _i32(last, 100), _i32(last, 104)
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise _RecordError(f"record {rec_no} (move): dice {d1}-{d2} are not a roll",
                                   line=rec_no, token=f"{d1}{d2}")
            dice = f"{d1}{d2}"
        else:
            board, active, cube_b = struct.unpack_from("<26b", last, 36), _i32(last, 12), _i32(last, 32)
            dice = "D" if _i32(last, 16) == 1 else "00"
        _side(active, rec_no, "move" if last[8] == 3 else "cube")
        if abs(cube_b) > 15:
            raise _RecordError(f"record {rec_no}: cube at 2^{abs(cube_b)}", line=rec_no, token=str(cube_b))
        money = header.length == 0
        flags = (int(bool(header.jacoby)) + 2 * int(bool(header.beaver))) if money else int(crawford)
        limit = header.cube_limit or 1024
        return XGID(checkers=tuple(board), cube_log2=abs(cube_b),
                    cube_position=(cube_b > 0) - (cube_b < 0), turn=active, dice=dice,
                    score_bottom=score[0], score_top=score[1], flags=flags, length=header.length,
                    max_cube_log2=min(15, max(abs(cube_b), limit.bit_length() - 1)))
    except InputError as err:
        raise err.located(file=label) from None


# ----------------------------------------------------------------------------- entry points
def _load(source: Source, name: str) -> bytes:
    if isinstance(source, (str, os.PathLike)):
        with open_regular(source) as fh:
            data = fh.read(MAX_INPUT + 1)
    else:
        data = source.read(MAX_INPUT + 1)
    if len(data) > MAX_INPUT:
        raise ParseError(f"XG file larger than {MAX_INPUT >> 20} MiB", file=name)
    return data


def read_xg(source: Source, *, name: str | None = None) -> Iterator[MatchRecord]:
    """Read the match of an ``.xg`` file (a path or an open binary handle).

    Yields one :class:`~analyzer.formats.records.MatchRecord`: its games, and in ``errors`` what
    could not be read (a damaged file gives a record with no game and one error).

    >>> import io
    >>> [m] = read_xg(io.BytesIO(b"RGMH"), name="short.xg")
    >>> print(m.errors[0])
    short.xg: truncated XG file: 4 bytes, shorter than its 8,232-byte header
    """
    label = name if name is not None else (
        os.fspath(source) if isinstance(source, (str, os.PathLike)) else str(getattr(source, "name", "<xg>")))
    try:
        files = read_container(_load(source, label), label, wanted=(GAME_FILE,)).files
        if GAME_FILE not in files:
            raise ParseError(f"damaged XG archive: it holds no game file ({_part(GAME_FILE)})", file=label)
        record = _read_games(files[GAME_FILE], label)
    except InputError as err:
        yield MatchRecord(players=("", ""), length=0, source=label, errors=(err.located(file=label),))
        return
    if not record.games and not record.errors:
        record = replace(record, errors=(ParseError("no game in the XG file", file=label),))
    yield record


def stream_xg(source: Source, *, name: str | None = None) -> Iterator[MatchStream]:
    """The match of an ``.xg`` file as a :class:`~analyzer.formats.records.MatchStream` (the
    game file is read whole: it is compressed in the file and small).

    >>> [ms] = stream_xg("tests/data/xg/example.xg")
    >>> list(ms.games), len(ms.errors)
    ([], 1)
    """
    return (MatchStream.of(r) for r in read_xg(source, name=name))
