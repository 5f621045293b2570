"""Random legal play from the start, for every variant.

* Hypothesis properties of the positions reached and of the legal plays found there (checkers
  conserved, pins well formed, the Dutch hitting lock, pip arithmetic, flip, no duplicate
  results, canonical text resolving back to the same play).
* A smoke test: random games end in a legal final state within a bounded number of turns
  (~300 games per variant here; 20,000 per variant under ``-m slow``).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.core.play import BAR, OFF, RESERVE, Hop
from analyzer.core.position import Position
from analyzer.rules import LegalPlay, Outcome, Variant, find_variant

VARIANT_NAMES = ["standard", "dutch", "mahbusa"]
MAX_PLIES = 3000
KINDS = {
    "standard": {"single", "gammon", "backgammon"},
    "dutch": {"single", "mars"},
    "mahbusa": {"single", "mars", "mother", "draw"},
}


def roll(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def opening_roll(rules: Variant, rng: random.Random) -> tuple[int, int]:
    """Dutch and Mahbusa openers re-roll both dice (doubles allowed); a standard opening roll is
    the two single dice, so never a double."""
    while True:
        dice = roll(rng)
        if rules.opener_rerolls or dice[0] != dice[1]:
            return dice


def random_step(rules: Variant, pos: Position, dice: tuple[int, int], rng: random.Random) -> Position:
    """A random legal result, still seen from the side that moved."""
    boards = rules.legal_results(pos, dice)
    return Position(boards[rng.randrange(len(boards))].tobytes(), rules.name)


def random_game(rules: Variant, rng: random.Random) -> tuple[Outcome | None, int, Position]:
    """Play one random game; returns the outcome (None if unfinished), the plies and the last
    position (seen from the side that made the last play)."""
    pos = rules.start()
    dice = opening_roll(rules, rng)
    for ply in range(1, MAX_PLIES + 1):
        pos = random_step(rules, pos, dice, rng)
        result = rules.outcome(pos)
        if result is not None:
            return result, ply, pos
        pos = pos.flip()
        dice = roll(rng)
    return None, MAX_PLIES, pos


# ---------------------------------------------------------------------------------------- invariants


def assert_conserved(pos: Position) -> None:
    assert sum(pos.mover) + pos.mover_bar + pos.mover_reserve + pos.mover_off == 15
    assert sum(pos.opponent) + pos.opponent_bar + pos.opponent_reserve + pos.opponent_off == 15


def assert_pins_well_formed(pos: Position) -> None:
    if pos.variant != "mahbusa":
        assert pos.pinned_mover == () and pos.pinned_opponent == ()
    assert not set(pos.pinned_mover) & set(pos.pinned_opponent)
    for p in range(1, 25):
        m, o = pos.mover[p - 1], pos.opponent[p - 1]
        if p in pos.pinned_opponent:
            assert o == 1 and m >= 1, f"pin under the mover on {p}"
        elif p in pos.pinned_mover:
            assert m == 1 and o >= 1, f"pin under the opponent on {p}"
        else:
            assert m == 0 or o == 0, f"both colours on {p} without a pin"


def hop_distance(h: Hop) -> int:
    src = 25 if h.source in (BAR, RESERVE) else h.source
    return src - h.dest


def dice_fit(hops: tuple[Hop, ...], dice: tuple[int, int]) -> bool:
    """Can the hops be paid with the dice (a bear-off may use a larger die)?"""
    pool = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    if len(hops) > len(pool):
        return False

    def fits(h: Hop, d: int) -> bool:
        dist = hop_distance(h)
        return dist == d or (h.dest == OFF and dist < d)

    def assign(i: int, free: list[int]) -> bool:
        if i == len(hops):
            return True
        return any(fits(hops[i], d) and assign(i + 1, free[:k] + free[k + 1:]) for k, d in enumerate(free))

    return assign(0, pool)


def check_play(rules: Variant, pos: Position, dice: tuple[int, int], play: LegalPlay) -> None:
    res = play.result
    res.validate()
    assert_conserved(res)
    assert_pins_well_formed(res)
    assert res.variant == pos.variant
    # Pip arithmetic: the mover's pips drop by the pips moved, paid by the dice.
    assert dice_fit(play.hops, dice), play.text
    m0, o0 = pos.pips()
    m1, o1 = res.pips()
    assert m0 - m1 == sum(hop_distance(h) for h in play.hops)
    hits = [h for h in play.hops if h.hit == 1]
    pins = [h for h in play.hops if h.hit == 2]
    assert o1 - o0 == sum(h.dest for h in hits)  # a hit checker on P's q goes back q pips
    assert res.opponent_bar - pos.opponent_bar == len(hits)
    if pos.variant == "mahbusa":
        assert not hits
    else:
        assert not pins
    if not play.hops:
        assert res == pos
    # Flip is an involution and swaps the sides.
    flipped = res.flip()
    assert flipped.flip() == res
    assert flipped.pips() == (o1, m1)
    flipped.validate()
    # Game ends by a special rule only in Mahbusa, and then the outcome says so.
    if res.game_end_flag:
        assert rules.outcome(res) is not None
    if pos.variant == "dutch":
        check_dutch_lock(pos, play)


def check_dutch_lock(pos: Position, play: LegalPlay) -> None:
    """No hit before unlock: a locked mover hits only after a checker of his reached 1-6 in this
    same play, and the lock is permanent once lifted (default options)."""
    res = play.result
    if pos.mover_can_hit:
        assert res.mover_can_hit
        return
    home = False
    for h in play.hops:
        if h.hit:
            assert home, f"hit while locked: {play.text}"
        if 1 <= h.dest <= 6:
            home = True
    assert res.mover_can_hit == home
    if not res.mover_can_hit:
        assert res.opponent_bar == pos.opponent_bar
    assert res.opponent_can_hit == pos.opponent_can_hit


def walk(rules: Variant, rng: random.Random, plies: int) -> Position | None:
    """The position after ``plies`` random plies from the start, checked on the way; None if the
    game ended first."""
    pos = rules.start()
    dice = opening_roll(rules, rng)
    for _ in range(plies):
        pos = random_step(rules, pos, dice, rng)
        assert_conserved(pos)
        assert_pins_well_formed(pos)
        if rules.outcome(pos) is not None:
            return None
        pos = pos.flip()
        dice = roll(rng)
    return pos


@pytest.mark.parametrize("name", VARIANT_NAMES)
@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 160))
def test_properties_of_random_positions(name: str, seed: int, plies: int) -> None:
    rules = find_variant(name)
    rng = random.Random(seed)
    pos = walk(rules, rng, plies)
    if pos is None:
        return
    dice = roll(rng)
    plays = rules.legal_plays(pos, dice)
    assert plays, "there is always at least the empty play"
    assert len({p.result for p in plays}) == len(plays), "duplicate results"
    assert len({len(p.hops) for p in plays if rules.outcome(p.result) is None}) <= 1
    for play in plays:
        check_play(rules, pos, dice, play)
    # Canonical text resolves back to the same play (a sample, to keep the test short).
    for play in rng.sample(plays, min(len(plays), 12)):
        assert rules.resolve(pos, dice, play.text).result == play.result, play.text


# ---------------------------------------------------------------------------------------- smoke


def play_games(name: str, games: int, seed: int) -> Counter[str]:
    rules = find_variant(name)
    rng = random.Random(seed)
    kinds: Counter[str] = Counter()
    for _ in range(games):
        outcome, plies, last = random_game(rules, rng)
        assert outcome is not None, f"unfinished after {plies} plies: {last!r}"
        assert outcome.kind in KINDS[name]
        assert outcome.points == {"single": 1, "gammon": 2, "mars": 2, "mother": 2, "backgammon": 3,
                                  "draw": 0}[outcome.kind]
        if outcome.kind != "draw":
            assert outcome.winner == 0  # the side that just moved
        last.validate()
        assert_conserved(last)
        kinds[outcome.kind] += 1
    return kinds


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_random_games_end(name: str) -> None:
    kinds = play_games(name, 300, seed=2026)
    assert sum(kinds.values()) == 300
    # The ordinary results all occur in a few hundred random games.
    assert kinds["single"] > 0
    assert kinds["gammon" if name == "standard" else "mars"] > 0
    if name == "mahbusa":
        assert kinds["mother"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_random_games_end_many(name: str) -> None:
    kinds = play_games(name, 20_000, seed=1)
    assert sum(kinds.values()) == 20_000
