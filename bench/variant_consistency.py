"""Consistency of the variant nets: 0-ply equity against a rollout of the same position.

For each of ``--positions`` positions of a variant (sampled from our own self-play games: game
``i`` of the sample is played by the net with a little noise from a seed derived from
``--seed`` and ``i``, and one non-final position of it, picked by the same seed, is kept), the
net's 0-ply equity is compared with a cubeless rollout of ``--trials`` games played by the same
net at 0-ply (the first two rolls stratified over the 36x36 pairs, seeded). The report is the mean
absolute difference (target below 0.04 equity), with the rollouts' mean standard error.

Results are appended to a JSONL file (one line per position, with a fingerprint of the net) and
positions already there for the same net, seed and trial count are skipped, so a long run resumes
where it stopped. ``--shard K/N`` takes positions ``i`` with ``i mod N == K`` only, so N processes
(or machines) can share the work; ``--merge`` folds other JSONL files into ``--out`` first::

    python bench/variant_consistency.py --variant dutch --positions 500 --trials 1296 \\
        --out runs/consistency_dutch.jsonl
    python bench/variant_consistency.py --variant mahbusa --positions 40 --trials 1296   # a smaller sample
    for k in 0 1 2 3; do python bench/variant_consistency.py --variant dutch --shard $k/4 \
        --out runs/cons_dutch_$k.jsonl & done; wait
    python bench/variant_consistency.py --variant dutch --out runs/consistency_dutch.jsonl \
        --merge runs/cons_dutch_*.jsonl                  # report over all shards

``--ply N`` (1 or 2) also values the positions at N-ply against the same rollouts (the rollouts
are those of the 0-ply player; no new rollouts with ``--report-only``): how close the deeper
searches of an analysis come::

    python bench/variant_consistency.py --variant dutch --report-only --ply 2 \
        --out runs/dutch_consistency.jsonl

``--positions-from FILE`` takes the positions of an earlier results file instead of sampling them
(same indices, same rollout seeds) and also reports that file's figures on the same positions: a
paired comparison of two nets, much less noisy than two samples of their own::

    python bench/variant_consistency.py --variant dutch --nets runs/dutch_new.npz --positions 60 \
        --positions-from lab/consistency/dutch_consistency.parquet --out runs/paired_dutch.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.core.position import Position
from analyzer.eval.net import weights_fingerprint
from analyzer.eval.selfplay import game_seed
from analyzer.eval.variants import features as V
from analyzer.eval.variants.engine import NETS_DIR, VariantEngine
from analyzer.eval.variants.model import VariantNet, race_context
from analyzer.eval.variants.play import GameBuffers, net_rollout, play_seeded
from bglab.records import read_records  # JSON lines (a run) or Parquet (the lab's records)


def sample_position(vn: VariantNet, index: int, seed: int, buf: GameBuffers) -> Position | None:
    """Position ``index`` of the sample: one non-final position of self-play game ``index``."""
    gs = game_seed(seed, index)
    n, o = play_seeded(vn, gs, 0.05, buf)
    if o < 0 or n < 2:
        return None
    rng = np.random.default_rng([seed, index])
    t = int(rng.integers(0, n))
    return Position(buf.states[t].tobytes(), vn.variant)


def net_fingerprint(vn: VariantNet) -> str:
    """A short hash of the net's weights: results of another net are never mixed in."""
    return weights_fingerprint(vn.net)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--variant", default="dutch")
    ap.add_argument("--nets", help="variant net file or checkpoint (default data/nets/<variant>.npz)")
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", help="JSONL results file (default runs/consistency_<variant>.jsonl)")
    ap.add_argument("--shard", default="0/1", help="K/N: only positions i with i mod N == K")
    ap.add_argument("--merge", nargs="*", default=[], help="JSONL files to fold into --out first")
    ap.add_argument("--positions-from", help="results JSONL whose positions to roll out (paired comparison)")
    ap.add_argument("--report-only", action="store_true", help="report what --out holds; run no rollouts")
    ap.add_argument("--json", help="also write the summary as JSON to this file")
    ap.add_argument("--ply", type=int, default=0,
                    help="also value the results' positions at this ply (1 or 2) against the same rollouts")
    args = ap.parse_args(argv)
    variant = "mahbusa" if args.variant.lower() in ("mahbusa", "plakoto") else args.variant.lower()
    vn = VariantNet.load(args.nets or NETS_DIR / f"{variant}.npz")
    eng = VariantEngine(variant, vn)
    ctx = race_context()
    fp = net_fingerprint(vn)
    k, n_shards = (int(x) for x in args.shard.split("/"))
    out = Path(args.out or f"runs/consistency_{variant}.jsonl")
    if out.suffix == ".parquet" and (not args.report_only or args.merge):
        ap.error(f"{out}: a Parquet record is the lab's finished copy, read only: run into a .jsonl file "
                 "(python -m bglab.records FILE.jsonl compresses it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[int, dict[str, float]] = {}

    source = ({int(r["index"]): r for r in read_records(Path(args.positions_from)) if r.get("trials") == args.trials}
              if args.positions_from else None)  # paired: the same trial count (and so the same rollout dice)
    source_name = Path(args.positions_from).name if args.positions_from else None

    def same_source(name: str | None) -> bool:  # by stem: the lab keeps a JSON lines record as Parquet
        return name == source_name or (name is not None and source_name is not None
                                       and Path(name).stem == Path(source_name).stem)

    def ours(rec: dict[str, Any]) -> bool:
        return (rec.get("trials") == args.trials and rec.get("seed") == args.seed and rec.get("net") == fp
                and same_source(rec.get("positions_from")))

    for rec in read_records(out):
        if ours(rec):
            done[int(rec["index"])] = rec
    merged = []
    for other in args.merge:
        for rec in read_records(Path(other)):
            if ours(rec) and int(rec["index"]) not in done:
                done[int(rec["index"])] = rec
                merged.append(rec)
    if merged:
        with out.open("a") as fh:
            for rec in sorted(merged, key=lambda r: int(r["index"])):
                fh.write(json.dumps(rec) + "\n")
    buf = GameBuffers()
    t0 = time.time()
    with out.open("a") as fh:
        for i in range(0 if args.report_only else args.positions):
            if i in done or i % n_shards != k:
                continue
            if source is not None:
                if i not in source:
                    continue
                pos: Position | None = Position(bytes.fromhex(source[i]["position"]), variant)
            else:
                pos = sample_position(vn, i, args.seed, buf)
            if pos is None:
                continue
            eq0 = eng.evaluate(pos).equity
            mean, se, counts = net_rollout(vn, pos, args.trials, seed=args.seed * 1_000_003 + i * 7919, ctx=ctx)
            rec = {"index": i, "seed": args.seed, "trials": args.trials, "net": fp, "position": pos.board.hex(),
                   "class": int(V.classify(np.frombuffer(pos.board, np.int8), vn.code)),
                   "eq0": round(eq0, 5), "rollout": round(mean, 5), "se": round(se, 5),
                   "outcomes": counts.tolist()}
            if source_name is not None:
                rec["positions_from"] = source_name
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            done[i] = rec
    recs = [r for i, r in sorted(done.items()) if i < args.positions and not math.isnan(r["rollout"])]
    diffs = np.array([abs(r["eq0"] - r["rollout"]) for r in recs])
    ses = np.array([r["se"] for r in recs])
    contact = np.array([r["class"] == V.CLASS_CONTACT for r in recs])
    print(f"variant {variant}  net {fp}  positions {len(recs)}  trials {args.trials}  seed {args.seed}  "
          f"({time.time() - t0:.0f} s this run)")
    if len(recs):
        print(f"mean |0-ply - rollout| {diffs.mean():.4f}  (rollout mean SE {ses.mean():.4f}; "
              f"contact {diffs[contact].mean() if contact.any() else float('nan'):.4f} over {int(contact.sum())}, "
              f"race {diffs[~contact].mean() if (~contact).any() else float('nan'):.4f} over {int((~contact).sum())})")
    if source is not None and len(recs):
        old = np.array([abs(source[int(r["index"])]["eq0"] - source[int(r["index"])]["rollout"]) for r in recs])
        paired = diffs - old
        pse = paired.std(ddof=1) / math.sqrt(len(recs)) if len(recs) > 1 else float("nan")
        print(f"paired with {source_name} on the same {len(recs)} positions: its mean |0-ply - rollout| "
              f"{old.mean():.4f}, this net minus it {paired.mean():+.4f} +- {pse:.4f}"
              f" (contact {old[contact].mean() if contact.any() else float('nan'):.4f} -> "
              f"{diffs[contact].mean() if contact.any() else float('nan'):.4f})")
    if args.ply and len(recs):
        t1 = time.time()
        deep = np.array([abs(eng.evaluate(Position(bytes.fromhex(r["position"]), variant), args.ply).equity
                             - r["rollout"]) for r in recs])
        gain = deep - diffs
        print(f"{args.ply}-ply: mean |{args.ply}-ply - rollout| {deep.mean():.4f} +- "
              f"{deep.std(ddof=1) / math.sqrt(len(deep)) if len(deep) > 1 else float('nan'):.4f}  (contact "
              f"{deep[contact].mean() if contact.any() else float('nan'):.4f}, race "
              f"{deep[~contact].mean() if (~contact).any() else float('nan'):.4f}); minus 0-ply's "
              f"{gain.mean():+.4f} +- {gain.std(ddof=1) / math.sqrt(len(gain)) if len(gain) > 1 else float('nan'):.4f}"
              f"  ({time.time() - t1:.0f} s)")
    if args.json and len(recs):
        # the spread of (0-ply - rollout) that rollout noise alone would give: E|N(0, se)| = se * sqrt(2/pi)
        noise = float(np.mean(ses) * math.sqrt(2 / math.pi))
        summary = {"variant": variant, "net": fp, "positions": len(recs), "trials": args.trials, "seed": args.seed,
                   "mean_abs_diff_0ply_vs_rollout": round(float(diffs.mean()), 4),
                   "contact_positions": int(contact.sum()),
                   "contact_mean_abs_diff": round(float(diffs[contact].mean()), 4) if contact.any() else None,
                   "race_mean_abs_diff": round(float(diffs[~contact].mean()), 4) if (~contact).any() else None,
                   "rollout_mean_se": round(float(ses.mean()), 4),
                   "expected_abs_diff_from_rollout_noise_alone": round(noise, 4),
                   "command": f"python bench/variant_consistency.py --variant {variant} --positions {args.positions} "
                              f"--trials {args.trials} --seed {args.seed}"}
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
