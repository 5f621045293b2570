"""Damaged copies of real match files never crash the readers, the replay or the writers: every
problem comes out as an InputError on the record or the game."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from analyzer.analysis.replay import decision_ids, normalise, replay_games
from analyzer.core.errors import InputError
from analyzer.formats.mat import read_match_text, read_matches
from analyzer.formats.mat_writer import format_match
from analyzer.formats.sgf import read_sgf
from analyzer.formats.sgf_writer import format_sgf

CORPUS = Path(__file__).parent / "data" / "corpus"
FILES = [*sorted((CORPUS / "bglab" / "backgammon-studio").glob("*.txt"))[::15],
         *sorted((CORPUS / "bglab" / "galaxy").glob("*.txt"))[::300],
         *sorted((CORPUS / "gnubgparser").glob("*.mat")), *sorted((CORPUS / "gnubgparser").glob("*.sgf"))]
ALPHABET = b" \n0123456789/*():;[]\"abcdoffbarWinsDoublesTakesDrops?\t\r\x00\xff"


def damage(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op, i = rng.random(), rng.randrange(len(buf))
        if op < 0.3:
            del buf[i:i + rng.randint(1, 20)]
        elif op < 0.6:
            buf[i:i] = bytes(rng.choice(ALPHABET) for _ in range(rng.randint(1, 5)))
        elif op < 0.8:
            j = rng.randrange(len(buf))
            buf[i], buf[j] = buf[j], buf[i]
        else:
            buf[i:i] = buf[rng.randrange(len(buf)):][:rng.randint(1, 200)]
    return bytes(buf)


def exercise(records) -> int:
    problems = 0
    for m in records:
        problems += len(m.errors)
        for g in replay_games(m):
            problems += g.error is not None
            for d in g.decisions:
                decision_ids(d)
        norm = normalise(m)
        format_match(norm)
        format_sgf(norm)
    return problems


@pytest.mark.parametrize("seed", range(6))
def test_damaged_files_give_input_errors_only(seed):
    rng = random.Random(seed)
    for _ in range(25):
        path = rng.choice(FILES)
        data = damage(path.read_bytes(), rng)
        reader = read_sgf if path.suffix == ".sgf" else read_matches
        exercise(reader(io.BytesIO(data), name=path.name))


@pytest.mark.parametrize("text", [" 99999 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n",
                                  " 0 point match\n Game 1\n a : 99999999   b : 0\n  1) 31: 8/5 6/5\n",
                                  " 7 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5  Doubles => 99\n"])
def test_out_of_range_numbers_are_errors(text):
    [m] = read_match_text(text)
    [g] = replay_games(m)
    assert isinstance(g.error, InputError)
