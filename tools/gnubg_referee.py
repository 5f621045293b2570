"""Build the referee set of issue 51 with GNU Backgammon: positions and decisions of real matches
rolled out by gnubg, the yardstick ``bench/referee.py`` measures our evaluator (and gnubg's) against.

GNU Backgammon is a referee only: its rollouts measure, never label, never train, never screen a
candidate. It runs in its own process (the Debian build, ``/usr/games/gnubg``); nothing in
``analyzer/`` imports this file, and the bench reads only the files it writes.

Three steps::

    .venv/bin/python tools/gnubg_referee.py select      # our reader picks the set (committed)
    nice -n 19 .venv/bin/python tools/gnubg_referee.py run --out /work/runs/referee   # ONE gnubg process
    .venv/bin/python tools/gnubg_referee.py pack --out /work/runs/referee            # copy into the repo
    .venv/bin/python tools/gnubg_referee.py status --out /work/runs/referee

* ``select`` reads the held-out match files (``bench/data/referee/heldout_files.txt``: files no net
  trains on, :data:`HELDOUT_NOTE`) with our own reader and writes ``bench/data/referee/selection.json.gz``:
  **positions**, each the position after a checker play of a real game (the next player on roll,
  before the roll), stratified by class (:func:`position_class`: the themes of
  ``analyzer/analysis/themes.py``, holding and ace-point games together, and a checker on the bar
  before every theme), and **decisions**: checker plays and doubles (with the answer) of the same
  files, each checker play with our 2-ply best play (the checker plays are drawn among those where
  our 2-ply search finds a second play within 0.16 of its best: the others have nothing to measure).
* ``run`` starts one gnubg (``gnubg -t -q -r -p`` this file) that works through the selection in
  queue order (the classes in turn, positions first, decisions after), appending one JSON line per
  item to ``<out>/positions.jsonl`` / ``<out>/decisions.jsonl``; a restart skips the items done.
  A position is set up in a money session as the real game reached it (the previous player's board,
  dice and play), and the play is rolled out cubeless (:data:`POSITION_ROLLOUT`, ``--trials``,
  648 by default): the rolled-out position is the one after the play. gnubg's own 0-, 1- and
  2-ply cubeless evaluations of the position are stored beside it. A decision is rolled out in its
  match (imported ``.mat``, the score and cube of the moment), cubeful (:data:`DECISION_ROLLOUT`,
  1,296 trials): the candidates are the top 5 within 0.16 of gnubg 2-ply's best, our 2-ply best
  and the play made; a double is rolled out as No double and Double/take. gnubg's 0-, 1- and 2-ply
  analyses of the decision are stored too.
* ``pack`` copies the results into ``bench/data/referee/`` (gzipped JSON lines) with gnubg's
  version and the settings (``gnubg.json``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

GNUBG = "/usr/games/gnubg"
ENV_JOB = "BGR_REFEREE_JOB"
ROOT = Path(__file__).resolve().parent.parent if "__file__" in globals() else Path.cwd()
DATA = ROOT / "bench" / "data" / "referee"
CORPUS = ROOT / "tests" / "data" / "corpus"
HELDOUT = DATA / "heldout_files.txt"
SELECTION = DATA / "selection.json.gz"

CLASSES = ("race", "bear-off vs contact", "holding / ace-point", "back game", "prime vs prime", "blitz",
           "crashed", "on the bar", "containment", "middle game")
"""The classes of the referee set, in queue order (the first eight are issue 51's, 120 or more each)."""

HELDOUT_NOTE = ("the first 44 files of the sorted walk of tests/data/corpus (those bench/blind_spots.py "
                "samples and the training's corpus-positions --skip-first 44 leaves out) and the files of "
                "the review yardstick (bench/data/gnubg_reviews, left out by --exclude)")

COMMON = ("varredn on", "quasirandom on", "rng mersenne", "chequerplay plies 0", "cubedecision plies 0",
          "later enable off", "truncation enable off", "limit enable off", "bearofftruncation exact on",
          "bearofftruncation onesided off")
POSITION_ROLLOUT = ("cubeful off", *COMMON)
"""``set rollout ...`` of a position's rollout (besides trials and seed): cubeless, 0-ply, variance
reduction, quasi-random dice, played to the end (the exact two-sided bear-off database ends it)."""
DECISION_ROLLOUT = ("cubeful on", *COMMON)
"""``set rollout ...`` of a decision's rollout: the same, cubeful."""
TOP = 5
MARGIN = 0.16


# --------------------------------------------------------------------------- small helpers (both sides)
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, plain or gzipped (a torn last line is skipped)."""
    if not path.exists():
        return []
    opener: Any = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def flip_probs(p: list[float]) -> list[float]:
    """gnubg's five chances ``(W, WG, WBG, LG, LBG)`` seen from the other side.

    >>> flip_probs([0.6, 0.2, 0.01, 0.1, 0.005])
    [0.4, 0.1, 0.005, 0.2, 0.01]
    """
    return [round(1.0 - p[0], 12), p[3], p[4], p[1], p[2]]


def equity(p: list[float]) -> float:
    """Cubeless money equity of gnubg's five chances.

    >>> round(equity([0.5, 0.1, 0.0, 0.1, 0.0]), 6)
    0.0
    """
    return 2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]


def queue(selection: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The run's order: positions, the classes in turn (so that a partial set is balanced), then the
    decisions in their stored order."""
    by_class: dict[str, list[dict[str, Any]]] = {}
    for p in selection["positions"]:
        by_class.setdefault(p.get("drawn_for", p["class"]), []).append(p)
    out: list[tuple[str, dict[str, Any]]] = []
    lists = [by_class.get(c, []) for c in CLASSES]
    for i in range(max((len(x) for x in lists), default=0)):
        out += [("position", x[i]) for x in lists if i < len(x)]
    out += [("decision", d) for d in selection["decisions"]]
    return out


# --------------------------------------------------------------------------- select (our reader)
def position_class(pos: Any) -> str:
    """The referee class of a position (seen from its side on roll), the one it is drawn for: ``on the
    bar`` when that side has a checker on the bar, else its theme (``analyzer/analysis/themes.py``),
    holding and ace-point games as one class."""
    from analyzer.analysis.themes import position_theme

    if pos.mover_bar > 0:
        return "on the bar"
    theme = position_theme(pos)
    return "holding / ace-point" if theme in ("holding", "ace-point game") else theme


def position_labels(pos: Any) -> list[str]:
    """Every class a position belongs to (the yardstick's rows; a position may be in several): the
    themes' tests applied one by one instead of the first that fits, and ``on the bar``.

    >>> from analyzer.core.position import Position
    >>> position_labels(Position.start())
    ['middle game']
    """
    import numpy as np

    from analyzer.analysis.themes import (
        _ace_point_game,
        _back_game,
        _blitzing,
        _containing,
        _holding,
        side_shape,
    )
    from analyzer.eval.features import CLASS_CRASHED, CLASS_RACE, classify

    kind = int(classify(np.frombuffer(pos.board, np.int8)))
    out: list[str] = []
    if kind == CLASS_RACE:
        return ["race"]
    if kind == CLASS_CRASHED:
        out.append("crashed")
    else:
        a, b = side_shape(pos), side_shape(pos.flip())
        sides = ((a, b), (b, a))
        if any(s.off > 0 or s.all_home for s in (a, b)):
            out.append("bear-off vs contact")
        if any(_holding(x, y) for x, y in sides) or any(_ace_point_game(x) for x in (a, b)):
            out.append("holding / ace-point")
        if any(_back_game(x) for x in (a, b)):
            out.append("back game")
        if _containing(a) and _containing(b):
            out.append("prime vs prime")
        elif _containing(a) or _containing(b):
            out.append("containment")
        if any(_blitzing(x, y) for x, y in sides):
            out.append("blitz")
    if pos.mover_bar > 0:
        out.append("on the bar")
    if not out:
        out.append("middle game")
    return [c for c in CLASSES if c in out]


def heldout_files() -> list[str]:
    """The held-out match files (paths relative to the corpus folder), as recorded."""
    return [line.strip() for line in HELDOUT.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def _hops_text(hops: Any) -> str:
    def pt(p: int) -> str:
        return "bar" if p == 25 else "off" if p == 0 else str(p)

    return " ".join(f"{pt(h.source)}/{pt(h.dest)}" for h in hops)


def select(per_class: int, decisions_checker: int, decisions_cube: int, seed: int, ply: int) -> dict[str, Any]:
    """The selection (see the module docstring): ``{"positions": [...], "decisions": [...], ...}``."""
    import random

    from analyzer.analysis.replay import decisions as replay_decisions
    from analyzer.core.ids import encode_position_id
    from analyzer.eval.engine import Engine
    from analyzer.formats import read_any

    rng = random.Random(seed)
    pools: dict[str, list[dict[str, Any]]] = {c: [] for c in CLASSES}
    checker_pool: list[dict[str, Any]] = []
    cube_pool: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rel in heldout_files():
        path = CORPUS / rel
        try:
            records = list(read_any(path))
        except Exception:  # noqa: BLE001 - an unreadable file gives nothing
            continue
        for record in records:
            try:
                ds = list(replay_decisions(record))
            except Exception:  # noqa: BLE001
                continue
            for k, d in enumerate(ds):
                st = d.state
                base = {"file": rel, "match": record.index, "game": d.game, "move_no": d.move, "side": d.side,
                        "state": {"length": st.length, "score": list(st.score), "cube": st.cube,
                                  "cube_owner": st.cube_owner, "crawford": st.crawford,
                                  "post_crawford": st.post_crawford, "jacoby": st.jacoby, "beavers": st.beavers}}
                if d.kind == "move" and d.result is not None and d.hops and d.dice:
                    after = d.result.flip()
                    if after.game_over() is not None:
                        continue
                    pid = encode_position_id(after)
                    if "gnubg-analysis-export" not in rel:  # decisions: .mat files gnubg imports
                        checker_pool.append({**base, "kind": "checker", "pid": encode_position_id(d.position),
                                             "dice": list(d.dice), "played": _hops_text(d.hops)})
                    if pid in seen:
                        continue
                    seen.add(pid)
                    pools[position_class(after)].append(
                        {**base, "pid": pid, "prev_pid": encode_position_id(d.position), "dice": list(d.dice),
                         "play": _hops_text(d.hops), "class": position_class(after),
                         "labels": position_labels(after)})
                elif d.kind == "double" and "gnubg-analysis-export" not in rel:
                    answer = next((e.kind for e in ds[k + 1:k + 2] if e.kind in ("take", "drop")), None)
                    if answer is not None:
                        cube_pool.append({**base, "kind": "cube", "pid": encode_position_id(d.position),
                                          "answer": "take" if answer == "take" else "pass"})
    # stratified by label: the rarest class first, each filled up to per_class (counting the positions
    # already drawn for other classes that carry its label)
    every = [p for c in CLASSES for p in pools[c]]
    rng.shuffle(every)
    counts = {c: sum(1 for p in every if c in p["labels"]) for c in CLASSES}
    positions: list[dict[str, Any]] = []
    have = dict.fromkeys(CLASSES, 0)
    taken: set[str] = set()
    for c in sorted(CLASSES, key=lambda c: (counts[c], CLASSES.index(c))):
        for p in every:
            if have[c] >= per_class:
                break
            if c in p["labels"] and p["pid"] not in taken:
                taken.add(p["pid"])
                positions.append({**p, "drawn_for": c})
                for lab in p["labels"]:
                    have[lab] += 1
    rng.shuffle(checker_pool)
    rng.shuffle(cube_pool)
    eng = Engine()
    from analyzer.core.ids import decode_position_id

    chosen: list[dict[str, Any]] = []
    for d in checker_pool:
        if len(chosen) >= decisions_checker:
            break
        pos = decode_position_id(d["pid"])
        ranked = eng.rank_plays(pos, (d["dice"][0], d["dice"][1]), ply)
        if len(ranked) < 2 or ranked[1].equity < ranked[0].equity - MARGIN:
            continue  # forced, or no second play within the margin by our search: nothing to measure
        d["ours_pid"] = encode_position_id(ranked[0].result.flip())
        d["ours_ply"] = ply
        chosen.append(d)
    decisions = chosen + cube_pool[:decisions_cube]
    for i, p in enumerate(positions):
        p["id"] = f"p{i:05d}"
    for i, d in enumerate(decisions):
        d["id"] = f"d{i:05d}"
    return {"seed": seed, "per_class": per_class, "heldout": HELDOUT_NOTE, "pool_counts": counts,
            "pools": {"checker": len(checker_pool), "cube": len(cube_pool)},
            "positions": positions, "decisions": decisions}


# --------------------------------------------------------------------------- run (outside gnubg)
def gnubg_version() -> str:
    out = subprocess.run([GNUBG, "--version"], capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0].strip() if out else "unknown"


def run(out: Path, trials: int, decision_trials: int, threads: int, seed: int, limit: int | None,
        restarts: int = 0) -> int:
    """One gnubg process at a time over the queue; started again (at most ``restarts`` times) when it
    stops with items left (a crash: the items done are kept, a failed one is tried again)."""
    rc = run_once(out, trials, decision_trials, threads, seed, limit)
    for _ in range(restarts):
        if rc < 0:
            break
        rc = run_once(out, trials, decision_trials, threads, seed, limit)
    return max(rc, 0)


def _results(out: Path, name: str) -> list[dict[str, Any]]:
    """The committed results (``bench/data/referee/<name>.jsonl.gz``) followed by those of ``out``
    (``<name>.jsonl``): a build started in a new folder resumes after what is committed, and ``pack``
    never drops a committed row (a later row of the same id wins)."""
    packed = DATA / f"{name}.jsonl.gz"
    return (read_jsonl(packed) if packed.exists() else []) + read_jsonl(out / f"{name}.jsonl")


def run_once(out: Path, trials: int, decision_trials: int, threads: int, seed: int, limit: int | None) -> int:
    """One gnubg process over what is left of the queue: -1 when nothing was left."""
    out.mkdir(parents=True, exist_ok=True)
    selection = json.loads(gzip.decompress(SELECTION.read_bytes()))
    done = {r["id"] for r in _results(out, "positions") + _results(out, "decisions")
            if "error" not in r}  # a failed item is tried again at the next start
    todo = [(k, item) for k, item in queue(selection) if item["id"] not in done][:limit]
    if not todo:
        print("nothing left to roll out", flush=True)
        return -1
    job = {"out": str(out), "trials": trials, "decision_trials": decision_trials, "threads": threads,
           "seed": seed, "corpus": str(CORPUS), "root": str(ROOT), "items": todo}
    jobfile = out / "job.json"
    jobfile.write_text(json.dumps(job), encoding="utf-8")
    env = dict(os.environ)
    env[ENV_JOB] = str(jobfile)
    print(f"{len(todo)} items to roll out ({len(done)} done); gnubg's log: {out / 'gnubg.log'}", flush=True)
    with (out / "gnubg.log").open("ab") as log:
        proc = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", os.path.abspath(__file__)], env=env, cwd=ROOT,
                              stdout=log, stderr=subprocess.STDOUT, check=False)
    return proc.returncode


def pack(out: Path) -> dict[str, Any]:
    """Copy the results into ``bench/data/referee`` (gzipped, sorted by id) with the settings."""
    counts: dict[str, Any] = {}
    for name in ("positions", "decisions"):
        rows = sorted({r["id"]: r for r in _results(out, name)}.values(), key=lambda r: r["id"])
        text = "".join(json.dumps(r, separators=(",", ":"), sort_keys=True) + "\n" for r in rows)
        (DATA / f"{name}.jsonl.gz").write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        counts[name] = len(rows)
    pos = read_jsonl(DATA / "positions.jsonl.gz")
    labels = {p["id"]: p["labels"] for p in json.loads(gzip.decompress(SELECTION.read_bytes()))["positions"]}
    by_class = dict.fromkeys(CLASSES, 0)  # a position counts in every class it belongs to
    for r in pos:
        if "rollout" in r:
            for c in labels[r["id"]]:
                by_class[c] += 1
    meta = {"gnubg": gnubg_version(), "binary": GNUBG, "position_rollout": list(POSITION_ROLLOUT),
            "decision_rollout": list(DECISION_ROLLOUT), "candidates": f"top {TOP} within {MARGIN} of gnubg 2-ply's "
            "best, our best and the play made", "evaluations": "gnubg.evaluate, cubeless, deterministic, "
            "pruning nets, 0/1/2-ply (positions); analyse move at 0/1/2-ply (decisions)",
            "counts": counts, "rolled_out": {"positions": sum(1 for r in pos if "rollout" in r),
            "decisions": sum(1 for r in read_jsonl(DATA / "decisions.jsonl.gz") if "after" in r)},
            "positions_by_class": by_class,
            "wall_seconds_niced": {"positions": round(sum(r.get("seconds", 0.0) for r in pos), 1)}}
    if (out / "job.json").exists():
        job = json.loads((out / "job.json").read_text(encoding="utf-8"))
        meta["run"] = {k: job[k] for k in ("trials", "decision_trials", "threads", "seed")}
        meta["run"]["seeds"] = "set rollout seed <seed> * 100003 + the item's number (+ 50000 for a decision)"
    (DATA / "gnubg.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def main_outside(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("select", help="pick the positions and decisions (our reader and engine)")
    s.add_argument("--per-class", type=int, default=300)
    s.add_argument("--checker", type=int, default=300, help="checker-play decisions")
    s.add_argument("--cube", type=int, default=150, help="doubles (with their answer)")
    s.add_argument("--seed", type=int, default=51)
    s.add_argument("--ply", type=int, default=2, help="our search depth for 'our best play'")
    r = sub.add_parser("run", help="roll out what is not done yet (one gnubg process)")
    r.add_argument("--out", type=Path, default=Path("/work/runs/referee"))
    r.add_argument("--trials", type=int, default=648)
    r.add_argument("--decision-trials", type=int, default=1296)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--seed", type=int, default=51)
    r.add_argument("--limit", type=int, help="at most this many items")
    r.add_argument("--restarts", type=int, default=0, help="start gnubg again when it stops with items left")
    for name in ("pack", "status"):
        p = sub.add_parser(name)
        p.add_argument("--out", type=Path, default=Path("/work/runs/referee"))
    args = ap.parse_args(argv)
    if args.cmd == "select":
        sel = select(args.per_class, args.checker, args.cube, args.seed, args.ply)
        DATA.mkdir(parents=True, exist_ok=True)
        SELECTION.write_bytes(gzip.compress(json.dumps(sel, separators=(",", ":")).encode("utf-8"), mtime=0))
        per = {c: sum(1 for p in sel["positions"] if c in p["labels"]) for c in CLASSES}
        print(f"{len(sel['positions'])} positions {per} (pools {sel['pool_counts']}); "
              f"{len(sel['decisions'])} decisions (pools {sel['pools']}) -> {SELECTION}")
        return 0
    if args.cmd == "run":
        if not Path(GNUBG).exists():
            print(f"{GNUBG} not found: apt-get install -y gnubg", file=sys.stderr)
            return 2
        return run(args.out, args.trials, args.decision_trials, args.threads, args.seed, args.limit, args.restarts)
    if args.cmd == "pack":
        print(json.dumps(pack(args.out), indent=1))
        return 0
    rows = list({r["id"]: r for r in _results(args.out, "positions")}.values())  # the last of an id
    dec = list({r["id"]: r for r in read_jsonl(args.out / "decisions.jsonl")}.values())
    ok = [r for r in rows if "rollout" in r]
    secs = [r["seconds"] for r in ok]
    by_class: dict[str, int] = {}
    for r in ok:
        by_class[r["class"]] = by_class.get(r["class"], 0) + 1
    print(f"positions: {len(ok)} rolled out {dict(sorted(by_class.items()))}, {len(rows) - len(ok)} failed; "
          f"decisions: {sum(1 for r in dec if 'after' in r)} rolled out, {sum(1 for r in dec if 'error' in r)} failed")
    if secs:
        print(f"seconds per position: mean {sum(secs) / len(secs):.1f} (wall, niced)")
    return 0


# --------------------------------------------------------------------------- inside gnubg
def _set_rollout(g: Any, settings: tuple[str, ...], trials: int, seed: int) -> None:
    for prefix in ("set rollout", "set analysis chequerplay rollout", "set analysis cubedecision rollout"):
        for setting in (*settings, f"trials {trials}", f"seed {seed}"):
            g.command(f"{prefix} {setting}")


def _append(path: Path, rec: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _last_move(g: Any) -> dict[str, Any]:
    return dict(g.match(1, 1, 0, 0)["games"][-1]["game"][-1])


def roll_out_position(g: Any, job: dict[str, Any], item: dict[str, Any], n: int) -> dict[str, Any]:
    """Set up the real game's previous play in a money session, roll it out cubeless; gnubg's
    0/1/2-ply cubeless chances of the position after it."""
    t0 = time.time()
    rec: dict[str, Any] = {"id": item["id"], "class": item["class"], "pid": item["pid"]}
    board = g.positionfromid(item["pid"])
    ci = g.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    rec["gnubg_ply"] = [[round(x, 6) for x in g.evaluate(board, ci, g.evalcontext(0, p, 1, 1, 0.0))[:5]]
                        for p in (0, 1, 2)]
    g.command("new session")
    g.command("set turn 1")
    g.command(f"set board {item['prev_pid']}")
    if g.positionid(g.board()) != item["prev_pid"]:
        raise RuntimeError(f"set board gave {g.positionid(g.board())}, not {item['prev_pid']}")
    g.command(f"set dice {item['dice'][0]}{item['dice'][1]}")
    g.command(f"move {item['play']}")
    if g.positionid(g.board()) != item["pid"]:
        raise RuntimeError(f"the play gave {g.positionid(g.board())}, not {item['pid']}")
    g.command("previous")
    g.command("analyse move")
    last = _last_move(g)
    imove = int(last["analysis"]["imove"])
    _set_rollout(g, POSITION_ROLLOUT, job["trials"], job["seed"] * 100_003 + n)
    g.command(f"analyse rollout move {imove + 1}")
    played = sorted(map(tuple, last["analysis"]["moves"][imove]["move"]))
    # the list is sorted again after the rollout: find the played play by its hops
    m = next((x for x in _last_move(g)["analysis"]["moves"] if sorted(map(tuple, x["move"])) == played), {})
    if m.get("type") != "rollout":
        raise RuntimeError("no rollout stored")
    probs = flip_probs([float(x) for x in m["probs"]])
    std = [float(x) for x in m["probs-std"]]
    rec["rollout"] = {"trials": int(m["trials"]), "probs": [round(x, 6) for x in probs],
                      "probs_se": [round(x, 6) for x in (std[0], std[3], std[4], std[1], std[2])],
                      "equity": round(-float(m["match-eq"]), 6), "equity_se": round(float(m["match-eq-std"]), 6),
                      "equity_of_probs": round(equity(probs), 6)}
    rec["seconds"] = round(time.time() - t0, 1)
    return rec


def _locate(g: Any, game: int, move_no: int) -> tuple[int, dict[str, Any]]:
    records = g.match(1, 1, 0, 0)["games"][game - 1]["game"]
    n = 0
    for i, r in enumerate(records):
        if r["action"] in ("move", "double", "take", "drop"):
            n += 1
            if n == move_no:
                return i, dict(r)
    raise RuntimeError(f"no record {move_no} in game {game}")


def _analysis(g: Any, item: dict[str, Any]) -> dict[str, Any]:
    return dict(_locate(g, item["game"], item["move_no"])[1].get("analysis") or {})


def roll_out_decision(g: Any, job: dict[str, Any], item: dict[str, Any], n: int,
                      state: dict[str, Any]) -> dict[str, Any]:
    """Navigate to the decision in its match, analyse it at 0/1/2-ply, roll out its candidates."""
    sys.path.insert(0, str(Path(job["root"]) / "tools"))
    from gnubg_rollout import apply_hops

    t0 = time.time()
    path = str(Path(job["corpus"]) / item["file"])
    if state.get("file") != path:
        mat = Path(job["out"]) / "current.mat"  # a plain name: gnubg's import reads up to a space
        shutil.copyfile(path, mat)
        g.command(f"import mat {mat}")
        state["file"] = path
    index, record = _locate(g, item["game"], item["move_no"])
    g.command("first game")
    for _ in range(item["game"] - 1):
        g.command("next game")
    g.command(f"next {index}")
    if record.get("board") != item["pid"]:
        raise RuntimeError(f"record {item['move_no']} of game {item['game']} is at {record.get('board')}, "
                           f"not {item['pid']}")
    ci = g.cubeinfo()
    length = int(g.match(0, 0, 0, 0)["match-info"]["match-length"])
    a0 = float(g.mwc2eq(0.0, ci)) if length else 0.0
    rec: dict[str, Any] = {"id": item["id"], "kind": item["kind"], "pid": item["pid"],
                           "emg": [a0, (float(g.mwc2eq(1.0, ci)) - a0) if length else 1.0], "plies": {}}
    for plies in (0, 1, 2):
        g.command(f"set analysis chequerplay evaluation plies {plies}")
        g.command(f"set analysis cubedecision evaluation plies {plies}")
        g.command("analyse move")
        rec["plies"][str(plies)] = _analysis(g, item)
    two = rec["plies"]["2"]
    _set_rollout(g, DECISION_ROLLOUT, job["decision_trials"], job["seed"] * 100_003 + 50_000 + n)
    if item["kind"] == "checker":
        board = g.positionfromid(item["pid"])
        moves = two.get("moves") or []
        cands = [[m["move"], g.positionid(apply_hops(board, m["move"]))] for m in moves]
        best = float(moves[0]["score"])
        pick = {i + 1 for i, m in enumerate(moves[:TOP]) if best - float(m["score"]) <= MARGIN}
        pick.add(int(two["imove"]) + 1)
        pick |= {i + 1 for i, (_, pid) in enumerate(cands) if pid == item.get("ours_pid")}
        rec["candidates"] = cands
        rec["choice"] = {}  # gnubg's best play at each ply, as the Position ID after it
        for plies in ("0", "1", "2"):
            ms = rec["plies"][plies].get("moves") or []
            if ms:
                rec["choice"][plies] = g.positionid(apply_hops(board, ms[0]["move"]))
        rec["ours_found"] = any(pid == item.get("ours_pid") for _, pid in cands)
        rec["rolled"] = sorted(pick)
        g.command("analyse rollout move " + " ".join(str(i) for i in sorted(pick)))
    else:
        if "nd-cubeful-eq" not in two:
            raise RuntimeError("gnubg has no cube analysis at this record")
        g.command("analyse rollout cube")
    rec["after"] = _analysis(g, item)
    rec["seconds"] = round(time.time() - t0, 1)
    return json.loads(json.dumps(rec))


def main_inside() -> None:
    import gnubg

    job = json.loads(Path(os.environ[ENV_JOB]).read_text(encoding="utf-8"))
    out = Path(job["out"])
    gnubg.command(f"set threads {job['threads']}")
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set automatic game off")
    gnubg.command("set automatic roll off")
    state: dict[str, Any] = {}
    for kind, item in job["items"]:
        n = int(item["id"][1:])
        try:
            if kind == "position":
                state.clear()
                gnubg.command("set analysis chequerplay evaluation plies 0")
                rec = roll_out_position(gnubg, job, item, n)
                _append(out / "positions.jsonl", rec)
            else:
                rec = roll_out_decision(gnubg, job, item, n, state)
                _append(out / "decisions.jsonl", rec)
        except Exception as err:  # noqa: BLE001 - the item is recorded as failed, the next one goes on
            traceback.print_exc()
            sys.stdout.flush()
            _append(out / ("positions.jsonl" if kind == "position" else "decisions.jsonl"),
                    {"id": item["id"], "error": str(err)[:300]})


if os.environ.get(ENV_JOB):  # inside gnubg: no __file__, no __main__
    main_inside()
elif __name__ == "__main__":
    sys.exit(main_outside(sys.argv[1:]))
