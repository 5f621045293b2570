"""The referee yardstick of issue 51: our evaluator beside GNU Backgammon's, both against gnubg's rollouts.

The referee set (``bench/data/referee/``, built by ``tools/gnubg_referee.py``; GNU Backgammon is a
referee only, its rollouts measure and never label or train) holds positions of real matches from
files no net trains on, each rolled out cubeless by gnubg, with gnubg's own 0-, 1- and 2-ply
chances beside it; and real decisions (checker plays and doubles with their answers) whose
candidates gnubg rolled out cubeful in their match.

This bench prints, per class of position (a position counts in every class it belongs to,
``tools/gnubg_referee.py position_labels``), our 0-, 1- and 2-ply beside gnubg's against the
rollout: mean |Δ equity| (cubeless money equity), |Δ win| and |Δ gammon| (the mean of |Δ win
gammon| and |Δ lose gammon|), in percent for the chances, and the bias (mean signed Δ equity), with
holding, back games and containment also split by the seat of the side holding more checkers back;
then, for the decisions, how often each picks the rollout's best play, the mean loss of its
choice valued by the rollout (over the choices the rollout has a value for), how often its cube
action (double or not, take or pass) is the rollout's, and its mean cube error by the rollout.
Whatever part of the set exists is used; the counts are printed.

Usage::

    python bench/referee.py                         # the committed set
    python bench/referee.py --data /work/runs/referee --selection bench/data/referee/selection.json.gz
    python bench/referee.py --plies 0 --json out.json
    # issue 51's first question: our own 1,296-trial rollouts of the same positions against gnubg's
    nice -n 19 python bench/referee.py --plies 0 --our-rollouts /work/runs/referee/ours.jsonl --our-limit 20
    # the same by a 1-ply player (RolloutSettings.player_ply), of back games only, the seats in turn
    nice -n 19 python bench/referee.py --plies 0 --our-rollouts runs/ours_p1.jsonl --our-limit 20 \
        --our-trials 144 --our-luck-prune --our-player-ply 1 --our-classes "back game"
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "referee"
CLASSES = ("race", "bear-off vs contact", "holding / ace-point", "back game", "prime vs prime", "blitz",
           "crashed", "on the bar", "containment", "middle game")
PLIES = (0, 1, 2)
SPLIT = ("holding / ace-point", "back game", "containment")
"""Classes also shown split by the seat of the side holding more checkers back: in back games and
containment our nets undervalue that side by about 0.1 from either seat, and the class mean hides it
(docs/benchmarks.md, the referee section)."""
SEATS = ("back side on roll", "back side off roll")

Probs = Sequence[float]
"""Five chances of the side on roll, gnubg's order: win, win gammon, win backgammon, lose gammon,
lose backgammon (gammons include backgammons)."""


# --------------------------------------------------------------------------- reading the set
def read_rows(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, plain or gzipped (a torn last line is skipped); the last
    record of an id wins."""
    if not path.exists():
        return []
    opener: Any = gzip.open if path.suffix == ".gz" else open
    rows: dict[str, dict[str, Any]] = {}
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            rows[r["id"]] = r
    return [rows[k] for k in sorted(rows)]


Rows = list[dict[str, Any]]


def load(data: Path, selection: Path | None = None) -> tuple[dict[str, Any], Rows, Rows]:
    """(selection, positions, decisions) of a referee folder: ``selection.json.gz`` (or ``selection``)
    and the results ``positions.jsonl[.gz]``, ``decisions.jsonl[.gz]``."""
    sel_path = selection or data / "selection.json.gz"
    sel: dict[str, Any] = json.loads(gzip.decompress(sel_path.read_bytes()))

    def rows(name: str) -> list[dict[str, Any]]:
        for suffix in (".jsonl.gz", ".jsonl"):
            if (data / f"{name}{suffix}").exists():
                return read_rows(data / f"{name}{suffix}")
        return []

    return sel, rows("positions"), rows("decisions")


# --------------------------------------------------------------------------- small measures
def equity(p: Probs) -> float:
    """Cubeless money equity of five chances.

    >>> equity([0.6, 0.2, 0.01, 0.1, 0.0])
    0.31
    """
    return round(2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4], 12)


def deltas(p: Probs, ref: Probs) -> tuple[float, float, float]:
    """(Δ equity, |Δ win|, |Δ gammon|) of chances ``p`` against ``ref``; |Δ gammon| is the mean of
    |Δ win gammon| and |Δ lose gammon|.

    >>> [round(x, 3) for x in deltas([0.6, 0.2, 0.0, 0.1, 0.0], [0.5, 0.1, 0.0, 0.1, 0.0])]
    [0.3, 0.1, 0.05]
    """
    return (equity(p) - equity(ref), abs(p[0] - ref[0]), (abs(p[1] - ref[1]) + abs(p[3] - ref[3])) / 2.0)


def cube_action(nd: float, dt: float, dp: float = 1.0) -> tuple[bool, bool]:
    """(double, take) that cubeful equities of the doubler call for.

    >>> cube_action(0.5, 0.6), cube_action(0.5, 1.2), cube_action(0.7, 0.6)
    ((True, True), (True, False), (False, True))
    """
    return min(dt, dp) > nd, dt <= dp


def cube_error(action: tuple[bool, bool], nd: float, dt: float, dp: float = 1.0) -> float:
    """What ``action`` (double?, take?) loses against the best play of both sides by the cubeful
    equities ``nd``, ``dt``, ``dp`` (the doubler's): the doubler's error plus the taker's.

    >>> cube_error((False, True), 0.5, 0.6), cube_error((True, False), 0.5, 0.6)
    (0.1, 0.4)
    """
    best = max(nd, min(dt, dp))
    doubler = best - (min(dt, dp) if action[0] else nd)
    taker = 0.0 if action[1] == (dt <= dp) else abs(dt - dp)
    return round(doubler + taker, 12)


def _emg(x: float, coef: Sequence[float]) -> float:
    return float(coef[0]) + float(coef[1]) * float(x)


def _key(move: Iterable[Iterable[int]]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((int(a), int(b)) for a, b in move))


# --------------------------------------------------------------------------- positions
def back_seat(pid: str) -> str | None:
    """Which side of a Position ID holds more checkers back (on the bar or in the other side's home
    board): ``"back side on roll"``, ``"back side off roll"``, or ``None`` when both hold as many.

    >>> back_seat("4HPwATDgc/ABMA") is None  # the starting position
    True
    """
    from analyzer.core.ids import decode_position_id

    b = np.frombuffer(decode_position_id(pid).board, np.int8).astype(np.int64)
    mine = int(b[19:25].clip(min=0).sum() + b[25])
    theirs = int((-b[1:7]).clip(min=0).sum() + b[0])
    if mine == theirs:
        return None
    return SEATS[0] if mine > theirs else SEATS[1]


def class_order() -> list[str]:
    """The rows of the positions' table: ``all``, then the classes, each of :data:`SPLIT` followed by
    its two seats.

    >>> class_order()[:4]
    ['all', 'race', 'bear-off vs contact', 'holding / ace-point']
    >>> class_order()[4]
    'holding / ace-point: back side on roll'
    """
    out = ["all"]
    for c in CLASSES:
        out.append(c)
        if c in SPLIT:
            out.extend(f"{c}: {s}" for s in SEATS)
    return out


Evaluator = Callable[[str, int], Probs]
"""Our chances of a Position ID at a ply."""


def our_evaluator(nets: Path | None = None) -> Evaluator:
    """Our engine's cubeless chances (shipped nets, or ``nets``) in gnubg's order."""
    from analyzer.core.ids import decode_position_id
    from analyzer.eval.engine import Engine

    if nets is None:
        eng = Engine()
    else:
        from bglab.checkpoint import load_nets

        eng = Engine(load_nets(nets))

    def ev(pid: str, ply: int) -> Probs:
        p = eng.evaluate(decode_position_id(pid), ply)
        return (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)

    ev.engine = eng  # type: ignore[attr-defined]
    return ev


def position_figures(sel: dict[str, Any], rows: list[dict[str, Any]], ours: Evaluator,
                     plies: Sequence[int] = PLIES) -> dict[str, Any]:
    """Per class (and ``all``; the classes of :data:`SPLIT` also by :func:`back_seat`, a row each):
    n, the mean rollout SE of the equity, and for every engine and ply (``ours 0``, ``gnubg 2``, ...)
    the mean |Δ equity|, |Δ win|, |Δ gammon| and the bias."""
    labels = {p["id"]: p.get("labels") or [p["class"]] for p in sel["positions"]}
    acc: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
    se: dict[str, list[float]] = {}
    for r in rows:
        if "rollout" not in r:
            continue
        ref = r["rollout"]["probs"]
        engines: dict[str, Probs] = {f"ours {k}": ours(r["pid"], k) for k in plies}
        engines.update({f"gnubg {k}": r["gnubg_ply"][k] for k in plies})
        classes = labels.get(r["id"], [r["class"]])
        seat = back_seat(r["pid"]) if any(c in SPLIT for c in classes) else None
        split = [f"{c}: {seat}" for c in classes if seat is not None and c in SPLIT]
        for c in ["all", *classes, *split]:
            se.setdefault(c, []).append(float(r["rollout"]["equity_se"]))
            for name, p in engines.items():
                acc.setdefault(c, {}).setdefault(name, []).append(deltas(p, ref))
    out: dict[str, Any] = {}
    for c in class_order():
        if c not in acc:
            continue
        row: dict[str, Any] = {"n": len(se[c]), "rollout_se": float(np.mean(se[c]))}
        for name, ds in acc[c].items():
            a = np.array(ds)
            row[name] = {"equity": float(np.abs(a[:, 0]).mean()), "win": float(a[:, 1].mean()),
                         "gammon": float(a[:, 2].mean()), "bias": float(a[:, 0].mean())}
        top = max(plies)
        if f"ours {top}" in acc[c]:  # ours against gnubg at the deepest ply shown, paired by position
            diff = np.abs(np.array(acc[c][f"ours {top}"])[:, 0]) - np.abs(np.array(acc[c][f"gnubg {top}"])[:, 0])
            g = row[f"gnubg {top}"]["equity"]
            row["paired"] = {"ply": top, "ratio": row[f"ours {top}"]["equity"] / g if g > 0 else float("nan"),
                             "diff": float(diff.mean()),
                             "diff_se": float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("nan")}
        out[c] = row
    return out


# --------------------------------------------------------------------------- decisions
Chooser = Callable[[dict[str, Any], int], Any]


def our_choosers(ev: Evaluator) -> tuple[Chooser, Chooser]:
    """(our best play's Position ID after it, our cube action (double, take)) at a ply."""
    from analyzer.core.ids import decode_position_id, encode_position_id
    from analyzer.core.match import MatchState
    from analyzer.eval.cube_search import cube_decision_nply

    eng = ev.engine  # type: ignore[attr-defined]

    def play(d: dict[str, Any], ply: int) -> str:
        ranked = eng.rank_plays(decode_position_id(d["pid"]), (d["dice"][0], d["dice"][1]), ply)
        return encode_position_id(ranked[0].result.flip())

    def cube(d: dict[str, Any], ply: int) -> tuple[bool, bool]:
        st = dict(d["state"])
        st["score"] = tuple(st["score"])
        c = cube_decision_nply(eng, decode_position_id(d["pid"]), MatchState(**st), int(d["side"]), ply)
        return bool(c.double), bool(c.take)

    return play, cube


def decision_figures(sel: dict[str, Any], rows: list[dict[str, Any]], play: Chooser, cube: Chooser,
                     plies: Sequence[int] = PLIES) -> dict[str, Any]:
    """Checker plays: per chooser (``ours 0`` .. ``gnubg 2``, ``played``) how often its play is the
    rollout's best (``best``, of ``n``), the mean loss of its play by the rollout (over the ``valued``
    choices the rollout has a value for); cube decisions: how often its action is the rollout's
    (``agree``) and its mean cube error (``error``)."""
    items = {d["id"]: d for d in sel["decisions"]}
    checker: dict[str, dict[str, Any]] = {}
    cubes: dict[str, dict[str, Any]] = {}
    for r in rows:
        d = items.get(r["id"])
        if d is None or "after" not in r:
            continue
        coef = r["emg"]
        if r["kind"] == "checker":
            pids = {_key(m): pid for m, pid in r["candidates"]}
            values = {pids[_key(m["move"])]: _emg(m["cubeful-eq"], coef) for m in r["after"].get("moves", [])
                      if m.get("type") == "rollout" and _key(m["move"]) in pids}
            if not values:
                continue
            best = max(values.values())
            two = r["plies"]["2"]
            picks = {f"ours {k}": play(d, k) for k in plies}
            picks.update({f"gnubg {k}": r["choice"].get(str(k)) for k in plies})
            picks["played"] = pids.get(_key(two["moves"][int(two["imove"])]["move"]))
            for name, pid in picks.items():
                s = checker.setdefault(name, {"n": 0, "best": 0, "valued": 0, "loss": 0.0})
                s["n"] += 1
                if pid in values:
                    s["valued"] += 1
                    s["loss"] += best - values[pid]
                    s["best"] += int(values[pid] >= best)
        else:
            a = r["after"]
            if "nd-cubeful-eq" not in a:
                continue
            nd, dt = _emg(a["nd-cubeful-eq"], coef), _emg(a["dt-cubeful-eq"], coef)
            truth = cube_action(nd, dt)
            acts: dict[str, tuple[bool, bool] | None] = {f"ours {k}": cube(d, k) for k in plies}
            for k in plies:
                g = r["plies"][str(k)]
                acts[f"gnubg {k}"] = (cube_action(_emg(g["nd-cubeful-eq"], coef), _emg(g["dt-cubeful-eq"], coef))
                                      if "nd-cubeful-eq" in g else None)
            acts["played"] = (True, d.get("answer") == "take")
            for name, act in acts.items():
                s = cubes.setdefault(name, {"n": 0, "agree": 0, "error": 0.0})
                if act is None:
                    continue
                s["n"] += 1
                s["agree"] += int(act == truth)
                s["error"] += cube_error(act, nd, dt)
    for s in checker.values():
        s["loss"] = s["loss"] / s["valued"] if s["valued"] else float("nan")
    for s in cubes.values():
        s["error"] = s["error"] / s["n"] if s["n"] else float("nan")
    return {"checker": checker, "cube": cubes}


# --------------------------------------------------------------------------- our rollouts against gnubg's
def our_rollouts(rows: Rows, cache: Path, trials: int, seed: int, limit: int, nets: Path | None = None,
                 log: Any = None, player_ply: int = 0, luck_prune: bool = False) -> Rows:
    """Our cubeless rollouts (variance reduction, ``trials``, seeded per position; the player of the
    games at ``player_ply``, the luck from the pruned 0-ply plays with ``luck_prune``) of the positions
    gnubg rolled out, appended to ``cache`` (JSON lines, resumable; at most ``limit`` new ones a call, in
    the order of ``rows``); returns the cached ones of this net, trials, seed, player and luck (one cache
    file a player: a position's last record wins). Issue 51's first question: are our own rollouts, the
    nets' training signal, off where gnubg's are not? And does a 1-ply player's come closer?"""
    from analyzer.core.ids import decode_position_id
    from analyzer.eval.engine import Engine
    from analyzer.eval.net import weights_fingerprint
    from analyzer.eval.rollout import rollout
    from analyzer.eval.trials import RolloutSettings

    if nets is None:
        eng = Engine()
    else:
        from bglab.checkpoint import load_nets

        eng = Engine(load_nets(nets))
    fp = weights_fingerprint(eng.nets.contact)

    def mine(r: dict[str, Any]) -> bool:
        return bool(r.get("net") == fp and r.get("trials") == trials and r.get("seed") == seed
                    and r.get("player_ply", 0) == player_ply and bool(r.get("luck_prune", False)) == luck_prune)

    have = {r["id"] for r in read_rows(cache) if mine(r)}
    if limit <= 0:
        return [r for r in read_rows(cache) if mine(r)]
    if cache.suffix == ".gz":
        raise ValueError(f"{cache}: a gzipped cache is read only (roll out into a plain .jsonl file)")
    cache.parent.mkdir(parents=True, exist_ok=True)
    added = 0
    with cache.open("a", encoding="utf-8") as fh:
        for r in rows:
            if added >= limit:
                break
            if "rollout" not in r or r["id"] in have:
                continue
            t0 = time.time()
            n = int(r["id"][1:])
            res = rollout(eng, decode_position_id(r["pid"]),
                          RolloutSettings(trials=trials, cubeful=False, variance_reduction=True,
                                          seed=seed * 100_003 + n, workers=1, player_ply=player_ply,
                                          luck_prune=luck_prune))
            c = res.candidates[0]
            p = c.probabilities
            rec = {"id": r["id"], "pid": r["pid"], "net": fp, "trials": trials, "seed": seed,
                   "player_ply": player_ply, "luck_prune": luck_prune,
                   "probs": [round(x, 6) for x in (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon,
                                                   p.lose_backgammon)],
                   "probs_se": [round(float(x), 6) for x in c.probabilities_se],
                   "equity": round(c.equity, 6), "equity_se": round(c.equity_se, 6),
                   "seconds": round(time.time() - t0, 1)}
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            fh.flush()
            added += 1
            if log is not None:
                print(f"{r['id']} ({r['class']}): ours {rec['equity']:+.4f} ± {rec['equity_se']:.4f}, gnubg "
                      f"{r['rollout']['equity']:+.4f} ± {r['rollout']['equity_se']:.4f} ({rec['seconds']:.0f} s)",
                      file=log, flush=True)
    return [r for r in read_rows(cache) if mine(r)]


def seats_in_turn(sel: dict[str, Any], rows: Rows, classes: Sequence[str]) -> Rows:
    """The rows of positions in any of ``classes``, in their order, the seats of the back-checker side
    (:func:`back_seat`: on roll, off roll, neither) taking turns.

    >>> sel = {"positions": [{"id": "a", "class": "back game"}, {"id": "b", "class": "race"}]}
    >>> [r["id"] for r in seats_in_turn(sel, [{"id": "a", "pid": "4HPwATDgc/ABMA"}, {"id": "b"}], ["back game"])]
    ['a']
    """
    labels = {p["id"]: p.get("labels") or [p["class"]] for p in sel["positions"]}
    queues: dict[str | None, Rows] = {}
    for r in rows:
        if any(c in labels.get(r["id"], []) for c in classes):
            queues.setdefault(back_seat(r["pid"]), []).append(r)
    out: Rows = []
    for i in range(max((len(q) for q in queues.values()), default=0)):
        out += [q[i] for k, q in sorted(queues.items(), key=lambda kv: str(kv[0])) if i < len(q)]
    return out


def rollout_figures(sel: dict[str, Any], rows: Rows, ours: Rows) -> dict[str, Any]:
    """Per class (and ``all``; the classes of :data:`SPLIT` also by :func:`back_seat`): our rollouts
    against gnubg's on the same positions: n, mean |Δ equity|, the bias (mean Δ) and its standard error,
    |Δ win|, |Δ gammon|, and the noise floor (the mean of the two rollouts' combined equity standard error)."""
    labels = {p["id"]: p.get("labels") or [p["class"]] for p in sel["positions"]}
    ref = {r["id"]: r for r in rows if "rollout" in r}
    acc: dict[str, list[tuple[float, float, float, float]]] = {}
    for o in ours:
        g = ref.get(o["id"])
        if g is None:
            continue
        de, dw, dg = deltas(o["probs"], g["rollout"]["probs"])
        floor = float(np.hypot(o["equity_se"], g["rollout"]["equity_se"]))
        classes = labels.get(o["id"], [g["class"]])
        seat = back_seat(g["pid"]) if any(c in SPLIT for c in classes) else None
        split = [f"{c}: {seat}" for c in classes if seat is not None and c in SPLIT]
        for c in ["all", *classes, *split]:
            acc.setdefault(c, []).append((de, dw, dg, floor))
    out: dict[str, Any] = {}
    for c in class_order():
        if c not in acc:
            continue
        a = np.array(acc[c])
        out[c] = {"n": len(a), "equity": float(np.abs(a[:, 0]).mean()), "bias": float(a[:, 0].mean()),
                  "bias_se": float(a[:, 0].std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else float("nan"),
                  "win": float(a[:, 1].mean()), "gammon": float(a[:, 2].mean()), "floor": float(a[:, 3].mean())}
    return out


def rollout_lines(fig: dict[str, Any], trials: int) -> list[str]:
    """The printed block of :func:`rollout_figures`."""
    out = [f"our {trials}-trial rollouts against gnubg's, same positions (cubeless; floor: the mean combined "
           "SE of the two rollouts' equities)",
           f"{'':44s}{'n':>5s}{'|Δ eq|':>9s}{'bias':>9s}{'± SE':>8s}{'|Δ win|%':>10s}{'|Δ gam|%':>10s}{'floor':>8s}"]
    for c, r in fig.items():
        out.append(f"  {c:42s}{r['n']:5d}{r['equity']:9.4f}{r['bias']:+9.4f}{r['bias_se']:8.4f}"
                   f"{r['win'] * 100:10.2f}{r['gammon'] * 100:10.2f}{r['floor']:8.4f}")
    return out


# --------------------------------------------------------------------------- the table
def lines(pos: dict[str, Any], dec: dict[str, Any], plies: Sequence[int] = PLIES, trials: str = "") -> list[str]:
    """The printed table."""
    names = [f"ours {k}" for k in plies] + [f"gnubg {k}" for k in plies]
    out: list[str] = []
    blocks = (("mean |Δ equity|", "equity", 1.0, ".4f"), ("mean |Δ win| (%)", "win", 100.0, ".2f"),
              ("mean |Δ gammon| (%)", "gammon", 100.0, ".2f"), ("bias: mean Δ equity", "bias", 1.0, "+.4f"))
    top = max(plies)
    for title, key, scale, fmt in blocks if pos else ():
        extra = f"{f'ours{top}/gnubg{top}':>14s}{'paired Δ ± SE':>18s}" if key == "equity" else ""
        out.append(f"{title:44s}{'n':>5s}{'roll.SE':>8s}" + "".join(f"{n:>9s}" for n in names) + extra)
        for c, row in pos.items():
            line = (f"  {c:42s}{row['n']:5d}{row['rollout_se']:8.4f}"
                    + "".join(f"{format(row[n][key] * scale, fmt):>9s}" for n in names))
            if key == "equity" and "paired" in row:
                pr = row["paired"]
                line += f"{pr['ratio']:13.2f}x{pr['diff']:+10.4f} ± {pr['diff_se']:.4f}"
            out.append(line)
        out.append("")
    if pos:
        out.insert(0, f"positions against gnubg's cubeless rollouts{trials}: our n-ply and gnubg's (cubeless "
                      "money equity; a position counts in each class it belongs to)")
    ch, cu = dec["checker"], dec["cube"]
    if ch:
        out.append(f"checker plays (rollout's best, mean loss by the rollout){'':0s}")
        out.append(f"{'':32s}{'n':>5s}{'best':>7s}{'valued':>8s}{'mean loss':>11s}")
        for n, s in ch.items():
            out.append(f"  {n:30s}{s['n']:5d}{s['best']:7d}{s['valued']:8d}{s['loss']:11.4f}")
        out.append("")
    if cu:
        out.append("cube decisions (action = the rollout's, mean cube error by the rollout)")
        out.append(f"{'':32s}{'n':>5s}{'agree':>7s}{'mean error':>12s}")
        for n, s in cu.items():
            out.append(f"  {n:30s}{s['n']:5d}{s['agree']:7d}{s['error']:12.4f}")
    if not pos and not ch and not cu:
        out.append("no rolled-out position or decision yet")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder of the results (default: the committed set)")
    ap.add_argument("--selection", type=Path, help="the selection file (default: <data>/selection.json.gz)")
    ap.add_argument("--plies", default="0,1,2", help="plies of ours and gnubg's to show")
    ap.add_argument("--nets", type=Path, help="our net set to measure (default: the shipped one)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    ap.add_argument("--our-rollouts", type=Path,
                    help="also compare our own rollouts with gnubg's: this JSON-lines cache (resumed)")
    ap.add_argument("--our-limit", type=int, default=0, help="with --our-rollouts: roll out this many more first")
    ap.add_argument("--our-trials", type=int, default=1296)
    ap.add_argument("--our-seed", type=int, default=51)
    ap.add_argument("--our-player-ply", type=int, default=0, choices=(0, 1),
                    help="with --our-rollouts: the player of our games (0-ply, or a 1-ply search)")
    ap.add_argument("--our-luck-prune", action="store_true",
                    help="with --our-rollouts: the luck from the pruned 0-ply plays (as our label builds)")
    ap.add_argument("--our-classes", help="with --our-rollouts: roll out only positions of these classes (comma "
                                          "separated), the seats of the back-checker side in turn")
    args = ap.parse_args(argv)
    plies = tuple(int(x) for x in args.plies.split(","))
    t0 = time.time()
    sel, positions, decisions = load(args.data, args.selection)
    ev = our_evaluator(args.nets)
    play, cube = our_choosers(ev)
    pos = position_figures(sel, positions, ev, plies)
    dec = decision_figures(sel, decisions, play, cube, plies)
    trials = sorted({r["rollout"]["trials"] for r in positions if "rollout" in r})
    failed = sum(1 for r in positions + decisions if "error" in r)
    print(f"referee set {args.data}: {sum(1 for r in positions if 'rollout' in r)} positions of "
          f"{len(sel['positions'])} selected, {sum(1 for r in decisions if 'after' in r)} decisions of "
          f"{len(sel['decisions'])} ({failed} failed); {time.time() - t0:.0f} s")
    for line in lines(pos, dec, plies, f" ({'/'.join(map(str, trials))} trials)" if trials else ""):
        print(line)
    result: dict[str, Any] = {"positions": pos, "decisions": dec}
    if args.our_rollouts is not None:
        rank: dict[str, int] = {}
        seen: dict[str, int] = {}
        for p in sel["positions"]:  # the classes in turn, as the build takes them
            k = p.get("drawn_for", p["class"])
            rank[p["id"]] = seen.get(k, 0)
            seen[k] = rank[p["id"]] + 1
        ordered = sorted(positions, key=lambda r: (rank.get(r["id"], 0), r["id"]))
        if args.our_classes:
            ordered = seats_in_turn(sel, ordered, [c.strip() for c in args.our_classes.split(",")])
        mine = our_rollouts(ordered, args.our_rollouts, args.our_trials, args.our_seed, args.our_limit, args.nets,
                            log=sys.stdout, player_ply=args.our_player_ply, luck_prune=args.our_luck_prune)
        result["our_rollouts"] = rollout_figures(sel, positions, mine)
        print()
        for line in rollout_lines(result["our_rollouts"], args.our_trials):
            print(line)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
