"""Training entry point: ``python -m analyzer.train {td,export} ...``.

Examples::

    python -m analyzer.train td --checkpoint data/train/td.npz --games 300000 --log runs/td.log
    python -m analyzer.train export --checkpoint data/train/td.npz --out data/nets/standard.npz
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path

from analyzer.train.td import TDConfig, TDTrainer


def _setup_log(path: str | None) -> None:
    handlers: list[logging.Handler] = []
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path))
    else:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(level=logging.INFO, handlers=handlers,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def _cmd_td(args: argparse.Namespace) -> int:
    ck = Path(args.checkpoint)
    if ck.exists():
        tr = TDTrainer.load(ck)
        for name in ("lr", "lam", "noise", "eval_every", "eval_seeds", "games_per_iter", "batch"):
            val = getattr(args, name)
            if val is not None:
                setattr(tr.cfg, name, val)
                if name == "lr":
                    for o in tr.opts.values():
                        o.lr = val
        logging.getLogger(__name__).info("resumed %s at %d games (%s)", ck, tr.games, tr.cfg)
    else:
        cfg = TDConfig(seed=args.seed, hidden=args.hidden, race_hidden=args.race_hidden)
        for name in ("lr", "lam", "noise", "eval_every", "eval_seeds", "games_per_iter", "batch"):
            val = getattr(args, name)
            if val is not None:
                setattr(cfg, name, val)
        tr = TDTrainer.create(ck, cfg)
        logging.getLogger(__name__).info("new run %s (%s)", ck, cfg)
    stop = {"flag": False}

    def _handler(signum: int, frame: object) -> None:
        stop["flag"] = True

    signal.signal(signal.SIGTERM, _handler)
    signal.signal(signal.SIGINT, _handler)
    tr.run(args.games, checkpoint_every_s=args.checkpoint_every, should_stop=lambda: stop["flag"])
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    tr = TDTrainer.load(args.checkpoint)
    manifest = {"version": args.version, "training_run": {"checkpoint": str(args.checkpoint),
                "games": tr.games, "positions": tr.positions, "config": vars(tr.cfg)}}
    if args.notes:
        manifest["notes"] = args.notes
    tr.nets.save(args.out, manifest)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m analyzer.train")
    sub = ap.add_subparsers(dest="cmd", required=True)
    td = sub.add_parser("td", help="TD(lambda) self-play training (resumes from --checkpoint if it exists)")
    td.add_argument("--checkpoint", default="data/train/td.npz")
    td.add_argument("--games", type=int, required=True, help="train until this many games in total")
    td.add_argument("--seed", type=int, default=1)
    td.add_argument("--hidden", type=int, default=128)
    td.add_argument("--race-hidden", type=int, default=64)
    td.add_argument("--lr", type=float)
    td.add_argument("--lam", type=float)
    td.add_argument("--noise", type=float)
    td.add_argument("--batch", type=int)
    td.add_argument("--games-per-iter", type=int)
    td.add_argument("--eval-every", type=int)
    td.add_argument("--eval-seeds", type=int)
    td.add_argument("--checkpoint-every", type=float, default=600.0, help="seconds between checkpoints")
    td.add_argument("--log", help="log file (default: stderr)")
    ex = sub.add_parser("export", help="write a checkpoint's nets as shipped weights + manifest")
    ex.add_argument("--checkpoint", default="data/train/td.npz")
    ex.add_argument("--out", default="data/nets/standard.npz")
    ex.add_argument("--version", default="0.1")
    ex.add_argument("--notes", default="")
    args = ap.parse_args(argv)
    _setup_log(getattr(args, "log", None))
    if args.cmd == "td":
        return _cmd_td(args)
    return _cmd_export(args)


if __name__ == "__main__":
    sys.exit(main())
