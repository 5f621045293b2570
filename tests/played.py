"""A match of ``bgreview play`` played to its end for the tests: the person plays the first legal
play of each roll and answers nothing else (no double is ever offered to him in a 1-point match)."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis.play import PlayOptions, PlaySession


def one_point_match(path: Path, *, hint_ply: int = 2, seed: int = 4) -> tuple[PlaySession, int]:
    """A finished standard 1-point match saved at ``path``, and how many plays the person made.
    Asserts on the way that the person is never stopped before his roll (the cube is dead)."""
    s = PlaySession.new(PlayOptions(variant="standard", length=1, level="beginner", seed=seed,
                                    hint_ply=hint_ply), path)
    moves = 0
    for _ in range(400):
        if s.awaiting == "over":
            break
        assert s.awaiting != "roll"  # a live cube stops here: "roll or double"
        if s.awaiting == "engine":
            s.advance()
        elif s.awaiting == "move":
            assert s.dice is not None
            s.handle(s.rules.legal_plays(s.pos, s.dice)[0].text)
            moves += 1
        else:
            s.handle("")
    assert s.awaiting == "over"
    return s, moves
