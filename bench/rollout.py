"""Rollout speed: 0-ply rollout games per second, ours beside GNU Backgammon's with the same settings.

For every combination of ``--position`` (``opening``: the start position; ``middle``: a
mutual-holding middle game, :data:`MIDDLE`), ``--truncate`` (0: played out, bear-off databases
stopping the games as gnubg's do; N: stopped after N plies with the 0-ply evaluation), cube
(``--cubeful``: cube play inside the rollout, money, cube centred, no Jacoby; else cubeless) and
variance reduction (off with ``--trials`` games, on with ``--vr-trials`` when ``--vr``), we roll
the position out with ``--workers`` processes, and when the ``gnubg`` wheel is importable GNU
Backgammon rolls out the same position with the same settings (0-ply chequer play and cube
decisions, every play evaluated by the full net -- pruning off, as ours --, quasi-random dice, the
same truncation, the bear-off databases, ``--workers`` threads) in a separate process; one line
each, with the ratio, and a table of all of them at the end. gnubg is only a referee here: nothing
of it is used by ``analyzer``.

Both sides count games the same way (trials played, divided by the wall time of the rollout
alone, start-up of our worker processes included) and also per CPU second (ours: this process
and its workers; gnubg's: its process, all threads), the figure that survives a busy machine.
A cubeful trial of ours plays No double and Double/take side by side with the same dice (one
board, two cube games) and ends when both have ended by a pass (its cubeless part then valued at
0-ply there); gnubg's plays the position as it is and ends a game at a pass. Both count as one
game per trial. Ours stops every game at a bear-off database position; gnubg's cubeful games go
on to the two-sided (exact) database.

    .venv/bin/python bench/rollout.py [--trials 1296] [--workers 2] [--vr] [--vr-trials 144]
        [--position opening middle] [--truncate 0 7 11] [--cubeful] [--luck-prune] [--player-ply 0 1] [--no-gnubg]

``--luck-prune`` adds a variance-reduced run of ours with ``luck_prune`` (the luck of each roll
from the pruned 0-ply plays, as gnubg's rollouts with its pruning nets), beside the same gnubg run.

``--player-ply 0 1`` times our runs with each player (``RolloutSettings.player_ply``: 0, each roll's
0-ply best play; 1, the best of a 1-ply search); gnubg runs beside the 0-ply player's only.

``--variant dutch|mahbusa`` times our variant rollouts instead (cubeless, played out, no variance
reduction; no other engine plays these games): the opening position, and the two best plays of a
middle-game roll from one of our own self-play games.

    .venv/bin/python bench/rollout.py --variant mahbusa [--trials 1296] [--workers 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import time

import psutil

from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.eval.rollout import RolloutSettings, close_pool, rollout

MIDDLE = Position.from_points({20: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {4: 2, 12: 4, 17: 2, 18: 2, 19: 4, 21: 1})
"""A middle game: both sides hold an anchor on the other's 5- or 4-point, the side on roll 4 pips ahead."""
POSITIONS = {"opening": Position.start(), "middle": MIDDLE}
WARM = Position.from_points({1: 2, 2: 1}, {24: 1, 23: 2})
"""A bear-off position (its games stop at once) for loading the kernels and starting the worker processes:
it leaves nothing in the evaluation caches that the timed positions could use."""

GNUBG_SCRIPT = r"""
import json, sys, time
import gnubg
n, threads, vr, trunc, cubeful, xgid = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4]),
                                       sys.argv[5] == "1", sys.argv[6])
for c in ["set threads %d" % threads, "set rollout trials %d" % n, "set jacoby off",
          "set rollout cubeful %s" % ("on" if cubeful else "off"),
          "set rollout varredn %s" % ("on" if vr else "off"),
          "set rollout truncation enable %s" % ("on" if trunc > 0 else "off"),
          "set rollout truncation plies %d" % max(trunc, 1),
          "set rollout truncation chequerplay plies 0", "set rollout truncation cubedecision plies 0",
          "set rollout chequerplay plies 0", "set rollout cubedecision plies 0", "set rollout later enable off",
          "set rollout chequerplay prune off", "set rollout cubedecision prune off",
          "set rollout quasirandom on", "set rollout seed 1", "set rollout bearofftruncation exact on",
          "set rollout bearofftruncation onesided on"]:
    gnubg.command(c)
gnubg.setgnubgid(xgid)
t, c = time.perf_counter(), time.process_time()
gnubg.command("rollout")
sys.stderr.write(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c}) + "\n")
"""


def xgid(pos: Position) -> str:
    """The XGID of ``pos`` before the roll, its side on roll at the bottom, money, cube centred at 1."""
    me, them = pos.mover, pos.opponent
    chars = ["-" if pos.opponent_bar == 0 else chr(ord("a") + pos.opponent_bar - 1)]
    for p in range(24):
        if me[p]:
            chars.append(chr(ord("A") + me[p] - 1))
        elif them[p]:
            chars.append(chr(ord("a") + them[p] - 1))
        else:
            chars.append("-")
    chars.append("-" if pos.mover_bar == 0 else chr(ord("A") + pos.mover_bar - 1))
    return "XGID=" + "".join(chars) + ":0:0:1:00:0:0:0:0:10"


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children, finished or alive (the rollout's worker
    processes, kept from one rollout to the next)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    live = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
        except psutil.Error:  # finished meanwhile: counted by RUSAGE_CHILDREN once waited for
            continue
        live += t.user + t.system
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime + live


def ours(engine: Engine, pos: Position, trials: int, workers: int, vr: bool, truncate: int,
         cubeful: bool, luck_prune: bool = False, cold_pool: bool = False,
         player_ply: int = 0) -> tuple[float, float, float, float]:
    """(games/s, games per CPU second, cubeless or cubeful equity, its standard error) of one timed
    rollout; ``cold_pool``: its worker processes started inside the timing (not kept from the last one);
    ``player_ply``: the ply of the player in the games."""
    close_pool()  # new workers, empty caches: nothing left from the last run
    if not cold_pool:  # started before the timing, as a review's rollouts find them (kept from the last one)
        rollout(engine, WARM, RolloutSettings(trials=72, workers=workers, cubeful=False, variance_reduction=False))
    t, c0 = time.perf_counter(), _cpu_seconds()
    r = rollout(engine, pos, RolloutSettings(trials=trials, workers=workers, cubeful=cubeful, cube_play=cubeful,
                                             variance_reduction=vr, truncate=truncate or None, seed=1,
                                             luck_prune=luck_prune, player_ply=player_ply))
    dt, cpu = time.perf_counter() - t, _cpu_seconds() - c0
    c = r.best
    if cubeful and c.cubeful_equity is not None and c.cubeful_se is not None:
        return trials / dt, trials / cpu, c.cubeful_equity, c.cubeful_se
    return trials / dt, trials / cpu, r.equity, r.equity_se


def gnubg(pos: Position, trials: int, threads: int, vr: bool, truncate: int,
          cubeful: bool) -> tuple[float, float] | None:
    """gnubg's (games/s, games per CPU second) with the same settings, or None without the wheel."""
    if importlib.util.find_spec("gnubg") is None:
        return None
    p = subprocess.run([sys.executable, "-c", GNUBG_SCRIPT, str(trials), str(threads), "1" if vr else "0",
                        str(truncate), "1" if cubeful else "0", xgid(pos)],
                       capture_output=True, text=True, timeout=3600, check=False)
    for line in p.stderr.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            return float(trials / d["seconds"]), float(trials / d["cpu"])
    return None


def variant_speed(variant: str, trials: int, workers: int) -> None:
    """Print games per second of variant rollouts (the opening, and two plays of a middle-game roll)."""
    from analyzer.eval.variants.engine import engine_for
    from analyzer.eval.variants.play import GameBuffers, play_seeded

    eng = engine_for(variant)
    rollout(eng, Position.start(eng.variant), RolloutSettings(trials=2, workers=1))  # compile / load the kernels
    buf = GameBuffers()
    n = play_seeded(eng.net, 11, 0.05, buf)[0]
    middle = Position(buf.states[n // 3].tobytes(), eng.variant)
    for name, pos, dice in (("the opening position", Position.start(eng.variant), None),
                            ("the 2 best plays of 31 in a middle-game position", middle, (3, 1))):
        t = time.perf_counter()
        r = rollout(eng, pos, RolloutSettings(trials=trials, workers=workers, max_plays=2, threshold=9.0), dice=dice)
        dt = time.perf_counter() - t
        games = sum(c.games + c.dropped for c in r.candidates)
        print(f"bgreview {eng.variant}: {trials} full 0-ply cubeless games each of {name}, {workers} workers: "
              f"{games / dt:.1f} games/s, {dt:.1f} s (best {r.best.equity:+.3f} +- {r.best.equity_se:.3f})",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296, help="trials of the runs without variance reduction")
    ap.add_argument("--vr-trials", type=int, default=144, help="trials of the variance-reduced runs")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--vr", action="store_true", help="also time rollouts with variance reduction")
    ap.add_argument("--only-vr", action="store_true", help="time only rollouts with variance reduction")
    ap.add_argument("--position", nargs="+", choices=sorted(POSITIONS), default=["opening"])
    ap.add_argument("--truncate", nargs="+", type=int, default=[0], help="plies (0: play the games out)")
    ap.add_argument("--cubeful", action="store_true", help="cube play in the rollouts (money, no Jacoby)")
    ap.add_argument("--luck-prune", action="store_true",
                    help="variance-reduced runs twice: exact luck, and luck from the pruned 0-ply plays (luck_prune)")
    ap.add_argument("--player-ply", nargs="+", type=int, default=[0], choices=(0, 1),
                    help="our runs with each of these players (0: the 0-ply best play, 1: a 1-ply search)")
    ap.add_argument("--no-gnubg", action="store_true")
    ap.add_argument("--cold-pool", action="store_true",
                    help="start our worker processes inside each timed rollout (not kept from the warm-up's)")
    ap.add_argument("--variant", choices=("dutch", "mahbusa", "plakoto"), help="time the variant rollouts")
    a = ap.parse_args()
    if a.variant:
        variant_speed(a.variant, a.trials, a.workers)
        return
    engine = Engine()
    warm = RolloutSettings(trials=36, workers=1, cubeful=True, cube_play=True, variance_reduction=True, truncate=2)
    rollout(engine, WARM, warm)  # compile / load the kernels
    runs = [] if a.only_vr else [(False, a.trials, False)]
    if a.vr or a.only_vr:
        runs.append((True, a.vr_trials, False))
    if a.luck_prune and (a.vr or a.only_vr):
        runs.append((True, a.vr_trials, True))
    rows: list[tuple[str, str, str, str, int, float, float | None, float, float | None]] = []
    for name in a.position:
        pos = POSITIONS[name]
        for trunc in a.truncate:
            g_vr: tuple[float, float] | None = None
            for (vr, n, lp), pp in ((run, pp) for run in runs for pp in a.player_ply):
                gps, gpc, eq, se = ours(engine, pos, n, a.workers, vr, trunc, a.cubeful, lp, a.cold_pool, pp)
                how = "played out" if trunc <= 0 else f"{trunc}-ply truncated"
                cube = "cubeful" if a.cubeful else "cubeless"
                what = (f"{n} {'played-out' if trunc <= 0 else f'{trunc}-ply truncated'} {pp}-ply "
                        f"{cube} games of the {name} position, variance reduction "
                        f"{'on' if vr else 'off'}{' (luck_prune)' if lp else ''}")
                print(f"bgreview: {what}, {a.workers} workers: {gps:.1f} games/s, {gpc:.1f} games per CPU second "
                      f"({cube} equity {eq:+.3f} +- {se:.3f})", flush=True)
                vr_name = ("luck_prune" if lp else "on") if vr else "off"
                if a.no_gnubg or pp > 0:
                    rows.append((name, how, cube, vr_name, pp, gps, None, gpc, None))
                    continue
                if lp:  # gnubg's variance-reduced run just above
                    g = g_vr
                else:
                    g = gnubg(pos, n, a.workers, vr, trunc, a.cubeful)
                    if vr:
                        g_vr = g
                rows.append((name, how, cube, vr_name, pp, gps, None if g is None else g[0], gpc,
                             None if g is None else g[1]))
                if g is None:
                    print("gnubg:    wheel not installed (pip install gnubg) or no result, no comparison", flush=True)
                else:
                    print(f"gnubg:    {'the variance-reduced run above' if lp else 'same settings'}, {a.workers} "
                          f"threads: {g[0]:.1f} games/s, {g[1]:.1f} games per CPU second; ratio bgreview/gnubg = "
                          f"{gps / g[0]:.2f} (per CPU second {gpc / g[1]:.2f})", flush=True)
    print("\n| position | games | cube | variance reduction | player ply | bgreview games/s | bgreview games per "
          "CPU second | gnubg games/s | ratio | ratio per CPU second |\n|---|---|---|---|---|---|---|---|---|---|")
    for name, how, cube, vr_name, pp, gps, g_gps, gpc, g_gpc in rows:
        ratio = "" if g_gps is None else f"{gps / g_gps:.2f}"
        cratio = "" if g_gpc is None else f"{gpc / g_gpc:.2f}"
        gnu = "" if g_gps is None else f"{g_gps:.1f}"
        print(f"| {name} | {how} | {cube} | {vr_name} | {pp} | {gps:.1f} | {gpc:.1f} | {gnu} | {ratio} | {cratio} |")

if __name__ == "__main__":
    main()
