"""Our luck against GNU Backgammon's, roll by roll and per player, on gnubg-analysed matches.

GNU Backgammon is the referee (never imported by ``analyzer/``). Its per-roll ``luck-value`` and
per-player luck totals were stored once per match in ``bench/data/gnubg_luck/*.json`` by this
script run with ``--make`` (it re-launches itself inside ``/usr/games/gnubg``, the Debian 1.07
build, imports the ``.mat`` file and runs ``analyse match``; gnubg's luck analysis is 0-ply,
cubeful, Kazaross-XG2, like ours). Without ``--make`` it recomputes our luck of every roll with
:func:`analyzer.analysis.luck.roll_values` / :func:`~analyzer.analysis.luck.luck_of` /
:func:`~analyzer.analysis.luck.mwc_luck` (what ``bgreview analyze`` stores in ``luck`` and
``luck_mwc``) and prints:

* per match and pooled: the correlation of the per-roll luck (EMG and MWC), the mean difference
  per roll (ours - gnubg), the mean absolute and largest difference, the share of rolls with the
  same gnubg mark (lucky > 0.3, very lucky > 0.6, and the unlucky ones); pooled also by phase
  (opening roll, contact, race) and the largest differences with the position;
* per player: gnubg's "Luck total EMG" (plain sum), ours; gnubg's MWC luck ("luck cost"), ours;
  our EMG total at the match's stake (:func:`analyzer.analysis.stats.luck_stake`), and whether
  the EMG and MWC totals agree in sign, for gnubg and for us.

Usage::

    .venv/bin/python bench/luck_agreement.py [--show 8] [--cubeless]
    .venv/bin/python bench/luck_agreement.py --make FILE.mat [FILE.mat ...]   # fixtures, needs gnubg

``bench/data/gnubg_luck/gnubg_money_session.mat`` is a gnubg 0-ply self-play money session (6 games,
seed 7, player 1 with noise 0.05, Jacoby and beavers off), exported with ``export match mat``.

Fixture format (one match): ``source`` (path from the repository root), ``gnubg`` (version),
``length``, ``players`` (gnubg's X then O: the first and second player of the file),
``games``: per game a list of rolls ``[side, "d1d2", luck]`` in the order played, ``totals``: per
player gnubg's ``luck`` (EMG), ``luck_mwc`` (its ``luck-cost``), ``actual`` and ``luck_adjusted``
(MWC).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent if "__file__" in globals() else Path.cwd()  # gnubg sets no __file__
FIXTURES = ROOT / "bench" / "data" / "gnubg_luck"
GNUBG = "/usr/games/gnubg"
ENV = "BGR_LUCK_ARGS"


# ---------------------------------------------------------------------- inside gnubg (stdlib only)
def _inside_gnubg(args: dict[str, str]) -> None:
    import gnubg  # type: ignore[import-untyped]  # the embedded module of the running gnubg

    gnubg.command("set display off")
    gnubg.command(f"import mat {args['file']}")
    gnubg.command("set analysis chequerplay evaluation plies 0")
    gnubg.command("set analysis cubedecision evaluation plies 0")
    gnubg.command("analyse match")
    m = gnubg.match(1, 0, 1, 0)
    games = []
    for g in m["games"]:
        rolls = []
        for r in g["game"]:
            if r.get("action") != "move":
                continue
            luck = r.get("analysis", {}).get("luck-value")
            rolls.append([0 if r["player"] == "X" else 1, "".join(str(d) for d in r["dice"]),
                          None if luck is None else round(float(luck), 6)])
        games.append(rolls)
    totals = []
    for p in "XO":
        dice = m["stats"][p]["dice"]
        totals.append({"luck": round(dice["luck"], 6), "luck_mwc": round(dice["luck-cost"], 6),
                       "actual": round(dice["actual-result"], 6),
                       "luck_adjusted": round(dice["luck-adjusted-result"], 6)})
    info = m["match-info"]
    out = {"source": args["source"], "gnubg": args["version"], "length": info["match-length"],
           "players": [info["X"]["name"], info["O"]["name"]], "games": games, "totals": totals}
    with open(args["out"], "w", encoding="utf-8") as fh:
        json.dump(out, fh, separators=(",", ":"))
        fh.write("\n")


def make(files: list[str]) -> None:
    """Write one fixture per file with gnubg (the file is copied to a plain name first: gnubg's
    ``import mat`` takes no quotes)."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([GNUBG, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    for f in files:
        src = Path(f).resolve()
        name = "".join(c if c.isalnum() else "_" for c in src.stem).strip("_")[:60]
        out = FIXTURES / f"{name}.json"
        with tempfile.TemporaryDirectory() as tmp:
            plain = Path(tmp) / "match.mat"
            shutil.copyfile(src, plain)
            env = dict(os.environ, **{ENV: json.dumps({"file": str(plain), "out": str(out), "version": version,
                                                       "source": str(src.relative_to(ROOT))})})
            subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(Path(__file__).resolve())], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        print(f"{out.relative_to(ROOT)}  ({out.stat().st_size} bytes)")


# ---------------------------------------------------------------------- ours
def _mark(x: float) -> int:
    """gnubg's roll marks: very unlucky < -0.6 < unlucky < -0.3, lucky > 0.3, very lucky > 0.6."""
    return 2 if x > 0.6 else 1 if x > 0.3 else -2 if x < -0.6 else -1 if x < -0.3 else 0


def _corr(a: list[float], b: list[float]) -> float:
    n = len(a)
    if n < 2:
        return math.nan
    ma, mb = sum(a) / n, sum(b) / n
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / (sa * sb) if sa and sb else math.nan


def our_rolls(source: Path, cubeless: bool = False) -> tuple[list[str], list[list[dict[str, Any]]]]:
    """Our luck of every roll of the (first) match in ``source``, per game, in the order played.

    ``cubeless`` adds ``luck_cubeless``: the same definition with each roll's best play valued by
    its 0-ply cubeless money equity (no cube, no score), to see how much the cube model matters.
    """
    import numpy as np

    from analyzer.analysis.luck import luck_of, mwc_luck, roll_values
    from analyzer.analysis.replay import replay_games
    from analyzer.core.dice import ALL_21
    from analyzer.core.ids import encode_position_id
    from analyzer.eval.engine import Engine
    from analyzer.eval.features import CLASS_RACE, classify
    from analyzer.eval.met import met_by_name
    from analyzer.formats import read_any

    engine, met = Engine(), met_by_name()
    record = next(iter(read_any(source)))
    games: list[list[dict[str, Any]]] = []
    for g in replay_games(record):
        rolls: list[dict[str, Any]] = []
        games.append(rolls)
        if g.error is not None:
            continue
        for d in g.decisions:
            if d.kind != "move" or d.dice is None:
                continue
            values = roll_values(engine, d.position, d.state, d.side, met)
            opening = d.move == 1
            opp = roll_values(engine, d.position.flip(), d.state, 1 - d.side, met) if opening else None
            luck = luck_of(values, d.dice, opening=opening, opponent=opp)
            plain = None
            if cubeless:
                first = {r.dice: engine.rank_plays(d.position, r.dice, 0)[0].equity for r in ALL_21}
                other = ({r.dice: engine.rank_plays(d.position.flip(), r.dice, 0)[0].equity for r in ALL_21}
                         if opening else None)
                plain = luck_of(first, d.dice, opening=opening, opponent=other)
            cls = classify(np.frombuffer(d.position.board, dtype=np.int8))
            rolls.append({"side": d.side, "dice": f"{max(d.dice)}{min(d.dice)}", "luck": luck,
                          "luck_mwc": mwc_luck(luck, d.state, d.side, met), "cube": d.state.cube,
                          "game": d.game, "move": d.move, "file": source.stem[:24],
                          "phase": "opening" if opening else "race" if cls == CLASS_RACE else "contact",
                          "id": encode_position_id(d.position), "luck_cubeless": plain})
    return list(record.players), games


Pair = tuple[dict[str, Any], list[Any]]  # our roll, gnubg's [side, dice, luck]


def _pairs(fixture: dict[str, Any], ours: list[list[dict[str, Any]]]) -> tuple[list[Pair], int]:
    """Our rolls matched with gnubg's, game by game; games whose rolls do not line up are skipped."""
    pairs: list[Pair] = []
    skipped = 0
    for mine, theirs in zip(ours, fixture["games"], strict=False):
        ok = len(mine) == len(theirs) and all(m["side"] == t[0] and m["dice"] == "".join(sorted(t[1], reverse=True))
                                              for m, t in zip(mine, theirs, strict=True))
        if not ok:
            skipped += 1
            continue
        pairs += [(m, t) for m, t in zip(mine, theirs, strict=True) if t[2] is not None]
    return pairs, skipped + abs(len(ours) - len(fixture["games"]))


def _line(label: str, pairs: list[Pair]) -> str:
    ours = [m["luck"] for m, _ in pairs]
    theirs = [float(t[2]) for _, t in pairs]
    diff = [a - b for a, b in zip(ours, theirs, strict=True)]
    n = len(diff)
    if not n:
        return f"{label:34s} no rolls"
    same = sum(_mark(a) == _mark(b) for a, b in zip(ours, theirs, strict=True)) / n
    return (f"{label:34s} {n:5d}  r={_corr(ours, theirs):.3f}  mean diff {sum(diff) / n:+.4f}  "
            f"mean |diff| {sum(abs(x) for x in diff) / n:.4f}  max {max(abs(x) for x in diff):.3f}  "
            f"same mark {100 * same:.0f}%")


def compare(show: int, cubeless: bool = False) -> None:
    import polars as pl

    from analyzer.analysis.stats import luck_stake

    files = sorted(FIXTURES.glob("*.json"))
    if not files:
        sys.exit(f"no fixtures in {FIXTURES}; make them with --make")
    everything: list[Pair] = []
    players: list[tuple[str, dict[str, Any], dict[str, float]]] = []
    mwc_pairs: tuple[list[float], list[float]] = ([], [])
    print("per roll (EMG, ours - gnubg)")
    for f in files:
        fx = json.loads(f.read_text(encoding="utf-8"))
        names, ours = our_rolls(ROOT / fx["source"], cubeless)
        pairs, skipped = _pairs(fx, ours)
        everything += pairs
        note = f" ({skipped} games not aligned)" if skipped else ""
        print(_line(f"{Path(fx['source']).stem[:30]} {fx['length']}p", pairs) + note)
        # gnubg's per-roll MWC luck is its eq2mwc at the roll's score and cube: recompute it from its EMG
        for m, t in pairs:
            if m["luck_mwc"] is not None and abs(m["luck"]) > 1e-9:
                mwc_pairs[0].append(m["luck_mwc"])
                mwc_pairs[1].append(float(t[2]) * m["luck_mwc"] / m["luck"])
        rows = [m for g in ours for m in g]
        df = pl.DataFrame({"side": [m["side"] for m in rows], "luck": [m["luck"] for m in rows],
                           "luck_mwc": [m["luck_mwc"] for m in rows], "cube": [m["cube"] for m in rows]})
        money = not fx["length"]
        stake = luck_stake(df, money=money)
        for side in (0, 1):
            mine = df.filter(pl.col("side") == side)
            unit = float(mine["luck_mwc"].sum()) if not money else float((mine["luck"] * mine["cube"]).sum())
            players.append((names[side], fx["totals"][side], {
                "plain": float(mine["luck"].sum()), "mwc": unit, "money": money,
                "emg": unit / stake if stake else 0.0, "stake": stake or 0.0}))
    print()
    print(_line("all rolls", everything))
    if cubeless:
        plain = [({**m, "luck": m["luck_cubeless"]}, t) for m, t in everything]
        print(_line("all rolls, ours cubeless", plain))
        print(_line("  contact, ours cubeless", [(m, t) for m, t in plain if m["phase"] == "contact"]))
    for phase in ("opening", "contact", "race"):
        print(_line(f"  {phase}", [(m, t) for m, t in everything if m["phase"] == phase]))
    for cube in sorted({m["cube"] for m, _ in everything}):
        print(_line(f"  cube {cube}", [(m, t) for m, t in everything if m["cube"] == cube]))
    if mwc_pairs[0]:
        print(f"{'per-roll MWC luck':34s} {len(mwc_pairs[0]):5d}  r={_corr(*mwc_pairs):.3f}  "
              "(gnubg's EMG at our stake)")
    print()
    print("per player  gnubg EMG sum / ours | gnubg MWC (money: points) / ours | our EMG at the match's stake "
          "(stake: MWC or points per EMG) | signs EMG vs MWC: gnubg, ours")
    mismatch_gnubg = mismatch_ours = 0
    for name, g, o in players:
        sg = (g["luck"] < 0) == (g["luck_mwc"] < 0)
        so = (o["emg"] < 0) == (o["mwc"] < 0)
        mismatch_gnubg += not sg
        mismatch_ours += not so
        cost = (f"{g['luck_mwc']:+6.2f}pt / {o['mwc']:+6.2f}pt" if o["money"]
                else f"{100 * g['luck_mwc']:+6.1f}% / {100 * o['mwc']:+6.1f}% ")
        print(f"  {name[:16]:16s} {g['luck']:+7.3f} / {o['plain']:+7.3f} | {cost} | {o['emg']:+7.3f} "
              f"({o['stake']:.3f}) | {'agree' if sg else 'DIFFER'}, {'agree' if so else 'DIFFER'}")
    gm = [g["luck_mwc"] for _, g, o in players if not o["money"]]
    om = [o["mwc"] for _, _, o in players if not o["money"]]
    ge = [g["luck"] for _, g, _ in players]
    oe = [o["plain"] for _, _, o in players]
    n = len(gm)
    mean_diff = 100 * sum(abs(a - b) for a, b in zip(gm, om, strict=True)) / max(n, 1)
    print(f"match players {n}: MWC totals r={_corr(gm, om):.3f}, mean |diff| {mean_diff:.1f}%"
          f" MWC, same sign {sum((a < 0) == (b < 0) for a, b in zip(gm, om, strict=True))}/{n}; "
          f"all {len(players)} players: plain EMG sums r={_corr(ge, oe):.3f}; EMG and MWC (points) totals of "
          f"different sign: gnubg {mismatch_gnubg}, ours {mismatch_ours}")
    if show:
        print()
        print("largest per-roll differences (EMG): file game move side dice phase cube ours gnubg position")
        worst = sorted(everything, key=lambda p: -abs(p[0]["luck"] - float(p[1][2])))[:show]
        for m, t in worst:
            print(f"  {m['file']:24s} {m['game']:3d} {m['move']:3d} {m['side']} {m['dice']} {m['phase']:8s} "
                  f"{m['cube']:2d} {m['luck']:+.3f} {float(t[2]):+.3f}  {m['id']}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--make", nargs="+", metavar="FILE", help="write gnubg fixtures for these match files")
    ap.add_argument("--show", type=int, default=8, help="largest per-roll differences to list")
    ap.add_argument("--cubeless", action="store_true",
                    help="also compare our luck from cubeless money equities (how much the cube model matters)")
    a = ap.parse_args(argv)
    if a.make:
        make(a.make)
    else:
        compare(a.show, a.cubeless)


if ENV in os.environ:  # gnubg runs this file with its own module name
    _inside_gnubg(json.loads(os.environ[ENV]))
elif __name__ == "__main__":
    main()
