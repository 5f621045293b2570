"""Screen variant nets against a file of rollout-labelled positions (a cheap consistency proxy).

``python -m bglab variant-targets --trials 36`` labels self-play positions with the
outcome frequencies of a 36-trial rollout by a teacher net (first and second rolls stratified).
Each label is an unbiased but noisy estimate (variance about 0.03-0.04 points squared) of the
teacher player's rollout value. For every net given this prints, over the file's positions, the
mean squared difference between the net's 0-ply equity and the labels, the label noise variance
estimated from the frequencies, their difference (the net's own error variance against the
teacher's rollouts), and the paired difference to the first net with its standard error::

    python -m bglab.experiments.variant_label_check --variant mahbusa --data runs/mahbusa_ro36.npz \\
        --nets data/nets/mahbusa.npz runs/mahbusa_wide.npz lab/checkpoints/mahbusa_td.npz

A net whose player differs from the teacher's is measured against the teacher's rollouts, not
its own, so this screens candidates before the rollouts of ``bench/variant_consistency.py``;
it does not replace them. Checkpoints are read with their moving-average weights when they keep
them.

``--holdout N`` keeps only the positions of every N-th game, the ones ``variant-fit --holdout N``
did not train on, so a net fitted to one part of a label file is screened on the other::

    python -m bglab variant-fit --init data/nets/dutch.npz --data runs/dutch_ro36.npz \
        --holdout 5 --out runs/dutch_fit.npz
    python -m bglab.experiments.variant_label_check --variant dutch --data runs/dutch_ro36.npz --holdout 5 \
        --nets data/nets/dutch.npz runs/dutch_fit.npz

``--breakdown`` also says where the first net's error lies: its error variance (each label's own
noise subtracted) in ten bins of its equity, and for the win and the gammon probability::

    python -m bglab.experiments.variant_label_check --variant mahbusa --data runs/mahbusa_ro36.npz \\
        --nets data/nets/mahbusa.npz --breakdown
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from analyzer.eval.variants import features as V
from analyzer.eval.variants.model import POINTS, VariantNet, variant_code
from bglab.base import read_checkpoint
from bglab.dataset import load_variant_targets
from bglab.td import VariantTDTrainer


def load_any(path: str) -> VariantNet:
    """A shipped net, or a ``variant-td`` checkpoint's moving average (its weights if none)."""
    try:
        return VariantTDTrainer.load(path).ema_net()
    except (KeyError, ValueError):
        return VariantNet.load(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--variant", default="dutch")
    ap.add_argument("--data", nargs="+", required=True, help="rollout-labelled target files (variant-targets --trials)")
    ap.add_argument("--nets", nargs="+", required=True, help="nets or checkpoints; the first is the reference")
    ap.add_argument("--breakdown", action="store_true", help="the first net's error by equity bin and outcome")
    ap.add_argument("--holdout", type=int, default=0,
                    help="N: only the positions of every N-th game (those variant-fit --holdout N held out)")
    args = ap.parse_args(argv)
    variant = "mahbusa" if args.variant.lower() in ("mahbusa", "plakoto") else args.variant.lower()
    code = variant_code(variant)
    boards, targets, games = load_variant_targets(args.data, variant)
    if args.holdout > 0:
        held = games % args.holdout == 0
        boards, targets = boards[held], targets[held]
    trials = {int(read_checkpoint(p)[1]["config"].get("trials", 0)) for p in args.data}
    if len(trials) != 1 or min(trials) <= 1:
        raise SystemExit(f"the files must all be rollout-labelled with one trial count (variant-targets "
                         f"--trials N), not {sorted(trials)}")
    n_trials = trials.pop()
    k = V.n_outcomes(code)
    pts = POINTS[:k].astype(np.float64)
    t = targets[:, :k].astype(np.float64)
    t /= t.sum(axis=1, keepdims=True)
    te = t @ pts
    x = np.zeros((len(boards), V.n_inputs(code)), np.float32)
    for i in range(len(boards)):
        V.encode(boards[i], code, x[i])
    # the variance of a label's mean: the frequencies' sample variance over n - 1
    noise_each = (t @ pts**2 - te**2) / (n_trials - 1)
    noise = float(noise_each.mean())
    print(f"variant {variant}  positions {len(boards)}  trials per label {n_trials}  "
          f"label noise variance {noise:.5f}")
    ref: np.ndarray | None = None
    for path in args.nets:
        probs = load_any(path).net.forward(x).astype(np.float64)
        eq = probs @ pts
        sq = (eq - te) ** 2
        line = f"{path}: MSE {sq.mean():.5f}  net error variance {sq.mean() - noise:.5f}"
        if ref is None:
            ref = sq
        else:
            d = sq - ref
            line += f"  minus the first {d.mean():+.5f} +- {d.std(ddof=1) / math.sqrt(len(d)):.5f}"
        print(line)
        if args.breakdown and path == args.nets[0]:
            print(breakdown(probs, t, noise_each, n_trials))
    return 0


def breakdown(probs: np.ndarray, t: np.ndarray, noise: np.ndarray, n_trials: int) -> str:
    """Lines of the net's error variance (``noise``, each label's own noise variance, subtracted
    position by position) in ten equal-count bins of the net's equity ``probs @ POINTS``, then for
    the win and the gammon probabilities against the label frequencies ``t``.

    >>> rng = np.random.default_rng(1)
    >>> p = rng.dirichlet(np.ones(4), 40)
    >>> print(breakdown(p, p, np.zeros(40), 36).splitlines()[0])
    equity bin       positions  error variance  label noise
    """
    pts = POINTS[: t.shape[1]].astype(np.float64)
    eq = probs @ pts
    err = (t @ pts - eq) ** 2 - noise
    edges = np.quantile(eq, np.linspace(0.0, 1.0, 11))
    which = np.digitize(eq, edges[1:-1])
    lines = [f"{'equity bin':16s} {'positions':>9s}  {'error variance':>14s}  {'label noise':>11s}"]
    for j in range(10):
        m = which == j
        if m.any():
            lines.append(f"{edges[j]:+.2f} .. {edges[j + 1]:+.2f}   {int(m.sum()):9d}  {err[m].mean():14.5f}  "
                         f"{noise[m].mean():11.5f}")
    for name, cols in (("win", [0, 1]), ("gammon", [1, 3])):
        f, g = t[:, cols].sum(axis=1), probs[:, cols].sum(axis=1)
        v = ((f - g) ** 2 - f * (1.0 - f) / (n_trials - 1)).mean()
        lines.append(f"{name} probability: error variance {v:.5f}, bias {(f - g).mean():+.5f}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
