"""Training entry point: ``python -m bglab {td,supervised,targets,fit,prune,export,...} ...``.

Every run is seeded and resumes from its checkpoint when the file exists (commit the
checkpoint and its ``*_curve.jsonl`` learning curve under ``lab/checkpoints/``). Pin threads to one
core for background jobs: ``NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``.

Examples::

    python -m bglab td --checkpoint lab/checkpoints/td.npz --games 300000 --log runs/td.log
    python -m bglab supervised --checkpoint lab/checkpoints/sup.npz --init lab/checkpoints/td.npz \
        --rounds 100000 --games-per-round 100 --eval-every 10 --log runs/sup.log
    python -m bglab export --checkpoint lab/checkpoints/sup.npz --out data/nets/standard.npz
    python -m bglab targets --teacher data/nets/standard.npz --out runs/t2.npz --positions 400000
    python -m bglab fit --init data/nets/standard.npz --data runs/t2.npz --out runs/fit.npz --epochs 10
    python -m bglab average --nets runs/fit_s31.npz runs/fit_s32.npz --out runs/soup.npz  # then prune it
    python -m bglab prune --nets data/nets/standard.npz   # after every export
    python -m bglab variant-td --variant dutch --checkpoint lab/checkpoints/dutch_td.npz --games 200000 \
        --init standard --log runs/dutch_td.log
    python -m bglab variant-td --variant dutch --mode supervised \
        --init-from lab/checkpoints/dutch_td.npz --checkpoint lab/checkpoints/dutch_sup.npz \
        --games 300000 --games-per-iter 20 --log runs/dutch_sup.log
    python -m bglab variant-td --variant mahbusa --init-from data/nets/mahbusa.npz --hidden 256 \
        --checkpoint runs/mahbusa_wide.npz --games 200000 --lam 0.9 --lr 5e-5   # a widened continuation
    python -m bglab variant-export --checkpoint lab/checkpoints/dutch_td.npz --out data/nets/dutch.npz
    python -m bglab variant-targets --variant dutch --teacher data/nets/dutch.npz --out runs/dt1.npz \
        --positions 400000 --ply 1
    python -m bglab variant-fit --init data/nets/dutch.npz --data runs/dt1.npz --out runs/dutch_fit.npz
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from analyzer.core.variants import all_specs
from analyzer.eval.net import NetSet
from bglab.base import Trainer
from bglab.checkpoint import average_manifest, average_net_sets, load_nets, load_nets_and_info
from bglab.optim import Adam
from bglab.td import TDConfig, TDTrainer

log = logging.getLogger(__name__)
_NET_VARIANTS = " or ".join(s.name for s in all_specs() if not s.has_cube)  # the variants with their own nets
T = TypeVar("T", bound=Trainer[Any])


def _setup_log(path: str | None) -> None:
    handlers: list[logging.Handler] = []
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path))
    else:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(level=logging.INFO, handlers=handlers,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def _add_overrides(p: argparse.ArgumentParser, spec: str, helps: dict[str, str] | None = None) -> None:
    """Add the options of ``spec`` (space-separated ``name:f`` for a float, ``name:i`` for an int,
    ``name:s`` for a text, in help order) that override a run's config when given; their config names are collected in
    ``args.overrides`` for :func:`_override`."""
    names: list[str] = list(p.get_default("overrides") or ())
    types: dict[str, type] = {"f": float, "i": int, "s": str}
    for item in spec.split():
        name, kind = item.split(":")
        p.add_argument("--" + name, type=types[kind], help=(helps or {}).get(name))
        names.append(name.replace("-", "_"))
    p.set_defaults(overrides=tuple(names))


def _add_manifest_options(p: argparse.ArgumentParser) -> None:
    """The options of an export's manifest (see :func:`_manifest`)."""
    p.add_argument("--version", default="0.1")
    p.add_argument("--notes", default="")
    p.add_argument("--benchmarks", help="JSON file of benchmark results to record in the manifest")


def _override(cfg: Any, args: argparse.Namespace, opts: Iterable[Adam] = ()) -> None:
    """Set on ``cfg`` every option of ``args.overrides`` given on the command line (not None); a new
    ``lr`` goes to the optimisers ``opts`` too (a resumed run).

    >>> from types import SimpleNamespace
    >>> p = argparse.ArgumentParser()
    >>> _add_overrides(p, "lr:f games-per-iter:i")
    >>> cfg = SimpleNamespace(lr=1.0, games_per_iter=16)
    >>> _override(cfg, p.parse_args(["--lr", "0.1"]))
    >>> cfg.lr, cfg.games_per_iter
    (0.1, 16)
    """
    for name in args.overrides:
        val = getattr(args, name)
        if val is not None:
            setattr(cfg, name, val)
            if name == "lr":
                for o in opts:
                    o.lr = val


def _stop_on_signals() -> Callable[[], bool]:
    """A ``should_stop`` for the trainers' ``run``: true once SIGTERM or SIGINT has arrived (the run
    then ends at the next iteration boundary and writes its checkpoint)."""
    stop = {"flag": False}

    def _handler(signum: int, frame: object) -> None:
        stop["flag"] = True

    signal.signal(signal.SIGTERM, _handler)
    signal.signal(signal.SIGINT, _handler)
    return lambda: stop["flag"]


def _manifest(args: argparse.Namespace, info: dict[str, Any]) -> dict[str, Any]:
    """The manifest of an exported net: ``--version``, the training run (``info``), ``--notes`` and
    the ``--benchmarks`` JSON."""
    manifest: dict[str, Any] = {"version": args.version,
                                "training_run": {"checkpoint": str(args.checkpoint), **info}}
    if args.notes:
        manifest["notes"] = args.notes
    if args.benchmarks:
        manifest["benchmarks"] = json.loads(Path(args.benchmarks).read_text())
    return manifest


def _resumed(args: argparse.Namespace, load: Callable[[Path], T]) -> T | None:
    """The trainer of ``--checkpoint`` with the command line's overrides, or None when the file does
    not exist yet (a new run)."""
    ck = Path(args.checkpoint)
    if not ck.exists():
        return None
    tr = load(ck)
    _override(tr.cfg, args, tr.optimisers())
    log.info("resumed %s at %s (%s)", ck, tr.progress(), tr.cfg)
    return tr


def _cmd_td(args: argparse.Namespace) -> int:
    tr = _resumed(args, TDTrainer.load)
    if tr is None:
        cfg = TDConfig(seed=args.seed, hidden=args.hidden, race_hidden=args.race_hidden)
        _override(cfg, args)
        start = None
        if args.init:
            start = load_nets(args.init)
            cfg.init, cfg.hidden, cfg.race_hidden = str(args.init), start.contact.hidden, start.race.hidden
        tr = TDTrainer.create(args.checkpoint, cfg, start)
        log.info("new run %s (%s)", args.checkpoint, cfg)
    tr.run(args.games, checkpoint_every_s=args.checkpoint_every, should_stop=_stop_on_signals())
    return 0


def _cmd_supervised(args: argparse.Namespace) -> int:
    from bglab.supervised import SupervisedConfig, SupervisedTrainer

    tr = _resumed(args, SupervisedTrainer.load)
    if tr is None:
        if not args.init:
            raise SystemExit("a new supervised run needs --init (a TD checkpoint or a net set)")
        cfg = SupervisedConfig(seed=args.seed)
        _override(cfg, args)
        tr = SupervisedTrainer.create(args.checkpoint, cfg, load_nets(args.init), source=args.init)
        log.info("new supervised run %s from %s (%s)", args.checkpoint, args.init, cfg)
    tr.run(args.rounds, should_stop=_stop_on_signals())
    return 0


def _cmd_prune(args: argparse.Namespace) -> int:
    from bglab.prune import train_prune_net

    nets = NetSet.load(args.nets)
    nets.prune = train_prune_net(nets, games=args.games, hidden=args.hidden, epochs=args.epochs)
    manifest = dict(nets.meta)
    manifest["prune_net"] = {"games": args.games, "hidden": args.hidden, "epochs": args.epochs,
                             "source": "distilled from the main nets' 0-ply outputs"}
    nets.save(args.out or args.nets, manifest)
    return 0


def _cmd_average(args: argparse.Namespace) -> int:
    sets = [NetSet.load(p) for p in args.nets]
    try:
        mean = average_net_sets(sets)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    mean.save(args.out, average_manifest(args.nets, sets))
    log.info("mean of %d net sets in %s (no pruning net: run prune on it)", len(sets), args.out)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    try:
        nets, info = load_nets_and_info(args.checkpoint, ema=args.ema)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    nets.save(args.out, _manifest(args, info))
    return 0


def _build_targets(args: argparse.Namespace, builder: Any, cfg: Any) -> int:
    """Resume the target build of ``--checkpoint`` (a ``TargetFileBuilder`` class ``builder``), or
    start one with ``cfg`` and the command line's overrides; run it to ``--positions``."""
    tb = _resumed(args, builder.load)
    if tb is None:
        _override(cfg, args)
        tb = builder.create(args.checkpoint, cfg)
        log.info("new target build %s (%s)", args.checkpoint, cfg)
    tb.run(args.positions, checkpoint_every_s=args.checkpoint_every, should_stop=_stop_on_signals())
    return 0


def _cmd_targets(args: argparse.Namespace) -> int:
    from bglab.dataset import TargetBuilder, TargetsConfig

    return _build_targets(args, TargetBuilder, TargetsConfig(teacher=args.teacher, seed=args.seed))


HELDOUT_FILES = Path(__file__).resolve().parents[2] / "bench" / "data" / "referee" / "heldout_files.txt"
"""The match files set aside for good for the referee set (issue 51): no training reads them."""


def without_heldout(files: Iterable[str], listing: Path = HELDOUT_FILES) -> list[str]:
    """``files`` less the held-out match files named in ``listing`` (paths relative to the corpus
    folder, ``#`` comments; a file is held out when its path ends with a listed one).

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "held.txt"
    >>> _ = f.write_text("# held out\\nbglab/galaxy/match1.txt\\n")
    >>> without_heldout(["c/bglab/galaxy/match1.txt", "c/bglab/galaxy/match11.txt"], f)
    ['c/bglab/galaxy/match11.txt']
    """
    held = _heldout_names(listing)
    return [f for f in files if not _is_heldout(f, held)]


def only_heldout(files: Iterable[str], listing: Path = HELDOUT_FILES) -> list[str]:
    """``files`` that are held-out match files named in ``listing`` (the complement of
    :func:`without_heldout`): the positions of a screen that no net trains on.

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "held.txt"
    >>> _ = f.write_text("# held out\\nbglab/galaxy/match1.txt\\n")
    >>> only_heldout(["c/bglab/galaxy/match1.txt", "c/bglab/galaxy/match11.txt"], f)
    ['c/bglab/galaxy/match1.txt']
    """
    held = _heldout_names(listing)
    return [f for f in files if _is_heldout(f, held)]


def _heldout_names(listing: Path) -> list[str]:
    if not listing.exists():
        raise FileNotFoundError(f"{listing}: the list of held-out match files is missing")
    return [line.strip() for line in listing.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def _is_heldout(f: str, held: list[str]) -> bool:
    return any(f.replace("\\", "/").endswith("/" + h) or f == h for h in held)


def _cmd_corpus_positions(args: argparse.Namespace) -> int:
    from analyzer.formats import expand_inputs
    from bglab.dataset import corpus_positions

    files = [f for f in expand_inputs(list(args.inputs))[args.skip_first:]
             if not any(x.lower() in f.lower() for x in args.exclude)]
    # the referee set's files: always left out of training positions; --heldout: only they (a screen)
    files = only_heldout(files) if args.heldout else without_heldout(files)
    boards, games, bad = corpus_positions(files)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, boards=boards, games=games)
    log.info("%d positions of %d games from %d files (%d unreadable) in %s", len(boards),
             int(games.max()) + 1 if len(games) else 0, len(files), bad, out)
    return 0


def _cmd_weak_positions(args: argparse.Namespace) -> int:
    from bglab.classes import weak_positions

    with np.load(args.positions) as z:
        boards, games = np.array(z["boards"], np.int8), np.array(z["games"], np.int64)
    classes = tuple(c.strip() for c in args.classes.split(","))
    out_boards, source, counts = weak_positions(boards, games, classes, args.limit, args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, boards=out_boards, games=np.arange(len(out_boards), dtype=np.int64),
                        source_games=source)
    log.info("%d of %d positions (%s) in %s; the pool by class and seat: %s", len(out_boards), len(boards),
             ", ".join(classes), out, json.dumps(counts))
    return 0


def _cmd_screen(args: argparse.Namespace) -> int:
    from analyzer.eval.engine import Engine
    from analyzer.eval.net import NetSet
    from bglab.base import read_checkpoint
    from bglab.classes import class_names, describe
    from bglab.learner import outcome_equity
    from bglab.screen import class_bits, format_screen, screen_table

    arrays, doc = read_checkpoint(args.labels)
    boards = np.asarray(arrays["boards"], np.int8)
    labels = outcome_equity(np.asarray(arrays["targets"], np.float32))
    sources = np.asarray(arrays["games"], np.int64)
    pos_file = args.sources or doc.get("config", {}).get("positions_file", "")
    if pos_file and Path(pos_file).exists():
        with np.load(pos_file) as z:
            if "source_games" in z.files:  # a weak-positions file: each row's real game
                sources = np.asarray(z["source_games"], np.int64)[np.asarray(arrays["games"], np.int64)]
    classes = tuple(c.strip() for c in args.classes.split(","))
    unknown = [c for c in classes if c not in class_names()]
    if unknown:
        raise SystemExit(f"--classes: unknown class {unknown[0]!r}")
    masks, seats = describe(boards)
    equities = {}
    for path in args.nets:
        engine = Engine(NetSet.load(path), cache_size=0)
        equities[path] = outcome_equity(engine.evaluate_boards(boards, 0))
    rows = screen_table(class_bits(masks, classes, class_names()), seats, sources, labels, equities, classes)
    print(f"{args.labels}: {len(boards)} rows, each net's 0-ply equity minus the row's rollout equity")
    print(format_screen(rows, list(equities)))
    if args.json:
        Path(args.json).write_text(json.dumps({"labels": str(args.labels), "nets": list(equities), "rows": rows},
                                              indent=1), encoding="utf-8")
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from bglab.dataset import FitConfig, fit, load_targets, load_targets_and_groups

    cfg = FitConfig()
    _override(cfg, args)
    groups = None
    if cfg.choice > 0:
        boards, targets, games, groups = load_targets_and_groups(args.data)
    else:
        boards, targets, games = load_targets(args.data)
    weighed: dict[str, Any] | None = None
    if args.weigh:
        from bglab.classes import parse_weigh, weigh_rows

        try:
            rules = [parse_weigh(s) for s in args.weigh]
        except ValueError as e:
            raise SystemExit(f"--weigh {e}") from None
        files = set(args.weigh_files or args.data)
        unknown = sorted(files - set(args.data))
        if unknown:
            raise SystemExit(f"--weigh-files {unknown[0]}: not among --data")
        # load_targets offsets file i's game numbers by i * 10**9
        eligible = np.isin(games // 10**9, [i for i, p in enumerate(args.data) if p in files])
        boards, targets, games, groups, counts = weigh_rows(boards, targets, games, groups, rules, eligible)
        weighed = {"rules": list(args.weigh), "files": sorted(files), "rows": counts}
        log.info("weighed by class and seat: %s", counts)
    log.info("fit on %d positions of %s (%s)", len(boards), ", ".join(args.data), cfg)
    from bglab.dataset import starting_nets

    start = starting_nets(load_nets(args.init), cfg)
    best, hist = fit(start, boards, targets, games, cfg, groups)
    manifest = dict(start.meta)
    manifest["fit"] = {"init": args.init, "data": list(args.data), "positions": int(len(boards)),
                       "config": vars(cfg), "history": hist}
    if weighed is not None:
        manifest["fit"]["weighed"] = weighed
    best.save(args.out, manifest)
    return 0


def _cmd_variant_td(args: argparse.Namespace) -> int:
    from bglab.td import VariantTDConfig, VariantTDTrainer

    tr = _resumed(args, VariantTDTrainer.load)
    if tr is None:
        cfg = VariantTDConfig(variant=args.variant, seed=args.seed, hidden=args.hidden or 128, init=args.init,
                              mode=args.mode)
        _override(cfg, args)
        if args.init_from:
            try:
                tr = VariantTDTrainer.from_source(args.checkpoint, args.init_from, cfg, hidden=args.hidden or 0)
            except ValueError as e:
                raise SystemExit(f"{args.init_from}: {e}") from None
        elif args.mode == "supervised":
            raise SystemExit("a new supervised run needs --init-from (a variant-td checkpoint or net)")
        else:
            tr = VariantTDTrainer.create(args.checkpoint, cfg)
        log.info("new run %s (%s)", args.checkpoint, cfg)
    tr.run(args.games, checkpoint_every_s=args.checkpoint_every, should_stop=_stop_on_signals())
    return 0


def _cmd_variant_targets(args: argparse.Namespace) -> int:
    from bglab.dataset import VariantTargetBuilder, VariantTargetsConfig

    cfg = VariantTargetsConfig(variant=args.variant, teacher=args.teacher, seed=args.seed)
    return _build_targets(args, VariantTargetBuilder, cfg)


def _cmd_variant_fit(args: argparse.Namespace) -> int:
    from analyzer.eval.variants.model import VariantNet
    from bglab.dataset import VariantFitConfig, load_variant_targets, variant_fit

    cfg = VariantFitConfig()
    _override(cfg, args)
    start = VariantNet.load(args.init)
    try:
        boards, targets, games = load_variant_targets(args.data, start.variant)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    log.info("variant fit on %d positions of %s (%s)", len(boards), ", ".join(args.data), cfg)
    best, hist = variant_fit(start, boards, targets, games, cfg)
    manifest = {k: v for k, v in start.meta.items() if k not in ("benchmarks", "fit")}
    manifest["fit"] = {"init": args.init, "data": list(args.data), "positions": int(len(boards)),
                       "config": vars(cfg), "history": hist}
    best.save(args.out, manifest)
    return 0


def _cmd_variant_export(args: argparse.Namespace) -> int:
    from bglab.td import VariantTDTrainer

    tr = VariantTDTrainer.load(args.checkpoint)
    if args.ema and tr.ema is None:
        raise SystemExit(f"{args.checkpoint} keeps no moving average (train with --ema-games N)")
    info = tr.info()
    if args.ema:
        info["weights"] = f"moving average over about {tr.cfg.ema_games} games"
    (tr.ema_net() if args.ema else tr.vn).save(args.out, _manifest(args, info))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bglab")
    sub = ap.add_subparsers(dest="cmd", required=True)
    td = sub.add_parser("td", help="TD(lambda) self-play training (resumes from --checkpoint if it exists)")
    td.add_argument("--checkpoint", default="lab/checkpoints/td.npz")
    td.add_argument("--games", type=int, required=True, help="train until this many games in total")
    td.add_argument("--seed", type=int, default=1)
    td.add_argument("--hidden", type=int, default=128)
    td.add_argument("--race-hidden", type=int, default=64)
    td.add_argument("--init", help="starting nets for a new run (net set or checkpoint; default: random)")
    _add_overrides(td, "lr:f lam:f noise:f batch:i games-per-iter:i eval-every:i eval-seeds:i train-race:i "
                   "ema-games:i",
                   {"train-race": "0: keep the race net as it is (train contact and crashed only)",
                    "ema-games": "keep a moving average of the weights over about N games (export it with --ema)"})
    td.add_argument("--checkpoint-every", type=float, default=600.0, help="seconds between checkpoints")
    td.add_argument("--log", help="log file (default: stderr)")
    sv = sub.add_parser("supervised",
                        help="1-ply distillation rounds (resumes from --checkpoint if it exists)")
    sv.add_argument("--checkpoint", default="lab/checkpoints/sup.npz")
    sv.add_argument("--init", help="starting nets for a new run: TD checkpoint or net set (.npz)")
    sv.add_argument("--rounds", type=int, required=True, help="train until this many rounds in total")
    sv.add_argument("--seed", type=int, default=11)
    _add_overrides(sv, "lr:f batch:i games-per-round:i noise:f epochs:i eval-every:i eval-seeds:i prune-every:i "
                   "target-ply:i train-race:i",
                   {"prune-every": "retrain the pruning net every N rounds (0: no pruning)",
                    "target-ply": "ply of the targets (1: 1-ply expectation, 2: 2-ply)",
                    "train-race": "0: keep the race net as it is (train contact and crashed only)"})
    sv.add_argument("--log", help="log file (default: stderr)")
    pr = sub.add_parser("prune", help="train the pruning net of a net set (distilled from its main nets)")
    pr.add_argument("--nets", default="data/nets/standard.npz")
    pr.add_argument("--out", help="default: overwrite --nets")
    pr.add_argument("--games", type=int, default=300)
    pr.add_argument("--hidden", type=int, default=16)
    pr.add_argument("--epochs", type=int, default=8)
    pr.add_argument("--log", help="log file (default: stderr)")
    av = sub.add_parser("average", help="the mean of the weights of net sets fitted from the same start (seeds)")
    av.add_argument("--nets", nargs="+", required=True, help="net sets (fit --out files) of the same shapes")
    av.add_argument("--out", required=True, help="net set to write (without a pruning net: run prune on it)")
    av.add_argument("--log", help="log file (default: stderr)")
    ex = sub.add_parser("export", help="write a checkpoint's nets as shipped weights + manifest")
    ex.add_argument("--checkpoint", default="lab/checkpoints/td.npz")
    ex.add_argument("--out", default="data/nets/standard.npz")
    ex.add_argument("--ema", action="store_true", help="export the moving-average weights (td --ema-games runs)")
    _add_manifest_options(ex)
    vt = sub.add_parser("variant-td", help="TD(lambda) self-play for the Dutch or Mahbusa net (resumes)")
    vt.add_argument("--variant", default="dutch", help=_NET_VARIANTS)
    vt.add_argument("--checkpoint", required=True)
    vt.add_argument("--games", type=int, required=True, help="train until this many games in total")
    vt.add_argument("--seed", type=int, default=1)
    vt.add_argument("--hidden", type=int, help="hidden units (default 128; with --init-from: the source's size, "
                    "or more to widen it)")
    vt.add_argument("--init", default="random", help="random, or standard (Dutch: the standard contact net)")
    _add_overrides(vt, "lr:f lam:f noise:f batch:i games-per-iter:i eval-every:i eval-pairs:i ema-games:i",
                   {"ema-games": "keep a moving average of the weights over about N games (export it with --ema)"})
    vt.add_argument("--mode", default="td", choices=("td", "supervised"),
                    help="td: lambda-returns; supervised: targets from our own --ply evaluation")
    vt.add_argument("--init-from", help="the checkpoint or net a new run starts from (needed by supervised runs)")
    _add_overrides(vt, "ply:i epochs:i sample-every:i")
    vt.add_argument("--checkpoint-every", type=float, default=300.0, help="seconds between checkpoints")
    vt.add_argument("--log", help="log file (default: stderr)")
    tg = sub.add_parser("targets", help="build (resumably) a file of self-play positions and our n-ply targets")
    tg.add_argument("--out", dest="checkpoint", required=True, help="the target file (resumed if it exists)")
    tg.add_argument("--teacher", default="data/nets/standard.npz", help="net set whose n-ply search labels")
    tg.add_argument("--positions", type=int, required=True, help="build until this many positions in total")
    tg.add_argument("--seed", type=int, default=21)
    _add_overrides(tg, "ply:i noise:f games-per-chunk:i sample-every:i prune:i positions-file:s themes:s trials:i "
                       "candidates:i margin:f paired:i truncate:i classes:s variance-reduction:i player-ply:i",
                   {"positions-file": "label the positions of this file (corpus-positions) instead of self-play",
                    "candidates": "label, instead of each kept position, the results of the teacher's best N "
                                  "0-ply plays of one seeded roll in it (the choices the net must tell apart)",
                    "margin": "with --candidates: only plays within this equity of the best",
                    "trials": "label by a cubeless rollout of this many trials (played out, no variance "
                              "reduction) instead of n-ply",
                    "paired": "1, with --trials and --candidates: a decision's candidates rolled out on the same "
                              "dice, with variance reduction (their differences far less noisy)",
                    "truncate": "with --trials: stop each rollout game after this many plies (0: play out)",
                    "themes": "keep only the positions of these themes, self-play or --positions-file (comma "
                              "separated, analyzer.analysis.themes)",
                    "classes": "keep only the positions of these referee classes (bench/referee.py's, comma "
                               "separated, e.g. 'back game,containment,on the bar'; on the bar from both seats)",
                    "variance-reduction": "1, with --trials: every rollout variance reduced (cubeless; the luck "
                                          "measured at 0-ply)",
                    "player-ply": "with --trials: the rollouts' player, 0 (the teacher's 0-ply best play, the "
                                  "default) or 1 (the best of a 1-ply search of the 0-ply pass's best 8 within 0.16)"})
    tg.add_argument("--checkpoint-every", type=float, default=300.0, help="seconds between saves")
    tg.add_argument("--log", help="log file (default: stderr)")
    cp = sub.add_parser("corpus-positions",
                        help="the positions before each checker play of real matches, for targets --positions-file")
    cp.add_argument("inputs", nargs="+", help="match files or folders (walked in sorted order)")
    cp.add_argument("--out", required=True, help="the positions file (.npz)")
    cp.add_argument("--skip-first", type=int, default=0,
                    help="leave out the first N files of the sorted walk (those bench/blind_spots.py samples); "
                         "the files of bench/data/referee/heldout_files.txt are always left out")
    cp.add_argument("--exclude", action="append", default=[],
                    help="leave out the files whose path holds this text (case-insensitive; repeatable)")
    cp.add_argument("--heldout", action="store_true",
                    help="instead, only the held-out files of bench/data/referee/heldout_files.txt (no net trains "
                         "on them): the positions of a screen")
    cp.add_argument("--log", help="log file (default: stderr)")
    wp = sub.add_parser("weak-positions",
                        help="the positions of a corpus-positions file in the referee's weak classes, a queue "
                             "balanced by class and seat, for targets --positions-file --classes")
    wp.add_argument("positions", help="a corpus-positions file (.npz)")
    wp.add_argument("--out", required=True, help="the positions file to write (.npz, one position a game)")
    wp.add_argument("--classes", default="back game,containment,on the bar",
                    help="referee classes, comma separated (a position's stratum: its first of them, and its seat)")
    wp.add_argument("--limit", type=int, default=20_000, help="at most this many positions")
    wp.add_argument("--seed", type=int, default=51)
    wp.add_argument("--log", help="log file (default: stderr)")
    sc = sub.add_parser("screen", help="nets' 0-ply against a file of our rollout labels, by referee class and "
                                       "seat of the back-checker side: bias and mean |error|, paired")
    sc.add_argument("labels", help="a targets file of rollout labels (e.g. --trials 72 --classes ...)")
    sc.add_argument("--nets", action="append", required=True,
                    help="a net set (repeatable; the first is the reference of the paired changes)")
    sc.add_argument("--classes", default="back game,containment,on the bar", help="referee classes, comma separated")
    sc.add_argument("--sources", help="the positions file whose source_games group the rows by real game "
                                      "(default: the build's positions file, when it has them)")
    sc.add_argument("--json", help="also write the cells to this JSON file")
    ft = sub.add_parser("fit", help="train the contact and crashed nets for epochs over target files")
    ft.add_argument("--init", required=True, help="starting net set or checkpoint")
    ft.add_argument("--data", nargs="+", required=True, help="target files (python -m bglab targets)")
    ft.add_argument("--out", required=True, help="net set to write (the best hold-out epoch)")
    _add_overrides(ft, "epochs:i lr:f lr-decay:f batch:i holdout:i seed:i pick:i extended:i fresh:i hidden:i "
                   "choice:f",
                   {"pick": "keep the nets after this epoch whatever the hold-out says (default 0: the best "
                            "hold-out epoch, the starting nets included)",
                    "extended": "1: the contact and crashed nets read the extended encoding (new inputs start at 0)",
                    "fresh": "1: start the contact net from random weights (the crashed net is kept)",
                    "hidden": "widen the contact and crashed nets to this many hidden units (same outputs first)",
                    "choice": "weight of the within-decision loss on the rows of candidate builds (targets "
                              "--candidates): the ranking of a roll's plays, not only each one's equity"})
    ft.add_argument("--weigh", nargs="+", metavar="CLASS[/SEAT]=TIMES",
                    help="give each row of a referee class (bglab.classes; SEAT of the back-checker side: on roll, "
                         "off roll, even) this many times in all (a decision's rows as often as its most weighed)")
    ft.add_argument("--weigh-files", nargs="+", metavar="FILE",
                    help="with --weigh: weigh only the rows of these --data files (default: all)")
    ft.add_argument("--log", help="log file (default: stderr)")
    vg = sub.add_parser("variant-targets",
                        help="build (resumably) a file of variant self-play positions and our n-ply targets")
    vg.add_argument("--variant", default="dutch", help=_NET_VARIANTS)
    vg.add_argument("--out", dest="checkpoint", required=True, help="the target file (resumed if it exists)")
    vg.add_argument("--teacher", required=True, help="variant net (or variant-td checkpoint) whose n-ply labels")
    vg.add_argument("--positions", type=int, required=True, help="build until this many positions in total")
    vg.add_argument("--seed", type=int, default=41)
    _add_overrides(vg, "ply:i noise:f games-per-chunk:i sample-every:i trials:i",
                   {"trials": "label by a rollout of this many trials (36: each first roll once) instead of n-ply"})
    vg.add_argument("--checkpoint-every", type=float, default=300.0, help="seconds between saves")
    vg.add_argument("--log", help="log file (default: stderr)")
    vf = sub.add_parser("variant-fit", help="train a variant net for epochs over variant target files")
    vf.add_argument("--init", required=True, help="starting variant net or variant-td checkpoint")
    vf.add_argument("--data", nargs="+", required=True, help="target files (python -m bglab variant-targets)")
    vf.add_argument("--out", required=True, help="variant net to write (the best hold-out epoch)")
    _add_overrides(vf, "epochs:i lr:f lr-decay:f batch:i holdout:i seed:i fresh:i hidden:i",
                   {"fresh": "1: start from random weights (of --hidden units; default as many as --init)"})
    vf.add_argument("--log", help="log file (default: stderr)")
    ve = sub.add_parser("variant-export", help="write a variant-td checkpoint's net as shipped weights + manifest")
    ve.add_argument("--checkpoint", required=True)
    ve.add_argument("--out", required=True)
    ve.add_argument("--ema", action="store_true", help="export the moving-average weights (--ema-games runs)")
    _add_manifest_options(ve)
    args = ap.parse_args(argv)
    _setup_log(getattr(args, "log", None))
    if args.cmd == "variant-td":
        return _cmd_variant_td(args)
    if args.cmd == "variant-export":
        return _cmd_variant_export(args)
    if args.cmd == "variant-targets":
        return _cmd_variant_targets(args)
    if args.cmd == "variant-fit":
        return _cmd_variant_fit(args)
    if args.cmd == "td":
        return _cmd_td(args)
    if args.cmd == "supervised":
        return _cmd_supervised(args)
    if args.cmd == "targets":
        return _cmd_targets(args)
    if args.cmd == "corpus-positions":
        return _cmd_corpus_positions(args)
    if args.cmd == "weak-positions":
        return _cmd_weak_positions(args)
    if args.cmd == "screen":
        return _cmd_screen(args)
    if args.cmd == "fit":
        return _cmd_fit(args)
    if args.cmd == "prune":
        return _cmd_prune(args)
    if args.cmd == "average":
        return _cmd_average(args)
    return _cmd_export(args)


if __name__ == "__main__":
    sys.exit(main())
