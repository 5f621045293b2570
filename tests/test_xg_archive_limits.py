"""An .xg archive of many large entries, each under the per-entry cap, is refused before anything is
inflated (issue 55, defect 7), and an .xg error names the user's file, never the archive's ``temp.xg``
as if it were a file of its own (issue 52)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import analyzer.formats.xg as xg
from analyzer.cli import app
from analyzer.formats.xg import read_container, read_xg

EXAMPLE = Path(__file__).parent / "data" / "xg" / "example.xg"


def _entry(name: str, osize: int, csize: int, start: int, crc: int) -> bytes:
    e = bytearray(532)
    raw = name.encode("latin-1")
    e[0] = len(raw)
    e[1:1 + len(raw)] = raw
    struct.pack_into("<iiiIBB", e, 512, osize, csize, start, crc, 0, 6)
    return bytes(e)


def _many(entries: list[tuple[str, bytes]]) -> bytes:
    """An .xg file (the example's header) whose archive holds ``entries``, names repeated as given."""
    head = EXAMPLE.read_bytes()[:8232]
    data, registry = b"", b""
    for name, content in entries:
        blob = zlib.compress(content, 9)
        registry += _entry(name, len(content), len(blob), len(data), zlib.crc32(content))
        data += blob
    packed = zlib.compress(registry)
    crc = zlib.crc32(data + packed)
    trailer = struct.pack("<Iiiiii", crc, len(entries), 1, len(packed), len(data), 1)
    return head + data + packed + trailer + bytes(12)


def test_total_inflated_size_is_capped_before_inflating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 64 entries of 64 KiB each, each under the per-entry cap: 4 MiB in all against a lowered 1 MiB cap
    game = bytes(2560) * 25
    path = tmp_path / "bomb.xg"
    path.write_bytes(_many([("temp.xg", game)] * 64))
    monkeypatch.setattr(xg, "MAX_TOTAL", 1 << 20)
    inflated: list[int] = []
    real = xg._inflate
    monkeypatch.setattr(xg, "_inflate", lambda blob, size, *a: inflated.append(size) or real(blob, size, *a))
    [m] = read_xg(path)
    assert not m.games and len(m.errors) == 1
    assert f"inflate to {64 * len(game):,} bytes in all, more than the 1 MiB" in str(m.errors[0])
    assert str(m.errors[0]).startswith(f"{path}: ")
    assert inflated == [64 * 532 + 65536]  # only the registry was inflated


def test_only_the_game_file_is_inflated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the rollouts file, large, is neither inflated nor counted: the game file alone is read
    game = EXAMPLE.read_bytes()
    c = read_container(game, "x")
    path = tmp_path / "m.xg"
    path.write_bytes(_many([("temp.xgr", bytes(900_000)), *c.files.items()]))
    monkeypatch.setattr(xg, "MAX_TOTAL", 100_000)
    [m] = read_xg(path)
    assert "in all" not in str(m.errors[0]) and "not a game file" in str(m.errors[0])
    with pytest.raises(ValueError, match="in all, more than"):
        read_container(path.read_bytes(), "x")  # all of it, as asked: refused


def test_xg_errors_name_the_users_file_not_temp_xg(tmp_path: Path) -> None:
    user = tmp_path / "my match.xg"
    user.write_bytes(EXAMPLE.read_bytes())
    res = CliRunner().invoke(app, ["analyze", str(user), "--ply", "0"])
    assert res.exit_code == 2, res.output
    line = res.stderr.strip()
    assert line.startswith(f"error: {user}: "), line
    assert "temp.xg holds" not in line and "the archived file 'temp.xg' in it" in line, line


def test_many_bad_records_end_with_a_count_of_the_rest(tmp_path: Path) -> None:
    from test_formats_xg import match_header, xg_file

    bad = bytearray(2560)
    bad[8] = 9  # an unknown record type: one error each
    path = tmp_path / "noisy.xg"
    path.write_bytes(xg_file([match_header(), *[bytes(bad)] * (xg.MAX_ERRORS + 37)]))
    [m] = read_xg(path)
    assert len(m.errors) == xg.MAX_ERRORS + 1
    assert str(m.errors[-1]) == f"{path}: ... and 37 more errors (the first {xg.MAX_ERRORS} are shown)"
