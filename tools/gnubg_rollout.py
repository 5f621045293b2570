"""Roll out decisions of the stored gnubg reviews with GNU Backgammon: the referee's rollout (issue 24, part 3).

``tools/gnubg_review.py`` stores gnubg's 2-ply analysis of every decision of a set of matches
(``bench/data/gnubg_reviews/<id>.json``); gnubg 2-ply is a reference, not the truth. This tool
asks gnubg for a **rollout** of chosen decisions, so that ``bench/review_agreement.py --referee``
can say who was closer where we and gnubg 2-ply disagree. GNU Backgammon stays a referee: it runs
in its own process (the Debian build, ``/usr/games/gnubg``), nothing in ``analyzer/`` imports this
file, and the bench only reads the files it writes.

The method (found for this tool; earlier attempts with ``rollout =1 =2`` after ``hint`` and with
the wheel's ``hint()`` failed, see ``tools/gnubg_review.py``)::

    import mat <id>.mat                      # in a fresh gnubg -t -q -r -p session, one per match
    first game; next game (x game-1); next <record index>   # the decision is the record after the current one
    analyse move                             # gnubg 2-ply: the move list, or the cube analysis
    analyse rollout move 1 4 7               # chequer play: roll out these entries of the move list
    analyse rollout cube                     # cube decision: roll out No double and Double/take

then ``gnubg.match(1, 1, 0, 0)`` holds the record's analysis with the rollout in it: candidates of
``type`` ``"rollout"`` with ``trials``, ``cubeful-eq`` and ``cubeful-eq-std``; a cube analysis
with ``nd-cubeful-eq``/``dt-cubeful-eq`` and their ``-std``. In match play these are match winning
chances; they are turned into EMG with gnubg's own ``mwc2eq`` for the decision's cube (a linear
map, stored as its two coefficients so that the conversion can be checked without gnubg). Both
rollouts use the **global** rollout settings (``set rollout ...``; the ``set analysis ...
rollout`` ones are set too, the same). The wheel (``pip install gnubg``) is not used: its
``gnubg.match()`` returns no analysis after ``analyse move`` or ``analyse match`` in the version
tested (1.1.0a16).

Settings (:data:`ROLLOUT_SETTINGS`): cubeful, 0-ply chequer play and cube decisions (gnubg's
pruning nets, its default), variance reduction, quasi-random dice, no truncation (games end at
the exact bear-off database), no stopping rule, ``--trials`` games per candidate and ``--seed``.
The candidates of a chequer play: gnubg 2-ply's best, the played play and any ``extra`` play
(``bench/review_agreement.py`` adds our best, given as the Position ID after the play with the
opponent on roll), all rolled out in one ``analyse rollout move`` (the same dice for all). The
referee's loss is the best rolled-out candidate minus the played one; its standard error is
``sqrt(se_best^2 + se_played^2)``, an upper bound (the candidates share their dice, so their
errors are positively correlated and the loss's true error is smaller). A cube decision and the
take that answered it are the same rollout (of the double's record): its loss follows gnubg's
rules (:func:`referee_loss`).

One file per rolled-out record, under ``runs/gnubg_rollout/t<trials>-s<seed>/`` (resumable: a
record whose file exists is not rolled out again)::

    {"key", "match", "game", "move_no", "kind": "checker"|"cube", "pid", "settings", "seconds",
     "gnubg": GNUBG, "emg": [a, b] (EMG = a + b * MWC; SE_EMG = b * SE_MWC),
     "raw": {"before": the record's 2-ply analysis, "after": the record's analysis after the rollout},
     "extra": [Position IDs asked for], "result": summarise(...) (see :func:`summarise`)}

Run it with the plain interpreter (it starts one gnubg per match)::

    nice -n 10 .venv/bin/python tools/gnubg_rollout.py --decision c00-boardlord-llabba-7p:3:14:cube \\
        --decision c00-boardlord-llabba-7p:3:28:checker --trials 1296
    .venv/bin/python tools/gnubg_rollout.py --requests requests.json --trials 324   # a list of requests
    .venv/bin/python tools/gnubg_rollout.py --show --trials 324                      # what the cache holds
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

GNUBG = "/usr/games/gnubg"
ENV_JOB = "BGR_ROLLOUT_JOB"
ROOT = Path(__file__).resolve().parent.parent if "__file__" in globals() else Path.cwd()
DATA = ROOT / "bench" / "data" / "gnubg_reviews"
CACHE = ROOT / "runs" / "gnubg_rollout"
ROLLOUT_SETTINGS = ("cubeful on", "varredn on", "quasirandom on", "rng mersenne", "chequerplay plies 0",
                    "cubedecision plies 0", "later enable off", "truncation enable off", "limit enable off",
                    "bearofftruncation exact on", "bearofftruncation onesided off")
"""``set rollout ...`` commands (besides trials and seed) of every referee rollout."""


# --------------------------------------------------------------------------- requests and the cache
def record_of(kind: str, move_no: int) -> tuple[str, int]:
    """The record a decision's rollout is made at: (``"checker"``|``"cube"``, its move number).

    A take or a pass answers the double just before it, so it shares that record's cube rollout.

    >>> record_of("take", 15), record_of("cube", 14), record_of("checker", 28)
    (('cube', 14), ('cube', 14), ('checker', 28))
    """
    if kind == "take":
        return "cube", move_no - 1
    return ("checker" if kind == "checker" else "cube"), move_no


def record_key(match: str, game: int, kind: str, move_no: int) -> str:
    """The cache file's stem of a decision's rollout (see :func:`record_of`).

    >>> record_key("c00-boardlord-llabba-7p", 3, "take", 15)
    'c00-boardlord-llabba-7p-g3-m14-cube'
    """
    rk, rn = record_of(kind, move_no)
    return f"{match}-g{game}-m{rn}-{rk}"


def folder(cache: Path, trials: int, seed: int) -> Path:
    return cache / f"t{trials}-s{seed}"


def cached(cache: Path, trials: int, seed: int, match: str, game: int, kind: str,
           move_no: int) -> dict[str, Any] | None:
    """The stored rollout of a decision's record, or ``None``."""
    path = folder(cache, trials, seed) / f"{record_key(match, game, kind, move_no)}.json"
    if not path.exists():
        return None
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


# --------------------------------------------------------------------------- reading gnubg's answer
def _emg(x: float, coef: Sequence[float]) -> float:
    return float(coef[0]) + float(coef[1]) * float(x)


def _se(x: float, coef: Sequence[float]) -> float:
    return abs(float(coef[1])) * float(x)


def _moves_key(move: Iterable[Iterable[int]]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((int(a), int(b)) for a, b in move))


def apply_hops(board: Sequence[Sequence[int]], hops: Iterable[Iterable[int]]) -> tuple[list[int], list[int]]:
    """gnubg's ``(side not on roll, side on roll)`` board after the side on roll plays ``hops``
    (``(from, to)``, 25 the bar, 0 off), returned with the turn handed over: ``(mover, opponent)``,
    the order of the board of the next roll.

    >>> start = ([0] * 5 + [5, 0, 3] + [0] * 4 + [5] + [0] * 10 + [2, 0],) * 2
    >>> mover, opp = apply_hops(start, [(24, 18), (13, 11)])
    >>> mover[23], mover[17], mover[12], mover[10], opp[23]
    (1, 1, 4, 1, 2)
    """
    opp, me = list(board[0]), list(board[1])
    for a, b in hops:
        me[int(a) - 1] -= 1
        if int(b) > 0:
            me[int(b) - 1] += 1
            if opp[24 - int(b)] == 1:  # a blot hit: the mover's point b is the opponent's point 25 - b
                opp[24 - int(b)] = 0
                opp[24] += 1
    return me, opp


def summarise(doc: dict[str, Any]) -> dict[str, Any]:
    """The referee's values of one rolled-out record, in EMG for the side that decides.

    Chequer play: ``{"candidates": [{"move", "pid_after", "played", "best_2ply", "extra", "trials",
    "emg", "se", "emg_2ply"}, ...] (best rollout first), "played": index, "loss", "loss_se"}``;
    cube: ``{"trials", "nd", "nd_se", "dt", "dt_se", "dp": 1.0}``. ``doc`` is a cache file (its
    ``raw`` analyses, ``emg`` coefficients, ``candidates`` (the result IDs of the move list) and
    ``extra``).
    """
    coef = doc["emg"]
    after = doc["raw"]["after"]
    if doc["kind"] == "cube":
        if after.get("type") != "rollout" or "nd-cubeful-eq-std" not in after:
            raise ValueError(f"{doc['key']}: the cube analysis is not a rollout")
        return {"trials": int(after["trials"]),
                "nd": _emg(after["nd-cubeful-eq"], coef), "nd_se": _se(after["nd-cubeful-eq-std"], coef),
                "dt": _emg(after["dt-cubeful-eq"], coef), "dt_se": _se(after["dt-cubeful-eq-std"], coef),
                "dp": 1.0}
    before = doc["raw"]["before"]
    ids = {_moves_key(m): pid for m, pid in doc["candidates"]}
    played_key = _moves_key(before["moves"][int(before["imove"])]["move"])
    best_key = _moves_key(before["moves"][0]["move"])
    two_ply = {_moves_key(m["move"]): float(m["score"]) for m in before["moves"] if "score" in m}
    extra = set(doc.get("extra") or [])
    cands = []
    for m in after["moves"]:
        if m.get("type") != "rollout":
            continue
        k = _moves_key(m["move"])
        cands.append({"move": [list(h) for h in m["move"]], "pid_after": ids.get(k),
                      "played": k == played_key, "best_2ply": k == best_key, "extra": ids.get(k) in extra,
                      "trials": int(m["trials"]), "emg": _emg(m["cubeful-eq"], coef),
                      "se": _se(m["cubeful-eq-std"], coef), "emg_2ply": two_ply.get(k)})
    cands.sort(key=lambda c: -c["emg"])
    played = [i for i, c in enumerate(cands) if c["played"]]
    if not played:
        raise ValueError(f"{doc['key']}: the played play was not rolled out")
    p = cands[played[0]]
    other = cands[1] if played[0] == 0 and len(cands) > 1 else cands[0]  # the best, or the runner-up
    return {"candidates": cands, "played": played[0], "loss": cands[0]["emg"] - p["emg"],
            "loss_se": 0.0 if other is p else math.hypot(other["se"], p["se"])}


def referee_loss(decision: dict[str, Any], result: dict[str, Any]) -> tuple[float, float]:
    """(loss, its standard error) of a stored gnubg decision under the referee's rollout
    ``result`` (:func:`summarise`), by gnubg's rules: a cube row loses ``best - played`` with
    ``best = max(ND, min(DT, DP))``; a take loses ``max(0, DT - DP)`` and a pass ``max(0, DP - DT)``
    (from the doubler's side, as ``tools/gnubg_review.py`` scores them).

    The standard error is that of the difference the loss is read from, also where the loss is
    0 (the played action or play was the rollout's best: then the difference to the runner-up),
    so that it says how surely the rollout tells a zero loss from a small one.

    >>> r = {"nd": 0.50, "nd_se": 0.01, "dt": 0.56, "dt_se": 0.02, "dp": 1.0}
    >>> [round(x, 3) for x in referee_loss({"kind": "cube", "played": "no double"}, r)]
    [0.06, 0.022]
    >>> [round(x, 3) for x in referee_loss({"kind": "cube", "played": "double"}, r)]
    [0.0, 0.022]
    >>> [round(x, 3) for x in referee_loss({"kind": "take", "played": "pass"}, r)]
    [0.44, 0.02]
    """
    if decision["kind"] == "checker":
        return float(result["loss"]), float(result["loss_se"])
    nd, dt, dp = float(result["nd"]), float(result["dt"]), float(result["dp"])
    nd_se, dt_se = float(result["nd_se"]), float(result["dt_se"])
    if decision["kind"] == "take":
        return (max(0.0, dt - dp) if decision["played"] == "take" else max(0.0, dp - dt)), dt_se
    take, take_se = (dt, dt_se) if dt < dp else (dp, 0.0)
    se = math.hypot(nd_se, take_se)
    gain = take - nd  # of doubling
    if decision["played"] == "double":
        return max(0.0, -gain), se
    return max(0.0, gain), se


# --------------------------------------------------------------------------- outside gnubg
def parse_decision(text: str) -> dict[str, Any]:
    """``match:game:move_no:kind`` as a request.

    >>> parse_decision("c00-boardlord-llabba-7p:3:14:cube")
    {'match': 'c00-boardlord-llabba-7p', 'game': 3, 'move_no': 14, 'kind': 'cube', 'extra': []}
    """
    match, game, move_no, kind = text.rsplit(":", 3)
    if kind not in ("checker", "cube", "take"):
        raise ValueError(f"kind must be checker, cube or take, not {kind!r}")
    return {"match": match, "game": int(game), "move_no": int(move_no), "kind": kind, "extra": []}


def roll_out(requests: Sequence[dict[str, Any]], trials: int, seed: int, threads: int = 2, cache: Path = CACHE,
             data: Path = DATA, log: Any = None) -> list[str]:
    """Roll out the records of ``requests`` not in the cache yet (one gnubg process per match).

    A request is ``{"match", "game", "move_no", "kind", "extra": [Position IDs]}``; several
    requests of one record (a double and its take) make one rollout, with the union of their
    extras; a stored rollout that lacks a requested extra play is made again with all of them
    (the candidates must share their dice). Returns the keys that failed (each with gnubg's log in ``<key>.log``).
    """
    out = folder(cache, trials, seed)
    out.mkdir(parents=True, exist_ok=True)
    jobs: dict[str, dict[str, Any]] = {}
    for r in requests:
        key = record_key(r["match"], r["game"], r["kind"], r["move_no"])
        extra = set(r.get("extra") or [])
        path = out / f"{key}.json"
        if path.exists():
            had = set(json.loads(path.read_text(encoding="utf-8")).get("extra") or [])
            if extra <= had:
                continue
            extra |= had  # rolled out again with the plays asked for before and now
        rk, rn = record_of(r["kind"], r["move_no"])
        job = jobs.setdefault(key, {"key": key, "match": r["match"], "game": r["game"], "move_no": rn,
                                    "kind": rk, "extra": []})
        job["extra"] = sorted(set(job["extra"]) | extra)
    by_match: dict[str, list[dict[str, Any]]] = {}
    for job in jobs.values():
        by_match.setdefault(job["match"], []).append(job)
    failed: list[str] = []
    for match, group in sorted(by_match.items()):
        group.sort(key=lambda j: (j["game"], j["move_no"], j["kind"]))
        env = dict(os.environ)
        env[ENV_JOB] = json.dumps({"mat": str(data / f"{match}.mat"), "out": str(out), "trials": trials,
                                   "seed": seed, "threads": threads, "jobs": group})
        t0 = time.time()
        with tempfile.TemporaryFile() as tmp:
            subprocess.run([GNUBG, "-t", "-q", "-r", "-p", os.path.abspath(__file__)], env=env, cwd=ROOT,
                           stdout=tmp, stderr=subprocess.STDOUT, check=False)
            for job in group:
                path = out / f"{job['key']}.json"
                done = path.exists() and set(job["extra"]) <= set(
                    json.loads(path.read_text(encoding="utf-8")).get("extra") or [])
                if not done:
                    failed.append(job["key"])
                    tmp.seek(0)
                    (out / f"{job['key']}.log").write_bytes(tmp.read()[-20000:])
        if log is not None:
            print(f"{match}: {len(group)} record(s) rolled out with {trials} trials in {time.time() - t0:.0f} s"
                  f"{', failed: ' + ', '.join(k for k in failed if k.startswith(match)) if failed else ''}",
                  file=log, flush=True)
    return failed


def main_outside(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decision", action="append", default=[], help="match:game:move_no:kind (repeatable)")
    ap.add_argument("--requests", type=Path, help="a JSON list of requests (see roll_out)")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--show", action="store_true", help="print the stored rollouts of these settings")
    args = ap.parse_args(argv)
    if args.show:
        for path in sorted(folder(args.cache, args.trials, args.seed).glob("*.json")):
            doc = json.loads(path.read_text(encoding="utf-8"))
            res = summarise(doc)
            if doc["kind"] == "cube":
                print(f"{doc['key']}: ND {res['nd']:+.3f} +- {res['nd_se']:.3f}, DT {res['dt']:+.3f} +- "
                      f"{res['dt_se']:.3f} ({res['trials']} trials, {doc['seconds']:.0f} s)")
            else:
                print(f"{doc['key']}: loss {res['loss']:.3f} +- {res['loss_se']:.3f} over "
                      f"{len(res['candidates'])} candidates ({doc['seconds']:.0f} s)")
        return 0
    if not Path(GNUBG).exists():
        print(f"{GNUBG} not found: apt-get install -y gnubg", file=sys.stderr)
        return 2
    requests = [parse_decision(d) for d in args.decision]
    if args.requests:
        requests += json.loads(args.requests.read_text(encoding="utf-8"))
    failed = roll_out(requests, args.trials, args.seed, args.threads, args.cache, args.data, log=sys.stdout)
    for key in failed:
        print(f"{key}: FAILED (see {folder(args.cache, args.trials, args.seed) / (key + '.log')})", file=sys.stderr)
    return 1 if failed else 0


# --------------------------------------------------------------------------- inside gnubg
def main_inside() -> None:
    import gnubg

    job = json.loads(os.environ[ENV_JOB])
    out = Path(job["out"])
    for command in (f"set threads {job['threads']}", f"import mat {job['mat']}",
                    "set analysis chequerplay evaluation plies 2", "set analysis cubedecision evaluation plies 2"):
        gnubg.command(command)
    for prefix in ("set rollout", "set analysis chequerplay rollout", "set analysis cubedecision rollout"):
        for setting in (*ROLLOUT_SETTINGS, f"trials {job['trials']}", f"seed {job['seed']}"):
            gnubg.command(f"{prefix} {setting}")
    for item in job["jobs"]:
        try:
            roll_out_one(gnubg, job, item, out)
        except Exception:  # noqa: BLE001 - the next record still gets its rollout; this one has no file
            traceback.print_exc()
            sys.stdout.flush()


def roll_out_one(gnubg: Any, job: dict[str, Any], item: dict[str, Any], out: Path) -> None:
    """Navigate to ``item``'s record, analyse it at 2-ply, roll it out and store the cache file."""
    t0 = time.time()
    index, record = locate(gnubg, item)
    gnubg.command("first game")
    for _ in range(item["game"] - 1):
        gnubg.command("next game")
    gnubg.command(f"next {index}")
    here = gnubg.positionid(gnubg.board())
    if here != record["board"]:
        raise RuntimeError(f"{item['key']}: navigated to {here}, not {record['board']}")
    gnubg.command("analyse move")
    before = locate(gnubg, item)[1].get("analysis") or {}
    doc: dict[str, Any] = {**item, "pid": record["board"], "gnubg": GNUBG,
                           "settings": {"trials": job["trials"], "seed": job["seed"], "threads": job["threads"],
                                        "rollout": list(ROLLOUT_SETTINGS)}}
    ci = gnubg.cubeinfo()
    length = int(gnubg.match(0, 0, 0, 0)["match-info"]["match-length"])
    a0 = float(gnubg.mwc2eq(0.0, ci)) if length else 0.0
    doc["emg"] = [a0, (float(gnubg.mwc2eq(1.0, ci)) - a0) if length else 1.0]
    if item["kind"] == "checker":
        board = gnubg.positionfromid(record["board"])
        moves = before.get("moves") or []
        cands = [[m["move"], gnubg.positionid(apply_hops(board, m["move"]))] for m in moves]
        pick = {1, int(before["imove"]) + 1}
        pick |= {i + 1 for i, (_, pid) in enumerate(cands) if pid in set(item["extra"])}
        doc["candidates"] = cands
        doc["missing_extra"] = sorted(set(item["extra"]) - {pid for _, pid in cands})
        gnubg.command("analyse rollout move " + " ".join(str(i) for i in sorted(pick)))
    else:
        if "nd-cubeful-eq" not in before:
            raise RuntimeError(f"{item['key']}: gnubg has no cube analysis at this record")
        gnubg.command("analyse rollout cube")
    after = locate(gnubg, item)[1].get("analysis") or {}
    doc["seconds"] = round(time.time() - t0, 1)
    doc["raw"] = {"before": before, "after": after}
    doc = json.loads(json.dumps(doc))  # tuples as lists, as read back
    doc["result"] = summarise(doc)
    tmp = out / f".{item['key']}.json.tmp"
    tmp.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    tmp.replace(out / f"{item['key']}.json")


def locate(g: Any, item: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """(index in its game's record list, the record) of ``item``'s record: the ``move_no``-th move,
    double, take or drop record of the game (``tools/gnubg_review.py`` numbers decisions so)."""
    records = g.match(1, 1, 0, 0)["games"][item["game"] - 1]["game"]
    n = 0
    for i, r in enumerate(records):
        if r["action"] in ("move", "double", "take", "drop"):
            n += 1
            if n == item["move_no"]:
                return i, r
    raise RuntimeError(f"{item['key']}: no record {item['move_no']} in game {item['game']}")


if os.environ.get(ENV_JOB):  # inside gnubg (started by roll_out): no __file__, no __main__
    main_inside()
elif __name__ == "__main__":
    sys.exit(main_outside(sys.argv[1:]))
