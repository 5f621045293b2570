"""The state of a match or money session between decisions: score, cube and the house rules.

Players are numbered 0 and 1 for the whole match (player 0 is the left column of a ``.mat`` file,
gnubg's player 0). ``length == 0`` means money play. The rules are those of ``docs/rules.md``
§1.6-§1.10: the Jacoby rule, beavers, raccoons and automatic doubles apply in money play only;
the Crawford rule in match play only.

>>> s = MatchState(length=5, score=(3, 2))
>>> s = next_game(s, winner=0, points=1)
>>> s.score, s.crawford, can_double(s, 1)
((4, 2), True, False)
>>> s = next_game(s, winner=1, points=1)
>>> s.crawford, s.post_crawford, can_double(s, 1)
(False, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from analyzer.core.errors import RulesError

MAX_SCORE = 32767  # 15 bits, the range of a gnubg Match ID


def _is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


@dataclass(frozen=True, slots=True)
class MatchState:
    """Score, cube and rules of a match (``length > 0``) or money session (``length == 0``).

    ``cube_owner`` is ``None`` while the cube is centred. ``crawford`` marks the Crawford game
    itself, ``post_crawford`` the games after it. ``cube_limit`` is the largest cube value allowed
    (``None`` = no limit); ``automatic_doubles`` is how many automatic doubles a money game allows
    (0 = off).

    >>> MatchState().is_money
    True
    >>> MatchState(length=7, score=(6, 2)).away(0)
    1
    """

    length: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    post_crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    raccoons: bool = False
    cube_limit: int | None = None
    automatic_doubles: int = 0
    crawford_rule: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.length <= MAX_SCORE:
            raise RulesError("match length out of range", token=str(self.length))
        if len(self.score) != 2 or any(not 0 <= s <= MAX_SCORE for s in self.score):
            raise RulesError("scores must be two numbers 0..32767", token=str(self.score))
        if not _is_power_of_two(self.cube):
            raise RulesError("the cube value must be a power of two", token=str(self.cube))
        if self.cube_owner not in (None, 0, 1):
            raise RulesError("the cube owner must be 0, 1 or None (centred)", token=str(self.cube_owner))
        if self.cube_limit is not None and not _is_power_of_two(self.cube_limit):
            raise RulesError("the cube limit must be a power of two", token=str(self.cube_limit))
        if self.cube_limit is not None and self.cube > self.cube_limit:
            raise RulesError(f"the cube is above its limit of {self.cube_limit}", token=str(self.cube))
        if self.automatic_doubles < 0:
            raise RulesError("automatic doubles must be >= 0", token=str(self.automatic_doubles))
        if self.crawford and self.post_crawford:
            raise RulesError("a game cannot be both the Crawford game and post-Crawford")
        if self.length == 0 and (self.crawford or self.post_crawford):
            raise RulesError("money play has no Crawford game")
        if self.crawford and not self.crawford_rule:
            raise RulesError("a Crawford game needs the Crawford rule")
        if self.crawford and (self.cube != 1 or self.cube_owner is not None):
            raise RulesError("the cube stays at 1 in the Crawford game", token=str(self.cube))
        if self.crawford and sorted(self.score)[1] != self.length - 1 or (
                self.crawford and sorted(self.score)[0] >= self.length - 1):
            raise RulesError("the Crawford game is played with one player at N-1", token=str(self.score))
        if self.post_crawford and max(self.score) < self.length - 1:
            raise RulesError("post-Crawford games need a player at N-1 or more", token=str(self.score))

    # ------------------------------------------------------------------ simple facts
    @property
    def is_money(self) -> bool:
        """True for money play (no match length)."""
        return self.length == 0

    def away(self, player: int) -> int:
        """Points ``player`` still needs to win the match (0 once he has won; money: 0)."""
        check_player(player)
        if self.length == 0:
            return 0
        return max(self.length - self.score[player], 0)

    @property
    def jacoby_active(self) -> bool:
        """True when gammons count single now: money, Jacoby on and the cube centred."""
        return self.length == 0 and self.jacoby and self.cube_owner is None


def inferred_post_crawford(length: int, score: tuple[int, int], crawford: bool) -> bool:
    """Whether a game that is not the Crawford game is post-Crawford, judged from the score alone
    (for IDs, which do not say whether the Crawford game is over).

    >>> inferred_post_crawford(7, (6, 2), False), inferred_post_crawford(7, (6, 2), True)
    (True, False)
    """
    return not crawford and length > 1 and length - 1 in score and max(score) < length


def check_player(player: int) -> None:
    """Refuse a player number other than 0 and 1 (a :class:`~analyzer.core.errors.RulesError`)."""
    if player not in (0, 1):
        raise RulesError("a player is 0 or 1", token=str(player))


# ---------------------------------------------------------------------- the cube
def double_refusal(state: MatchState, player: int, *, rolled: bool = False) -> str | None:
    """Why ``player`` may not double now, or ``None`` when he may; ``rolled`` says whether he
    has already rolled this turn (a double comes before the roll).

    >>> double_refusal(MatchState(cube=2, cube_owner=1), 0)
    'player 0 does not own the cube'
    """
    check_player(player)
    if rolled:
        return "a double is offered before rolling"
    if state.crawford:
        return "no doubling in the Crawford game"
    if state.length and max(state.score) >= state.length:
        return "the match is over"
    if state.cube_owner is not None and state.cube_owner != player:
        return f"player {player} does not own the cube"
    if state.cube_limit is not None and state.cube * 2 > state.cube_limit:
        return "the cube is at its limit"
    return None


def can_double(state: MatchState, player: int, *, rolled: bool = False) -> bool:
    """True when ``player`` may offer a double (or redouble); never after he has ``rolled``.

    >>> can_double(MatchState(), 0), can_double(MatchState(cube=2, cube_owner=0), 1)
    (True, False)
    """
    return double_refusal(state, player, rolled=rolled) is None


def cube_is_dead(state: MatchState, player: int) -> bool:
    """True when a double by ``player`` can gain nothing: in match play he needs no more points
    than the cube already gives him for a single win (``away <= cube``), so a bigger cube only
    raises what he can lose. This is gnubg's rule (``GetDPEq``: the cube is live when ``score +
    cube < length``); it covers a 1-point match and the post-Crawford leader. Money: never.

    >>> cube_is_dead(MatchState(length=7, score=(4, 2), cube=4, cube_owner=0), 0)
    True
    >>> cube_is_dead(MatchState(length=7, score=(4, 2), cube=2, cube_owner=0), 0)
    False
    >>> cube_is_dead(MatchState(length=1), 0), cube_is_dead(MatchState(), 0)
    (True, False)
    """
    check_player(player)
    return bool(state.length) and state.away(player) <= state.cube


def cube_refusal(state: MatchState, player: int) -> str | None:
    """Why ``player`` (before his roll) has no cube decision, or ``None`` when he has one: the
    reasons of :func:`double_refusal`, or a dead cube (:func:`cube_is_dead`). A legal double of a
    dead cube is still read from a file, but no analysis counts it as a decision, and ``play``
    does not offer it (as gnubg: "The cube is dead").

    >>> cube_refusal(MatchState(length=1), 0)
    'the cube is dead'
    >>> cube_refusal(MatchState(length=5, score=(4, 2), crawford=True), 1)
    'no doubling in the Crawford game'
    """
    why = double_refusal(state, player)
    if why is None and cube_is_dead(state, player):
        return "the cube is dead"
    return why


def cube_available(state: MatchState, player: int) -> bool:
    """True when ``player``, before his roll, has a cube decision (:func:`cube_refusal`).

    >>> cube_available(MatchState(), 0), cube_available(MatchState(length=7, score=(6, 3)), 0)
    (True, False)
    """
    return cube_refusal(state, player) is None


def take(state: MatchState, taker: int) -> MatchState:
    """The state after ``taker`` accepts his opponent's double: cube ×2, owned by the taker.

    >>> take(MatchState(), 1).cube, take(MatchState(), 1).cube_owner
    (2, 1)
    """
    why = double_refusal(state, 1 - taker)
    if why:
        raise RulesError(f"illegal double: {why}")
    return replace(state, cube=state.cube * 2, cube_owner=taker)


def beaver(state: MatchState, beaverer: int) -> MatchState:
    """The state after ``beaverer`` beavers the double offered in ``state`` (money only).

    He takes and at once redoubles, keeping the cube: cube ×4, owned by him. If the doubler
    refuses the beaver he loses :func:`refusal_value` of the result.

    >>> beaver(MatchState(beavers=True), 1).cube
    4
    """
    if state.length:
        raise RulesError("beavers are not allowed in match play")
    if not state.beavers:
        raise RulesError("beavers are off")
    s = take(state, beaverer)
    if s.cube_limit is not None and s.cube * 2 > s.cube_limit:
        raise RulesError("the cube is at its limit")
    return replace(s, cube=s.cube * 2)


def raccoon(state: MatchState, raccooner: int) -> MatchState:
    """The state after ``raccooner`` answers a beaver (``state`` = after the beaver) with a raccoon.

    >>> s = beaver(MatchState(beavers=True, raccoons=True), 1)
    >>> raccoon(s, 0).cube, raccoon(s, 0).cube_owner
    (8, 0)
    """
    if state.length:
        raise RulesError("raccoons are not allowed in match play")
    if not state.raccoons:
        raise RulesError("raccoons are off")
    if state.cube_owner != 1 - raccooner or state.cube < 4:
        raise RulesError("a raccoon answers the opponent's beaver")
    if state.cube_limit is not None and state.cube * 2 > state.cube_limit:
        raise RulesError("the cube is at its limit")
    return replace(state, cube=state.cube * 2, cube_owner=raccooner)


def drop_value(state: MatchState) -> int:
    """Points the doubler wins when the double he offers in ``state`` is dropped: the cube value
    before the double, never a gammon.

    >>> drop_value(MatchState(cube=2, cube_owner=1))
    2
    """
    return state.cube


def refusal_value(proposed: MatchState) -> int:
    """Points won by the side whose offer is refused, given the state the offer proposed
    (after :func:`take`, :func:`beaver` or :func:`raccoon`): half the proposed cube.

    >>> refusal_value(beaver(MatchState(beavers=True), 1))
    2
    """
    return proposed.cube // 2


def automatic_double(state: MatchState, used: int) -> MatchState:
    """The state after a tied opening roll when ``used`` automatic doubles already happened.

    Money play only, up to ``state.automatic_doubles`` per game and the cube limit; the cube
    stays centred. Otherwise the state is returned unchanged.

    >>> s = MatchState(automatic_doubles=1)
    >>> automatic_double(s, 0).cube, automatic_double(automatic_double(s, 0), 1).cube
    (2, 2)
    """
    if state.length or used >= state.automatic_doubles:
        return state
    if state.cube_limit is not None and state.cube * 2 > state.cube_limit:
        return state
    return replace(state, cube=state.cube * 2)


# ---------------------------------------------------------------------- values of results
def win_value(state: MatchState, points: int) -> int:
    """The score of a finished game worth ``points`` (0 draw, 1 single, 2 gammon, 3 backgammon).

    Multiplied by the cube; under the Jacoby rule (money, cube centred) every win counts single.

    >>> win_value(MatchState(cube=2, cube_owner=0), 3)
    6
    >>> win_value(MatchState(jacoby=True), 3), win_value(MatchState(length=7, jacoby=True), 2)
    (1, 2)
    """
    if points not in (0, 1, 2, 3):
        raise RulesError("a game is worth 0 to 3 points before the cube", token=str(points))
    if state.jacoby_active:
        points = min(points, 1)
    return points * state.cube


def resignation_value(state: MatchState, level: int) -> int:
    """The score of an accepted resignation: ``level`` 1 single, 2 gammon, 3 backgammon.

    >>> resignation_value(MatchState(cube=2, cube_owner=1), 2)
    4
    """
    if level not in (1, 2, 3):
        raise RulesError("a resignation is single (1), gammon (2) or backgammon (3)", token=str(level))
    return win_value(state, level)


# ---------------------------------------------------------------------- between games
def match_winner(state: MatchState) -> int | None:
    """The player who has won the match, or ``None`` (always ``None`` in money play).

    >>> match_winner(MatchState(length=5, score=(2, 7)))
    1
    """
    if state.length == 0:
        return None
    for p in (0, 1):
        if state.score[p] >= state.length:
            return p
    return None


def is_match_over(state: MatchState) -> bool:
    """True once a player has reached the match length."""
    return match_winner(state) is not None


def next_game(state: MatchState, winner: int, points: int) -> MatchState:
    """The state at the start of the next game after ``winner`` scored ``points`` (cube included).

    The cube is reset; the Crawford flags follow the rule of §1.9: the game after a player first
    reaches N-1 is the Crawford game, the games after it are post-Crawford, never a second one.

    >>> s = next_game(MatchState(length=5, score=(3, 2)), 0, 4)
    >>> s.score, match_winner(s), s.crawford
    ((7, 2), 0, False)
    """
    check_player(winner)
    if points < 0:
        raise RulesError("points must be >= 0", token=str(points))
    if is_match_over(state):
        raise RulesError("the match is already over")
    sc = [state.score[0], state.score[1]]
    sc[winner] += points
    score = (min(sc[0], MAX_SCORE), min(sc[1], MAX_SCORE))
    crawford = False
    post = state.post_crawford or state.crawford
    if (state.length > 1 and state.crawford_rule and not post and max(score) < state.length
            and state.length - 1 in score):
        crawford = True
    if not state.crawford_rule or state.length == 0:
        post = False
    return replace(state, score=score, cube=1, cube_owner=None, crawford=crawford, post_crawford=post)


def crawford_flags(length: int, scores: Sequence[tuple[int, int]],
                   crawford_rule: bool = True) -> list[tuple[bool, bool]]:
    """``(crawford, post_crawford)`` for each game of a match, from the scores before each game.

    The first game that starts with a player at N-1 is the Crawford game; every later game is
    post-Crawford. This is how match files without Crawford marks are read.

    >>> crawford_flags(5, [(0, 0), (3, 2), (4, 2), (4, 3), (4, 4)])
    [(False, False), (False, False), (True, False), (False, True), (False, True)]
    """
    out: list[tuple[bool, bool]] = []
    seen = False
    for a, b in scores:
        if length < 2 or not crawford_rule:
            out.append((False, False))
            continue
        if seen:
            out.append((False, True))
        elif length - 1 in (a, b) and max(a, b) < length:
            seen = True
            out.append((True, False))
        else:
            out.append((False, False))
    return out
