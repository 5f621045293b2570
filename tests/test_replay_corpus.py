"""Every real match file of the corpus replays without error; read -> write -> read keeps the
decisions (.mat and .sgf). A broad sample runs by default, the whole corpus with ``-m slow``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from analyzer.analysis.normalise import normalise
from analyzer.analysis.replay import replay_games
from analyzer.formats.mat import read_match_text, read_matches
from analyzer.formats.mat_writer import format_match
from analyzer.formats.sgf import read_sgf
from analyzer.formats.sgf_writer import format_sgf

CORPUS = Path(__file__).parent / "data" / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".mat", ".txt")
               and "gnubg-analysis-export" not in p.parts)
SAMPLE = FILES[::17]


def test_the_corpus_is_complete():
    assert len(FILES) == 1780


def key(records):
    return [(d.game, d.side, d.kind, d.dice, d.normalised, d.position, d.state.cube, d.state.cube_owner)
            for m in records for g in replay_games(m) for d in g.decisions]


def check_file(path: Path) -> None:
    records = list(read_matches(path))
    assert len(records) == 1
    [m] = records
    assert m.errors == (), [str(e) for e in m.errors]
    assert m.games
    for g in replay_games(m):
        assert g.error is None, str(g.error)
        assert g.score_error is None, str(g.score_error)
        assert g.decisions


def check_round_trip(path: Path) -> None:
    [m] = list(read_matches(path))
    want = key([m])
    norm = normalise(m)
    back = read_match_text(format_match(norm))
    assert [r.errors for r in back] == [()]
    assert key(back) == want
    ends = [(g.winner, g.points, g.end) for g in replay_games(m)]
    assert [(g.winner, g.points, g.end) for g in replay_games(back[0])] == ends
    sgf = list(read_sgf(io.StringIO(format_sgf(norm))))
    assert [r.errors for r in sgf] == [()]
    assert key(sgf) == want


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.name)
def test_corpus_sample_replays(path):
    check_file(path)


@pytest.mark.parametrize("path", SAMPLE[::3], ids=lambda p: p.name)
def test_corpus_sample_round_trips(path):
    check_round_trip(path)


@pytest.mark.slow
def test_whole_corpus_replays_and_round_trips():
    failures = []
    for path in FILES:
        try:
            check_file(path)
            check_round_trip(path)
        except AssertionError as e:
            failures.append(f"{path}: {e}")
    assert failures == []
