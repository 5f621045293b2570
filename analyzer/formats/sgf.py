"""Reader of gnubg's backgammon SGF (``GM[6]``) into the records of :mod:`analyzer.formats.records`.

An SGF match file is a sequence of game trees, one per game. The root node holds the match
information (``MI[length:7][game:0][ws:0][bs:0]``, players ``PW``/``PB``, ``RU`` rules, ``RE``
result); each following node holds one action: ``W[31fehe]`` (White rolled 31 and played 6/5
8/5), ``B[double]``, ``W[take]``, ``W[drop]``. White is player 0 (the left column of a .mat file).
Point letters ``a``..``x`` are White's points 1..24, ``y`` the bar and ``z`` off.

The reader streams: it reads one game tree at a time and yields a match when the next one starts
(game number back to 0, other players) or at the end of the file. Analysis properties are ignored.

>>> import io
>>> text = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RE[W+1];W[31fehe];B[double];W[drop])"
>>> [m] = read_sgf(io.StringIO(text))
>>> m.players, m.length
(('ann', 'bob'), 3)
>>> [a.text for a in m.games[0].actions]
['31: 6/5 8/5', 'Doubles', 'Drops', 'Wins 1 point']
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import IO

from analyzer._read import open_regular
from analyzer.core.errors import InputError, ParseError
from analyzer.core.variants import all_specs
from analyzer.formats.records import Action, Double, Drop, GameRecord, MatchRecord, Roll, Take, Win

__all__ = ["read_sgf", "sgf_point"]

Source = str | os.PathLike[str] | IO[str] | IO[bytes]

_MOVE_RE = re.compile(r"^([1-6])([1-6])((?:[a-z]{2}){0,4})$")
_RE_RE = re.compile(r"^([WB])\+(\d+)(R?)", re.IGNORECASE)
_MAX_VALUE = 1 << 20
_OTHER_RULES = ("nackgammon", "hypergammon")  # variations we read but do not play (the replay rejects them)


def sgf_point(letter: str, side: int) -> int:
    """Our point number (mover's view; 25 bar, 0 off) of an SGF point letter for ``side``.

    >>> sgf_point("f", 0), sgf_point("l", 1), sgf_point("y", 1), sgf_point("z", 0)
    (6, 13, 25, 0)
    """
    k = ord(letter) - ord("a")
    if k == 24:
        return 25
    if k == 25:
        return 0
    if not 0 <= k < 24:
        raise ParseError("not an SGF point letter", token=letter)
    return k + 1 if side == 0 else 24 - k


@dataclass
class _Node:
    line: int
    column: int
    props: list[tuple[str, list[str], int, int]] = field(default_factory=list)

    def get(self, name: str) -> list[str] | None:
        for key, values, _, _ in self.props:
            if key == name:
                return values
        return None


class _Tokenizer:
    """Yields the main line of each game tree as a list of nodes, reading the text in chunks."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh
        self.buf = ""
        self.pos = 0
        self.line = 1
        self.col = 1

    def _char(self) -> str:
        if self.pos >= len(self.buf):
            self.buf = self.fh.read(65536)
            self.pos = 0
            if not self.buf:
                return ""
        ch = self.buf[self.pos]
        self.pos += 1
        if ch == "\n":
            self.line += 1
            self.col = 1
        else:
            self.col += 1
        return ch

    def trees(self) -> Iterator[list[_Node]]:
        depth = 0
        skip_depth = 0  # > 0 while skipping a side variation
        branch_seen: list[bool] = []
        nodes: list[_Node] = []
        node: _Node | None = None
        ident = ""
        while True:
            ch = self._char()
            if not ch:
                break
            if ch == "[":
                line, col = self.line, self.col - 1
                value = self._value()
                if skip_depth:
                    continue
                if node is None:
                    raise ParseError("a property value outside a node", line=line, column=col, token="[")
                if ident:
                    node.props.append((ident, [value], line, col))
                    ident = ""
                elif node.props:
                    node.props[-1][1].append(value)
                continue
            if ch == "(":
                depth += 1
                if skip_depth:
                    skip_depth += 1
                elif depth >= 2:
                    if branch_seen[-1]:
                        skip_depth = 1
                    else:
                        branch_seen[-1] = True
                if not skip_depth:
                    branch_seen.append(False)
                continue
            if ch == ")":
                if depth == 0:
                    raise ParseError("')' without '('", line=self.line, column=self.col - 1, token=")")
                depth -= 1
                if skip_depth:
                    skip_depth -= 1
                    continue
                branch_seen.pop()
                if depth == 0:
                    yield nodes
                    nodes = []
                    node = None
                continue
            if skip_depth:
                continue
            if ch == ";":
                if depth == 0:
                    raise ParseError("a node outside a game tree", line=self.line, column=self.col - 1,
                                     token=";")
                node = _Node(self.line, self.col - 1)
                nodes.append(node)
                ident = ""
                continue
            if ch.isalpha():
                if depth == 0 or node is None:
                    raise ParseError("text outside a game tree", line=self.line, column=self.col - 1,
                                     token=ch)
                ident += ch
                continue
            if ch.isspace():
                continue
            raise ParseError("unexpected character in SGF", line=self.line, column=self.col - 1, token=ch)
        if depth:
            raise ParseError("the file ends inside a game tree (truncated?)", line=self.line,
                             column=self.col)

    def _value(self) -> str:
        out: list[str] = []
        n = 0
        while True:
            ch = self._char()
            if not ch:
                raise ParseError("the file ends inside a property value (truncated?)", line=self.line,
                                 column=self.col)
            if ch == "\\":
                ch = self._char()
            elif ch == "]":
                return "".join(out)
            n += 1
            if n > _MAX_VALUE:
                raise ParseError("property value too long", line=self.line, column=self.col)
            out.append(ch)


def _mi(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        if ":" in v:
            k, _, x = v.partition(":")
            out[k.strip().lower()] = x.strip()
    return out


def _int(text: str | None, what: str, line: int, column: int) -> int:
    if text is None or not text.strip().lstrip("-").isdigit():
        raise ParseError(f"expected a number for {what}", line=line, column=column, token=text)
    return int(text)


def _move_text(letters: str, side: int) -> str:
    parts = []
    for i in range(0, len(letters), 2):
        a, b = sgf_point(letters[i], side), sgf_point(letters[i + 1], side)
        parts.append(f"{a}/{b}")
    return " ".join(parts)


class _NotBackgammon(ParseError):
    """A game tree of another game (``GM`` other than 6): the file is not read further."""


def _game(nodes: list[_Node], name: str) -> tuple[dict[str, str], GameRecord]:
    root = nodes[0]
    for key, values, line, col in root.props:
        if key == "GM" and values[0].strip() != "6":  # SGF's number of backgammon is 6 (1 is go, 2 othello)
            raise _NotBackgammon("not a backgammon game: the SGF's GM is not 6", file=name, line=line,
                                 column=col, token=values[0].strip())
    mi_vals = root.get("MI")
    mi = _mi(mi_vals or [])
    number = _int(mi.get("game", "0"), "MI game", root.line, root.column) + 1
    score = (_int(mi.get("ws", "0"), "MI ws", root.line, root.column),
             _int(mi.get("bs", "0"), "MI bs", root.line, root.column))
    info: dict[str, str] = {"length": mi.get("length", "0")}
    for key, values, _, _ in root.props:
        if key in ("PW", "PB", "WR", "BR", "DT", "EV", "RO", "PC", "AN", "GC", "RU", "RE"):
            info[key] = values[0]
    rules = [r.strip().lower() for r in info.get("RU", "").split(":")]
    variation = None
    for r in rules:
        if r.startswith(_OTHER_RULES + tuple(n for s in all_specs() if s.sgf_rules for n in s.names)):
            variation = r
    actions: list[Action] = []
    for node in nodes:
        for key, values, line, col in node.props:
            if key in ("AE", "AW", "AB", "PL"):
                raise ParseError("set-up positions in an SGF game are not supported", file=name,
                                 line=line, column=col, token=key)
            if key not in ("W", "B"):
                continue
            side = 0 if key == "W" else 1
            v = values[0].strip()
            low = v.lower()
            if low == "double":
                actions.append(Double(side=side, value=None, line=line, column=col))
            elif low == "take":
                actions.append(Take(side=side, line=line, column=col))
            elif low == "drop":
                actions.append(Drop(side=side, line=line, column=col))
            else:
                m = _MOVE_RE.match(v)
                if not m:
                    raise ParseError("unreadable SGF move", file=name, line=line, column=col, token=v)
                actions.append(Roll(side=side, dice=(int(m.group(1)), int(m.group(2))),
                                    play=_move_text(m.group(3), side), line=line, column=col,
                                    play_column=col))
    resigned = False
    re_text = info.get("RE")
    if re_text:
        m = _RE_RE.match(re_text)
        if m:
            resigned = bool(m.group(3))
            line, col = next((ln, c) for k, _, ln, c in root.props if k == "RE")
            winner = 0 if m.group(1).upper() == "W" else 1
            last = actions[-1] if actions else None
            if resigned and isinstance(last, Roll) and not last.play and last.side != winner:
                # Rolled, then resigned: the roll was never played.
                actions[-1] = replace(last, note="????")
            actions.append(Win(side=winner, points=int(m.group(2)), line=line, column=col))
    crawford = "crawfordgame" in rules
    game = GameRecord(number=number, line=root.line, score_line=root.line, score=score, actions=tuple(actions),
                      variation=variation, names=(info.get("PW", ""), info.get("PB", "")),
                      resigned=resigned, crawford=crawford if "crawford" in rules else None)
    info["crawford"] = "On" if "crawford" in rules else "Off"
    info["jacoby"] = "On" if "jacoby" in rules else "Off"
    if variation:
        info["variation"] = variation
    return info, game


def _name_of(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def read_sgf(source: Source, *, name: str | None = None) -> Iterator[MatchRecord]:
    """Read the matches of a gnubg SGF file (a path or an open handle, text or binary).

    A game that cannot be read is left out and reported in ``MatchRecord.errors``; an error in
    the SGF structure itself ends the file there.
    """
    label = name if name is not None else _name_of(source)
    if isinstance(source, (str, os.PathLike)):
        with open_regular(source) as fh:
            yield from _read(io.TextIOWrapper(fh, encoding="utf-8", errors="replace"), label)
        return
    if isinstance(source, io.TextIOBase):
        yield from _read(source, label)
        return
    binary: IO[bytes] = source  # type: ignore[assignment]
    yield from _read(io.TextIOWrapper(binary, encoding="utf-8", errors="replace"), label)


def _read(fh: IO[str], name: str) -> Iterator[MatchRecord]:
    info: dict[str, str] | None = None
    games: list[GameRecord] = []
    errors: list[InputError] = []
    index = 0
    first_line = 1

    def build() -> MatchRecord:
        assert info is not None
        length = int(info["length"]) if info["length"].isdigit() else 0
        tags = tuple((k, v) for k, v in info.items() if k.isupper())
        return MatchRecord(
            players=(info.get("PW", ""), info.get("PB", "")), length=length, games=tuple(games),
            source=name, index=index, line=first_line, ratings=(info.get("WR"), info.get("BR")),
            event=info.get("EV"), round=info.get("RO"), site=info.get("PC"),
            date=info.get("DT", "").replace("-", ".") or None, variation=info.get("variation"),
            crawford=info.get("crawford") == "On", jacoby=info.get("jacoby") == "On", tags=tags,
            comments=(info["GC"],) if "GC" in info else (), errors=tuple(errors))

    tok = _Tokenizer(fh)
    try:
        for nodes in tok.trees():
            if not nodes:
                continue
            try:
                ginfo, game = _game(nodes, name)
            except _NotBackgammon as err:
                errors.append(err.located(file=name))
                break
            except InputError as err:
                errors.append(err.located(file=name))
                continue
            new_match = info is None or game.number == 1 or (
                ginfo.get("PW"), ginfo.get("PB")) != (info.get("PW"), info.get("PB"))
            if new_match and info is not None:
                yield build()
                index += 1
                games, errors = [], []
            if new_match:
                info = ginfo
                first_line = game.line
            games.append(game)
    except InputError as err:
        errors.append(err.located(file=name))
    if info is None:
        info = {"length": "0"}
        if not errors:
            errors.append(ParseError("no game found in the SGF file", file=name, line=1))
    yield build()
