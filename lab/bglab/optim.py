"""Cross-entropy training of the outcome nets with Adam, in plain numpy.

>>> import numpy as np
>>> from analyzer.eval.net import Net
>>> rng = np.random.default_rng(0)
>>> net = Net.initial(10, 8, rng)
>>> x = rng.random((32, 10)).astype(np.float32)
>>> t = np.zeros((32, 6), np.float32); t[:, 0] = 1.0
>>> opt = Adam(net, lr=0.01)
>>> first = opt.step(x, t)
>>> for _ in range(50):
...     last = opt.step(x, t)
>>> last < first
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.net import Net, softmax

PARAMS = ("w1", "b1", "w2", "b2")


@dataclass(frozen=True)
class ChoiceLoss:
    """A within-decision equity loss beside the cross-entropy: the rows of a minibatch are the
    results of the candidate plays of decisions (``groups``: each row's decision, 0..k-1), and
    the loss adds ``weight`` times the mean squared *centred* equity residual: each row's
    (equity - target equity) less its decision's mean. What a decision's candidates share (the
    level of the whole position) costs nothing; what tells them apart (the ranking) is learned.
    Equities are ``equity_weights`` . outcome probabilities."""

    groups: NDArray[np.int64]
    weight: float
    equity_weights: NDArray[np.float32]


def centred_residuals(eq: NDArray[np.floating[Any]], target_eq: NDArray[np.floating[Any]],
                      groups: NDArray[np.int64]) -> NDArray[np.float64]:
    """``eq - target_eq`` less the mean of its group (``groups``: each row's group, 0..k-1).

    >>> centred_residuals(np.array([0.1, 0.3, 0.0]), np.array([0.0, 0.0, 0.5]), np.array([0, 0, 1])).round(6)
    array([-0.1,  0.1,  0. ])
    """
    r = np.asarray(eq, np.float64) - np.asarray(target_eq, np.float64)
    mean = np.bincount(groups, r) / np.maximum(np.bincount(groups), 1)
    out: NDArray[np.float64] = r - mean[groups]
    return out


def loss_and_grads(net: Net, x: NDArray[np.float32], t: NDArray[np.float32],
                   choice: ChoiceLoss | None = None) -> tuple[float, list[NDArray[np.float32]]]:
    """Mean cross-entropy of ``net`` on inputs ``x`` against target distributions ``t`` (plus the
    ``choice`` loss of those rows, when given), and the gradients of (w1, b1, w2, b2)."""
    n = x.shape[0]
    a = x @ net.w1 + net.b1
    h = (0.5 * (1.0 + np.tanh(0.5 * a))).astype(np.float32)
    z = h @ net.w2 + net.b2
    p = softmax(z)
    loss = float(-(t * np.log(np.maximum(p, 1e-12))).sum() / n)
    dz = (p - t) / np.float32(n)
    if choice is not None:
        w = choice.equity_weights
        eq = p @ w
        c = centred_residuals(eq, t @ w, choice.groups)
        loss += choice.weight * float((c * c).sum() / n)
        # d(sum c^2)/d eq_i = 2 c_i (the group means' own terms cancel: each group's c sums to 0);
        # d eq_i / d z_ik = p_ik (w_k - eq_i)
        dz += ((2.0 * choice.weight / n) * c[:, None] * p * (w[None, :] - eq[:, None])).astype(np.float32)
    gw2 = h.T @ dz
    gb2 = dz.sum(axis=0)
    dh = dz @ net.w2.T
    da = dh * h * (1.0 - h)
    gw1 = x.T @ da
    gb1 = da.sum(axis=0)
    return loss, [gw1.astype(np.float32), gb1.astype(np.float32), gw2.astype(np.float32),
                  gb2.astype(np.float32)]


class Adam:
    """Adam optimiser state for one :class:`Net` (updates the net's arrays in place)."""

    def __init__(self, net: Net, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.net = net
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.eps = eps
        self.t = 0
        self.m = [np.zeros_like(getattr(net, k)) for k in PARAMS]
        self.v = [np.zeros_like(getattr(net, k)) for k in PARAMS]

    def step(self, x: NDArray[np.float32], t: NDArray[np.float32], choice: ChoiceLoss | None = None) -> float:
        """One update on a minibatch (with the ``choice`` loss of its decisions, when given); returns
        the loss before the update."""
        loss, grads = loss_and_grads(self.net, x, t, choice)
        self.t += 1
        b1 = self.beta1
        b2 = self.beta2
        corr = self.lr * np.sqrt(1.0 - b2 ** self.t) / (1.0 - b1 ** self.t)
        for i, k in enumerate(PARAMS):
            g = grads[i]
            m = self.m[i]
            v = self.v[i]
            m *= b1
            m += (1.0 - b1) * g
            v *= b2
            v += (1.0 - b2) * (g * g)
            p = getattr(self.net, k)
            p -= (corr * m / (np.sqrt(v) + self.eps)).astype(np.float32)
        return loss

    def state(self, prefix: str) -> dict[str, NDArray[np.float32]]:
        """Arrays to store in a checkpoint (moments), keyed with ``prefix``."""
        out: dict[str, NDArray[np.float32]] = {}
        for i, k in enumerate(PARAMS):
            out[f"{prefix}_m_{k}"] = self.m[i]
            out[f"{prefix}_v_{k}"] = self.v[i]
        return out

    def load_state(self, prefix: str, arrays: dict[str, NDArray[np.float32]], t: int) -> None:
        for i, k in enumerate(PARAMS):
            self.m[i] = np.array(arrays[f"{prefix}_m_{k}"], dtype=np.float32)
            self.v[i] = np.array(arrays[f"{prefix}_v_{k}"], dtype=np.float32)
        self.t = t
