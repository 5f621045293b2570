"""``bgreview cube``: the cube decision of the side on roll (n-ply or rollout), one position or a batch.

``--format json`` writes ``{"nd": .., "dt": .., "dp": .., "action": ..}`` (normalised equities of
the side on roll: money per unit cube, EMG in a match) plus extra keys; ``action`` is one of
``no double``, ``double, take``, ``double, pass``, ``too good, take``, ``too good, pass``
(redoubles and beavers are folded into these; the full wording is under ``proper_action``).
``--batch FILE`` (``-`` = stdin) reads JSON lines ``{"position": "PositionID:MatchID", "ply": 2}``
(optionally ``"rollout": true``, ``"trials": N``) and writes one JSON line per input line, in
order: ``{"error": "line N: ...", "line": N}`` for a bad one (blank, not UTF-8, not a JSON object,
a bad value, a finished game). ``--ply N`` runs the n-ply cubeful search
(:func:`analyzer.eval.cube_search.cube_decision_nply`); ``--root-conversion`` (``"root_conversion": true`` in a
batch line) converts the n-ply cubeless chances with the cube model at the root instead.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, BinaryIO

import typer

from analyzer._read import bounded_lines
from analyzer.cli.base import app
from analyzer.cli.common import (
    OutputFormat,
    check_workers,
    fail,
    position_argument,
    stdout_write,
)
from analyzer.cli.engines import standard_engine
from analyzer.core.errors import InputError, ParseError
from analyzer.core.ids import encode_position_id, parse_position_spec
from analyzer.core.match import MatchState
from analyzer.eval.cube import CubeDecision
from analyzer.eval.cube_search import MAX_SEARCH_PLY, cube_decision_nply
from analyzer.eval.engine import Engine
from analyzer.eval.rollout import RolloutSettings, rollout
from analyzer.render.position_text import position_identifiers
from analyzer.rules.listing import batch_error, batch_object

ACTIONS = ("no double", "double, take", "double, pass", "too good, take", "too good, pass")


def simple_action(action: str) -> str:
    """Fold cube.py's wording into the five actions of the JSON output.

    >>> simple_action("too good to redouble, pass"), simple_action("redouble, beaver")
    ('too good, pass', 'double, take')
    >>> simple_action("never double, take (dead cube)"), simple_action("no double possible")
    ('no double', 'no double')
    """
    a = action.lower()
    if a.startswith("too good"):
        return "too good, pass" if a.endswith("pass") else "too good, take"
    if a.startswith(("no ", "never")):
        return "no double"
    if a.startswith(("double", "redouble")):
        return "double, pass" if a.endswith("pass") else "double, take"
    raise ValueError(f"unknown cube action {action!r}")


def gnubg_wording(action: str) -> str:
    """gnubg's capitalisation of an action: ``Double, take``; ``Too good to double, pass``.

    >>> gnubg_wording("no double, take")
    'No double, take'
    """
    return action[:1].upper() + action[1:]


def _decide(engine: Engine, position_text: str, ply: int, use_rollout: bool, trials: int,
            truncate: int | None, seed: int, workers: int, cube_play: bool = False,
            root_conversion: bool = False) -> dict[str, Any]:
    spec = parse_position_spec(position_text)
    pos = spec.position
    if not pos.spec.has_cube:
        raise ValueError(f"cube decisions are for standard backgammon (got {pos.variant})")
    state = spec.match if spec.match is not None else MatchState()
    player = spec.on_roll if spec.on_roll is not None else 0
    if use_rollout:
        settings = RolloutSettings(trials=trials, truncate=truncate, seed=seed, workers=workers, cubeful=True,
                                   cube_play=cube_play)
        r = rollout(engine, pos, settings, match=state, player=player)
        assert r.cube is not None
        cd = r.cube
        method = (f"rollout ({trials} trials" + (", cube played" if cube_play else "")
                  + (f", truncated at {truncate} plies)" if truncate else ")"))
    else:
        if not 0 <= ply <= MAX_SEARCH_PLY:
            raise ValueError(f"ply must be 0..{MAX_SEARCH_PLY}")
        cd = cube_decision_nply(engine, pos, state, player, ply, root_conversion=root_conversion)
        method = f"{ply}-ply" + (", cubeless converted at the root" if root_conversion and ply else " cubeful")
    d = _as_json(cd, state.is_money, method, encode_position_id(pos))

    ids = position_identifiers(spec)
    d["match_id"], d["xgid"] = ids["match_id"], ids["xgid"]
    return d


def _as_json(cd: CubeDecision, money: bool, method: str, pid: str) -> dict[str, Any]:
    p = cd.probabilities
    return {
        "nd": cd.nd, "dt": cd.dt, "dp": cd.dp, "action": simple_action(cd.action),
        "proper_action": gnubg_wording(cd.action), "available": cd.available, "best": cd.best,
        "method": method, "money": money, "position_id": pid, "cube": cd.cube,
        "take_point": cd.take_point, "cube_life": cd.cube_life,
        "nd_mwc": cd.nd_mwc, "dt_mwc": cd.dt_mwc, "dp_mwc": cd.dp_mwc,
        "probabilities": {"win": p.win, "win_gammon": p.win_gammon, "win_backgammon": p.win_backgammon,
                          "lose_gammon": p.lose_gammon, "lose_backgammon": p.lose_backgammon,
                          "cubeless_equity": p.equity},
        "gammon_values": {"me_gammon": cd.gammons.me_gammon, "me_backgammon": cd.gammons.me_backgammon,
                          "opp_gammon": cd.gammons.opp_gammon, "opp_backgammon": cd.gammons.opp_backgammon},
    }


def render_table(d: dict[str, Any]) -> str:
    """The gnubg-style cube table of one decision (as :func:`_as_json` gives it).

    >>> from analyzer.core.match import MatchState
    >>> from analyzer.eval.cube import cube_decision
    >>> cd = cube_decision([0.7, 0.0, 0.0, 0.0, 0.0], MatchState(), 0, cube_life=0.68)
    >>> print(render_table(_as_json(cd, True, "0-ply", "4HPwATDgc/ABMA")).splitlines()[-3])
    Proper cube action: Double, take
    """
    p = d["probabilities"]
    unit = "money equity per unit cube" if d["money"] else "EMG"
    # IDs whole, each on its own line (pasteable); no line much wider than 70 columns
    ident = d["position_id"] + (f":{d['match_id']}" if d.get("match_id") else "")
    lines = [f"Cube analysis ({d['method']}, {unit}), cube {d['cube']}", f"  {ident}"]
    if d.get("xgid"):
        lines.append(f"  {d['xgid']}")
    lines += [f"Cubeless equity {p['cubeless_equity']:+.3f}",
              f"  Win  {100 * p['win']:.1f}% (g {100 * p['win_gammon']:.1f}%, bg {100 * p['win_backgammon']:.1f}%)",
              f"  Lose {100 * (1 - p['win']):.1f}% (g {100 * p['lose_gammon']:.1f}%, "
              f"bg {100 * p['lose_backgammon']:.1f}%)", ""]
    if not d["available"]:
        lines.append(f"No double possible: cubeful equity {d['nd']:+.3f}")
        return "\n".join(lines)
    best = d["best"]
    rows = (("No double", d["nd"], d["nd_mwc"]), ("Double, take", d["dt"], d["dt_mwc"]),
            ("Double, pass", d["dp"], d["dp_mwc"]))
    lines.append("Cubeful equities:")
    for i, (name, v, m) in enumerate(rows, 1):
        diff = "" if abs(v - best) < 1e-12 else f" ({v - best:+.3f})"
        mwc = "" if m is None else f"  MWC {100 * m:.2f}%"
        lines.append(f"{i}. {name:<14}{v:+.3f}{diff}{mwc}")
    lines.append("")
    lines.append(f"Proper cube action: {d['proper_action']}")
    tp = d["take_point"]
    lines.append("Take point: " + ("-" if tp is None else f"{100 * tp:.1f}%") + f"   cube life {d['cube_life']:.2f}")
    g = d["gammon_values"]
    lines.append(f"Gammon values: doubler {g['me_gammon']:.2f} (bg {g['me_backgammon']:.2f}), "
                 f"taker {g['opp_gammon']:.2f} (bg {g['opp_backgammon']:.2f})")
    return "\n".join(lines)


def _item_int(item: dict[str, Any], key: str, default: int, least: int) -> int:
    v = item.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < least:
        raise ParseError(f'"{key}" must be a whole number >= {least}', token=json.dumps(v)[:60])
    return v


def _item_flag(item: dict[str, Any], key: str, default: bool) -> bool:
    v = item.get(key, default)
    if not isinstance(v, bool):
        raise ParseError(f'"{key}" must be true or false', token=json.dumps(v)[:60])
    return v


def run_batch(engine: Engine, lines: Iterable[bytes | str], *, ply: int, use_rollout: bool, trials: int,
              truncate: int | None, seed: int, workers: int,
              root_conversion: bool = False) -> Iterator[dict[str, Any]]:
    """One result dict per input line, in order: a blank line, a line that is not UTF-8 or not a
    JSON object, or a bad value gives ``{"error": "line N: ...", "line": N}``."""
    for number, raw in enumerate(lines, 1):
        try:
            item = batch_object(raw, number)
            position = item.get("position")
            if not isinstance(position, str):
                raise ParseError('expected a "position" string', token=json.dumps(position)[:60])
            p = _item_int(item, "ply", ply, 0)
            tr = _item_int(item, "trials", trials, 1)
            yield _decide(engine, position, p, _item_flag(item, "rollout", use_rollout), tr, truncate, seed,
                          workers, root_conversion=_item_flag(item, "root_conversion", root_conversion))
        except InputError as e:
            yield batch_error(e, number)
        except ValueError as e:
            yield batch_error(InputError(str(e)), number)


@app.command()
def cube(
    position: Annotated[str | None, typer.Argument(help="PositionID:MatchID, XGID or Position ID.")] = None,
    ply: Annotated[int, typer.Option("--ply", "-p", help="Depth of the cubeful search (0..3).")] = 2,
    root_conversion: Annotated[bool, typer.Option(
        "--root-conversion", help="Convert n-ply cubeless chances at the root instead of the cubeful search.")] = False,
    use_rollout: Annotated[bool, typer.Option("--rollout", help="Roll the position out instead.")] = False,
    trials: Annotated[int, typer.Option("--trials", "-n", help="Rollout trials.")] = 1296,
    truncate: Annotated[int | None, typer.Option("--truncate", help="Rollout: stop after N plies.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Rollout dice seed.")] = 0,
    workers: Annotated[int, typer.Option("--workers", "-j", help="Rollout worker processes.")] = 2,
    cube_play: Annotated[bool, typer.Option(
        "--cube-play", help="Rollout: cube play in the games (money or match).")] = False,
    batch: Annotated[str | None, typer.Option("--batch", help="JSON lines file of positions ('-': stdin).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="table or json.")] = OutputFormat.table,
) -> None:
    """Cube decision of the side on roll: No double / Double, take / Double, pass and the proper action."""
    if (position is None) == (batch is None):
        fail("give a POSITION or --batch FILE")
    if trials < 1:
        fail("--trials must be >= 1")
    if truncate is not None and truncate < 1:
        fail("--truncate must be >= 1")
    check_workers(workers)
    engine = standard_engine()
    if batch is not None:
        # bytes: lines end at \n only, and a line that is not UTF-8 fails alone
        handle: BinaryIO = sys.stdin.buffer if batch == "-" else _open(batch)

        lines = bounded_lines(handle, name="<stdin>" if batch == "-" else batch)  # bounded: /dev/zero
        try:
            for out in run_batch(engine, lines, ply=ply, use_rollout=use_rollout, trials=trials,
                                 truncate=truncate, seed=seed, workers=workers, root_conversion=root_conversion):
                sys.stdout.write(json.dumps(out) + "\n")
                sys.stdout.flush()
        except InputError as e:
            fail(str(e))
        except OSError as e:
            fail(f"cannot read {batch}: {e.strerror}")
        finally:
            if batch != "-":
                handle.close()
        return
    assert position is not None
    try:
        d = _decide(engine, position_argument(position), ply, use_rollout, trials, truncate, seed, workers,
                    cube_play, root_conversion)
    except (InputError, ValueError) as e:
        fail(str(e))
    if fmt is OutputFormat.json:
        stdout_write(json.dumps(d))
    else:
        stdout_write(render_table(d))


def _open(path: str) -> BinaryIO:
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
