"""Plays written as gnubg and eXtreme Gammon write them (issue 27): ``8/2*(2)``, ``13/7 13/10(2)``,
Dutch entries ``bar/..`` everywhere."""

from __future__ import annotations

import pytest
from test_gnubg_moves import CASES, pos_from_json

from analyzer.core.play import Hop, format_play
from analyzer.rules import find_variant


def check_texts(step: int) -> None:
    """Every ``step``-th case of the fixture: gnubg's own text for each resulting position."""
    rules = find_variant("standard")
    checked, bad = 0, []
    for c in CASES[::step]:
        pos = pos_from_json(c["pos"])
        ours = {p.result: p.text for p in rules.legal_plays(pos, (c["dice"][0], c["dice"][1]))}
        for text, result in zip(c["plays"], c["results"], strict=False):
            mine = ours[pos_from_json(result)]
            checked += 1
            if mine != text:
                bad.append((c["id"], c["dice"], text, mine))
    assert checked > 70_000 // step
    assert bad == []


def test_plays_are_written_as_gnubg_writes_them() -> None:
    check_texts(5)  # about 15,000 plays of 1,042 cases (2,865 of all 75,140 differed before the fix)


@pytest.mark.integration
def test_every_play_of_the_gnubg_fixture_is_written_as_gnubg_writes_it() -> None:
    check_texts(1)  # 75,140 plays of 5,208 (position, roll) cases


def test_hit_and_quiet_checker_on_one_path_are_counted() -> None:
    assert format_play([Hop(9, 3), Hop(9, 3), Hop(8, 2), Hop(8, 2, 1)]) == "9/3(2) 8/2*(2)"
    assert format_play([Hop(13, 9, 1), Hop(9, 5), Hop(13, 9), Hop(9, 5)]) == "13/9*/5(2)"
    # the plain .mat form (one hop per die) keeps them apart
    assert format_play([Hop(8, 2), Hop(8, 2, 1)], merge=False) == "8/2 8/2*"


def test_dutch_entries_are_written_as_the_records_write_them() -> None:
    rules = find_variant("dutch")
    texts = sorted(p.text for p in rules.legal_plays(rules.start(), (4, 2)))
    assert texts == ["bar/19", "bar/23 bar/21"]
