"""eXtreme Gammon's binary ``.xg`` files: the container, the records, the replay, damaged files.

The only real XG file we have (``data/xg/example.xg``, from the xgdatatools repository) is an
``RGMH`` container whose archive holds no game records (a 578-byte ``temp.xg``, "Test Game"): it
checks the container (header, archive trailer, registry, CRCs, inflation), not the records.

Every match below is therefore written by :func:`xg_file`, a test helper that lays out XG's
records as XG's published format page describes them (byte offsets worked out from its Delphi
record layout): match header, game header, cube, move, game footer, match footer, packed into the
zlib archive. The helper is ours, so it shares our reading of the layout; what checks it from
outside is (a) the checker-move encodings that readers tested on real XG files document (0-based
points, 24 the bar, negative "to" for off, -1 ends the list), checked on raw values below, and
(b) the replay: the 7-point match of the Backgammon Studio corpus, written as an .xg file, must
replay through our rules to the 141 Position IDs and Match IDs GNU Backgammon printed for the
same match, and give the same decisions as its .mat text. Cube actions, beavers, resignations and
the Crawford game, which that match lacks or has few of, get small matches written the same way.
"""

from __future__ import annotations

import doctest
import random
import re
import struct
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import analyzer.formats.xg as xgmod
from analyzer.analysis.identifiers import decision_ids
from analyzer.analysis.replay import decisions, replay_games
from analyzer.cli import app
from analyzer.core.errors import InputError
from analyzer.core.ids import GameState, decode_match_id
from analyzer.formats import MATCH_SUFFIXES, read_any, stream_any
from analyzer.formats.mat import read_matches
from analyzer.formats.records import (
    Double,
    Drop,
    MatchRecord,
    Resign,
    Roll,
    Take,
    Win,
    crawford_flags,
)
from analyzer.formats.xg import read_container, read_xg

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "xg" / "example.xg"
STUDIO = DATA / "corpus" / "bglab" / "backgammon-studio"
EXPORT = DATA / "gnubg-analysis-export"
runner = CliRunner()

# ----------------------------------------------------------------------------- the helper
REC = 2560
NA = -1000.0  # XG's "not analysed"


def _wide(text: str, chars: int = 129) -> bytes:
    raw = text.encode("utf-16-le")[: 2 * (chars - 1)]
    return raw + b"\0" * (2 * chars - len(raw))


def _short(text: str, size: int) -> bytes:
    raw = text.encode("cp1252")[:size]
    return bytes([len(raw)]) + raw + b"\0" * (size - len(raw))


def _record(kind: int) -> bytearray:
    r = bytearray(REC)
    r[8] = kind
    return r


def match_header(p1: str = "ann", p2: str = "bob", length: int = 7, *, crawford: bool = True,
                 jacoby: bool = False, beaver: bool = False, version: int = 30, event: str = "",
                 date: float = 45147.75, cube_limit: int = 0, variation: int = 0) -> bytes:
    r = _record(0)
    r[9:50] = _short(p1, 40)
    r[50:91] = _short(p2, 40)
    struct.pack_into("<ii4B", r, 92, length, variation, crawford, jacoby, beaver, 0)
    struct.pack_into("<dd", r, 104, 1600.0, 1500.0)
    struct.pack_into("<d", r, 128, date)
    r[136:265] = _short(event, 128)
    struct.pack_into("<iI", r, 552, version, 0x494C4D44)
    struct.pack_into("<i", r, 612, cube_limit)
    if version >= 24:
        r[622:880] = _wide(event)
        r[880:1138] = _wide(p1)
        r[1138:1396] = _wide(p2)
    return bytes(r)


STANDARD = [0] * 26
for _p, _n in {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}.items():
    STANDARD[_p] = _n


def game_header(number: int, score: tuple[int, int], *, crawford: bool = False,
                start: list[int] | None = None) -> bytes:
    r = _record(1)
    struct.pack_into("<iiB", r, 12, score[0], score[1], crawford)
    struct.pack_into("<26b", r, 21, *(STANDARD if start is None else start))
    struct.pack_into("<i", r, 48, number)
    return bytes(r)


def cube(side: int, *, double: int, take: int = -1, level: int = 0, err_cube: float = NA,
         err_take: float = NA, beaver_r: int = 0, raccoon_r: int = 0,
         equities: tuple[float, float, float] = (0, 0, 0), board: list[int] | None = None) -> bytes:
    """``side`` 0 or 1; ``level`` the cube before the action as XG's log2 (0 centred at 1), signed
    by its owner (+ player 1); ``board`` XG's 26 slots seen from player 1."""
    r = _record(2)
    struct.pack_into("<6i", r, 12, 1 if side == 0 else -1, double, take, beaver_r, raccoon_r, level)
    struct.pack_into("<26b", r, 36, *(board or [0] * 26))
    struct.pack_into("<3f", r, 152, *equities)
    struct.pack_into("<d", r, 200, err_cube)
    struct.pack_into("<d", r, 216, err_take)
    return bytes(r)


def xg_pairs(hops: list[tuple[int, int]]) -> list[int]:
    """Our (from, to) hops (mover's points, 25 bar, 0 off) in XG's encoding, -1 padded."""
    out: list[int] = []
    for a, b in hops:
        out += [a - 1, b - 1 if b > 0 else -1]
    return out + [-1] * (8 - len(out))


def move(side: int, dice: tuple[int, int], hops: list[tuple[int, int]], *, err: float = NA,
         luck: float = NA, candidates: list[tuple[list[tuple[int, int]], float]] = (),
         board: list[int] | None = None, level: int = 0) -> bytes:
    r = _record(3)
    struct.pack_into("<26b", r, 9, *(board or [0] * 26))
    struct.pack_into("<i", r, 108, level)
    struct.pack_into("<i", r, 64, 1 if side == 0 else -1)
    struct.pack_into("<8i", r, 68, *xg_pairs(hops))
    struct.pack_into("<2i", r, 100, *dice)
    struct.pack_into("<i", r, 124 + 64, len(candidates))
    for k, (cand, equity) in enumerate(candidates):
        struct.pack_into("<8b", r, 124 + 900 + 8 * k, *xg_pairs(cand))
        struct.pack_into("<7f", r, 124 + 1284 + 28 * k, 0, 0, 0.5, 0.5, 0, 0, equity)
    struct.pack_into("<dd", r, 2312, err, luck)
    return bytes(r)


def game_footer(final: tuple[int, int], winner: int, points: int, termination: int = 1) -> bytes:
    r = _record(4)
    struct.pack_into("<iiBxxxiii", r, 12, final[0], final[1], 0, 1 if winner == 0 else -1, points,
                     termination)
    return bytes(r)


def match_footer(final: tuple[int, int]) -> bytes:
    r = _record(5)
    struct.pack_into("<ii", r, 12, *final)
    return bytes(r)


def _entry(name: str, osize: int, csize: int, start: int, crc: int, packed: bool) -> bytes:
    e = bytearray(532)
    e[0:256] = _short(name, 255)
    struct.pack_into("<iiiIBB", e, 512, osize, csize, start, crc, 0 if packed else 1, 6)
    return bytes(e)


def archive(files: dict[str, bytes], *, packed_registry: bool = True) -> bytes:
    """A ZLibArchive: the files (zlib), the registry, the 36-byte trailer."""
    data, entries = b"", b""
    for name, content in files.items():
        blob = zlib.compress(content)
        entries += _entry(name, len(content), len(blob), len(data), zlib.crc32(content), True)
        data += blob
    registry = zlib.compress(entries) if packed_registry else entries
    crc = zlib.crc32(data + registry)
    trailer = struct.pack("<Iiiiii", crc, len(files), 1, len(registry), len(data), packed_registry)
    return data + registry + trailer + b"\0" * 12


def xg_file(records: list[bytes], *, thumbnail: bytes = b"", name: str = "Test") -> bytes:
    header = bytearray(8232)
    struct.pack_into("<4sIIqI", header, 0, b"RGMH", 1, 8232, 0, len(thumbnail))
    header[40:40 + 2048] = _wide(name, 1024)
    game = b"".join(records)
    files = {"temp.xgi": records[0] + records[-1], "temp.xg": game, "temp.xgr": b"",
             "temp.xgc": b"{\\rtf1 }\r\n"}
    return bytes(header) + thumbnail + archive(files)


def write(tmp_path: Path, records: list[bytes], name: str = "m.xg", **kw: object) -> Path:
    p = tmp_path / name
    p.write_bytes(xg_file(records, **kw))  # type: ignore[arg-type]
    return p


# ----------------------------------------------------------------------------- the real file
def test_example_xg_container_is_read_and_its_missing_records_are_one_clear_error():
    c = read_container(EXAMPLE.read_bytes(), "example.xg")
    assert c.header_version == 1 and c.thumbnail == b""
    assert sorted(c.files) == ["temp.xg", "temp.xgi"]
    assert len(c.files["temp.xg"]) == 578 and c.files["temp.xgi"] == b"XG Game Header\n"
    [m] = read_xg(EXAMPLE)
    assert m.games == () and len(m.errors) == 1
    assert str(EXAMPLE) in str(m.errors[0]) and "578 bytes" in str(m.errors[0])
    [ms] = stream_any(EXAMPLE)
    assert list(ms.games) == [] and len(ms.errors) == 1
    res = runner.invoke(app, ["replay", str(EXAMPLE)])
    assert res.exit_code == 2 and "Traceback" not in res.output


def test_docstring_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(xgmod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 5 and result.failed == 0


def test_xg_is_a_match_suffix_and_read_any_dispatches_on_the_magic(tmp_path):
    assert ".xg" in MATCH_SUFFIXES
    p = write(tmp_path, [match_header(), game_header(1, (0, 0)), move(0, (3, 1), [(8, 5), (6, 5)])],
              name="no-suffix.bin")
    [m] = read_any(p)
    assert m.site == "eXtreme Gammon" and [a.text for a in m.games[0].actions] == ["31: 8/5 6/5"]


# ----------------------------------------------------------------------------- checker moves
@pytest.mark.parametrize(("raw", "text"), [
    # (from, to) pairs as readers tested on real XG files document them: 0-based, 24 the bar,
    # a negative "to" is off (-1 in a played move, from minus the die in a candidate), -1 ends.
    ([7, 2, 5, 2, -1, 1, 2, 1], "8/3 6/3"),
    ([24, 21, 24, 19, -1, 6, 6, 0], "25/22 25/20"),
    ([4, -1, 4, 2, -1, -1, -1, -1], "5/0 5/3"),
    ([5, -1, 5, -1, 3, -1, 3, -1], "6/0 6/0 4/0 4/0"),
    ([3, -1, 3, -2, -1, 3, 5, 3], "4/0 4/0"),
    ([-1] * 8, ""),
])
def test_checker_moves_decode_from_xg_encoding(raw, text):
    assert xgmod._play(raw, 1) == text


# ----------------------------------------------------------------------------- a real match
def _match_as_xg(m: MatchRecord) -> list[bytes]:
    """The records XG would write for match ``m`` (replayed by our engine to get one hop per die)."""
    recs = [match_header(m.players[0], m.players[1], m.length, event="Online match",
                         cube_limit=m.cube_limit or 0)]
    flags = list(crawford_flags(m.length, m.crawford, m.games))
    for g, (craw, _post) in zip(replay_games(m), flags, strict=True):
        assert g.ok
        recs.append(game_header(g.number, g.state.score, crawford=craw))
        ds = list(g.decisions)
        level = 0
        for i, d in enumerate(ds):
            if d.kind == "move":
                assert d.dice is not None
                recs.append(cube(d.side, double=0))
                recs.append(move(d.side, d.dice, [(h.source, h.dest) for h in d.hops]))
            elif d.kind == "double":
                answer = ds[i + 1].kind if i + 1 < len(ds) else ""
                recs.append(cube(d.side, double=1, take={"take": 1, "drop": 0}.get(answer, -1),
                                 level=level))
                level += 1
        final = list(g.state.score)
        assert g.winner is not None
        final[g.winner] += g.points
        term = {"drop": 0, "resign": 101}.get(g.end, 1)
        recs.append(game_footer((final[0], final[1]), g.winner, g.points, term))
    recs.append(match_footer((0, 0)))
    return recs


@pytest.fixture(scope="module")
def studio_match() -> MatchRecord:
    [m] = read_matches(next(STUDIO.glob("BoardLord - Llabba 7pt*.txt")))
    return m


def test_a_real_match_written_as_xg_replays_to_gnubgs_positions(tmp_path, studio_match):
    p = write(tmp_path, _match_as_xg(studio_match))
    [x] = read_xg(p)
    assert x.errors == () and x.players == ("BoardLord", "Llabba") and x.length == 7
    expected = []
    for f in sorted(EXPORT.glob("*.txt")):
        expected += re.findall(r"Move number \d+:\s+(\S+) to play (\d\d)\s+GNU Backgammon\s+"
                               r"Position ID: (\S+)\s+Match ID\s+: (\S+)", f.read_text())
    assert len(expected) == 141
    # gnubg's text export writes the opening roll of a game with game state "no game"; the ID gnubg
    # holds there says "playing", as ours does (see tests/test_replay.py)
    for i, e in enumerate(expected):
        if decode_match_id(e[3]).game_state == GameState.NONE:
            expected[i] = (*e[:3], replace(decode_match_id(e[3]), game_state=GameState.PLAYING).encode())
    got = []
    for d in decisions(x):
        if d.kind == "move":
            ids = decision_ids(d)
            assert d.dice is not None
            got.append((d.player, f"{d.dice[0]}{d.dice[1]}", ids.position_id, ids.match_id))
    assert got == [tuple(e) for e in expected]

    def key(m: MatchRecord):
        return [(d.game, d.side, d.kind, d.dice, d.normalised, d.position, d.state) for d in decisions(m)]

    assert key(x) == key(studio_match)
    ends = [(g.winner, g.points, g.end) for g in replay_games(x)]
    assert ends == [(g.winner, g.points, g.end) for g in replay_games(studio_match)]


def test_convert_xg_to_mat_round_trips_and_replay_cli_reads_it(tmp_path, studio_match):
    p = write(tmp_path, _match_as_xg(studio_match))
    res = runner.invoke(app, ["replay", str(p)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "back.mat"
    res = runner.invoke(app, ["convert", str(p), "--to", "mat", "--output", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert '; [Site "eXtreme Gammon"]' in text and '; [Player 1 "BoardLord"]' in text
    assert '; [EventDate "2023.08.09"]' in text and " 7 point match" in text
    [back] = read_matches(out)
    [x] = read_xg(p)
    k = [(d.game, d.side, d.kind, d.dice, d.normalised, d.position, d.state) for d in decisions(x)]
    assert k == [(d.game, d.side, d.kind, d.dice, d.normalised, d.position, d.state)
                 for d in decisions(back)]


# ----------------------------------------------------------------------------- record kinds
def test_cube_actions_resignation_and_crawford_from_written_records(tmp_path):
    recs = [
        match_header("ann", "bob", 3, event="Club night"),
        game_header(1, (0, 0)),
        cube(0, double=0), move(0, (3, 1), [(8, 5), (6, 5)], err=0.0, luck=0.21,
                                candidates=[([(8, 5), (6, 5)], 0.16), ([(24, 21), (22, 21)], 0.02)]),
        cube(1, double=1, take=1, err_cube=-0.08, err_take=0.0, equities=(0.1, 0.05, 1.0)),
        move(1, (6, 4), [(24, 18), (18, 14)]),
        cube(0, double=1, take=0, level=1, err_cube=0.0, err_take=-0.3),
        game_footer((2, 0), 0, 2, 0),                      # ann wins the dropped 4-cube's 2 points
        game_header(2, (2, 0), crawford=True),             # ann at 2 of 3: the Crawford game
        move(1, (6, 5), [(24, 18), (18, 13)]),
        move(0, (6, 6), []),                               # ann rolls, then resigns a backgammon
        game_footer((2, 3), 1, 3, 103),
        match_footer((2, 3)),
    ]
    p = write(tmp_path, recs)
    [m] = read_xg(p)
    assert m.errors == ()
    assert (m.players, m.length, m.event, m.date, m.time, m.crawford) == (
        ("ann", "bob"), 3, "Club night", "2023.08.09", "18.00", True)
    g1, g2 = m.games
    kinds = [(type(a).__name__, a.side) for a in g1.actions]
    assert kinds == [("Roll", 0), ("Double", 1), ("Take", 0), ("Roll", 1), ("Double", 0), ("Drop", 1),
                     ("Win", 0)]
    assert isinstance(g1.actions[1], Double) and g1.actions[1].value == 2
    assert isinstance(g1.actions[4], Double) and g1.actions[4].value == 4
    assert g1.crawford is False and g2.crawford is True and g2.score == (2, 0)
    assert [type(a).__name__ for a in g2.actions] == ["Roll", "Roll", "Resign", "Win"]
    assert isinstance(g2.actions[1], Roll) and g2.actions[1].note == "????"
    assert isinstance(g2.actions[2], Resign) and g2.actions[2].side == 0
    assert isinstance(g2.actions[3], Win) and g2.actions[3].match
    # XG's own numbers are kept on the actions
    r0 = g1.actions[0]
    assert isinstance(r0, Roll) and r0.xg is not None
    assert (r0.xg.error, r0.xg.luck) == (0.0, 0.21)
    assert [c for c, _ in r0.xg.candidates] == ["8/5 6/5", "24/21 22/21"]
    assert r0.xg.candidates[0][1] == pytest.approx(0.16)
    d1, t1 = g1.actions[1], g1.actions[2]
    assert isinstance(d1, Double) and d1.xg is not None and d1.xg.error == -0.08
    assert d1.xg.equities == pytest.approx((0.1, 0.05, 1.0))
    assert isinstance(t1, Take) and t1.xg is not None and t1.xg.error == 0.0
    drop = g1.actions[5]
    assert isinstance(drop, Drop) and drop.xg is not None and drop.xg.error == -0.3
    moved = g1.actions[3]
    assert isinstance(moved, Roll) and moved.xg is not None and moved.xg.error is None
    games = list(replay_games(m))
    assert all(g.ok for g in games), [g.error for g in games]
    assert [(g.winner, g.points, g.end) for g in games] == [(0, 2, "drop"), (1, 3, "resign")]
    assert games[1].state.crawford


def test_money_session_with_beaver_and_ansi_names(tmp_path):
    recs = [
        match_header("Zoë", "bob", 99999, jacoby=True, beaver=True, version=20, cube_limit=64),
        game_header(1, (0, 0)),
        move(0, (3, 1), [(8, 5), (6, 5)]),
        cube(1, double=1, take=2, beaver_r=1),             # bob doubles, ann beavers, bob takes
        move(1, (6, 4), [(24, 18), (18, 14)]),
        game_footer((0, 0), 0, 4, 101),                   # bob resigns: a single game, cube 4
        game_header(2, (0, 0)),
        move(1, (4, 2), [(8, 4), (6, 4)]),
        cube(0, double=1, take=2, beaver_r=2, raccoon_r=0),  # ann doubles, beaver, raccoon, pass
        game_footer((0, 0), 0, 4, 0),
        game_header(3, (0, 0)),
        move(1, (4, 2), [(8, 4), (6, 4)]),
        cube(0, double=1, take=2, beaver_r=0),             # ann doubles, bob beavers, ann passes
        game_footer((0, 0), 1, 2, 0),
    ]
    [m] = read_xg(write(tmp_path, recs))
    assert m.errors == () and m.players == ("Zoë", "bob") and m.length == 0
    assert (m.jacoby, m.beaver, m.cube_limit, m.crawford) == (True, True, 64, None)
    acts = m.games[0].actions
    assert [(type(a).__name__, a.side) for a in acts] == [
        ("Roll", 0), ("Double", 1), ("Double", 0), ("Take", 1), ("Roll", 1), ("Resign", 1), ("Win", 0)]
    assert isinstance(acts[2], Double) and (acts[2].kind, acts[2].value) == ("beaver", 4)
    assert [(type(a).__name__, getattr(a, "kind", ""), a.side) for a in m.games[1].actions[1:]] == [
        ("Double", "double", 0), ("Double", "beaver", 1), ("Double", "raccoon", 0), ("Drop", "", 1),
        ("Win", "", 0)]
    assert [type(a).__name__ for a in m.games[2].actions[1:]] == ["Double", "Double", "Drop", "Win"]
    g1, g2, g3 = replay_games(m)
    assert all(g.error is None for g in (g1, g2, g3)), [g.error for g in (g1, g2, g3)]
    assert (g1.winner, g1.points, g1.end) == (0, 4, "resign")
    assert g1.decisions[-1].state.cube == 4 and g1.decisions[-1].state.cube_owner == 0
    assert (g2.winner, g2.points, g2.end) == (0, 4, "drop")  # half the raccooned 8-cube
    assert (g3.winner, g3.points, g3.end) == (1, 2, "drop")  # half the beavered 4-cube


def test_nackgammon_and_setup_positions_are_named_not_misread(tmp_path):
    [m] = read_xg(write(tmp_path, [match_header(variation=1), game_header(1, (0, 0)),
                                   move(0, (3, 1), [(8, 5), (6, 5)])]))
    assert m.variation == "NackGammon"
    [g] = replay_games(m)
    assert g.error is not None and "nackgammon" in str(g.error).lower()
    start = list(STANDARD)
    start[6], start[5] = 4, 1
    [m] = read_xg(write(tmp_path, [match_header(), game_header(1, (0, 0), start=start),
                                   move(0, (3, 1), [(8, 5), (6, 5)]), game_footer((1, 0), 0, 1),
                                   game_header(2, (1, 0)), move(1, (4, 2), [(8, 4), (6, 4)])]))
    assert [g.number for g in m.games] == [2]
    [err] = m.errors
    assert "record 2 (game header)" in str(err) and "set-up position" in str(err)


# ----------------------------------------------------------------------------- .xgp positions
def _board(p1: dict[int, int], p2: dict[int, int], bar1: int = 0, bar2: int = 0) -> list[int]:
    """XG's 26 slots from player 1: ``p1`` player 1's points, ``p2`` player 2's points in
    player 1's numbering, 25 player 1's bar, 0 player 2's (negative)."""
    b = [0] * 26
    for pt, n in p1.items():
        b[pt] = n
    for pt, n in p2.items():
        b[pt] = -n
    b[25], b[0] = bar1, -bar2
    return b


def test_an_xgp_position_file_reads_as_a_position_for_show_eval_hint_and_cube(tmp_path):
    # player 2 to play 42 at 1-2 in a 5-point match, cube 2 owned by player 1; player 2 has a
    # checker on the bar; player 1 has borne off one checker
    board = _board({6: 5, 8: 3, 13: 4, 24: 2}, {1: 2, 12: 5, 17: 3, 19: 4}, bar2=1)
    p = write(tmp_path, [match_header(length=5), game_header(3, (1, 2)), cube(1, double=0, level=1),
                         move(1, (4, 2), [(25, 21), (6, 4)], board=board, level=1)], name="pos.xgp")
    x = xgmod.xgp_xgid(p)
    assert str(x) == "XGID=ab----E-C---eD---c-d----B-:1:1:-1:42:1:2:0:5:10"
    from analyzer.core.ids import parse_position_spec
    spec = parse_position_spec(str(x))
    assert spec.dice == (4, 2) and spec.match is not None and sorted(spec.match.score) == [1, 2]
    assert spec.position.mover_bar == 1 and spec.match.cube == 2
    res = runner.invoke(app, ["show", str(p)])
    assert res.exit_code == 0, res.output
    shown = parse_position_spec(re.search(r"XGID=\S+", res.output).group(0))  # the mover's view
    assert (shown.position, shown.dice, shown.match) == (spec.position, spec.dice, spec.match)
    res = runner.invoke(app, ["eval", str(p), "--ply", "0"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["hint", str(p), "--dice", "42", "--ply", "0"])
    assert res.exit_code == 0 and "bar/21" in res.output.replace("25/21", "bar/21"), res.output
    # a cube decision: the position of a cube record, the side on roll before rolling
    p2 = write(tmp_path, [match_header(length=5), game_header(3, (1, 2)),
                          cube(0, double=0, board=board)], name="cube.xgp")
    assert xgmod.xgp_xgid(p2).dice == "00" and xgmod.xgp_xgid(p2).turn == 1
    res = runner.invoke(app, ["cube", str(p2), "--ply", "0"])
    assert res.exit_code == 0, res.output


def test_an_xgp_file_with_no_position_is_one_clear_error(tmp_path):
    p = write(tmp_path, [match_header(), game_header(1, (0, 0))], name="empty.xgp")
    res = runner.invoke(app, ["show", str(p)])
    assert res.exit_code == 2 and "no position in the XG file" in res.output and str(p) in res.output
    res = runner.invoke(app, ["eval", str(EXAMPLE)])
    assert res.exit_code == 2 and "not a position file" in res.output


# ----------------------------------------------------------------------------- bad records
def _with(record: bytes, offset: int, value: int) -> bytes:
    r = bytearray(record)
    struct.pack_into("<i", r, offset, value)
    return bytes(r)


@pytest.mark.parametrize(("bad", "words"), [
    (move(0, (7, 2), [(8, 1)]), "record 4 (move): dice 7-2"),
    (move(0, (3, 1), [(8, 9)]), "record 4 (move): checker move 7->8"),
    (_with(move(0, (3, 1), [(8, 5)]), 64, 3), "record 4 (move): the player is 3"),
    (cube(0, double=1, take=7), "record 4 (cube): answer 7"),
    (bytes(8) + b"\x09" + bytes(REC - 9), "record 4: record type 9"),
    (game_footer((5, 5), 0, 1), "record 4 (game footer): score 0-0 becomes 5-5"),
])
def test_a_bad_record_names_file_and_record_and_leaves_only_its_game_out(tmp_path, bad, words):
    recs = [match_header(), game_header(1, (0, 0)), move(1, (4, 2), [(8, 4), (6, 4)]), bad,
            game_footer((1, 0), 0, 1), game_header(2, (1, 0)), move(0, (3, 1), [(8, 5), (6, 5)])]
    p = write(tmp_path, recs)
    [m] = read_xg(p)
    [err] = m.errors
    assert isinstance(err, InputError) and str(p) in str(err) and words in str(err), str(err)
    assert "game 1 left out" in str(err) and [g.number for g in m.games] == [2]


def test_a_move_record_with_no_roll_and_no_play_is_no_action(tmp_path):
    recs = [match_header(), game_header(1, (0, 0)), move(0, (3, 1), [(8, 5), (6, 5)]),
            move(1, (0, 0), []), game_footer((1, 0), 0, 1, 101)]
    [m] = read_xg(write(tmp_path, recs))
    assert m.errors == () and [type(a).__name__ for a in m.games[0].actions] == ["Roll", "Resign", "Win"]
    [g] = replay_games(m)
    assert g.error is None and (g.winner, g.points, g.end) == (0, 1, "resign")
    [m] = read_xg(write(tmp_path, [match_header(), game_header(1, (0, 0)), move(1, (0, 3), [])]))
    assert "record 3 (move): dice 0-3 are not a roll" in str(m.errors[0])


def test_records_outside_a_game_and_after_the_match(tmp_path):
    recs = [match_header(), move(0, (3, 1), [(8, 5), (6, 5)]), game_header(1, (0, 0)),
            move(0, (3, 1), [(8, 5), (6, 5)]), match_footer((0, 0)), game_header(2, (0, 0))]
    [m] = read_xg(write(tmp_path, recs))
    msgs = [str(e) for e in m.errors]
    assert len(msgs) == 2 and "record 2 (move): outside a game" in msgs[0]
    assert "record 6: 1 records after the match footer" in msgs[1]
    assert [len(g.actions) for g in m.games] == [1]


# ----------------------------------------------------------------------------- damaged files
def _sample(tmp_path: Path) -> bytes:
    return xg_file([match_header(), game_header(1, (0, 0)), cube(0, double=0),
                    move(0, (3, 1), [(8, 5), (6, 5)]), cube(1, double=1, take=0),
                    game_footer((0, 1), 1, 1, 0), match_footer((0, 1))], thumbnail=b"\xff\xd8JPEG\xff\xd9")


@pytest.mark.parametrize(("damage", "words"), [
    (lambda b: b[:100], "shorter than its 8,232-byte header"),
    (lambda b: b"RGMX" + b[4:], "does not start with 'RGMH'"),
    (lambda b: b[:-1], "damaged XG archive"),
    (lambda b: b[:-40], "damaged XG archive"),
    (lambda b: b[:8232 + 8] + bytes([b[8240] ^ 0xFF]) + b[8241:], "CRC-32 does not match"),
    (lambda b: b[:8] + struct.pack("<I", 99999) + b[12:], "header size 99,999"),
])
def test_a_damaged_file_is_one_clear_error(tmp_path, damage, words):
    p = tmp_path / "bad.xg"
    p.write_bytes(damage(_sample(tmp_path)))
    [m] = read_xg(p)
    assert m.games == () and len(m.errors) == 1
    assert str(p) in str(m.errors[0]) and words in str(m.errors[0]), str(m.errors[0])
    res = runner.invoke(app, ["replay", str(p)])
    assert res.exit_code == 2 and "Traceback" not in res.output and words in res.output


def test_a_file_whose_archive_is_rebuilt_around_a_damaged_zlib_stream(tmp_path):
    good = _sample(tmp_path)
    c = read_container(good, "x")
    game = c.files["temp.xg"]
    blob = bytearray(zlib.compress(game))
    blob[len(blob) // 2] ^= 0x55
    entry = _entry("temp.xg", len(game), len(blob), 0, zlib.crc32(game), True)
    registry = zlib.compress(entry)
    trailer = struct.pack("<Iiiiii", zlib.crc32(bytes(blob) + registry), 1, 1, len(registry),
                          len(blob), 1) + b"\0" * 12
    p = tmp_path / "z.xg"
    p.write_bytes(good[:8240] + bytes(blob) + registry + trailer)
    [m] = read_xg(p)
    [err] = m.errors
    assert "temp.xg" in str(err) and ("inflate" in str(err) or "CRC-32" in str(err)), str(err)


def _mutations(data: bytes, rng: random.Random, n: int) -> list[bytes]:
    out = []
    for i in range(n):
        b = bytearray(data)
        how = i % 4
        if how == 0:  # byte flips anywhere
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] ^= rng.randint(1, 255)
        elif how == 1:  # truncation
            del b[rng.randrange(len(b)):]
        elif how == 2:  # damage inside the zlib data, past the header
            k = rng.randrange(8232, len(b))
            b[k] = (b[k] + rng.randint(1, 255)) % 256
        else:  # a run of bytes overwritten
            k = rng.randrange(len(b))
            b[k:k + 16] = bytes(rng.randrange(256) for _ in range(16))
        out.append(bytes(b))
    return out


_FIELDS = [8, *range(12, 40), 48, 52, 92, 96, 100, 101, 552, 556, *range(64, 112), 188, 189,
           *range(1024, 1056), 2312, 2319]


def _record_mutations(game: bytes, rng: random.Random, n: int) -> list[bytes]:
    """The game file damaged inside its records, then packed again with good CRCs (so that the
    records themselves, not the archive checks, meet the damage)."""
    out = []
    for _ in range(n):
        b = bytearray(game)
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.8:  # a field that is read: type, scores, sides, dice, moves, ...
                k = REC * rng.randrange(len(b) // REC) + rng.choice(_FIELDS)
            else:
                k = rng.randrange(len(b))
            b[k] = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 24, 99, 127, 128, 255, rng.randrange(256)])
        if rng.random() < 0.2:
            del b[rng.randrange(len(b)):]
        out.append(bytes(b))
    return out


def _check_fuzzed(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    ms = list(read_xg(path))
    assert len(ms) == 1
    m = ms[0]
    for e in m.errors:
        assert isinstance(e, InputError) and str(path) in str(e)
    if not m.games:
        assert m.errors
    for g in replay_games(m):  # whatever was read replays or is an InputError, never a crash
        assert g.error is None or isinstance(g.error, InputError)


def _fuzz(tmp_path: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    base = _sample(tmp_path)
    base_path = tmp_path / "base.xg"
    base_path.write_bytes(base)
    [m] = read_xg(base_path)
    assert m.errors == () and [(g.winner, g.end) for g in replay_games(m)] == [(1, "drop")]
    real = EXAMPLE.read_bytes()
    path = tmp_path / "fuzz.xg"
    for data in _mutations(real, rng, n) + _mutations(base, rng, n):
        _check_fuzzed(path, data)
    head = base[:8232] + b"\xff\xd8JPEG\xff\xd9"
    game = read_container(base, "x").files["temp.xg"]
    for damaged in _record_mutations(game, rng, n):
        _check_fuzzed(path, head + archive({"temp.xg": damaged}))


def test_fuzz_seeded_mutations_give_clear_errors(tmp_path):
    _fuzz(tmp_path, 40, seed=28)


@pytest.mark.integration
def test_fuzz_seeded_mutations_many(tmp_path, studio_match):
    _fuzz(tmp_path, 1500, seed=2028)
    rng = random.Random(7)
    path = tmp_path / "big.xg"
    game = b"".join(_match_as_xg(studio_match))
    for damaged in _record_mutations(game, rng, 300):
        _check_fuzzed(path, xg_file([match_header()])[:8232] + archive({"temp.xg": damaged}))


def test_a_huge_stated_size_is_refused_before_inflating(tmp_path):
    good = _sample(tmp_path)
    c = read_container(good, "x")
    game = c.files["temp.xg"]
    blob = zlib.compress(game)
    entry = _entry("temp.xg", 1 << 30, len(blob), 0, zlib.crc32(game), True)
    registry = zlib.compress(entry)
    trailer = struct.pack("<Iiiiii", zlib.crc32(blob + registry), 1, 1, len(registry), len(blob), 1)
    p = tmp_path / "huge.xg"
    p.write_bytes(good[:8240] + blob + registry + trailer + b"\0" * 12)
    [m] = read_xg(p)
    [err] = m.errors
    assert "outside the archive" in str(err) or "size 1,073,741,824" in str(err)


# ----------------------------------------------------------------------------- batch and analyze
def test_batch_walks_xg_files_and_reads_them_like_the_mat(tmp_path, studio_match):
    import polars as pl

    src = tmp_path / "in"
    src.mkdir()
    write(src, _match_as_xg(studio_match), name="boardlord.xg")
    mat = next(STUDIO.glob("BoardLord - Llabba 7pt*.txt"))
    (src / "boardlord.txt").write_bytes(mat.read_bytes())
    res = runner.invoke(app, ["batch", str(src), "--out", str(tmp_path / "out"), "--replay-only",
                              "--jobs", "1"])
    assert res.exit_code == 0, res.output
    rows = pl.scan_parquet(tmp_path / "out" / "decisions" / "*.parquet").collect()
    per_file = {Path(f).suffix: n for f, n in rows.group_by("file").len().iter_rows()}
    assert per_file[".xg"] == per_file[".txt"] == len(list(decisions(studio_match)))


@pytest.mark.integration
def test_analyze_an_xg_file_end_to_end(tmp_path, studio_match):
    p = write(tmp_path, _match_as_xg(studio_match))
    res = runner.invoke(app, ["analyze", str(p), "--ply", "0", "--out", str(tmp_path / "rep"), "--no-confirm"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rep" / "report.html").is_file()


def _repack(header: bytes, blob: bytes, entry: bytes, *, registry_tail: bytes = b"") -> bytes:
    registry = zlib.compress(entry + registry_tail)
    trailer = struct.pack("<Iiiiii", zlib.crc32(blob + registry), 1, 1, len(registry), len(blob), 1)
    return header + blob + registry + trailer + b"\0" * 12


def test_a_registry_padded_after_its_entries_is_read(tmp_path):
    good = _sample(tmp_path)
    game = read_container(good, "x").files["temp.xg"]
    blob = zlib.compress(game)
    entry = _entry("temp.xg", len(game), len(blob), 0, zlib.crc32(game), True)
    p = tmp_path / "padded.xg"
    p.write_bytes(_repack(good[:8240], blob, entry, registry_tail=b"\0" * 100))
    [m] = read_xg(p)
    assert m.errors == () and len(m.games) == 1


def test_a_zip_bomb_stops_at_the_stated_size(tmp_path):
    good = _sample(tmp_path)
    bomb = zlib.compress(b"\0" * (64 << 20), 9)  # 64 MiB of zeros in about 64 KB
    entry = _entry("temp.xg", 2560, len(bomb), 0, 0, True)
    p = tmp_path / "bomb.xg"
    p.write_bytes(_repack(good[:8240], bomb, entry))
    [m] = read_xg(p)
    [err] = m.errors
    assert "'temp.xg' inflates past 2,560 bytes" in str(err)
