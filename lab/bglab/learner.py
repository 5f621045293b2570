"""What the training pipelines need to know about one variant: the nets it trains and how to use them.

The TD(lambda) self-play trainers (:mod:`bglab.td`), the target builders and the epoch fit
(:mod:`bglab.dataset`) are one algorithm each for every variant. What differs between
standard backgammon and the Dutch and Mahbusa variants is behind a *learner*:

* the trained nets, by their checkpoint prefix: the standard contact, crashed and race nets
  (``contact``, ``crashed``, ``race``, chosen by the position's class), or the one net of a variant
  (``net``; its pure races go to the standard race net and the bear-off databases, so only contact
  positions are learnt);
* self-play (:meth:`Learner.play`: the variant's move generator and 0-ply player, with the race
  context for a variant) into the buffers ``states`` and ``nextp``;
* the outcome vector: its swap to the other side's view (:attr:`Learner.swap`) and what a target
  row is made of (:meth:`Learner.outcomes`: a variant keeps its own outcomes, renormalised);
* the inputs of each trained net (:meth:`Learner.inputs`) and the cubeless equity of an outcome
  vector (:meth:`Learner.equity`).

>>> from analyzer.eval.net import NetSet
>>> std = StandardLearner(NetSet.initial(hidden=4, race_hidden=4, seed=0))
>>> list(std.nets()), std.swap.tolist(), std.single
(['contact', 'crashed', 'race'], [3, 4, 5, 0, 1, 2], False)
>>> dutch = VariantLearner(VariantNet.initial("dutch", hidden=4, seed=0))
>>> list(dutch.nets()), dutch.swap.tolist(), dutch.single, dutch.k
(['net'], [2, 3, 0, 1, 4], True, 4)
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from analyzer.eval import features as F
from analyzer.eval import selfplay
from analyzer.eval.net import Net, NetSet, weights_fingerprint
from analyzer.eval.variants import features as V
from analyzer.eval.variants import play as variant_play
from analyzer.eval.variants.model import POINTS, RaceContext, VariantNet, race_context
from bglab.base import train_epochs
from bglab.optim import Adam

CLASS_OF_KEY = {"contact": F.CLASS_CONTACT, "crashed": F.CLASS_CRASHED, "race": F.CLASS_RACE}

Inputs = dict[str, tuple[NDArray[np.bool_], NDArray[np.float32]]]
EQUITY_WEIGHTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0])


def outcome_equity(p: NDArray[np.float32]) -> NDArray[np.float64]:
    """Cubeless money equity of standard outcome distributions ``p`` (n x 6, as the nets give them).

    >>> outcome_equity(np.array([[0.5, 0.2, 0.0, 0.3, 0.0, 0.0]], np.float32)).round(6).tolist()
    [0.6]
    """
    out: NDArray[np.float64] = p.astype(np.float64) @ EQUITY_WEIGHTS
    return out


class Buffers(Protocol):
    """A self-play game's record: ``states[t]``, the position before roll t (its mover's view), and
    ``nextp[t]``, the outcome vector of the play chosen there (the mover's view)."""

    states: NDArray[np.int8]
    nextp: NDArray[np.float32]


class Learner(Protocol):
    """The per-variant side of the training pipelines (see the module docstring)."""

    variant: str
    single: bool  # one net stored under ``net`` (the variants), or a net per class (standard)
    swap: NDArray[np.intp]
    feature_version: int

    @property
    def buf(self) -> Buffers:
        """The record of the last :meth:`play`."""
        ...

    def nets(self) -> dict[str, Net]:
        """The trained nets by checkpoint prefix (the live objects)."""
        ...

    def play(self, seed: int, noise: float) -> tuple[int, int]:
        """Self-play one game with these nets; (positions recorded, outcome for the last mover;
        negative: the game ran too long or overflowed)."""
        ...

    def keep(self, boards: NDArray[np.int8]) -> NDArray[np.bool_]:
        """The rows of ``boards`` that these nets learn from."""
        ...

    def outcomes(self, g: NDArray[np.float32]) -> NDArray[np.float32]:
        """Target rows out of full-width outcome vectors ``g``."""
        ...

    def inputs(self, boards: NDArray[np.int8]) -> Inputs:
        """Per trained net, in training order: which rows of ``boards`` it evaluates and their inputs."""
        ...

    def equity(self, p: NDArray[np.float32]) -> NDArray[np.floating[Any]]:
        """The cubeless equity of target rows ``p``."""
        ...

    def fingerprint(self) -> str:
        """A short hash of the weights (:func:`analyzer.eval.net.weights_fingerprint`)."""
        ...


def lambda_targets(nextp: NDArray[np.float32], outcome: int, n: int, lam: float,
                   swap: NDArray[np.intp]) -> NDArray[np.float32]:
    """Lambda-return targets (n x ``len(swap)``) of the ``n`` positions of one finished game.

    ``nextp[t]`` is the outcome vector of the play chosen at t from that mover's side, ``outcome``
    the index of the result for the last mover and ``swap`` the permutation that shows an outcome
    vector from the other side: the target of t is ``(1 - lam) * nextp[t] + lam * target(t + 1)``
    seen from t's side, the exact result at the end.

    >>> sw = np.array([2, 3, 0, 1, 4])
    >>> p = np.full((2, 5), 0.2, np.float32)
    >>> lambda_targets(p, 1, 2, 0.0, sw)[1].tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0]
    >>> lambda_targets(p, 1, 2, 1.0, sw)[0].tolist()
    [0.0, 0.0, 0.0, 1.0, 0.0]
    """
    g = np.zeros((n, len(swap)), np.float32)
    g[n - 1, outcome] = 1.0
    for t in range(n - 2, -1, -1):
        g[t] = (1.0 - lam) * nextp[t] + lam * g[t + 1][swap]
    return g


def first_outcomes(g: NDArray[np.float32], k: int) -> NDArray[np.float32]:
    """The first ``k`` columns of ``g`` (a view, changed in place), each row rescaled to sum to 1:
    a variant's targets out of five-wide outcome vectors.

    >>> first_outcomes(np.array([[0.2, 0.2, 0.4, 0.2, 0.0]], np.float32), 2).tolist()
    [[0.5, 0.5]]
    """
    out = g[:, :k]
    out /= out.sum(axis=1, keepdims=True)
    return out


class StandardLearner:
    """Standard backgammon: the contact, crashed and race nets of a :class:`NetSet`, each learning
    the positions of its class, six outcomes (win and lose single, gammon, backgammon)."""

    variant = "standard"
    single = False
    swap = np.array([3, 4, 5, 0, 1, 2], np.intp)
    feature_version = F.FEATURE_VERSION

    def __init__(self, nets: NetSet) -> None:
        self.model = nets
        self.buf = selfplay.GameBuffers()

    def nets(self) -> dict[str, Net]:
        return self.model.nets()

    def play(self, seed: int, noise: float) -> tuple[int, int]:
        return selfplay.play_seeded(self.model, seed, noise, self.buf)

    def keep(self, boards: NDArray[np.int8]) -> NDArray[np.bool_]:
        return np.ones(len(boards), np.bool_)

    def outcomes(self, g: NDArray[np.float32]) -> NDArray[np.float32]:
        return g

    def inputs(self, boards: NDArray[np.int8]) -> Inputs:
        """The contact, crashed and race rows of ``boards`` (those present) with their inputs (the
        contact and crashed nets read as many inputs as they have: the plain or extended encoding)."""
        n = len(boards)
        classes = np.zeros(n, np.int64)
        contact, crashed = self.model.contact, self.model.crashed
        xc = np.zeros((n, max(contact.n_inputs, crashed.n_inputs)), np.float32)
        xr = np.zeros((n, F.N_RACE), np.float32)
        rows = np.zeros(n, np.int64)
        F.encode_batch(np.ascontiguousarray(boards), classes, xc, xr, rows)
        out: Inputs = {}
        for key, net in self.nets().items():
            sel = classes == CLASS_OF_KEY[key]
            if sel.any():
                out[key] = (sel, (xr if key == "race" else xc[:, : net.n_inputs])[rows[sel]])
        return out

    def equity(self, p: NDArray[np.float32]) -> NDArray[np.float64]:
        return outcome_equity(p)

    def fingerprint(self) -> str:
        return weights_fingerprint(*self.nets().values())


class VariantLearner:
    """A variant (Dutch, Mahbusa): its one net learns the contact positions; the others are races,
    which the standard race net and the bear-off databases of ``ctx`` evaluate. The outcome vectors
    have five entries (win and lose single and gammon, draw); targets keep the variant's ``k``."""

    single = True
    swap = np.array([2, 3, 0, 1, 4], np.intp)
    feature_version = V.FEATURE_VERSION

    def __init__(self, vn: VariantNet, ctx: RaceContext | None = None) -> None:
        self.model = vn
        self.variant = vn.variant
        self.code = vn.code
        self.k = V.n_outcomes(self.code)
        self.ctx = ctx or race_context()
        self.buf = variant_play.GameBuffers()

    def nets(self) -> dict[str, Net]:
        return {"net": self.model.net}

    def play(self, seed: int, noise: float) -> tuple[int, int]:
        return variant_play.play_seeded(self.model, seed, noise, self.buf, self.ctx)

    def keep(self, boards: NDArray[np.int8]) -> NDArray[np.bool_]:
        return np.array([V.classify(r, self.code) == V.CLASS_CONTACT for r in boards], np.bool_)

    def outcomes(self, g: NDArray[np.float32]) -> NDArray[np.float32]:
        return first_outcomes(g, self.k)

    def inputs(self, boards: NDArray[np.int8]) -> Inputs:
        """Every row of ``boards`` (contact positions) with the variant's inputs."""
        x = np.zeros((len(boards), self.model.net.n_inputs), np.float32)
        for i in range(len(boards)):
            V.encode(boards[i], self.code, x[i])
        return {"net": (np.ones(len(boards), np.bool_), x)}

    def equity(self, p: NDArray[np.float32]) -> NDArray[np.float32]:
        out: NDArray[np.float32] = p @ POINTS[: self.k].astype(np.float32)
        return out

    def fingerprint(self) -> str:
        return weights_fingerprint(self.model.net)


def train_nets(opts: dict[str, Adam], inputs: Inputs, targets: NDArray[np.float32], batch: int,
               rng: np.random.Generator, epochs: int = 1) -> dict[str, float]:
    """:func:`~bglab.base.train_epochs` of each net of ``inputs`` that has an optimiser in
    ``opts`` (in the order of ``inputs``, one ``rng``) on its rows of ``targets``; the mean loss per
    net trained."""
    return {key: train_epochs(opts[key], x, targets[sel], batch, rng, epochs)
            for key, (sel, x) in inputs.items() if key in opts}
