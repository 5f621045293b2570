"""Issue 55, defects 14 and 15, as a property: any match that reads can be written in every format (.mat,
SGF) and read back to the same decisions, or the writer refuses it with a reason (a .mat file cannot hold a
control character in a name). Names, events and dates are drawn by Hypothesis, hostile ones included."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from analyzer.analysis.normalise import normalised_games
from analyzer.analysis.replay import replay_games
from analyzer.core.errors import InputError
from analyzer.formats import read_any
from analyzer.formats.mat import read_match_text
from analyzer.formats.mat_writer import WriteRefused, format_match
from analyzer.formats.records import MatchRecord
from analyzer.formats.sgf import read_sgf
from analyzer.formats.sgf_writer import format_sgf

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"

TINY = """ 3 point match

 Game 1
 {a} : 0                        {b} : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 {a} : 1                        {b} : 0
  1)                             52: 13/8 13/11
  2) 43: 24/20 13/10             61: 13/7 8/7
  3)  Doubles => 2                Takes
  4) 21: 13/11 6/5               54: 24/20 13/8
"""

_REFUSED_IN_MAT = {chr(c) for c in (*range(0x00, 0x09), *range(0x0A, 0x20))}


def decisions(record: MatchRecord) -> list[tuple[Any, ...]]:
    """What a review is made of: every decision of every game that replays (who, what, where, when). A cube
    limit of 64 or more is no limit in play (a Galaxy file's ``CubeLimit 1024``; gnubg's SGF has none)."""
    rows = []
    for g in replay_games(record):
        rows.append(("game", g.error is None))
        for d in g.decisions:
            state = d.state if (d.state.cube_limit or 0) < 64 else replace(d.state, cube_limit=None)
            rows.append((d.game, d.player, d.side, d.kind, d.dice, d.normalised, d.position, d.on_roll, state))
    return rows


def normalised(record: MatchRecord) -> MatchRecord:
    games = tuple(g for g in normalised_games(record) if not isinstance(g, InputError))
    return replace(record, games=games)


def _one(records: list[MatchRecord]) -> MatchRecord:
    assert len(records) == 1, [r.errors for r in records]
    assert not records[0].errors, records[0].errors
    return records[0]


def check_round_trip(record: MatchRecord) -> None:
    """``record`` (normalised) written as .mat and as SGF reads back to its decisions, or the .mat writer
    refuses it for a control character in a name, tag or comment."""
    rec = normalised(record)
    if not rec.games:  # nothing replays: nothing is written (convert says so)
        return
    want = decisions(rec)
    try:
        mat = format_match(rec)
    except WriteRefused as e:
        texts = [*rec.players, *(v for _, v in rec.tags), *rec.comments, *(n for g in rec.games for n in g.names)]
        assert any(set(t) & _REFUSED_IN_MAT for t in texts), e
    else:
        assert decisions(_one(list(read_match_text(mat)))) == want, mat
    sgf = format_sgf(rec)
    assert decisions(_one(list(read_sgf(io.StringIO(sgf))))) == want, sgf


texts = st.text(st.characters(blacklist_categories=["Cs"]), max_size=90)
plain = st.text(st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]), min_size=1, max_size=90)


def _tiny(a: str, b: str) -> MatchRecord:
    return _one(list(read_match_text(TINY.format(a=a, b=b))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p1=texts, p2=texts, event=texts, date=texts)
@example(p1="evil\n\n 1 point match\n\n Game 1\n x : 0   y : 0\n  1) 31: 8/5 6/5", p2="bob", event="", date="")
@example(p1="a" * 60, p2="bob", event="", date="")
@example(p1="ann : 3 x", p2="b : 1", event="e]v\\", date="2024]PB[evil")
@example(p1="", p2="", event="", date="")
def test_any_names_round_trip(p1: str, p2: str, event: str, date: str) -> None:
    """Names, event and date as the SGF and XG readers give them (anything), through both writers."""
    base = _tiny("ann", "bob")
    tags = tuple((k, {"player 1": p1, "player 2": p2}.get(k.lower(), v)) for k, v in base.tags)
    tags += (("Event", event), ("EventDate", date))
    check_round_trip(replace(base, players=(p1, p2), tags=tags, event=event, date=date))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=plain, b=plain)
@example(a="a" * 56, b="bob")
@example(a="BoardLord with a very long name indeed, sixty characters!!", b="x")
@example(a="ann : 3 x", b="y")
def test_names_read_from_a_score_line_round_trip(a: str, b: str) -> None:
    """A .mat file whose score lines carry the names (no Player tags): whatever of it reads, writes back."""
    try:
        records = list(read_match_text(TINY.format(a=a, b=b)))
    except InputError:
        return
    if len(records) != 1 or records[0].errors or not records[0].games:
        return
    check_round_trip(records[0])


def test_the_examples_of_the_issue() -> None:
    """The three failures of defect 14 and the one of defect 15, by their outcome."""
    long = _tiny("a" * 60, "bob")
    assert decisions(_one(list(read_match_text(format_match(normalised(long)))))) == decisions(normalised(long))
    with pytest.raises(WriteRefused, match="line break"):
        format_match(normalised(replace(_tiny("ann", "bob"), players=("evil\n\n 1 point match", "bob"), tags=())))
    scored = replace(_tiny("ann", "bob"), players=("ann : 3 x", "bob"), tags=())
    back = _one(list(read_match_text(format_match(normalised(scored)))))
    assert back.players == ("ann : 3 x", "bob") and [g.score for g in back.games] == [(0, 0), (1, 0)]
    dated = replace(_tiny("ann", "bob"), date="2024]PB[evil")
    sgf = format_sgf(normalised(dated))
    assert "DT[2024\\]PB[evil]" in sgf
    assert _one(list(read_sgf(io.StringIO(sgf)))).players == ("ann", "bob")


def _corpus() -> list[Path]:
    return [*sorted((CORPUS / "bglab" / "galaxy").glob("*.txt"))[::40],
            *sorted((CORPUS / "bglab" / "backgammon-studio").glob("*.txt"))[::6],
            *sorted((CORPUS / "gnubgparser").glob("*.mat")), *sorted((CORPUS / "gnubgparser").glob("*.sgf"))]


@pytest.mark.integration
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_corpus_matches_round_trip(path: Path) -> None:
    for record in read_any(str(path)):
        check_round_trip(record)


@pytest.mark.integration
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p1=texts, p2=texts, event=texts, date=texts)
def test_any_names_round_trip_many(p1: str, p2: str, event: str, date: str) -> None:
    test_any_names_round_trip.hypothesis.inner_test(p1, p2, event, date)  # type: ignore[attr-defined]
