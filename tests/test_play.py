"""``bgreview play``: the session object driven by scripted input, the typed-play reader, and the real
command line in a pseudo-terminal."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest
from typer.testing import CliRunner

from analyzer.analysis.decisions import hint as std_hint
from analyzer.analysis.play import PlayOptions, PlaySession
from analyzer.analysis.play_input import read_play
from analyzer.analysis.replay import replay_games
from analyzer.cli import app
from analyzer.core.errors import InputError
from analyzer.core.match import MatchState
from analyzer.core.position import Position
from analyzer.eval.met import met_by_name
from analyzer.eval.variants.engine import engine_for
from analyzer.formats.mat import read_matches
from analyzer.rules import find_variant

Step = tuple[int, Position, tuple[int, int], Position]  # side, position before, dice, result


def _trace(session: PlaySession) -> list[Step]:
    """Record every committed play of ``session`` (side, position before it, dice, result)."""
    steps: list[Step] = []
    original = session._commit_play

    def commit(side: int, dice: tuple[int, int], play: object, reply: object) -> None:
        steps.append((side, session.pos, dice, play.result))
        original(side, dice, play, reply)  # type: ignore[arg-type]

    session._commit_play = commit  # type: ignore[method-assign]
    return steps


def _drive(session: PlaySession, *, pick: int = -1, limit: int = 3000) -> list[str]:
    """Play the person's side by typing, as text, one of the legal plays of each roll (``pick``:
    its index in the sorted list); take every double, never double. Returns every message."""
    said: list[str] = list(session.greeting)
    for _ in range(limit):
        if session.awaiting == "over":
            return said
        if session.awaiting == "engine":
            reply = session.advance()
        elif session.awaiting == "move":
            assert session.dice is not None
            plays = session.rules.legal_plays(session.pos, session.dice)
            reply = session.handle(plays[pick if pick < len(plays) else -1].text)
        elif session.awaiting == "answer":
            reply = session.handle("take")
        else:  # roll, next
            reply = session.handle("")
        assert not any(m.startswith("illegal") for m in reply.messages), reply.messages
        said += reply.messages
    raise AssertionError("the match did not end")


def _replayed_moves(path: Path) -> tuple[list[Step], list[tuple[int | None, int, str]], tuple[int, int]]:
    [record] = list(read_matches(str(path)))
    moves: list[Step] = []
    results: list[tuple[int | None, int, str]] = []
    score = (0, 0)
    for g in replay_games(record):
        assert g.error is None and g.score_error is None, (g.error, g.score_error)
        for d in g.decisions:
            if d.kind == "move":
                assert d.dice is not None and d.result is not None
                moves.append((d.side, d.position, d.dice, d.result))
        results.append((g.winner, g.points, g.end))
        s = list(g.state.score)
        if g.winner is not None:
            s[g.winner] += g.points
        score = (s[0], s[1])
    return moves, results, score


@pytest.mark.parametrize("variant,seed", [("standard", 11), ("dutch", 4), ("mahbusa", 5)])
def test_full_match_each_variant_replays_to_the_same_positions(tmp_path: Path, variant: str, seed: int) -> None:
    path = tmp_path / "m.mat"
    s = PlaySession.new(PlayOptions(variant=variant, length=1, level="advanced", seed=seed), path)
    steps = _trace(s)
    said = _drive(s)
    assert s.awaiting == "over" and max(s.state.score) >= 1
    assert any(" the match " in m for m in said)
    moves, results, score = _replayed_moves(path)
    # the file holds every play, from the same positions, with the same dice and results
    assert moves == steps
    assert score == s.state.score
    assert results[-1][0] == (0 if s.state.score[0] >= 1 else 1)
    # and `bgreview replay` reads it without a complaint
    r = CliRunner().invoke(app, ["replay", str(path), "--format", "jsonl"])
    assert r.exit_code == 0, r.output
    assert r.output.count('"kind": "move"') == len(moves)


def test_standard_match_with_cube_actions(tmp_path: Path) -> None:
    """The person doubles at his first chance: the engine's answer is recorded (a take gives the
    engine the cube, a pass the person the point), and the file replays with it."""
    path = tmp_path / "cube.mat"
    s = PlaySession.new(PlayOptions(variant="standard", length=5, level="advanced", seed=2), path)
    for _ in range(200):
        if s.awaiting == "roll":
            break
        if s.awaiting == "engine":
            s.advance()
        else:
            plays = s.rules.legal_plays(s.pos, s.dice)  # type: ignore[arg-type]
            s.handle(plays[0].text)
    assert s.awaiting == "roll"
    hint = s.handle("hint").hint
    assert hint and {r.play.split(" (")[0] for r in hint} >= {"no double", "double, take", "double, pass"}
    reply = s.handle("double")
    text = " ".join(reply.messages)
    assert "you double to 2" in text
    if "takes" in text:
        assert s.state.cube == 2 and s.state.cube_owner == 1  # the taker owns it
        assert s.awaiting != "roll"  # the person rolled at once
    else:
        assert "passes" in text and s.state.score == (1, 0)
    _, results, score = _replayed_moves(path)
    assert score == s.state.score or results[-1][2] == "unfinished"


def _to_move(s: PlaySession, limit: int = 200) -> None:
    for _ in range(limit):
        if s.awaiting == "move":
            return
        if s.awaiting == "engine":
            s.advance()
        elif s.awaiting in ("roll", "next"):
            s.handle("")
        else:
            s.handle("take")
    raise AssertionError("never the person's move")


def test_illegal_input_is_answered_and_the_game_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "i.mat"
    s = PlaySession.new(PlayOptions(variant="standard", length=1, level="beginner", seed=7), path)
    _to_move(s)
    before = path.read_text()
    pos, dice = s.pos, s.dice
    for bad in ("13/x", "25/20", "7/1", "hello", "24/23 24/23 24/23 24/23 24/23"):
        reply = s.handle(bad)
        assert len(reply.messages) == 1 and reply.messages[0].startswith(("illegal", "unknown")), reply.messages
        assert s.awaiting == "move" and s.pos == pos and s.dice == dice
    assert path.read_text() == before  # nothing was written
    assert s.handle("").messages == ["type your play (or hint, undo, resign, quit)"]
    assert "nothing to undo" in s.handle("undo").messages[0]
    plays = s.rules.legal_plays(pos, dice)  # type: ignore[arg-type]
    s.handle(plays[0].text)
    assert s.awaiting != "move" or s.pos != pos
    assert path.read_text() != before


def test_partial_play_undo_and_completion(tmp_path: Path) -> None:
    s = PlaySession.new(PlayOptions(variant="standard", length=1, level="beginner", seed=7), tmp_path / "u.mat")
    _to_move(s)
    assert s.dice is not None
    plays = s.rules.legal_plays(s.pos, s.dice)
    two = next(p for p in plays if len(p.hops) == 2 and p.hops[0].source != p.hops[1].source
               and p.hops[0].dest != p.hops[1].source)
    first = f"{two.hops[0].source}/{two.hops[0].dest}"
    got = read_play(s.rules, s.pos, s.dice, first)
    reply = s.handle(first)
    if got.status == "partial":
        assert s.partial == [first] and "so far" in s.prompt()
        assert s.handle("undo").messages == [f"taken back: {first}"]
        assert s.partial == [] and s.awaiting == "move"
        s.handle(first)
        reply = s.handle(f"{two.hops[1].source}/{two.hops[1].dest}")
        assert any(two.text in m or "you play" in m for m in reply.messages)
    else:
        assert got.status == "complete" and got.completed and "completed from" in reply.messages[0]


def test_reader_reasons() -> None:
    std, dutch, mahbusa = find_variant("standard"), find_variant("dutch"), find_variant("mahbusa")
    start = Position.start()
    cases = [
        (std, start, (5, 2), "24/17", "point 17 is blocked (O holds it with 3 checkers)"),
        (std, Position.from_notation("P 24:2 13:5 8:3 6:4 | O 1:2 12:5 17:3 19:5 | bar P1"), (3, 1), "8/5 6/5",
         "you have a checker on the bar: it must enter before any other checker moves"),
        (std, Position.from_notation("P 24:1 8:14 | O 17:2 7:2 23:2 12:9"), (6, 1), "24/18",
         "you must use both dice when you can"),
        (std, Position.from_notation("P 20:1 1:14 | O 21:9 17:2 13:2 5:2"), (6, 1), "20/19",
         "only one die can be played, and then it must be the larger one (6) when it can"),
        (std, Position.from_notation("P 6:3 5:3 4:3 9:1 | O 19:15"), (6, 3), "6/off",
         "you may bear off only when all your checkers are in your home board"),
        (dutch, Position.from_notation("P 20:1 | O 16:1 | res P14 O14 | locked | olocked", "dutch"), (4, 1),
         "20/16", "Dutch rule: you may not hit before one of your checkers has reached your home board, "
         "so O's blot on 16 blocks you"),
        (mahbusa, Position.from_notation("P 24:14 | O 10:1+p 1:14", "mahbusa"), (3, 1), "10/7",
         "your checker on 10 is pinned: it cannot move until O's checkers leave the point"),
        (std, start, (3, 1), "7/4", "you have no checker on 7"),
    ]
    for rules, pos, dice, text, why in cases:
        got = read_play(rules, pos, dice, text)
        assert (got.status, got.message) == ("illegal", why), (text, got)
    # the same plays typed whole, partly, merged or in pieces
    assert read_play(std, start, (3, 1), "6/5 8/5").play.text == "8/5 6/5"  # type: ignore[union-attr]
    assert read_play(std, start, (6, 5), "24/18 18/13").play.text == "24/13"  # type: ignore[union-attr]
    got = read_play(std, Position.from_notation("P 6:3 5:3 4:3 9:1 | O 19:15"), (6, 3), "9/6")
    assert got.status == "complete" and got.completed and got.play is not None and got.play.text == "9/off"
    assert read_play(std, start, (6, 5), "8/2").status == "partial"  # then 13/8, 8/3 or 6/1...
    assert read_play(dutch, dutch.start(), (4, 2), "bar/21").status == "partial"
    assert read_play(dutch, dutch.start(), (4, 2), "in/23 in/21").play.text == "bar/23 bar/21"  # type: ignore[union-attr]


def test_quit_and_resume_continue_the_same_match(tmp_path: Path) -> None:
    path = tmp_path / "q.mat"
    s = PlaySession.new(PlayOptions(variant="mahbusa", length=3, level="intermediate", seed=-9), path)
    for _ in range(12):
        _to_move(s)
        plays = s.rules.legal_plays(s.pos, s.dice)  # type: ignore[arg-type]
        s.handle(plays[0].text)
    _to_move(s)
    pos, dice, state, game = s.pos, s.dice, s.state, s.game_no
    assert "match saved" in s.handle("quit").messages[0] and s.awaiting == "over"
    r = PlaySession.resume(path)
    assert r.options.level == "intermediate" and r.options.seed == -9
    _to_move(r)
    assert (r.pos, r.dice, r.state, r.game_no) == (pos, dice, state, game)  # the same dice: they are seeded
    steps = _trace(r)
    _drive(r)
    moves, _, score = _replayed_moves(path)
    assert moves[-len(steps):] == steps and score == r.state.score and max(score) >= 3


def test_ctrl_c_while_the_engine_thinks_stops_after_its_move(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C pressed in the middle of the engine's step (CI saw it surface from numba code as a
    SystemError) is held until the step is done and saved: the usual interruption message, exit 130,
    and the resumed file is where the finished step left the match."""
    path = tmp_path / "i.mat"
    original = PlaySession.advance
    seen: list[tuple[object, ...]] = []

    def advance(self: PlaySession) -> object:
        os.kill(os.getpid(), signal.SIGINT)  # pressed while the engine works
        reply = original(self)
        seen.append((self.pos, self.dice, self.state, self.awaiting))
        return reply

    monkeypatch.setattr(PlaySession, "advance", advance)
    r = CliRunner().invoke(app, ["play", "--length", "3", "--level", "beginner", "--seed", "0",
                                 "--save", str(path), "--no-review"], input="")
    assert r.exit_code == 130, r.output
    assert "interrupted: the match so far is in" in r.output and len(seen) == 1
    resumed = PlaySession.resume(path)
    assert (resumed.pos, resumed.dice, resumed.state, resumed.awaiting) == seen[0]


def test_resume_after_a_double_the_engine_had_not_answered(tmp_path: Path) -> None:
    """A file that ends with the person's double (the program stopped before the engine's answer
    was written): the resumed session answers it first."""
    from dataclasses import replace

    from analyzer.formats.mat_writer import format_match
    from analyzer.formats.records import Double

    s = PlaySession.new(PlayOptions(variant="standard", length=5, level="advanced", seed=2), tmp_path / "a.mat")
    for _ in range(200):
        if s.awaiting == "roll":
            break
        if s.awaiting == "engine":
            s.advance()
        else:
            s.handle(s.rules.legal_plays(s.pos, s.dice)[0].text)  # type: ignore[arg-type]
    s.handle("double")
    rec = s.record()
    game = rec.games[-1]
    cut = max(i for i, a in enumerate(game.actions) if isinstance(a, Double)) + 1
    path = tmp_path / "cut.mat"
    path.write_text(format_match(replace(rec, games=(*rec.games[:-1], replace(game, actions=game.actions[:cut])))))
    r = PlaySession.resume(path)
    assert r.awaiting == "engine"
    reply = r.advance()
    assert any("you double to 2" in m for m in reply.messages)
    again = list(read_matches(str(path)))[0].games[-1].actions
    assert [a.text for a in again[:cut]] == [a.text for a in game.actions[:cut]]
    assert [type(a).__name__ for a in again[cut - 1:cut + 1]] in (["Double", "Take"], ["Double", "Drop"])


def test_resignation(tmp_path: Path) -> None:
    path = tmp_path / "r.mat"
    s = PlaySession.new(PlayOptions(variant="dutch", length=3, level="advanced", seed=6), path)
    _to_move(s)
    assert s.handle("resign backgammon").messages == ["dutch has no backgammon"]
    assert "resign what?" in s.handle("resign everything").messages[0]
    reply = s.handle("resign")  # a single game early on: the engine expects less, and accepts
    assert reply.messages[0] == "you resign single: bgreview-advanced accepts"
    assert s.state.score == (0, 1) and s.awaiting == "next"
    [record] = list(read_matches(str(path)))
    [game] = list(replay_games(record))
    assert (game.end, game.winner, game.points, game.error) == ("resign", 1, 1, None)


def test_resume_refuses_a_foreign_file(tmp_path: Path) -> None:
    path = tmp_path / "other.mat"
    path.write_text(" 1 point match\n\n Game 1\n a : 0                        b : 0\n  1) 31: 8/5 6/5\n")
    with pytest.raises(ValueError, match="not a match saved by bgreview play"):
        PlaySession.resume(path)
    r = CliRunner().invoke(app, ["play", "--resume", str(path)])
    assert r.exit_code == 2 and "not a match saved by bgreview play" in r.output


def test_manual_dice(tmp_path: Path) -> None:
    path = tmp_path / "d.mat"
    s = PlaySession.new(PlayOptions(variant="dutch", length=1, level="beginner", manual_dice=True), path)
    assert s.awaiting == "dice" and "opening roll" in s.prompt()
    assert "dice are two numbers" in s.handle("7x").messages[0]
    assert "roll the opening again" in s.handle("33").messages[0]
    s.handle("52")  # the person opens and rolls again (Dutch)
    assert s.awaiting == "dice" and "dice for you" in s.prompt()
    s.handle("6-4")
    assert s.awaiting == "move" and s.dice == (6, 4)
    s.handle("bar/19 bar/21")
    assert s.awaiting == "engine"
    s.advance()
    assert s.awaiting == "dice" and "bgreview" in s.prompt()
    s.handle("31")
    s.advance()
    [record] = list(read_matches(str(path)))
    acts = record.games[0].actions
    assert [a.dice for a in acts] == [(6, 4), (3, 1)]  # type: ignore[union-attr]


@pytest.mark.parametrize("variant", ["standard", "dutch", "mahbusa"])
def test_world_class_plays_hints_best_play(tmp_path: Path, variant: str) -> None:
    """The world-class level plays what ``hint`` ranks first at 2-ply: for standard the ranking of
    ``bgreview position`` (cubeful, at the score), for the variants that of ``bgreview hint``."""
    s = PlaySession.new(PlayOptions(variant=variant, length=3, level="world-class", seed=21), tmp_path / "w.mat")
    steps = _trace(s)
    checked = 0
    for _ in range(60):
        if s.awaiting == "over" or checked >= 3:
            break
        if s.awaiting == "engine":
            n = len(steps)
            state = s.state
            s.advance()
            for side, pos, dice, result in steps[n:]:
                if side != 1 or len(s.rules.legal_plays(pos, dice)) < 2:
                    continue
                if variant == "standard":
                    best = std_hint(s.engine.std, pos, dice, state, 1, ply=2,
                                    met=None if state.is_money else met_by_name())[0].result
                else:
                    best = engine_for(variant).rank_plays(pos, dice, 2)[0].result
                assert result == best
                checked += 1
        elif s.awaiting == "move":
            rows = s.hint()
            assert rows[0].ply == 2 and rows[0].diff == 0.0
            s.handle(s.rules.legal_plays(s.pos, s.dice)[0].text)  # type: ignore[arg-type]
        else:
            s.handle("take" if s.awaiting == "answer" else "")
    assert checked >= 3


def test_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="money play needs the doubling cube"):
        PlayOptions(variant="dutch", length=0).checked()
    with pytest.raises(ValueError, match="unknown level"):
        PlayOptions(level="grandmaster").checked()
    r = CliRunner().invoke(app, ["play", "--variant", "mahbusa", "--money", "--save", str(tmp_path / "x.mat")])
    assert r.exit_code == 2 and "--money is for standard backgammon" in r.output
    assert not (tmp_path / "x.mat").exists()


# ---------------------------------------------------------------------- the real command line
def _spawn(args: list[str], cwd: Path) -> Any:
    env = {**os.environ, "COLUMNS": "80", "LINES": "40", "TERM": "dumb", "NO_COLOR": "1",
           "PYTHONFAULTHANDLER": "1"}  # SIGABRT makes a stuck child print its stacks (_expect_or_dump)
    return pexpect.spawn(sys.executable, ["-m", "analyzer", "play", *args], cwd=str(cwd), env=env,
                         encoding="utf-8", timeout=60, dimensions=(40, 80))


def _expect_or_dump(c: Any, pattern: str) -> None:
    """``c.expect(pattern)``; on a timeout, the child's Python stacks (faulthandler) in the failure."""
    try:
        c.expect(pattern)
    except pexpect.TIMEOUT:
        c.kill(signal.SIGABRT)
        with contextlib.suppress(pexpect.ExceptionPexpect):
            c.expect(pexpect.EOF, timeout=10)
        raise AssertionError(f"no {pattern!r}; the child printed:\n{c.before}") from None


def _current(path: Path, tmp: Path) -> PlaySession:
    """The match as the file on disk has it (a resumed copy: same seed, so the same dice)."""
    copy = tmp / "peek.mat"
    shutil.copy(path, copy)
    return PlaySession.resume(copy)


@pytest.mark.integration
def test_cli_in_a_pseudo_terminal(tmp_path: Path) -> None:
    path = tmp_path / "pty.mat"
    c = _spawn(["--variant", "mahbusa", "--length", "1", "--level", "beginner", "--seed", "5",
                "--save", str(path), "--no-review"], tmp_path)
    c.expect("match file: ")
    idx = c.expect([r"your play for (\d)(\d)", r"Enter starts"])
    assert idx == 0
    c.sendline("hint")
    c.expect("hint: cubeless points of the game")
    c.expect(r"your play for")
    c.sendline("24/off")
    c.expect("illegal: ")
    c.expect(r"your play for")
    peek = _current(path, tmp_path)
    assert peek.awaiting == "move" and peek.dice is not None
    play = peek.rules.legal_plays(peek.pos, peek.dice)[0]
    c.sendline(play.text)
    c.expect(r"your play for (\d)(\d)")
    c.sendline("quit")
    c.expect("match saved to")
    c.expect(pexpect_eof())
    c.close()
    assert c.exitstatus == 0
    [record] = list(read_matches(str(path)))
    assert record.games[0].actions[0].side in (0, 1)
    assert any(a.side == 0 and a.play for a in record.games[0].actions)  # type: ignore[union-attr]


def pexpect_eof() -> Any:
    return pexpect.EOF


@pytest.mark.integration
def test_cli_full_match_in_a_pseudo_terminal_then_resume(tmp_path: Path) -> None:
    """A whole 1-point Dutch match typed into the real command line (the plays read off a resumed
    copy of the saved file), interrupted once with Ctrl-C and resumed; then the review."""
    path = tmp_path / "full.mat"
    args = ["--variant", "dutch", "--length", "1", "--level", "advanced", "--seed", "8", "--save", str(path)]
    c = _spawn([*args, "--no-review"], tmp_path)
    moves = 0
    interrupted = False
    for _ in range(400):
        i = c.expect([r"your play for \d\d", "Review the match now", pexpect_eof(), "wins the match",
                      "win the match"])
        if i != 0:
            break
        peek = _current(path, tmp_path)
        plays = peek.rules.legal_plays(peek.pos, peek.dice)  # type: ignore[arg-type]
        c.sendline(plays[-1].text)
        moves += 1
        if moves == 5 and not interrupted:
            # Ctrl-C at the next prompt (one pressed while the engine works: the CliRunner test above). Sent
            # right after the typed line, it hung this test twice in full CI runs (the child printed nothing
            # more), which no run of this test alone reproduced
            c.expect([r"your play for \d\d", r"\(Enter rolls\)"])
            c.sendintr()
            _expect_or_dump(c, "interrupted: the match so far is in")
            c.expect(pexpect_eof())
            c = _spawn(["--resume", str(path), "--no-review"], tmp_path)
            c.expect("resumed")
            interrupted = True
    assert interrupted and moves > 5
    c.expect(pexpect_eof())
    [record] = list(read_matches(str(path)))
    [game] = list(replay_games(record))
    assert game.error is None and game.end == "bearoff"
    r = CliRunner().invoke(app, ["analyze", str(path), "--ply", "0", "--out", str(tmp_path / "rep"), "--no-confirm"])
    assert r.exit_code == 0, r.output


def test_engine_state_is_consistent_after_resume_of_a_finished_game(tmp_path: Path) -> None:
    """A file saved right after a game ended resumes into the next game (a 3-point match)."""
    path = tmp_path / "g.mat"
    s = PlaySession.new(PlayOptions(variant="mahbusa", length=3, level="beginner", seed=1), path)
    for _ in range(2000):
        if s.awaiting == "next":
            break
        if s.awaiting == "engine":
            s.advance()
        elif s.awaiting == "move":
            s.handle(s.rules.legal_plays(s.pos, s.dice)[0].text)  # type: ignore[arg-type]
        else:
            s.handle("")
    assert s.awaiting == "next"
    r = PlaySession.resume(path)
    assert r.game_no == 2 and r.state == s.state and any("Game 2" in m for m in r.greeting)


def test_money_session_state(tmp_path: Path) -> None:
    s = PlaySession.new(PlayOptions(variant="standard", length=0, level="beginner", seed=3), tmp_path / "$.mat")
    assert s.state == MatchState(length=0)
    assert "(money)" in s.greeting[0]


@pytest.mark.parametrize("variant", ["standard", "mahbusa"])
def test_resume_refuses_a_save_whose_seed_line_was_changed(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "s.mat"
    s = PlaySession.new(PlayOptions(variant=variant, length=3, level="intermediate", seed=5), path)
    for _ in range(6):
        _to_move(s)
        s.handle(s.rules.legal_plays(s.pos, s.dice)[0].text)  # type: ignore[arg-type]
    s.handle("quit")
    assert PlaySession.resume(path).options.seed == 5  # as saved: accepted
    text = path.read_text()
    assert "seed=5 " in text
    path.write_text(text.replace("seed=5 ", "seed=6 "))
    with pytest.raises(InputError, match="is not the roll seed 6 gives .*: the seed line or the rolls of this save"):
        PlaySession.resume(path)
    res = CliRunner().invoke(app, ["play", "--resume", str(path)])
    assert res.exit_code == 2 and "the seed line or the rolls of this save were changed" in res.stderr
