"""Where the standard evaluator errs: its 0-ply error against rollouts, by theme and phase.

The evaluator's overall figure (mean |0-ply equity - 1,296-trial rollout| over contact positions)
hides where it is weak. This benchmark breaks it down by the position's theme (blitz, prime vs
prime, back game, ace-point game, containment, holding, bear-off vs contact, crashed, race,
middle game: :mod:`analyzer.analysis.themes`) and by the game's phase, and flags every theme worse
than twice the overall contact figure (the evaluator issue's target: none). Back games, containment,
holding and ace-point games are also split by the seat of the side holding more checkers back, with the
bias (mean signed error): the screen of issue 51's weak classes (docs/training.md).

Two sources of positions, each a JSONL file of records ``{"position": gnubg Position ID, "eq0",
"rollout", "se", "engine", ...}``:

* self-play positions: ``lab/consistency/standard_consistency.parquet`` (made by
  ``lab/bglab/experiments/standard_consistency.py``), where the same positions are also measured
  for GNU Backgammon's 0-ply against gnubg's own rollouts (a referee's figure, shown beside ours);
* positions of real matches: ``--corpus DIR`` samples one checker-play position from each game of
  the corpus's match files (sorted walk, seeded choice) and rolls each out with our engine (0-ply
  player, cubeless, no variance reduction, played to the end), appending to ``--out``; a rerun
  resumes where it stopped and ``--shard K/N`` splits the work between processes. Slow: about
  10-20 s a position on one core; run it niced.

Usage::

    python bench/blind_spots.py                                   # the stored self-play figures
    nice -n 19 python bench/blind_spots.py --corpus tests/data/corpus --positions 300 \\
        --out runs/corpus_consistency.jsonl
    python bench/blind_spots.py --records lab/consistency/corpus_consistency.parquet --json out.json
    python bench/blind_spots.py --nets runs/v06_fit.npz     # screen a candidate beside ours, paired
    # one class, sampled wider: a crashed position from each game of the 44 files the training skips
    nice -n 19 python bench/blind_spots.py --corpus tests/data/corpus --theme crashed --files 44 \
        --positions 1000 --out runs/corpus_crashed_consistency.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.analysis.themes import PHASES, THEMES, game_phase, position_theme
from analyzer.core.errors import AnalyzerError
from analyzer.core.ids import decode_position_id, encode_position_id
from analyzer.core.position import Position
from analyzer.eval.engine import Engine
from analyzer.eval.net import weights_fingerprint
from analyzer.eval.rollout import RolloutSettings, rollout
from analyzer.formats import expand_inputs
from bglab.classes import seat_code  # bench/referee.py's back_seat
from bglab.dataset import contact_positions
from bglab.records import read_records  # JSON lines (a run) or Parquet (the lab's records)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_RECORDS = ROOT / "lab" / "consistency" / "standard_consistency.parquet"
SPLIT_THEMES = ("back game", "containment", "holding", "ace-point game")
"""Themes also shown split by the seat of the side holding more checkers back (``bench/referee.py``
``back_seat``): our nets undervalue that side from either seat, and the theme's mean hides it
(docs/benchmarks.md, the referee section)."""
SEATS = {1: "back side on roll", -1: "back side off roll"}


def corpus_positions(folder: Path, seed: int, theme: str | None = None,
                     files: int | None = None) -> Iterator[tuple[str, Position]]:
    """One standard checker-play position with contact per game of each match file under ``folder``: (a label
    ``file:game:move``, the position before the roll, seen from the side on roll). Sorted walk; the
    move is picked by a generator seeded with ``seed`` and the file's place in the walk. ``theme``:
    pick among the game's positions of that theme only (games without one give none), a wider sample
    of one class than the plain draw finds; ``files``: only the first ``files`` files of the walk
    (the training files skip them: ``corpus-positions --skip-first``)."""
    names = expand_inputs([str(folder)])
    for fi, name in enumerate(names[:files]):
        rng = np.random.default_rng([seed, fi])
        try:
            found = contact_positions(name)
        except (AnalyzerError, OSError, UnicodeDecodeError):
            continue
        by_game: dict[int, list[tuple[int, Position]]] = defaultdict(list)
        for (match, game), move, pos in found:
            if theme is None or position_theme(pos) == theme:
                by_game[match * 10_000 + game].append((move, pos))
        rel = Path(name).relative_to(folder).as_posix() if Path(name).is_relative_to(folder) else name
        for g in sorted(by_game):
            moves = by_game[g]
            move, pos = moves[int(rng.integers(0, len(moves)))]
            yield f"{rel}:{g}:{move}", pos


def roll_out_corpus(folder: Path, out: Path, positions: int, trials: int, seed: int, shard: tuple[int, int],
                    nets: Path | None = None, theme: str | None = None, files: int | None = None) -> int:
    """Roll out the first ``positions`` corpus positions (of ``theme`` only, from the first ``files``
    files only, where given: :func:`corpus_positions`) not yet in ``out`` (with the net set or
    training checkpoint ``nets``, default the shipped nets: a candidate's own rollouts); the count added."""
    from bglab.checkpoint import load_nets

    eng = Engine(None if nets is None else load_nets(nets))
    fp = weights_fingerprint(eng.nets.contact)
    done = {r["label"] for r in read_records(out)
            if r.get("trials") == trials and r.get("seed") == seed and r.get("net") == fp}
    k, n = shard
    added = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as fh:
        for i, (label, pos) in enumerate(corpus_positions(folder, seed, theme, files)):
            if i >= positions:
                break
            if label in done or i % n != k:
                continue
            eq0 = eng.evaluate(pos, 0).equity
            r = rollout(eng, pos, RolloutSettings(trials=trials, cubeful=False, variance_reduction=False,
                                                  seed=seed * 1_000_003 + i * 7919, workers=1))
            rec = {"index": i, "label": label, "seed": seed, "trials": trials, "engine": "ours", "net": fp,
                   "source": "corpus", "position": encode_position_id(pos), "eq0": round(eq0, 5),
                   "rollout": round(r.equity, 5), "se": round(r.equity_se, 5)}
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            added += 1
    return added


def with_candidate(records: list[dict[str, Any]], nets_path: Path, name: str = "candidate") -> list[dict[str, Any]]:
    """``records`` plus, for each of our records, one of engine ``name``: the 0-ply equity of the net set
    (or training checkpoint) in ``nets_path`` against the same rollout. A quick paired screen of a
    candidate net: the rollouts were played by the nets that made the records (v0.5), so the figure
    of a candidate is a screen, not its own consistency figure."""
    from bglab.checkpoint import load_nets

    eng = Engine(load_nets(nets_path), cache_size=0)
    out = list(records)
    for r in records:
        if r["engine"] != "ours":
            continue
        pos = decode_position_id(r["position"])
        if pos.game_over() is not None:
            continue
        out.append({**r, "engine": name, "eq0": eng.evaluate(pos, 0).equity})
    return out


def _stats(errors: list[float]) -> dict[str, float]:
    a = np.abs(np.array(errors, dtype=float))
    se = float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")
    return {"n": len(a), "mean_abs": float(a.mean()) if len(a) else float("nan"), "se": se,
            "bias": float(np.mean(errors)) if len(a) else float("nan")}


def breakdown(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Mean |0-ply - rollout| of each engine overall, on contact positions, by theme and by phase, and
    (``seats``) the themes of :data:`SPLIT_THEMES` by the seat of the side holding more checkers back.

    Records of one position (same ``position`` and ``index``) by several engines are paired: each
    engine's figures are over the positions it has, and ``paired`` over those every engine has.
    """
    by_engine: dict[str, dict[str, tuple[str, str, float]]] = defaultdict(dict)
    seat_of: dict[str, int] = {}
    for r in records:
        pos = decode_position_id(r["position"])
        if pos.game_over() is not None:
            continue
        key = f"{r.get('source', 'selfplay')}:{r.get('index')}:{r['position']}"
        by_engine[r["engine"]][key] = (position_theme(pos), game_phase(pos), r["eq0"] - r["rollout"])
        if key not in seat_of:
            seat_of[key] = seat_code(pos)
    result: dict[str, Any] = {}
    for engine, rows in sorted(by_engine.items()):
        vals = list(rows.values())
        contact = [e for t, _, e in vals if t != "race"]
        res: dict[str, Any] = {"all": _stats([e for _, _, e in vals]), "contact": _stats(contact)}
        res["themes"] = {t: _stats([e for tt, _, e in vals if tt == t]) for t in THEMES
                         if any(tt == t for tt, _, _ in vals)}
        phased = [(ph, e) for t, ph, e in vals if t != "race"]
        res["phases"] = {p: _stats([e for ph, e in phased if ph == p]) for p in PHASES
                         if any(ph == p for ph, _ in phased)}
        seated = [(t, seat_of[k], e) for k, (t, _, e) in rows.items() if t in SPLIT_THEMES]
        res["seats"] = {f"{t}: {name}": _stats([e for tt, st, e in seated if tt == t and st == code])
                        for t in SPLIT_THEMES for code, name in SEATS.items()
                        if any(tt == t and st == code for tt, st, _ in seated)}
        result[engine] = res
    return result


def _lines(result: dict[str, Any]) -> list[str]:
    engines = sorted(result, key=lambda e: (e != "ours", e))
    lines = []
    head = f"{'':22s}" + "".join(f"{e + ' n':>8s}{e + ' |err|':>14s}{'± SE':>8s}{'×all':>6s}" for e in engines)
    for section in ("themes", "phases"):
        lines.append(head)
        keys = THEMES if section == "themes" else PHASES
        for k in keys:
            row = f"{k:22s}"
            shown = False
            for e in engines:
                s = result[e][section].get(k)
                ref = result[e]["contact"]["mean_abs"]
                if s is None:
                    row += f"{'':36s}"
                    continue
                shown = True
                flag = "!" if k != "race" and s["mean_abs"] > 2 * ref else " "
                row += f"{s['n']:8d}{s['mean_abs']:14.4f}{s['se']:8.4f}{s['mean_abs'] / ref:5.1f}{flag}"
            if shown:
                lines.append(row)
        lines.append("")
    seats = [k for k in (f"{t}: {n}" for t in SPLIT_THEMES for n in SEATS.values())
             if any(k in result[e].get("seats", {}) for e in engines)]
    if seats:
        lines.append(f"{'':38s}" + "".join(f"{e + ' n':>8s}{e + ' |err|':>14s}{'bias':>9s}" for e in engines))
        for k in seats:
            row = f"{k:38s}"
            for e in engines:
                st = result[e].get("seats", {}).get(k)
                row += f"{'':31s}" if st is None else f"{st['n']:8d}{st['mean_abs']:14.4f}{st['bias']:+9.4f}"
            lines.append(row)
        lines.append("")
    for e in engines:
        a, c = result[e]["all"], result[e]["contact"]
        lines.append(f"{e}: all {a['mean_abs']:.4f} ± {a['se']:.4f} over {a['n']}, contact {c['mean_abs']:.4f} "
                     f"± {c['se']:.4f} over {c['n']} (bias {c['bias']:+.4f}); '!' marks a theme over 2× contact")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--records", type=Path, action="append",
                    help=f"JSONL files of records to break down (default: {DEFAULT_RECORDS.relative_to(ROOT)})")
    ap.add_argument("--corpus", type=Path, help="roll out positions of the match files under this folder first")
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "corpus_consistency.jsonl",
                    help="with --corpus: the JSONL file the rollouts go to (resumed)")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shard", default="0/1", help="K/N: only positions i with i mod N == K")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    ap.add_argument("--nets", type=Path,
                    help="also screen this net set or training checkpoint on the same positions and rollouts")
    ap.add_argument("--theme", choices=THEMES,
                    help="with --corpus: sample positions of this theme only (one per game that reaches it)")
    ap.add_argument("--files", type=int,
                    help="with --corpus: only the first N files of the sorted walk (44: those the training skips)")
    ap.add_argument("--rollout-nets", type=Path,
                    help="with --corpus: evaluate and roll out with this net set instead of the shipped one "
                         "(a candidate's own figure; write it to its own --out)")
    args = ap.parse_args(argv)
    files = list(args.records or [])
    if args.corpus is not None:
        k, n = (int(x) for x in args.shard.split("/"))
        t0 = time.time()
        added = roll_out_corpus(args.corpus, args.out, args.positions, args.trials, args.seed, (k, n),
                                args.rollout_nets, args.theme, args.files)
        print(f"corpus: {added} positions rolled out in {time.time() - t0:.0f} s into {args.out}")
        files.append(args.out)
    if not files:
        files = [DEFAULT_RECORDS]
    records = [r for f in files for r in read_records(f)]
    if args.nets is not None:
        records = with_candidate(records, args.nets)
    result = breakdown(records)
    print(f"0-ply against {records[0]['trials'] if records else 0}-trial rollouts: "
          f"{', '.join(str(f) for f in files)}")
    for line in _lines(result):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
